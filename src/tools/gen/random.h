// Random numbers and calendar arithmetic for the data generators.
//
// Determinism: every chunk of every table draws from its own Rng, seeded from
// (user seed, table stream, chunk index) by ForChunk(). What a chunk holds
// therefore depends only on those three numbers, never on which thread made
// it or in which order chunks finished. The generator is SplitMix64 (the same
// as `quiver demo`): tiny, fast, and identical on every platform, which the
// std:: distributions are not.
#pragma once

#include <cstdint>

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

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
// days_from_civil), and back.
constexpr int32_t DaysFromCivil(int y, int m, int d) {
  y -= m <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

struct CivilDate {
  int year;
  int month;  // 1..12
  int day;    // 1..31
};

constexpr CivilDate CivilFromDays(int32_t z) {
  z += 719468;
  const int era = (z >= 0 ? z : z - 146096) / 146097;
  const int doe = z - era * 146097;
  const int yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int mp = (5 * doy + 2) / 153;
  const int d = doy - (153 * mp + 2) / 5 + 1;
  const int m = mp + (mp < 10 ? 3 : -9);
  return {yoe + era * 400 + (m <= 2), m, d};
}

// 0 = Sunday ... 6 = Saturday (1970-01-01 was a Thursday).
constexpr int DayOfWeek(int32_t days) { return static_cast<int>(((days % 7) + 11) % 7); }

// The 1992..1998 order window both benchmarks share (TPC-H clause 4.2.3):
// orders are placed between STARTDATE and ENDDATE - 151 days, so that every
// line ships, and is received, by ENDDATE.
inline constexpr int32_t kStartDate = DaysFromCivil(1992, 1, 1);
inline constexpr int32_t kCurrentDate = DaysFromCivil(1995, 6, 17);
inline constexpr int32_t kEndDate = DaysFromCivil(1998, 12, 31);
inline constexpr int32_t kLastOrderDate = kEndDate - 151;

}  // namespace quiver::gen
