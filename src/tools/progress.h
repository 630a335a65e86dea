// A one-line progress bar on stderr for long-running commands (convert).
//
//   [#########...........]  45%  12.3 MB / 27.0 MB  1234567 rows  850.2k rows/s  ETA 3s
//
// It redraws in place with '\r', at most ten times a second (redrawing on
// every batch would cost more than small batches do), and Finish() blanks
// the line so the summary printed after it starts on a clean line. When the
// total is unknown (0) the bar and ETA are left out.
//
// Thread-safety: one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

namespace quiver::cli {

class ProgressBar {
 public:
  using Clock = std::chrono::steady_clock;

  // `enabled` false makes every call a no-op.
  ProgressBar(bool enabled, int64_t total_bytes, std::FILE* out = stderr);
  ~ProgressBar() { Finish(); }

  // Whether to show progress: `flag` (--progress / --no-progress) if given,
  // else whether stderr is a terminal.
  static bool ShouldShow(std::optional<bool> flag);

  // Redraws if at least 100 ms passed since the last draw.
  void Update(int64_t bytes_done, int64_t rows_done);
  // Clears the line (idempotent).
  void Finish();

  // The text of one progress line (no '\r'); exposed for tests.
  static std::string Render(int64_t bytes_done, int64_t total_bytes, int64_t rows_done,
                            double elapsed_seconds, int width);

 private:
  bool enabled_;
  int64_t total_bytes_;
  std::FILE* out_;
  Clock::time_point start_;
  Clock::time_point last_draw_;
  bool drawn_ = false;
  size_t last_length_ = 0;
};

// "850", "12.3k", "4.5M": compact counts for rates.
std::string HumanCount(double n);
// "3s", "2m05s", "1h02m".
std::string HumanSeconds(double seconds);

}  // namespace quiver::cli
