#include "storage/delta_log.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "catalog/file_table.h"
#include "common/io.h"
#include "storage/data_file_scan.h"
#include "vector/sql_type.h"
#include "vector/value.h"

namespace quiver::delta {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

Status Malformed(const std::string& what, const std::string& why) {
  return Status::Invalid("Delta log {}: {}", what, why).WithSqlState(sqlstate::kDataCorrupted);
}

Status CheckPolicy(const FileAccessPolicy* policy, const std::string& path) {
  if (policy == nullptr || !policy->restricted()) return Status::OK();
  return policy->Check(path);
}

Result<std::string> ReadText(const std::string& path) {
  QUIVER_ASSIGN_OR_RAISE(auto buffer, ReadFileFully(path));
  return std::string(reinterpret_cast<const char*>(buffer->data()),
                     static_cast<size_t>(buffer->size()));
}

// "%20" -> ' ' (Delta's add / remove paths are URI-encoded).
std::string PercentDecode(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// The string member `key` of `o` (nullopt when absent or null); an error
// when it has another type.
Result<std::optional<std::string>> OptString(const Json& o, const char* key,
                                             const std::string& what) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) return Malformed(what, fmt::format("\"{}\" is not a string", key));
  return std::optional<std::string>(it->get<std::string>());
}

Result<std::string> ReqString(const Json& o, const char* key, const std::string& what) {
  QUIVER_ASSIGN_OR_RAISE(auto s, OptString(o, key, what));
  if (!s.has_value()) return Malformed(what, fmt::format("\"{}\" is missing", key));
  return *s;
}

Result<std::vector<std::string>> StringArray(const Json& o, const char* key,
                                             const std::string& what) {
  std::vector<std::string> out;
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return out;
  if (!it->is_array()) return Malformed(what, fmt::format("\"{}\" is not an array", key));
  for (const Json& e : *it) {
    if (!e.is_string()) return Malformed(what, fmt::format("\"{}\" holds a non-string", key));
    out.push_back(e.get<std::string>());
  }
  return out;
}

Result<int64_t> ReqInt(const Json& o, const char* key, const std::string& what) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number_integer()) {
    return Malformed(what, fmt::format("\"{}\" is not an integer", key));
  }
  return it->get<int64_t>();
}

// The deletionVector of an add / remove (nullopt when none).
Result<std::optional<DeletionVector>> ParseDeletionVector(const Json& body,
                                                          const std::string& what) {
  auto it = body.find("deletionVector");
  if (it == body.end() || it->is_null()) return std::optional<DeletionVector>();
  if (!it->is_object()) return Malformed(what, "deletionVector is not an object");
  DeletionVector dv;
  QUIVER_ASSIGN_OR_RAISE(std::string type, ReqString(*it, "storageType", what));
  if (type.size() != 1) return Malformed(what, "deletionVector.storageType is not one character");
  dv.storage_type = type[0];
  QUIVER_ASSIGN_OR_RAISE(dv.path_or_inline_dv, ReqString(*it, "pathOrInlineDv", what));
  if (auto o = it->find("offset"); o != it->end() && !o->is_null()) {
    if (!o->is_number_integer()) return Malformed(what, "deletionVector.offset is not an integer");
    dv.offset = o->get<int64_t>();
  }
  QUIVER_ASSIGN_OR_RAISE(dv.size_in_bytes, ReqInt(*it, "sizeInBytes", what));
  QUIVER_ASSIGN_OR_RAISE(dv.cardinality, ReqInt(*it, "cardinality", what));
  return std::optional<DeletionVector>(std::move(dv));
}

// A live file's key: its path and its deletion vector's unique id.
std::string FileKey(const std::string& path, const std::optional<DeletionVector>& dv) {
  return dv.has_value() ? path + "\n" + dv->UniqueId() : path;
}

