#include "vector/value.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>

#include "columnar/builder.h"
#include "common/calendar.h"
#include "common/datetime_text.h"

namespace quiver {

int128_t Pow10Int128(int n) {
  static const auto table = [] {
    struct T {
      int128_t v[39];
    } t{};
    t.v[0] = 1;
    for (int i = 1; i <= 38; ++i) t.v[i] = t.v[i - 1] * 10;
    return t;
  }();
  return table.v[n < 0 ? 0 : n > 38 ? 38 : n];
}

Value Value::Boolean(bool b) {
  Value v;
  v.type_ = quiver::boolean();
  v.is_null_ = false;
  v.b_ = b;
  return v;
}
Value Value::Integer(TypeRef type, int64_t i) {
  Value v;
  v.type_ = std::move(type);
  v.is_null_ = false;
  v.i_ = i;
  return v;
}
Value Value::Int16(int16_t i) { return Integer(int16(), i); }
Value Value::Int32(int32_t i) { return Integer(int32(), i); }
Value Value::Int64(int64_t i) { return Integer(int64(), i); }
Value Value::Float(float f) {
  Value v;
  v.type_ = float32();
  v.is_null_ = false;
  v.d_ = f;
  return v;
}
Value Value::Double(double d) {
  Value v;
  v.type_ = float64();
  v.is_null_ = false;
  v.d_ = d;
  return v;
}
Value Value::Decimal(int128_t unscaled, int precision, int scale) {
  Value v;
  v.type_ = decimal128(precision, scale);
  v.is_null_ = false;
  v.dec_ = unscaled;
  return v;
}
Value Value::Text(std::string s) {
  Value v;
  v.type_ = utf8();
  v.is_null_ = false;
  v.str_ = std::move(s);
  return v;
}
Value Value::Binary(std::string s) {
  Value v;
  v.type_ = binary();
  v.is_null_ = false;
  v.str_ = std::move(s);
  return v;
}
Value Value::Date(int32_t days) { return Integer(date32(), days); }
Value Value::Time(int64_t micros) { return Integer(time64(TimeUnit::kMicro), micros); }
Value Value::Timestamp(int64_t micros, bool with_tz) {
  return Integer(timestamp(TimeUnit::kMicro, with_tz ? "UTC" : ""), micros);
}
Value Value::Interval(IntervalValue iv) {
  Value v;
  v.type_ = month_day_nano_interval();
  v.is_null_ = false;
  v.iv_ = iv;
  return v;
}

double Value::ToDouble() const {
  switch (type_->id) {
    case TypeId::kFloat:
    case TypeId::kDouble:
      return d_;
    case TypeId::kDecimal128:
      return static_cast<double>(dec_) / std::pow(10.0, type_->scale);
    case TypeId::kBool:
      return b_ ? 1 : 0;
    default:
      return static_cast<double>(i_);
  }
}

// --- formatting ---------------------------------------------------------------

std::string FormatInt128(int128_t v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  char buf[48];
  int pos = 48;
  while (u > 0) {
    buf[--pos] = static_cast<char>('0' + static_cast<int>(u % 10));
    u /= 10;
  }
  if (neg) buf[--pos] = '-';
  return std::string(buf + pos, 48 - pos);
}

std::string FormatDecimal(int128_t unscaled, int scale) {
  if (scale <= 0) return FormatInt128(unscaled);
  const bool neg = unscaled < 0;
  std::string digits = FormatInt128(neg ? -unscaled : unscaled);
  if (static_cast<int>(digits.size()) <= scale) {
    digits.insert(0, static_cast<size_t>(scale + 1 - static_cast<int>(digits.size())), '0');
  }
  digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  return neg ? "-" + digits : digits;
}

std::string FormatDate(int32_t days) {
  const auto [y, m, d] = CivilFromDays(days);
  if (y <= 0) return fmt::format("{:04d}-{:02d}-{:02d} BC", 1 - y, m, d);
  return fmt::format("{:04d}-{:02d}-{:02d}", y, m, d);
}

namespace {

std::string FormatClock(int64_t micros_of_day) {
  const int64_t h = micros_of_day / 3600000000LL;
  const int64_t mi = micros_of_day / 60000000LL % 60;
  const int64_t s = micros_of_day / 1000000 % 60;
  const int64_t us = micros_of_day % 1000000;
  std::string out = fmt::format("{:02d}:{:02d}:{:02d}", h, mi, s);
  if (us != 0) {
    std::string frac = fmt::format("{:06d}", us);
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    out += "." + frac;
  }
  return out;
}

}  // namespace

std::string FormatTime(int64_t micros) { return FormatClock(micros); }

std::string FormatTimestamp(int64_t micros, bool with_tz) {
  const auto [days, rest] = SplitDays(micros, kMicrosPerDay);
  const auto [y, m, d] = CivilFromDays(days);
  std::string out;
  if (y <= 0) {
    out = fmt::format("{:04d}-{:02d}-{:02d} {}", 1 - y, m, d, FormatClock(rest));
    out += with_tz ? "+00 BC" : " BC";
    return out;
  }
  out = fmt::format("{:04d}-{:02d}-{:02d} {}", y, m, d, FormatClock(rest));
  if (with_tz) out += "+00";
  return out;
}

std::string FormatInterval(const IntervalValue& iv) {
  return FormatPostgresInterval(iv.months, iv.days, iv.micros, 6);
}

std::string FormatDouble(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, r.ptr);
  // PostgreSQL writes exponents with a sign and at least two digits: 1e+20.
  const auto e = s.find('e');
  if (e != std::string::npos) {
    std::string mant = s.substr(0, e), exp = s.substr(e + 1);
    char sign = '+';
    if (!exp.empty() && (exp[0] == '-' || exp[0] == '+')) {
      sign = exp[0];
      exp = exp.substr(1);
    }
    if (exp.size() < 2) exp = "0" + exp;
    // to_chars picks scientific only when shorter; PostgreSQL switches at
    // exponent >= 15 or < -4. Re-render in fixed notation otherwise.
    const int ex = std::stoi(exp) * (sign == '-' ? -1 : 1);
    if (ex < 15 && ex >= -4) {
      auto f = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
      return std::string(buf, f.ptr);
    }
    return mant + "e" + sign + exp;
  }
  return s;
}

