// Calendar arithmetic shared by every place that reads, writes or computes
// with dates and times: the CSV parser and writer, the pretty printer, SQL
// values and casts, date functions and the data generators.
//
// Dates are days since 1970-01-01 in the proleptic Gregorian calendar with
// astronomical year numbering (year 0 = 1 BC, year -1 = 2 BC), as Arrow and
// Parquet store them; timestamps are a count of units (seconds, millis,
// micros, nanos) since 1970-01-01 00:00:00. Before 1970 those counts are
// negative, so splitting them into days and a time of day needs division
// rounded toward negative infinity (FloorDiv), not C++'s toward zero.
//
// Everything here is constexpr and inline: the CSV reader converts one date
// per value and must not pay a call for it.
#pragma once

#include <chrono>
#include <cstdint>

namespace quiver {

inline constexpr int64_t kSecondsPerDay = 86400;
inline constexpr int64_t kMillisPerDay = 86400 * int64_t{1000};
inline constexpr int64_t kMicrosPerDay = 86400 * int64_t{1000000};
inline constexpr int64_t kNanosPerDay = 86400 * int64_t{1000000000};

// The quotient and remainder of a floored division: a == quot * b + rem, with
// rem of the sign of b (0 <= rem < b for b > 0).
struct FloorDivided {
  int64_t quot;
  int64_t rem;
};

// REQUIRES: b != 0, and not (a == INT64_MIN and b == -1). Never overflows
// otherwise, INT64_MIN included (the remainder is adjusted, not recomputed
// from quot * b).
constexpr FloorDivided FloorDivMod(int64_t a, int64_t b) {
  int64_t q = a / b;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) {
    r += b;
    --q;
  }
  return {q, r};
}

// a / b rounded toward negative infinity. REQUIRES: as FloorDivMod.
constexpr int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - static_cast<int64_t>((a % b != 0) && ((a < 0) != (b < 0)));
}

// a modulo b with the sign of b (0 <= result < b for b > 0).
constexpr int64_t FloorMod(int64_t a, int64_t b) { return FloorDivMod(a, b).rem; }

// A count of units since the epoch as whole days and the units into that
// day (0 <= time_of_day < units_per_day).
struct DayAndTime {
  int64_t days;
  int64_t time_of_day;
};

// REQUIRES: units_per_day > 0.
constexpr DayAndTime SplitDays(int64_t units, int64_t units_per_day) {
  const FloorDivided r = FloorDivMod(units, units_per_day);
  return {r.quot, r.rem};
}

struct CivilDate {
  int64_t year;    // astronomical: 0 = 1 BC
  unsigned month;  // 1..12
  unsigned day;    // 1..31
};

constexpr bool IsLeapYear(int64_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

// REQUIRES: 1 <= month <= 12.
constexpr unsigned DaysInMonth(int64_t year, unsigned month) {
  constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return kDays[month - 1] + static_cast<unsigned>(month == 2 && IsLeapYear(year));
}

// Days since 1970-01-01 of a date (Howard Hinnant's days_from_civil, which
// counts in 400-year eras of 146097 days starting on March 1st, so the leap
// day is the last day of an era's year).
// REQUIRES: 1 <= month <= 12, 1 <= day <= 31, |year| < 2^40. A day past the
// month's end counts on into the next month (February 30 = March 1 or 2).
constexpr int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day) {
  const int64_t y = year - static_cast<int64_t>(month <= 2);
  const int64_t era = FloorDiv(y, 400);
  const int64_t yoe = y - era * 400;                                       // [0, 399]
  const int64_t mp = month > 2 ? int64_t{month} - 3 : int64_t{month} + 9;  // March = 0
  const int64_t doy = (153 * mp + 2) / 5 + int64_t{day} - 1;               // [0, 365]
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;               // [0, 146096]
  return era * 146097 + doe - 719468;
}

// The date of a day number (Howard Hinnant's civil_from_days), the inverse of
// DaysFromCivil. REQUIRES: |days| < 2^62 (every day a timestamp can reach).
constexpr CivilDate CivilFromDays(int64_t days) {
  const int64_t z = days + 719468;  // days since 0000-03-01
  const int64_t era = FloorDiv(z, 146097);
  const int64_t doe = z - era * 146097;                                       // [0, 146096]
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  const int64_t mp = (5 * doy + 2) / 153;                                     // March = 0
  const auto day = static_cast<unsigned>(doy - (153 * mp + 2) / 5 + 1);
  const auto month = static_cast<unsigned>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + static_cast<int64_t>(month <= 2), month, day};
}

// 0 = Sunday .. 6 = Saturday (1970-01-01 was a Thursday).
constexpr int DayOfWeek(int64_t days) { return static_cast<int>(FloorMod(days + 4, 7)); }

// 1 = Monday .. 7 = Sunday (ISO 8601).
constexpr int IsoDayOfWeek(int64_t days) {
  const int dow = DayOfWeek(days);
  return dow == 0 ? 7 : dow;
}

// Microseconds since the Unix epoch, now (the system clock).
inline int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace quiver
