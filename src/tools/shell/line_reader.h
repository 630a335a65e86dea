// Reads the shell's lines from the terminal with line editing, history and
// tab completion, through Debian's libedit (BSD licensed; its native
// histedit.h API). Built without libedit (-DQUIVER_LINE_EDITING=OFF), it
// reads plain lines: no editing, completion or history.
//
// Ctrl-C at the prompt abandons the line (Read returns kInterrupted); the
// process's SIGINT handler (InstallInterruptHandler) only sets a flag, so a
// running query is cancelled by the shell, never the process killed.
//
// Thread-safety: one thread.
#pragma once

#include <atomic>
#include <csignal>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "tools/shell/completion.h"

namespace quiver::cli::shell {

// Set by the SIGINT handler; the shell polls and clears it.
extern volatile std::sig_atomic_t g_interrupt;
// Also set by the SIGINT handler: the running statement's cancel flag
// (StatementOptions::cancel), which reaches commands running inside
// ExecuteStream. The shell clears it before each statement.
extern std::atomic<bool> g_cancel_statement;
// SIGINT sets g_interrupt (without SA_RESTART, so a blocked read returns
// EINTR); SIGPIPE is ignored (a pager quit early is not fatal).
void InstallInterruptHandler();

class LineReader {
 public:
  enum class ReadStatus { kLine, kEof, kInterrupted };
  // Given the text before the cursor on the current line, what completes it
  // (offsets relative to that text).
  using Completer = std::function<Completion(std::string_view line_before_cursor)>;

  // history_file: loaded now, saved after each line ("" = no history).
  static Result<std::unique_ptr<LineReader>> Open(const std::string& history_file,
                                                  Completer completer);
  ~LineReader();

  // One line, without its newline.
  ReadStatus Read(const std::string& prompt, std::string* line);
  // Adds a line to the history (and the history file).
  void AddHistory(const std::string& line);

  struct Impl;

 private:
  explicit LineReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Whether this build has line editing (libedit).
bool HasLineEditing();

}  // namespace quiver::cli::shell
