// Arrow Schema flatbuffer <-> quiver::Schema.
//
// A dictionary-encoded field is stored as its *value* type plus a
// DictionaryEncoding (id, index type, ordered); its `children` are the value
// type's children. Extension types travel as their storage type with the
// "ARROW:extension:*" keys left in the field metadata.
#include "formats/ipc/metadata_internal.h"

#include <string>
#include <utility>
#include <vector>

#include "columnar/extension_type.h"

namespace quiver::ipc::internal {
namespace {

std::shared_ptr<DataType> NewType(TypeId id) {
  auto t = std::make_shared<DataType>();
  t->id = id;
  return t;
}

Result<TimeUnit> UnitFromFlatbuffer(fb::TimeUnit unit) {
  switch (unit) {
    case fb::TimeUnit::SECOND:
      return TimeUnit::kSecond;
    case fb::TimeUnit::MILLISECOND:
      return TimeUnit::kMilli;
    case fb::TimeUnit::MICROSECOND:
      return TimeUnit::kMicro;
    case fb::TimeUnit::NANOSECOND:
      return TimeUnit::kNano;
  }
  return Status::Invalid("unknown time unit {}", static_cast<int>(unit));
}

fb::TimeUnit UnitToFlatbuffer(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return fb::TimeUnit::SECOND;
    case TimeUnit::kMilli:
      return fb::TimeUnit::MILLISECOND;
    case TimeUnit::kMicro:
      return fb::TimeUnit::MICROSECOND;
    case TimeUnit::kNano:
      return fb::TimeUnit::NANOSECOND;
  }
  return fb::TimeUnit::SECOND;
}

Result<TypeRef> IntFromFlatbuffer(const fb::Int* i) {
  if (i == nullptr) return Status::Invalid("Int type without parameters");
  bool s = i->is_signed();
  switch (i->bit_width()) {
    case 8:
      return s ? int8() : uint8();
    case 16:
      return s ? int16() : uint16();
    case 32:
      return s ? int32() : uint32();
    case 64:
      return s ? int64() : uint64();
  }
  return Status::Invalid("integer bit width {} not 8, 16, 32 or 64", i->bit_width());
}

Status ExpectChildren(const char* what, const std::vector<FieldRef>& children, size_t n) {
  if (children.size() != n) {
    return Status::Invalid("{} type needs {} child field(s), got {}", what, n, children.size());
  }
  return Status::OK();
}

// `children` are the already-decoded child fields of the flatbuffer Field.
Result<TypeRef> TypeFromFlatbuffer(const fb::Field* f, std::vector<FieldRef> children) {
  using T = fb::Type;
  const T tt = f->type_type();
  if (tt != T::NONE && f->type() == nullptr) return Status::Invalid("type table missing");
  switch (tt) {
    case T::NONE:
      return Status::Invalid("field '{}' has no type", f->name() ? f->name()->str() : "");
    case T::Null:
      return null();
    case T::Int:
      return IntFromFlatbuffer(f->type_as_Int());
    case T::FloatingPoint:
      switch (f->type_as_FloatingPoint()->precision()) {
        case fb::Precision::HALF:
          return float16();
        case fb::Precision::SINGLE:
          return float32();
        case fb::Precision::DOUBLE:
          return float64();
      }
      return Status::Invalid("unknown floating point precision");
    case T::Binary:
      return binary();
    case T::Utf8:
      return utf8();
    case T::LargeBinary:
      return large_binary();
    case T::LargeUtf8:
      return large_utf8();
    case T::BinaryView:
      return binary_view();
    case T::Utf8View:
      return utf8_view();
    case T::Bool:
      return boolean();
    case T::Decimal: {
      auto d = f->type_as_Decimal();
      auto t = NewType(TypeId::kDecimal128);
      switch (d->bit_width()) {
        case 32:
          t->id = TypeId::kDecimal32;
          break;
        case 64:
          t->id = TypeId::kDecimal64;
          break;
        case 128:
          t->id = TypeId::kDecimal128;
          break;
        case 256:
          t->id = TypeId::kDecimal256;
          break;
        default:
          return Status::Invalid("decimal bit width {} not 32, 64, 128 or 256", d->bit_width());
      }
      if (d->precision() <= 0 || d->precision() > 76) {
        return Status::Invalid("decimal precision {} out of range", d->precision());
      }
      t->byte_width = d->bit_width() / 8;
      t->precision = d->precision();
      t->scale = d->scale();
      return TypeRef(t);
    }
    case T::Date:
      switch (f->type_as_Date()->unit()) {
        case fb::DateUnit::DAY:
          return date32();
        case fb::DateUnit::MILLISECOND:
          return date64();
      }
      return Status::Invalid("unknown date unit");
    case T::Time: {
      auto tm = f->type_as_Time();
      QUIVER_ASSIGN_OR_RAISE(TimeUnit unit, UnitFromFlatbuffer(tm->unit()));
      bool small = unit == TimeUnit::kSecond || unit == TimeUnit::kMilli;
      if (tm->bit_width() != (small ? 32 : 64)) {
        return Status::Invalid("time[{}] with bit width {}", TimeUnitName(unit), tm->bit_width());
      }
      return small ? time32(unit) : time64(unit);
    }
    case T::Timestamp: {
      auto ts = f->type_as_Timestamp();
      QUIVER_ASSIGN_OR_RAISE(TimeUnit unit, UnitFromFlatbuffer(ts->unit()));
      return timestamp(unit, ts->timezone() ? ts->timezone()->str() : "");
    }
    case T::Interval:
      switch (f->type_as_Interval()->unit()) {
        case fb::IntervalUnit::YEAR_MONTH:
          return month_interval();
        case fb::IntervalUnit::DAY_TIME:
          return day_time_interval();
        case fb::IntervalUnit::MONTH_DAY_NANO:
          return month_day_nano_interval();
      }
      return Status::Invalid("unknown interval unit");
    case T::Duration: {
      QUIVER_ASSIGN_OR_RAISE(TimeUnit unit, UnitFromFlatbuffer(f->type_as_Duration()->unit()));
      return duration(unit);
    }
    case T::FixedSizeBinary: {
      int32_t w = f->type_as_FixedSizeBinary()->byte_width();
      if (w < 0 || w > kMaxFixedWidth)
        return Status::Invalid("fixed_size_binary width {} out of range", w);
      auto t = NewType(TypeId::kFixedSizeBinary);
      t->byte_width = w;
      return TypeRef(t);
    }
    case T::List:
    case T::LargeList:
    case T::ListView:
    case T::LargeListView: {
      QUIVER_RETURN_NOT_OK(ExpectChildren("list", children, 1));
      auto t = NewType(tt == T::List        ? TypeId::kList
                       : tt == T::LargeList ? TypeId::kLargeList
                       : tt == T::ListView  ? TypeId::kListView
                                            : TypeId::kLargeListView);
      t->children = std::move(children);
      return TypeRef(t);
    }
    case T::FixedSizeList: {
      QUIVER_RETURN_NOT_OK(ExpectChildren("fixed_size_list", children, 1));
      int32_t n = f->type_as_FixedSizeList()->list_size();
      if (n < 0) return Status::Invalid("negative fixed_size_list size {}", n);
      auto t = NewType(TypeId::kFixedSizeList);
      t->list_size = n;
      t->children = std::move(children);
      return TypeRef(t);
    }
    case T::Struct_: {
      auto t = NewType(TypeId::kStruct);
      t->children = std::move(children);
      return TypeRef(t);
    }
    case T::Map: {
      QUIVER_RETURN_NOT_OK(ExpectChildren("map", children, 1));
      const auto& entries = children[0]->type;
      if (entries->id != TypeId::kStruct || entries->children.size() != 2) {
        return Status::Invalid("map entries must be a struct of key and value");
      }
      auto t = NewType(TypeId::kMap);
      t->keys_sorted = f->type_as_Map()->keys_sorted();
      t->children = std::move(children);
      return TypeRef(t);
    }
    case T::Union: {
      auto u = f->type_as_Union();
      auto t =
          NewType(u->mode() == fb::UnionMode::Dense ? TypeId::kDenseUnion : TypeId::kSparseUnion);
      if (u->mode() != fb::UnionMode::Dense && u->mode() != fb::UnionMode::Sparse) {
        return Status::Invalid("unknown union mode");
      }
      if (children.size() > 128) return Status::Invalid("union with {} children", children.size());
      if (u->type_ids() != nullptr) {
        if (u->type_ids()->size() != children.size()) {
          return Status::Invalid("union has {} type ids for {} children", u->type_ids()->size(),
                                 children.size());
        }
        for (int32_t code : *u->type_ids()) {
          if (code < 0 || code > 127) return Status::Invalid("union type id {} out of range", code);
          for (int8_t seen : t->type_codes) {
            if (seen == code) return Status::Invalid("duplicate union type id {}", code);
          }
          t->type_codes.push_back(static_cast<int8_t>(code));
        }
      } else {
        for (size_t i = 0; i < children.size(); ++i)
          t->type_codes.push_back(static_cast<int8_t>(i));
      }
      t->children = std::move(children);
      return TypeRef(t);
    }
    case T::RunEndEncoded: {
      QUIVER_RETURN_NOT_OK(ExpectChildren("run_end_encoded", children, 2));
      TypeId re = children[0]->type->id;
      if (re != TypeId::kInt16 && re != TypeId::kInt32 && re != TypeId::kInt64) {
        return Status::Invalid("run ends must be int16, int32 or int64, got {}",
                               children[0]->type->ToString());
      }
      auto t = NewType(TypeId::kRunEndEncoded);
      t->children = std::move(children);
      return TypeRef(t);
    }
  }
  return Status::Unsupported("Arrow IPC type id {}", static_cast<int>(tt));
}

Result<FieldRef> FieldFromFlatbuffer(const fb::Field* f, DictionaryTypes* dicts, int depth) {
  if (f == nullptr) return Status::Invalid("null field in schema");
  if (depth > kMaxNestingDepth) {
    return Status::Invalid("type nesting deeper than {} levels", kMaxNestingDepth);
  }
  std::vector<FieldRef> children;
  if (f->children() != nullptr) {
    children.reserve(f->children()->size());
    for (const fb::Field* child : *f->children()) {
      QUIVER_ASSIGN_OR_RAISE(FieldRef c, FieldFromFlatbuffer(child, dicts, depth + 1));
      children.push_back(std::move(c));
    }
  }
  std::string name = f->name() ? f->name()->str() : "";
  auto type_result = TypeFromFlatbuffer(f, std::move(children));
  if (!type_result.ok()) return type_result.status().WithContext("field '" + name + "'");
  TypeRef type = std::move(type_result).ValueOrDie();

  if (const fb::DictionaryEncoding* enc = f->dictionary()) {
    TypeRef index_type = int32();
    if (enc->index_type() != nullptr) {
      QUIVER_ASSIGN_OR_RAISE(index_type, IntFromFlatbuffer(enc->index_type()));
    }
    auto d = NewType(TypeId::kDictionary);
    d->index_type = index_type;
    d->value_type = type;
    d->ordered = enc->is_ordered();
    auto [it, inserted] = dicts->value_type_of.emplace(enc->id(), type);
    if (!inserted && !it->second->Equals(*type)) {
      return Status::Invalid("dictionary id {} used with types {} and {}", enc->id(),
                             it->second->ToString(), type->ToString());
    }
    dicts->id_of[d.get()] = enc->id();
    type = d;
  }
  auto out = std::make_shared<Field>();
  out->name = std::move(name);
  out->type = std::move(type);
  out->nullable = f->nullable();
  out->metadata = MetadataFromFlatbuffer(f->custom_metadata());
  return FieldRef(out);
}

// --- writer side -------------------------------------------------------------

using FbFieldOffset = flatbuffers::Offset<fb::Field>;

flatbuffers::Offset<fb::Int> IntToFlatbuffer(flatbuffers::FlatBufferBuilder& fbb,
                                             const DataType& t) {
  return fb::CreateInt(fbb, t.bit_width(), t.is_signed_integer());
}

// Returns the type union tag and table of a non-dictionary type.
std::pair<fb::Type, flatbuffers::Offset<void>> TypeToFlatbuffer(flatbuffers::FlatBufferBuilder& fbb,
                                                                const DataType& t) {
  using T = fb::Type;
  switch (t.id) {
    case TypeId::kNull:
      return {T::Null, fb::CreateNull(fbb).Union()};
    case TypeId::kBool:
      return {T::Bool, fb::CreateBool(fbb).Union()};
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
      return {T::Int, IntToFlatbuffer(fbb, t).Union()};
    case TypeId::kHalfFloat:
      return {T::FloatingPoint, fb::CreateFloatingPoint(fbb, fb::Precision::HALF).Union()};
    case TypeId::kFloat:
      return {T::FloatingPoint, fb::CreateFloatingPoint(fbb, fb::Precision::SINGLE).Union()};
    case TypeId::kDouble:
      return {T::FloatingPoint, fb::CreateFloatingPoint(fbb, fb::Precision::DOUBLE).Union()};
    case TypeId::kString:
      return {T::Utf8, fb::CreateUtf8(fbb).Union()};
    case TypeId::kBinary:
      return {T::Binary, fb::CreateBinary(fbb).Union()};
    case TypeId::kLargeString:
      return {T::LargeUtf8, fb::CreateLargeUtf8(fbb).Union()};
    case TypeId::kLargeBinary:
      return {T::LargeBinary, fb::CreateLargeBinary(fbb).Union()};
    case TypeId::kStringView:
      return {T::Utf8View, fb::CreateUtf8View(fbb).Union()};
    case TypeId::kBinaryView:
      return {T::BinaryView, fb::CreateBinaryView(fbb).Union()};
    case TypeId::kFixedSizeBinary:
      return {T::FixedSizeBinary, fb::CreateFixedSizeBinary(fbb, t.byte_width).Union()};
    case TypeId::kDate32:
      return {T::Date, fb::CreateDate(fbb, fb::DateUnit::DAY).Union()};
    case TypeId::kDate64:
      return {T::Date, fb::CreateDate(fbb, fb::DateUnit::MILLISECOND).Union()};
    case TypeId::kTime32:
      return {T::Time, fb::CreateTime(fbb, UnitToFlatbuffer(t.unit), 32).Union()};
    case TypeId::kTime64:
      return {T::Time, fb::CreateTime(fbb, UnitToFlatbuffer(t.unit), 64).Union()};
    case TypeId::kTimestamp: {
      auto tz = t.timezone.empty() ? 0 : fbb.CreateString(t.timezone);
      return {T::Timestamp, fb::CreateTimestamp(fbb, UnitToFlatbuffer(t.unit), tz).Union()};
    }
    case TypeId::kDuration:
      return {T::Duration, fb::CreateDuration(fbb, UnitToFlatbuffer(t.unit)).Union()};
    case TypeId::kIntervalMonths:
      return {T::Interval, fb::CreateInterval(fbb, fb::IntervalUnit::YEAR_MONTH).Union()};
    case TypeId::kIntervalDayTime:
      return {T::Interval, fb::CreateInterval(fbb, fb::IntervalUnit::DAY_TIME).Union()};
    case TypeId::kIntervalMonthDayNano:
      return {T::Interval, fb::CreateInterval(fbb, fb::IntervalUnit::MONTH_DAY_NANO).Union()};
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      return {T::Decimal, fb::CreateDecimal(fbb, t.precision, t.scale, t.byte_width * 8).Union()};
    case TypeId::kList:
      return {T::List, fb::CreateList(fbb).Union()};
    case TypeId::kLargeList:
      return {T::LargeList, fb::CreateLargeList(fbb).Union()};
    case TypeId::kListView:
      return {T::ListView, fb::CreateListView(fbb).Union()};
    case TypeId::kLargeListView:
      return {T::LargeListView, fb::CreateLargeListView(fbb).Union()};
    case TypeId::kFixedSizeList:
      return {T::FixedSizeList, fb::CreateFixedSizeList(fbb, t.list_size).Union()};
    case TypeId::kStruct:
      return {T::Struct_, fb::CreateStruct_(fbb).Union()};
    case TypeId::kMap:
      return {T::Map, fb::CreateMap(fbb, t.keys_sorted).Union()};
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion: {
      std::vector<int32_t> codes(t.type_codes.begin(), t.type_codes.end());
      auto mode = t.id == TypeId::kDenseUnion ? fb::UnionMode::Dense : fb::UnionMode::Sparse;
      return {T::Union, fb::CreateUnion(fbb, mode, fbb.CreateVector(codes)).Union()};
    }
    case TypeId::kRunEndEncoded:
      return {T::RunEndEncoded, fb::CreateRunEndEncoded(fbb).Union()};
    case TypeId::kDictionary:
      break;  // handled by the caller
  }
  return {T::NONE, 0};
}

FbFieldOffset FieldToFlatbuffer(flatbuffers::FlatBufferBuilder& fbb, const Field& field,
                                int64_t* next_dict_id) {
  const DataType* type = field.type.get();
  flatbuffers::Offset<fb::DictionaryEncoding> dict = 0;
  if (type->id == TypeId::kDictionary) {
    int64_t id = (*next_dict_id)++;
    auto index = IntToFlatbuffer(fbb, *type->index_type);
    dict = fb::CreateDictionaryEncoding(fbb, id, index, type->ordered);
    type = type->value_type.get();
  }
  std::vector<FbFieldOffset> children;
  for (const FieldRef& child : type->children) {
    children.push_back(FieldToFlatbuffer(fbb, *child, next_dict_id));
  }
  auto [tag, table] = TypeToFlatbuffer(fbb, *type);
  auto name = fbb.CreateString(field.name);
  auto kids = fbb.CreateVector(children);
  KeyValueMetadata metadata = field.metadata;
  if (!ExtensionName(*type).empty()) {
    // An extension type (SQL's json: arrow.json) travels as Arrow's field
    // metadata, so readers such as pyarrow see the extension's name.
    bool named = false;
    for (const auto& kv : metadata) named |= kv.first == "ARROW:extension:name";
    if (!named) {
      metadata.emplace_back("ARROW:extension:name", ExtensionName(*type));
      metadata.emplace_back("ARROW:extension:metadata", "");
    }
  }
  auto meta = metadata.empty() ? 0 : MetadataToFlatbuffer(fbb, metadata);
  return fb::CreateField(fbb, name, field.nullable, tag, table, dict, kids, meta);
}

}  // namespace

