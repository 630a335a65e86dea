// CAST kernels and PostgreSQL's text input syntax (see cast.h).
#include "functions/cast.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "common/calendar.h"
#include "columnar/pretty_print.h"
#include "functions/array_cast.h"
#include "functions/json_scan.h"
#include "functions/kernel_util.h"
#include "vector/json_type.h"
#include "vector/sql_type.h"

namespace quiver {

using kernels::BoolAccess;
using kernels::DispatchFixed;
using kernels::StringAccess;

namespace {

std::string_view Trim(std::string_view t) {
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  return t;
}

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

const char* IntRangeError(TypeId id) {
  switch (id) {
    case TypeId::kInt16:
      return "smallint out of range";
    case TypeId::kInt32:
      return "integer out of range";
    default:
      return "bigint out of range";
  }
}

bool FitsInt(TypeId id, int128_t v) {
  switch (id) {
    case TypeId::kInt16:
      return v >= INT16_MIN && v <= INT16_MAX;
    case TypeId::kInt32:
      return v >= INT32_MIN && v <= INT32_MAX;
    default:
      return v >= INT64_MIN && v <= INT64_MAX;
  }
}

// Reads row i of a fixed-width integer-like input as int64.
int64_t ReadInteger(const VectorRef& in, int64_t i) {
  const int64_t s = in.index(i);
  switch (in.array->type->id) {
    case TypeId::kInt16:
      return in.values<int16_t>()[s];
    case TypeId::kInt32:
    case TypeId::kDate32:
      return in.values<int32_t>()[s];
    default:
      return in.values<int64_t>()[s];
  }
}

int128_t ReadDecimal(const VectorRef& in, int64_t i) { return LoadValue(in.values<int128_t>() + in.index(i)); }

double ReadDouble(const VectorRef& in, int64_t i) {
  const int64_t s = in.index(i);
  if (in.array->type->id == TypeId::kFloat) return in.values<float>()[s];
  return in.values<double>()[s];
}

}  // namespace

// --- text parsers ----------------------------------------------------------------

bool ParseSqlInt64(std::string_view text, int64_t* out) {
  std::string_view t = Trim(text);
  if (t.empty()) return false;
  bool neg = false;
  if (t[0] == '+' || t[0] == '-') {
    neg = t[0] == '-';
    t.remove_prefix(1);
  }
  if (t.empty()) return false;
  unsigned __int128 v = 0;
  for (char c : t) {
    if (c == '_') continue;
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<unsigned>(c - '0');
    if (v > (static_cast<unsigned __int128>(1) << 63)) return false;
  }
  if (!neg && v > static_cast<unsigned __int128>(INT64_MAX)) return false;
  *out = neg ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : static_cast<int64_t>(v);
  return true;
}

bool ParseSqlDouble(std::string_view text, double* out) {
  std::string_view t = Trim(text);
  if (t.empty()) return false;
  if (IEquals(t, "nan")) {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  std::string_view u = t;
  bool neg = false;
  if (u[0] == '+' || u[0] == '-') {
    neg = u[0] == '-';
    u.remove_prefix(1);
  }
  if (IEquals(u, "infinity") || IEquals(u, "inf")) {
    *out = neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    return true;
  }
  std::string s(t);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || s.empty()) return false;
  // Reject hex floats and "infinity" spellings strtod accepts that PostgreSQL doesn't.
  for (char c : s) {
    if (c == 'x' || c == 'X') return false;
  }
  *out = v;
  return true;
}

bool DecimalLiteralShape(std::string_view text, int* precision, int* scale) {
  std::string_view t = Trim(text);
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) t.remove_prefix(1);
  int int_digits = 0, frac_digits = 0;
  bool seen_point = false, any = false;
  size_t i = 0;
  for (; i < t.size(); ++i) {
    const char c = t[i];
    if (c >= '0' && c <= '9') {
      any = true;
      if (seen_point) {
        ++frac_digits;
      } else if (int_digits > 0 || c != '0') {
        ++int_digits;
      }
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!any || i != t.size()) return false;  // exponents are handled by the caller
  *scale = frac_digits;
  *precision = std::max(1, int_digits + frac_digits);
  return true;
}

std::optional<std::string> ExpandDecimalExponent(std::string_view text) {
  std::string_view t = Trim(text);
  const size_t e = t.find_first_of("eE");
  if (e == std::string_view::npos) return std::nullopt;
  std::string_view mantissa = t.substr(0, e);
  std::string_view exponent = t.substr(e + 1);
  std::string sign;
  if (!mantissa.empty() && (mantissa[0] == '+' || mantissa[0] == '-')) {
    if (mantissa[0] == '-') sign = "-";
    mantissa.remove_prefix(1);
  }
  bool exp_negative = false;
  if (!exponent.empty() && (exponent[0] == '+' || exponent[0] == '-')) {
    exp_negative = exponent[0] == '-';
    exponent.remove_prefix(1);
  }
  if (exponent.empty() || exponent.size() > 4) return std::nullopt;
  int exp = 0;
  for (char c : exponent) {
    if (c < '0' || c > '9') return std::nullopt;
    exp = exp * 10 + (c - '0');
  }
  if (exp_negative) exp = -exp;
  std::string digits;
  int point = -1;  // digits before the decimal point
  for (char c : mantissa) {
    if (c >= '0' && c <= '9') {
      digits += c;
    } else if (c == '.' && point < 0) {
      point = static_cast<int>(digits.size());
    } else {
      return std::nullopt;
    }
  }
  if (digits.empty()) return std::nullopt;
  if (point < 0) point = static_cast<int>(digits.size());
  point += exp;
  // Past numeric(38) either way: let the caller use double precision.
  if (point > 80 || static_cast<int>(digits.size()) - point > 80) return std::nullopt;
  if (point <= 0) {
    digits.insert(0, static_cast<size_t>(-point) + 1, '0');
    point = 1;
  } else if (point > static_cast<int>(digits.size())) {
    digits.append(static_cast<size_t>(point) - digits.size(), '0');
  }
  std::string out = sign + digits.substr(0, static_cast<size_t>(point));
  if (static_cast<size_t>(point) < digits.size()) out += "." + digits.substr(static_cast<size_t>(point));
  return out;
}

bool ParseSqlDecimal(std::string_view text, int precision, int scale, int128_t* out,
                     bool* overflow) {
  *overflow = false;
  std::string_view t = Trim(text);
  if (t.empty()) return false;
  bool neg = false;
  if (t[0] == '+' || t[0] == '-') {
    neg = t[0] == '-';
    t.remove_prefix(1);
  }
  // Split mantissa / exponent.
  int64_t exponent = 0;
  const size_t e = t.find_first_of("eE");
  if (e != std::string_view::npos) {
    int64_t ex;
    if (!ParseSqlInt64(t.substr(e + 1), &ex) || ex > 1000 || ex < -1000) return false;
    exponent = ex;
    t = t.substr(0, e);
  }
  std::string digits;
  int frac = 0;
  bool seen_point = false;
  for (char c : t) {
    if (c >= '0' && c <= '9') {
      digits += c;
      if (seen_point) ++frac;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      return false;
    }
  }
  if (digits.empty()) return false;
  // Value = digits * 10^(exponent - frac). Target: unscaled at `scale`.
  int64_t shift = scale - (frac - exponent);  // multiply by 10^shift
  // Strip leading zeros.
  size_t nz = digits.find_first_not_of('0');
  digits = nz == std::string::npos ? "0" : digits.substr(nz);
  bool round_up = false;
  if (shift < 0) {
    const int64_t drop = -shift;
    if (drop >= static_cast<int64_t>(digits.size())) {
      round_up = drop == static_cast<int64_t>(digits.size()) && digits[0] >= '5';
      digits = "0";
    } else {
      round_up = digits[digits.size() - static_cast<size_t>(drop)] >= '5';
      digits.resize(digits.size() - static_cast<size_t>(drop));
    }
    shift = 0;
  }
  const int64_t total_digits =
      (digits == "0" ? 0 : static_cast<int64_t>(digits.size())) + shift;
  if (total_digits > precision || total_digits > kMaxDecimalPrecision) {
    *overflow = true;
    return true;
  }
  int128_t v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  for (int64_t k = 0; k < shift; ++k) v *= 10;
  if (round_up) v += 1;
  if (v >= Pow10Int128(precision)) {
    *overflow = true;
    return true;
  }
  *out = neg ? -v : v;
  return true;
}

bool ParseSqlBool(std::string_view text, bool* out) {
  std::string_view t = Trim(text);
  if (t.empty()) return false;
  auto prefix_of = [&](std::string_view word) {
    return t.size() <= word.size() && IEquals(t, word.substr(0, t.size()));
  };
  if (IEquals(t, "1")) {
    *out = true;
    return true;
  }
  if (IEquals(t, "0")) {
    *out = false;
    return true;
  }
  if (prefix_of("true") || prefix_of("yes") || IEquals(t, "on")) {
    *out = true;
    return true;
  }
  if (prefix_of("false") || prefix_of("no") || IEquals(t, "off") || IEquals(t, "of")) {
    *out = false;
    return t.size() >= 2 || t[0] != 'o';  // "o" alone is ambiguous
  }
  return false;
}

namespace {

bool ParseFixedDigits(std::string_view t, size_t pos, size_t n, int64_t* out) {
  if (pos + n > t.size()) return false;
  int64_t v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (t[i] < '0' || t[i] > '9') return false;
    v = v * 10 + (t[i] - '0');
  }
  *out = v;
  return true;
}

// YYYY-MM-DD at the start of t; sets *consumed.
bool ParseDatePart(std::string_view t, int32_t* days, size_t* consumed) {
  size_t p = 0;
  while (p < t.size() && t[p] >= '0' && t[p] <= '9') ++p;
  if (p < 4 || p > 6) return false;
  int64_t y, m, d;
  if (!ParseFixedDigits(t, 0, p, &y)) return false;
  if (p >= t.size() || t[p] != '-') return false;
  size_t q = p + 1, r = q;
  while (r < t.size() && t[r] >= '0' && t[r] <= '9') ++r;
  if (r - q < 1 || r - q > 2 || !ParseFixedDigits(t, q, r - q, &m)) return false;
  if (r >= t.size() || t[r] != '-') return false;
  size_t s = r + 1, u = s;
  while (u < t.size() && t[u] >= '0' && t[u] <= '9') ++u;
  if (u - s < 1 || u - s > 2 || !ParseFixedDigits(t, s, u - s, &d)) return false;
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, static_cast<unsigned>(m))) return false;
  *days =
      static_cast<int32_t>(DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d)));
  *consumed = u;
  return true;
}

