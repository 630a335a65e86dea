// Random numbers and the benchmarks' date window for the data generators
// (calendar arithmetic: common/calendar.h).
//
// Determinism: every chunk of every table draws from its own Rng, seeded from
// (user seed, table stream, chunk index) by ForChunk(). What a chunk holds
// therefore depends only on those three numbers, never on which thread made
// it or in which order chunks finished. The generator is SplitMix64 (the same
// as `quiver demo`): tiny, fast, and identical on every platform, which the
// std:: distributions are not.
#pragma once

#include <cstdint>

#include "common/calendar.h"

namespace quiver::gen {

// SplitMix64's output function: a good 64-bit mixer on its own.
constexpr uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  // The stream for chunk `chunk` of the table (or table group) `stream`.
  static Rng ForChunk(uint64_t seed, uint64_t stream, uint64_t chunk) {
    return Rng(
        Mix64(Mix64(seed + 0x632be59bd9b4e019ULL) ^ Mix64(stream * 0x9e3779b97f4a7c15ULL + chunk)));
  }

  uint64_t Next() { return Mix64(state_ += 0x9e3779b97f4a7c15ULL); }
  // Uniform in [lo, hi] (inclusive). Lemire's multiply-shift: no division,
  // bias below 2^-40 for the ranges used here.
  // REQUIRES: lo <= hi.
  int64_t Uniform(int64_t lo, int64_t hi) {
    __extension__ using U128 = unsigned __int128;
    const auto range = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>((static_cast<U128>(Next()) * range) >> 64);
  }
  // Uniform index in [0, n).
  int64_t Below(int64_t n) { return Uniform(0, n - 1); }

 private:
  uint64_t state_;
};

// The 1992..1998 order window both benchmarks share (TPC-H clause 4.2.3):
// orders are placed between STARTDATE and ENDDATE - 151 days, so that every
// line ships, and is received, by ENDDATE.
inline constexpr auto kStartDate = static_cast<int32_t>(DaysFromCivil(1992, 1, 1));
inline constexpr auto kCurrentDate = static_cast<int32_t>(DaysFromCivil(1995, 6, 17));
inline constexpr auto kEndDate = static_cast<int32_t>(DaysFromCivil(1998, 12, 31));
inline constexpr int32_t kLastOrderDate = kEndDate - 151;

}  // namespace quiver::gen
