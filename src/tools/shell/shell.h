// The interactive SQL shell: `quiver` (or `quiver sql` with no statements)
// on a terminal.
//
//   quiver=> SELECT count(*)
//   quiver-> FROM 'lineitem.parquet';
//
// Statements end at ';' (statement_splitter.h) and may span lines (the
// prompt shows what is open: quiver-> , quiver'> , quiver(> ...); backslash
// commands (backslash.h) act at once. Each statement runs as a stream: Ctrl-C
// cancels it (QueryStream::Cancel) and the shell goes on; after 2 s a
// progress line on stderr shows the elapsed time and rows so far. Results
// are tables (or \x expanded records) shown through the pager (pager.h)
// when they do not fit the terminal, or written to the \o file.
//
// Piped (non-terminal) input does not come here: `quiver sql` runs it as a
// script (sql_command.cc). \i FILE runs a file's statements and commands in
// the shell, stopping at the first error.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "engine/database.h"

namespace quiver::cli::shell {

struct ShellOptions {
  // Rows shown per result (the rest are counted).
  int64_t max_rows = 100;
  // History file; empty: $HOME/.quiver_history (none without $HOME).
  std::string history_file;
};

// Runs the shell until \q or Ctrl-D. Errors of statements are printed and
// the shell goes on; the Status is for failures of the shell itself.
Status RunShell(Database* db, const ShellOptions& options);

}  // namespace quiver::cli::shell