// True when t starts with YYYY-MM-DD whose month or day is out of range.
bool DateFieldsOutOfRange(std::string_view t) {
  int64_t y, m, d;
  if (t.size() < 10 || t[4] != '-' || t[7] != '-') return false;
  if (!ParseFixedDigits(t, 0, 4, &y) || !ParseFixedDigits(t, 5, 2, &m) ||
      !ParseFixedDigits(t, 8, 2, &d)) {
    return false;
  }
  if (t.size() > 10 && t[10] != ' ' && t[10] != 'T') return false;
  return m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, static_cast<unsigned>(m));
}

// HH:MM[:SS[.ffffff]] at the start of t.
bool ParseTimePart(std::string_view t, int64_t* micros, size_t* consumed) {
  int64_t h, mi, s = 0, frac = 0;
  size_t p = 0;
  while (p < t.size() && t[p] >= '0' && t[p] <= '9') ++p;
  if (p < 1 || p > 2 || !ParseFixedDigits(t, 0, p, &h)) return false;
  if (p >= t.size() || t[p] != ':') return false;
  if (!ParseFixedDigits(t, p + 1, 2, &mi)) return false;
  p += 3;
  if (p < t.size() && t[p] == ':') {
    if (!ParseFixedDigits(t, p + 1, 2, &s)) return false;
    p += 3;
    if (p < t.size() && t[p] == '.') {
      ++p;
      int digits = 0;
      while (p < t.size() && t[p] >= '0' && t[p] <= '9') {
        if (digits < 6) {
          frac = frac * 10 + (t[p] - '0');
        } else if (digits == 6 && t[p] >= '5') {
          frac += 1;  // round the 7th digit
        }
        ++digits;
        ++p;
      }
      for (int k = digits; k < 6; ++k) frac *= 10;
    }
  }
  if (h > 24 || mi > 59 || s > 60) return false;
  *micros = ((h * 60 + mi) * 60 + s) * 1000000 + frac;
  *consumed = p;
  return true;
}

}  // namespace

