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
#include "storage/iceberg_manifest.h"

namespace quiver::iceberg {

namespace {

namespace fs = std::filesystem;

// Batches of the table hold at most this many rows (as a --db table's).
constexpr int64_t kBatchRows = int64_t{64} << 10;

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

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

// The field id of a file column (PARQUET:field_id), -1 when it has none.
int FieldIdOf(const Field& f) {
  for (const auto& [k, v] : f.metadata) {
    if (k == "PARQUET:field_id") {
      try {
        return std::stoi(v);
      } catch (...) {
        return -1;
      }
    }
  }
  return -1;
}

// Per column of a FileTable over the Parquet file `path`: its field id
// (the stored schema's PARQUET:field_id; the engine schema drops field
// metadata), -1 when it has none.
Result<std::vector<int>> FileFieldIds(const std::string& path, const Schema& engine) {
  QUIVER_ASSIGN_OR_RAISE(auto reader, formats::OpenFile(path, formats::FileFormat::kParquet));
  const Schema& stored = *reader->schema();
  std::vector<int> out;
  for (const auto& f : engine.fields) {
    int id = -1;
    for (const auto& sf : stored.fields) {
      if (sf->name == f->name) id = FieldIdOf(*sf);
    }
    out.push_back(id);
  }
  return out;
}

// Whether a file column of type `from` reads as the table's `to` (Iceberg's
// type promotions; time zone spellings of timestamptz).
bool Promotable(const DataType& from, const DataType& to) {
  if (from.id == TypeId::kInt32 && to.id == TypeId::kInt64) return true;
  if (from.id == TypeId::kFloat && to.id == TypeId::kDouble) return true;
  if (from.id == TypeId::kDecimal128 && to.id == TypeId::kDecimal128) {
    return from.scale == to.scale && from.precision <= to.precision;
  }
  if (from.id == TypeId::kTimestamp && to.id == TypeId::kTimestamp) {
    return from.unit == to.unit && from.timezone.empty() == to.timezone.empty();
  }
  if ((from.id == TypeId::kString || from.id == TypeId::kLargeString) &&
      (to.id == TypeId::kString || to.id == TypeId::kLargeString)) {
    return true;
  }
  if ((from.id == TypeId::kBinary || from.id == TypeId::kLargeBinary) &&
      (to.id == TypeId::kBinary || to.id == TypeId::kLargeBinary)) {
    return true;
  }
  return false;
}

// Every row of a Parquet file, all columns, as engine batches.
Result<std::vector<RecordBatchRef>> ReadAll(const FileTable& file) {
  ScanRequest request;
  for (int i = 0; i < file.schema()->num_fields(); ++i) request.columns.push_back(i);
  QUIVER_ASSIGN_OR_RAISE(auto plan, file.Plan(request));
  std::vector<RecordBatchRef> out;
  for (int64_t u = 0; u < plan->num_units(); ++u) {
    QUIVER_ASSIGN_OR_RAISE(RecordBatchRef b, plan->ReadUnit(u));
    out.push_back(std::move(b));
  }
  return out;
}

// Reads the position delete files: data file path -> deleted row positions.
Status CheckPolicy(const ReadOptions& options, const std::string& path) {
  if (options.policy == nullptr || !options.policy->restricted()) return Status::OK();
  return options.policy->Check(path);
}

Status ReadPositionDeletes(const DataFile& f, const ReadOptions& options,
                           std::map<std::string, std::set<int64_t>>* out) {
  QUIVER_ASSIGN_OR_RAISE(std::string path, LocalPath(f.path));
  QUIVER_RETURN_NOT_OK(CheckPolicy(options, path));
  QUIVER_ASSIGN_OR_RAISE(auto file, FileTable::Open("delete file", path));
  QUIVER_ASSIGN_OR_RAISE(std::vector<int> ids, FileFieldIds(path, *file->schema()));
  int path_col = -1;
  int pos_col = -1;
  for (int i = 0; i < file->schema()->num_fields(); ++i) {
    const Field& fd = *file->schema()->field(i);
    // Reserved field ids 2147483546 (file_path) and 2147483545 (pos).
    const int id = ids[static_cast<size_t>(i)];
    if (id == 2147483546 || (id < 0 && fd.name == "file_path")) path_col = i;
    if (id == 2147483545 || (id < 0 && fd.name == "pos")) pos_col = i;
  }
  if (path_col < 0 || pos_col < 0) {
    return Status::Invalid("Iceberg position delete file {} lacks the file_path / pos columns",
                           path);
  }
  QUIVER_ASSIGN_OR_RAISE(auto batches, ReadAll(*file));
  for (const auto& b : batches) {
    const ArrayRef& paths = b->column(path_col);
    const ArrayRef& pos = b->column(pos_col);
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      if (paths->IsNull(r) || pos->IsNull(r)) {
        return Status::Invalid("Iceberg position delete file {}: a null file_path or pos", path);
      }
      Value p = ValueFromArray(*paths, r);
      Value n = ValueFromArray(*pos, r);
      (*out)[p.ToString()].insert(static_cast<int64_t>(n.ToDouble()));
    }
  }
  return Status::OK();
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
  return ParseTableMetadata(text, metadata_file, /*allow_partitioned=*/true);
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
      return Status::Invalid("Iceberg table {} has no snapshot {}", what, *options.snapshot_id)
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

