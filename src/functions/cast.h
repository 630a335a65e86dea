// CAST between engine types, with PostgreSQL's rules and error texts:
//   numbers      integer narrowing checks range ("integer out of range");
//                numeric/float -> integer rounds (numeric half away from
//                zero, float half to even); numeric(p,s) rounds to s digits
//                and checks p ("numeric field overflow")
//   text ->      parses PostgreSQL's input syntax, else
//                `invalid input syntax for type integer: "abc"`
//   -> text      PostgreSQL's output format (Value::ToString)
//   temporal     date <-> timestamp[tz] <-> time, text <-> each
//   boolean      <-> integer, <-> text ('t', 'true', 'yes', 'on', '1' ...)
#pragma once

#include <string_view>

#include "functions/function.h"
#include "vector/value.h"

namespace quiver {

// Whether an explicit CAST from `from` to `to` exists.
bool CanCast(const DataType& from, const DataType& to);

// Casts n rows of `in` to `to`.
Result<ArrayRef> CastVector(const VectorRef& in, int64_t n, const TypeRef& to, MemoryPool* pool);
Result<ArrayRef> CastArray(const ArrayRef& in, const TypeRef& to, MemoryPool* pool);
Result<Value> CastValue(const Value& v, const TypeRef& to);

// Text parsers with PostgreSQL's input syntax (surrounding blanks allowed).
// They return false when the text is not a value of the type.
bool ParseSqlInt64(std::string_view text, int64_t* out);
bool ParseSqlDouble(std::string_view text, double* out);
// Parses into an unscaled value with `scale` digits after the point,
// rounding half away from zero. False on syntax errors; *overflow is set
// when the value has more than `precision - scale` integer digits.
bool ParseSqlDecimal(std::string_view text, int precision, int scale, int128_t* out,
                     bool* overflow);
// Digits of a numeric literal: precision and scale it needs ("12.50" -> 4, 2).
bool DecimalLiteralShape(std::string_view text, int* precision, int* scale);
// A numeric literal with an exponent ("1.5e-3", "15E+1") written without
// one ("0.0015", "150"), so that it binds as an exact numeric like
// PostgreSQL's; nullopt when `text` has no exponent or is not such a literal,
// or when the plain form would be absurdly long (the caller falls back to
// double precision).
std::optional<std::string> ExpandDecimalExponent(std::string_view text);
bool ParseSqlBool(std::string_view text, bool* out);
bool ParseSqlDate(std::string_view text, int32_t* days);
bool ParseSqlTime(std::string_view text, int64_t* micros);
bool ParseSqlTimestamp(std::string_view text, int64_t* micros);
bool ParseSqlInterval(std::string_view text, IntervalValue* out);

// Rounds an unscaled decimal from scale `from` to scale `to` (half away
// from zero when dropping digits).
int128_t RescaleDecimal(int128_t v, int from, int to, bool* overflow);

}  // namespace quiver
