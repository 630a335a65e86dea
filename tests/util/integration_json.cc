// Arrow integration JSON: schema parser and batch comparer (see integration_json.h).
#include "util/integration_json.h"

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include <fmt/ranges.h>

namespace quiver::testing {

using nlohmann::json;

// ---------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------

Result<std::string> ReadMaybeGzipFile(const std::string& path) {
  // gzopen reads plain files transparently, so one path serves both.
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return Status::IOError("{}: cannot open", path);
  std::string out;
  char buf[1 << 16];
  while (true) {
    int n = gzread(f, buf, sizeof(buf));
    if (n < 0) {
      int err = 0;
      std::string msg = gzerror(f, &err);
      gzclose(f);
      return Status::IOError("{}: gunzip failed: {}", path, msg);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  gzclose(f);
  return out;
}

// ---------------------------------------------------------------------------
// Schema parsing
// ---------------------------------------------------------------------------

namespace {

Result<TimeUnit> ParseUnit(const json& t) {
  const std::string unit = t.at("unit").get<std::string>();
  if (unit == "SECOND") return TimeUnit::kSecond;
  if (unit == "MILLISECOND") return TimeUnit::kMilli;
  if (unit == "MICROSECOND") return TimeUnit::kMicro;
  if (unit == "NANOSECOND") return TimeUnit::kNano;
  return Status::Invalid("golden json: unknown time unit '{}'", unit);
}

Result<TypeRef> IntType(const json& t) {
  const int bits = t.at("bitWidth").get<int>();
  const bool is_signed = t.at("isSigned").get<bool>();
  switch (bits) {
    case 8:
      return is_signed ? int8() : uint8();
    case 16:
      return is_signed ? int16() : uint16();
    case 32:
      return is_signed ? int32() : uint32();
    case 64:
      return is_signed ? int64() : uint64();
    default:
      return Status::Invalid("golden json: int bitWidth {}", bits);
  }
}

Result<std::vector<FieldRef>> ChildFields(const json& field) {
  std::vector<FieldRef> out;
  if (!field.contains("children")) return out;
  for (const json& c : field.at("children")) {
    QUIVER_ASSIGN_OR_RAISE(FieldRef f, FieldFromJson(c));
    out.push_back(std::move(f));
  }
  return out;
}

KeyValueMetadata MetadataFromJson(const json& holder) {
  KeyValueMetadata md;
  if (!holder.contains("metadata")) return md;
  for (const json& kv : holder.at("metadata")) {
    md.emplace_back(kv.at("key").get<std::string>(), kv.at("value").get<std::string>());
  }
  return md;
}

// The value type of a field (ignores "dictionary").
Result<TypeRef> ValueTypeFromJson(const json& field) {
  const json& t = field.at("type");
  const std::string name = t.at("name").get<std::string>();
  QUIVER_ASSIGN_OR_RAISE(std::vector<FieldRef> children, ChildFields(field));
  auto need_children = [&](size_t n) -> Status {
    if (children.size() != n) {
      return Status::Invalid("golden json: type '{}' needs {} children, has {}", name, n,
                             children.size());
    }
    return Status::OK();
  };
  if (name == "null") return null();
  if (name == "bool") return boolean();
  if (name == "int") return IntType(t);
  if (name == "floatingpoint") {
    const std::string p = t.at("precision").get<std::string>();
    if (p == "HALF") return float16();
    if (p == "SINGLE") return float32();
    if (p == "DOUBLE") return float64();
    return Status::Invalid("golden json: float precision '{}'", p);
  }
  if (name == "utf8") return utf8();
  if (name == "binary") return binary();
  if (name == "largeutf8") return large_utf8();
  if (name == "largebinary") return large_binary();
  if (name == "utf8view") return utf8_view();
  if (name == "binaryview") return binary_view();
  if (name == "fixedsizebinary") return fixed_size_binary(t.at("byteWidth").get<int32_t>());
  if (name == "decimal") {
    const int bits = t.contains("bitWidth") ? t.at("bitWidth").get<int>() : 128;
    TypeId id;
    switch (bits) {
      case 32:
        id = TypeId::kDecimal32;
        break;
      case 64:
        id = TypeId::kDecimal64;
        break;
      case 128:
        id = TypeId::kDecimal128;
        break;
      case 256:
        id = TypeId::kDecimal256;
        break;
      default:
        return Status::Invalid("golden json: decimal bitWidth {}", bits);
    }
    return decimal(id, t.at("precision").get<int32_t>(), t.at("scale").get<int32_t>());
  }
  if (name == "date") {
    const std::string unit = t.at("unit").get<std::string>();
    if (unit == "DAY") return date32();
    if (unit == "MILLISECOND") return date64();
    return Status::Invalid("golden json: date unit '{}'", unit);
  }
  if (name == "time") {
    QUIVER_ASSIGN_OR_RAISE(TimeUnit unit, ParseUnit(t));
    const int bits = t.contains("bitWidth")
                         ? t.at("bitWidth").get<int>()
                         : (unit == TimeUnit::kSecond || unit == TimeUnit::kMilli ? 32 : 64);
    return bits == 32 ? time32(unit) : time64(unit);
  }
  if (name == "timestamp") {
    QUIVER_ASSIGN_OR_RAISE(TimeUnit unit, ParseUnit(t));
    return timestamp(unit, t.contains("timezone") ? t.at("timezone").get<std::string>() : "");
  }
  if (name == "duration") {
    QUIVER_ASSIGN_OR_RAISE(TimeUnit unit, ParseUnit(t));
    return duration(unit);
  }
  if (name == "interval") {
    const std::string unit = t.at("unit").get<std::string>();
    if (unit == "YEAR_MONTH") return month_interval();
    if (unit == "DAY_TIME") return day_time_interval();
    if (unit == "MONTH_DAY_NANO") return month_day_nano_interval();
    return Status::Invalid("golden json: interval unit '{}'", unit);
  }
  if (name == "list" || name == "largelist" || name == "listview" || name == "largelistview") {
    QUIVER_RETURN_NOT_OK(need_children(1));
    if (name == "list") return list(children[0]);
    if (name == "largelist") return large_list(children[0]);
    if (name == "listview") return list_view(children[0]);
    return large_list_view(children[0]);
  }
  if (name == "fixedsizelist") {
    QUIVER_RETURN_NOT_OK(need_children(1));
    return fixed_size_list(children[0], t.at("listSize").get<int32_t>());
  }
  if (name == "struct") return struct_(std::move(children));
  if (name == "map") {
    QUIVER_RETURN_NOT_OK(need_children(1));
    return map(children[0], t.contains("keysSorted") && t.at("keysSorted").get<bool>());
  }
  if (name == "union") {
    std::vector<int8_t> codes;
    if (t.contains("typeIds")) {
      for (const json& c : t.at("typeIds")) codes.push_back(static_cast<int8_t>(c.get<int>()));
    } else {
      for (size_t i = 0; i < children.size(); ++i) codes.push_back(static_cast<int8_t>(i));
    }
    const std::string mode = t.at("mode").get<std::string>();
    if (mode == "SPARSE") return sparse_union(std::move(children), std::move(codes));
    if (mode == "DENSE") return dense_union(std::move(children), std::move(codes));
    return Status::Invalid("golden json: union mode '{}'", mode);
  }
  if (name == "runendencoded") {
    QUIVER_RETURN_NOT_OK(need_children(2));
    // Keep the JSON's child fields (names, nullability, metadata) verbatim.
    auto t_ree = std::make_shared<DataType>(*run_end_encoded(children[0]->type, children[1]->type));
    t_ree->children = children;
    return TypeRef(std::move(t_ree));
  }
  return Status::Invalid("golden json: unknown type name '{}'", name);
}

}  // namespace

Result<TypeRef> TypeFromJson(const json& field) {
  try {
    QUIVER_ASSIGN_OR_RAISE(TypeRef value_type, ValueTypeFromJson(field));
    if (!field.contains("dictionary")) return value_type;
    const json& d = field.at("dictionary");
    QUIVER_ASSIGN_OR_RAISE(TypeRef index_type, IntType(d.at("indexType")));
    return dictionary(index_type, value_type,
                      d.contains("isOrdered") && d.at("isOrdered").get<bool>());
  } catch (const json::exception& e) {
    return Status::Invalid("golden json: bad type in field '{}': {}", field.value("name", "?"),
                           e.what());
  }
}

Result<FieldRef> FieldFromJson(const json& f) {
  QUIVER_ASSIGN_OR_RAISE(TypeRef type, TypeFromJson(f));
  try {
    return field(f.at("name").get<std::string>(), std::move(type),
                 f.contains("nullable") ? f.at("nullable").get<bool>() : true, MetadataFromJson(f));
  } catch (const json::exception& e) {
    return Status::Invalid("golden json: bad field: {}", e.what());
  }
}

Result<SchemaRef> SchemaFromJson(const json& s) {
  try {
    std::vector<FieldRef> fields;
    for (const json& f : s.at("fields")) {
      QUIVER_ASSIGN_OR_RAISE(FieldRef fr, FieldFromJson(f));
      fields.push_back(std::move(fr));
    }
    return schema(std::move(fields), MetadataFromJson(s));
  } catch (const json::exception& e) {
    return Status::Invalid("golden json: bad schema: {}", e.what());
  }
}

int64_t GoldenFile::batch_length(int i) const {
  return doc.at("batches").at(i).at("count").get<int64_t>();
}

std::string GoldenFile::short_name() const {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return path;
  // Keep the last directory: "cpp-21.0.0/generated_x.json.gz".
  const size_t prev = slash == 0 ? std::string::npos : path.rfind('/', slash - 1);
  return path.substr(prev == std::string::npos ? 0 : prev + 1);
}

Result<std::shared_ptr<GoldenFile>> ParseGoldenJson(const std::string& text, std::string path) {
  auto g = std::make_shared<GoldenFile>();
  g->path = std::move(path);
  try {
    g->doc = json::parse(text);
    QUIVER_ASSIGN_OR_RAISE(g->schema, SchemaFromJson(g->doc.at("schema")));
    if (!g->doc.contains("batches")) g->doc["batches"] = json::array();
    if (g->doc.contains("dictionaries")) {
      for (const json& d : g->doc.at("dictionaries")) {
        const json& cols = d.at("data").at("columns");
        if (cols.size() != 1)
          return Status::Invalid("{}: dictionary with {} columns", g->path, cols.size());
        g->dictionaries[d.at("id").get<int64_t>()] = &cols[0];
      }
    }
  } catch (const json::exception& e) {
    return Status::Invalid("{}: bad golden json: {}", g->path, e.what());
  }
  return g;
}

Result<std::shared_ptr<GoldenFile>> LoadGoldenFile(const std::string& path) {
  QUIVER_ASSIGN_OR_RAISE(std::string text, ReadMaybeGzipFile(path));
  return ParseGoldenJson(text, path);
}

Result<std::shared_ptr<GoldenFile>> ProjectGolden(const GoldenFile& golden,
                                                  const std::vector<int>& fields) {
  try {
    json doc = golden.doc;
    auto pick = [&](const json& all) {
      json out = json::array();
      for (int i : fields) out.push_back(all.at(static_cast<size_t>(i)));
      return out;
    };
    doc["schema"]["fields"] = pick(golden.doc.at("schema").at("fields"));
    for (json& batch : doc["batches"]) batch["columns"] = pick(batch.at("columns"));
    return ParseGoldenJson(doc.dump(), golden.path);
  } catch (const json::exception& e) {
    return Status::Invalid("{}: cannot project golden json: {}", golden.path, e.what());
  }
}

// ---------------------------------------------------------------------------
// Schema comparison
// ---------------------------------------------------------------------------

namespace {

std::string RenderMetadata(const KeyValueMetadata& md) {
  std::string out = "{";
  for (size_t i = 0; i < md.size(); ++i) {
    out += fmt::format("{}'{}': '{}'", i ? ", " : "", md[i].first, md[i].second);
  }
  return out + "}";
}

bool MetadataEquals(const KeyValueMetadata& a, const KeyValueMetadata& b) {
  // Order is not significant (Arrow compares metadata as a set of pairs).
  KeyValueMetadata sa = a, sb = b;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  return sa == sb;
}

}  // namespace

Status CompareTypes(const DataType& e, const DataType& a, const std::string& path) {
  auto diff = [&](std::string_view what, const auto& ev, const auto& av) {
    return Status::Invalid("mismatch: {}: type {}: expected {}, got {} (expected type {}, got {})",
                           path, what, ev, av, e.ToString(), a.ToString());
  };
  if (e.id != a.id) return diff("id", static_cast<int>(e.id), static_cast<int>(a.id));
  switch (e.id) {
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kDuration:
      if (e.unit != a.unit) return diff("unit", TimeUnitName(e.unit), TimeUnitName(a.unit));
      break;
    case TypeId::kTimestamp:
      if (e.unit != a.unit) return diff("unit", TimeUnitName(e.unit), TimeUnitName(a.unit));
      if (e.timezone != a.timezone) return diff("timezone", e.timezone, a.timezone);
      break;
    case TypeId::kFixedSizeBinary:
      if (e.byte_width != a.byte_width) return diff("byte width", e.byte_width, a.byte_width);
      break;
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      if (e.byte_width != a.byte_width) return diff("byte width", e.byte_width, a.byte_width);
      if (e.precision != a.precision) return diff("precision", e.precision, a.precision);
      if (e.scale != a.scale) return diff("scale", e.scale, a.scale);
      break;
    case TypeId::kFixedSizeList:
      if (e.list_size != a.list_size) return diff("list size", e.list_size, a.list_size);
      break;
    case TypeId::kMap:
      if (e.keys_sorted != a.keys_sorted) return diff("keys_sorted", e.keys_sorted, a.keys_sorted);
      break;
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion:
      if (e.type_codes != a.type_codes) {
        return diff("type codes", fmt::format("{}", fmt::join(e.type_codes, ",")),
                    fmt::format("{}", fmt::join(a.type_codes, ",")));
      }
      break;
    case TypeId::kDictionary:
      if (e.ordered != a.ordered) return diff("ordered", e.ordered, a.ordered);
      if (!a.index_type || !a.value_type) return diff("dictionary parts", "set", "missing");
      QUIVER_RETURN_NOT_OK(CompareTypes(*e.index_type, *a.index_type, path + "<index>"));
      QUIVER_RETURN_NOT_OK(CompareTypes(*e.value_type, *a.value_type, path + "<value>"));
      break;
    default:
      break;
  }
  if (e.children.size() != a.children.size()) {
    return diff("number of children", e.children.size(), a.children.size());
  }
  for (size_t i = 0; i < e.children.size(); ++i) {
    if (e.id == TypeId::kMap) {
      // Arrow does not give meaning to the names of a map's entries/key/value
      // fields, and writers canonicalise them ("entries", "key", "value"): the
      // Arrow 21 *stream* of generated_map_non_canonical does so while the JSON
      // and the file keep "some_entries"/"some_key"/"some_value".
      QUIVER_RETURN_NOT_OK(CompareMapEntries(*e.children[i], *a.children[i], path));
    } else {
      QUIVER_RETURN_NOT_OK(CompareFields(*e.children[i], *a.children[i], path));
    }
  }
  return Status::OK();
}

Status CompareMapEntries(const Field& e, const Field& a, const std::string& parent) {
  const std::string path = parent + "/" + e.name;
  if (e.nullable != a.nullable || !MetadataEquals(e.metadata, a.metadata) || !a.type ||
      e.type->id != TypeId::kStruct || a.type->id != TypeId::kStruct ||
      e.type->children.size() != a.type->children.size()) {
    return CompareFields(e, a, parent);  // reports the difference
  }
  for (size_t i = 0; i < e.type->children.size(); ++i) {
    const Field& ec = *e.type->children[i];
    Field ac = *a.type->children[i];
    ac.name = ec.name;  // key/value names are not significant either
    QUIVER_RETURN_NOT_OK(CompareFields(ec, ac, path));
  }
  return Status::OK();
}

Status CompareFields(const Field& e, const Field& a, const std::string& parent) {
  const std::string path = parent.empty() ? e.name : parent + "/" + e.name;
  if (e.name != a.name) {
    return Status::Invalid("mismatch: {}: field name: expected '{}', got '{}'", path, e.name,
                           a.name);
  }
  if (e.nullable != a.nullable) {
    return Status::Invalid("mismatch: {}: nullable: expected {}, got {}", path, e.nullable,
                           a.nullable);
  }
  if (!MetadataEquals(e.metadata, a.metadata)) {
    return Status::Invalid("mismatch: {}: field metadata: expected {}, got {}", path,
                           RenderMetadata(e.metadata), RenderMetadata(a.metadata));
  }
  if (!a.type) return Status::Invalid("mismatch: {}: field has no type", path);
  return CompareTypes(*e.type, *a.type, path);
}

Status CompareSchemas(const Schema& e, const Schema& a) {
  if (e.num_fields() != a.num_fields()) {
    return Status::Invalid("mismatch: schema: number of fields: expected {}, got {}",
                           e.num_fields(), a.num_fields());
  }
  for (int i = 0; i < e.num_fields(); ++i) {
    QUIVER_RETURN_NOT_OK(CompareFields(*e.field(i), *a.field(i), ""));
  }
  if (!MetadataEquals(e.metadata, a.metadata)) {
    return Status::Invalid("mismatch: schema metadata: expected {}, got {}",
                           RenderMetadata(e.metadata), RenderMetadata(a.metadata));
  }
  return Status::OK();
}

}  // namespace quiver::testing