KeyValueMetadata MetadataFromFlatbuffer(
    const flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>* kv) {
  KeyValueMetadata out;
  if (kv == nullptr) return out;
  for (const fb::KeyValue* p : *kv) {
    if (p == nullptr) continue;
    out.emplace_back(p->key() ? p->key()->str() : "", p->value() ? p->value()->str() : "");
  }
  return out;
}

Result<SchemaRef> SchemaFromFlatbuffer(const fb::Schema* schema, DictionaryTypes* dicts,
                                       bool* big_endian) {
  if (schema == nullptr) return Status::Invalid("missing schema");
  if (schema->endianness() != fb::Endianness::Little &&
      schema->endianness() != fb::Endianness::Big) {
    return Status::Invalid("unknown endianness {}", static_cast<int>(schema->endianness()));
  }
  if (big_endian) *big_endian = schema->endianness() == fb::Endianness::Big;
  auto out = std::make_shared<Schema>();
  if (schema->fields() != nullptr) {
    for (const fb::Field* f : *schema->fields()) {
      QUIVER_ASSIGN_OR_RAISE(FieldRef field, FieldFromFlatbuffer(f, dicts, 0));
      out->fields.push_back(std::move(field));
    }
  }
  out->metadata = MetadataFromFlatbuffer(schema->custom_metadata());
  return SchemaRef(out);
}

flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>> MetadataToFlatbuffer(
    flatbuffers::FlatBufferBuilder& fbb, const KeyValueMetadata& metadata) {
  std::vector<flatbuffers::Offset<fb::KeyValue>> kvs;
  for (const auto& [k, v] : metadata) {
    auto key = fbb.CreateString(k);
    auto value = fbb.CreateString(v);
    kvs.push_back(fb::CreateKeyValue(fbb, key, value));
  }
  return fbb.CreateVector(kvs);
}

flatbuffers::Offset<fb::Schema> SchemaToFlatbuffer(flatbuffers::FlatBufferBuilder& fbb,
                                                   const Schema& schema) {
  int64_t next_dict_id = 0;
  std::vector<FbFieldOffset> fields;
  for (const FieldRef& f : schema.fields)
    fields.push_back(FieldToFlatbuffer(fbb, *f, &next_dict_id));
  auto fv = fbb.CreateVector(fields);
  auto meta = schema.metadata.empty() ? 0 : MetadataToFlatbuffer(fbb, schema.metadata);
  return fb::CreateSchema(fbb, fb::Endianness::Little, fv, meta);
}

}  // namespace quiver::ipc::internal
