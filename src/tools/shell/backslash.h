// Backslash commands of the shell (psql's meta-commands): parsing, and the
// help text. Running them is the shell's (shell.cc).
//
//   \d [NAME]  \df [PATTERN]  \timing [on|off]  \x [on|off|auto]  \o [FILE]
//   \i FILE  \e  \q  \?
//
// A backslash command is a line whose first non-blank character is '\'
// (outside a quote or comment of an unfinished statement). Arguments are
// separated by blanks; 'single quotes' and "double quotes" group blanks and
// are removed ('' inside single quotes is one quote).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace quiver::cli::shell {

enum class BackslashKind {
  kDescribe,          // \d [NAME]
  kListFunctions,     // \df [PATTERN]
  kTiming,            // \timing [on|off]
  kExpanded,          // \x [on|off|auto]
  kOutput,            // \o [FILE]
  kInclude,           // \i FILE
  kEdit,              // \e
  kQuit,              // \q
  kHelp,              // \? (and \h, \help)
};

struct BackslashCommand {
  BackslashKind kind = BackslashKind::kHelp;
  std::string name;               // as typed, without the backslash: "d", "timing"
  std::vector<std::string> args;  // unquoted
};

// Parses one line ("\d lineitem"). Errors: 'invalid command \foo' (psql's
// words, and "Try \? for help."), unbalanced quotes, wrong argument counts
// and values ('unrecognized value "maybe" for "\x": Boolean expected').
Result<BackslashCommand> ParseBackslash(std::string_view line);

// Whether `line` (a whole line) is a backslash command.
bool IsBackslashLine(std::string_view line);

// The text of \?.
std::string BackslashHelp();

}  // namespace quiver::cli::shell