bool ParseSqlDate(std::string_view text, int32_t* days) {
  std::string_view t = Trim(text);
  size_t used = 0;
  if (!ParseDatePart(t, days, &used)) return false;
  std::string_view rest = Trim(t.substr(used));
  if (rest.empty()) return true;
  // A time part is accepted and ignored, as PostgreSQL does for dates.
  if (rest.front() == 'T' || rest.front() == 't') rest.remove_prefix(1);
  int64_t micros;
  size_t tu = 0;
  return ParseTimePart(rest, &micros, &tu) && Trim(rest.substr(tu)).empty();
}

bool ParseSqlTime(std::string_view text, int64_t* micros) {
  std::string_view t = Trim(text);
  size_t used = 0;
  if (!ParseTimePart(t, micros, &used)) return false;
  return Trim(t.substr(used)).empty();
}

bool ParseSqlTimestamp(std::string_view text, int64_t* micros) {
  std::string_view t = Trim(text);
  if (IEquals(t, "epoch")) {
    *micros = 0;
    return true;
  }
  int32_t days;
  size_t used = 0;
  if (!ParseDatePart(t, &days, &used)) return false;
  std::string_view rest = t.substr(used);
  int64_t tod = 0;
  if (!rest.empty() && (rest.front() == ' ' || rest.front() == 'T' || rest.front() == 't')) {
    rest.remove_prefix(1);
    rest = Trim(rest);
    size_t tu = 0;
    if (!rest.empty()) {
      if (!ParseTimePart(rest, &tod, &tu)) return false;
      rest = rest.substr(tu);
    }
  }
  rest = Trim(rest);
  int64_t offset_us = 0;
  if (!rest.empty()) {
    if (rest == "Z" || rest == "z" || IEquals(rest, "utc")) {
      rest = {};
    } else if (rest.front() == '+' || rest.front() == '-') {
      const int sign = rest.front() == '-' ? -1 : 1;
      int64_t hh = 0, mm = 0;
      if (!ParseFixedDigits(rest, 1, 2, &hh)) return false;
      size_t p = 3;
      if (p < rest.size() && rest[p] == ':') ++p;
      if (p < rest.size() && !ParseFixedDigits(rest, p, 2, &mm)) return false;
      offset_us = sign * (hh * 3600 + mm * 60) * 1000000;
    } else {
      return false;
    }
  }
  *micros = static_cast<int64_t>(days) * kMicrosPerDay + tod - offset_us;
  return true;
}

bool ParseSqlInterval(std::string_view text, IntervalValue* out) {
  std::string_view t = Trim(text);
  if (t.empty()) return false;
  IntervalValue iv;
  bool any = false;
  bool ago = false;
  while (!t.empty()) {
    t = Trim(t);
    if (t.empty()) break;
    if (t.size() >= 3 && IEquals(t.substr(0, 3), "ago")) {
      ago = true;
      t.remove_prefix(3);
      continue;
    }
    if (t[0] == '@') {
      t.remove_prefix(1);
      continue;
    }
    // A clock part: [-]HH:MM[:SS[.f]]
    size_t p = 0;
    bool neg = false;
    if (p < t.size() && (t[p] == '-' || t[p] == '+')) {
      neg = t[p] == '-';
      ++p;
    }
    size_t digits_end = p;
    while (digits_end < t.size() && (std::isdigit(static_cast<unsigned char>(t[digits_end])) || t[digits_end] == '.')) {
      ++digits_end;
    }
    if (digits_end == p) return false;
    if (digits_end < t.size() && t[digits_end] == ':') {
      int64_t micros;
      size_t used;
      if (!ParseTimePart(t.substr(p), &micros, &used)) {
        // Allow hours beyond 24 in intervals: HH+:MM[:SS]
        return false;
      }
      iv.micros += neg ? -micros : micros;
      t.remove_prefix(p + used);
      any = true;
      continue;
    }
    const std::string num(t.substr(p, digits_end - p));
    char* end = nullptr;
    const double qty = std::strtod(num.c_str(), &end) * (neg ? -1 : 1);
    if (end != num.c_str() + num.size()) return false;
    t.remove_prefix(digits_end);
    t = Trim(t);
    size_t u = 0;
    while (u < t.size() && std::isalpha(static_cast<unsigned char>(t[u]))) ++u;
    std::string unit(t.substr(0, u));
    for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    t.remove_prefix(u);
    if (!unit.empty() && unit.back() == 's' && unit.size() > 1 && unit != "s" && unit != "ms" && unit != "us") {
      unit.pop_back();
    }
    auto add_micros = [&](double us) { iv.micros += static_cast<int64_t>(std::llround(us)); };
    if (unit.empty() || unit == "second" || unit == "sec" || unit == "s") {
      add_micros(qty * 1e6);
    } else if (unit == "millisecond" || unit == "m" + std::string("sec") || unit == "ms") {
      add_micros(qty * 1e3);
    } else if (unit == "microsecond" || unit == "usec" || unit == "us") {
      add_micros(qty);
    } else if (unit == "minute" || unit == "min" || unit == "mi") {
      add_micros(qty * 60e6);
    } else if (unit == "hour" || unit == "hr" || unit == "h") {
      add_micros(qty * 3600e6);
    } else if (unit == "day" || unit == "d") {
      const double whole = std::trunc(qty);
      iv.days += static_cast<int32_t>(whole);
      add_micros((qty - whole) * 86400e6);
    } else if (unit == "week" || unit == "w") {
      const double d = qty * 7;
      const double whole = std::trunc(d);
      iv.days += static_cast<int32_t>(whole);
      add_micros((d - whole) * 86400e6);
    } else if (unit == "month" || unit == "mon") {
      const double whole = std::trunc(qty);
      iv.months += static_cast<int32_t>(whole);
      const double days = (qty - whole) * 30;
      iv.days += static_cast<int32_t>(std::trunc(days));
      add_micros((days - std::trunc(days)) * 86400e6);
    } else if (unit == "year" || unit == "yr" || unit == "y") {
      iv.months += static_cast<int32_t>(std::llround(qty * 12));
    } else if (unit == "decade") {
      iv.months += static_cast<int32_t>(std::llround(qty * 120));
    } else if (unit == "century") {
      iv.months += static_cast<int32_t>(std::llround(qty * 1200));
    } else {
      return false;
    }
    any = true;
  }
  if (!any) return false;
  if (ago) {
    iv.months = -iv.months;
    iv.days = -iv.days;
    iv.micros = -iv.micros;
  }
  *out = iv;
  return true;
}

