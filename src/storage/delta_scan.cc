#include "storage/delta_scan.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "catalog/file_table.h"
#include "functions/cast.h"
#include "storage/data_file_scan.h"
#include "storage/delta_deletion_vector.h"

namespace quiver::delta {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

Status CheckPolicy(const FileAccessPolicy* policy, const std::string& path) {
  if (policy == nullptr || !policy->restricted()) return Status::OK();
  return policy->Check(path);
}

// A binary partition value: "a string of escaped binary values" (the
// protocol's example "\u0001\u0002\u0003"; delta-rs writes every byte so):
// each \uXXXX of 00 to FF is one byte, other characters stand for
// themselves.
std::string UnescapeBinary(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 5 < s.size() && s[i + 1] == 'u' && s.compare(i + 2, 2, "00") == 0 &&
        std::isxdigit(static_cast<unsigned char>(s[i + 4])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 5]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 4, 2), nullptr, 16)));
      i += 5;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// A partition value (the log's string) as a value of `type`.
Result<Value> PartitionValue(const std::string& s, const TypeRef& type) {
  switch (type->id) {
    case TypeId::kString:
      return Value::Text(s);
    case TypeId::kBinary:
      return Value::Binary(UnescapeBinary(s));
    default:
      return CastValue(Value::Text(s), type);
  }
}

size_t CodePoints(const std::string& s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// A statistics bound (a JSON value of minValues / maxValues) as a value of
// `type`; nullopt where the bound cannot be trusted or read. `upper`: a
// maximum (timestamps are truncated down to milliseconds, strings may be
// truncated prefixes).
std::optional<Value> StatsBound(const Json& j, const TypeRef& type, bool upper) {
  Value text;
  switch (type->id) {
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      if (!j.is_number_integer()) return std::nullopt;
      text = Value::Int64(j.get<int64_t>());
      break;
    case TypeId::kDecimal128:
      // JSON numbers go through a double: only precisions it holds exactly.
      if (!j.is_number() || type->precision > 15) return std::nullopt;
      text = Value::Text(j.dump());
      break;
    case TypeId::kDate32:
    case TypeId::kTimestamp:
      if (!j.is_string()) return std::nullopt;
      text = Value::Text(j.get<std::string>());
      break;
    case TypeId::kString: {
      if (!j.is_string()) return std::nullopt;
      std::string s = j.get<std::string>();
      if (upper && CodePoints(s) >= 32) return std::nullopt;
      return Value::Text(std::move(s));
    }
    default:
      return std::nullopt;  // floating point (NaN), booleans, binary, nested
  }
  auto v = CastValue(text, type);
  if (!v.ok() || v->is_null()) return std::nullopt;
  if (type->id == TypeId::kTimestamp && upper) {
    return Value::Timestamp(v->integer() + 999, !type->timezone.empty());
  }
  return *v;
}

}  // namespace

