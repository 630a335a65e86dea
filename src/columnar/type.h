// Logical data types, fields and schemas of the Arrow columnar format.
//
// One DataType struct covers every type: an `id` plus the parameters that id
// uses (unit, time zone, precision/scale, byte width, children...). Types are
// immutable and shared (`TypeRef`); build them with the factory functions
// below (`int64()`, `timestamp(TimeUnit::kMicro, "UTC")`, `list(field)`...).
//
// Physical layout per id (buffers in ArrayData::buffers order):
//   kNull                       (no buffers; one null placeholder)
//   kBool                       validity, bit-packed values
//   fixed-width primitives      validity, values
//   kString/kBinary             validity, int32 offsets, data
//   kLargeString/kLargeBinary   validity, int64 offsets, data
//   kStringView/kBinaryView     validity, 16-byte views, variadic data buffers...
//   kFixedSizeBinary/decimals   validity, values (byte_width each)
//   kList/kMap                  validity, int32 offsets; child 0 = values
//   kLargeList                  validity, int64 offsets; child 0 = values
//   kListView/kLargeListView    validity, offsets, sizes; child 0 = values
//   kFixedSizeList              validity; child 0 = values (list_size each)
//   kStruct                     validity; one child per field
//   kSparseUnion                type ids (no validity); one child per field
//   kDenseUnion                 type ids, int32 offsets; one child per field
//   kDictionary                 validity, indices (index_type); values in ArrayData::dictionary
//   kRunEndEncoded              (no buffers); child 0 = run ends, child 1 = values
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace quiver {

enum class TypeId : int8_t {
  kNull,
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kHalfFloat,
  kFloat,
  kDouble,
  kString,
  kBinary,
  kLargeString,
  kLargeBinary,
  kStringView,
  kBinaryView,
  kFixedSizeBinary,
  kDate32,                 // days since epoch, int32
  kDate64,                 // milliseconds since epoch, int64
  kTime32,                 // unit s or ms, int32
  kTime64,                 // unit us or ns, int64
  kTimestamp,              // unit + optional time zone, int64
  kDuration,               // unit, int64
  kIntervalMonths,         // int32 months
  kIntervalDayTime,        // {int32 days, int32 ms}
  kIntervalMonthDayNano,   // {int32 months, int32 days, int64 ns}
  kDecimal32,
  kDecimal64,
  kDecimal128,
  kDecimal256,
  kList,
  kLargeList,
  kListView,
  kLargeListView,
  kFixedSizeList,
  kStruct,
  kMap,
  kSparseUnion,
  kDenseUnion,
  kDictionary,
  kRunEndEncoded,
};

enum class TimeUnit : int8_t { kSecond, kMilli, kMicro, kNano };

const char* TimeUnitName(TimeUnit unit);  // "s", "ms", "us", "ns"
int64_t TimeUnitsPerSecond(TimeUnit unit);

// Ordered key/value pairs (Arrow's custom_metadata). Order is preserved.
using KeyValueMetadata = std::vector<std::pair<std::string, std::string>>;

struct Field;
struct DataType;
using TypeRef = std::shared_ptr<const DataType>;
using FieldRef = std::shared_ptr<const Field>;

struct DataType {
  TypeId id = TypeId::kNull;

  TimeUnit unit = TimeUnit::kSecond;  // time32/64, timestamp, duration
  std::string timezone;               // timestamp; empty = naive
  int32_t byte_width = 0;             // fixed_size_binary, decimals (4/8/16/32)
  int32_t precision = 0;              // decimals
  int32_t scale = 0;                  // decimals
  int32_t list_size = 0;              // fixed_size_list
  bool keys_sorted = false;           // map
  std::vector<FieldRef> children;     // nested types (list: 1, map: 1 "entries" struct,
                                      // struct/union: n, run_end_encoded: run_ends + values)
  std::vector<int8_t> type_codes;     // unions: type code of each child
  TypeRef index_type;                 // dictionary: integer index type
  TypeRef value_type;                 // dictionary: value type
  bool ordered = false;               // dictionary

  // Width in bits of one value of a fixed-width type (1 for bool), 0 otherwise.
  int bit_width() const;
  // Bytes per value of a fixed-width type; 0 for bool (bit-packed) and for
  // types that are not fixed-width.
  int byte_width_of_values() const { return id == TypeId::kBool ? 0 : bit_width() / 8; }
  bool is_integer() const;
  bool is_signed_integer() const;
  bool is_unsigned_integer() const;
  bool is_floating() const;
  bool is_decimal() const;
  bool is_fixed_width() const;  // bool, numbers, temporal, fixed_size_binary, decimals
  bool is_binary_like() const;  // string/binary, 32- or 64-bit offsets
  bool is_nested() const;

  // Renders like Arrow: "int64", "timestamp[us, tz=UTC]", "list<item: int32>".
  std::string ToString() const;
  bool Equals(const DataType& other, bool check_metadata = false) const;
};

struct Field {
  std::string name;
  TypeRef type;
  bool nullable = true;
  KeyValueMetadata metadata;

  std::string ToString() const;  // "name: type[ not null]"
  bool Equals(const Field& other, bool check_metadata = false) const;
};

struct Schema {
  std::vector<FieldRef> fields;
  KeyValueMetadata metadata;

  int num_fields() const { return static_cast<int>(fields.size()); }
  const FieldRef& field(int i) const { return fields[i]; }
  // Index of the first field named `name`, or -1.
  int GetFieldIndex(const std::string& name) const;
  // One field per line.
  std::string ToString() const;
  bool Equals(const Schema& other, bool check_metadata = false) const;
};
using SchemaRef = std::shared_ptr<const Schema>;

// --- factories -------------------------------------------------------------
TypeRef null();
TypeRef boolean();
TypeRef int8();
TypeRef int16();
TypeRef int32();
TypeRef int64();
TypeRef uint8();
TypeRef uint16();
TypeRef uint32();
TypeRef uint64();
TypeRef float16();
TypeRef float32();
TypeRef float64();
TypeRef utf8();
TypeRef binary();
TypeRef large_utf8();
TypeRef large_binary();
TypeRef utf8_view();
TypeRef binary_view();
TypeRef fixed_size_binary(int32_t byte_width);
TypeRef date32();
TypeRef date64();
TypeRef time32(TimeUnit unit);
TypeRef time64(TimeUnit unit);
TypeRef timestamp(TimeUnit unit, std::string timezone = "");
TypeRef duration(TimeUnit unit);
TypeRef month_interval();
TypeRef day_time_interval();
TypeRef month_day_nano_interval();
// byte width is picked from the id: 4, 8, 16, 32.
TypeRef decimal(TypeId id, int32_t precision, int32_t scale);
TypeRef decimal128(int32_t precision, int32_t scale);
TypeRef decimal256(int32_t precision, int32_t scale);
TypeRef list(FieldRef value_field);
TypeRef list(TypeRef value_type);  // child named "item"
TypeRef large_list(FieldRef value_field);
TypeRef list_view(FieldRef value_field);
TypeRef large_list_view(FieldRef value_field);
TypeRef fixed_size_list(FieldRef value_field, int32_t list_size);
TypeRef struct_(std::vector<FieldRef> fields);
// `entries` must be a non-nullable struct<key (non-nullable), value>.
TypeRef map(FieldRef entries, bool keys_sorted = false);
TypeRef map(TypeRef key_type, TypeRef item_type, bool keys_sorted = false);
TypeRef sparse_union(std::vector<FieldRef> fields, std::vector<int8_t> type_codes);
TypeRef dense_union(std::vector<FieldRef> fields, std::vector<int8_t> type_codes);
TypeRef dictionary(TypeRef index_type, TypeRef value_type, bool ordered = false);
TypeRef run_end_encoded(TypeRef run_end_type, TypeRef value_type);

FieldRef field(std::string name, TypeRef type, bool nullable = true,
               KeyValueMetadata metadata = {});
SchemaRef schema(std::vector<FieldRef> fields, KeyValueMetadata metadata = {});

}  // namespace quiver