int128_t RescaleDecimal(int128_t v, int from, int to, bool* overflow) {
  *overflow = false;
  if (to == from) return v;
  if (to > from) {
    const int128_t f = Pow10Int128(to - from);
    int128_t r;
    if (__builtin_mul_overflow(v, f, &r)) {
      *overflow = true;
      return 0;
    }
    return r;
  }
  const int128_t f = Pow10Int128(from - to);
  int128_t q = v / f, rem = v % f;
  if (rem < 0) rem = -rem;
  if (rem * 2 >= f) q += v < 0 ? -1 : 1;
  return q;
}

// --- kernels ---------------------------------------------------------------------

namespace {

Status InvalidInput(const char* type, std::string_view text) {
  return Status::Invalid("invalid input syntax for type {}: \"{}\"", type, text)
      .WithSqlState(sqlstate::kInvalidTextRepresentation);
}

// Date, time, timestamp and interval text PostgreSQL cannot read is
// invalid_datetime_format; a well-formed YYYY-MM-DD whose month or day does
// not exist ('2023-02-29') is datetime_field_overflow, with its message.
Status InvalidDatetimeInput(const char* type, std::string_view text) {
  if (DateFieldsOutOfRange(text)) {
    return Status::Invalid("date/time field value out of range: \"{}\"", text)
        .WithSqlState(sqlstate::kDatetimeFieldOverflow);
  }
  return Status::Invalid("invalid input syntax for type {}: \"{}\"", type, text)
      .WithSqlState(sqlstate::kInvalidDatetimeFormat);
}

// Writes int128 value v into slot i of an integer output, checking range.
template <typename T>
Status StoreInt(T* out, int64_t i, int128_t v, TypeId id, bool valid) {
  if (valid && !FitsInt(id, v))
    return Status::Invalid("{}", IntRangeError(id)).WithSqlState(sqlstate::kNumericValueOutOfRange);
  out[i] = static_cast<T>(v);
  return Status::OK();
}

Result<ArrayRef> CastToInteger(const VectorRef& in, int64_t n, const TypeRef& to, MemoryPool* pool) {
  QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(to, {in}, n, pool));
  const TypeId fid = in.array->type->id;
  const TypeId tid = to->id;
  auto run = [&](auto* dst) -> Status {
    for (int64_t i = 0; i < n; ++i) {
      const bool valid = out.IsValid(i);
      int128_t v = 0;
      switch (fid) {
        case TypeId::kInt16:
        case TypeId::kInt32:
        case TypeId::kInt64:
          v = ReadInteger(in, i);
          break;
        case TypeId::kBool:
          v = BoolAccess(in)(i) ? 1 : 0;
          break;
        case TypeId::kFloat:
        case TypeId::kDouble: {
          const double d = std::nearbyint(ReadDouble(in, i));  // half to even
          if (valid && (std::isnan(d) || d < -9.3e18 || d > 9.3e18)) {
            return Status::Invalid("{}", IntRangeError(tid))
                .WithSqlState(sqlstate::kNumericValueOutOfRange);
          }
          v = valid ? static_cast<int128_t>(d) : 0;
          break;
        }
        case TypeId::kDecimal128: {
          bool overflow;
          v = RescaleDecimal(ReadDecimal(in, i), in.array->type->scale, 0, &overflow);
          break;
        }
        case TypeId::kString: {
          if (!valid) break;
          std::string_view s = StringAccess(in)(i);
          int64_t x;
          if (!ParseSqlInt64(s, &x)) {
            // Out-of-range digits are a range error, anything else syntax.
            std::string_view t = Trim(s);
            bool digits = !t.empty();
            for (size_t k = (t.size() && (t[0] == '-' || t[0] == '+')) ? 1 : 0; k < t.size(); ++k) {
              if (!std::isdigit(static_cast<unsigned char>(t[k]))) digits = false;
            }
            if (digits && t.size() > 1) {
              return Status::Invalid("value \"{}\" is out of range for type {}", s, PgTypeName(*to))
                  .WithSqlState(sqlstate::kNumericValueOutOfRange);
            }
            return InvalidInput(PgTypeName(*to).c_str(), s);
          }
          v = x;
          if (!FitsInt(tid, v)) {
            return Status::Invalid("value \"{}\" is out of range for type {}", s, PgTypeName(*to))
                .WithSqlState(sqlstate::kNumericValueOutOfRange);
          }
          break;
        }
        default:
          return Status::TypeError("cannot cast type {} to {}", PgTypeName(*in.array->type),
                                   PgTypeName(*to))
              .WithSqlState(sqlstate::kCannotCoerce);
      }
      QUIVER_RETURN_NOT_OK(StoreInt(dst, i, v, tid, valid));
    }
    return Status::OK();
  };
  Status st;
  switch (tid) {
    case TypeId::kInt16:
      st = run(out.data<int16_t>());
      break;
    case TypeId::kInt32:
      st = run(out.data<int32_t>());
      break;
    default:
      st = run(out.data<int64_t>());
      break;
  }
  QUIVER_RETURN_NOT_OK(st);
  return kernels::FinishFixed(to, n, std::move(out));
}

