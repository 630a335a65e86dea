// Runs one script for `quiver slt`, by default in a forked child process so
// that an engine crash (or, with a timeout, a runaway query) costs the rest
// of that one file instead of the whole run.
//
// The child runs the script and streams its progress to the parent over a
// pipe: before each record it names the record's line, after it the outcome
// (failures with their report text). When the child dies or goes silent for
// longer than the timeout, the parent charges the running record with a
// failure ("engine crashed (signal 11: Segmentation fault)", "timed out")
// and reports the file as aborted there.
//
// Fork safety: the parent never touches the engine, so it has no threads
// when it forks; the child creates the Database (and the thread pool) and
// leaves with _exit.
#pragma once

#include <string>
#include <vector>

#include "tools/slt/parser.h"
#include "tools/slt/report.h"
#include "tools/slt/runner.h"

namespace quiver::slt {

struct DriveOptions {
  RunOptions run;
  int show_failures = 5;   // failures whose text is kept per file
  bool verbose = false;    // print every record's outcome as it happens; keep every failure's text
  bool isolate = true;     // run in a child process
  double timeout_seconds = 0;  // per record, isolated runs only; 0: none
};

FileSummary RunFile(const std::string& path, const std::vector<Record>& records,
                    const DriveOptions& options);

}  // namespace quiver::slt
