#include "storage/iceberg_reader.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>

#include "catalog/file_table.h"
#include "common/io.h"
#include "formats/file_format.h"
#include "functions/cast.h"
#include "storage/data_file_scan.h"
#include "storage/iceberg_database.h"
#include "storage/iceberg_manifest.h"
#include "storage/iceberg_scan.h"

namespace quiver::iceberg {

namespace {

namespace fs = std::filesystem;

// N of "vN.metadata.json" or "NNNNN-<uuid>.metadata.json"; -1 otherwise.
int64_t MetadataVersion(const std::string& file_name) {
  const std::string suffix = ".metadata.json";
  if (file_name.size() <= suffix.size() ||
      file_name.compare(file_name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return -1;
  }
  size_t i = file_name[0] == 'v' ? 1 : 0;
  const size_t start = i;
  int64_t n = 0;
  while (i < file_name.size() && std::isdigit(static_cast<unsigned char>(file_name[i])) &&
         i - start < 18) {
    n = n * 10 + (file_name[i] - '0');
    ++i;
  }
  if (i == start) return -1;
  if (file_name[i] != '.' && file_name[i] != '-') return -1;
  return n;
}

std::string Trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

Result<std::string> ReadText(const std::string& path) {
  QUIVER_ASSIGN_OR_RAISE(auto buffer, ReadFileFully(path));
  return std::string(reinterpret_cast<const char*>(buffer->data()),
                     static_cast<size_t>(buffer->size()));
}

Status CheckPolicy(const ReadOptions& options, const std::string& path) {
  if (options.policy == nullptr || !options.policy->restricted()) return Status::OK();
  return options.policy->Check(path);
}

}  // namespace

Result<std::string> ResolveMetadataFile(const std::string& given) {
  std::error_code ec;
  QUIVER_ASSIGN_OR_RAISE(std::string path, LocalPath(given.rfind("file://", 0) == 0
                                                          ? given
                                                          : fs::absolute(given, ec).string()));
  if (fs::is_regular_file(path, ec)) return path;
  if (!fs::is_directory(path, ec)) {
    return Status::IOError("Iceberg table \"{}\" does not exist", given)
        .WithSqlState(sqlstate::kUndefinedFile);
  }
  const fs::path metadata = fs::path(path) / "metadata";
  if (!fs::is_directory(metadata, ec)) {
    return Status::IOError("\"{}\" is not an Iceberg table (no metadata directory)", given)
        .WithSqlState(sqlstate::kUndefinedFile);
  }
  // A table of a --db database: the metadata its catalog committed.
  if (auto committed = CatalogMetadataFile(path)) return *committed;
  const fs::path hint = metadata / "version-hint.text";
  if (fs::is_regular_file(hint, ec)) {
    QUIVER_ASSIGN_OR_RAISE(std::string text, ReadText(hint.string()));
    text = Trim(text);
    if (!text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
          return std::isdigit(c);
        })) {
      const fs::path v = metadata / ("v" + text + ".metadata.json");
      if (fs::is_regular_file(v, ec)) return v.string();
    } else if (!text.empty() && fs::is_regular_file(metadata / text, ec)) {
      return (metadata / text).string();
    }
    return Status::IOError("Iceberg table \"{}\": version-hint.text names no metadata file ({})",
                           given, text)
        .WithSqlState(sqlstate::kUndefinedFile);
  }
  int64_t best = -1;
  std::string best_path;
  for (const auto& e : fs::directory_iterator(metadata, ec)) {
    const std::string name = e.path().filename().string();
    const int64_t n = MetadataVersion(name);
    if (n > best || (n == best && name > fs::path(best_path).filename().string())) {
      best = n;
      best_path = e.path().string();
    }
  }
  if (best < 0) {
    return Status::IOError("Iceberg table \"{}\" has no metadata file", given)
        .WithSqlState(sqlstate::kUndefinedFile);
  }
  return best_path;
}

