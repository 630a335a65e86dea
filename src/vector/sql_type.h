// SQL types: the PostgreSQL types the engine computes with, each carried by
// one Arrow type, so batches read from files flow through the engine and out
// to writers and clients without conversion.
//
//   PostgreSQL               Arrow (engine type)
//   boolean                  bool
//   smallint / int2          int16
//   integer / int4           int32
//   bigint / int8            int64
//   real / float4            float32
//   double precision/float8  float64
//   numeric(p,s)             decimal128(p,s)   (p <= 38; bare `numeric` is (38,s) by context)
//   text, varchar, char      utf8
//   bytea                    binary
//   date                     date32
//   time                     time64[us]
//   timestamp                timestamp[us]
//   timestamptz              timestamp[us, tz=UTC]
//   interval                 month_day_nano interval (microsecond precision)
//   unknown (NULL literal)   null
//   T[] (arrays)             list<item: T>     (one-dimensional; a list of lists
//                                               is a nested array, which
//                                               PostgreSQL has not)
//
// File columns of other Arrow types are read as the nearest engine type
// (ToEngineType): int8/uint8 -> int16, uint16 -> int32, uint32 -> int64,
// uint64 -> numeric(20,0), float16 -> real, large/view strings and
// dictionaries of strings -> text, timestamps of any unit -> microseconds,
// large/view/fixed-size lists of any readable element -> list<item: T>
// (element converted the same way)... Structs, maps and unions are not read.
#pragma once

#include <string>
#include <vector>

#include "columnar/type.h"
#include "common/status.h"

namespace quiver {

// Maximum precision of numeric (decimal128).
inline constexpr int kMaxDecimalPrecision = 38;

// Whether `type` is one of the engine types above.
bool IsEngineType(const DataType& type);

// The engine type a file column of `type` is read as; Unsupported for types
// the engine does not handle (nested types, unions).
Result<TypeRef> ToEngineType(const TypeRef& type);

// SQL arrays: list<item: element> (the engine's one array type).
TypeRef ArrayOf(const TypeRef& element);
bool IsArrayType(const DataType& type);
// Arrays, structs (composite values) and maps: no ordering or hashing.
bool IsNestedSqlType(const DataType& type);
const TypeRef& ArrayElementType(const DataType& array_type);
// The innermost element type of nested lists (the type itself when not a list).
TypeRef ArrayLeafType(const TypeRef& type);
// Levels of list nesting (0 when not a list).
int ArrayDimensions(const DataType& type);

// PostgreSQL's name for an engine type, as error messages print it:
// "integer", "numeric", "text", "timestamp without time zone"...
std::string PgTypeName(const DataType& type);
// Name with modifiers for EXPLAIN and schemas: "numeric(15,2)".
std::string PgTypeNameWithModifiers(const DataType& type);

// The type named in SQL (`int`, `varchar(10)`, `numeric(15,2)`,
// `double precision`, `timestamptz`...). `modifiers` are the typmods.
Result<TypeRef> TypeFromSqlName(const std::string& name, const std::vector<int>& modifiers);

// Type categories of PostgreSQL's operator resolution.
enum class TypeCategory : int8_t {
  kUnknown,
  kBoolean,
  kNumeric,
  kString,
  kBinary,
  kDateTime,
  kTimespan,
};
TypeCategory CategoryOf(const DataType& type);

bool IsIntegerType(const DataType& type);  // int16/32/64
bool IsNumericType(const DataType& type);  // integers, decimal, floats
bool IsTemporalType(const DataType& type);  // date, time, timestamp(tz)
bool IsStringType(const DataType& type);   // utf8

// Numeric types ranked as PostgreSQL's implicit cast chain orders them:
// int16 < int32 < int64 < numeric < float32 < float64.
int NumericRank(const DataType& type);

// Whether PostgreSQL casts `from` to `to` implicitly (numeric widening,
// date -> timestamp -> timestamptz, anything from the null type).
bool CanCastImplicitly(const DataType& from, const DataType& to);

// The type both sides of a comparison, a CASE, COALESCE, IN list or UNION
// are converted to, or a TypeError naming them. `context` is used in the
// error ("UNION", "CASE", "COALESCE").
Result<TypeRef> CommonSuperType(const TypeRef& a, const TypeRef& b, const char* context);

// A decimal type able to hold any value of integer type `t` ((5,0), (10,0),
// (19,0)); `t` itself when already decimal.
TypeRef DecimalTypeFor(const DataType& t);

}  // namespace quiver