std::string FormatFloat(float v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

std::string Value::ToString() const {
  if (is_null_) return "NULL";
  switch (type_->id) {
    case TypeId::kBool:
      return b_ ? "t" : "f";
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      return std::to_string(i_);
    case TypeId::kFloat:
      return FormatFloat(static_cast<float>(d_));
    case TypeId::kDouble:
      return FormatDouble(d_);
    case TypeId::kDecimal128:
      return FormatDecimal(dec_, type_->scale);
    case TypeId::kString:
      return str_;
    case TypeId::kBinary: {
      std::string out = "\\x";
      for (unsigned char c : str_) out += fmt::format("{:02x}", c);
      return out;
    }
    case TypeId::kDate32:
      return FormatDate(static_cast<int32_t>(i_));
    case TypeId::kTime64:
      return FormatTime(i_);
    case TypeId::kTimestamp:
      return FormatTimestamp(i_, !type_->timezone.empty());
    case TypeId::kIntervalMonthDayNano:
      return FormatInterval(iv_);
    default:
      return "?";
  }
}

std::string Value::ToSqlLiteral() const {
  if (is_null_) return "NULL";
  auto quote = [](const std::string& s) {
    std::string out = "'";
    for (char c : s) {
      out += c;
      if (c == '\'') out += '\'';
    }
    return out + "'";
  };
  switch (type_->id) {
    case TypeId::kBool:
      return b_ ? "true" : "false";
    case TypeId::kString:
      return quote(str_);
    case TypeId::kBinary:
      return quote(ToString()) + "::bytea";
    case TypeId::kDate32:
      return "DATE " + quote(ToString());
    case TypeId::kTime64:
      return "TIME " + quote(ToString());
    case TypeId::kTimestamp:
      return (type_->timezone.empty() ? "TIMESTAMP " : "TIMESTAMPTZ ") + quote(ToString());
    case TypeId::kIntervalMonthDayNano:
      return "INTERVAL " + quote(ToString());
    default:
      return ToString();
  }
}

bool Value::Equals(const Value& o) const {
  if (!type_->Equals(*o.type_)) return false;
  if (is_null_ || o.is_null_) return is_null_ == o.is_null_;
  return Compare(o) == 0;
}

int Value::Compare(const Value& o) const {
  auto cmp = [](auto a, auto b) { return a < b ? -1 : (b < a ? 1 : 0); };
  switch (type_->id) {
    case TypeId::kBool:
      return cmp(b_, o.b_);
    case TypeId::kFloat:
    case TypeId::kDouble:
      // PostgreSQL orders NaN above everything, and NaN = NaN.
      if (std::isnan(d_) || std::isnan(o.d_)) return cmp(std::isnan(d_), std::isnan(o.d_));
      return cmp(d_, o.d_);
    case TypeId::kDecimal128:
      return cmp(dec_, o.dec_);
    case TypeId::kString:
    case TypeId::kBinary:
      return cmp(str_.compare(o.str_), 0);
    case TypeId::kIntervalMonthDayNano: {
      // Compared as PostgreSQL does: a month is 30 days, a day 24 hours.
      auto span = [](const IntervalValue& v) {
        return (static_cast<int128_t>(v.months) * 30 + v.days) * 86400000000LL + v.micros;
      };
      return cmp(span(iv_), span(o.iv_));
    }
    default:
      return cmp(i_, o.i_);
  }
}

size_t Value::Hash() const {
  if (is_null_) return 0x9e3779b97f4a7c15ULL;
  switch (type_->id) {
    case TypeId::kBool:
      return std::hash<bool>()(b_);
    case TypeId::kFloat:
    case TypeId::kDouble:
      return std::hash<double>()(d_);
    case TypeId::kDecimal128:
      return std::hash<int64_t>()(static_cast<int64_t>(dec_)) ^
             std::hash<int64_t>()(static_cast<int64_t>(dec_ >> 64));
    case TypeId::kString:
    case TypeId::kBinary:
      return std::hash<std::string>()(str_);
    case TypeId::kIntervalMonthDayNano:
      return std::hash<int64_t>()(iv_.micros) ^ (std::hash<int64_t>()(iv_.days) << 1) ^
             (std::hash<int64_t>()(iv_.months) << 2);
    default:
      return std::hash<int64_t>()(i_);
  }
}

// --- arrays <-> values -------------------------------------------------------

Result<ArrayRef> MakeArrayFromValue(const Value& v, int64_t length, MemoryPool* pool) {
  const TypeRef& type = v.type();
  if (v.is_null() || type->id == TypeId::kNull) return MakeArrayOfNull(type, length, pool);
  switch (type->id) {
    case TypeId::kBool: {
      QUIVER_ASSIGN_OR_RAISE(auto bits, AllocateZeroed(bit_util::BytesForBits(length), pool));
      if (v.boolean()) bit_util::SetBitsTo(bits->mutable_data(), 0, length, true);
      return ArrayData::Make(type, length, {nullptr, std::move(bits)}, 0);
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      StringBuilder b(type, pool);
      QUIVER_RETURN_NOT_OK(b.Reserve(length));
      QUIVER_RETURN_NOT_OK(b.ReserveData(static_cast<int64_t>(v.str().size()) * length));
      for (int64_t i = 0; i < length; ++i) QUIVER_RETURN_NOT_OK(b.Append(v.str()));
      return b.Finish();
    }
    default:
      break;
  }
  const int width = type->byte_width_of_values();
  if (width <= 0) return Status::Invalid("cannot make an array of {}", type->ToString());
  QUIVER_ASSIGN_OR_RAISE(auto values, MutableBuffer::Allocate(width * length, pool));
  uint8_t* out = values->mutable_data();
  auto fill = [&](const auto& x) {
    for (int64_t i = 0; i < length; ++i) std::memcpy(out + i * width, &x, sizeof(x));
  };
  switch (type->id) {
    case TypeId::kInt16:
      fill(static_cast<int16_t>(v.integer()));
      break;
    case TypeId::kInt32:
    case TypeId::kDate32:
      fill(static_cast<int32_t>(v.integer()));
      break;
    case TypeId::kInt64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
      fill(v.integer());
      break;
    case TypeId::kFloat:
      fill(static_cast<float>(v.floating()));
      break;
    case TypeId::kDouble:
      fill(v.floating());
      break;
    case TypeId::kDecimal128:
      fill(v.decimal());
      break;
    case TypeId::kIntervalMonthDayNano: {
      struct {
        int32_t months;
        int32_t days;
        int64_t nanos;
      } mdn{v.interval().months, v.interval().days, v.interval().micros * 1000};
      fill(mdn);
      break;
    }
    default:
      return Status::Invalid("cannot make an array of {}", type->ToString());
  }
  values->ZeroPadding();
  return ArrayData::Make(type, length, {nullptr, std::move(values)}, 0);
}

Result<ArrayRef> ArrayFromValues(const std::vector<Value>& values, const TypeRef& type,
                                 MemoryPool* pool) {
  std::vector<ArrayRef> parts;
  parts.reserve(values.size());
  for (const Value& v : values) {
    Value typed = v;
    if (!v.is_null() && !v.type()->Equals(*type)) {
      return Status::TypeError("value of type {} in an array of {}", v.type()->ToString(),
                               type->ToString());
    }
    if (v.is_null()) typed = Value::Null(type);
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, MakeArrayFromValue(typed, 1, pool));
    parts.push_back(std::move(a));
  }
  if (parts.empty()) return MakeArrayOfNull(type, 0, pool);
  if (parts.size() == 1) return parts[0];
  return Concatenate(parts, pool);
}