Result<TableMetadata> ReadTableMetadata(const std::string& metadata_file) {
  QUIVER_ASSIGN_OR_RAISE(std::string text, ReadText(metadata_file));
  return ParseTableMetadata(text, metadata_file);
}

Result<const Snapshot*> SelectSnapshot(const TableMetadata& m, const ReadOptions& options,
                                       const std::string& what) {
  if (options.snapshot_id.has_value() && options.as_of_ms.has_value()) {
    return Status::Invalid("read_iceberg takes snapshot_id or as_of, not both")
        .WithSqlState(sqlstate::kInvalidParameterValue);
  }
  auto find = [&](int64_t id) -> const Snapshot* {
    for (const Snapshot& s : m.snapshots) {
      if (s.snapshot_id == id) return &s;
    }
    return nullptr;
  };
  if (options.snapshot_id.has_value()) {
    const Snapshot* s = find(*options.snapshot_id);
    if (s == nullptr) {
      return Status::Invalid("Iceberg table {} has no snapshot {} (expired by expire_snapshots, "
                             "or never one of the table's)",
                             what, *options.snapshot_id)
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    return s;
  }
  if (options.as_of_ms.has_value()) {
    // The snapshot log is the table's history of current snapshots; without
    // one, the snapshots by commit time.
    std::optional<int64_t> id;
    if (!m.snapshot_log.empty()) {
      for (const auto& [ts, sid] : m.snapshot_log) {
        if (ts <= *options.as_of_ms) id = sid;
      }
    } else {
      int64_t best = INT64_MIN;
      for (const Snapshot& s : m.snapshots) {
        if (s.timestamp_ms <= *options.as_of_ms && s.timestamp_ms >= best) {
          best = s.timestamp_ms;
          id = s.snapshot_id;
        }
      }
    }
    // The oldest snapshot left has a parent the metadata no longer has:
    // the ones before it were expired.
    bool expired = false;
    for (const Snapshot& s : m.snapshots) {
      if (s.parent_snapshot_id.has_value() && find(*s.parent_snapshot_id) == nullptr) expired = true;
    }
    if (!id.has_value() && expired) {
      return Status::Invalid("Iceberg table {}: the snapshots before the as_of time were expired "
                             "(expire_snapshots); the oldest left is from {} ms after the epoch",
                             what, m.snapshot_log.empty() ? 0 : m.snapshot_log.front().first)
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    if (!id.has_value()) {
      return Status::Invalid("Iceberg table {} has no snapshot at or before the as_of time", what)
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    const Snapshot* s = find(*id);
    if (s == nullptr) {
      return Status::Invalid("Iceberg table {}: the snapshot log names snapshot {}, which the "
                             "metadata no longer has (expired)",
                             what, *id)
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    return s;
  }
  if (!m.current_snapshot_id.has_value()) return static_cast<const Snapshot*>(nullptr);
  const Snapshot* s = find(*m.current_snapshot_id);
  if (s == nullptr) {
    return Status::Invalid("Iceberg metadata {}: current snapshot {} is not among its snapshots",
                           what, *m.current_snapshot_id);
  }
  return s;
}

Result<std::shared_ptr<MemoryTable>> ReadIcebergTable(const std::string& name,
                                                      const std::string& given,
                                                      const ReadOptions& options) {
  QUIVER_RETURN_NOT_OK(CheckPolicy(options, given));
  QUIVER_ASSIGN_OR_RAISE(const std::string metadata_file, ResolveMetadataFile(given));
  QUIVER_RETURN_NOT_OK(CheckPolicy(options, metadata_file));
  QUIVER_ASSIGN_OR_RAISE(TableMetadata m, ReadTableMetadata(metadata_file));
  QUIVER_ASSIGN_OR_RAISE(const Snapshot* snap, SelectSnapshot(m, options, metadata_file));
  std::vector<FieldRef> fields;
  for (const SchemaField& f : m.fields) {
    auto t = EngineTypeOf(f.type);
    if (!t.ok()) return t.status().WithContext(fmt::format("column \"{}\" of {}", f.name, metadata_file));
    fields.push_back(field(f.name, *t, true));
  }
  SchemaRef schema = quiver::schema(std::move(fields));

  std::vector<DataFile> files;
  if (snap != nullptr) {
    QUIVER_ASSIGN_OR_RAISE(files, SnapshotFiles(*snap, options.policy));
  }
  QUIVER_ASSIGN_OR_RAISE(auto rows, IcebergRows::Make(name, schema, m.fields, m.specs, std::move(files),
                                                      options.policy));
  return StoredRowsTable(name, std::move(schema), std::move(rows));
}

Result<std::shared_ptr<MemoryTable>> SnapshotsTable(const std::string& given,
                                                    const FileAccessPolicy* policy) {
  ReadOptions options;
  options.policy = policy;
  QUIVER_RETURN_NOT_OK(CheckPolicy(options, given));
  QUIVER_ASSIGN_OR_RAISE(const std::string metadata_file, ResolveMetadataFile(given));
  QUIVER_RETURN_NOT_OK(CheckPolicy(options, metadata_file));
  QUIVER_ASSIGN_OR_RAISE(TableMetadata m, ReadTableMetadata(metadata_file));
  std::vector<const Snapshot*> snaps;
  for (const Snapshot& s : m.snapshots) snaps.push_back(&s);
  std::stable_sort(snaps.begin(), snaps.end(), [](const Snapshot* a, const Snapshot* b) {
    return a->timestamp_ms < b->timestamp_ms;
  });
  const TypeRef tz = timestamp(TimeUnit::kMicro, "UTC");
  std::vector<std::vector<Value>> cols(7);
  for (const Snapshot* s : snaps) {
    cols[0].push_back(Value::Timestamp(s->timestamp_ms * 1000, /*with_tz=*/true));
    cols[1].push_back(Value::Int64(s->snapshot_id));
    cols[2].push_back(s->parent_snapshot_id.has_value() ? Value::Int64(*s->parent_snapshot_id)
                                                        : Value::Null(int64()));
    cols[3].push_back(s->operation.empty() ? Value::Null(utf8()) : Value::Text(s->operation));
    cols[4].push_back(Value::Text(s->manifest_list));
    std::string json = "{";
    for (size_t i = 0; i < s->summary.size(); ++i) {
      auto quote = [](const std::string& x) {
        std::string out = "\"";
        for (char c : x) {
          if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(c);
          } else if (static_cast<unsigned char>(c) < 0x20) {
            out += fmt::format("\\u{:04x}", static_cast<int>(c));
          } else {
            out.push_back(c);
          }
        }
        return out + "\"";
      };
      json += fmt::format("{}{}: {}", i == 0 ? "" : ", ", quote(s->summary[i].first),
                          quote(s->summary[i].second));
    }
    cols[5].push_back(Value::Text(json + "}"));
    cols[6].push_back(Value::Boolean(m.current_snapshot_id.has_value() &&
                                     *m.current_snapshot_id == s->snapshot_id));
  }
  SchemaRef schema = quiver::schema({field("committed_at", tz), field("snapshot_id", int64()),
                                     field("parent_id", int64()), field("operation", utf8()),
                                     field("manifest_list", utf8()), field("summary", utf8()),
                                     field("is_current", boolean())});
  std::vector<ArrayRef> arrays;
  for (int c = 0; c < schema->num_fields(); ++c) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, ArrayFromValues(cols[static_cast<size_t>(c)],
                                                       schema->field(c)->type));
    arrays.push_back(std::move(a));
  }
  std::vector<RecordBatchRef> batches;
  if (!snaps.empty()) {
    batches.push_back(RecordBatch::Make(schema, static_cast<int64_t>(snaps.size()), std::move(arrays)));
  }
  QUIVER_ASSIGN_OR_RAISE(TableVersionRef version, MemoryTable::MakeVersion(schema, std::move(batches)));
  auto table = std::make_shared<MemoryTable>("quiver_snapshots", schema);
  table->Restore(std::move(version));
  return table;
}

}  // namespace quiver::iceberg
