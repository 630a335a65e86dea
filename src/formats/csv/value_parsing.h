// Field text -> one typed value. Shared by type inference and conversion, so
// both accept exactly the same spellings. All functions take the raw
// (unescaped) field bytes and return false when the text is not a value of
// the type; none allocates.
//
// Accepted spellings:
//   integers   -?digits or 0xHEX (no '+', no thousands separators)
//   floats     [+-] decimal or scientific, inf/infinity/nan (fast_float)
//   date       YYYY-MM-DD
//   time       HH:MM[:SS[.f{1,9}]]  (no leap seconds, as Arrow)
// Numbers, dates and times may be padded with blanks; timestamps may not.
//   timestamp  YYYY-MM-DD[(T| )HH[:MM[:SS[.f{1,9}]]]][Z|±HH[[:]MM]]
//   decimal    [+-]digits[.digits]; more fraction digits than the scale are
//              allowed only when they are zeros
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>

#include "common/calendar.h"
#include "common/utf8.h"

namespace quiver::csv::internal {

// Whether 8 bytes are all ASCII digits, and their value (SWAR, as simdjson's
// parse_eight_digits_unrolled): 3 multiplications instead of 8 steps.
inline bool ParseEightDigits(const char* p, uint64_t* out) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  if ((((v & 0xF0F0F0F0F0F0F0F0ull) | (((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) !=
       0x3333333333333333ull)) {
    return false;
  }
  v -= 0x3030303030303030ull;
  v = (v * 10) + (v >> 8);
  v = (((v & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
       (((v >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
      32;
  *out = v;
  return true;
}

// Parses an unsigned magnitude of at most 20 significant digits (leading
// zeros are skipped, so "000...01" works). Returns false on any non-digit or
// on uint64 overflow.
inline bool ParseDigits(const char* s, const char* end, uint64_t* out) {
  if (s == end) return false;
  while (s + 1 < end && *s == '0') ++s;
  if (end - s > 20) return false;
  uint64_t v = 0;
  const char* fast_end = end - s > 19 ? s + 19 : end;
  while (fast_end - s >= 8) {
    uint64_t eight;
    if (!ParseEightDigits(s, &eight)) return false;
    v = v * 100000000 + eight;
    s += 8;
  }
  for (; s < fast_end; ++s) {
    const unsigned d = static_cast<unsigned char>(*s) - '0';
    if (d > 9) return false;
    v = v * 10 + d;
  }
  if (s < end) {  // the 20th digit: check overflow of uint64
    const unsigned d = static_cast<unsigned char>(*s) - '0';
    if (d > 9) return false;
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

// Numbers, dates and times may be padded with spaces or tabs (as Arrow
// trims them); text, bool and timestamp values may not.
inline std::string_view TrimBlanks(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  return t;
}
inline bool HasBlankEdge(std::string_view t) {
  return !t.empty() && (t.front() == ' ' || t.front() == '\t' || t.back() == ' ' || t.back() == '\t');
}

// "0x1F": 1..16 hex digits as a 64-bit pattern (Arrow accepts hex integers).
inline bool ParseHex(std::string_view t, uint64_t* out) {
  if (t.size() < 3 || t.size() > 18 || t[0] != '0' || (t[1] != 'x' && t[1] != 'X')) return false;
  uint64_t v = 0;
  for (size_t i = 2; i < t.size(); ++i) {
    const char c = t[i];
    unsigned d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return false;
    }
    v = (v << 4) | d;
  }
  *out = v;
  return true;
}

// Slow paths: blank padding and hex (out of line to keep the callers small).
bool ParseInt64Slow(std::string_view text, int64_t* out);
bool ParseUInt64Slow(std::string_view text, uint64_t* out);

// -?digits or 0xHEX. A leading '+' is not an integer (pyarrow reads "+1" as
// a float).
inline bool ParseInt64(std::string_view text, int64_t* out) {
  const char* s = text.data();
  const char* end = s + text.size();
  if (s == end) return false;
  const bool neg = *s == '-';
  s += neg;
  uint64_t v;
  if (!ParseDigits(s, end, &v)) [[unlikely]] {
    return ParseInt64Slow(text, out);
  }
  if (neg) {
    if (v > uint64_t{1} << 63) return false;
    *out = static_cast<int64_t>(0 - v);
  } else {
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
    *out = static_cast<int64_t>(v);
  }
  return true;
}

inline bool ParseUInt64(std::string_view text, uint64_t* out) {
  if (ParseDigits(text.data(), text.data() + text.size(), out)) [[likely]] return true;
  return ParseUInt64Slow(text, out);
}

bool ParseFloat64(std::string_view text, double* out);
bool ParseFloat32(std::string_view text, float* out);

inline bool Digits2(const char* p, unsigned* out) {
  const unsigned a = static_cast<unsigned char>(p[0]) - '0';
  const unsigned b = static_cast<unsigned char>(p[1]) - '0';
  if (a > 9 || b > 9) return false;
  *out = a * 10 + b;
  return true;
}

inline bool ParseDateParts(const char* p, int64_t* days) {
  unsigned y1, y2, m, d;
  if (!Digits2(p, &y1) || !Digits2(p + 2, &y2) || p[4] != '-' || !Digits2(p + 5, &m) ||
      p[7] != '-' || !Digits2(p + 8, &d)) {
    return false;
  }
  const int64_t y = y1 * 100 + y2;
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m)) return false;
  *days = DaysFromCivil(y, m, d);
  return true;
}

// YYYY-MM-DD -> days since epoch.
inline bool ParseDate(std::string_view text, int64_t* days) {
  if (HasBlankEdge(text)) text = TrimBlanks(text);
  return text.size() == 10 && ParseDateParts(text.data(), days);
}

// Parses HH:MM[:SS[.fraction]] at the start of [p, end); returns the
// position after it or nullptr. `nanos` is the time of day in nanoseconds;
// *fraction_digits how many fraction digits there were.
const char* ParseTimeOfDay(const char* p, const char* end, int64_t* nanos, int* fraction_digits,
                           bool allow_hour_only);

// HH:MM[:SS[.f]] -> nanoseconds since midnight.
bool ParseTime(std::string_view text, int64_t* nanos, int* fraction_digits);

struct TimestampValue {
  int64_t seconds = 0;  // since epoch, UTC when has_zone
  int32_t nanos = 0;    // 0..999999999
  int fraction_digits = 0;
  bool has_zone = false;
};
bool ParseTimestamp(std::string_view text, TimestampValue* out);

// [+-]digits[.digits] scaled by 10^scale into a 128-bit integer with at most
// `precision` digits.
bool ParseDecimal(std::string_view text, int32_t precision, int32_t scale, __int128* out);

using ::quiver::ValidateUtf8;  // common/utf8.h

}  // namespace quiver::csv::internal