// Applies one action (an object of one key: add, remove, metaData, ...).
// `checkpoint`: a checkpoint's row, whose removes are tombstones only.
Status ApplyAction(const Json& action, const std::string& what, bool checkpoint, LogState* state) {
  if (!action.is_object()) return Malformed(what, "an action is not a JSON object");
  for (auto entry = action.begin(); entry != action.end(); ++entry) {
    const std::string& kind = entry.key();
    const Json& body = entry.value();
    if (body.is_null()) continue;
    if (kind == "add" || kind == "remove" || kind == "metaData" || kind == "protocol") {
      if (!body.is_object()) return Malformed(what, fmt::format("\"{}\" is not an object", kind));
    }
    if (kind == "add") {
      AddFile f;
      QUIVER_ASSIGN_OR_RAISE(std::string path, ReqString(body, "path", what + " (add)"));
      f.path = PercentDecode(path);
      if (f.path.empty()) return Malformed(what, "an add with an empty path");
      if (auto pv = body.find("partitionValues"); pv != body.end() && !pv->is_null()) {
        if (!pv->is_object()) return Malformed(what, "add.partitionValues is not an object");
        for (auto e = pv->begin(); e != pv->end(); ++e) {
          const std::string& k = e.key();
          const Json& v = e.value();
          if (v.is_null()) {
            f.partition_values[k] = std::nullopt;
          } else if (v.is_string()) {
            f.partition_values[k] = v.get<std::string>();
          } else {
            return Malformed(what,
                             fmt::format("partition value \"{}\" of {} is not a string", k, path));
          }
        }
      }
      QUIVER_ASSIGN_OR_RAISE(auto stats, OptString(body, "stats", what + " (add)"));
      f.stats = stats.value_or("");
      QUIVER_ASSIGN_OR_RAISE(f.deletion_vector, ParseDeletionVector(body, what + " (add)"));
      std::string key = FileKey(f.path, f.deletion_vector);
      state->files[key] = std::move(f);
    } else if (kind == "remove") {
      QUIVER_ASSIGN_OR_RAISE(std::string path, ReqString(body, "path", what + " (remove)"));
      QUIVER_ASSIGN_OR_RAISE(auto dv, ParseDeletionVector(body, what + " (remove)"));
      if (!checkpoint) state->files.erase(FileKey(PercentDecode(path), dv));
    } else if (kind == "metaData") {
      Metadata m;
      QUIVER_ASSIGN_OR_RAISE(m.schema_string,
                             ReqString(body, "schemaString", what + " (metaData)"));
      QUIVER_ASSIGN_OR_RAISE(m.partition_columns,
                             StringArray(body, "partitionColumns", what + " (metaData)"));
      if (auto c = body.find("configuration"); c != body.end() && !c->is_null()) {
        if (!c->is_object()) return Malformed(what, "metaData.configuration is not an object");
        for (auto e = c->begin(); e != c->end(); ++e) {
          if (e.value().is_string()) m.configuration[e.key()] = e.value().get<std::string>();
        }
      }
      if (auto f = body.find("format"); f != body.end() && f->is_object()) {
        QUIVER_ASSIGN_OR_RAISE(auto provider,
                               OptString(*f, "provider", what + " (metaData.format)"));
        if (provider.has_value() && *provider != "parquet") {
          return Status::Unsupported("Delta tables of {} files ({})", *provider, what);
        }
      }
      state->metadata = std::move(m);
    } else if (kind == "protocol") {
      Protocol p;
      QUIVER_ASSIGN_OR_RAISE(p.min_reader_version,
                             ReqInt(body, "minReaderVersion", what + " (protocol)"));
      QUIVER_ASSIGN_OR_RAISE(p.min_writer_version,
                             ReqInt(body, "minWriterVersion", what + " (protocol)"));
      QUIVER_ASSIGN_OR_RAISE(p.reader_features,
                             StringArray(body, "readerFeatures", what + " (protocol)"));
      state->protocol = std::move(p);
    } else if (kind == "sidecar") {
      return Status::Unsupported("Delta v2 checkpoints with sidecar files ({})", what);
    }
    // txn, commitInfo, cdc, domainMetadata, checkpointMetadata: nothing a
    // reader of the rows needs.
  }
  return Status::OK();
}

