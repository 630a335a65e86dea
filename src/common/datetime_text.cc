#include "common/datetime_text.h"

#include <charconv>
#include <cstdlib>

namespace quiver {

namespace {

void AppendPadded(std::string* out, int64_t v, int width) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  for (int n = static_cast<int>(r.ptr - buf); n < width; ++n) out->push_back('0');
  out->append(buf, r.ptr);
}

void AppendInt(std::string* out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

// PostgreSQL's AddPostgresIntPart: " +3 days" after a negative part, the
// unit plural unless the value is exactly 1.
void AddPart(std::string* out, int64_t value, const char* unit, bool* is_zero, bool* is_before) {
  if (value == 0) return;
  if (!*is_zero) out->push_back(' ');
  if (*is_before && value > 0) out->push_back('+');
  AppendInt(out, value);
  out->push_back(' ');
  out->append(unit);
  if (value != 1) out->push_back('s');
  *is_before = value < 0;
  *is_zero = false;
}

}  // namespace

void AppendClock(std::string* out, int64_t seconds, int64_t frac, int digits) {
  AppendPadded(out, seconds / 3600, 2);
  out->push_back(':');
  AppendPadded(out, seconds / 60 % 60, 2);
  out->push_back(':');
  AppendPadded(out, seconds % 60, 2);
  if (digits <= 0 || frac == 0) return;
  while (digits > 0 && frac % 10 == 0) {
    frac /= 10;
    --digits;
  }
  out->push_back('.');
  AppendPadded(out, frac, digits);
}

void AppendUtcOffset(std::string* out, int64_t offset_seconds) {
  out->push_back(offset_seconds < 0 ? '-' : '+');
  const int64_t a = std::llabs(offset_seconds);
  AppendPadded(out, a / 3600, 2);
  if (a % 3600 != 0) {
    out->push_back(':');
    AppendPadded(out, a / 60 % 60, 2);
    if (a % 60 != 0) {
      out->push_back(':');
      AppendPadded(out, a % 60, 2);
    }
  }
}

std::string FormatPostgresInterval(int64_t months, int64_t days, int64_t time, int digits) {
  // PostgreSQL's EncodeInterval, INTSTYLE_POSTGRES: years and months split
  // with C's truncating division; the time part carries its own sign.
  std::string out;
  bool is_zero = true, is_before = false;
  AddPart(&out, months / 12, "year", &is_zero, &is_before);
  AddPart(&out, months % 12, "mon", &is_zero, &is_before);
  AddPart(&out, days, "day", &is_zero, &is_before);
  if (is_zero || time != 0) {
    if (!is_zero) out.push_back(' ');
    const bool minus = time < 0;
    if (minus) {
      out.push_back('-');
    } else if (is_before) {
      out.push_back('+');
    }
    uint64_t per_second = 1;
    for (int i = 0; i < digits; ++i) per_second *= 10;
    const uint64_t mag = minus ? 0 - static_cast<uint64_t>(time) : static_cast<uint64_t>(time);
    AppendClock(&out, static_cast<int64_t>(mag / per_second), static_cast<int64_t>(mag % per_second),
                digits);
  }
  return out;
}

}  // namespace quiver