Result<std::shared_ptr<const DeltaRows>> DeltaRows::Make(std::string name, const std::string& dir,
                                                         const LogState& state,
                                                         const FileAccessPolicy* policy) {
  std::shared_ptr<DeltaRows> rows(new DeltaRows());
  rows->name_ = std::move(name);
  rows->mode_ = ColumnMappingMode(state);
  const std::string what = fmt::format("{} version {}", dir, state.version);
  QUIVER_ASSIGN_OR_RAISE(rows->columns_, SchemaColumns(state, what));
  std::vector<FieldRef> fields;
  for (const Column& c : rows->columns_) fields.push_back(field(c.name, c.type, true));
  rows->schema_ = quiver::schema(std::move(fields));
  const size_t cols = rows->columns_.size();
  for (const auto& [key, add] : state.files) {
    File f;
    QUIVER_ASSIGN_OR_RAISE(f.path, DataFilePath(dir, add.path));
    QUIVER_RETURN_NOT_OK(CheckPolicy(policy, f.path));
    f.constants.resize(cols);
    f.stats.min.assign(cols, Value());
    f.stats.max.assign(cols, Value());
    f.stats.nulls.assign(cols, -1);
    Json stats;
    if (!add.stats.empty()) {
      stats = Json::parse(add.stats, nullptr, /*allow_exceptions=*/false);
      if (stats.is_discarded() || !stats.is_object()) stats = Json();  // statistics are optional
    }
    if (stats.is_object() && stats.contains("numRecords") &&
        stats["numRecords"].is_number_integer()) {
      f.stats.rows = stats["numRecords"].get<int64_t>();
    } else {
      QUIVER_ASSIGN_OR_RAISE(auto file, FileTable::Open(rows->name_, f.path));
      f.stats.rows = file->EstimatedRows();
    }
    auto section = [&](const char* name) -> const Json* {
      if (!stats.is_object()) return nullptr;
      auto it = stats.find(name);
      return it != stats.end() && it->is_object() ? &*it : nullptr;
    };
    const Json* mins = section("minValues");
    const Json* maxs = section("maxValues");
    const Json* nulls = section("nullCount");
    for (size_t c = 0; c < cols; ++c) {
      const Column& col = rows->columns_[c];
      if (col.partition) {
        auto it = add.partition_values.find(col.physical_name);
        std::optional<std::string> s;
        if (it != add.partition_values.end()) s = it->second;
        if (!s.has_value() || s->empty()) {
          f.constants[c] = Value::Null(col.type);
          f.stats.nulls[c] = f.stats.rows;
          continue;
        }
        auto v = PartitionValue(*s, col.type);
        if (!v.ok()) {
          return Status::Invalid(
                     "Delta table {}: partition value '{}' of column \"{}\" (data file "
                     "{}) is not a {}: {}",
                     dir, *s, col.name, add.path, col.type->ToString(), v.status().message())
              .WithSqlState(sqlstate::kDataCorrupted);
        }
        f.constants[c] = *v;
        f.stats.min[c] = *v;
        f.stats.max[c] = *v;
        f.stats.nulls[c] = 0;
        continue;
      }
      if (nulls != nullptr) {
        auto n = nulls->find(col.physical_name);
        if (n != nulls->end() && n->is_number_integer()) f.stats.nulls[c] = n->get<int64_t>();
      }
      if (mins == nullptr || maxs == nullptr) continue;
      auto lo = mins->find(col.physical_name);
      auto hi = maxs->find(col.physical_name);
      if (lo == mins->end() || hi == maxs->end()) continue;
      auto a = StatsBound(*lo, col.type, false);
      auto b = StatsBound(*hi, col.type, true);
      if (!a.has_value() || !b.has_value()) continue;
      f.stats.min[c] = std::move(*a);
      f.stats.max[c] = std::move(*b);
    }
    if (add.deletion_vector.has_value()) {
      QUIVER_ASSIGN_OR_RAISE(f.deleted,
                             ReadDeletionVector(*add.deletion_vector, dir, f.stats.rows, policy));
      // The statistics count the file's rows before deletes: a null count
      // says something only when it is 0 or every row (the protocol's wide
      // bounds); minimum and maximum still bound the rows left.
      for (int64_t& n : f.stats.nulls) {
        if (n != 0 && n != f.stats.rows) n = -1;
      }
    }
    if (f.stats.rows > 0) rows->rows_ += f.stats.rows - static_cast<int64_t>(f.deleted.size());
    rows->files_.push_back(std::move(f));
  }
  return std::shared_ptr<const DeltaRows>(std::move(rows));
}

Result<std::unique_ptr<ScanPlan>> DeltaRows::Plan(const ScanRequest& request) const {
  std::vector<DataFileRef> kept;
  for (const File& f : files_) {
    bool may = true;
    for (const ScanPredicate& p : request.predicates) may = may && UnitMayMatch(f.stats, p);
    if (!may) continue;
    DataFileRef ref;
    ref.path = f.path;
    ref.constants = &f.constants;
    if (!f.deleted.empty()) ref.deleted = &f.deleted;
    kept.push_back(std::move(ref));
  }
  DataFileScan scan;
  scan.format = "Delta";
  scan.name = name_;
  scan.schema = schema_;
  // Columns by name, by physical name (column mapping "name") or by field
  // id (column mapping "id").
  scan.match = [this](const FileTable& file) {
    const Schema& fs = *file.schema();
    const std::vector<int> ids = mode_ == "id" ? FileFieldIds(file) : std::vector<int>();
    return MatchFileColumns(file, columns_.size(), [&](size_t c, int k) {
      return mode_ == "id"
                 ? columns_[c].field_id >= 0 && ids[static_cast<size_t>(k)] == columns_[c].field_id
                 : fs.field(k)->name == columns_[c].physical_name;
    });
  };
  scan.describe = [this](int c) {
    const Column& col = columns_[static_cast<size_t>(c)];
    return col.physical_name == col.name
               ? fmt::format("column \"{}\"", col.name)
               : fmt::format("column \"{}\" (physical name {})", col.name, col.physical_name);
  };
  const auto total = static_cast<int64_t>(files_.size());
  const int64_t pruned = total - static_cast<int64_t>(kept.size());
  return PlanDataFiles(scan, std::move(kept), request, total, pruned, {shared_from_this()});
}

Result<std::shared_ptr<MemoryTable>> ReadDeltaTable(const std::string& name,
                                                    const std::string& given,
                                                    const ReadOptions& options) {
  QUIVER_RETURN_NOT_OK(CheckPolicy(options.policy, given));
  std::string dir = given;
  if (dir.rfind("file://", 0) == 0) dir = dir.substr(7);
  std::error_code ec;
  dir = fs::absolute(dir, ec).lexically_normal().string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  QUIVER_ASSIGN_OR_RAISE(LogState state, ReplayLog(dir, options.version, options.policy));
  QUIVER_RETURN_NOT_OK(CheckReadable(state, dir));
  QUIVER_ASSIGN_OR_RAISE(auto rows, DeltaRows::Make(name, dir, state, options.policy));
  SchemaRef schema = rows->schema();
  return StoredRowsTable(name, std::move(schema), std::move(rows));
}

}  // namespace quiver::delta
