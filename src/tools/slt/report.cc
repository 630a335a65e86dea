#include "tools/slt/report.h"

#include <fmt/format.h>

namespace quiver::slt {
namespace {

// Rows of `columns` values, one row a line, at most `max_rows` rows.
std::string FormatRows(const std::vector<std::string>& values, int64_t total, size_t columns,
                       const std::string& indent, size_t max_rows = 8) {
  if (columns == 0) columns = 1;
  std::string out;
  size_t shown = 0;
  for (size_t i = 0; i < values.size() && shown < max_rows; i += columns, ++shown) {
    std::string row;
    for (size_t c = 0; c < columns && i + c < values.size(); ++c) {
      if (c) row += " | ";
      row += values[i + c];
    }
    out += indent + Clip(row, 160) + "\n";
  }
  const int64_t width = static_cast<int64_t>(columns);
  const int64_t rows_total = (total + width - 1) / width;
  if (rows_total > static_cast<int64_t>(shown)) {
    out += indent + fmt::format("... ({} more rows)\n", rows_total - static_cast<int64_t>(shown));
  }
  if (total == 0) out += indent + "(no rows)\n";
  return out;
}

}  // namespace

double FileSummary::PassRate() const {
  const int64_t ran = passed + failed;
  return ran == 0 ? 100.0 : 100.0 * static_cast<double>(passed) / static_cast<double>(ran);
}

std::string FileSummary::Headline() const {
  std::string notes;
  if (halted) notes += ", halted";
  if (stopped) notes += ", stopped at first failure";
  if (!aborted.empty()) notes += ", ABORTED: " + aborted;
  return fmt::format("{}: {} passed, {} failed, {} skipped ({:.1f}%){} [{:.1f}s]", path, passed, failed,
                     skipped, PassRate(), notes, seconds);
}

std::string Clip(std::string_view s, size_t width) {
  std::string out(s.substr(0, s.find('\n')));
  if (out.size() < s.size() && out.size() + 4 <= width) out += " ...";
  if (out.size() > width) out = out.substr(0, width - 3) + "...";
  return out;
}

std::string FormatFailure(const std::string& path, const RecordResult& r) {
  const Record& rec = *r.record;
  std::string out = fmt::format("  FAIL {}:{}: {}\n", path, rec.line, Clip(r.message, 300));
  size_t lines = 0;
  size_t pos = 0;
  while (pos < rec.sql.size() && lines < 6) {
    size_t end = rec.sql.find('\n', pos);
    if (end == std::string::npos) end = rec.sql.size();
    out += "    | " + Clip(std::string_view(rec.sql).substr(pos, end - pos), 160) + "\n";
    pos = end + 1;
    ++lines;
  }
  if (pos < rec.sql.size()) out += "    | ...\n";
  if (r.failure != FailureKind::kWrongResult && r.failure != FailureKind::kLabelMismatch) return out;

  const size_t columns = rec.types.size();
  if (rec.expected_is_hash) {
    out += fmt::format("    expected: {} values hashing to {}\n", rec.expected_hash_count, rec.expected_hash);
  } else {
    out += fmt::format("    expected ({} values):\n", rec.expected.size());
    out += FormatRows(rec.expected, static_cast<int64_t>(rec.expected.size()), columns, "      ");
  }
  out += fmt::format("    actual ({} values, hashing to {}):\n", r.actual_count, r.actual_hash);
  out += FormatRows(r.actual, r.actual_count, columns, "      ");
  if (r.first_difference >= 0 && columns > 0) {
    const size_t i = static_cast<size_t>(r.first_difference);
    const std::string want = i < rec.expected.size() ? "'" + rec.expected[i] + "'" : "(nothing)";
    const std::string got = i < r.actual.size()                         ? "'" + r.actual[i] + "'"
                            : i < static_cast<size_t>(r.actual_count) ? "(not kept)"
                                                                      : "(nothing)";
    out += fmt::format("    first difference: value {} (row {}, column {}): expected {}, got {}\n", i + 1,
                       i / columns + 1, i % columns + 1, Clip(want, 80), Clip(got, 80));
  }
  return out;
}

std::string GroupKey(const RecordResult& r) {
  std::string key = FailureKindName(r.failure);
  if (r.failure == FailureKind::kWrongResult || r.failure == FailureKind::kLabelMismatch ||
      r.failure == FailureKind::kUnexpectedSuccess) {
    return key;
  }
  const std::string msg = Clip(r.message, 400);
  std::string norm;
  for (size_t i = 0; i < msg.size(); ++i) {
    const char c = msg[i];
    if (c == '"' || c == '\'') {
      const size_t close = msg.find(c, i + 1);
      if (close != std::string::npos) {
        norm += c;
        norm += "...";
        norm += c;
        i = close;
        continue;
      }
    }
    if (c >= '0' && c <= '9') {
      while (i + 1 < msg.size() && ((msg[i + 1] >= '0' && msg[i + 1] <= '9') || msg[i + 1] == '.')) ++i;
      norm += 'N';
      continue;
    }
    norm += c;
  }
  return key + ": " + norm;
}

FailureNote MakeNote(const std::string& path, const RecordResult& r, bool with_text) {
  FailureNote note;
  note.group_key = GroupKey(r);
  note.where = fmt::format("{}:{}", path, r.record->line);
  note.sql = Clip(r.record->sql, 200);
  if (with_text) note.text = FormatFailure(path, r);
  return note;
}

}  // namespace quiver::slt
