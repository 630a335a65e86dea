// Parquet schema -> Arrow schema (see arrow_schema.h).
#include "formats/parquet/arrow_schema.h"

#include <cstring>

#include "common/io.h"
#include "formats/ipc/reader.h"
#include "formats/ipc/writer.h"
#include "formats/parquet/arrow_hints.h"

namespace quiver::parquet {
namespace {

using Kind = LogicalType::Kind;

constexpr const char* kArrowSchemaKey = "ARROW:schema";
constexpr const char* kFieldIdKey = "PARQUET:field_id";

TimeUnit ToArrowUnit(TimeUnitKind unit) {
  switch (unit) {
    case TimeUnitKind::kMillis:
      return TimeUnit::kMilli;
    case TimeUnitKind::kMicros:
      return TimeUnit::kMicro;
    case TimeUnitKind::kNanos:
      return TimeUnit::kNano;
  }
  return TimeUnit::kMilli;
}

// The logical type a schema element means, from LogicalType or, failing
// that, from the legacy ConvertedType.
LogicalType EffectiveLogicalType(const SchemaElement& e) {
  if (e.logical_type.kind != Kind::kNone) return e.logical_type;
  LogicalType t;
  if (!e.converted_type) return t;
  auto integer = [&](int bits, bool is_signed) {
    t.kind = Kind::kInteger;
    t.bit_width = static_cast<int8_t>(bits);
    t.is_signed = is_signed;
  };
  switch (*e.converted_type) {
    case ConvertedType::kUtf8:
      t.kind = Kind::kString;
      break;
    case ConvertedType::kMap:
      t.kind = Kind::kMap;
      break;
    case ConvertedType::kMapKeyValue:
      break;  // see NodeBuilder::Make
    case ConvertedType::kList:
      t.kind = Kind::kList;
      break;
    case ConvertedType::kEnum:
      t.kind = Kind::kEnum;
      break;
    case ConvertedType::kDecimal:
      t.kind = Kind::kDecimal;
      t.precision = e.precision.value_or(0);
      t.scale = e.scale.value_or(0);
      break;
    case ConvertedType::kDate:
      t.kind = Kind::kDate;
      break;
    case ConvertedType::kTimeMillis:
      t.kind = Kind::kTime;
      t.unit = TimeUnitKind::kMillis;
      t.is_adjusted_to_utc = true;
      break;
    case ConvertedType::kTimeMicros:
      t.kind = Kind::kTime;
      t.unit = TimeUnitKind::kMicros;
      t.is_adjusted_to_utc = true;
      break;
    case ConvertedType::kTimestampMillis:
      t.kind = Kind::kTimestamp;
      t.unit = TimeUnitKind::kMillis;
      t.is_adjusted_to_utc = true;
      break;
    case ConvertedType::kTimestampMicros:
      t.kind = Kind::kTimestamp;
      t.unit = TimeUnitKind::kMicros;
      t.is_adjusted_to_utc = true;
      break;
    case ConvertedType::kUint8:
      integer(8, false);
      break;
    case ConvertedType::kUint16:
      integer(16, false);
      break;
    case ConvertedType::kUint32:
      integer(32, false);
      break;
    case ConvertedType::kUint64:
      integer(64, false);
      break;
    case ConvertedType::kInt8:
      integer(8, true);
      break;
    case ConvertedType::kInt16:
      integer(16, true);
      break;
    case ConvertedType::kInt32:
      integer(32, true);
      break;
    case ConvertedType::kInt64:
      integer(64, true);
      break;
    case ConvertedType::kJson:
      t.kind = Kind::kJson;
      break;
    case ConvertedType::kBson:
      t.kind = Kind::kBson;
      break;
    case ConvertedType::kInterval:
      t.kind = Kind::kUnrecognized;
      break;
  }
  return t;
}

Result<TypeRef> DecimalType(const LogicalType& t, const std::string& name) {
  if (t.precision < 1 || t.precision > 76 || t.scale < 0 || t.scale > t.precision) {
    return Status::Invalid("column '{}': invalid DECIMAL({}, {})", name, t.precision, t.scale);
  }
  return t.precision <= 38 ? decimal128(t.precision, t.scale) : decimal256(t.precision, t.scale);
}

Status Mismatch(const SchemaElement& e, const LogicalType& t) {
  return Status::Invalid("column '{}': logical type {} cannot annotate {}", PrintableName(e.name),
                         LogicalTypeToString(t), TypeName(*e.type));
}

}  // namespace

Result<TypeRef> LeafArrowType(const SchemaElement& e, const ColumnDescriptor& col) {
  const LogicalType t = EffectiveLogicalType(e);
  if (t.kind == Kind::kUnknown) return null();
  switch (col.physical_type) {
    case Type::kBoolean:
      return boolean();
    case Type::kInt32:
      switch (t.kind) {
        case Kind::kNone:
          return int32();
        case Kind::kInteger:
          switch (t.bit_width) {
            case 8:
              return t.is_signed ? int8() : uint8();
            case 16:
              return t.is_signed ? int16() : uint16();
            case 32:
              return t.is_signed ? int32() : uint32();
            default:
              return Mismatch(e, t);
          }
        case Kind::kDate:
          return date32();
        case Kind::kTime:
          if (t.unit != TimeUnitKind::kMillis) return Mismatch(e, t);
          return time32(TimeUnit::kMilli);
        case Kind::kDecimal:
          return DecimalType(t, col.path);
        default:
          return int32();
      }
    case Type::kInt64:
      switch (t.kind) {
        case Kind::kNone:
          return int64();
        case Kind::kInteger:
          if (t.bit_width != 64) return Mismatch(e, t);
          return t.is_signed ? int64() : uint64();
        case Kind::kTime:
          if (t.unit == TimeUnitKind::kMillis) return Mismatch(e, t);
          return time64(ToArrowUnit(t.unit));
        case Kind::kTimestamp:
          return timestamp(ToArrowUnit(t.unit), t.is_adjusted_to_utc ? "UTC" : "");
        case Kind::kDecimal:
          return DecimalType(t, col.path);
        default:
          return int64();
      }
    case Type::kInt96:
      return timestamp(TimeUnit::kNano);
    case Type::kFloat:
      return float32();
    case Type::kDouble:
      return float64();
    case Type::kByteArray:
      switch (t.kind) {
        case Kind::kString:
        case Kind::kJson:
          return utf8();
        case Kind::kDecimal:
          return DecimalType(t, col.path);
        default:
          return binary();
      }
    case Type::kFixedLenByteArray:
      switch (t.kind) {
        case Kind::kDecimal:
          // Wider-than-needed bytes are fine while they only sign-extend
          // (checked per value when decoding).
          return DecimalType(t, col.path);
        case Kind::kFloat16:
          if (col.type_length != 2) return Mismatch(e, t);
          return float16();
        default:
          return fixed_size_binary(col.type_length);
      }
  }
  return Status::Invalid("column '{}': unknown physical type", col.path);
}

namespace {

class NodeBuilder {
 public:
  explicit NodeBuilder(const SchemaDescriptor& schema) : schema_(schema) {}