// A checkpoint cell as the JSON a commit would hold.
Json CellJson(const ArrayData& a, int64_t i) {
  if (a.IsNull(i)) return nullptr;
  switch (a.type->id) {
    case TypeId::kStruct: {
      Json o = Json::object();
      for (size_t k = 0; k < a.children.size() && k < a.type->children.size(); ++k) {
        o[a.type->children[k]->name] = CellJson(*a.children[k], a.offset + i);
      }
      return o;
    }
    case TypeId::kMap: {
      Json o = Json::object();
      const int32_t* offsets = a.GetValues<int32_t>(1);
      const ArrayData& entries = *a.children[0];
      if (offsets == nullptr || entries.children.size() < 2) return o;
      for (int32_t j = offsets[i]; j < offsets[i + 1]; ++j) {
        Json key = CellJson(*entries.children[0], entries.offset + j);
        if (!key.is_string()) continue;
        o[key.get<std::string>()] = CellJson(*entries.children[1], entries.offset + j);
      }
      return o;
    }
    case TypeId::kList: {
      Json arr = Json::array();
      const int32_t* offsets = a.GetValues<int32_t>(1);
      if (offsets == nullptr || a.children.empty()) return arr;
      for (int32_t j = offsets[i]; j < offsets[i + 1]; ++j)
        arr.push_back(CellJson(*a.children[0], j));
      return arr;
    }
    default:
      break;
  }
  if (!ValueHolds(*a.type)) return nullptr;
  const Value v = ValueFromArray(a, i);
  if (v.is_null()) return nullptr;
  switch (a.type->id) {
    case TypeId::kBool:
      return v.boolean();
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      return v.integer();
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
      return v.str();
    default:
      return v.ToString();
  }
}

// Applies the actions of one checkpoint file (a part).
Status ApplyCheckpoint(const std::string& path, LogState* state) {
  QUIVER_ASSIGN_OR_RAISE(auto file, FileTable::Open("checkpoint", path));
  for (const auto& [name, why] : file->UnreadableColumns()) {
    if (name == "add" || name == "metaData" || name == "protocol") {
      return Status::Unsupported("Delta checkpoint {}: column \"{}\" is not readable ({})", path,
                                 name, why);
    }
  }
  const Schema& s = *file->schema();
  std::vector<int> cols;
  for (int c = 0; c < s.num_fields(); ++c) {
    const std::string& n = s.field(c)->name;
    if (n == "add" || n == "metaData" || n == "protocol" || n == "sidecar") cols.push_back(c);
  }
  QUIVER_ASSIGN_OR_RAISE(auto batches, ReadAllRows(*file));
  for (const RecordBatchRef& b : batches) {
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      for (int c : cols) {
        const ArrayData& a = *b->column(c);
        if (a.IsNull(r)) continue;
        Json action = Json::object();
        action[s.field(c)->name] = CellJson(a, r);
        QUIVER_RETURN_NOT_OK(ApplyAction(action, path, /*checkpoint=*/true, state));
      }
    }
  }
  return Status::OK();
}

// What _delta_log holds.
struct Listing {
  std::set<int64_t> commits;
  // Per version: its single-file checkpoint (parts 1), or the parts of a
  // multi-part one by part count.
  std::map<int64_t, std::map<int64_t, std::set<int64_t>>> checkpoints;  // version -> parts -> {k}
  std::set<int64_t> uuid_checkpoints;                                   // v2 (refused)
};

