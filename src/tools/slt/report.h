// What `quiver slt` prints about a script: per-file counts, failures with
// their SQL and expected vs actual values, and the key that groups failures
// of one kind for --error-summary.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tools/slt/runner.h"

namespace quiver::slt {

// One failed record, reduced to what the report needs (it crosses the pipe
// from an isolated run, see driver.h).
struct FailureNote {
  std::string group_key;  // GroupKey()
  std::string where;      // "file.test:123"
  std::string sql;        // first line, clipped
  std::string text;       // FormatFailure(), or empty when not to be shown
};

struct FileSummary {
  std::string path;
  int64_t passed = 0;
  int64_t failed = 0;
  int64_t skipped = 0;
  bool halted = false;
  bool stopped = false;
  std::string aborted;  // why the script ended early: a crash, a timeout
  double seconds = 0;
  std::vector<FailureNote> failures;

  double PassRate() const;  // of the records that ran; 100 if none
  // "<path>: N passed, M failed, K skipped (P.P%)" and its notes, one line.
  std::string Headline() const;
};

// `s` up to its first newline, at most `width` bytes.
std::string Clip(std::string_view s, size_t width);

// The failure as printed: location and reason, the SQL, and for wrong
// results the expected and actual values and where they first differ.
std::string FormatFailure(const std::string& path, const RecordResult& r);

// The failure's group: its kind, plus for engine errors the message with
// quoted names and numbers blanked, so `column "x" does not exist` and
// `column "y" does not exist` count together.
std::string GroupKey(const RecordResult& r);

FailureNote MakeNote(const std::string& path, const RecordResult& r, bool with_text);

}  // namespace quiver::slt