  // `as_element`: the node is the repeated element of a list (its own
  // repetition makes the list, not another one).
  Result<FieldNode> Make(int index, bool as_element = false) {
    const SchemaNode& n = schema_.node(index);
    if (n.repetition() == Repetition::kRepeated && !as_element) {
      // A repeated field outside a LIST: a non-null list of required values.
      QUIVER_ASSIGN_OR_RAISE(FieldNode element, Make(index, true));
      return ListOf(n.name(), /*nullable=*/false, ParentDef(n), n, std::move(element),
                    FieldNode::Kind::kList);
    }
    const bool nullable = !as_element && n.repetition() == Repetition::kOptional;
    if (n.is_leaf()) {
      FieldNode out;
      out.kind = FieldNode::Kind::kLeaf;
      out.column = n.leaf;
      out.def_level = n.def_level;
      QUIVER_ASSIGN_OR_RAISE(TypeRef type, LeafArrowType(*n.element, schema_.column(n.leaf)));
      out.field = field(n.name(), std::move(type), nullable, Metadata(n));
      return out;
    }
    const LogicalType t = EffectiveLogicalType(*n.element);
    // A LIST or MAP group that is itself the repeated element of a list is
    // a nested (non-null) list.
    if (t.kind == Kind::kList) return ListNode(index, nullable);
    if (t.kind == Kind::kMap) return MapNode(index, nullable);
    // Legacy: MAP_KEY_VALUE on the outer group (it belongs on the repeated one).
    if (!as_element && n.element->converted_type == ConvertedType::kMapKeyValue &&
        n.children.size() == 1 && !schema_.node(n.children[0]).is_leaf() &&
        schema_.node(n.children[0]).repetition() == Repetition::kRepeated) {
      return MapNode(index, nullable);
    }
    return StructNode(index, nullable);
  }

