// The sqllogictest script format (SQLite's sqllogictest; see
// shared/testdata/sqllogictest/ABOUT.wiki), parsed into records.
//
// A script is line-oriented. Lines starting with '#' are comments and vanish
// before anything else happens (they do not separate records); a trailing \r
// is dropped and a line of only whitespace counts as blank. Records are runs
// of non-blank lines separated by blank lines:
//
//   skipif mysql                     zero or more conditions, then the record
//   onlyif postgresql
//   statement ok|error               SQL on the following lines
//   CREATE TABLE t1(a INTEGER)
//
//   query IIT rowsort label-7        type string (one char per column: I, R,
//   SELECT a, b, c FROM t1           T), sort mode (nosort, rowsort,
//   ----                             valuesort; default nosort), optional label
//   1                                expected values, one per line, row by row,
//   2                                or "<N> values hashing to <md5>"; no
//   x                                "----" means an empty result
//
//   hash-threshold 8                 results with more values are hashed
//   halt                             ignore the rest of the script
//
// Malformed records (an unknown first word, a bad sort mode) are kept as
// kInvalid records carrying the reason, so the runner can report them where
// they are instead of giving up on the whole file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace quiver::slt {

enum class RecordKind { kStatement, kQuery, kHashThreshold, kHalt, kInvalid };
enum class SortMode { kNoSort, kRowSort, kValueSort };

// "skipif <engine>" (only_if false) or "onlyif <engine>" (only_if true).
struct Condition {
  bool only_if = false;
  std::string engine;
};

struct Record {
  RecordKind kind = RecordKind::kInvalid;
  int line = 0;  // 1-based line of the record's command (after its conditions)
  std::vector<Condition> conditions;
  std::string sql;  // statements and queries

  bool expect_error = false;  // statement error

  std::string types;  // query: "IIT"
  SortMode sort = SortMode::kNoSort;
  std::string label;
  // Expected result: either the values, or their count and MD5.
  std::vector<std::string> expected;
  bool expected_is_hash = false;
  int64_t expected_hash_count = 0;
  std::string expected_hash;

  int64_t hash_threshold = 0;  // hash-threshold

  std::string invalid_reason;  // kInvalid: what was wrong, and the line
};

// Splits `text` into records (never fails: see kInvalid above).
std::vector<Record> ParseScript(std::string_view text);

// Whether `record` runs on `engine` (case-insensitive): every skipif names
// another engine and every onlyif names this one.
bool RecordApplies(const Record& record, std::string_view engine);

// "30 values hashing to 3c13..." -> count and hash; false if `line` is not
// in that form.
bool ParseHashLine(std::string_view line, int64_t* count, std::string* hash);

}  // namespace quiver::slt
