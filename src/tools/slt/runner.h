// Runs a parsed sqllogictest script against a fresh Database and judges
// every record.
//
//   statement ok     passes when the SQL runs without error
//   statement error  passes when the SQL fails (any error)
//   query            passes when the SQL runs, returns as many columns as
//                    the type string has characters, and its rendered,
//                    sorted values (render.h) equal the expected values, or
//                    their count and MD5 equal the expected hash line
//
// The comparison follows whichever form the script holds: listed values are
// compared one by one and a hash line by hash, whatever the hash-threshold
// (which only decided what the script's author wrote down).
//
// Labels: queries with the same label must produce the same values. The
// first query with a label that passed its own check (or, for a record
// skipped on this engine, the expected result written in the script) fixes
// the label's hash; a later query whose result hashes differently fails.
// Unlike the reference, a query that already failed does not set the label,
// so one wrong result does not also fail its correct relatives.
//
// Thread-safety: a ScriptRunner runs one script at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/database.h"
#include "tools/slt/parser.h"

namespace quiver::slt {

struct RunOptions {
  // The name skipif/onlyif compare with: Quiver speaks PostgreSQL's dialect.
  std::string engine = "postgresql";
  bool stop_on_fail = false;
  DatabaseOptions database;
};

enum class Outcome { kPassed, kFailed, kSkipped };

// Why a record failed, coarsely (for summaries).
enum class FailureKind {
  kNone,
  kStatementError,    // statement ok: the engine returned an error
  kQueryError,        // query: the engine returned an error
  kUnexpectedSuccess,  // statement error: the SQL ran
  kNoRows,            // query: the SQL returned no result set
  kColumnCount,       // query: wrong number of columns
  kWrongResult,       // query: values differ
  kLabelMismatch,     // query: differs from an earlier query with its label
  kInvalidRecord,     // the script itself is malformed
  kInternalError,     // an exception escaped the engine
  kCrash,             // the engine killed the process running the script (driver.h)
  kTimeout,           // the record ran longer than the timeout (driver.h)
};
const char* FailureKindName(FailureKind kind);

struct RecordResult {
  const Record* record = nullptr;
  Outcome outcome = Outcome::kPassed;
  FailureKind failure = FailureKind::kNone;
  std::string message;  // the engine's error, or what did not match
  // Queries that ran: the rendered (sorted) values, at most kKeptValues of
  // them, their total count and MD5.
  std::vector<std::string> actual;
  int64_t actual_count = 0;
  std::string actual_hash;
  int64_t first_difference = -1;  // index of the first differing value
  static constexpr size_t kKeptValues = 200;
};

struct FileReport {
  std::string path;
  int64_t passed = 0;
  int64_t failed = 0;
  int64_t skipped = 0;
  bool halted = false;   // a halt record ended the script
  bool stopped = false;  // --stop-on-fail ended it
  double seconds = 0;
  std::vector<RecordResult> failures;  // every failed record, in order

  // Percentage of applicable (not skipped) records that passed; 100 if none.
  double PassRate() const;
};

// Called before a statement or query record runs on the engine...
using StartCallback = std::function<void(const Record&)>;
// ...and after each one (passed, failed or skipped).
using RecordCallback = std::function<void(const RecordResult&)>;

class ScriptRunner {
 public:
  explicit ScriptRunner(RunOptions options) : options_(std::move(options)) {}

  // Runs `records` (parsed from the script at `path`, which must outlive the
  // report) in a new Database.
  FileReport Run(const std::string& path, const std::vector<Record>& records,
                 const RecordCallback& on_record = nullptr, const StartCallback& on_start = nullptr);

 private:
  RunOptions options_;
};

}  // namespace quiver::slt