 private:
  static KeyValueMetadata Metadata(const SchemaNode& n) {
    KeyValueMetadata md;
    if (n.element->field_id) md.emplace_back(kFieldIdKey, std::to_string(*n.element->field_id));
    if (n.is_leaf() && n.element->logical_type.kind == Kind::kUuid) {
      // Quiver has no extension types; the metadata keeps the meaning for
      // Arrow readers downstream (pyarrow shows arrow.uuid).
      md.emplace_back("ARROW:extension:name", "arrow.uuid");
      md.emplace_back("ARROW:extension:metadata", "");
    }
    return md;
  }

  int16_t ParentDef(const SchemaNode& n) const {
    return n.parent >= 0 ? schema_.node(n.parent).def_level : 0;
  }

  FieldNode ListOf(const std::string& name, bool nullable, int16_t def_level,
                   const SchemaNode& repeated, FieldNode element, FieldNode::Kind kind,
                   KeyValueMetadata metadata = {}) {
    FieldNode out;
    out.kind = kind;
    out.def_level = def_level;
    out.child_def_level = repeated.def_level;
    out.child_rep_level = repeated.rep_level;
    TypeRef type = kind == FieldNode::Kind::kMap ? map(element.field, false) : list(element.field);
    out.field = field(name, std::move(type), nullable, std::move(metadata));
    out.children.push_back(std::move(element));
    return out;
  }

  Result<FieldNode> StructNode(int index, bool nullable) {
    const SchemaNode& n = schema_.node(index);
    FieldNode out;
    out.kind = FieldNode::Kind::kStruct;
    out.def_level = n.def_level;
    std::vector<FieldRef> fields;
    for (int c : n.children) {
      QUIVER_ASSIGN_OR_RAISE(FieldNode child, Make(c));
      fields.push_back(child.field);
      out.children.push_back(std::move(child));
    }
    if (fields.empty()) {
      return Status::Unsupported("group '{}' without fields", PrintableName(n.name()));
    }
    out.field = field(n.name(), struct_(std::move(fields)), nullable, Metadata(n));
    return out;
  }

  Result<FieldNode> ListNode(int index, bool nullable) {
    const SchemaNode& n = schema_.node(index);
    if (n.children.size() != 1) {
      return Status::Invalid("LIST-annotated group '{}' must have exactly one field, has {}",
                             PrintableName(n.name()), n.children.size());
    }
    const SchemaNode& r = schema_.node(n.children[0]);
    if (r.repetition() != Repetition::kRepeated) {
      return Status::Invalid("the field of LIST-annotated group '{}' must be repeated",
                             PrintableName(n.name()));
    }
    FieldNode element;
    // Backward-compatibility rules: the repeated field is itself the element
    // when it is primitive, has several fields, or is named "array" or
    // "<list>_tuple"; otherwise its one field is (the three-level list).
    const bool two_level = r.is_leaf() || r.children.size() > 1 || r.name() == "array" ||
                           r.name() == n.name() + "_tuple";
    if (two_level) {
      QUIVER_ASSIGN_OR_RAISE(element, Make(n.children[0], /*as_element=*/true));
    } else {
      QUIVER_ASSIGN_OR_RAISE(element, Make(r.children[0]));
    }
    return ListOf(n.name(), nullable, n.def_level, r, std::move(element), FieldNode::Kind::kList,
                  Metadata(n));
  }

  Result<FieldNode> MapNode(int index, bool nullable) {
    const SchemaNode& n = schema_.node(index);
    if (n.children.size() != 1 || schema_.node(n.children[0]).is_leaf() ||
        schema_.node(n.children[0]).repetition() != Repetition::kRepeated) {
      return Status::Invalid("MAP-annotated group '{}' must hold one repeated group",
                             PrintableName(n.name()));
    }
    const SchemaNode& r = schema_.node(n.children[0]);
    if (r.children.size() == 1) {
      // Keys only: a list of keys.
      QUIVER_ASSIGN_OR_RAISE(FieldNode key, Make(r.children[0]));
      return ListOf(n.name(), nullable, n.def_level, r, std::move(key), FieldNode::Kind::kList,
                    Metadata(n));
    }
    QUIVER_ASSIGN_OR_RAISE(FieldNode entries, Make(n.children[0], /*as_element=*/true));
    const bool keys_required = r.children.size() == 2 &&
                               schema_.node(r.children[0]).repetition() == Repetition::kRequired &&
                               schema_.node(r.children[0]).is_leaf();
    if (!keys_required) {
      // Not a valid Arrow map (optional or nested keys, extra fields): a list
      // of key/value structs keeps every value.
      return ListOf(n.name(), nullable, n.def_level, r, std::move(entries), FieldNode::Kind::kList,
                    Metadata(n));
    }
    return ListOf(n.name(), nullable, n.def_level, r, std::move(entries), FieldNode::Kind::kMap,
                  Metadata(n));
  }

