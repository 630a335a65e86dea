// Progress bar drawing (see progress.h).
#include "tools/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <sys/ioctl.h>

#include "tools/file_formats.h"

namespace quiver::cli {
namespace {

constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

int TerminalWidth(std::FILE* out) {
  struct winsize ws {};
  if (::ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) return ws.ws_col;
  return 80;
}

}  // namespace

std::string HumanCount(double n) {
  if (n < 1000) return fmt::format("{:.0f}", n);
  if (n < 1e6) return fmt::format("{:.1f}k", n / 1e3);
  if (n < 1e9) return fmt::format("{:.1f}M", n / 1e6);
  return fmt::format("{:.1f}G", n / 1e9);
}

std::string HumanSeconds(double seconds) {
  const auto s = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02d}s", s / 60, s % 60);
  return fmt::format("{}h{:02d}m", s / 3600, (s / 60) % 60);
}

ProgressBar::ProgressBar(bool enabled, int64_t total_bytes, std::FILE* out)
    : enabled_(enabled), total_bytes_(total_bytes), out_(out), start_(Clock::now()) {}

bool ProgressBar::ShouldShow(std::optional<bool> flag) {
  if (flag.has_value()) return *flag;
  return ::isatty(STDERR_FILENO) == 1;
}

std::string ProgressBar::Render(int64_t bytes_done, int64_t total_bytes, int64_t rows_done,
                                double elapsed_seconds, int width) {
  const double rate = elapsed_seconds > 0 ? static_cast<double>(rows_done) / elapsed_seconds : 0;
  std::string stats;
  if (total_bytes > 0) {
    const double fraction =
        std::clamp(static_cast<double>(bytes_done) / static_cast<double>(total_bytes), 0.0, 1.0);
    stats =
        fmt::format("{:3.0f}%  {} / {}  {} rows  {} rows/s", fraction * 100, HumanBytes(bytes_done),
                    HumanBytes(total_bytes), rows_done, HumanCount(rate));
    if (fraction > 0 && elapsed_seconds > 0.5) {
      stats += "  ETA " + HumanSeconds(elapsed_seconds * (1 - fraction) / fraction);
    }
    // A fixed bar width per terminal size, so the bar does not jitter as the
    // numbers beside it grow.
    const int bar = width >= 110 ? 30 : width >= 90 ? 20 : width >= 78 ? 10 : 0;
    if (bar > 0) {
      const int filled = static_cast<int>(fraction * bar);
      return "[" + std::string(filled, '#') + std::string(bar - filled, '.') + "]  " + stats;
    }
    return stats;
  }
  return fmt::format("{}  {} rows  {} rows/s", HumanBytes(bytes_done), rows_done, HumanCount(rate));
}

void ProgressBar::Update(int64_t bytes_done, int64_t rows_done) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (drawn_ && now - last_draw_ < kRedrawInterval) return;
  if (!drawn_ && now - start_ < kRedrawInterval) return;  // fast runs never flash a bar
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const int width = TerminalWidth(out_);
  std::string line = Render(bytes_done, total_bytes_, rows_done, elapsed, width - 1);
  if (static_cast<int>(line.size()) > width - 1) line.resize(static_cast<size_t>(width - 1));
  const size_t length = line.size();
  if (length < last_length_) line.append(last_length_ - length, ' ');
  std::fprintf(out_, "\r%s", line.c_str());
  std::fflush(out_);
  last_length_ = length;
  drawn_ = true;
}

void ProgressBar::Finish() {
  if (!enabled_ || !drawn_) return;
  std::fprintf(out_, "\r%s\r", std::string(last_length_, ' ').c_str());
  std::fflush(out_);
  drawn_ = false;
  last_length_ = 0;
}

}  // namespace quiver::cli
