// PostgreSQL's text for times of day, time zone offsets and intervals, shared
// by the table printer (columnar/pretty_print), the CSV writer and SQL values
// (vector/value), so that a value reads the same wherever Quiver shows it:
//
//   time of day      13:45:07, 13:45:07.25 (fraction only when non-zero,
//                    trailing zeros trimmed, as PostgreSQL prints)
//   UTC offset       +00, -08, +05:30 (ISO 8601's short form, as timestamptz
//                    output in PostgreSQL)
//   interval         1 year 2 mons 3 days 04:05:06.5, -1 days +02:00:00,
//                    00:00:00 (IntervalStyle 'postgres', the default)
//
// Thread-safety: stateless functions.
#pragma once

#include <cstdint>
#include <string>

namespace quiver {

// "HH:MM:SS[.fraction]" of `seconds` (>= 0; hours may pass 23, as in
// intervals) plus `frac` units of 10^-digits of a second (0 <= frac <
// 10^digits).
void AppendClock(std::string* out, int64_t seconds, int64_t frac, int digits);

// "+HH", "+HH:MM" or "+HH:MM:SS" for an offset east of UTC in seconds.
void AppendUtcOffset(std::string* out, int64_t offset_seconds);

// An interval of months, days and `time` in units of 10^-digits of a second
// (6: microseconds, 9: nanoseconds) in PostgreSQL's default style.
std::string FormatPostgresInterval(int64_t months, int64_t days, int64_t time, int digits);

}  // namespace quiver