Result<ArrayRef> CastToFloating(const VectorRef& in, int64_t n, const TypeRef& to, MemoryPool* pool) {
  QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(to, {in}, n, pool));
  const TypeId fid = in.array->type->id;
  const bool to_float = to->id == TypeId::kFloat;
  for (int64_t i = 0; i < n; ++i) {
    double v = 0;
    switch (fid) {
      case TypeId::kInt16:
      case TypeId::kInt32:
      case TypeId::kInt64:
        v = static_cast<double>(ReadInteger(in, i));
        break;
      case TypeId::kFloat:
      case TypeId::kDouble:
        v = ReadDouble(in, i);
        break;
      case TypeId::kDecimal128:
        v = static_cast<double>(ReadDecimal(in, i)) / std::pow(10.0, in.array->type->scale);
        break;
      case TypeId::kString:
        if (out.IsValid(i)) {
          std::string_view s = StringAccess(in)(i);
          if (!ParseSqlDouble(s, &v)) return InvalidInput(PgTypeName(*to).c_str(), s);
          if (std::isinf(v) && s.find_first_of("iI") == std::string_view::npos) {
            return Status::Invalid("\"{}\" is out of range for type {}", s, PgTypeName(*to))
                .WithSqlState(sqlstate::kNumericValueOutOfRange);
          }
        }
        break;
      default:
        return Status::TypeError("cannot cast type {} to {}", PgTypeName(*in.array->type),
                                 PgTypeName(*to))
            .WithSqlState(sqlstate::kCannotCoerce);
    }
    if (to_float) {
      const float f = static_cast<float>(v);
      if (out.IsValid(i) && std::isinf(f) && !std::isinf(v)) {
        return Status::Invalid("value out of range: overflow")
            .WithSqlState(sqlstate::kNumericValueOutOfRange);
      }
      out.data<float>()[i] = f;
    } else {
      out.data<double>()[i] = v;
    }
  }
  return kernels::FinishFixed(to, n, std::move(out));
}

Result<ArrayRef> CastToDecimal(const VectorRef& in, int64_t n, const TypeRef& to, MemoryPool* pool) {
  QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(to, {in}, n, pool));
  const TypeId fid = in.array->type->id;
  const int p = to->precision, s = to->scale;
  const int128_t limit = Pow10Int128(p);
  int128_t* dst = out.data<int128_t>();
  for (int64_t i = 0; i < n; ++i) {
    const bool valid = out.IsValid(i);
    int128_t v = 0;
    bool overflow = false;
    switch (fid) {
      case TypeId::kInt16:
      case TypeId::kInt32:
      case TypeId::kInt64:
        v = RescaleDecimal(ReadInteger(in, i), 0, s, &overflow);
        break;
      case TypeId::kDecimal128:
        v = RescaleDecimal(ReadDecimal(in, i), in.array->type->scale, s, &overflow);
        break;
      case TypeId::kFloat:
      case TypeId::kDouble: {
        if (!valid) break;
        const double d = ReadDouble(in, i);
        if (std::isnan(d) || std::isinf(d)) {
          return Status::Invalid("cannot convert {} to numeric", FormatDouble(d))
              .WithSqlState(sqlstate::kFeatureNotSupported);
        }
        // Through the shortest text, as PostgreSQL's float8 -> numeric does.
        const std::string text = fid == TypeId::kFloat ? FormatFloat(static_cast<float>(d))
                                                       : FormatDouble(d);
        if (!ParseSqlDecimal(text, p, s, &v, &overflow)) {
          return Status::Invalid("cannot convert {} to numeric", text)
              .WithSqlState(sqlstate::kFeatureNotSupported);
        }
        break;
      }
      case TypeId::kString: {
        if (!valid) break;
        std::string_view str = StringAccess(in)(i);
        if (!ParseSqlDecimal(str, p, s, &v, &overflow)) return InvalidInput("numeric", str);
        break;
      }
      default:
        return Status::TypeError("cannot cast type {} to {}", PgTypeName(*in.array->type),
                                 PgTypeName(*to))
            .WithSqlState(sqlstate::kCannotCoerce);
    }
    if (valid && (overflow || v >= limit || v <= -limit)) {
      return Status::Invalid(
                 "numeric field overflow (a field with precision {}, scale {} must round to an "
                 "absolute "
                 "value less than 10^{})",
                 p, s, p - s)
          .WithSqlState(sqlstate::kNumericValueOutOfRange);
    }
    dst[i] = v;
  }
  return kernels::FinishFixed(to, n, std::move(out));
}

