#include "storage/iceberg_metadata.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <random>

#include <nlohmann/json.hpp>

#include "columnar/extension_type.h"

namespace quiver::iceberg {

namespace {

using Json = nlohmann::json;

constexpr const char* kFieldIdKey = "PARQUET:field_id";

void PutLE(uint64_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetLE(const std::string& b) {
  uint64_t v = 0;
  for (size_t i = 0; i < b.size(); ++i) v |= uint64_t{static_cast<uint8_t>(b[i])} << (8 * i);
  return v;
}

// Accessors that check the JSON's shape (the metadata file is input).
Status Missing(const std::string& what, const char* key) {
  return Status::Invalid("Iceberg metadata {}: missing or malformed \"{}\"", what, key);
}

Status GetInt64(const Json& o, const char* key, const std::string& what, int64_t* out) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number_integer()) return Missing(what, key);
  *out = it->get<int64_t>();
  return Status::OK();
}

Status GetString(const Json& o, const char* key, const std::string& what, std::string* out) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_string()) return Missing(what, key);
  *out = it->get<std::string>();
  return Status::OK();
}

}  // namespace

Result<std::string> IcebergTypeOf(const DataType& t) {
  if (!ExtensionName(t).empty()) {
    return Status::Unsupported("columns of type json or jsonb in a --db table");
  }
  switch (t.id) {
    case TypeId::kBool: return std::string("boolean");
    case TypeId::kInt32: return std::string("int");
    case TypeId::kInt64: return std::string("long");
    case TypeId::kFloat: return std::string("float");
    case TypeId::kDouble: return std::string("double");
    case TypeId::kString: return std::string("string");
    case TypeId::kBinary: return std::string("binary");
    case TypeId::kDate32: return std::string("date");
    case TypeId::kTime64:
      if (t.unit == TimeUnit::kMicro) return std::string("time");
      break;
    case TypeId::kTimestamp:
      if (t.unit == TimeUnit::kMicro) return std::string(t.timezone.empty() ? "timestamp" : "timestamptz");
      break;
    case TypeId::kDecimal128:
      if (t.precision <= 38) return fmt::format("decimal({},{})", t.precision, t.scale);
      break;
    default:
      break;
  }
  return Status::Unsupported(
      "columns of type {} in a --db table (Iceberg tables hold boolean, integer, bigint, real, "
      "double precision, numeric, text, bytea, date, time, timestamp and timestamptz)",
      t.ToString());
}

Result<TypeRef> EngineTypeOf(const std::string& s) {
  if (s == "boolean") return boolean();
  if (s == "int") return int32();
  if (s == "long") return int64();
  if (s == "float") return float32();
  if (s == "double") return float64();
  if (s == "string") return utf8();
  if (s == "binary") return binary();
  if (s == "date") return date32();
  if (s == "time") return time64(TimeUnit::kMicro);
  if (s == "timestamp") return timestamp(TimeUnit::kMicro);
  if (s == "timestamptz") return timestamp(TimeUnit::kMicro, "UTC");
  int p = 0;
  int sc = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "decimal(%d,%d%c", &p, &sc, &tail) == 3 && tail == ')' && p >= 1 &&
      p <= 38 && sc >= 0 && sc <= p) {
    return decimal128(p, sc);
  }
  return Status::Unsupported("Iceberg columns of type {}", s);
}

Result<std::string> SerializeBound(const Value& v) {
  if (v.is_null()) return Status::Invalid("internal error: a null bound");
  const DataType& t = *v.type();
  std::string out;
  switch (t.id) {
    case TypeId::kBool:
      out.push_back(v.boolean() ? 1 : 0);
      return out;
    case TypeId::kInt32:
    case TypeId::kDate32:
      PutLE(static_cast<uint32_t>(static_cast<int32_t>(v.integer())), 4, &out);
      return out;
    case TypeId::kInt64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
      PutLE(static_cast<uint64_t>(v.integer()), 8, &out);
      return out;
    case TypeId::kFloat: {
      const float f = static_cast<float>(v.floating());
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      PutLE(bits, 4, &out);
      return out;
    }
    case TypeId::kDouble: {
      const double d = v.floating();
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      PutLE(bits, 8, &out);
      return out;
    }
    case TypeId::kString:
    case TypeId::kBinary:
      return v.str();
    case TypeId::kDecimal128: {
      // Big-endian two's complement in the fewest bytes that keep the sign.
      const int128_t u = v.decimal();
      std::string be;
      for (int i = 15; i >= 0; --i) {
        be.push_back(static_cast<char>(static_cast<uint8_t>(static_cast<unsigned __int128>(u) >> (8 * i))));
      }
      size_t start = 0;
      while (start + 1 < be.size()) {
        const uint8_t b0 = static_cast<uint8_t>(be[start]);
        const uint8_t b1 = static_cast<uint8_t>(be[start + 1]);
        if ((b0 == 0x00 && (b1 & 0x80) == 0) || (b0 == 0xff && (b1 & 0x80) != 0)) {
          ++start;
        } else {
          break;
        }
      }
      return be.substr(start);
    }
    default:
      return Status::Unsupported("Iceberg bounds of type {}", t.ToString());
  }
}

