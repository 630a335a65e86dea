// Out-of-line value parsers (see value_parsing.h for the accepted spellings).
#include "formats/csv/value_parsing.h"

#include <fast_float/fast_float.h>

namespace quiver::csv::internal {

namespace {

template <typename T>
bool ParseFloatImpl(std::string_view text, T* out) {
  if (HasBlankEdge(text)) text = TrimBlanks(text);
  const char* s = text.data();
  const char* end = s + text.size();
  if (s == end) return false;
  // fast_float rejects a leading '+'; Arrow and most writers accept it.
  if (*s == '+') {
    ++s;
    if (s == end || *s == '-' || *s == '+') return false;
  }
  auto r = fast_float::from_chars(s, end, *out);
  return r.ec == std::errc() && r.ptr == end;
}

}  // namespace

bool ParseInt64Slow(std::string_view text, int64_t* out) {
  if (HasBlankEdge(text)) {
    text = TrimBlanks(text);
    if (!text.empty() && !HasBlankEdge(text)) return ParseInt64(text, out);
    return false;
  }
  uint64_t v;
  if (!ParseHex(text, &v)) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

bool ParseUInt64Slow(std::string_view text, uint64_t* out) {
  if (HasBlankEdge(text)) {
    text = TrimBlanks(text);
    if (!text.empty() && !HasBlankEdge(text)) return ParseUInt64(text, out);
    return false;
  }
  return ParseHex(text, out);
}

bool ParseFloat64(std::string_view text, double* out) { return ParseFloatImpl(text, out); }
bool ParseFloat32(std::string_view text, float* out) { return ParseFloatImpl(text, out); }

const char* ParseTimeOfDay(const char* p, const char* end, int64_t* nanos, int* fraction_digits,
                           bool allow_hour_only) {
  unsigned h, m = 0, s = 0;
  if (end - p < 2 || !Digits2(p, &h) || h > 23) return nullptr;
  p += 2;
  *fraction_digits = 0;
  if (p == end || *p != ':') {
    if (!allow_hour_only) return nullptr;
    *nanos = int64_t{h} * 3600 * 1000000000;
    return p;
  }
  if (end - p < 3 || !Digits2(p + 1, &m) || m > 59) return nullptr;
  p += 3;
  int64_t frac = 0;
  if (p != end && *p == ':') {
    if (end - p < 3 || !Digits2(p + 1, &s) || s > 59) return nullptr;
    p += 3;
    if (p != end && *p == '.') {
      ++p;
      int digits = 0;
      while (p != end && static_cast<unsigned>(*p - '0') <= 9) {
        if (digits == 9) return nullptr;
        frac = frac * 10 + (*p - '0');
        ++digits;
        ++p;
      }
      if (digits == 0) return nullptr;
      *fraction_digits = digits;
      for (int i = digits; i < 9; ++i) frac *= 10;
    }
  }
  *nanos = (int64_t{h} * 3600 + m * 60 + s) * 1000000000 + frac;
  return p;
}

bool ParseTime(std::string_view text, int64_t* nanos, int* fraction_digits) {
  if (HasBlankEdge(text)) text = TrimBlanks(text);
  const char* end = text.data() + text.size();
  return ParseTimeOfDay(text.data(), end, nanos, fraction_digits, false) == end;
}

bool ParseTimestamp(std::string_view text, TimestampValue* out) {
  if (text.size() < 10) return false;
  int64_t days;
  if (!ParseDateParts(text.data(), &days)) return false;
  const char* p = text.data() + 10;
  const char* end = text.data() + text.size();
  int64_t tod = 0;
  int digits = 0;
  bool has_zone = false;
  int64_t offset_s = 0;
  if (p != end) {
    if (*p != 'T' && *p != ' ') return false;
    p = ParseTimeOfDay(p + 1, end, &tod, &digits, true);
    if (p == nullptr) return false;
    if (p != end) {
      if (*p == 'Z') {
        has_zone = true;
        ++p;
      } else if (*p == '+' || *p == '-') {
        const int sign = *p == '-' ? -1 : 1;
        ++p;
        unsigned oh, om = 0;
        if (end - p < 2 || !Digits2(p, &oh) || oh > 23) return false;
        p += 2;
        if (p != end) {
          if (*p == ':') ++p;
          if (end - p != 2 || !Digits2(p, &om) || om > 59) return false;
          p += 2;
        }
        has_zone = true;
        offset_s = sign * (int64_t{oh} * 3600 + om * 60);
      }
      if (p != end) return false;
    }
  }
  out->seconds = days * kSecondsPerDay + tod / 1000000000 - offset_s;
  out->nanos = static_cast<int32_t>(tod % 1000000000);
  out->fraction_digits = digits;
  out->has_zone = has_zone;
  return true;
}

bool ParseDecimal(std::string_view text, int32_t precision, int32_t scale, __int128* out) {
  if (HasBlankEdge(text)) text = TrimBlanks(text);
  const char* p = text.data();
  const char* end = p + text.size();
  if (p == end) return false;
  bool neg = false;
  if (*p == '-' || *p == '+') {
    neg = *p == '-';
    ++p;
  }
  __int128 v = 0;
  int digits = 0;  // significant digits accumulated
  bool any = false;
  for (; p != end && static_cast<unsigned>(*p - '0') <= 9; ++p) {
    any = true;
    if (digits == 0 && *p == '0') continue;
    if (++digits > 38) return false;
    v = v * 10 + (*p - '0');
  }
  int frac = 0;
  if (p != end && *p == '.') {
    ++p;
    for (; p != end && static_cast<unsigned>(*p - '0') <= 9; ++p) {
      any = true;
      if (frac == scale) {
        if (*p != '0') return false;  // would lose precision
        continue;
      }
      ++frac;
      if (digits > 0 || *p != '0') {
        if (++digits > 38) return false;
      }
      v = v * 10 + (*p - '0');
    }
  }
  if (!any || p != end) return false;
  for (; frac < scale; ++frac) {
    if (v != 0 && ++digits > 38) return false;
    v *= 10;
  }
  // Digits of the scaled value must fit the precision.
  if (precision < 39) {  // more digits than that were rejected above
    __int128 limit = 1;
    for (int i = 0; i < precision; ++i) limit *= 10;
    if (v >= limit) return false;
  }
  *out = neg ? -v : v;
  return true;
}

}  // namespace quiver::csv::internal