bool AllDigits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// The number `s` (all digits) spells; nullopt past int64.
std::optional<int64_t> Digits(const std::string& s) {
  int64_t n = 0;
  for (char c : s) {
    if (n > (INT64_MAX - (c - '0')) / 10) return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

// Parses a log file name into `out`; others are ignored (.crc, compacted
// logs, temporary files).
void ClassifyLogFile(const std::string& name, Listing* out) {
  if (name.size() < 21 || !AllDigits(name.substr(0, 20)) || name[20] != '.') return;
  const std::optional<int64_t> version = Digits(name.substr(0, 20));
  if (!version.has_value()) return;
  const int64_t v = *version;
  const std::string rest = name.substr(21);
  if (rest == "json") {
    out->commits.insert(v);
    return;
  }
  if (rest == "checkpoint.parquet") {
    out->checkpoints[v][1].insert(1);
    return;
  }
  const std::string prefix = "checkpoint.";
  if (rest.rfind(prefix, 0) != 0) return;
  const std::string tail = rest.substr(prefix.size());
  // K.M.parquet (ten digits each)
  if (tail.size() == 10 + 1 + 10 + 8 && AllDigits(tail.substr(0, 10)) && tail[10] == '.' &&
      AllDigits(tail.substr(11, 10)) && tail.substr(21) == ".parquet") {
    const int64_t k = *Digits(tail.substr(0, 10));  // ten digits fit
    const int64_t m = *Digits(tail.substr(11, 10));
    if (k >= 1 && k <= m) out->checkpoints[v][m].insert(k);
    return;
  }
  if (tail.size() > 5 && (tail.substr(tail.size() - 5) == ".json" ||
                          (tail.size() > 8 && tail.substr(tail.size() - 8) == ".parquet"))) {
    out->uuid_checkpoints.insert(v);
  }
}

std::string CommitName(int64_t v) { return fmt::format("{:020d}.json", v); }

// The files of checkpoint `v` in `parts` parts.
std::vector<std::string> CheckpointFiles(const fs::path& log, int64_t v, int64_t parts) {
  std::vector<std::string> out;
  if (parts == 1) {
    out.push_back((log / fmt::format("{:020d}.checkpoint.parquet", v)).string());
    return out;
  }
  for (int64_t k = 1; k <= parts; ++k) {
    out.push_back(
        (log / fmt::format("{:020d}.checkpoint.{:010d}.{:010d}.parquet", v, k, parts)).string());
  }
  return out;
}

// The part count of a complete checkpoint at `v`, 0 when none.
int64_t CompleteCheckpoint(const Listing& l, int64_t v) {
  auto it = l.checkpoints.find(v);
  if (it == l.checkpoints.end()) return 0;
  for (const auto& [parts, have] : it->second) {
    if (static_cast<int64_t>(have.size()) == parts) return parts;
  }
  return 0;
}

}  // namespace

Status ApplyCommit(const std::string& text, const std::string& what, LogState* state) {
  size_t start = 0;
  int line = 0;
  bool any = false;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++line;
    std::string_view l(text.data() + start, end - start);
    start = end + 1;
    if (std::all_of(l.begin(), l.end(), [](unsigned char c) { return std::isspace(c); })) continue;
    const std::string where = fmt::format("{} line {}", what, line);
    Json j = Json::parse(std::string(l), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return Malformed(where, "not valid JSON");
    QUIVER_RETURN_NOT_OK(ApplyAction(j, where, /*checkpoint=*/false, state));
    any = true;
  }
  if (!any) return Malformed(what, "the commit holds no action");
  return Status::OK();
}

Result<LogState> ReplayLog(const std::string& dir, std::optional<int64_t> version,
                           const FileAccessPolicy* policy) {
  std::error_code ec;
  const fs::path log = fs::path(dir) / "_delta_log";
  if (!fs::is_directory(dir, ec)) {
    return Status::IOError("Delta table \"{}\" does not exist", dir)
        .WithSqlState(sqlstate::kUndefinedFile);
  }
  if (!fs::is_directory(log, ec)) {
    return Status::IOError("\"{}\" is not a Delta table (no _delta_log directory)", dir)
        .WithSqlState(sqlstate::kUndefinedFile);
  }
  Listing l;
  for (const auto& e : fs::directory_iterator(log, ec))
    ClassifyLogFile(e.path().filename().string(), &l);
  if (ec) return Status::IOError("Delta table {}: cannot list _delta_log ({})", dir, ec.message());
  int64_t newest = -1;
  if (!l.commits.empty()) newest = *l.commits.rbegin();
  for (const auto& [v, parts] : l.checkpoints) {
    if (CompleteCheckpoint(l, v) > 0) newest = std::max(newest, v);
  }
  if (newest < 0) {
    if (!l.uuid_checkpoints.empty()) {
      return Status::Unsupported("Delta v2 (UUID-named) checkpoints (table {})", dir);
    }
    return Status::IOError("Delta table {} has no commit in _delta_log", dir)
        .WithSqlState(sqlstate::kUndefinedFile);
  }
  const int64_t target = version.value_or(newest);
  if (target < 0 || target > newest) {
    return Status::Invalid("Delta table {} has no version {} (its newest is {})", dir, target,
                           newest)
        .WithSqlState(sqlstate::kInvalidParameterValue);
  }
  // The checkpoint to start from: _last_checkpoint's when it serves, else
  // the newest complete one at or before the target.
  int64_t cp = -1;
  int64_t cp_parts = 0;
  const fs::path last = log / "_last_checkpoint";
  if (fs::is_regular_file(last, ec)) {
    QUIVER_RETURN_NOT_OK(CheckPolicy(policy, last.string()));
    QUIVER_ASSIGN_OR_RAISE(std::string text, ReadText(last.string()));
    Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object() || !j.contains("version") ||
        !j["version"].is_number_integer()) {
      return Malformed(last.string(), "not a JSON object with an integer \"version\"");
    }
    const int64_t v = j["version"].get<int64_t>();
    int64_t parts = 1;
    if (j.contains("parts") && j["parts"].is_number_integer()) parts = j["parts"].get<int64_t>();
    if (v <= target) {
      auto it = l.checkpoints.find(v);
      if (it == l.checkpoints.end() || it->second.count(parts) == 0 ||
          static_cast<int64_t>(it->second.at(parts).size()) != parts) {
        if (l.uuid_checkpoints.count(v) != 0) {
          return Status::Unsupported("Delta v2 (UUID-named) checkpoints (table {}, version {})",
                                     dir, v);
        }
        return Status::IOError(
                   "Delta log {}: _last_checkpoint names checkpoint {} ({} part(s)), "
                   "whose files are missing",
                   log.string(), v, parts)
            .WithSqlState(sqlstate::kUndefinedFile);
      }
      cp = v;
      cp_parts = parts;
    }
  }
  for (auto it = l.checkpoints.rbegin(); it != l.checkpoints.rend(); ++it) {
    if (it->first > target || it->first <= cp) continue;
    const int64_t parts = CompleteCheckpoint(l, it->first);
    if (parts > 0) {
      cp = it->first;
      cp_parts = parts;
      break;
    }
  }
  LogState state;
  int64_t next = 0;
  if (cp >= 0) {
    for (const std::string& f : CheckpointFiles(log, cp, cp_parts)) {
      QUIVER_RETURN_NOT_OK(CheckPolicy(policy, f));
      auto st = ApplyCheckpoint(f, &state);
      if (!st.ok()) {
        return st.IsNotImplemented() ? st : st.WithContext("Delta checkpoint " + f);
      }
    }
    next = cp + 1;
  } else if (l.commits.count(0) == 0) {
    const int64_t first = l.commits.empty() ? -1 : *l.commits.begin();
    if (!l.uuid_checkpoints.empty()) {
      return Status::Unsupported("Delta v2 (UUID-named) checkpoints (table {})", dir);
    }
    return Status::IOError(
               "Delta log {}: commit {} is missing and no checkpoint at or before "
               "version {} replaces it (the log starts at {})",
               log.string(), CommitName(0), target, first)
        .WithSqlState(sqlstate::kUndefinedFile);
  }
  for (int64_t v = next; v <= target; ++v) {
    const fs::path f = log / CommitName(v);
    if (l.commits.count(v) == 0) {
      return Status::IOError("Delta log {}: commit {} is missing (a gap before version {})",
                             log.string(), CommitName(v), target)
          .WithSqlState(sqlstate::kUndefinedFile);
    }
    QUIVER_RETURN_NOT_OK(CheckPolicy(policy, f.string()));
    QUIVER_ASSIGN_OR_RAISE(std::string text, ReadText(f.string()));
    QUIVER_RETURN_NOT_OK(ApplyCommit(text, f.string(), &state));
  }
  state.version = target;
  if (!state.protocol.has_value()) {
    return Malformed(log.string(), fmt::format("no protocol action up to version {}", target));
  }
  if (!state.metadata.has_value()) {
    return Malformed(log.string(), fmt::format("no metaData action up to version {}", target));
  }
  return state;
}

