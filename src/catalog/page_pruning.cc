#include "catalog/page_pruning.h"

#include <algorithm>
#include <map>

namespace quiver {

namespace {

using formats::RowRange;

// Rows in both `a` and `b` (each ascending and disjoint).
std::vector<RowRange> Intersect(const std::vector<RowRange>& a, const std::vector<RowRange>& b) {
  std::vector<RowRange> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t lo = std::max(a[i].begin, b[j].begin);
    const int64_t hi = std::min(a[i].end, b[j].end);
    if (lo < hi) out.push_back({lo, hi});
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

}  // namespace

int64_t UnitRows::rows() const {
  int64_t n = 0;
  for (const RowRange& r : ranges) n += r.end - r.begin;
  return n;
}

UnitRows RowsMayMatch(const formats::FileReader& reader, int unit, int64_t unit_rows,
                      const std::vector<ScanPredicate>& predicates, int num_columns,
                      const std::function<int(int)>& file_column,
                      const std::function<Value(const ArrayRef&, int)>& stat_value) {
  UnitRows out;
  if (unit_rows <= 0) return out;
  std::vector<RowRange> kept{{0, unit_rows}};
  std::map<int, std::vector<formats::SliceStatistics>> slices_of;  // by table column
  for (const ScanPredicate& p : predicates) {
    std::vector<int> columns;
    p.Columns(&columns);
    std::sort(columns.begin(), columns.end());
    columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
    if (columns.size() != 1 || columns[0] < 0 || columns[0] >= num_columns) continue;
    const int c = columns[0];
    auto it = slices_of.find(c);
    if (it == slices_of.end()) {
      const int fc = file_column(c);
      it = slices_of.emplace(c, fc < 0 ? std::vector<formats::SliceStatistics>{}
                                       : reader.unit_slices(unit, fc)).first;
    }
    const auto& slices = it->second;
    if (slices.size() < 2) continue;
    UnitStatistics stats;
    stats.min.assign(static_cast<size_t>(num_columns), Value());
    stats.max.assign(static_cast<size_t>(num_columns), Value());
    stats.nulls.assign(static_cast<size_t>(num_columns), -1);
    std::vector<RowRange> allowed;
    for (const formats::SliceStatistics& s : slices) {
      stats.rows = s.rows;
      stats.min[static_cast<size_t>(c)] = stat_value(s.stats.min, c);
      stats.max[static_cast<size_t>(c)] = stat_value(s.stats.max, c);
      stats.nulls[static_cast<size_t>(c)] = s.stats.null_count;
      if (!UnitMayMatch(stats, p)) continue;
      const RowRange r{s.first_row, std::min(s.first_row + s.rows, unit_rows)};
      if (r.begin >= r.end) continue;
      if (!allowed.empty() && allowed.back().end == r.begin) {
        allowed.back().end = r.end;
      } else {
        allowed.push_back(r);
      }
    }
    kept = Intersect(kept, allowed);
    if (kept.empty()) {
      out.none = true;
      return out;
    }
  }
  if (kept.size() == 1 && kept[0].begin == 0 && kept[0].end == unit_rows) return out;
  out.ranges = std::move(kept);
  return out;
}

}  // namespace quiver
