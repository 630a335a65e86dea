// Shows the shell's results: straight to the terminal when they fit, else
// through $PAGER (default `less -S` when `less` is on PATH; PAGER set to ""
// turns paging off), as psql does. Never pages when stdout is not a terminal.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace quiver::cli::shell {

struct TerminalSize {
  int rows = 24;
  int columns = 80;
};
// Of stdout's terminal; {0, 0} when stdout is not one.
TerminalSize GetTerminalSize();

// Display width of a line: code points (box drawing and "…" are one column).
size_t DisplayWidth(std::string_view line);

// Whether `text` (lines) needs a pager on a terminal of `size`: more lines
// than fit above the prompt, or a line wider than the terminal.
bool NeedsPager(std::string_view text, const TerminalSize& size);

// The pager command: $PAGER, else "less -S" if less is on PATH; "" = none.
std::string PagerCommand();

// Writes `text` to stdout, through the pager when it needs one.
Status ShowOnTerminal(std::string_view text);

}  // namespace quiver::cli::shell