Result<Value> DeserializeBound(const TypeRef& type, const std::string& b) {
  auto size_is = [&](size_t n) -> Status {
    if (b.size() != n) {
      return Status::Invalid("Iceberg bound of type {}: {} bytes, expected {}", type->ToString(),
                             b.size(), n);
    }
    return Status::OK();
  };
  switch (type->id) {
    case TypeId::kBool:
      QUIVER_RETURN_NOT_OK(size_is(1));
      return Value::Boolean(b[0] != 0);
    case TypeId::kInt32:
      QUIVER_RETURN_NOT_OK(size_is(4));
      return Value::Int32(static_cast<int32_t>(static_cast<uint32_t>(GetLE(b))));
    case TypeId::kDate32:
      QUIVER_RETURN_NOT_OK(size_is(4));
      return Value::Date(static_cast<int32_t>(static_cast<uint32_t>(GetLE(b))));
    case TypeId::kInt64:
      QUIVER_RETURN_NOT_OK(size_is(8));
      return Value::Int64(static_cast<int64_t>(GetLE(b)));
    case TypeId::kTime64:
      QUIVER_RETURN_NOT_OK(size_is(8));
      return Value::Time(static_cast<int64_t>(GetLE(b)));
    case TypeId::kTimestamp:
      QUIVER_RETURN_NOT_OK(size_is(8));
      return Value::Timestamp(static_cast<int64_t>(GetLE(b)), !type->timezone.empty());
    case TypeId::kFloat: {
      QUIVER_RETURN_NOT_OK(size_is(4));
      const uint32_t bits = static_cast<uint32_t>(GetLE(b));
      float f;
      std::memcpy(&f, &bits, 4);
      return Value::Float(f);
    }
    case TypeId::kDouble: {
      QUIVER_RETURN_NOT_OK(size_is(8));
      const uint64_t bits = GetLE(b);
      double d;
      std::memcpy(&d, &bits, 8);
      return Value::Double(d);
    }
    case TypeId::kString:
      return Value::Text(b);
    case TypeId::kBinary:
      return Value::Binary(b);
    case TypeId::kDecimal128: {
      if (b.empty() || b.size() > 16) {
        return Status::Invalid("Iceberg decimal bound of {} bytes", b.size());
      }
      unsigned __int128 u = (static_cast<uint8_t>(b[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
      for (char c : b) u = (u << 8) | static_cast<uint8_t>(c);
      return Value::Decimal(static_cast<int128_t>(u), type->precision, type->scale);
    }
    default:
      return Status::Unsupported("Iceberg bounds of type {}", type->ToString());
  }
}

const Snapshot* TableMetadata::current_snapshot() const {
  if (!current_snapshot_id) return nullptr;
  for (const Snapshot& s : snapshots) {
    if (s.snapshot_id == *current_snapshot_id) return &s;
  }
  return nullptr;
}

Result<SchemaRef> EngineSchema(const TableMetadata& m) {
  std::vector<FieldRef> fields;
  for (const SchemaField& f : m.fields) {
    QUIVER_ASSIGN_OR_RAISE(TypeRef t, EngineTypeOf(f.type));
    fields.push_back(field(f.name, std::move(t), !f.required, {{kFieldIdKey, std::to_string(f.id)}}));
  }
  return schema(std::move(fields));
}

int FieldPosition(const std::vector<SchemaField>& fields, int id) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

Result<std::vector<SchemaField>> FieldsOf(const Schema& s) {
  std::vector<SchemaField> out;
  for (int i = 0; i < s.num_fields(); ++i) {
    const Field& f = *s.field(i);
    QUIVER_ASSIGN_OR_RAISE(std::string t, IcebergTypeOf(*f.type));
    out.push_back({i + 1, f.name, std::move(t), !f.nullable});
  }
  return out;
}

namespace {

Json SchemaObject(const std::vector<SchemaField>& fields, int schema_id) {
  Json s = Json::object();
  s["type"] = "struct";
  s["schema-id"] = schema_id;
  Json fs = Json::array();
  for (const SchemaField& f : fields) {
    Json o = Json::object();
    o["id"] = f.id;
    o["name"] = f.name;
    o["required"] = f.required;
    o["type"] = f.type;
    fs.push_back(std::move(o));
  }
  s["fields"] = std::move(fs);
  return s;
}

Json SpecFields(const PartitionSpec& spec) {
  Json fs = Json::array();
  for (const PartitionField& f : spec.fields) {
    fs.push_back(Json{{"name", f.name},
                      {"transform", f.transform},
                      {"source-id", f.source_id},
                      {"field-id", f.field_id}});
  }
  return fs;
}

std::string Dump(const Json& j, int indent) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

std::string PartitionSpecJson(const PartitionSpec& spec) { return Dump(SpecFields(spec), -1); }

const PartitionSpec* TableMetadata::spec(int spec_id) const {
  for (const PartitionSpec& s : specs) {
    if (s.spec_id == spec_id) return &s;
  }
  return nullptr;
}

std::string SchemaJson(const std::vector<SchemaField>& fields, int schema_id) {
  return Dump(SchemaObject(fields, schema_id), -1);
}

std::string ToJson(const TableMetadata& m) {
  Json j = Json::object();
  j["format-version"] = 2;
  j["table-uuid"] = m.table_uuid;
  j["location"] = m.location;
  j["last-sequence-number"] = m.last_sequence_number;
  j["last-updated-ms"] = m.last_updated_ms;
  j["last-column-id"] = m.last_column_id;
  j["current-schema-id"] = m.schema_id;
  {
    std::vector<std::pair<int, Json>> schemas;
    for (const auto& [id, text] : m.other_schemas) {
      Json o = Json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (!o.is_discarded()) schemas.emplace_back(id, std::move(o));
    }
    schemas.emplace_back(m.schema_id, SchemaObject(m.fields, m.schema_id));
    std::stable_sort(schemas.begin(), schemas.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    Json list = Json::array();
    for (auto& [id, o] : schemas) list.push_back(std::move(o));
    j["schemas"] = std::move(list);
  }
  j["default-spec-id"] = m.default_spec_id;
  Json specs = Json::array();
  for (const PartitionSpec& s : m.specs) {
    specs.push_back(Json{{"spec-id", s.spec_id}, {"fields", SpecFields(s)}});
  }
  j["partition-specs"] = std::move(specs);
  j["last-partition-id"] = m.last_partition_id;
  j["default-sort-order-id"] = 0;
  j["sort-orders"] = Json::array({Json{{"order-id", 0}, {"fields", Json::array()}}});
  Json props = Json::object();
  for (const auto& [k, v] : m.properties) props[k] = v;
  j["properties"] = std::move(props);
  if (m.current_snapshot_id) {
    j["current-snapshot-id"] = *m.current_snapshot_id;
    j["refs"] = Json{{"main", Json{{"snapshot-id", *m.current_snapshot_id}, {"type", "branch"}}}};
  } else {
    j["refs"] = Json::object();
  }
  Json snaps = Json::array();
  for (const Snapshot& s : m.snapshots) {
    Json o = Json::object();
    o["snapshot-id"] = s.snapshot_id;
    if (s.parent_snapshot_id) o["parent-snapshot-id"] = *s.parent_snapshot_id;
    o["sequence-number"] = s.sequence_number;
    o["timestamp-ms"] = s.timestamp_ms;
    o["manifest-list"] = s.manifest_list;
    Json summary = Json::object();
    summary["operation"] = s.operation;
    for (const auto& [k, v] : s.summary) summary[k] = v;
    o["summary"] = std::move(summary);
    o["schema-id"] = s.schema_id;
    snaps.push_back(std::move(o));
  }
  j["snapshots"] = std::move(snaps);
  Json slog = Json::array();
  for (const auto& [ts, id] : m.snapshot_log) slog.push_back(Json{{"timestamp-ms", ts}, {"snapshot-id", id}});
  j["snapshot-log"] = std::move(slog);
  Json mlog = Json::array();
  for (const auto& [ts, file] : m.metadata_log) {
    mlog.push_back(Json{{"timestamp-ms", ts}, {"metadata-file", file}});
  }
  j["metadata-log"] = std::move(mlog);
  return Dump(j, 2);
}

Result<TableMetadata> ParseTableMetadata(const std::string& text, const std::string& what) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Invalid("Iceberg metadata {}: not a JSON object", what);
  }
  TableMetadata m;
  int64_t version = 0;
  QUIVER_RETURN_NOT_OK(GetInt64(j, "format-version", what, &version));
  if (version != 1 && version != 2) {
    return Status::Unsupported("Iceberg format version {} ({})", version, what);
  }
  if (j.contains("table-uuid") && j["table-uuid"].is_string()) m.table_uuid = j["table-uuid"].get<std::string>();
  QUIVER_RETURN_NOT_OK(GetString(j, "location", what, &m.location));
  if (j.contains("last-sequence-number")) {
    QUIVER_RETURN_NOT_OK(GetInt64(j, "last-sequence-number", what, &m.last_sequence_number));
  }
  QUIVER_RETURN_NOT_OK(GetInt64(j, "last-updated-ms", what, &m.last_updated_ms));
  int64_t n = 0;
  QUIVER_RETURN_NOT_OK(GetInt64(j, "last-column-id", what, &n));
  m.last_column_id = static_cast<int>(n);
  // The current schema: "schemas" + "current-schema-id" (v2), or "schema" (v1).
  const Json* schema = nullptr;
  if (j.contains("schemas") && j["schemas"].is_array()) {
    int64_t current = 0;
    QUIVER_RETURN_NOT_OK(GetInt64(j, "current-schema-id", what, &current));
    for (const Json& s : j["schemas"]) {
      if (!s.is_object() || !s.contains("schema-id") || !s["schema-id"].is_number_integer()) continue;
      if (s["schema-id"].get<int64_t>() == current) {
        schema = &s;
      } else {
        m.other_schemas.emplace_back(s["schema-id"].get<int>(), Dump(s, -1));
      }
    }
    m.schema_id = static_cast<int>(current);
  } else if (j.contains("schema") && j["schema"].is_object()) {
    schema = &j["schema"];
  }
  if (schema == nullptr || !schema->contains("fields") || !(*schema)["fields"].is_array()) {
    return Missing(what, "schemas");
  }
  for (const Json& f : (*schema)["fields"]) {
    if (!f.is_object()) return Missing(what, "fields");
    SchemaField sf;
    int64_t id = 0;
    QUIVER_RETURN_NOT_OK(GetInt64(f, "id", what, &id));
    sf.id = static_cast<int>(id);
    QUIVER_RETURN_NOT_OK(GetString(f, "name", what, &sf.name));
    auto t = f.find("type");
    if (t == f.end() || !t->is_string()) {
      return Status::Unsupported("Iceberg column \"{}\" of a nested type ({})", sf.name, what);
    }
    sf.type = t->get<std::string>();
    auto r = f.find("required");
    sf.required = r != f.end() && r->is_boolean() && r->get<bool>();
    m.fields.push_back(std::move(sf));
  }
  // Partition specs: "partition-specs" and "default-spec-id" (v2), or the
  // fields of the one spec in "partition-spec" (v1).
  auto parse_fields = [&](const Json& fields, PartitionSpec* spec) -> Status {
    if (!fields.is_array()) return Missing(what, "partition-specs");
    for (const Json& f : fields) {
      if (!f.is_object()) return Missing(what, "partition-specs");
      PartitionField pf;
      int64_t v = 0;
      QUIVER_RETURN_NOT_OK(GetInt64(f, "source-id", what, &v));
      pf.source_id = static_cast<int>(v);
      // v1 specs may leave field ids out: 1000, 1001, ... in order.
      pf.field_id = 1000 + static_cast<int>(spec->fields.size());
      if (f.contains("field-id")) {
        QUIVER_RETURN_NOT_OK(GetInt64(f, "field-id", what, &v));
        pf.field_id = static_cast<int>(v);
      }
      QUIVER_RETURN_NOT_OK(GetString(f, "name", what, &pf.name));
      QUIVER_RETURN_NOT_OK(GetString(f, "transform", what, &pf.transform));
      spec->fields.push_back(std::move(pf));
    }
    return Status::OK();
  };
  if (j.contains("partition-specs") && j["partition-specs"].is_array()) {
    m.specs.clear();
    for (const Json& s : j["partition-specs"]) {
      if (!s.is_object() || !s.contains("fields")) return Missing(what, "partition-specs");
      PartitionSpec spec;
      int64_t id = 0;
      QUIVER_RETURN_NOT_OK(GetInt64(s, "spec-id", what, &id));
      spec.spec_id = static_cast<int>(id);
      QUIVER_RETURN_NOT_OK(parse_fields(s["fields"], &spec));
      m.specs.push_back(std::move(spec));
    }
    int64_t id = 0;
    if (j.contains("default-spec-id")) QUIVER_RETURN_NOT_OK(GetInt64(j, "default-spec-id", what, &id));
    m.default_spec_id = static_cast<int>(id);
  } else if (j.contains("partition-spec")) {
    m.specs.assign(1, PartitionSpec{});
    QUIVER_RETURN_NOT_OK(parse_fields(j["partition-spec"], &m.specs[0]));
  }
  if (m.default_spec() == nullptr) {
    return Status::Invalid("Iceberg metadata {}: default partition spec {} is not among its specs",
                           what, m.default_spec_id);
  }
  m.last_partition_id = 999;
  for (const PartitionSpec& s : m.specs) {
    for (const PartitionField& f : s.fields) m.last_partition_id = std::max(m.last_partition_id, f.field_id);
  }
  if (j.contains("last-partition-id") && j["last-partition-id"].is_number_integer()) {
    m.last_partition_id = std::max(m.last_partition_id, j["last-partition-id"].get<int>());
  }
  if (j.contains("current-snapshot-id") && j["current-snapshot-id"].is_number_integer()) {
    const int64_t id = j["current-snapshot-id"].get<int64_t>();
    if (id != -1) m.current_snapshot_id = id;
  }
  if (j.contains("snapshots") && j["snapshots"].is_array()) {
    for (const Json& s : j["snapshots"]) {
      if (!s.is_object()) return Missing(what, "snapshots");
      Snapshot snap;
      QUIVER_RETURN_NOT_OK(GetInt64(s, "snapshot-id", what, &snap.snapshot_id));
      if (s.contains("parent-snapshot-id") && s["parent-snapshot-id"].is_number_integer()) {
        snap.parent_snapshot_id = s["parent-snapshot-id"].get<int64_t>();
      }
      if (s.contains("sequence-number")) {
        QUIVER_RETURN_NOT_OK(GetInt64(s, "sequence-number", what, &snap.sequence_number));
      }
      QUIVER_RETURN_NOT_OK(GetInt64(s, "timestamp-ms", what, &snap.timestamp_ms));
      if (!s.contains("manifest-list")) {
        return Status::Unsupported("Iceberg v1 snapshots without a manifest list ({})", what);
      }
      QUIVER_RETURN_NOT_OK(GetString(s, "manifest-list", what, &snap.manifest_list));
      if (s.contains("summary") && s["summary"].is_object()) {
        for (const auto& [k, v] : s["summary"].items()) {
          if (!v.is_string()) continue;
          if (k == "operation") {
            snap.operation = v.get<std::string>();
          } else {
            snap.summary.emplace_back(k, v.get<std::string>());
          }
        }
      }
      if (s.contains("schema-id") && s["schema-id"].is_number_integer()) {
        snap.schema_id = s["schema-id"].get<int>();
      }
      m.snapshots.push_back(std::move(snap));
    }
  }
  if (j.contains("snapshot-log") && j["snapshot-log"].is_array()) {
    for (const Json& e : j["snapshot-log"]) {
      int64_t ts = 0;
      int64_t id = 0;
      QUIVER_RETURN_NOT_OK(GetInt64(e, "timestamp-ms", what, &ts));
      QUIVER_RETURN_NOT_OK(GetInt64(e, "snapshot-id", what, &id));
      m.snapshot_log.emplace_back(ts, id);
    }
  }
  if (j.contains("metadata-log") && j["metadata-log"].is_array()) {
    for (const Json& e : j["metadata-log"]) {
      int64_t ts = 0;
      std::string file;
      QUIVER_RETURN_NOT_OK(GetInt64(e, "timestamp-ms", what, &ts));
      QUIVER_RETURN_NOT_OK(GetString(e, "metadata-file", what, &file));
      m.metadata_log.emplace_back(ts, std::move(file));
    }
  }
  if (j.contains("properties") && j["properties"].is_object()) {
    for (const auto& [k, v] : j["properties"].items()) {
      if (v.is_string()) m.properties.emplace_back(k, v.get<std::string>());
    }
  }
  if (m.current_snapshot_id && m.current_snapshot() == nullptr) {
    return Status::Invalid("Iceberg metadata {}: current snapshot {} is not among its snapshots",
                           what, *m.current_snapshot_id);
  }
  return m;
}

std::string ToJson(const ViewMetadata& v) {
  Json j = Json::object();
  j["view-uuid"] = v.view_uuid;
  j["format-version"] = 1;
  j["location"] = v.location;
  j["current-version-id"] = 1;
  Json version = Json::object();
  version["version-id"] = 1;
  version["timestamp-ms"] = v.timestamp_ms;
  version["schema-id"] = 0;
  version["summary"] = Json{{"engine-name", "quiver"}};
  version["default-namespace"] = Json::array({"public"});
  version["representations"] =
      Json::array({Json{{"type", "sql"}, {"sql", v.sql}, {"dialect", "postgresql"}}});
  j["versions"] = Json::array({std::move(version)});
  j["version-log"] = Json::array({Json{{"version-id", 1}, {"timestamp-ms", v.timestamp_ms}}});
  j["schemas"] = Json::array({SchemaObject(v.fields, 0)});
  j["properties"] = Json::object();
  return Dump(j, 2);
}

Result<ViewMetadata> ParseViewMetadata(const std::string& text, const std::string& what) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Invalid("Iceberg view metadata {}: not a JSON object", what);
  }
  ViewMetadata v;
  int64_t current = 0;
  QUIVER_RETURN_NOT_OK(GetInt64(j, "current-version-id", what, &current));
  if (j.contains("view-uuid") && j["view-uuid"].is_string()) v.view_uuid = j["view-uuid"].get<std::string>();
  QUIVER_RETURN_NOT_OK(GetString(j, "location", what, &v.location));
  const Json* version = nullptr;
  if (j.contains("versions") && j["versions"].is_array()) {
    for (const Json& e : j["versions"]) {
      if (e.is_object() && e.contains("version-id") && e["version-id"].is_number_integer() &&
          e["version-id"].get<int64_t>() == current) {
        version = &e;
      }
    }
  }
  if (version == nullptr) return Missing(what, "versions");
  int64_t schema_id = 0;
  QUIVER_RETURN_NOT_OK(GetInt64(*version, "schema-id", what, &schema_id));
  if (version->contains("representations") && (*version)["representations"].is_array()) {
    for (const Json& r : (*version)["representations"]) {
      if (r.is_object() && r.value("type", "") == "sql" && r.contains("sql") && r["sql"].is_string() &&
          (v.sql.empty() || r.value("dialect", "") == "postgresql")) {
        v.sql = r["sql"].get<std::string>();
      }
    }
  }
  if (v.sql.empty()) return Status::Unsupported("Iceberg view {} without a SQL representation", what);
  if (j.contains("schemas") && j["schemas"].is_array()) {
    for (const Json& s : j["schemas"]) {
      if (!s.is_object() || !s.contains("schema-id") || !s["schema-id"].is_number_integer() ||
          s["schema-id"].get<int64_t>() != schema_id || !s.contains("fields") || !s["fields"].is_array()) {
        continue;
      }
      for (const Json& f : s["fields"]) {
        SchemaField sf;
        QUIVER_RETURN_NOT_OK(GetString(f, "name", what, &sf.name));
        v.fields.push_back(std::move(sf));
      }
    }
  }
  return v;
}

std::string NewUuid() {
  uint8_t b[16];
  std::random_device rd;  // /dev/urandom on Linux
  for (int i = 0; i < 16; i += 4) {
    const uint32_t r = rd();
    std::memcpy(b + i, &r, 4);
  }
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);
  std::string s;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    s += fmt::format("{:02x}", b[i]);
  }
  return s;
}

}  // namespace quiver::iceberg