Status CheckReadable(const LogState& state, const std::string& dir) {
  const Protocol& p = *state.protocol;
  if (p.min_reader_version > 3) {
    return Status::Unsupported("Delta reader version {} (table {}): versions 1 to 3 are read",
                               p.min_reader_version, dir);
  }
  if (p.min_reader_version == 3) {
    static const std::set<std::string> kRead = {"columnMapping", "deletionVectors", "timestampNtz",
                                                "vacuumProtocolCheck"};
    for (const std::string& f : p.reader_features) {
      if (kRead.count(f) == 0) {
        return Status::Unsupported("Delta reader feature {} (table {})", f, dir);
      }
    }
  }
  const std::string mode = ColumnMappingMode(state);
  if (mode != "none" && mode != "name" && mode != "id") {
    return Status::Unsupported("Delta column mapping mode \"{}\" (table {})", mode, dir);
  }
  return Status::OK();
}

std::string ColumnMappingMode(const LogState& state) {
  const Protocol& p = *state.protocol;
  const bool enabled =
      p.min_reader_version == 2 ||
      (p.min_reader_version == 3 && std::find(p.reader_features.begin(), p.reader_features.end(),
                                              "columnMapping") != p.reader_features.end());
  if (!enabled) return "none";
  auto it = state.metadata->configuration.find("delta.columnMapping.mode");
  return it == state.metadata->configuration.end() ? "none" : it->second;
}