  std::vector<RecordBatchRef> batches;
  if (snap != nullptr) {
    QUIVER_ASSIGN_OR_RAISE(std::string list_path, LocalPath(snap->manifest_list));
    QUIVER_RETURN_NOT_OK(CheckPolicy(options, list_path));
    QUIVER_ASSIGN_OR_RAISE(std::vector<ManifestFile> manifests,
                           ReadManifestList(snap->manifest_list));
    std::vector<DataFile> data;
    std::map<std::string, std::set<int64_t>> deleted;  // by data file path
    for (const ManifestFile& mf : manifests) {
      QUIVER_ASSIGN_OR_RAISE(std::string manifest_path, LocalPath(mf.path));
      QUIVER_RETURN_NOT_OK(CheckPolicy(options, manifest_path));
      QUIVER_ASSIGN_OR_RAISE(std::vector<DataFile> files, ReadManifest(mf.path));
      for (DataFile& f : files) {
        if (f.content == 2) {
          return Status::Unsupported("Iceberg equality delete files ({}, listed in {})", f.path,
                                     mf.path);
        }
        if (f.content != 0 && f.content != 1) {
          return Status::Invalid("Iceberg manifest {}: data file content {}", mf.path, f.content);
        }
        if (Upper(f.format) != "PARQUET") {
          return Status::Unsupported("Iceberg {} files ({}, listed in {}): Parquet files are read",
                                     f.format, f.path, mf.path);
        }
        if (f.content == 1) {
          QUIVER_RETURN_NOT_OK(ReadPositionDeletes(f, options, &deleted));
        } else {
          data.push_back(std::move(f));
        }
      }
    }
    for (const DataFile& f : data) {
      QUIVER_ASSIGN_OR_RAISE(std::string path, LocalPath(f.path));
      QUIVER_RETURN_NOT_OK(CheckPolicy(options, path));
      QUIVER_ASSIGN_OR_RAISE(auto file, FileTable::Open(name, path));
      const Schema& fs_schema = *file->schema();
      QUIVER_ASSIGN_OR_RAISE(std::vector<int> ids, FileFieldIds(path, fs_schema));
      bool any_ids = false;
      for (int id : ids) any_ids = any_ids || id >= 0;
      std::vector<int> source;  // per table column: the file column, -1 none
      for (size_t c = 0; c < m.fields.size(); ++c) {
        int found = -1;
        for (int i = 0; i < fs_schema.num_fields(); ++i) {
          const Field& fd = *fs_schema.field(i);
          if (any_ids ? ids[static_cast<size_t>(i)] == m.fields[c].id : fd.name == m.fields[c].name) {
            found = i;
          }
        }
        if (found >= 0) {
          const DataType& have = *fs_schema.field(found)->type;
          const DataType& want = *schema->field(static_cast<int>(c))->type;
          if (!have.Equals(want) && !Promotable(have, want)) {
            return Status::Unsupported(
                "column \"{}\" (field id {}) of Iceberg data file {} has type {}, the table {}",
                m.fields[c].name, m.fields[c].id, path, have.ToString(), want.ToString());
          }
        }
        source.push_back(found);
      }
      QUIVER_ASSIGN_OR_RAISE(auto read, ReadAll(*file));
      const std::set<int64_t>* dels = nullptr;
      if (auto it = deleted.find(f.path); it != deleted.end()) dels = &it->second;
      if (dels == nullptr) {
        // Delete files may name the data file by its local path too.
        if (auto it = deleted.find(path); it != deleted.end()) dels = &it->second;
      }
      int64_t at = 0;  // the file's row position of the batch's first row
      for (const auto& b : read) {
        std::vector<ArrayRef> cols;
        for (size_t c = 0; c < source.size(); ++c) {
          const TypeRef& want = schema->field(static_cast<int>(c))->type;
          if (source[c] < 0) {
            QUIVER_ASSIGN_OR_RAISE(ArrayRef nulls, MakeArrayOfNull(want, b->num_rows()));
            cols.push_back(std::move(nulls));
            continue;
          }
          ArrayRef a = b->column(source[c]);
          if (!a->type->Equals(*want)) {
            QUIVER_ASSIGN_OR_RAISE(a, CastArray(a, want, DefaultMemoryPool()));
          }
          cols.push_back(std::move(a));
        }
        RecordBatchRef full = RecordBatch::Make(schema, b->num_rows(), std::move(cols));
        // Runs of rows no position delete names, as zero-copy slices.
        int64_t r = 0;
        while (r < full->num_rows()) {
          if (dels != nullptr && dels->count(at + r) > 0) {
            ++r;
            continue;
          }
          int64_t end = r;
          if (dels == nullptr) {
            end = full->num_rows();
          } else {
            auto next = dels->lower_bound(at + r);
            end = next == dels->end() ? full->num_rows()
                                      : std::min(full->num_rows(), *next - at);
          }
          for (int64_t s = r; s < end; s += kBatchRows) {
            RecordBatchRef part = full->Slice(s, std::min(kBatchRows, end - s));
            batches.push_back(RecordBatch::Make(schema, part->num_rows(), part->columns()));
          }
          r = end;
        }
        at += b->num_rows();
      }
    }
  }
  QUIVER_ASSIGN_OR_RAISE(TableVersionRef version, MemoryTable::MakeVersion(schema, std::move(batches)));
  auto table = std::make_shared<MemoryTable>(name, schema);
  table->Restore(std::move(version));
  return table;
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