Result<ArrayRef> CastToBool(const VectorRef& in, int64_t n, const TypeRef& to, MemoryPool* pool) {
  QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(to, {in}, n, pool));
  uint8_t* bits = out.values->mutable_data();
  const TypeId fid = in.array->type->id;
  for (int64_t i = 0; i < n; ++i) {
    bool v = false;
    if (fid == TypeId::kString) {
      if (!out.IsValid(i)) continue;
      std::string_view s = StringAccess(in)(i);
      if (!ParseSqlBool(s, &v)) return InvalidInput("boolean", s);
    } else if (IsIntegerType(*in.array->type)) {
      v = ReadInteger(in, i) != 0;
    } else {
      return Status::TypeError("cannot cast type {} to boolean", PgTypeName(*in.array->type))
          .WithSqlState(sqlstate::kCannotCoerce);
    }
    if (v) bit_util::SetBit(bits, i);
  }
  return kernels::FinishFixed(to, n, std::move(out));
}

Result<ArrayRef> CastToText(const VectorRef& in, int64_t n, const TypeRef& to, MemoryPool* pool) {
  kernels::StringOutput out(to, n, pool);
  for (int64_t i = 0; i < n; ++i) {
    if (!in.IsValid(i)) {
      QUIVER_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    if (in.array->type->id == TypeId::kString || in.array->type->id == TypeId::kBinary) {
      QUIVER_RETURN_NOT_OK(out.Append(StringAccess(in)(i)));
      continue;
    }
    const Value v = ValueFromArray(*in.array, in.index(i));
    if (in.array->type->id == TypeId::kBool) {
      QUIVER_RETURN_NOT_OK(out.Append(v.boolean() ? "true" : "false"));
    } else {
      QUIVER_RETURN_NOT_OK(out.Append(v.ToString()));
    }
  }
  return out.Finish();
}

Result<ArrayRef> CastToTemporal(const VectorRef& in, int64_t n, const TypeRef& to, MemoryPool* pool) {
  QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(to, {in}, n, pool));
  const TypeId fid = in.array->type->id;
  const TypeId tid = to->id;
  for (int64_t i = 0; i < n; ++i) {
    const bool valid = out.IsValid(i);
    int64_t v = 0;
    if (fid == TypeId::kString) {
      if (!valid) continue;
      std::string_view s = StringAccess(in)(i);
      if (tid == TypeId::kDate32) {
        int32_t d;
        if (!ParseSqlDate(s, &d)) {
          int64_t ts;
          if (!ParseSqlTimestamp(s, &ts)) return InvalidDatetimeInput("date", s);
          d = static_cast<int32_t>(FloorDiv(ts, kMicrosPerDay));
        }
        v = d;
      } else if (tid == TypeId::kTime64) {
        if (!ParseSqlTime(s, &v)) return InvalidDatetimeInput("time without time zone", s);
      } else if (tid == TypeId::kTimestamp) {
        if (!ParseSqlTimestamp(s, &v)) return InvalidDatetimeInput(PgTypeName(*to).c_str(), s);
      } else {
        IntervalValue iv;
        if (!ParseSqlInterval(s, &iv)) return InvalidDatetimeInput("interval", s);
        uint8_t* p = out.values->mutable_data() + i * 16;
        const int64_t nanos = iv.micros * 1000;
        std::memcpy(p, &iv.months, 4);
        std::memcpy(p + 4, &iv.days, 4);
        std::memcpy(p + 8, &nanos, 8);
        continue;
      }
    } else if (fid == TypeId::kDate32 && tid == TypeId::kTimestamp) {
      v = ReadInteger(in, i) * kMicrosPerDay;
    } else if (fid == TypeId::kTimestamp && tid == TypeId::kDate32) {
      v = FloorDiv(in.values<int64_t>()[in.index(i)], kMicrosPerDay);
    } else if (fid == TypeId::kTimestamp && tid == TypeId::kTimestamp) {
      v = in.values<int64_t>()[in.index(i)];
    } else if (fid == TypeId::kTimestamp && tid == TypeId::kTime64) {
      v = FloorMod(in.values<int64_t>()[in.index(i)], kMicrosPerDay);
    } else if (fid == TypeId::kTime64 && tid == TypeId::kTime64) {
      v = in.values<int64_t>()[in.index(i)];
    } else if (fid == TypeId::kTime64 && tid == TypeId::kIntervalMonthDayNano) {
      const int64_t nanos = in.values<int64_t>()[in.index(i)] * 1000;
      uint8_t* p = out.values->mutable_data() + i * 16;
      std::memset(p, 0, 8);
      std::memcpy(p + 8, &nanos, 8);
      continue;
    } else {
      return Status::TypeError("cannot cast type {} to {}", PgTypeName(*in.array->type),
                               PgTypeName(*to))
          .WithSqlState(sqlstate::kCannotCoerce);
    }
    if (tid == TypeId::kDate32) {
      out.data<int32_t>()[i] = static_cast<int32_t>(v);
    } else {
      out.data<int64_t>()[i] = v;
    }
  }
  return kernels::FinishFixed(to, n, std::move(out));
}

Result<ArrayRef> CastToBinary(const VectorRef& in, int64_t n, const TypeRef& to, MemoryPool* pool) {
  kernels::StringOutput out(to, n, pool);
  StringAccess get(in);
  for (int64_t i = 0; i < n; ++i) {
    if (!in.IsValid(i)) {
      QUIVER_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    std::string_view s = get(i);
    if (in.array->type->id == TypeId::kString && s.size() >= 2 && s[0] == '\\' && s[1] == 'x') {
      std::string bytes;
      auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
      };
      for (size_t k = 2; k + 1 < s.size(); k += 2) {
        const int hi = hex(s[k]), lo = hex(s[k + 1]);
        // PostgreSQL's byteain: invalid_parameter_value for bad hex digits.
        if (hi < 0 || lo < 0) {
          return Status::Invalid("invalid hexadecimal digit: \"{}\"",
                                 std::string_view(&s[hex(s[k]) < 0 ? k : k + 1], 1))
              .WithSqlState(sqlstate::kInvalidParameterValue);
        }
        bytes += static_cast<char>(hi * 16 + lo);
      }
      if (s.size() % 2 != 0) {
        return Status::Invalid("invalid hexadecimal data: odd number of digits")
            .WithSqlState(sqlstate::kInvalidParameterValue);
      }
      QUIVER_RETURN_NOT_OK(out.Append(bytes));
    } else {
      QUIVER_RETURN_NOT_OK(out.Append(s));
    }
  }
  return out.Finish();
}

