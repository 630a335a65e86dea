// quiver slt FILE...: runs sqllogictest scripts (SQLite's format, see
// tools/slt/parser.h) against the engine and reports pass rates.
//
//   quiver slt tests/sql/select.test
//   quiver slt ../shared/testdata/sqllogictest --show-failures 3 --error-summary 15
//
// Each file runs in a fresh in-memory Database, records in order, in a
// child process of its own (tools/slt/driver.h: an engine crash or a
// --timeout ends that file, not the run); Quiver acts as "postgresql" for
// skipif/onlyif. Per file it prints
//   <file>: N passed, M failed, K skipped (P.P%)
// followed by its first failures (SQL, expected vs actual), then a total
// line whose rate counts only the records that ran. A directory argument
// stands for every *.test file below it.
//
// Exit status: 0 once every file ran, failures or not, unless --fail-under
// P is given and the total pass rate is below P (then 1); 1 if a file could
// not be read.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "common/io.h"
#include "tools/commands.h"
#include "tools/slt/driver.h"
#include "tools/slt/parser.h"
#include "tools/slt/report.h"

namespace quiver::cli {
namespace {

struct SltArgs {
  std::vector<std::string> paths;
  int show_failures = 5;
  int error_summary = 0;
  double fail_under = -1;
  double timeout = 0;
  bool verbose = false;
  bool stop_on_fail = false;
  bool in_process = false;
  std::string engine = "postgresql";
  int threads = 0;
};

void Print(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

struct Group {
  int64_t count = 0;
  std::string example_where;
  std::string example_sql;
};

Result<std::vector<std::string>> ExpandPaths(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
           it.increment(ec)) {
        if (it->is_regular_file() && it->path().extension() == ".test") found.push_back(it->path().string());
      }
      if (ec) return Status::IOError("{}: {}", p, ec.message());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(p);
    }
  }
  return files;
}

Status RunSlt(const SltArgs& args) {
  QUIVER_ASSIGN_OR_RAISE(std::vector<std::string> files, ExpandPaths(args.paths));
  slt::DriveOptions options;
  options.run.engine = args.engine;
  options.run.stop_on_fail = args.stop_on_fail;
  options.run.database.threads = args.threads;
  // The corpus declares PRIMARY KEY and UNIQUE for engines that enforce them,
  // and its data satisfy them; Quiver does not enforce them yet and otherwise
  // refuses them (DatabaseOptions::informational_constraints).
  options.run.database.informational_constraints = true;
  options.show_failures = args.show_failures;
  options.verbose = args.verbose;
  options.isolate = !args.in_process;
  options.timeout_seconds = args.timeout;

  int64_t passed = 0, failed = 0, skipped = 0;
  size_t ran = 0;
  int unreadable = 0;
  std::map<std::string, Group> groups;
  for (const std::string& path : files) {
    auto data = ReadFileFully(path);
    if (!data.ok()) {
      std::fprintf(stderr, "quiver: error: %s: %s\n", path.c_str(), data.status().message().c_str());
      ++unreadable;
      continue;
    }
    const std::vector<slt::Record> records = slt::ParseScript((*data)->view());
    const slt::FileSummary summary = slt::RunFile(path, records, options);
    ++ran;
    passed += summary.passed;
    failed += summary.failed;
    skipped += summary.skipped;

    std::string out = summary.Headline() + "\n";
    size_t hidden = 0;
    for (const slt::FailureNote& note : summary.failures) {
      if (note.text.empty()) {
        ++hidden;
      } else {
        out += note.text;
      }
      Group& g = groups[note.group_key];
      if (g.count++ == 0) {
        g.example_where = note.where;
        g.example_sql = note.sql;
      }
    }
    if (hidden > 0) out += fmt::format("  ... {} more failures (--show-failures N)\n", hidden);
    Print(out);
    if (summary.stopped) break;
  }

  const double rate =
      passed + failed == 0 ? 100.0 : 100.0 * static_cast<double>(passed) / static_cast<double>(passed + failed);
  if (args.error_summary > 0 && !groups.empty()) {
    std::vector<std::pair<std::string, Group>> sorted(groups.begin(), groups.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
    std::string out = fmt::format("most common failures ({} kinds):\n", sorted.size());
    for (size_t i = 0; i < sorted.size() && i < static_cast<size_t>(args.error_summary); ++i) {
      const auto& [key, g] = sorted[i];
      out += fmt::format("  {:6}  {}\n          e.g. {}: {}\n", g.count, slt::Clip(key, 200), g.example_where,
                         g.example_sql);
    }
    Print(out);
  }
  Print(fmt::format("total: {} passed, {} failed, {} skipped ({:.1f}%) in {} file(s)\n", passed, failed, skipped,
                    rate, ran));
  if (unreadable > 0) return Status::IOError("{} file(s) could not be read", unreadable);
  if (args.fail_under >= 0 && rate < args.fail_under) {
    return Status::Invalid("pass rate {:.1f}% is below --fail-under {}", rate, args.fail_under);
  }
  return Status::OK();
}

}  // namespace

CommandAction AddSltCommand(CLI::App* app) {
  auto args = std::make_shared<SltArgs>();
  CLI::App* cmd = app->add_subcommand("slt", "Run sqllogictest scripts against the SQL engine");
  cmd->footer(
      "Scripts use SQLite's sqllogictest format (statement ok|error, query <types> [sort] [label],\n"
      "hash-threshold, halt, skipif/onlyif). Quiver runs records marked 'onlyif postgresql'\n"
      "and skips 'skipif postgresql' and 'onlyif <other engine>'. Each file gets a fresh database,\n"
      "which accepts PRIMARY KEY, UNIQUE, CHECK and FOREIGN KEY as declared but not enforced.");
  cmd->add_option("FILES", args->paths, "Script files, or directories holding *.test files")->required();
  cmd->add_option("--show-failures", args->show_failures, "Failures printed per file (default 5)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--error-summary", args->error_summary,
                  "At the end, print the N most common failure kinds (engine errors grouped by message)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--fail-under", args->fail_under,
                  "Exit with status 1 when the total pass rate (percent) is below P")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_flag("-v,--verbose", args->verbose, "Print every record's outcome and every failure");
  cmd->add_flag("--stop-on-fail", args->stop_on_fail, "Stop at the first failing record");
  cmd->add_option("--timeout", args->timeout,
                  "Give up on a file when one record runs longer than S seconds (default: no limit)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--in-process", args->in_process,
                "Run the scripts in this process (for debuggers) instead of one child process per file, "
                "which survives engine crashes");
  cmd->add_option("--engine", args->engine, "Engine name for skipif/onlyif (default postgresql)");
  cmd->add_option("--threads", args->threads, "Worker threads per query (default: all cores)")
      ->check(CLI::NonNegativeNumber);
  return [args] { return RunSlt(*args); };
}

}  // namespace quiver::cli
