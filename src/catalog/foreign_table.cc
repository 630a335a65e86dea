#include "catalog/foreign_table.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>

#include "catalog/catalog.h"
#include "catalog/glob.h"
#include "catalog/page_pruning.h"
#include "catalog/type_conversion.h"
#include "common/bit_util.h"
#include "common/calendar.h"
#include "vector/sql_type.h"
#include "vector/value.h"

namespace quiver {

namespace fs = std::filesystem;

namespace {

// PostgreSQL's SQLSTATE for an FDW option it does not know.
constexpr const char* kFdwInvalidOptionName = "HV00D";
constexpr const char* kHiveNull = "__HIVE_DEFAULT_PARTITION__";

struct Options {
  std::vector<std::string> files;  // file, files
  std::string dir, suffix, pattern;
  bool hive = false;
  bool missing_null = false;  // missing_columns 'null': a file lacking a column gives NULLs
};

std::string Trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

Result<bool> ParseBool(const std::string& name, const std::string& v) {
  std::string l;
  for (char c : v) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (l == "true" || l == "on" || l == "1" || l == "yes") return true;
  if (l == "false" || l == "off" || l == "0" || l == "no") return false;
  return Status::Invalid("{} requires a Boolean value", name)
      .WithSqlState(sqlstate::kInvalidParameterValue);
}

Result<Options> ParseOptions(const std::vector<std::pair<std::string, std::string>>& opts) {
  Options o;
  for (const auto& [name, value] : opts) {
    if (name == "file") {
      o.files.push_back(value);
    } else if (name == "files") {
      size_t start = 0;
      while (start <= value.size()) {
        const size_t comma = value.find(',', start);
        const std::string f = Trim(value.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (!f.empty()) o.files.push_back(f);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (name == "dir") {
      o.dir = value;
    } else if (name == "suffix") {
      o.suffix = value;
    } else if (name == "pattern") {
      o.pattern = value;
    } else if (name == "missing_columns") {
      if (value != "null" && value != "error")
        return Status::Invalid("missing_columns must be 'null' or 'error', not '{}'", value)
            .WithSqlState(sqlstate::kInvalidParameterValue);
      o.missing_null = value == "null";
    } else if (name == "hive_partitioning") {
      QUIVER_ASSIGN_OR_RAISE(o.hive, ParseBool(name, value));
    } else if (name == "parallel_workers") {
      // A planner hint in arrow_fdw; Quiver's scans use all its threads.
      char* end = nullptr;
      const long n = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || n < 0)
        return Status::Invalid("parallel_workers must be a non-negative integer, not '{}'", value)
            .WithSqlState(sqlstate::kInvalidParameterValue);
    } else {
      return Status::Invalid("invalid option \"{}\"", name)
          .WithSqlState(kFdwInvalidOptionName)
          .WithHint(
              "Valid options in this context are: file, files, dir, suffix, pattern, "
              "hive_partitioning, missing_columns, parallel_workers");
    }
  }
  if (o.files.empty() && o.dir.empty())
    return Status::Invalid("a foreign table needs the option file, files or dir")
        .WithSqlState(kFdwInvalidOptionName);
  if (o.dir.empty() && (!o.suffix.empty() || !o.pattern.empty() || o.hive))
    return Status::Invalid("the options suffix, pattern and hive_partitioning need the option dir")
        .WithSqlState(kFdwInvalidOptionName);
  return o;
}

// --- pattern: ? * ${key} @{key} ------------------------------------------------------------

struct PatternToken {
  enum Kind : int8_t { kLiteral, kAnyChar, kAnyText, kText, kDigits } kind;
  char c = 0;
  std::string key;
};

Result<std::vector<PatternToken>> ParsePattern(const std::string& p) {
  std::vector<PatternToken> out;
  for (size_t i = 0; i < p.size(); ++i) {
    if ((p[i] == '$' || p[i] == '@') && i + 1 < p.size() && p[i + 1] == '{') {
      const size_t close = p.find('}', i + 2);
      if (close == std::string::npos || close == i + 2)
        return Status::Invalid("pattern '{}': '{}{{' without a name and '}}'", p, p[i])
            .WithSqlState(sqlstate::kInvalidParameterValue);
      out.push_back({p[i] == '$' ? PatternToken::kText : PatternToken::kDigits, 0,
                     p.substr(i + 2, close - i - 2)});
      i = close;
    } else if (p[i] == '?') {
      out.push_back({PatternToken::kAnyChar, 0, {}});
    } else if (p[i] == '*') {
      out.push_back({PatternToken::kAnyText, 0, {}});
    } else {
      out.push_back({PatternToken::kLiteral, p[i], {}});
    }
  }
  return out;
}

// Backtracking match of the whole of `s`; captures are as short as allows
// the rest to match (left to right).
bool MatchPattern(const std::vector<PatternToken>& p, size_t pi, const std::string& s, size_t si,
                  std::map<std::string, std::string>* caps) {
  if (pi == p.size()) return si == s.size();
  const PatternToken& t = p[pi];
  switch (t.kind) {
    case PatternToken::kLiteral:
      return si < s.size() && s[si] == t.c && MatchPattern(p, pi + 1, s, si + 1, caps);
    case PatternToken::kAnyChar:
      return si < s.size() && MatchPattern(p, pi + 1, s, si + 1, caps);
    case PatternToken::kAnyText:
      for (size_t n = 0; si + n <= s.size(); ++n) {
        if (MatchPattern(p, pi + 1, s, si + n, caps)) return true;
      }
      return false;
    case PatternToken::kText:
    case PatternToken::kDigits:
      for (size_t n = 1; si + n <= s.size(); ++n) {
        if (t.kind == PatternToken::kDigits && !std::isdigit(static_cast<unsigned char>(s[si + n - 1])))
          return false;
        if (MatchPattern(p, pi + 1, s, si + n, caps)) {
          (*caps)[t.key] = s.substr(si, n);
          return true;
        }
      }
      return false;
  }
  return false;
}

// Hive writers (pyarrow, Spark) percent-encode partition values: "z%20w".
std::string PercentDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

struct FileEntry {
  std::string path;
  std::map<std::string, std::string> captures;  // pattern captures and Hive keys
};

Result<std::vector<FileEntry>> ListFiles(const Options& o) {
  std::vector<FileEntry> out;
  for (const std::string& f : o.files) {
    QUIVER_ASSIGN_OR_RAISE(auto paths, ExpandPaths(f));
    for (auto& p : paths) out.push_back({std::move(p), {}});
  }
  if (o.dir.empty()) return out;
  std::error_code ec;
  if (!fs::is_directory(o.dir, ec))
    return Status::IOError("could not open directory \"{}\": No such directory", o.dir)
        .WithSqlState(sqlstate::kUndefinedObject);
  std::vector<PatternToken> pattern;
  if (!o.pattern.empty()) {
    QUIVER_ASSIGN_OR_RAISE(pattern, ParsePattern(o.pattern));
  }
  std::vector<FileEntry> found;
  auto consider = [&](const fs::path& p) {
    const std::string name = p.filename().string();
    if (name.empty() || name[0] == '.' || (o.hive && name[0] == '_')) return;
    if (!o.suffix.empty() &&
        (name.size() < o.suffix.size() || name.compare(name.size() - o.suffix.size(), o.suffix.size(), o.suffix) != 0))
      return;
    FileEntry e;
    e.path = p.string();
    if (!pattern.empty() && !MatchPattern(pattern, 0, name, 0, &e.captures)) return;
    if (o.hive) {
      const fs::path rel = fs::relative(p.parent_path(), o.dir, ec);
      for (const auto& part : rel) {
        const std::string s = part.string();
        const size_t eq = s.find('=');
        if (eq != std::string::npos && eq > 0)
          e.captures.emplace(PercentDecode(s.substr(0, eq)), PercentDecode(s.substr(eq + 1)));
      }
    }
    found.push_back(std::move(e));
  };
  if (o.hive) {
    for (auto it = fs::recursive_directory_iterator(o.dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (it->is_directory() && !name.empty() && (name[0] == '.' || name[0] == '_')) {
        it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file()) consider(it->path());
    }
  } else {
    for (const auto& e : fs::directory_iterator(o.dir, ec)) {
      if (e.is_regular_file()) consider(e.path());
    }
  }
  if (ec) return Status::IOError("could not read directory \"{}\": {}", o.dir, ec.message());
  std::sort(found.begin(), found.end(), [](const FileEntry& a, const FileEntry& b) { return a.path < b.path; });
  for (auto& e : found) out.push_back(std::move(e));
  return out;
}

// --- virtual values -------------------------------------------------------------------------

Result<Value> VirtualValue(const std::string& text, const ForeignColumnDef& c, const std::string& path) {
  const DataType& t = *c.type;
  if (text == kHiveNull) return Value::Null(c.type);
  auto bad = [&]() {
    return Status::Invalid("file '{}': virtual column \"{}\" ({}) cannot hold '{}'", path, c.name,
                           PgTypeName(t), text)
        .WithSqlState(sqlstate::kInvalidTextRepresentation);
  };
  switch (t.id) {
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64: {
      if (text.empty()) return bad();
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(text.c_str(), &end, 10);
      if (*end != '\0' || errno != 0) return bad();
      if ((t.id == TypeId::kInt16 && (v < INT16_MIN || v > INT16_MAX)) ||
          (t.id == TypeId::kInt32 && (v < INT32_MIN || v > INT32_MAX)))
        return bad();
      return Value::Integer(c.type, v);
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      if (text.empty()) return bad();
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (*end != '\0') return bad();
      return t.id == TypeId::kFloat ? Value::Float(static_cast<float>(v)) : Value::Double(v);
    }
    case TypeId::kString:
      return Value::Text(text);
    case TypeId::kDate32: {
      int y = 0;
      unsigned m = 0, d = 0;
      char tail = 0;
      if (std::sscanf(text.c_str(), "%d-%u-%u%c", &y, &m, &d, &tail) != 3 || m < 1 || m > 12 || d < 1 ||
          d > DaysInMonth(y, m))
        return bad();
      return Value::Date(static_cast<int32_t>(DaysFromCivil(y, m, d)));
    }
    case TypeId::kTimestamp: {
      // Without a time zone: "2024-03-01 10:00:00[.fraction]" (or 'T'), as
      // Hive directories written by Quiver's COPY, Spark and DuckDB hold them.
      if (!t.timezone.empty()) return bad();
      int y = 0;
      unsigned m = 0, d = 0, hh = 0, mm = 0, ss = 0;
      char sep = 0;
      int used = 0;
      if (std::sscanf(text.c_str(), "%d-%u-%u%c%u:%u:%u%n", &y, &m, &d, &sep, &hh, &mm, &ss, &used) != 7 ||
          (sep != ' ' && sep != 'T') || m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m) || hh > 23 ||
          mm > 59 || ss > 59)
        return bad();
      int64_t frac = 0;
      size_t at = static_cast<size_t>(used);
      if (at < text.size() && text[at] == '.') {
        int digits = 0;
        for (++at; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, ++digits) {
          if (digits < 6) frac = frac * 10 + (text[at] - '0');
        }
        if (digits == 0) return bad();
        for (; digits < 6; ++digits) frac *= 10;
      }
      if (at != text.size()) return bad();
      const int64_t days = DaysFromCivil(y, m, d);
      return Value::Timestamp(((days * 24 + hh) * 60 + mm) * 60 * int64_t{1000000} + ss * int64_t{1000000} + frac);
    }
    default:
      return Status::Unsupported("virtual column \"{}\" of type {} (use bigint, integer, text, date, timestamp or double precision)",
                                 c.name, PgTypeName(t));
  }
}

bool IsBareNumeric(const std::string& type_sql) { return type_sql == "numeric" || type_sql == "decimal"; }

// A file opened for a scan, with each table column's field (or -1) and
// virtual value.
struct BoundFile {
  std::string path;
  std::shared_ptr<formats::FileReader> reader;
  std::vector<int> field;       // per table column: index in the file's schema, -1 = virtuals[c]
  std::vector<Value> virtuals;  // per table column: a virtual value, or NULL (a missing column)
  std::vector<TypeRef> types;   // per table column: the field's engine type (may be narrower)
  std::vector<bool> missing;    // per table column: absent from the file (missing_columns 'null')
  // per table column: virtual_metadata_split's value for each unit (else empty)
  std::vector<std::vector<Value>> unit_values;
};

// Integers and floats a file stores narrower than declared are read widened
// (schema evolution: a column grown from integer to bigint).
bool Widens(const DataType& from, const DataType& to) {
  if (IsIntegerType(from) && IsIntegerType(to)) return NumericRank(from) <= NumericRank(to);
  return from.id == TypeId::kFloat && to.id == TypeId::kDouble;
}

template <typename In, typename Out>
Result<ArrayRef> WidenFixed(const ArrayData& in, const TypeRef& to, MemoryPool* pool) {
  const int64_t n = in.length;
  QUIVER_ASSIGN_OR_RAISE(auto values, MutableBuffer::Allocate(std::max<int64_t>(n, 1) * sizeof(Out), pool));
  values->ZeroPadding();
  Out* dst = values->mutable_data_as<Out>();
  const In* src = in.GetValues<In>(1);
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<Out>(src[i]);
  std::shared_ptr<Buffer> validity;
  const int64_t nulls = in.GetNullCount();
  if (nulls > 0) {
    QUIVER_ASSIGN_OR_RAISE(auto bits, AllocateZeroed(bit_util::BytesForBits(n), pool));
    bit_util::CopyBitmap(in.buffers[0]->data(), in.offset, n, bits->mutable_data(), 0);
    validity = bits;
  }
  return ArrayData::Make(to, n, {validity, std::move(values)}, nulls);
}

// `a` (of an engine type `Widens` accepts) as `to`.
Result<ArrayRef> Widen(const ArrayRef& a, const TypeRef& to, MemoryPool* pool) {
  const TypeId from = a->type->id;
  if (a->type->Equals(*to)) return a;
  if (to->id == TypeId::kDouble) return WidenFixed<float, double>(*a, to, pool);
  if (to->id == TypeId::kInt64) {
    if (from == TypeId::kInt16) return WidenFixed<int16_t, int64_t>(*a, to, pool);
    return WidenFixed<int32_t, int64_t>(*a, to, pool);
  }
  return WidenFixed<int16_t, int32_t>(*a, to, pool);
}

Value WidenValue(const Value& v, const TypeRef& to) {
  if (v.is_null()) return Value::Null(to);
  if (v.type()->Equals(*to)) return v;
  if (to->id == TypeId::kDouble) return Value::Double(v.floating());
  return Value::Integer(to, v.integer());
}

int FindField(const Schema& s, const std::string& name) {
  const int i = s.GetFieldIndex(name);
  if (i >= 0) return i;
  int found = -1;
  for (int k = 0; k < s.num_fields(); ++k) {
    if (IdentifierEquals(s.field(k)->name, name)) {
      if (found >= 0) return -1;
      found = k;
    }
  }
  return found;
}

// The virtual values of `entry` for the table's columns.
Result<std::vector<Value>> VirtualValues(const FileEntry& entry, const ForeignTableDef& def,
                                         const Schema& schema) {
  std::vector<Value> out;
  for (size_t c = 0; c < def.columns.size(); ++c) {
    const ForeignColumnDef& col = def.columns[c];
    if (col.virtual_key.empty()) {  // a file column, or metadata: known once the file is open
      out.push_back(Value::Null(schema.field(static_cast<int>(c))->type));
      continue;
    }
    auto it = entry.captures.find(col.virtual_key);
    if (it == entry.captures.end())
      return Status::Invalid("file '{}': nothing in its path gives the virtual column \"{}\" (key '{}')",
                             entry.path, col.name, col.virtual_key)
          .WithHint("virtual columns take their value from the pattern option's ${key} / @{key} or from "
                    "Hive directories key=value (hive_partitioning 'true')");
    ForeignColumnDef typed = col;
    typed.type = schema.field(static_cast<int>(c))->type;
    QUIVER_ASSIGN_OR_RAISE(Value v, VirtualValue(it->second, typed, entry.path));
    out.push_back(std::move(v));
  }
  return out;
}

// The text of a virtual_metadata key in `s`: the schema's custom metadata
// KEY, else field f's metadata k for KEY = "f.k" (the longest f that is a
// field). nullopt when there is none.
std::optional<std::string> MetadataText(const Schema& s, const std::string& key) {
  for (const auto& [k, v] : s.metadata) {
    if (k == key) return v;
  }
  for (size_t dot = key.rfind('.'); dot != std::string::npos && dot > 0; dot = key.rfind('.', dot - 1)) {
    const int f = FindField(s, key.substr(0, dot));
    if (f < 0) continue;
    for (const auto& [k, v] : s.field(f)->metadata) {
      if (k == key.substr(dot + 1)) return v;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

// Fills column c's value (virtual_metadata) or values per unit
// (virtual_metadata_split) from the open file's metadata.
Status BindMetadataColumn(const ForeignColumnDef& col, const TypeRef& type, size_t c, BoundFile* b) {
  ForeignColumnDef typed = col;
  typed.type = type;
  const std::optional<std::string> text = MetadataText(*b->reader->schema(), col.metadata_key);
  if (!col.metadata_split) {
    if (text.has_value()) {
      QUIVER_ASSIGN_OR_RAISE(b->virtuals[c], VirtualValue(*text, typed, b->path));
    } else {
      b->virtuals[c] = Value::Null(type);
    }
    return Status::OK();
  }
  const int units = b->reader->num_units();
  if (units < 0)
    return Status::Invalid("file '{}': virtual_metadata_split column \"{}\" needs a file of record batches "
                           "or row groups (Arrow IPC file or Parquet), not a stream or CSV",
                           b->path, col.name)
        .WithSqlState("HV00D");
  std::vector<Value>& values = b->unit_values[c];
  if (!text.has_value()) {
    values.assign(static_cast<size_t>(units), Value::Null(type));
    return Status::OK();
  }
  size_t start = 0;
  while (true) {
    const size_t comma = text->find(',', start);
    std::string token = text->substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    token.erase(0, token.find_first_not_of(' '));
    token.erase(token.find_last_not_of(' ') + 1);
    // An empty token (pg2arrow writes none for a batch of NULLs) is NULL.
    if (token.empty()) {
      values.push_back(Value::Null(type));
    } else {
      QUIVER_ASSIGN_OR_RAISE(Value v, VirtualValue(token, typed, b->path));
      values.push_back(std::move(v));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (values.size() != static_cast<size_t>(units))
    return Status::Invalid("file '{}': metadata '{}' of virtual_metadata_split column \"{}\" has {} values for "
                           "{} record batches",
                           b->path, col.metadata_key, col.name, values.size(), units)
        .WithSqlState("HV00D");
  return Status::OK();
}

// Opens `entry` and finds each file column's field, checking its type.
Result<BoundFile> BindFile(const FileEntry& entry, const ForeignTableDef& def, const Schema& schema,
                           std::vector<Value> virtuals, bool missing_null) {
  BoundFile b;
  b.path = entry.path;
  b.virtuals = std::move(virtuals);
  formats::ReadOptions read;
  read.validate_full = false;
  QUIVER_ASSIGN_OR_RAISE(b.reader, formats::OpenFile(entry.path, formats::FileFormat::kAuto, read));
  const Schema& fs_ = *b.reader->schema();
  for (size_t c = 0; c < def.columns.size(); ++c) {
    const ForeignColumnDef& col = def.columns[c];
    const TypeRef& want = schema.field(static_cast<int>(c))->type;
    b.unit_values.emplace_back();
    if (col.is_virtual()) {
      b.field.push_back(-1);
      b.types.push_back(want);
      b.missing.push_back(false);
      if (!col.metadata_key.empty()) QUIVER_RETURN_NOT_OK(BindMetadataColumn(col, want, c, &b));
      continue;
    }
    const std::string& fname = col.field.empty() ? col.name : col.field;
    const int f = FindField(fs_, fname);
    if (f < 0 && missing_null) {
      b.field.push_back(-1);
      b.types.push_back(want);
      b.missing.push_back(true);
      continue;
    }
    if (f < 0)
      return Status::Invalid("foreign table \"{}\": file '{}' has no field \"{}\" for column \"{}\"", def.name,
                             entry.path, fname, col.name)
          .WithSqlState(sqlstate::kUndefinedColumn)
          .WithHint("With the table option missing_columns 'null', files lacking a column read it as NULL.");
    auto have = ToEngineType(fs_.field(f)->type);
    if (!have.ok() || !(Widens(**have, *want) || (*have)->Equals(*want))) {
      const std::string have_text = have.ok() ? PgTypeNameWithModifiers(**have) : "no SQL type";
      return Status::Invalid(
                 "foreign table \"{}\": file '{}' field \"{}\" is {} ({}), but column \"{}\" is declared {}",
                 def.name, entry.path, fs_.field(f)->name, have_text, fs_.field(f)->type->ToString(), col.name,
                 PgTypeNameWithModifiers(*want))
          .WithSqlState(sqlstate::kDatatypeMismatch);
    }
    b.field.push_back(f);
    b.types.push_back(*have);
    b.missing.push_back(false);
  }
  return b;
}

std::string FormatBytes(int64_t n) {
  const double v = static_cast<double>(n);
  if (n < 1024) return fmt::format("{}B", n);
  if (n < (int64_t{1} << 20)) return fmt::format("{:.2f}KB", v / 1024);
  if (n < (int64_t{1} << 30)) return fmt::format("{:.2f}MB", v / (1 << 20));
  return fmt::format("{:.2f}GB", v / (1 << 30));
}

Value StatValue(const ArrayRef& a, const TypeRef& engine_type, MemoryPool* pool) {
  if (a == nullptr || a->length < 1 || a->IsNull(0)) return Value::Null(engine_type);
  auto converted = ToEngineArray(a, engine_type, pool);
  if (!converted.ok()) return Value::Null(engine_type);
  return ValueFromArray(**converted, 0);
}

// --- the scan -------------------------------------------------------------------------------

class ForeignScanPlan final : public ScanPlan {
 public:
  struct Unit {
    int file;
    int unit;
    UnitStatistics stats;
    std::vector<formats::RowRange> rows;  // empty: all; else the rows page statistics left
  };

  ForeignScanPlan(SchemaRef table_schema, std::vector<int> columns, std::vector<BoundFile> files,
                  std::vector<Unit> units, std::vector<int> stream_files, MemoryPool* pool)
      : table_schema_(std::move(table_schema)),
        schema_(ScanSchema(table_schema_, columns)),
        columns_(std::move(columns)),
        files_(std::move(files)),
        units_(std::move(units)),
        stream_files_(std::move(stream_files)),
        pool_(pool),
        stream_(this) {
    for (const BoundFile& f : files_) {
      std::vector<int> fc;
      for (int c : columns_) {
        if (f.field[static_cast<size_t>(c)] >= 0) fc.push_back(f.field[static_cast<size_t>(c)]);
      }
      file_columns_.push_back(std::move(fc));
    }
  }

  SchemaRef schema() const override { return schema_; }
  int64_t num_units() const override { return static_cast<int64_t>(units_.size()); }
  const UnitStatistics* unit_statistics(int64_t unit) const override {
    return &units_[static_cast<size_t>(unit)].stats;
  }
  Result<RecordBatchRef> ReadUnit(int64_t i) override {
    const Unit& u = units_[static_cast<size_t>(i)];
    BoundFile& file = files_[static_cast<size_t>(u.file)];
    const auto& fc = file_columns_[static_cast<size_t>(u.file)];
    RecordBatchRef batch;
    int64_t rows = -1;
    if (fc.empty()) {
      rows = file.reader->unit_rows(u.unit);
      if (rows >= 0 && !u.rows.empty()) {
        rows = 0;
        for (const auto& r : u.rows) rows += r.end - r.begin;
      }
    }
    if (rows < 0) {
      // With only virtual columns requested, rows are counted on the first field.
      const std::vector<int> read = fc.empty() ? std::vector<int>{0} : fc;
      auto r = u.rows.empty() ? file.reader->ReadUnit(u.unit, read)
                              : file.reader->ReadUnitRows(u.unit, read, u.rows);
      if (!r.ok()) return formats::WithPath(r.status(), file.path);
      batch = std::move(r).ValueOrDie();
      rows = batch->num_rows();
    }
    counters().units_read++;
    counters().rows_read += rows;
    return Assemble(file, fc.empty() ? nullptr : batch, rows, u.unit);
  }
  RecordBatchReader* stream() override { return stream_files_.empty() ? nullptr : &stream_; }

  const std::vector<BoundFile>& files() const { return files_; }

 private:
  // The output batch: file columns converted to the declared types, virtual
  // columns as constants.
  Result<RecordBatchRef> Assemble(const BoundFile& file, const RecordBatchRef& batch, int64_t rows, int unit) {
    std::vector<ArrayRef> cols;
    int k = 0;
    for (size_t o = 0; o < columns_.size(); ++o) {
      const int c = columns_[o];
      const TypeRef& type = table_schema_->field(c)->type;
      if (file.field[static_cast<size_t>(c)] < 0) {
        const auto& per_unit = file.unit_values[static_cast<size_t>(c)];
        const Value& v = per_unit.empty() ? file.virtuals[static_cast<size_t>(c)]
                                          : per_unit[static_cast<size_t>(unit)];
        QUIVER_ASSIGN_OR_RAISE(auto a, MakeArrayFromValue(v, rows, pool_));
        cols.push_back(std::move(a));
      } else {
        auto a = ToEngineArray(batch->column(k++), file.types[static_cast<size_t>(c)], pool_);
        if (!a.ok()) return formats::WithPath(a.status().WithContext("column '" + table_schema_->field(c)->name + "'"), file.path);
        QUIVER_ASSIGN_OR_RAISE(auto wide, Widen(*a, type, pool_));
        cols.push_back(std::move(wide));
      }
    }
    return RecordBatch::Make(schema_, rows, std::move(cols));
  }

  class Stream final : public RecordBatchReader {
   public:
    explicit Stream(ForeignScanPlan* plan) : plan_(plan) {}
    SchemaRef schema() const override { return plan_->schema_; }
    Status ReadNext(RecordBatchRef* out) override {
      *out = nullptr;
      while (true) {
        if (current_ == nullptr) {
          if (next_ == plan_->stream_files_.size()) return Status::OK();
          file_ = plan_->stream_files_[next_++];
          BoundFile& f = plan_->files_[static_cast<size_t>(file_)];
          const auto& fc = plan_->file_columns_[static_cast<size_t>(file_)];
          auto r = f.reader->ReadSequential(fc.empty() ? std::vector<int>{0} : fc);
          if (!r.ok()) return formats::WithPath(r.status(), f.path);
          current_ = std::move(r).ValueOrDie();
        }
        RecordBatchRef batch;
        const BoundFile& f = plan_->files_[static_cast<size_t>(file_)];
        Status st = current_->ReadNext(&batch);
        if (!st.ok()) return formats::WithPath(st, f.path);
        if (batch == nullptr) {
          current_.reset();
          continue;
        }
        plan_->counters().rows_read += batch->num_rows();
        const bool only_virtual = plan_->file_columns_[static_cast<size_t>(file_)].empty();
        QUIVER_ASSIGN_OR_RAISE(*out, plan_->Assemble(f, only_virtual ? nullptr : batch, batch->num_rows(), -1));
        return Status::OK();
      }
    }

   private:
    ForeignScanPlan* plan_;
    size_t next_ = 0;
    int file_ = -1;
    std::unique_ptr<RecordBatchReader> current_;
  };

  SchemaRef table_schema_;
  SchemaRef schema_;
  std::vector<int> columns_;
  std::vector<BoundFile> files_;
  std::vector<std::vector<int>> file_columns_;  // per file: the requested file columns' fields
  std::vector<Unit> units_;
  std::vector<int> stream_files_;
  MemoryPool* pool_;
  Stream stream_;
};

// Statistics of a file's virtual columns: exact (min = max = the value).
UnitStatistics VirtualStatistics(const std::vector<Value>& virtuals, const ForeignTableDef& def, int64_t rows,
                                 const std::vector<bool>* missing = nullptr) {
  UnitStatistics s;
  s.rows = rows;
  const size_t n = def.columns.size();
  s.min.assign(n, Value());
  s.max.assign(n, Value());
  s.nulls.assign(n, -1);
  for (size_t c = 0; c < n; ++c) {
    if (missing != nullptr && (*missing)[c]) {
      s.nulls[c] = rows;  // a column the file lacks is all NULL
      continue;
    }
    if (def.columns[c].virtual_key.empty()) continue;
    s.min[c] = virtuals[c];
    s.max[c] = virtuals[c];
    if (!virtuals[c].is_null()) s.nulls[c] = 0;
  }
  return s;
}

// Exact statistics of the metadata columns of `b`'s unit `unit`.
void AddMetadataStatistics(const BoundFile& b, const ForeignTableDef& def, int unit, UnitStatistics* s) {
  for (size_t c = 0; c < def.columns.size(); ++c) {
    if (def.columns[c].metadata_key.empty()) continue;
    const Value& v = b.unit_values[c].empty() ? b.virtuals[c] : b.unit_values[c][static_cast<size_t>(unit)];
    s->min[c] = v;
    s->max[c] = v;
    s->nulls[c] = v.is_null() ? s->rows : 0;
  }
}

bool MayMatch(const UnitStatistics& s, const std::vector<ScanPredicate>& predicates) {
  for (const ScanPredicate& p : predicates) {
    if (!UnitMayMatch(s, p)) return false;
  }
  return true;
}

std::string QuoteLiteral(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string QuoteIdentifier(const std::string& s) {
  bool plain = !s.empty() && (std::islower(static_cast<unsigned char>(s[0])) || s[0] == '_');
  for (char c : s) {
    plain = plain && (std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_');
  }
  if (plain) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

struct ForeignTable::Impl {
  Options options;
  mutable std::mutex mu;
  std::vector<std::string> paths;  // GUARDED_BY(mu): as last listed
};

std::string ForeignTableDef::ToSql() const {
  std::string s = "CREATE FOREIGN TABLE " + QuoteIdentifier(name) + " (";
  for (size_t i = 0; i < columns.size(); ++i) {
    const ForeignColumnDef& c = columns[i];
    s += (i ? ", " : "") + QuoteIdentifier(c.name) + " " + c.type_sql;
    if (c.not_null) s += " NOT NULL";
    std::vector<std::string> o;
    if (!c.field.empty()) o.push_back("field " + QuoteLiteral(c.field));
    if (!c.virtual_key.empty()) o.push_back("virtual " + QuoteLiteral(c.virtual_key));
    if (!c.metadata_key.empty())
      o.push_back((c.metadata_split ? "virtual_metadata_split " : "virtual_metadata ") + QuoteLiteral(c.metadata_key));
    if (!o.empty()) {
      s += " OPTIONS (";
      for (size_t k = 0; k < o.size(); ++k) s += (k ? ", " : "") + o[k];
      s += ")";
    }
  }
  s += ") SERVER arrow_fdw OPTIONS (";
  for (size_t i = 0; i < options.size(); ++i) {
    s += (i ? ", " : "") + options[i].first + " " + QuoteLiteral(options[i].second);
  }
  return s + ")";
}

Status ValidateForeignTableDef(const ForeignTableDef& def) {
  QUIVER_RETURN_NOT_OK(ParseOptions(def.options).status());
  for (size_t i = 0; i < def.columns.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (def.columns[j].name == def.columns[i].name)
        return Status::Invalid("column \"{}\" specified more than once", def.columns[i].name)
            .WithSqlState(sqlstate::kDuplicateColumn);
    }
  }
  if (def.columns.empty())
    return Status::Unsupported("a foreign table without columns");
  return Status::OK();
}

Result<std::vector<std::string>> ForeignTableFiles(
    const std::vector<std::pair<std::string, std::string>>& options) {
  QUIVER_ASSIGN_OR_RAISE(Options o, ParseOptions(options));
  QUIVER_ASSIGN_OR_RAISE(auto entries, ListFiles(o));
  std::vector<std::string> out;
  for (auto& e : entries) out.push_back(std::move(e.path));
  return out;
}

Result<std::shared_ptr<ForeignTable>> ForeignTable::Open(ForeignTableDef def) {
  QUIVER_RETURN_NOT_OK(ValidateForeignTableDef(def));
  auto t = std::shared_ptr<ForeignTable>(new ForeignTable());
  t->impl_ = std::make_shared<Impl>();
  QUIVER_ASSIGN_OR_RAISE(t->impl_->options, ParseOptions(def.options));
  QUIVER_ASSIGN_OR_RAISE(auto entries, ListFiles(t->impl_->options));
  // Bare numeric takes the first file's precision and scale.
  formats::ReadOptions read;
  read.validate_full = false;
  std::shared_ptr<formats::FileReader> first;
  if (!entries.empty()) {
    QUIVER_ASSIGN_OR_RAISE(first, formats::OpenFile(entries[0].path, formats::FileFormat::kAuto, read));
  }
  std::vector<FieldRef> fields;
  for (ForeignColumnDef& c : def.columns) {
    if (IsBareNumeric(c.type_sql) && !c.is_virtual() && first != nullptr) {
      const int f = FindField(*first->schema(), c.field.empty() ? c.name : c.field);
      if (f >= 0) {
        auto e = ToEngineType(first->schema()->field(f)->type);
        if (e.ok() && (*e)->id == TypeId::kDecimal128) c.type = *e;
      }
    }
    fields.push_back(field(c.name, c.type, !c.not_null));
  }
  t->schema_ = quiver::schema(std::move(fields));
  int64_t rows = 0;
  std::vector<std::string> paths;
  for (const FileEntry& e : entries) {
    QUIVER_ASSIGN_OR_RAISE(auto virtuals, VirtualValues(e, def, *t->schema_));
    QUIVER_ASSIGN_OR_RAISE(BoundFile b, BindFile(e, def, *t->schema_, std::move(virtuals), t->impl_->options.missing_null));
    const int64_t n = b.reader->num_rows();
    rows = (rows < 0 || n < 0) ? -1 : rows + n;
    paths.push_back(e.path);
  }
  t->rows_ = rows;
  t->impl_->paths = std::move(paths);
  t->def_ = std::move(def);
  return t;
}

std::vector<std::string> ForeignTable::paths() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->paths;
}

std::string ForeignTable::Describe() const {
  std::string opts;
  for (const auto& [k, v] : def_.options) opts += (opts.empty() ? "" : ", ") + k + " " + QuoteLiteral(v);
  return fmt::format("foreign table over {} files (arrow_fdw: {})", paths().size(), opts);
}

Result<std::unique_ptr<ScanPlan>> ForeignTable::Plan(const ScanRequest& request) const {
  QUIVER_ASSIGN_OR_RAISE(auto entries, ListFiles(impl_->options));
  std::vector<BoundFile> files;
  std::vector<ForeignScanPlan::Unit> units;
  std::vector<int> stream_files;
  std::vector<std::string> paths;
  int64_t total = 0, pruned = 0, skipped_files = 0, rows_pruned = 0;
  const int ncols = schema_->num_fields();
  std::vector<int> stat_columns = request.statistics_columns;
  for (const ScanPredicate& p : request.predicates) p.Columns(&stat_columns);
  for (const FileEntry& e : entries) {
    paths.push_back(e.path);
    QUIVER_ASSIGN_OR_RAISE(auto virtuals, VirtualValues(e, def_, *schema_));
    // Whole files ruled out by their virtual columns are never opened.
    if (!MayMatch(VirtualStatistics(virtuals, def_, -1), request.predicates)) {
      ++skipped_files;
      continue;
    }
    QUIVER_ASSIGN_OR_RAISE(BoundFile b, BindFile(e, def_, *schema_, std::move(virtuals), impl_->options.missing_null));
    const int f = static_cast<int>(files.size());
    const auto& reader = b.reader;
    const int n = reader->num_units();
    if (n < 0) {
      stream_files.push_back(f);
    }
    for (int u = 0; u < n; ++u) {
      ++total;
      ForeignScanPlan::Unit unit{f, u, VirtualStatistics(b.virtuals, def_, reader->unit_rows(u), &b.missing), {}};
      AddMetadataStatistics(b, def_, u, &unit.stats);
      bool have_stats = false;
      for (const int column : stat_columns) {
        if (column < 0 || column >= ncols) continue;
        if (b.missing[static_cast<size_t>(column)]) have_stats = true;  // all NULL here
        if (!def_.columns[static_cast<size_t>(column)].metadata_key.empty()) have_stats = true;  // exact
        if (b.field[static_cast<size_t>(column)] < 0) continue;
        const formats::ColumnStatistics s = reader->unit_statistics(u, b.field[static_cast<size_t>(column)]);
        const TypeRef& et = schema_->field(column)->type;
        const TypeRef& ft = b.types[static_cast<size_t>(column)];
        unit.stats.min[static_cast<size_t>(column)] = WidenValue(StatValue(s.min, ft, request.pool), et);
        unit.stats.max[static_cast<size_t>(column)] = WidenValue(StatValue(s.max, ft, request.pool), et);
        unit.stats.nulls[static_cast<size_t>(column)] = s.null_count;
        have_stats = true;
      }
      if (have_stats && !MayMatch(unit.stats, request.predicates)) {
        ++pruned;
        continue;
      }
      if (have_stats && unit.stats.rows > 0) {
        // Pages inside the unit (a Parquet page index).
        const UnitRows rows = RowsMayMatch(
            *reader, u, unit.stats.rows, request.predicates, ncols,
            [&](int c) { return b.field[static_cast<size_t>(c)]; },
            [&](const ArrayRef& a, int c) {
              return WidenValue(StatValue(a, b.types[static_cast<size_t>(c)], request.pool),
                                schema_->field(c)->type);
            });
        if (rows.none) {
          ++pruned;
          continue;
        }
        if (!rows.ranges.empty()) {
          rows_pruned += unit.stats.rows - rows.rows();
          unit.rows = rows.ranges;
        }
      }
      units.push_back(std::move(unit));
    }
    files.push_back(std::move(b));
  }
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->paths = std::move(paths);
  }
  const int64_t opened = static_cast<int64_t>(files.size());
  auto plan = std::make_unique<ForeignScanPlan>(schema_, request.columns, std::move(files), std::move(units),
                                                std::move(stream_files), request.pool);
  plan->counters().units_total = total;
  plan->counters().units_pruned = pruned;
  plan->counters().rows_pruned = rows_pruned;
  plan->counters().files = opened;
  plan->counters().files_skipped = skipped_files;
  return std::unique_ptr<ScanPlan>(std::move(plan));
}

std::vector<std::string> ForeignTable::ExplainLines(const ScanRequest& request, const ScanPlan* plan) const {
  std::vector<std::string> out;
  std::vector<std::string> names;
  for (const auto& f : schema_->fields) names.push_back(f->name);
  std::string referenced;
  for (int c : request.columns) referenced += (referenced.empty() ? "" : ", ") + names[static_cast<size_t>(c)];
  out.push_back("referenced: " + referenced);
  const auto* fplan = dynamic_cast<const ForeignScanPlan*>(plan);
  if (!request.predicates.empty()) {
    std::string hint;
    for (const auto& p : request.predicates) hint += (hint.empty() ? "" : " AND ") + p.ToString(names);
    const bool grouped = request.predicates.size() == 1 && (request.predicates[0].op == ScanPredicate::kOr ||
                                                            request.predicates[0].op == ScanPredicate::kAnd);
    std::string line = "Stats-Hint: " + (grouped ? hint : "(" + hint + ")");
    if (fplan != nullptr) {
      const auto& c = fplan->counters();
      line += fmt::format(" [loaded: {}, skipped: {}]", c.units_total.load() - c.units_pruned.load(),
                          c.units_pruned.load());
    }
    out.push_back(line);
  }
  constexpr size_t kMaxFiles = 20;
  if (fplan != nullptr) {
    const auto& c = fplan->counters();
    out.push_back(fmt::format("files: {} read, {} skipped by virtual columns", c.files.load(),
                              c.files_skipped.load()));
    const auto& files = fplan->files();
    for (size_t i = 0; i < files.size() && i < kMaxFiles; ++i) {
      out.push_back(fmt::format("file{}: {} (read: {}, size: {})", i, files[i].path,
                                FormatBytes(files[i].reader->bytes_read()),
                                FormatBytes(files[i].reader->total_bytes())));
    }
    if (files.size() > kMaxFiles) out.push_back(fmt::format("... and {} more files", files.size() - kMaxFiles));
  } else {
    const auto list = paths();
    for (size_t i = 0; i < list.size() && i < kMaxFiles; ++i) {
      std::error_code ec;
      const auto size = fs::file_size(list[i], ec);
      out.push_back(fmt::format("file{}: {} (size: {})", i, list[i],
                                ec ? std::string("?") : FormatBytes(static_cast<int64_t>(size))));
    }
    if (list.size() > kMaxFiles) out.push_back(fmt::format("... and {} more files", list.size() - kMaxFiles));
  }
  return out;
}

// --- IMPORT FOREIGN SCHEMA -------------------------------------------------------------------

Result<ForeignTableDef> ImportForeignTableDef(
    const std::string& name, const std::vector<std::pair<std::string, std::string>>& options) {
  ForeignTableDef def;
  def.name = name;
  def.options = options;
  QUIVER_ASSIGN_OR_RAISE(Options o, ParseOptions(options));
  QUIVER_ASSIGN_OR_RAISE(auto entries, ListFiles(o));
  if (entries.empty())
    return Status::IOError("IMPORT FOREIGN SCHEMA {}: the options name no files", name)
        .WithSqlState(sqlstate::kUndefinedFile);
  formats::ReadOptions read;
  read.validate_full = false;
  SchemaRef first;
  std::vector<TypeRef> types;
  for (const FileEntry& e : entries) {
    QUIVER_ASSIGN_OR_RAISE(auto reader, formats::OpenFile(e.path, formats::FileFormat::kAuto, read));
    const SchemaRef s = reader->schema();
    if (first == nullptr) {
      first = s;
      for (const auto& f : s->fields) {
        auto t = ToEngineType(f->type);
        if (!t.ok())
          return Status::Unsupported("IMPORT FOREIGN SCHEMA {}: file '{}' field \"{}\" of type {} has no SQL type here",
                                     name, e.path, f->name, f->type->ToString());
        types.push_back(*t);
      }
      continue;
    }
    if (s->num_fields() != first->num_fields())
      return Status::Invalid("IMPORT FOREIGN SCHEMA {}: file '{}' has {} fields where '{}' has {}", name, e.path,
                             s->num_fields(), entries[0].path, first->num_fields())
          .WithSqlState(sqlstate::kDatatypeMismatch);
    for (int i = 0; i < s->num_fields(); ++i) {
      auto t = ToEngineType(s->field(i)->type);
      if (s->field(i)->name != first->field(i)->name || !t.ok() || !(*t)->Equals(*types[static_cast<size_t>(i)]))
        return Status::Invalid("IMPORT FOREIGN SCHEMA {}: file '{}' field {} is \"{}\" {} where '{}' has \"{}\" {}",
                               name, e.path, i + 1, s->field(i)->name, s->field(i)->type->ToString(), entries[0].path,
                               first->field(i)->name, first->field(i)->type->ToString())
            .WithSqlState(sqlstate::kDatatypeMismatch);
    }
  }
  for (int i = 0; i < first->num_fields(); ++i) {
    ForeignColumnDef c;
    c.name = first->field(i)->name;
    c.type = types[static_cast<size_t>(i)];
    c.type_sql = PgTypeNameWithModifiers(*c.type);
    def.columns.push_back(std::move(c));
  }
  // Virtual columns: the pattern's captures in order, then Hive keys.
  auto has_column = [&](const std::string& n) {
    for (const auto& c : def.columns) {
      if (c.name == n) return true;
    }
    return false;
  };
  if (!o.pattern.empty()) {
    QUIVER_ASSIGN_OR_RAISE(auto tokens, ParsePattern(o.pattern));
    for (const auto& t : tokens) {
      if ((t.kind != PatternToken::kText && t.kind != PatternToken::kDigits) || has_column(t.key)) continue;
      ForeignColumnDef c;
      c.name = t.key;
      c.type = t.kind == PatternToken::kDigits ? int64() : utf8();
      c.type_sql = t.kind == PatternToken::kDigits ? "bigint" : "text";
      c.virtual_key = t.key;
      def.columns.push_back(std::move(c));
    }
  }
  if (o.hive) {
    // Keys in order of appearance; a type every value fits: bigint, date,
    // timestamp, else text.
    std::vector<std::string> keys;
    for (const FileEntry& e : entries) {
      for (const auto& [k, v] : e.captures) {
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
      }
    }
    for (const std::string& k : keys) {
      if (has_column(k)) continue;
      bool all_int = true, all_date = true, all_ts = true;
      for (const FileEntry& e : entries) {
        auto it = e.captures.find(k);
        if (it == e.captures.end() || it->second == kHiveNull) continue;
        ForeignColumnDef probe;
        probe.name = k;
        probe.type = int64();
        all_int = all_int && VirtualValue(it->second, probe, e.path).ok();
        probe.type = date32();
        all_date = all_date && VirtualValue(it->second, probe, e.path).ok();
        probe.type = timestamp(TimeUnit::kMicro);
        all_ts = all_ts && VirtualValue(it->second, probe, e.path).ok();
      }
      ForeignColumnDef c;
      c.name = k;
      c.type = all_int ? int64() : all_date ? date32() : all_ts ? timestamp(TimeUnit::kMicro) : utf8();
      c.type_sql = all_int ? "bigint" : all_date ? "date" : all_ts ? "timestamp" : "text";
      c.virtual_key = k;
      def.columns.push_back(std::move(c));
    }
  }
  return def;
}

}  // namespace quiver
