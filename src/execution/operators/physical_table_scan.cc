#include "execution/operators/physical_table_scan.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>

#include "functions/kernel_util.h"

namespace quiver::exec {
namespace {

// A part of a unit a partitioned scan reads: rows [lo, hi) (hi < 0: all).
struct Piece {
  int64_t unit = 0;
  int64_t lo = 0;
  int64_t hi = -1;
};

struct ScanGlobal : GlobalSourceState {
  std::shared_ptr<ScanPlan> plan;
  // A partitioned scan (ScanPartition) reads these, in order; else every unit.
  bool partitioned = false;
  bool read_stream = true;  // the sequential stream after the units
  std::vector<Piece> pieces;
  std::atomic<int64_t> next_unit{0};
  std::atomic<bool> stop{false};
  std::mutex stream_mu;
  int64_t stream_batches = 0;  // GUARDED_BY(stream_mu)
  bool stream_done = false;    // GUARDED_BY(stream_mu)
  int MaxThreads() const override {
    const int64_t units = plan->num_units();
    return plan->stream() ? (units > 0 ? static_cast<int>(std::min<int64_t>(units, 1 << 20)) : 1)
                          : static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(units, 1 << 20)));
  }
};

struct ScanLocal : LocalSourceState {
  RecordBatchRef batch;
  int64_t morsel = 0;
  int64_t offset = 0;
  int64_t slice = 0;
  std::vector<uint32_t> sel_a, sel_b;  // runtime filters' selections
  std::vector<uint32_t> survivors;     // rows passing them, relative to the chunk
};

}  // namespace

std::string PhysicalTableScan::ParamsToString() const {
  std::string s = table_->name() + " [";
  for (size_t i = 0; i < column_names_.size(); ++i) s += (i ? ", " : "") + column_names_[i];
  s += "]";
  const SchemaRef schema = table_->schema();
  std::vector<std::string> names;
  for (const auto& f : schema->fields) names.push_back(f->name);
  for (const auto& p : request_.predicates) s += " {" + p.ToString(names) + "}";
  for (const auto& f : runtime_filters_) {
    s += " {" + column_names_[static_cast<size_t>(f->scan_column)] + ": " + f->ToString() + "}";
  }
  if (last_plan_) {
    const auto& c = last_plan_->counters();
    s += fmt::format(" files={} units={} pruned={} skipped={} read={} rows_read={}", c.files.load(),
                     c.units_total.load(), c.units_pruned.load(), c.units_skipped.load(), c.units_read.load(),
                     c.rows_read.load());
    if (c.files_pruned.load() >= 0) s += fmt::format(" files_pruned={}", c.files_pruned.load());
    if (c.rows_pruned.load() > 0) s += fmt::format(" rows_pruned={}", c.rows_pruned.load());
    int64_t in = 0, out = 0;
    for (const auto& f : runtime_filters_) {
      in += f->rows_in;
      out += f->rows_out;
    }
    if (!runtime_filters_.empty()) s += fmt::format(" runtime_filter_rows={}->{}", in, out);
  }
  // Lines of their own below the scan (PhysicalOperator::ToString indents them).
  for (const std::string& line : table_->ExplainLines(request_, last_plan_.get())) s += "\n" + line;
  return s;
}

void PhysicalTableScan::StopNewMorsels(GlobalSourceState& gstate) const {
  static_cast<ScanGlobal&>(gstate).stop = true;
}