// Casts that involve json or jsonb: text <-> json <-> jsonb, and jsonb's
// scalars to boolean and numbers (as PostgreSQL's jsonb_int4 ...).
bool CanCastJson(const DataType& from, const DataType& to) {
  const bool plain_text_from = from.id == TypeId::kString && ExtensionName(from).empty();
  const bool plain_text_to = to.id == TypeId::kString && ExtensionName(to).empty();
  if (IsJsonOrJsonb(to)) return plain_text_from || IsJsonOrJsonb(from);
  if (plain_text_to) return true;
  if (IsJsonb(from)) return to.id == TypeId::kBool || IsNumericType(to);
  return false;
}

// The text of json / jsonb rows (same buffers, type utf8).
ArrayData RetypedAsText(const ArrayData& a) {
  ArrayData t = a;
  t.type = utf8();
  return t;
}

// Text arrays whose every valid slot passed json::Validate, remembered per
// thread: an expression that casts the same column to json more than once
// (`payload::json -> 'a', payload::json -> 'b'`; there is no common-
// subexpression elimination) validates each chunk once, and a projection over
// a filter's selection of a validated chunk does not validate again. A chunk
// is known by its buffers, held weakly: while a buffer lives its bytes do not
// change (buffers are immutable once built) and its address is not reused.
class ValidatedJsonText {
 public:
  // Whether slots [array.offset, array.offset + array.length) of `array`'s
  // buffers were all validated (or are NULL in an array that shares the
  // validated one's validity bitmap).
  static bool Known(const ArrayData& array) {
    if (!Cacheable(array)) return false;
    for (const Entry& e : entries_) {
      if (e.data.lock().get() != array.buffers[2].get() ||
          e.offsets.lock().get() != array.buffers[1].get()) {
        continue;
      }
      if (array.offset < e.begin || array.offset + array.length > e.end) continue;
      if (!e.all_valid) {
        const Buffer* v = array.buffers[0].get();
        if (v == nullptr || e.validity.lock().get() != v) continue;
      }
      return true;
    }
    return false;
  }

  static void Remember(const ArrayData& array) {
    if (!Cacheable(array)) return;
    Entry& e = entries_[next_++ % kEntries];
    e.offsets = array.buffers[1];
    e.data = array.buffers[2];
    e.all_valid = array.buffers[0] == nullptr || array.GetNullCount() == 0;
    e.validity = e.all_valid ? std::weak_ptr<Buffer>() : array.buffers[0];
    e.begin = array.offset;
    e.end = array.offset + array.length;
  }

 private:
  static bool Cacheable(const ArrayData& array) {
    return array.type->id == TypeId::kString && array.buffers.size() == 3 &&
           array.buffers[1] != nullptr && array.buffers[2] != nullptr;
  }

  struct Entry {
    std::weak_ptr<Buffer> offsets, data, validity;
    bool all_valid = false;
    int64_t begin = 0, end = 0;
  };
  static constexpr size_t kEntries = 8;
  static thread_local Entry entries_[kEntries];
  static thread_local size_t next_;
};

thread_local ValidatedJsonText::Entry ValidatedJsonText::entries_[ValidatedJsonText::kEntries];
thread_local size_t ValidatedJsonText::next_ = 0;

Result<ArrayRef> CastJson(const VectorRef& in, int64_t n, const TypeRef& to, MemoryPool* pool) {
  const DataType& from = *in.array->type;
  if (to->id == TypeId::kString) {
    StringAccess get(in);
    const bool text_to_json = IsJson(*to) && !IsJsonOrJsonb(from);
    // Every row this cast reads was validated by an earlier cast of the chunk.
    const bool known_valid = text_to_json && !in.constant && ValidatedJsonText::Known(*in.array);
    if (text_to_json && in.sel == nullptr && !in.constant && in.array->length == n) {
      // text -> json keeps the text: validate it and share its buffers.
      if (!known_valid) {
        for (int64_t i = 0; i < n; ++i) {
          if (in.IsValid(i)) QUIVER_RETURN_NOT_OK(json::Validate(get(i)));
        }
        ValidatedJsonText::Remember(*in.array);
      }
      auto out = std::make_shared<ArrayData>(*in.array);
      out->type = to;
      return out;
    }
    kernels::StringOutput out(to, n, pool);
    std::string buf;
    for (int64_t i = 0; i < n; ++i) {
      if (!in.IsValid(i)) {
        QUIVER_RETURN_NOT_OK(out.AppendNull());
        continue;
      }
      const std::string_view s = get(i);
      if (IsJsonb(*to) && !IsJsonb(from)) {
        QUIVER_RETURN_NOT_OK(json::ToJsonb(s, &buf));
        QUIVER_RETURN_NOT_OK(out.Append(buf));
        continue;
      }
      // jsonb -> json keeps jsonb's text, as PostgreSQL does.
      if (text_to_json && !known_valid) QUIVER_RETURN_NOT_OK(json::Validate(s));
      QUIVER_RETURN_NOT_OK(out.Append(s));
    }
    return out.Finish();
  }
  // jsonb scalar -> boolean or a number: check the kind, then cast its text.
  StringAccess get(in);
  for (int64_t i = 0; i < n; ++i) {
    if (!in.IsValid(i)) continue;
    const json::Kind k = json::KindOf(get(i));
    const bool ok = to->id == TypeId::kBool ? (k == json::Kind::kTrue || k == json::Kind::kFalse)
                                            : k == json::Kind::kNumber;
    if (!ok) {
      const char* what = json::KindName(k);
      if (k == json::Kind::kNumber) what = "numeric";
      return Status::Invalid("cannot cast jsonb {} to type {}", what, PgTypeName(*to))
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
  }
  const ArrayData text = RetypedAsText(*in.array);
  VectorRef t{&text, in.sel, in.constant};
  if (IsIntegerType(*to)) {
    // numeric -> integer rounds half away from zero ('1.5'::jsonb::int = 2).
    QUIVER_ASSIGN_OR_RAISE(ArrayRef d, CastVector(t, n, decimal128(kMaxDecimalPrecision, 0), pool));
    return CastVector(VectorRef{d.get(), nullptr, false}, n, to, pool);
  }
  return CastVector(t, n, to, pool);
}

}  // namespace

