#include "tools/shell/pager.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace quiver::cli::shell {

TerminalSize GetTerminalSize() {
  if (!::isatty(STDOUT_FILENO)) return {0, 0};
  struct winsize ws {};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) return {24, 80};
  return {ws.ws_row, ws.ws_col};
}

size_t DisplayWidth(std::string_view line) {
  size_t n = 0;
  for (unsigned char c : line) n += (c & 0xC0) != 0x80;
  return n;
}

bool NeedsPager(std::string_view text, const TerminalSize& size) {
  if (size.rows <= 0 || size.columns <= 0) return false;
  int lines = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (DisplayWidth(text.substr(start, end - start)) > static_cast<size_t>(size.columns))
      return true;
    // The prompt needs the last row.
    if (++lines > size.rows - 1) return true;
    start = end + 1;
  }
  return false;
}

std::string PagerCommand() {
  if (const char* p = std::getenv("PAGER")) return p;  // "" turns paging off
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && ::access((dir + "/less").c_str(), X_OK) == 0) return "less -S";
  }
  return "";
}

Status ShowOnTerminal(std::string_view text) {
  const std::string pager = PagerCommand();
  if (!pager.empty() && NeedsPager(text, GetTerminalSize())) {
    std::fflush(stdout);
    if (std::FILE* p = ::popen(pager.c_str(), "w")) {
      // A pager quit before the end closes the pipe: EPIPE (SIGPIPE is
      // ignored by the shell) is the user's choice, not an error.
      std::fwrite(text.data(), 1, text.size(), p);
      ::pclose(p);
      return Status::OK();
    }
    // No pager after all: print.
  }
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("cannot write to standard output");
  }
  std::fflush(stdout);
  return Status::OK();
}

}  // namespace quiver::cli::shell
