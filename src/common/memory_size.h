// Memory sizes as people write them on the command line ("4GB", "80%") and the
// default limit a database gets when none is given.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/status.h"

namespace quiver {

// The machine's physical memory in bytes (10 GiB when the system cannot say,
// which keeps the default limit at 8 GiB).
int64_t PhysicalMemory();

// 80% of the machine's physical memory: the rest is left to the page cache and
// to other processes.
int64_t DefaultMemoryLimit();

// "4GB", "512MB", "1.5 GiB", "80%" -> bytes. Units are binary (1KB = 1024 B),
// case-insensitive, optionally separated from the number by spaces; a bare
// number is bytes and a percentage is of physical memory. The number is plain
// decimal (digits and at most one '.'). Negative, non-finite, unknown units,
// trailing characters and sizes beyond INT64_MAX bytes are errors, never
// clamped or wrapped.
Result<int64_t> ParseMemorySize(std::string_view text);

}  // namespace quiver
