#include "columnar/type.h"

#include <fmt/format.h>

namespace quiver {

const char* TimeUnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return "s";
    case TimeUnit::kMilli: return "ms";
    case TimeUnit::kMicro: return "us";
    case TimeUnit::kNano: return "ns";
  }
  return "?";
}

int64_t TimeUnitsPerSecond(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return 1;
    case TimeUnit::kMilli: return 1000;
    case TimeUnit::kMicro: return 1000000;
    case TimeUnit::kNano: return 1000000000;
  }
  return 1;
}

int DataType::bit_width() const {
  switch (id) {
    case TypeId::kBool: return 1;
    case TypeId::kInt8:
    case TypeId::kUInt8: return 8;
    case TypeId::kInt16:
    case TypeId::kUInt16:
    case TypeId::kHalfFloat: return 16;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat:
    case TypeId::kDate32:
    case TypeId::kTime32:
    case TypeId::kIntervalMonths: return 32;
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kDouble:
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kIntervalDayTime: return 64;
    case TypeId::kIntervalMonthDayNano: return 128;
    case TypeId::kFixedSizeBinary:
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256: return byte_width * 8;
    default: return 0;
  }
}

bool DataType::is_signed_integer() const {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 || id == TypeId::kInt64;
}
bool DataType::is_unsigned_integer() const {
  return id == TypeId::kUInt8 || id == TypeId::kUInt16 || id == TypeId::kUInt32 ||
         id == TypeId::kUInt64;
}
bool DataType::is_integer() const { return is_signed_integer() || is_unsigned_integer(); }
bool DataType::is_floating() const {
  return id == TypeId::kHalfFloat || id == TypeId::kFloat || id == TypeId::kDouble;
}
bool DataType::is_decimal() const {
  return id == TypeId::kDecimal32 || id == TypeId::kDecimal64 || id == TypeId::kDecimal128 ||
         id == TypeId::kDecimal256;
}
bool DataType::is_fixed_width() const { return bit_width() > 0; }
bool DataType::is_binary_like() const {
  return id == TypeId::kString || id == TypeId::kBinary || id == TypeId::kLargeString ||
         id == TypeId::kLargeBinary;
}
bool DataType::is_nested() const {
  switch (id) {
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kListView:
    case TypeId::kLargeListView:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
    case TypeId::kMap:
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion:
    case TypeId::kRunEndEncoded: return true;
    default: return false;
  }
}

namespace {
std::string ChildrenToString(const std::vector<FieldRef>& children) {
  std::string out;
  for (size_t i = 0; i < children.size(); ++i) {
    if (i) out += ", ";
    out += children[i]->ToString();
  }
  return out;
}
}  // namespace