bool CanCast(const DataType& from, const DataType& to) {
  if (from.id == TypeId::kNull || from.Equals(to)) return true;
  if (from.id == TypeId::kStruct || from.id == TypeId::kMap || to.id == TypeId::kStruct ||
      to.id == TypeId::kMap) {
    // Structs and maps cast only to text (their output text).
    return to.id == TypeId::kString && !IsJsonOrJsonb(to);
  }
  if (from.id == TypeId::kList || to.id == TypeId::kList) {
    return !IsJsonOrJsonb(from) && !IsJsonOrJsonb(to) && CanCastArray(from, to);
  }
  if (IsJsonOrJsonb(from) || IsJsonOrJsonb(to)) return CanCastJson(from, to);
  const TypeCategory f = CategoryOf(from), t = CategoryOf(to);
  if (f == TypeCategory::kString || t == TypeCategory::kString) return true;
  if (f == TypeCategory::kNumeric && t == TypeCategory::kNumeric) return true;
  if (f == TypeCategory::kBoolean && IsIntegerType(to)) return true;
  if (IsIntegerType(from) && t == TypeCategory::kBoolean) return true;
  if (IsTemporalType(from) && IsTemporalType(to)) {
    return !(from.id == TypeId::kTime64 && to.id != TypeId::kTime64) &&
           !(from.id == TypeId::kDate32 && to.id == TypeId::kTime64);
  }
  if (from.id == TypeId::kTime64 && to.id == TypeId::kIntervalMonthDayNano) return true;
  if (to.id == TypeId::kBinary && from.id == TypeId::kString) return true;
  return false;
}

Result<ArrayRef> CastVector(const VectorRef& in, int64_t n, const TypeRef& to, MemoryPool* pool) {
  const DataType& from = *in.array->type;
  if (from.Equals(*to)) return kernels::Materialize(in, n, pool);
  if (from.id == TypeId::kNull) return MakeArrayOfNull(to, n, pool);
  if (!CanCast(from, *to)) {
    return Status::TypeError("cannot cast type {} to {}", PgTypeName(from), PgTypeName(*to))
        .WithSqlState(sqlstate::kCannotCoerce);
  }
  if (from.id == TypeId::kStruct || from.id == TypeId::kMap) {
    // PostgreSQL's record text (1,abc); maps as {k: v}.
    ValueFormatOptions o;
    o.pg_arrays = true;
    o.max_elements = INT64_MAX;
    kernels::StringOutput out(to, n, pool);
    for (int64_t i = 0; i < n; ++i) {
      if (!in.IsValid(i)) {
        QUIVER_RETURN_NOT_OK(out.AppendNull());
      } else {
        QUIVER_RETURN_NOT_OK(out.Append(FormatValue(*in.array, in.index(i), o)));
      }
    }
    return out.Finish();
  }
  if (from.id == TypeId::kList || to->id == TypeId::kList) return CastArrayVector(in, n, to, pool);
  if (IsJsonOrJsonb(from) || IsJsonOrJsonb(*to)) return CastJson(in, n, to, pool);
  switch (to->id) {
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      if (from.id == TypeId::kBool) {
        QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(to, {in}, n, pool));
        BoolAccess get(in);
        for (int64_t i = 0; i < n; ++i) {
          const int64_t v = get(i) ? 1 : 0;
          if (to->id == TypeId::kInt16) out.data<int16_t>()[i] = static_cast<int16_t>(v);
          else if (to->id == TypeId::kInt32) out.data<int32_t>()[i] = static_cast<int32_t>(v);
          else out.data<int64_t>()[i] = v;
        }
        return kernels::FinishFixed(to, n, std::move(out));
      }
      return CastToInteger(in, n, to, pool);
    case TypeId::kFloat:
    case TypeId::kDouble:
      return CastToFloating(in, n, to, pool);
    case TypeId::kDecimal128:
      return CastToDecimal(in, n, to, pool);
    case TypeId::kBool:
      return CastToBool(in, n, to, pool);
    case TypeId::kString:
      return CastToText(in, n, to, pool);
    case TypeId::kBinary:
      return CastToBinary(in, n, to, pool);
    case TypeId::kDate32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kIntervalMonthDayNano:
      return CastToTemporal(in, n, to, pool);
    default:
      break;
  }
  return Status::TypeError("cannot cast type {} to {}", PgTypeName(from), PgTypeName(*to))
      .WithSqlState(sqlstate::kCannotCoerce);
}

Result<ArrayRef> CastArray(const ArrayRef& in, const TypeRef& to, MemoryPool* pool) {
  if (in->type->Equals(*to)) return in;
  VectorRef v{in.get(), nullptr, false};
  return CastVector(v, in->length, to, pool);
}

Result<Value> CastValue(const Value& v, const TypeRef& to) {
  if (v.type()->Equals(*to)) return v;
  if (v.is_null()) return Value::Null(to);
  QUIVER_ASSIGN_OR_RAISE(ArrayRef a, MakeArrayFromValue(v, 1));
  QUIVER_ASSIGN_OR_RAISE(ArrayRef c, CastArray(a, to, DefaultMemoryPool()));
  return ValueFromArray(*c, 0);
}

}  // namespace quiver