Result<std::unique_ptr<GlobalSourceState>> PhysicalTableScan::GetGlobalSourceState(ExecutionContext& ctx) const {
  auto g = std::make_unique<ScanGlobal>();
  ScanRequest req = request_;
  req.pool = ctx.pool();
  // Runtime filters skip units by their key column's statistics.
  for (const auto& f : runtime_filters_) {
    req.statistics_columns.push_back(request_.columns[static_cast<size_t>(f->scan_column)]);
  }
  if (partition_.count > 1 && partition_.group != nullptr) {
    // The parts share the first part's plan: one snapshot of the table.
    std::lock_guard<std::mutex> lock(partition_.group->mu);
    if (partition_.group->plan == nullptr) {
      QUIVER_ASSIGN_OR_RAISE(auto plan, table_->Plan(req));
      partition_.group->plan = std::shared_ptr<ScanPlan>(std::move(plan));
    }
    g->plan = partition_.group->plan;
    g->partitioned = true;
    g->read_stream = partition_.index == 0;
    const int64_t units = g->plan->num_units();
    const int64_t index = partition_.index;
    const int64_t count = partition_.count;
    int64_t total = 0;
    for (int64_t u = 0; u < units && total >= 0; ++u) {
      const int64_t rows = g->plan->unit_rows(u);
      total = rows < 0 ? -1 : total + rows;
    }
    if (total >= 0) {
      // Rows [begin, end) of the units' concatenation.
      const int64_t begin = total * index / count;
      const int64_t end = total * (index + 1) / count;
      int64_t start = 0;
      for (int64_t u = 0; u < units; ++u) {
        const int64_t rows = g->plan->unit_rows(u);
        const int64_t lo = std::max(begin, start) - start;
        const int64_t hi = std::min(end, start + rows) - start;
        if (lo < hi) g->pieces.push_back({u, lo, hi == rows && lo == 0 ? -1 : hi});
        start += rows;
      }
    } else {
      for (int64_t u = units * index / count; u < units * (index + 1) / count; ++u) {
        g->pieces.push_back({u, 0, -1});
      }
    }
  } else {
    QUIVER_ASSIGN_OR_RAISE(auto plan, table_->Plan(req));
    g->plan = std::shared_ptr<ScanPlan>(std::move(plan));
  }
  last_plan_ = g->plan;
  return std::unique_ptr<GlobalSourceState>(std::move(g));
}

Result<std::unique_ptr<LocalSourceState>> PhysicalTableScan::GetLocalSourceState(ExecutionContext&,
                                                                                  GlobalSourceState&) const {
  return std::unique_ptr<LocalSourceState>(new ScanLocal());
}