std::string DataType::ToString() const {
  // A utf8-stored extension type (columnar/extension_type.h), as Arrow prints one.
  if (id == TypeId::kString && !timezone.empty()) return "extension<" + timezone + ">";
  switch (id) {
    case TypeId::kNull: return "null";
    case TypeId::kBool: return "bool";
    case TypeId::kInt8: return "int8";
    case TypeId::kInt16: return "int16";
    case TypeId::kInt32: return "int32";
    case TypeId::kInt64: return "int64";
    case TypeId::kUInt8: return "uint8";
    case TypeId::kUInt16: return "uint16";
    case TypeId::kUInt32: return "uint32";
    case TypeId::kUInt64: return "uint64";
    case TypeId::kHalfFloat: return "halffloat";
    case TypeId::kFloat: return "float";
    case TypeId::kDouble: return "double";
    case TypeId::kString: return "string";
    case TypeId::kBinary: return "binary";
    case TypeId::kLargeString: return "large_string";
    case TypeId::kLargeBinary: return "large_binary";
    case TypeId::kStringView: return "string_view";
    case TypeId::kBinaryView: return "binary_view";
    case TypeId::kFixedSizeBinary: return fmt::format("fixed_size_binary[{}]", byte_width);
    case TypeId::kDate32: return "date32[day]";
    case TypeId::kDate64: return "date64[ms]";
    case TypeId::kTime32: return fmt::format("time32[{}]", TimeUnitName(unit));
    case TypeId::kTime64: return fmt::format("time64[{}]", TimeUnitName(unit));
    case TypeId::kTimestamp:
      return timezone.empty() ? fmt::format("timestamp[{}]", TimeUnitName(unit))
                              : fmt::format("timestamp[{}, tz={}]", TimeUnitName(unit), timezone);
    case TypeId::kDuration: return fmt::format("duration[{}]", TimeUnitName(unit));
    case TypeId::kIntervalMonths: return "month_interval";
    case TypeId::kIntervalDayTime: return "day_time_interval";
    case TypeId::kIntervalMonthDayNano: return "month_day_nano_interval";
    case TypeId::kDecimal32: return fmt::format("decimal32({}, {})", precision, scale);
    case TypeId::kDecimal64: return fmt::format("decimal64({}, {})", precision, scale);
    case TypeId::kDecimal128: return fmt::format("decimal128({}, {})", precision, scale);
    case TypeId::kDecimal256: return fmt::format("decimal256({}, {})", precision, scale);
    case TypeId::kList: return fmt::format("list<{}>", ChildrenToString(children));
    case TypeId::kLargeList: return fmt::format("large_list<{}>", ChildrenToString(children));
    case TypeId::kListView: return fmt::format("list_view<{}>", ChildrenToString(children));
    case TypeId::kLargeListView:
      return fmt::format("large_list_view<{}>", ChildrenToString(children));
    case TypeId::kFixedSizeList:
      return fmt::format("fixed_size_list<{}>[{}]", ChildrenToString(children), list_size);
    case TypeId::kStruct: return fmt::format("struct<{}>", ChildrenToString(children));
    case TypeId::kMap: {
      const auto& entries = children[0]->type->children;
      return fmt::format("map<{}, {}{}>", entries[0]->type->ToString(), entries[1]->type->ToString(),
                         keys_sorted ? ", keys_sorted" : "");
    }
    case TypeId::kSparseUnion: return fmt::format("sparse_union<{}>", ChildrenToString(children));
    case TypeId::kDenseUnion: return fmt::format("dense_union<{}>", ChildrenToString(children));
    case TypeId::kDictionary:
      return fmt::format("dictionary<values={}, indices={}, ordered={}>", value_type->ToString(),
                         index_type->ToString(), ordered ? 1 : 0);
    case TypeId::kRunEndEncoded:
      return fmt::format("run_end_encoded<run_ends: {}, values: {}>",
                         children[0]->type->ToString(), children[1]->type->ToString());
  }
  return "?";
}

bool DataType::Equals(const DataType& o, bool check_metadata) const {
  if (this == &o) return true;
  if (id != o.id) return false;
  switch (id) {
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kDuration:
      return unit == o.unit;
    case TypeId::kTimestamp:
      return unit == o.unit && timezone == o.timezone;
    case TypeId::kString:
      // The extension a utf8 type carries (columnar/extension_type.h).
      if (timezone != o.timezone) return false;
      break;
    case TypeId::kFixedSizeBinary:
      return byte_width == o.byte_width;
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      return precision == o.precision && scale == o.scale;
    case TypeId::kDictionary:
      return ordered == o.ordered && index_type->Equals(*o.index_type, check_metadata) &&
             value_type->Equals(*o.value_type, check_metadata);
    default:
      break;
  }
  if (id == TypeId::kFixedSizeList && list_size != o.list_size) return false;
  if (id == TypeId::kMap) {
    // The names of a map's "entries", "key" and "value" fields carry no
    // meaning (writers differ), so only the types and nullability count.
    if (keys_sorted != o.keys_sorted) return false;
    const auto& a = children[0]->type->children;
    const auto& b = o.children[0]->type->children;
    return a.size() == 2 && b.size() == 2 && a[0]->type->Equals(*b[0]->type, check_metadata) &&
           a[1]->type->Equals(*b[1]->type, check_metadata) && a[1]->nullable == b[1]->nullable;
  }
  if (type_codes != o.type_codes) return false;
  if (children.size() != o.children.size()) return false;
  for (size_t i = 0; i < children.size(); ++i) {
    if (!children[i]->Equals(*o.children[i], check_metadata)) return false;
  }
  return true;
}

