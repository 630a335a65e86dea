// The `quiver` subcommands. main.cc owns the top-level CLI11 app; each
// command lives in its own <name>_command.cc and registers itself here.
//
// An Add*Command function declares the subcommand and its options on `app`
// and returns the action main() runs once parsing chose that subcommand. The
// action reports failure as a Status (printed as "quiver: error: <message>",
// exit 1); command-line mistakes are caught by CLI11 while parsing (exit 2).
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "common/status.h"

namespace quiver::cli {

using CommandAction = std::function<Status()>;

// quiver cat FILE: schema and the first rows as a table.
CommandAction AddCatCommand(CLI::App* app);
// quiver convert IN OUT: CSV <-> Arrow IPC file/stream, IPC <-> IPC.
CommandAction AddConvertCommand(CLI::App* app);
// quiver demo: writes a deterministic sensor data set and reads it back.
CommandAction AddDemoCommand(CLI::App* app);
// quiver parquet-meta FILE: a Parquet file's schema, row groups and column chunks.
CommandAction AddParquetMetaCommand(CLI::App* app);
// quiver gen ssb|tpch: writes a benchmark data set (SSB or TPC-H).
CommandAction AddGenCommand(CLI::App* app);

// quiver sql: runs SQL statements over files and in-memory tables; with
// none on a terminal, the interactive shell (tools/shell/shell.h).
CommandAction AddSqlCommand(CLI::App* app);
// The shell with default options: `quiver` alone on a terminal.
Status RunInteractiveShell();
// quiver slt FILE...: runs sqllogictest scripts and reports pass rates.
CommandAction AddSltCommand(CLI::App* app);

// quiver serve: an Arrow Flight SQL server (src/server).
CommandAction AddServeCommand(CLI::App* app);
// quiver passwd: adds a user with a hashed password to a users file.
CommandAction AddPasswdCommand(CLI::App* app);

}  // namespace quiver::cli