Result<std::string> DataFilePath(const std::string& dir, const std::string& path) {
  if (path.rfind("file://", 0) == 0) return path.substr(7);
  if (path.rfind("file:", 0) == 0) return path.substr(5);
  const size_t colon = path.find(':');
  const size_t slash = path.find('/');
  if (colon != std::string::npos && (slash == std::string::npos || colon < slash)) {
    return Status::Unsupported("Delta data files outside the local file system ({})", path);
  }
  if (!path.empty() && path[0] == '/') return path;
  return (fs::path(dir) / path).string();
}

namespace {

// A Spark JSON schema type as an Arrow type (engine-typed by the caller).
Result<TypeRef> DeltaType(const Json& t, const std::string& what, int depth, bool mapped) {
  if (depth > 64) return Malformed(what, "the schema nests too deep");
  if (t.is_string()) {
    const std::string s = t.get<std::string>();
    if (s == "boolean") return boolean();
    if (s == "byte") return int8();
    if (s == "short") return int16();
    if (s == "integer") return int32();
    if (s == "long") return int64();
    if (s == "float") return float32();
    if (s == "double") return float64();
    if (s == "string") return utf8();
    if (s == "binary") return binary();
    if (s == "date") return date32();
    if (s == "timestamp") return timestamp(TimeUnit::kMicro, "UTC");
    if (s == "timestamp_ntz") return timestamp(TimeUnit::kMicro);
    int p = 0;
    int sc = 0;
    char tail = 0;
    if (std::sscanf(s.c_str(), "decimal(%d,%d%c", &p, &sc, &tail) == 3 && tail == ')' && p >= 1 &&
        p <= 38 && sc >= 0 && sc <= p) {
      return decimal128(p, sc);
    }
    return Status::Unsupported("Delta columns of type {} ({})", s, what);
  }
  if (!t.is_object() || !t.contains("type") || !t["type"].is_string()) {
    return Malformed(what, "a schema type is neither a name nor an object with a \"type\"");
  }
  const std::string kind = t["type"].get<std::string>();
  if (kind == "struct") {
    if (!t.contains("fields") || !t["fields"].is_array() || t["fields"].empty()) {
      return Malformed(what, "a struct type without fields");
    }
    std::vector<FieldRef> fields;
    for (const Json& f : t["fields"]) {
      if (!f.is_object() || !f.contains("name") || !f["name"].is_string() || !f.contains("type")) {
        return Malformed(what, "a struct field without a name or type");
      }
      QUIVER_ASSIGN_OR_RAISE(TypeRef ft, DeltaType(f["type"], what, depth + 1, mapped));
      std::string name = f["name"].get<std::string>();
      // Data files name a nested field by its physical name under column
      // mapping; reading those (a struct cast by field) is not done yet.
      if (mapped && f.contains("metadata") && f["metadata"].is_object()) {
        auto pn = f["metadata"].find("delta.columnMapping.physicalName");
        if (pn != f["metadata"].end() && pn->is_string() && pn->get<std::string>() != name) {
          return Status::Unsupported("Delta column mapping of nested struct fields (\"{}\", {})",
                                     name, what);
        }
      }
      fields.push_back(field(name, ft, true));
    }
    return struct_(std::move(fields));
  }
  if (kind == "array") {
    if (!t.contains("elementType")) return Malformed(what, "an array type without elementType");
    QUIVER_ASSIGN_OR_RAISE(TypeRef e, DeltaType(t["elementType"], what, depth + 1, mapped));
    return list(e);
  }
  if (kind == "map") {
    if (!t.contains("keyType") || !t.contains("valueType")) {
      return Malformed(what, "a map type without keyType / valueType");
    }
    QUIVER_ASSIGN_OR_RAISE(TypeRef k, DeltaType(t["keyType"], what, depth + 1, mapped));
    QUIVER_ASSIGN_OR_RAISE(TypeRef v, DeltaType(t["valueType"], what, depth + 1, mapped));
    return map(k, v);
  }
  return Status::Unsupported("Delta columns of type {} ({})", kind, what);
}

}  // namespace

