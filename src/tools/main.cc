// The `quiver` command-line tool: parses the command line with CLI11 and runs
// the chosen subcommand (one per *_command.cc, see commands.h).
//
// Exit codes: 0 success, 1 the command failed ("quiver: error: <message>" on
// stderr), 2 the command line was wrong (same prefix, plus a hint to --help).
// No exception escapes: CLI11's parse errors and anything unexpected thrown
// by the standard library are caught here.
#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "tools/commands.h"

#ifndef QUIVER_VERSION
#define QUIVER_VERSION "unknown"
#endif

namespace {

int Fail(int code, const std::string& message, const std::string& command = "") {
  std::fprintf(stderr, "quiver: error: %s\n", message.c_str());
  if (code == 2) {
    std::fprintf(stderr, "Run 'quiver %s--help' for usage.\n",
                 command.empty() ? "" : (command + " ").c_str());
  }
  return code;
}

int Main(int argc, char** argv) {
  CLI::App app(
      "Quiver: an analytical SQL database (PostgreSQL dialect) over Arrow, Parquet and CSV\n"
      "files, with an interactive shell and an Arrow Flight SQL server.",
      "quiver");
  app.set_version_flag("--version", "quiver " QUIVER_VERSION, "Print the version and exit");
  app.require_subcommand(0, 1);
  app.footer(
      "Run 'quiver' alone (or 'quiver sql') on a terminal for the interactive SQL shell:\n"
      "  quiver=> SELECT count(*) FROM \"events.parquet\";\n"
      "Run 'quiver help COMMAND' or 'quiver COMMAND --help' for a command's options.");

  std::vector<std::pair<CLI::App*, quiver::cli::CommandAction>> actions;
  auto add = [&](quiver::cli::CommandAction (*adder)(CLI::App*)) {
    quiver::cli::CommandAction action = adder(&app);
    actions.emplace_back(app.get_subcommands({}).back(), std::move(action));
  };
  add(&quiver::cli::AddSqlCommand);
  add(&quiver::cli::AddCatCommand);
  add(&quiver::cli::AddConvertCommand);
  add(&quiver::cli::AddDemoCommand);
  add(&quiver::cli::AddParquetMetaCommand);
  add(&quiver::cli::AddGenCommand);
  add(&quiver::cli::AddSltCommand);
  add(&quiver::cli::AddServeCommand);
  add(&quiver::cli::AddPasswdCommand);

  std::string help_topic;
  CLI::App* help = app.add_subcommand("help", "Show help for quiver or one of its commands");
  help->add_option("COMMAND", help_topic, "Command to describe");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Point at the help of the command being parsed, if it got that far.
    for (const auto& [cmd, action] : actions) {
      if (cmd->parsed()) return Fail(2, e.what(), cmd->get_name());
    }
    return Fail(2, e.what());
  }

  if (help->parsed()) {
    if (help_topic.empty()) {
      std::fputs(app.help().c_str(), stdout);
      return 0;
    }
    if (help_topic == "help") {
      std::fputs(help->help("quiver").c_str(), stdout);
      return 0;
    }
    for (const auto& [cmd, action] : actions) {
      if (cmd->get_name() == help_topic) {
        std::fputs(cmd->help("quiver").c_str(), stdout);
        return 0;
      }
    }
    return Fail(2, "unknown command '" + help_topic + "'");
  }
  for (const auto& [cmd, action] : actions) {
    if (!cmd->parsed()) continue;
    const quiver::Status st = action();
    // An empty message: the command already reported the error itself.
    if (!st.ok()) return st.message().empty() ? 1 : Fail(1, st.message());
    return 0;
  }
  // No command: on a terminal, the SQL shell; else the overview, as `git`
  // shows it, signalling misuse.
  if (::isatty(STDIN_FILENO)) {
    const quiver::Status st = quiver::cli::RunInteractiveShell();
    if (!st.ok()) return st.message().empty() ? 1 : Fail(1, st.message());
    return 0;
  }
  std::fputs(app.help().c_str(), stderr);
  return 2;
}

}  // namespace

// glibc's malloc returns large blocks to the kernel (mmap / trim), and the
// kernel zeroes every page it hands out again: a query building a hash table
// of a few million rows spent a sixth of its time in page zeroing, every
// time. Like a database's own buffer manager (or jemalloc in DuckDB), keep
// freed memory in the process for the next operator or query: allocations
// up to 512 MiB come from the heap, and the heap is trimmed only when more
// than 1 GiB sits free at its top. Memory limits are unaffected: they count
// what queries allocate, not what the process keeps.
static void TuneAllocator() {
  mallopt(M_MMAP_THRESHOLD, 512 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

int main(int argc, char** argv) {
  TuneAllocator();
  try {
    return Main(argc, argv);
  } catch (const std::bad_alloc&) {
    return Fail(1, "out of memory");
  } catch (const std::exception& e) {
    return Fail(1, std::string("internal error: ") + e.what());
  } catch (...) {
    return Fail(1, "internal error: unknown exception");
  }
}
