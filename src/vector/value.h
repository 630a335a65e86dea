// Value: one SQL value of an engine type (see sql_type.h), or NULL.
//
// Values are what the binder makes of literals, what constant folding
// computes, what statistics and runtime filters carry, and what the sqllogictest
// runner prints. Vectors of values are ArrayData; MakeArrayFromValue and
// ValueFromArray convert between the two, so scalar code reuses the vector
// kernels (a constant is evaluated as a length-1 array).
//
// Storage by type: bool -> b; int16/32/64, date32 (days), time64 (us),
// timestamp (us) -> i; float32/64 -> d; decimal128 -> dec (unscaled);
// utf8/binary -> str; interval -> iv.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/array.h"
#include "vector/sql_type.h"

namespace quiver {

using int128_t = __int128;

struct IntervalValue {
  int32_t months = 0;
  int32_t days = 0;
  int64_t micros = 0;
  bool operator==(const IntervalValue& o) const {
    return months == o.months && days == o.days && micros == o.micros;
  }
};

class Value {
 public:
  Value() : type_(null()), is_null_(true) {}
  static Value Null(TypeRef type) {
    Value v;
    v.type_ = std::move(type);
    return v;
  }
  static Value Boolean(bool b);
  static Value Int16(int16_t v);
  static Value Int32(int32_t v);
  static Value Int64(int64_t v);
  static Value Integer(TypeRef type, int64_t v);  // any integer or temporal type stored in i
  static Value Float(float v);
  static Value Double(double v);
  static Value Decimal(int128_t unscaled, int precision, int scale);
  static Value Text(std::string s);
  static Value Binary(std::string s);
  static Value Date(int32_t days);
  static Value Time(int64_t micros);
  static Value Timestamp(int64_t micros, bool with_tz = false);
  static Value Interval(IntervalValue iv);

  const TypeRef& type() const { return type_; }
  bool is_null() const { return is_null_; }

  bool boolean() const { return b_; }
  int64_t integer() const { return i_; }
  double floating() const { return d_; }
  int128_t decimal() const { return dec_; }
  const std::string& str() const { return str_; }
  const IntervalValue& interval() const { return iv_; }

  // The value as a double (numeric types only).
  double ToDouble() const;
  // PostgreSQL's text output: 42, 3.5, 12.30, t/f, 1998-12-01,
  // 1998-12-01 10:00:00, 1 year 2 mons 3 days 04:05:06, \x0102 for bytea.
  // NULL prints as "NULL".
  std::string ToString() const;
  // Renders as a SQL literal: 'it''s', DATE '1998-12-01', NULL...
  std::string ToSqlLiteral() const;

  // Same type and value (NULL equals NULL here: this is identity, not SQL =).
  bool Equals(const Value& other) const;
  // Ordering of two non-null values of the same type: -1, 0, 1.
  int Compare(const Value& other) const;
  size_t Hash() const;

 private:
  TypeRef type_;
  bool is_null_ = false;
  bool b_ = false;
  int64_t i_ = 0;
  double d_ = 0;
  int128_t dec_ = 0;
  std::string str_;
  IntervalValue iv_;
};

// A length-`length` array holding `value` in every slot (its type).
Result<ArrayRef> MakeArrayFromValue(const Value& value, int64_t length = 1,
                                    MemoryPool* pool = DefaultMemoryPool());
// Slot i of an engine-typed array.
Value ValueFromArray(const ArrayData& array, int64_t i);
// Whether a Value can hold the values of `type` (not arrays, structs, maps):
// ValueFromArray gives NULL for the others, so callers check first.
bool ValueHolds(const DataType& type);
// An array of `type` holding `values` (each NULL or of `type`).
Result<ArrayRef> ArrayFromValues(const std::vector<Value>& values, const TypeRef& type,
                                 MemoryPool* pool = DefaultMemoryPool());

// Text forms shared by Value::ToString and the cast kernels.
std::string FormatDecimal(int128_t unscaled, int scale);
std::string FormatDate(int32_t days);
std::string FormatTime(int64_t micros);
std::string FormatTimestamp(int64_t micros, bool with_tz);
std::string FormatInterval(const IntervalValue& iv);
std::string FormatDouble(double v);
std::string FormatFloat(float v);
std::string FormatInt128(int128_t v);

// Powers of ten as 128-bit integers, 10^0 .. 10^38.
int128_t Pow10Int128(int n);

}  // namespace quiver