std::string Field::ToString() const {
  return fmt::format("{}: {}{}", name, type->ToString(), nullable ? "" : " not null");
}

bool Field::Equals(const Field& o, bool check_metadata) const {
  if (this == &o) return true;
  return name == o.name && nullable == o.nullable && type->Equals(*o.type, check_metadata) &&
         (!check_metadata || metadata == o.metadata);
}

int Schema::GetFieldIndex(const std::string& name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i]->name == name) return static_cast<int>(i);
  }
  return -1;
}

std::string Schema::ToString() const {
  std::string out;
  for (const auto& f : fields) {
    out += f->ToString();
    out += '\n';
  }
  return out;
}

bool Schema::Equals(const Schema& o, bool check_metadata) const {
  if (fields.size() != o.fields.size()) return false;
  if (check_metadata && metadata != o.metadata) return false;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!fields[i]->Equals(*o.fields[i], check_metadata)) return false;
  }
  return true;
}

namespace {
TypeRef Simple(TypeId id) {
  auto t = std::make_shared<DataType>();
  t->id = id;
  return t;
}
std::shared_ptr<DataType> With(TypeId id) {
  auto t = std::make_shared<DataType>();
  t->id = id;
  return t;
}
}  // namespace

#define QUIVER_SIMPLE_TYPE(NAME, ID)           \
  TypeRef NAME() {                             \
    static const TypeRef kType = Simple(ID);   \
    return kType;                              \
  }
QUIVER_SIMPLE_TYPE(null, TypeId::kNull)
QUIVER_SIMPLE_TYPE(boolean, TypeId::kBool)
QUIVER_SIMPLE_TYPE(int8, TypeId::kInt8)
QUIVER_SIMPLE_TYPE(int16, TypeId::kInt16)
QUIVER_SIMPLE_TYPE(int32, TypeId::kInt32)
QUIVER_SIMPLE_TYPE(int64, TypeId::kInt64)
QUIVER_SIMPLE_TYPE(uint8, TypeId::kUInt8)
QUIVER_SIMPLE_TYPE(uint16, TypeId::kUInt16)
QUIVER_SIMPLE_TYPE(uint32, TypeId::kUInt32)
QUIVER_SIMPLE_TYPE(uint64, TypeId::kUInt64)
QUIVER_SIMPLE_TYPE(float16, TypeId::kHalfFloat)
QUIVER_SIMPLE_TYPE(float32, TypeId::kFloat)
QUIVER_SIMPLE_TYPE(float64, TypeId::kDouble)
QUIVER_SIMPLE_TYPE(utf8, TypeId::kString)
QUIVER_SIMPLE_TYPE(binary, TypeId::kBinary)
QUIVER_SIMPLE_TYPE(large_utf8, TypeId::kLargeString)
QUIVER_SIMPLE_TYPE(large_binary, TypeId::kLargeBinary)
QUIVER_SIMPLE_TYPE(utf8_view, TypeId::kStringView)
QUIVER_SIMPLE_TYPE(binary_view, TypeId::kBinaryView)
QUIVER_SIMPLE_TYPE(date32, TypeId::kDate32)
QUIVER_SIMPLE_TYPE(date64, TypeId::kDate64)
QUIVER_SIMPLE_TYPE(month_interval, TypeId::kIntervalMonths)
QUIVER_SIMPLE_TYPE(day_time_interval, TypeId::kIntervalDayTime)
QUIVER_SIMPLE_TYPE(month_day_nano_interval, TypeId::kIntervalMonthDayNano)
#undef QUIVER_SIMPLE_TYPE

