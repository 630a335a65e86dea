#include "formats/parquet/schema_writer.h"

#include <charconv>
#include <cmath>

namespace quiver::parquet {
namespace {

using Kind = LogicalType::Kind;

LogicalType Integer(int bits, bool is_signed) {
  LogicalType t;
  t.kind = Kind::kInteger;
  t.bit_width = static_cast<int8_t>(bits);
  t.is_signed = is_signed;
  return t;
}

LogicalType TimeLike(Kind kind, TimeUnitKind unit, bool utc) {
  LogicalType t;
  t.kind = kind;
  t.unit = unit;
  t.is_adjusted_to_utc = utc;
  return t;
}

LogicalType Simple(Kind kind) {
  LogicalType t;
  t.kind = kind;
  return t;
}

std::optional<ConvertedType> ConvertedFor(const LogicalType& t) {
  switch (t.kind) {
    case Kind::kString:
      return ConvertedType::kUtf8;
    case Kind::kDate:
      return ConvertedType::kDate;
    case Kind::kDecimal:
      return ConvertedType::kDecimal;
    case Kind::kList:
      return ConvertedType::kList;
    case Kind::kMap:
      return ConvertedType::kMap;
    case Kind::kInteger:
      switch (t.bit_width) {
        case 8:
          return t.is_signed ? ConvertedType::kInt8 : ConvertedType::kUint8;
        case 16:
          return t.is_signed ? ConvertedType::kInt16 : ConvertedType::kUint16;
        case 32:
          return t.is_signed ? ConvertedType::kInt32 : ConvertedType::kUint32;
        default:
          return t.is_signed ? ConvertedType::kInt64 : ConvertedType::kUint64;
      }
    case Kind::kTime:
      if (t.unit == TimeUnitKind::kMillis) return ConvertedType::kTimeMillis;
      if (t.unit == TimeUnitKind::kMicros) return ConvertedType::kTimeMicros;
      return std::nullopt;
    case Kind::kTimestamp:
      // The legacy annotation means "adjusted to UTC"; only then is it right.
      if (!t.is_adjusted_to_utc) return std::nullopt;
      if (t.unit == TimeUnitKind::kMillis) return ConvertedType::kTimestampMillis;
      if (t.unit == TimeUnitKind::kMicros) return ConvertedType::kTimestampMicros;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

TimeUnitKind ToParquetUnit(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
    case TimeUnit::kMilli:
      return TimeUnitKind::kMillis;
    case TimeUnit::kMicro:
      return TimeUnitKind::kMicros;
    case TimeUnit::kNano:
      return TimeUnitKind::kNanos;
  }
  return TimeUnitKind::kMillis;
}

class Converter {
 public:
  Status AddField(const Field& f, int field_index, WriterNode* node, std::vector<int>* path,
                  std::vector<std::string>* names, int16_t def, int16_t rep,
                  bool repeated = false) {
    const DataType* type = f.type.get();
    if (type->id == TypeId::kDictionary) type = type->value_type.get();
    SchemaElement e;
    e.name = f.name;
    // Arrow's convention for Parquet field ids (Iceberg's data files carry
    // them): the field's PARQUET:field_id metadata.
    for (const auto& [key, value] : f.metadata) {
      int32_t id = 0;
      if (key == "PARQUET:field_id" &&
          std::from_chars(value.data(), value.data() + value.size(), id).ec == std::errc()) {
        e.field_id = id;
      }
    }
    bool nullable = f.nullable;
    if (type->id == TypeId::kNull) nullable = true;  // only nulls: must be OPTIONAL
    e.repetition_type = repeated   ? Repetition::kRepeated
                        : nullable ? Repetition::kOptional
                                   : Repetition::kRequired;
    node->nullable = nullable && !repeated;
    node->def_level = def + (node->nullable ? 1 : 0);
    node->type = type->id == f.type->id ? f.type : f.type->value_type;
    names->push_back(f.name);
    switch (type->id) {
      case TypeId::kStruct: {
        if (type->children.empty()) {
          return Status::Unsupported("writing struct '{}' without fields to Parquet", f.name);
        }
        node->kind = WriterNode::Kind::kStruct;
        e.num_children = static_cast<int32_t>(type->children.size());
        out_.elements.push_back(std::move(e));
        node->children.resize(type->children.size());
        for (size_t i = 0; i < type->children.size(); ++i) {
          path->push_back(static_cast<int>(i));
          QUIVER_RETURN_NOT_OK(AddField(*type->children[i], field_index, &node->children[i], path,
                                        names, node->def_level, rep));
          path->pop_back();
        }
        break;
      }
      case TypeId::kList:
      case TypeId::kLargeList:
      case TypeId::kListView:
      case TypeId::kLargeListView:
      case TypeId::kFixedSizeList:
      case TypeId::kMap: {
        const bool is_map = type->id == TypeId::kMap;
        node->kind = WriterNode::Kind::kList;
        node->rep_level = static_cast<int16_t>(rep + 1);
        e.num_children = 1;
        e.logical_type = Simple(is_map ? Kind::kMap : Kind::kList);
        e.converted_type = ConvertedFor(e.logical_type);
        out_.elements.push_back(std::move(e));
        SchemaElement r;
        r.name = is_map ? "key_value" : "list";
        r.repetition_type = Repetition::kRepeated;
        r.num_children = is_map ? 2 : 1;
        out_.elements.push_back(std::move(r));
        names->push_back(is_map ? "key_value" : "list");
        node->children.resize(1);
        path->push_back(0);
        const int16_t elem_def = node->def_level + 1;
        if (is_map) {
          // The entries struct is the repeated group itself.
          const DataType& entries = *type->children[0]->type;
          WriterNode& en = node->children[0];
          en.kind = WriterNode::Kind::kStruct;
          en.type = type->children[0]->type;
          en.nullable = false;
          en.def_level = elem_def;
          en.children.resize(2);
          for (int i = 0; i < 2; ++i) {
            path->push_back(i);
            FieldRef child = entries.children[i];
            if (i == 0 && child->nullable) {
              auto key = std::make_shared<Field>(*child);
              key->nullable = false;
              child = key;
            }
            auto renamed = std::make_shared<Field>(*child);
            renamed->name = i == 0 ? "key" : "value";
            QUIVER_RETURN_NOT_OK(AddField(*renamed, field_index, &en.children[i], path, names,
                                          elem_def, node->rep_level));
            path->pop_back();
          }
        } else {
          auto element = std::make_shared<Field>(*type->children[0]);
          element->name = "element";
          QUIVER_RETURN_NOT_OK(AddField(*element, field_index, &node->children[0], path, names,
                                        elem_def, node->rep_level));
        }
        path->pop_back();
        names->pop_back();
        break;
      }
      default: {
        QUIVER_RETURN_NOT_OK(LeafElement(f.name, *type, &e));
        node->kind = WriterNode::Kind::kLeaf;
        node->leaf = static_cast<int>(out_.leaves.size());
        WriterSchema::Leaf leaf;
        leaf.field = field_index;
        leaf.path = *path;
        leaf.physical_type = *e.type;
        leaf.type_length = e.type_length.value_or(0);
        leaf.max_def_level = node->def_level;
        leaf.max_rep_level = rep;
        leaf.arrow_type = node->type;
        leaf.logical_type = e.logical_type;
        leaf.path_in_schema = *names;
        out_.leaves.push_back(std::move(leaf));
        out_.elements.push_back(std::move(e));
        break;
      }
    }
    names->pop_back();
    return Status::OK();
  }

  Status LeafElement(const std::string& name, const DataType& t, SchemaElement* e) {
    auto set = [&](Type physical, LogicalType logical = {}) {
      e->type = physical;
      e->logical_type = logical;
      e->converted_type = ConvertedFor(logical);
    };
    switch (t.id) {
      case TypeId::kNull:
        set(Type::kInt32, Simple(Kind::kUnknown));
        break;
      case TypeId::kBool:
        set(Type::kBoolean);
        break;
      case TypeId::kInt8:
        set(Type::kInt32, Integer(8, true));
        break;
      case TypeId::kInt16:
        set(Type::kInt32, Integer(16, true));
        break;
      case TypeId::kInt32:
        set(Type::kInt32, Integer(32, true));
        break;
      case TypeId::kUInt8:
        set(Type::kInt32, Integer(8, false));
        break;
      case TypeId::kUInt16:
        set(Type::kInt32, Integer(16, false));
        break;
      case TypeId::kUInt32:
        set(Type::kInt32, Integer(32, false));
        break;
      case TypeId::kInt64:
        set(Type::kInt64, Integer(64, true));
        break;
      case TypeId::kUInt64:
        set(Type::kInt64, Integer(64, false));
        break;
      case TypeId::kHalfFloat:
        set(Type::kFixedLenByteArray, Simple(Kind::kFloat16));
        e->type_length = 2;
        break;
      case TypeId::kFloat:
        set(Type::kFloat);
        break;
      case TypeId::kDouble:
        set(Type::kDouble);
        break;
      case TypeId::kString:
      case TypeId::kLargeString:
      case TypeId::kStringView:
        set(Type::kByteArray, Simple(Kind::kString));
        break;
      case TypeId::kBinary:
      case TypeId::kLargeBinary:
      case TypeId::kBinaryView:
        set(Type::kByteArray);
        break;
      case TypeId::kFixedSizeBinary:
        set(Type::kFixedLenByteArray);
        e->type_length = t.byte_width;
        break;
      case TypeId::kDate32:
      case TypeId::kDate64:
        set(Type::kInt32, Simple(Kind::kDate));
        break;
      case TypeId::kTime32:
        set(Type::kInt32, TimeLike(Kind::kTime, TimeUnitKind::kMillis, false));
        break;
      case TypeId::kTime64:
        set(Type::kInt64, TimeLike(Kind::kTime, ToParquetUnit(t.unit), false));
        break;
      case TypeId::kTimestamp:
        set(Type::kInt64, TimeLike(Kind::kTimestamp, ToParquetUnit(t.unit), !t.timezone.empty()));
        break;
      case TypeId::kDuration:
        set(Type::kInt64);
        break;
      case TypeId::kDecimal32:
      case TypeId::kDecimal64:
      case TypeId::kDecimal128:
      case TypeId::kDecimal256: {
        LogicalType d = Simple(Kind::kDecimal);
        d.precision = t.precision;
        d.scale = t.scale;
        set(Type::kFixedLenByteArray, d);
        e->type_length = DecimalByteWidth(t.precision);
        e->precision = t.precision;
        e->scale = t.scale;
        break;
      }
      case TypeId::kIntervalMonths:
      case TypeId::kIntervalDayTime:
        e->type = Type::kFixedLenByteArray;
        e->type_length = 12;
        e->converted_type = ConvertedType::kInterval;
        break;
      default:
        return Status::Unsupported("writing {} (field '{}') to Parquet", t.ToString(), name);
    }
    return Status::OK();
  }

  WriterSchema out_;
};

}  // namespace

int32_t DecimalByteWidth(int32_t precision) {
  // Smallest n with 10^precision <= 2^(8n - 1).
  for (int32_t n = 1; n <= 32; ++n) {
    if (static_cast<double>(precision) <= (8.0 * n - 1) * std::log10(2.0)) return n;
  }
  return 32;
}

Result<WriterSchema> ArrowToParquetSchema(const Schema& schema) {
  Converter c;
  SchemaElement root;
  root.name = "schema";
  root.num_children = schema.num_fields();
  c.out_.elements.push_back(std::move(root));
  c.out_.fields.resize(schema.fields.size());
  for (int i = 0; i < schema.num_fields(); ++i) {
    std::vector<int> path;
    std::vector<std::string> names;
    QUIVER_RETURN_NOT_OK(c.AddField(*schema.field(i), i, &c.out_.fields[i], &path, &names, 0, 0));
  }
  return std::move(c.out_);
}

}  // namespace quiver::parquet