  const SchemaDescriptor& schema_;
};

// Base64 (RFC 4648, with padding).
constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Base64Encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = (uint32_t{static_cast<uint8_t>(in[i])} << 16) |
                       (uint32_t{static_cast<uint8_t>(in[i + 1])} << 8) |
                       static_cast<uint8_t>(in[i + 2]);
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += kBase64[(v >> 6) & 63];
    out += kBase64[v & 63];
  }
  if (i < in.size()) {
    uint32_t v = uint32_t{static_cast<uint8_t>(in[i])} << 16;
    if (i + 1 < in.size()) v |= uint32_t{static_cast<uint8_t>(in[i + 1])} << 8;
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < in.size() ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

bool Base64Decode(std::string_view in, std::string* out) {
  int8_t table[256];
  std::fill(table, table + 256, int8_t{-1});
  for (int i = 0; i < 64; ++i) table[static_cast<uint8_t>(kBase64[i])] = static_cast<int8_t>(i);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=' || c == '\n' || c == '\r') continue;
    const int8_t v = table[static_cast<uint8_t>(c)];
    if (v < 0) return false;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return true;
}

}  // namespace

SchemaRef DecodeStoredArrowSchema(const std::vector<KeyValue>& kvs) {
  for (const KeyValue& kv : kvs) {
    if (kv.key != kArrowSchemaKey || !kv.value) continue;
    std::string bytes;
    if (!Base64Decode(*kv.value, &bytes)) return nullptr;
    // Older writers stored the message without the continuation marker.
    if (bytes.size() >= 4 && static_cast<uint8_t>(bytes[0]) != 0xff) {
      bytes.insert(0, "\xff\xff\xff\xff", 4);
    }
    auto buffer = Buffer::CopyFrom(bytes);
    if (!buffer.ok()) return nullptr;
    auto reader = ipc::IpcStreamReader::Open(*buffer, {}, "ARROW:schema");
    if (!reader.ok()) return nullptr;
    return (*reader)->schema();
  }
  return nullptr;
}

Result<std::string> EncodeStoredArrowSchema(const Schema& schema) {
  BufferOutputStream out;
  auto copy = std::make_shared<Schema>(schema);
  QUIVER_ASSIGN_OR_RAISE(auto writer, ipc::IpcWriter::MakeStreamWriter(&out, copy));
  QUIVER_RETURN_NOT_OK(writer->Close());
  // The schema message alone, as Arrow C++ stores it: drop the end-of-stream
  // marker (continuation + zero length).
  std::string bytes = out.Take();
  static const char kEos[8] = {'\xff', '\xff', '\xff', '\xff', 0, 0, 0, 0};
  if (bytes.size() >= 8 && std::memcmp(bytes.data() + bytes.size() - 8, kEos, 8) == 0) {
    bytes.resize(bytes.size() - 8);
  }
  return Base64Encode(bytes);
}

Result<ArrowSchemaInfo> ParquetToArrowSchema(const SchemaDescriptor& schema,
                                             const std::vector<KeyValue>& kvs,
                                             bool use_stored_schema) {
  ArrowSchemaInfo info;
  NodeBuilder builder(schema);
  const SchemaNode& root = schema.root();
  SchemaRef stored = use_stored_schema ? DecodeStoredArrowSchema(kvs) : nullptr;
  if (stored && stored->num_fields() != static_cast<int>(root.children.size())) stored = nullptr;
  auto out = std::make_shared<Schema>();
  for (size_t i = 0; i < root.children.size(); ++i) {
    const int c = root.children[i];
    QUIVER_ASSIGN_OR_RAISE(FieldNode node, builder.Make(c));
    FieldRef f = node.field;
    if (stored) f = MergeStoredField(f, stored->field(static_cast<int>(i)));
    out->fields.push_back(std::move(f));
    info.leaves.push_back(schema.LeavesUnder(c));
    info.fields.push_back(std::move(node));
  }
  if (stored) {
    // As Arrow C++ does: the stored schema's metadata replaces the footer's.
    out->metadata = stored->metadata;
  } else {
    for (const KeyValue& kv : kvs) {
      if (kv.key == kArrowSchemaKey) continue;
      out->metadata.emplace_back(kv.key, kv.value.value_or(""));
    }
  }
  info.schema = std::move(out);
  return info;
}

}  // namespace quiver::parquet