TypeRef fixed_size_binary(int32_t byte_width) {
  auto t = With(TypeId::kFixedSizeBinary);
  t->byte_width = byte_width;
  return t;
}
TypeRef time32(TimeUnit unit) {
  auto t = With(TypeId::kTime32);
  t->unit = unit;
  return t;
}
TypeRef time64(TimeUnit unit) {
  auto t = With(TypeId::kTime64);
  t->unit = unit;
  return t;
}
TypeRef timestamp(TimeUnit unit, std::string timezone) {
  auto t = With(TypeId::kTimestamp);
  t->unit = unit;
  t->timezone = std::move(timezone);
  return t;
}
TypeRef duration(TimeUnit unit) {
  auto t = With(TypeId::kDuration);
  t->unit = unit;
  return t;
}
TypeRef decimal(TypeId id, int32_t precision, int32_t scale) {
  auto t = With(id);
  t->precision = precision;
  t->scale = scale;
  switch (id) {
    case TypeId::kDecimal32: t->byte_width = 4; break;
    case TypeId::kDecimal64: t->byte_width = 8; break;
    case TypeId::kDecimal128: t->byte_width = 16; break;
    default: t->byte_width = 32; break;
  }
  return t;
}
TypeRef decimal128(int32_t precision, int32_t scale) {
  return decimal(TypeId::kDecimal128, precision, scale);
}
TypeRef decimal256(int32_t precision, int32_t scale) {
  return decimal(TypeId::kDecimal256, precision, scale);
}

namespace {
TypeRef Nested(TypeId id, std::vector<FieldRef> children) {
  auto t = With(id);
  t->children = std::move(children);
  return t;
}
}  // namespace

TypeRef list(FieldRef value_field) { return Nested(TypeId::kList, {std::move(value_field)}); }
TypeRef list(TypeRef value_type) { return list(field("item", std::move(value_type))); }
TypeRef large_list(FieldRef value_field) {
  return Nested(TypeId::kLargeList, {std::move(value_field)});
}
TypeRef list_view(FieldRef value_field) {
  return Nested(TypeId::kListView, {std::move(value_field)});
}
TypeRef large_list_view(FieldRef value_field) {
  return Nested(TypeId::kLargeListView, {std::move(value_field)});
}
TypeRef fixed_size_list(FieldRef value_field, int32_t list_size) {
  auto t = With(TypeId::kFixedSizeList);
  t->children = {std::move(value_field)};
  t->list_size = list_size;
  return t;
}
TypeRef struct_(std::vector<FieldRef> fields) { return Nested(TypeId::kStruct, std::move(fields)); }
TypeRef map(FieldRef entries, bool keys_sorted) {
  auto t = With(TypeId::kMap);
  t->children = {std::move(entries)};
  t->keys_sorted = keys_sorted;
  return t;
}
TypeRef map(TypeRef key_type, TypeRef item_type, bool keys_sorted) {
  return map(field("entries",
                   struct_({field("key", std::move(key_type), false),
                            field("value", std::move(item_type))}),
                   false),
             keys_sorted);
}
TypeRef sparse_union(std::vector<FieldRef> fields, std::vector<int8_t> type_codes) {
  auto t = With(TypeId::kSparseUnion);
  t->children = std::move(fields);
  t->type_codes = std::move(type_codes);
  return t;
}
TypeRef dense_union(std::vector<FieldRef> fields, std::vector<int8_t> type_codes) {
  auto t = With(TypeId::kDenseUnion);
  t->children = std::move(fields);
  t->type_codes = std::move(type_codes);
  return t;
}
TypeRef dictionary(TypeRef index_type, TypeRef value_type, bool ordered) {
  auto t = With(TypeId::kDictionary);
  t->index_type = std::move(index_type);
  t->value_type = std::move(value_type);
  t->ordered = ordered;
  return t;
}
TypeRef run_end_encoded(TypeRef run_end_type, TypeRef value_type) {
  return Nested(TypeId::kRunEndEncoded, {field("run_ends", std::move(run_end_type), false),
                                         field("values", std::move(value_type))});
}

FieldRef field(std::string name, TypeRef type, bool nullable, KeyValueMetadata metadata) {
  auto f = std::make_shared<Field>();
  f->name = std::move(name);
  f->type = std::move(type);
  f->nullable = nullable;
  f->metadata = std::move(metadata);
  return f;
}

SchemaRef schema(std::vector<FieldRef> fields, KeyValueMetadata metadata) {
  auto s = std::make_shared<Schema>();
  s->fields = std::move(fields);
  s->metadata = std::move(metadata);
  return s;
}

}  // namespace quiver
