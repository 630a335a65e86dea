#include "vector/sql_type.h"

#include <algorithm>

#include "vector/json_type.h"

namespace quiver {

bool IsEngineType(const DataType& t) {
  switch (t.id) {
    case TypeId::kNull:
    case TypeId::kBool:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kDate32:
    case TypeId::kIntervalMonthDayNano:
    case TypeId::kDecimal128:
      return true;
    case TypeId::kTime64:
    case TypeId::kTimestamp:
      return t.unit == TimeUnit::kMicro;
    case TypeId::kList: {
      // SQL arrays: list<item: engine type>, the element nullable.
      const Field& item = *t.children[0];
      return item.name == "item" && item.nullable && item.type->id != TypeId::kNull &&
             IsEngineType(*item.type);
    }
    case TypeId::kStruct:
      // Composite values from files: struct<f: engine type, ...>, every field nullable.
      if (t.children.empty()) return false;
      for (const FieldRef& f : t.children) {
        if (!f->nullable || f->type->id == TypeId::kNull || !IsEngineType(*f->type)) return false;
      }
      return true;
    case TypeId::kMap: {
      // map<entries: struct<key: K not null, value: V>> (keys unsorted).
      const DataType& entries = *t.children[0]->type;
      return !t.keys_sorted && entries.children.size() == 2 &&
             entries.children[0]->type->id != TypeId::kNull && IsEngineType(*entries.children[0]->type) &&
             entries.children[1]->nullable && entries.children[1]->type->id != TypeId::kNull &&
             IsEngineType(*entries.children[1]->type);
    }
    default:
      return false;
  }
}

bool IsNestedSqlType(const DataType& t) {
  return t.id == TypeId::kList || t.id == TypeId::kStruct || t.id == TypeId::kMap;
}

TypeRef ArrayOf(const TypeRef& element) { return list(field("item", element, true)); }

bool IsArrayType(const DataType& t) { return t.id == TypeId::kList; }

const TypeRef& ArrayElementType(const DataType& t) { return t.children[0]->type; }

TypeRef ArrayLeafType(const TypeRef& t) {
  TypeRef x = t;
  while (x->id == TypeId::kList) x = x->children[0]->type;
  return x;
}

int ArrayDimensions(const DataType& t) {
  int d = 0;
  const DataType* x = &t;
  while (x->id == TypeId::kList) {
    ++d;
    x = x->children[0]->type.get();
  }
  return d;
}

Result<TypeRef> ToEngineType(const TypeRef& t) {
  if (IsEngineType(*t)) {
    if (t->id == TypeId::kTimestamp && !t->timezone.empty() && t->timezone != "UTC") {
      return timestamp(TimeUnit::kMicro, "UTC");
    }
    return t;
  }
  switch (t->id) {
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return int16();
    case TypeId::kUInt16:
      return int32();
    case TypeId::kUInt32:
      return int64();
    case TypeId::kUInt64:
      return decimal128(20, 0);
    case TypeId::kHalfFloat:
      return float32();
    case TypeId::kLargeString:
    case TypeId::kStringView:
      return utf8();
    case TypeId::kLargeBinary:
    case TypeId::kBinaryView:
    case TypeId::kFixedSizeBinary:
      return binary();
    case TypeId::kDate64:
      return date32();
    case TypeId::kTime32:
    case TypeId::kTime64:
      return time64(TimeUnit::kMicro);
    case TypeId::kTimestamp:
      return timestamp(TimeUnit::kMicro, t->timezone.empty() ? "" : "UTC");
    case TypeId::kDuration:
    case TypeId::kIntervalMonths:
    case TypeId::kIntervalDayTime:
      return month_day_nano_interval();
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
      return decimal128(t->precision, t->scale);
    case TypeId::kDecimal256:
      if (t->precision <= kMaxDecimalPrecision) return decimal128(t->precision, t->scale);
      return float64();
    case TypeId::kDictionary:
      return ToEngineType(t->value_type);
    case TypeId::kRunEndEncoded:
      return ToEngineType(t->children[1]->type);
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kListView:
    case TypeId::kLargeListView:
    case TypeId::kFixedSizeList: {
      // Lists of a readable element type are SQL arrays (list<item: T>).
      auto element = ToEngineType(t->children[0]->type);
      if (!element.ok() || (*element)->id == TypeId::kNull) {
        return Status::Unsupported("columns of type {} in queries", t->ToString());
      }
      return ArrayOf(*element);
    }
    case TypeId::kStruct: {
      // Structs of readable fields are composite values (fields nullable).
      std::vector<FieldRef> fields;
      for (const FieldRef& f : t->children) {
        auto ft = ToEngineType(f->type);
        if (!ft.ok() || (*ft)->id == TypeId::kNull) {
          return Status::Unsupported("columns of type {} in queries", t->ToString());
        }
        fields.push_back(field(f->name, *ft, true));
      }
      if (fields.empty()) return Status::Unsupported("columns of type {} in queries", t->ToString());
      return struct_(std::move(fields));
    }
    case TypeId::kMap: {
      const DataType& entries = *t->children[0]->type;
      auto k = ToEngineType(entries.children[0]->type);
      auto v = ToEngineType(entries.children[1]->type);
      if (!k.ok() || !v.ok() || (*k)->id == TypeId::kNull || (*v)->id == TypeId::kNull) {
        return Status::Unsupported("columns of type {} in queries", t->ToString());
      }
      return map(*k, *v);
    }
    default:
      return Status::Unsupported("columns of type {} in queries", t->ToString());
  }
}

std::string PgTypeName(const DataType& t) {
  switch (t.id) {
    case TypeId::kNull:
      return "unknown";
    case TypeId::kBool:
      return "boolean";
    case TypeId::kInt16:
      return "smallint";
    case TypeId::kInt32:
      return "integer";
    case TypeId::kInt64:
      return "bigint";
    case TypeId::kFloat:
      return "real";
    case TypeId::kDouble:
      return "double precision";
    case TypeId::kDecimal128:
      return "numeric";
    case TypeId::kString:
      if (IsJson(t)) return "json";
      if (IsJsonb(t)) return "jsonb";
      return "text";
    case TypeId::kBinary:
      return "bytea";
    case TypeId::kDate32:
      return "date";
    case TypeId::kTime64:
      return "time without time zone";
    case TypeId::kTimestamp:
      return t.timezone.empty() ? "timestamp without time zone" : "timestamp with time zone";
    case TypeId::kIntervalMonthDayNano:
      return "interval";
    case TypeId::kList:
      // PostgreSQL names an array by its element type; a list of lists
      // (which PostgreSQL has not) adds one [] per level.
      return PgTypeName(*t.children[0]->type) + "[]";
    case TypeId::kStruct: {
      // PostgreSQL names a composite by its type; an anonymous one is a record.
      std::string s = "struct(";
      for (size_t i = 0; i < t.children.size(); ++i) {
        if (i > 0) s += ", ";
        s += t.children[i]->name + " " + PgTypeName(*t.children[i]->type);
      }
      return s + ")";
    }
    case TypeId::kMap: {
      const DataType& entries = *t.children[0]->type;
      return "map(" + PgTypeName(*entries.children[0]->type) + ", " +
             PgTypeName(*entries.children[1]->type) + ")";
    }
    default:
      return t.ToString();
  }
}

std::string PgTypeNameWithModifiers(const DataType& t) {
  if (t.id == TypeId::kDecimal128) return fmt::format("numeric({},{})", t.precision, t.scale);
  if (t.id == TypeId::kList) return PgTypeNameWithModifiers(*t.children[0]->type) + "[]";
  return PgTypeName(t);
}

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

Result<TypeRef> TypeFromSqlName(const std::string& raw_name, const std::vector<int>& mods) {
  const std::string name = Lower(raw_name);
  if (name == "int" || name == "int4" || name == "integer" || name == "serial") return int32();
  if (name == "int2" || name == "smallint" || name == "smallserial") return int16();
  if (name == "int8" || name == "bigint" || name == "bigserial") return int64();
  if (name == "float4" || name == "real") return float32();
  if (name == "float8" || name == "double precision" || name == "double") return float64();
  if (name == "float") {
    // float(p): p <= 24 is real, else double precision.
    if (!mods.empty() && mods[0] >= 1 && mods[0] <= 24) return float32();
    return float64();
  }
  if (name == "numeric" || name == "decimal") {
    if (mods.empty()) return decimal128(kMaxDecimalPrecision, 6);
    const int p = mods[0];
    const int s = mods.size() > 1 ? mods[1] : 0;
    if (p < 1 || p > kMaxDecimalPrecision) {
      return Status::Invalid("NUMERIC precision {} must be between 1 and {}", p,
                             kMaxDecimalPrecision)
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    if (s < 0 || s > p)
      return Status::Invalid("NUMERIC scale {} must be between 0 and precision {}", s, p)
          .WithSqlState(sqlstate::kInvalidParameterValue);
    return decimal128(p, s);
  }
  if (!mods.empty() && (name == "varchar" || name == "character varying" || name == "char" ||
                        name == "bpchar" || name == "character")) {
    // varchar(n) / char(n): PostgreSQL's limits on n (Quiver keeps both as
    // text; an explicit cast cuts to n characters).
    const char* type = name == "varchar" || name == "character varying" ? "varchar" : "char";
    if (mods[0] < 1) {
      return Status::Invalid("length for type {} must be at least 1", type)
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    if (mods[0] > 10485760) {
      return Status::Invalid("length for type {} cannot exceed 10485760", type)
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
  }
  if (name == "text" || name == "varchar" || name == "char" || name == "bpchar" ||
      name == "character" || name == "character varying" || name == "string" ||
      name == "name") {
    return utf8();
  }
  if (name == "json") return json_type();
  if (name == "jsonb") return jsonb_type();
  if (name == "bool" || name == "boolean") return boolean();
  if (name == "bytea" || name == "blob") return binary();
  if (name == "date") return date32();
  if (name == "time" || name == "time without time zone") return time64(TimeUnit::kMicro);
  if (name == "timestamp" || name == "timestamp without time zone" || name == "datetime") {
    return timestamp(TimeUnit::kMicro);
  }
  if (name == "timestamptz" || name == "timestamp with time zone") {
    return timestamp(TimeUnit::kMicro, "UTC");
  }
  if (name == "interval") return month_day_nano_interval();
  return Status::KeyError("type \"{}\" does not exist", raw_name)
      .WithSqlState(sqlstate::kUndefinedObject);
}

TypeCategory CategoryOf(const DataType& t) {
  switch (t.id) {
    case TypeId::kBool:
      return TypeCategory::kBoolean;
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal128:
      return TypeCategory::kNumeric;
    case TypeId::kString:
      return TypeCategory::kString;
    case TypeId::kBinary:
      return TypeCategory::kBinary;
    case TypeId::kDate32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
      return TypeCategory::kDateTime;
    case TypeId::kIntervalMonthDayNano:
      return TypeCategory::kTimespan;
    default:
      return TypeCategory::kUnknown;
  }
}

bool IsIntegerType(const DataType& t) {
  return t.id == TypeId::kInt16 || t.id == TypeId::kInt32 || t.id == TypeId::kInt64;
}
bool IsNumericType(const DataType& t) { return CategoryOf(t) == TypeCategory::kNumeric; }
bool IsTemporalType(const DataType& t) {
  return t.id == TypeId::kDate32 || t.id == TypeId::kTime64 || t.id == TypeId::kTimestamp;
}
bool IsStringType(const DataType& t) { return t.id == TypeId::kString; }

int NumericRank(const DataType& t) {
  switch (t.id) {
    case TypeId::kInt16:
      return 1;
    case TypeId::kInt32:
      return 2;
    case TypeId::kInt64:
      return 3;
    case TypeId::kDecimal128:
      return 4;
    case TypeId::kFloat:
      return 5;
    case TypeId::kDouble:
      return 6;
    default:
      return 0;
  }
}

bool CanCastImplicitly(const DataType& from, const DataType& to) {
  if (from.id == TypeId::kNull) return true;
  if (from.Equals(to)) return true;
  if (IsNumericType(from) && IsNumericType(to)) {
    if (from.id == TypeId::kDecimal128 && to.id == TypeId::kDecimal128) return true;
    return NumericRank(from) < NumericRank(to);
  }
  if (from.id == TypeId::kDate32 && to.id == TypeId::kTimestamp) return true;
  if (from.id == TypeId::kTimestamp && to.id == TypeId::kTimestamp) return true;
  if (from.id == TypeId::kList && to.id == TypeId::kList) {
    return CanCastImplicitly(*from.children[0]->type, *to.children[0]->type);
  }
  return false;
}

TypeRef DecimalTypeFor(const DataType& t) {
  switch (t.id) {
    case TypeId::kInt16:
      return decimal128(5, 0);
    case TypeId::kInt32:
      return decimal128(10, 0);
    case TypeId::kInt64:
      return decimal128(19, 0);
    case TypeId::kDecimal128:
      return decimal128(t.precision, t.scale);
    default:
      return decimal128(kMaxDecimalPrecision, 6);
  }
}

Result<TypeRef> CommonSuperType(const TypeRef& a, const TypeRef& b, const char* context) {
  if (a->id == TypeId::kNull) return b;
  if (b->id == TypeId::kNull) return a;
  if (a->Equals(*b)) return a;
  if (IsNumericType(*a) && IsNumericType(*b)) {
    if (a->id == TypeId::kDecimal128 || b->id == TypeId::kDecimal128) {
      if (NumericRank(*a) > 4 || NumericRank(*b) > 4) {
        return NumericRank(*a) >= NumericRank(*b) ? a : b;
      }
      // Both exact: a decimal wide enough for the integer digits and the
      // scale of either side.
      TypeRef da = DecimalTypeFor(*a), db = DecimalTypeFor(*b);
      const int scale = std::max(da->scale, db->scale);
      const int int_digits = std::max(da->precision - da->scale, db->precision - db->scale);
      return decimal128(std::min(kMaxDecimalPrecision, int_digits + scale), scale);
    }
    return NumericRank(*a) >= NumericRank(*b) ? a : b;
  }
  if (a->id == TypeId::kTimestamp && b->id == TypeId::kTimestamp) {
    return a->timezone.empty() ? b : a;  // timestamptz wins
  }
  if (a->id == TypeId::kDate32 && b->id == TypeId::kTimestamp) return b;
  if (a->id == TypeId::kTimestamp && b->id == TypeId::kDate32) return a;
  if (a->id == TypeId::kList && b->id == TypeId::kList) {
    auto e = CommonSuperType(a->children[0]->type, b->children[0]->type, context);
    if (e.ok()) return ArrayOf(*e);
  }
  return Status::TypeError("{} types {} and {} cannot be matched", context, PgTypeName(*a),
                           PgTypeName(*b))
      .WithSqlState(sqlstate::kDatatypeMismatch);
}

}  // namespace quiver