Result<SourceResult> PhysicalTableScan::GetData(ExecutionContext& ctx, DataChunk* out, GlobalSourceState& gstate,
                                                LocalSourceState& lstate) const {
  auto& g = static_cast<ScanGlobal&>(gstate);
  auto& l = static_cast<ScanLocal&>(lstate);
  while (l.batch == nullptr || l.offset >= l.batch->num_rows()) {
    l.batch = nullptr;
    if (g.stop.load()) return SourceResult::kFinished;
    int64_t unit = g.next_unit.fetch_add(1);
    Piece piece{unit, 0, -1};
    const bool have = g.partitioned ? unit < static_cast<int64_t>(g.pieces.size())
                                    : unit < g.plan->num_units();
    if (have) {
      if (g.partitioned) piece = g.pieces[static_cast<size_t>(unit)];
      unit = piece.unit;
      // Runtime filters may rule the whole unit out by its statistics.
      bool skip = false;
      if (const UnitStatistics* st = g.plan->unit_statistics(unit)) {
        for (const auto& f : runtime_filters_) {
          if (!f->ready) continue;
          const int table_col = request_.columns[static_cast<size_t>(f->scan_column)];
          if (static_cast<size_t>(table_col) < st->min.size() &&
              !f->MayMatch(st->min[static_cast<size_t>(table_col)], st->max[static_cast<size_t>(table_col)])) {
            skip = true;
          }
        }
      }
      for (const auto& f : runtime_filters_) skip |= f->ready && f->empty;
      if (skip) {
        g.plan->counters().units_skipped++;
        continue;
      }
      QUIVER_ASSIGN_OR_RAISE(l.batch, g.plan->ReadUnit(unit));
      if (piece.hi >= 0) l.batch = l.batch->Slice(piece.lo, piece.hi - piece.lo);
      l.morsel = unit;
    } else {
      RecordBatchReader* stream = g.read_stream ? g.plan->stream() : nullptr;
      if (stream == nullptr) return SourceResult::kFinished;
      std::lock_guard<std::mutex> lock(g.stream_mu);
      if (g.stream_done) return SourceResult::kFinished;
      RecordBatchRef b;
      QUIVER_RETURN_NOT_OK(stream->ReadNext(&b));
      if (b == nullptr) {
        g.stream_done = true;
        return SourceResult::kFinished;
      }
      l.batch = b;
      l.morsel = g.plan->num_units() + g.stream_batches++;
    }
    l.offset = 0;
    l.slice = 0;
    if (ctx.cancelled()) return SourceResult::kFinished;
  }
  // The runtime filters worth applying, the most selective first (pass
  // rates measured so far); a filter that has let nearly everything through
  // is not worth its cost.
  std::array<std::pair<double, RuntimeFilter*>, 16> order;
  size_t num_filters = 0;
  for (const auto& f : runtime_filters_) {
    if (!f->ready || num_filters == order.size()) continue;
    const int64_t seen = f->rows_in.load(std::memory_order_relaxed);
    const int64_t passed = f->rows_out.load(std::memory_order_relaxed);
    if (seen > (int64_t{1} << 20) && passed > seen / 10 * 9) continue;
    order[num_filters++] = {seen > 0 ? static_cast<double>(passed) / static_cast<double>(seen) : 0.5, f.get()};
  }
  std::sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(num_filters),
            [](const auto& a, const auto& b) { return a.first < b.first; });

  const int64_t batch_rows = l.batch->num_rows();
  const int64_t start = l.offset;
  int64_t end = start + std::min(kVectorSize, batch_rows - start);
  int64_t total = end - start;
  if (num_filters > 0) {
    // Row-level runtime filtering. The surviving rows are gathered over a
    // window of the batch that grows until about half a vector survives, so
    // a selective join does not leave the rest of the pipeline with many
    // nearly empty chunks; the chunk's columns are zero-copy slices of the
    // window and its selection names the survivors.
    l.sel_a.resize(static_cast<size_t>(kVectorSize));
    l.sel_b.resize(static_cast<size_t>(kVectorSize));
    l.survivors.resize(static_cast<size_t>(kVectorSize));
    total = 0;
    end = start;
    do {
      const int64_t step = std::min(kVectorSize - total, batch_rows - end);
      for (int64_t i = 0; i < step; ++i) l.sel_a[static_cast<size_t>(i)] = static_cast<uint32_t>(end + i);
      const uint32_t* rows = l.sel_a.data();
      int64_t count = step;
      for (size_t i = 0; i < num_filters && count > 0; ++i) {
        RuntimeFilter* f = order[i].second;
        const ArrayRef& col = l.batch->columns()[static_cast<size_t>(f->scan_column)];
        uint32_t* dst = rows == l.sel_a.data() ? l.sel_b.data() : l.sel_a.data();
        f->rows_in += count;
        count = f->Apply(VectorRef{col.get(), rows, false}, count, rows, dst);
        f->rows_out += count;
        rows = dst;
      }
      for (int64_t i = 0; i < count; ++i) {
        l.survivors[static_cast<size_t>(total + i)] = rows[i] - static_cast<uint32_t>(start);
      }
      total += count;
      end += step;
    } while (total < kVectorSize / 2 && end < batch_rows);
  }
  const int64_t n = end - start;
  for (const auto& c : l.batch->columns()) {
    out->columns.push_back(start == 0 && n == c->length ? c : c->Slice(start, n));
  }
  out->num_rows = n;
  out->batch_index = (l.morsel << 24) | l.slice;
  l.offset = end;
  ++l.slice;
  if (total < n) {
    auto sel = std::make_shared<SelectionVector>(total);
    std::copy(l.survivors.data(), l.survivors.data() + total, sel->data());
    out->sel = std::move(sel);
    out->num_rows = total;
  }
  return SourceResult::kHaveMoreOutput;
}

}  // namespace quiver::exec
