#include "tools/shell/backslash.h"

#include <cctype>

namespace quiver::cli::shell {
namespace {

struct Spec {
  const char* name;
  BackslashKind kind;
  int min_args;
  int max_args;
};

constexpr Spec kCommands[] = {
    {"d", BackslashKind::kDescribe, 0, 1},      {"df", BackslashKind::kListFunctions, 0, 1},
    {"timing", BackslashKind::kTiming, 0, 1},   {"x", BackslashKind::kExpanded, 0, 1},
    {"o", BackslashKind::kOutput, 0, 1},        {"out", BackslashKind::kOutput, 0, 1},
    {"i", BackslashKind::kInclude, 1, 1},       {"include", BackslashKind::kInclude, 1, 1},
    {"e", BackslashKind::kEdit, 0, 0},          {"edit", BackslashKind::kEdit, 0, 0},
    {"q", BackslashKind::kQuit, 0, 0},          {"quit", BackslashKind::kQuit, 0, 0},
    {"?", BackslashKind::kHelp, 0, 0},          {"h", BackslashKind::kHelp, 0, 1},
    {"help", BackslashKind::kHelp, 0, 1},
};

}  // namespace

bool IsBackslashLine(std::string_view line) {
  const size_t first = line.find_first_not_of(" \t");
  return first != std::string_view::npos && line[first] == '\\';
}

Result<BackslashCommand> ParseBackslash(std::string_view line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos || line[i] != '\\') {
    return Status::Invalid("not a backslash command");
  }
  ++i;
  // The name: up to a blank (\dt+ style suffixes are not supported).
  size_t end = i;
  while (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end]))) ++end;
  BackslashCommand cmd;
  cmd.name = std::string(line.substr(i, end - i));
  const Spec* spec = nullptr;
  for (const Spec& s : kCommands) {
    if (cmd.name == s.name) spec = &s;
  }
  if (spec == nullptr) {
    return Status::Invalid("invalid command \\{}\nTry \\? for help.", cmd.name);
  }
  cmd.kind = spec->kind;
  // Arguments.
  i = end;
  for (;;) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= line.size()) break;
    std::string arg;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) {
      const char c = line[i];
      if (c == '\'' || c == '"') {
        ++i;
        bool closed = false;
        while (i < line.size()) {
          if (line[i] == c) {
            if (c == '\'' && i + 1 < line.size() && line[i + 1] == '\'') {
              arg += '\'';
              i += 2;
              continue;
            }
            closed = true;
            ++i;
            break;
          }
          arg += line[i++];
        }
        if (!closed) return Status::Invalid("unterminated quoted string");
        continue;
      }
      arg += c;
      ++i;
    }
    cmd.args.push_back(std::move(arg));
  }
  if (static_cast<int>(cmd.args.size()) < spec->min_args) {
    return Status::Invalid("\\{}: missing required argument", cmd.name);
  }
  if (static_cast<int>(cmd.args.size()) > spec->max_args) {
    return Status::Invalid("\\{}: extra argument \"{}\" ignored", cmd.name,
                           cmd.args[static_cast<size_t>(spec->max_args)]);
  }
  // Values checked here so that the shell only sees valid ones.
  if (!cmd.args.empty() && (cmd.kind == BackslashKind::kTiming ||
                            cmd.kind == BackslashKind::kExpanded)) {
    std::string v = cmd.args[0];
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (v == "true" || v == "1" || v == "yes") v = "on";
    if (v == "false" || v == "0" || v == "no") v = "off";
    const bool ok = v == "on" || v == "off" || (cmd.kind == BackslashKind::kExpanded && v == "auto");
    if (!ok) {
      return Status::Invalid("unrecognized value \"{}\" for \"\\{}\": Boolean expected",
                             cmd.args[0], cmd.name);
    }
    cmd.args[0] = v;
  }
  return cmd;
}

std::string BackslashHelp() {
  return "General\n"
         "  \\q                 quit (or Ctrl-D)\n"
         "  \\?                 show this help\n"
         "\n"
         "Informational\n"
         "  \\d                 list tables and views (rows where known without a scan)\n"
         "  \\d NAME            describe a table, view or file: columns, types, nullability,\n"
         "                     source files\n"
         "  \\df [PATTERN]      list functions (PATTERN: a name prefix)\n"
         "\n"
         "Query buffer and files\n"
         "  \\e                 edit the current (or last) statement in $EDITOR, then run it\n"
         "  \\i FILE            run the statements and commands of FILE\n"
         "  \\o [FILE]          send results to FILE, or back to the terminal\n"
         "\n"
         "Formatting\n"
         "  \\x [on|off|auto]   expanded output (one line per column); auto: when too wide\n"
         "  \\timing [on|off]   show how long each statement took\n"
         "\n"
         "Statements end with ';' and may span lines. Tab completes keywords, functions,\n"
         "tables, columns, and file paths inside quotes. Ctrl-C cancels a running query\n"
         "or clears the line; results longer or wider than the terminal go through\n"
         "$PAGER (default: less -S).\n";
}

}  // namespace quiver::cli::shell
