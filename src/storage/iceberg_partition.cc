#include "storage/iceberg_partition.h"

#include <set>

#include "common/calendar.h"

namespace quiver::iceberg {

namespace {

constexpr int64_t kMicrosPerHour = int64_t{3600} * 1000000;

bool Temporal(const DataType& t) { return t.id == TypeId::kDate32 || t.id == TypeId::kTimestamp; }

// Days since 1970-01-01 of a date or timestamp value.
int64_t DaysOf(const Value& v) {
  return v.type()->id == TypeId::kDate32 ? v.integer() : FloorDiv(v.integer(), kMicrosPerDay);
}

// A source value of type `t` at the start of day `days` (dates: the day).
Value AtDay(const DataType& t, int64_t days) {
  if (t.id == TypeId::kDate32) return Value::Date(static_cast<int32_t>(days));
  return Value::Timestamp(days * kMicrosPerDay, !t.timezone.empty());
}

// The last source value of type `t` before day `days` starts.
Value BeforeDay(const DataType& t, int64_t days) {
  if (t.id == TypeId::kDate32) return Value::Date(static_cast<int32_t>(days - 1));
  return Value::Timestamp(days * kMicrosPerDay - 1, !t.timezone.empty());
}

}  // namespace

TypeRef PartitionValueType(const std::string& transform, const DataType& source) {
  if (transform == "identity") {
    if (source.id == TypeId::kFloat || source.id == TypeId::kDouble) return nullptr;
    auto iceberg = IcebergTypeOf(source);
    if (!iceberg.ok()) return nullptr;
    auto t = EngineTypeOf(*iceberg);
    return t.ok() ? *t : nullptr;
  }
  if (transform == "year" || transform == "month") return Temporal(source) ? int32() : nullptr;
  if (transform == "day") return Temporal(source) ? date32() : nullptr;
  if (transform == "hour") return source.id == TypeId::kTimestamp ? int32() : nullptr;
  return nullptr;
}

bool BoundSpec::writable() const {
  for (const TypeRef& t : type.types) {
    if (t == nullptr) return false;
  }
  return true;
}

Result<PartitionSpec> SpecOf(const TablePartitioning& partitioning, const Schema& schema,
                             const std::vector<SchemaField>& fields) {
  PartitionSpec spec;
  std::set<std::string> names;
  for (const auto& f : schema.fields) names.insert(f->name);
  for (const PartitionKeyColumn& k : partitioning) {
    const Field& column = *schema.field(k.column);
    if (PartitionValueType(k.transform, *column.type) == nullptr) {
      return Status::Unsupported("partitioning a --db table by {} of column \"{}\" of type {}",
                                 k.transform == "identity" ? "the values" : k.transform,
                                 column.name, column.type->ToString())
          .WithSqlState(sqlstate::kFeatureNotSupported);
    }
    PartitionField f;
    f.source_id = fields[static_cast<size_t>(k.column)].id;
    f.field_id = 1000 + static_cast<int>(spec.fields.size());
    f.transform = k.transform;
    if (k.transform == "identity") {
      f.name = column.name;
    } else {
      // Iceberg's default names; a name a column or an earlier field has
      // takes a suffix (partition names must not collide with columns').
      f.name = column.name + "_" + k.transform;
      const std::string base = f.name;
      for (int n = 1; names.count(f.name) > 0; ++n) f.name = base + "_" + std::to_string(n);
    }
    names.insert(f.name);
    spec.fields.push_back(std::move(f));
  }
  return spec;
}

BoundSpec BindSpec(const PartitionSpec& spec, const std::vector<SchemaField>& fields,
                   const Schema& schema) {
  BoundSpec out;
  out.type.spec_id = spec.spec_id;
  out.type.fields = spec.fields;
  for (const PartitionField& f : spec.fields) {
    const int column = FieldPosition(fields, f.source_id);
    out.source_columns.push_back(column);
    out.type.types.push_back(
        column < 0 ? nullptr : PartitionValueType(f.transform, *schema.field(column)->type));
  }
  return out;
}

Value TransformValue(const std::string& transform, const Value& v) {
  if (transform == "identity") return v;
  if (transform == "hour") return Value::Int32(static_cast<int32_t>(FloorDiv(v.integer(), kMicrosPerHour)));
  const int64_t days = DaysOf(v);
  if (transform == "day") return Value::Date(static_cast<int32_t>(days));
  const CivilDate d = CivilFromDays(days);
  if (transform == "year") return Value::Int32(static_cast<int32_t>(d.year - 1970));
  return Value::Int32(static_cast<int32_t>((d.year - 1970) * 12 + (d.month - 1)));  // month
}

std::optional<Value> PartitionValueAs(const std::optional<Value>& raw, const TypeRef& type) {
  if (!raw.has_value() || type == nullptr) return std::nullopt;
  const Value& v = *raw;
  if (v.is_null()) return Value();
  if (v.type()->Equals(*type)) return v;  // written by this process
  const TypeId from = v.type()->id;
  const bool integer = from == TypeId::kInt32 || from == TypeId::kInt64;
  switch (type->id) {
    case TypeId::kInt32:
      if (from == TypeId::kInt32) return v;
      break;
    case TypeId::kInt64:
    case TypeId::kDate32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
      if (integer || from == type->id) return Value::Integer(type, v.integer());
      break;
    case TypeId::kBool:
      if (from == TypeId::kBool) return v;
      break;
    case TypeId::kString:
      if (from == TypeId::kString) return v;
      break;
    case TypeId::kBinary:
      if (from == TypeId::kBinary) return v;
      break;
    case TypeId::kDecimal128:
      if (from == TypeId::kDecimal128 && v.type()->scale == type->scale) {
        return Value::Decimal(v.decimal(), type->precision, type->scale);
      }
      if (from == TypeId::kBinary) {
        auto d = DeserializeBound(type, v.str());
        if (d.ok()) return *d;
      }
      break;
    default:
      break;
  }
  return std::nullopt;
}

std::optional<std::pair<Value, Value>> SourceRange(const std::string& transform,
                                                   const Value& value, const DataType& source) {
  if (transform == "identity") return std::make_pair(value, value);
  if (!Temporal(source)) return std::nullopt;
  const int64_t v = value.integer();
  // Days a timestamp can reach (microseconds since 1970 in an int64: about
  // +-292,000 years); a manifest's value outside them prunes nothing.
  constexpr int64_t kMaxDays = 100'000'000;
  if (source.id == TypeId::kTimestamp && transform != "hour" &&
      (v > kMaxDays / 366 * (transform == "day" ? 366 : 1) ||
       v < -kMaxDays / 366 * (transform == "day" ? 366 : 1))) {
    return std::nullopt;
  }
  if (transform == "day") return std::make_pair(AtDay(source, v), BeforeDay(source, v + 1));
  if (transform == "hour") {
    if (source.id != TypeId::kTimestamp) return std::nullopt;
    const bool tz = !source.timezone.empty();
    return std::make_pair(Value::Timestamp(v * kMicrosPerHour, tz),
                          Value::Timestamp((v + 1) * kMicrosPerHour - 1, tz));
  }
  int64_t first = 0;
  int64_t next = 0;
  if (transform == "year") {
    first = DaysFromCivil(1970 + v, 1, 1);
    next = DaysFromCivil(1971 + v, 1, 1);
  } else if (transform == "month") {
    const int64_t year = 1970 + FloorDiv(v, 12);
    const auto month = static_cast<unsigned>(FloorMod(v, 12) + 1);
    first = DaysFromCivil(year, month, 1);
    next = month == 12 ? DaysFromCivil(year + 1, 1, 1) : DaysFromCivil(year, month + 1, 1);
  } else {
    return std::nullopt;
  }
  return std::make_pair(AtDay(source, first), BeforeDay(source, next));
}

}  // namespace quiver::iceberg