bool ValueHolds(const DataType& type) {
  switch (type.id) {
    case TypeId::kNull:
    case TypeId::kBool:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal128:
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kDate32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kIntervalMonthDayNano:
      return true;
    default:
      return false;
  }
}

Value ValueFromArray(const ArrayData& a, int64_t i) {
  if (a.IsNull(i)) return Value::Null(a.type);
  const TypeRef& t = a.type;
  switch (t->id) {
    case TypeId::kBool:
      return Value::Boolean(bit_util::GetBit(a.GetRaw<uint8_t>(1), a.offset + i));
    case TypeId::kInt16:
      return Value::Int16(a.GetValues<int16_t>(1)[i]);
    case TypeId::kInt32:
      return Value::Int32(a.GetValues<int32_t>(1)[i]);
    case TypeId::kInt64:
      return Value::Int64(a.GetValues<int64_t>(1)[i]);
    case TypeId::kFloat:
      return Value::Float(a.GetValues<float>(1)[i]);
    case TypeId::kDouble:
      return Value::Double(a.GetValues<double>(1)[i]);
    case TypeId::kDecimal128: {
      int128_t v;
      std::memcpy(&v, a.GetRaw<uint8_t>(1) + (a.offset + i) * 16, 16);
      return Value::Decimal(v, t->precision, t->scale);
    }
    case TypeId::kString:
      return Value::Text(std::string(a.GetString(i)));
    case TypeId::kBinary:
      return Value::Binary(std::string(a.GetString(i)));
    case TypeId::kDate32:
      return Value::Date(a.GetValues<int32_t>(1)[i]);
    case TypeId::kTime64:
      return Value::Time(a.GetValues<int64_t>(1)[i]);
    case TypeId::kTimestamp:
      return Value::Integer(t, a.GetValues<int64_t>(1)[i]);
    case TypeId::kIntervalMonthDayNano: {
      const uint8_t* p = a.GetRaw<uint8_t>(1) + (a.offset + i) * 16;
      IntervalValue iv;
      int64_t nanos;
      std::memcpy(&iv.months, p, 4);
      std::memcpy(&iv.days, p + 4, 4);
      std::memcpy(&nanos, p + 8, 8);
      iv.micros = nanos / 1000;
      return Value::Interval(iv);
    }
    default:
      return Value::Null(t);
  }
}

}  // namespace quiver