Result<std::vector<Column>> SchemaColumns(const LogState& state, const std::string& what) {
  const Metadata& metadata = *state.metadata;
  Json j = Json::parse(metadata.schema_string, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("fields") || !j["fields"].is_array()) {
    return Malformed(what, "metaData.schemaString is not a struct schema");
  }
  const std::string mode = ColumnMappingMode(state);
  std::vector<Column> out;
  for (const Json& f : j["fields"]) {
    if (!f.is_object() || !f.contains("name") || !f["name"].is_string() || !f.contains("type")) {
      return Malformed(what, "a schema field without a name or type");
    }
    Column c;
    c.name = f["name"].get<std::string>();
    c.physical_name = c.name;
    if (f.contains("metadata") && f["metadata"].is_object()) {
      const Json& md = f["metadata"];
      if (mode != "none") {
        if (auto pn = md.find("delta.columnMapping.physicalName");
            pn != md.end() && pn->is_string()) {
          c.physical_name = pn->get<std::string>();
        }
        if (auto id = md.find("delta.columnMapping.id");
            id != md.end() && id->is_number_integer()) {
          c.field_id = id->get<int>();
        }
      }
    }
    auto arrow_type = DeltaType(f["type"], what, 0, mode != "none");
    if (!arrow_type.ok())
      return arrow_type.status().WithContext(fmt::format("column \"{}\"", c.name));
    auto t = ToEngineType(*arrow_type);
    if (!t.ok()) {
      return Status::Unsupported("Delta column \"{}\" of type {} ({})", c.name,
                                 (*arrow_type)->ToString(), what);
    }
    c.type = *t;
    c.partition = std::find(metadata.partition_columns.begin(), metadata.partition_columns.end(),
                            c.name) != metadata.partition_columns.end();
    out.push_back(std::move(c));
  }
  for (const std::string& p : metadata.partition_columns) {
    if (std::none_of(out.begin(), out.end(), [&](const Column& c) { return c.name == p; })) {
      return Malformed(what, fmt::format("partition column \"{}\" is not in the schema", p));
    }
  }
  return out;
}

}  // namespace quiver::delta
