#include "storage/iceberg_database.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "catalog/file_table.h"
#include "columnar/batch_util.h"
#include "catalog/table_constraints.h"
#include "common/io.h"
#include "formats/file_format.h"
#include "functions/kernel_util.h"
#include "sql/parser.h"
#include "storage/iceberg_manifest.h"
#include "storage/iceberg_metadata.h"
#include "storage/iceberg_partition.h"
#include "storage/iceberg_scan.h"
#include "vector/value.h"

namespace quiver {

namespace {

namespace fs = std::filesystem;
using iceberg::DataFile;
using iceberg::ManifestFile;
using iceberg::TableMetadata;

constexpr const char* kCatalogName = "quiver";
constexpr const char* kNamespace = "public";
// The table property holding PRIMARY KEY and UNIQUE constraints (Iceberg has
// no constraints): [{"name": "t_pkey", "field-ids": [1], "primary": true}].
constexpr const char* kUniqueProperty = "quiver.unique-constraints";
// The table property holding the declared lengths of varchar(n) / char(n)
// columns (Iceberg's string has none): [{"field-id": 2, "length": 3, "char": false}].
constexpr const char* kLengthProperty = "quiver.column-lengths";
// The table property holding column DEFAULTs as SQL text (PostgreSQL's
// deparser's): [{"field-id": 2, "sql": "now()"}].
constexpr const char* kDefaultProperty = "quiver.column-defaults";
// The table property holding CHECK constraints as SQL text:
// [{"name": "t_k_check", "sql": "(k > 0)"}].
constexpr const char* kCheckProperty = "quiver.check-constraints";
// The table property holding the sequences of serial / identity columns,
// with the next value each hands out (rewritten by every commit):
// [{"field-id": 1, "name": "t_id_seq", "always": false, "increment": 1, "next": 5}].
constexpr const char* kSequenceProperty = "quiver.column-sequences";
// Batches of a stored table hold at most this many rows (morsels of a
// parallel scan, units of pruning), as memory tables' do.
constexpr int64_t kBatchRows = int64_t{64} << 10;

// What a version of a stored table knows of its Iceberg state.
struct IcebergState {
  TableMetadata metadata;
  std::string metadata_location;  // file:///.../metadata/vN.metadata.json
  int version = 0;                // N
  std::vector<ManifestFile> manifests;
  // The snapshot's files, scanned lazily (storage/iceberg_scan.h).
  std::shared_ptr<const iceberg::IcebergRows> rows;
};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t NewSnapshotId() {
  std::random_device rd;
  const uint64_t v = (uint64_t{rd()} << 32) | rd();
  return static_cast<int64_t>(v >> 1) | 1;  // positive, non-zero
}

std::string FileUri(const std::string& path) { return "file://" + path; }

bool HasBounds(const DataType& t) {
  // Floating point bounds are left out: NaN orders differently in Iceberg
  // and in the engine, and bounds are optional.
  return t.id != TypeId::kFloat && t.id != TypeId::kDouble;
}

// Positions of the least and greatest non-null values of `a` (-1 when all
// are null) by `less`, counting the nulls.
template <typename Less>
void ArgMinMax(const ArrayData& a, Less less, int64_t* lo, int64_t* hi, int64_t* nulls) {
  *lo = *hi = -1;
  const bool may_have_nulls = a.MayHaveNulls();
  for (int64_t i = 0; i < a.length; ++i) {
    if (may_have_nulls && a.IsNull(i)) {
      ++*nulls;
      continue;
    }
    if (*lo < 0) {
      *lo = *hi = i;
      continue;
    }
    if (less(i, *lo)) *lo = i;
    if (less(*hi, i)) *hi = i;
  }
}

template <typename T>
void ArgMinMaxFixed(const ArrayData& a, int64_t* lo, int64_t* hi, int64_t* nulls) {
  const T* v = a.GetValues<T>(1);
  if (a.GetNullCount() == 0 && a.length > 0) {
    // No nulls: a branch-free pass over the values, then their positions.
    T mn = v[0];
    T mx = v[0];
    for (int64_t i = 1; i < a.length; ++i) {
      mn = std::min(mn, v[i]);
      mx = std::max(mx, v[i]);
    }
    *lo = std::find(v, v + a.length, mn) - v;
    *hi = std::find(v, v + a.length, mx) - v;
    return;
  }
  ArgMinMax(a, [v](int64_t x, int64_t y) { return v[x] < v[y]; }, lo, hi, nulls);
}

// A batch's row count, and per column its null count and (where
// HasBounds) least and greatest values: typed loops for integers, dates,
// times, timestamps and text, Value comparisons for the other types.
UnitStatistics ComputeStatistics(const RecordBatch& b) {
  UnitStatistics s;
  s.rows = b.num_rows();
  for (int c = 0; c < b.num_columns(); ++c) {
    const ArrayData& a = *b.column(c);
    int64_t nulls = 0;
    int64_t lo = -1;
    int64_t hi = -1;
    const bool bounds = HasBounds(*a.type);
    const TypeId id = a.type->id;
    if (!bounds) {
      nulls = a.GetNullCount();
    } else if (a.dictionary == nullptr && id == TypeId::kInt16) {
      ArgMinMaxFixed<int16_t>(a, &lo, &hi, &nulls);
    } else if (a.dictionary == nullptr &&
               (id == TypeId::kInt32 || id == TypeId::kDate32 || id == TypeId::kTime32)) {
      ArgMinMaxFixed<int32_t>(a, &lo, &hi, &nulls);
    } else if (a.dictionary == nullptr && (id == TypeId::kInt64 || id == TypeId::kTimestamp ||
                                           id == TypeId::kTime64 || id == TypeId::kDate64)) {
      ArgMinMaxFixed<int64_t>(a, &lo, &hi, &nulls);
    } else if (a.dictionary == nullptr && id == TypeId::kString) {
      const int32_t* off = a.GetValues<int32_t>(1);
      const char* data = a.buffers[2] ? a.buffers[2]->data_as<char>() : "";
      auto text = [off, data](int64_t i) {
        return std::string_view(data + off[i], static_cast<size_t>(off[i + 1] - off[i]));
      };
      ArgMinMax(a, [&text](int64_t x, int64_t y) { return text(x) < text(y); }, &lo, &hi, &nulls);
    } else if (a.dictionary == nullptr && id == TypeId::kLargeString) {
      ArgMinMax(a, [&a](int64_t x, int64_t y) { return a.GetString(x) < a.GetString(y); }, &lo, &hi,
                &nulls);
    } else {
      Value mn;
      Value mx;
      for (int64_t i = 0; i < a.length; ++i) {
        if (a.IsNull(i)) {
          ++nulls;
          continue;
        }
        Value v = ValueFromArray(a, i);
        if (mn.is_null() || v.Compare(mn) < 0) mn = v;
        if (mx.is_null() || v.Compare(mx) > 0) mx = std::move(v);
      }
      s.min.push_back(std::move(mn));
      s.max.push_back(std::move(mx));
      s.nulls.push_back(nulls);
      continue;
    }
    s.min.push_back(lo >= 0 ? ValueFromArray(a, lo) : Value());
    s.max.push_back(hi >= 0 ? ValueFromArray(a, hi) : Value());
    s.nulls.push_back(nulls);
  }
  return s;
}

// Rows [from, to) of `batches`, as zero-copy slices of at most kBatchRows.
std::vector<RecordBatchRef> SliceRows(const SchemaRef& schema,
                                      const std::vector<RecordBatchRef>& batches, int64_t from,
                                      int64_t to) {
  std::vector<RecordBatchRef> out;
  int64_t at = 0;
  for (const auto& b : batches) {
    const int64_t begin = std::max(from, at);
    const int64_t end = std::min(to, at + b->num_rows());
    for (int64_t r = begin; r < end; r += kBatchRows) {
      RecordBatchRef part = b->Slice(r - at, std::min(kBatchRows, end - r));
      out.push_back(RecordBatch::Make(schema, part->num_rows(), part->columns()));
    }
    at += b->num_rows();
  }
  return out;
}

Status Sqlite(sqlite3* db, int rc, const std::string& what) {
  if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW) return Status::OK();
  return Status::IOError("catalog database: {}: {}", what, sqlite3_errmsg(db))
      .WithSqlState(sqlstate::kIoError);
}

// A prepared statement, finalized on scope exit.
class Stmt {
 public:
  Stmt(sqlite3* db, const std::string& sql) : db_(db) {
    rc_ = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr);
  }
  ~Stmt() { sqlite3_finalize(stmt_); }
  Status status() const { return Sqlite(db_, rc_, "prepare"); }
  void Bind(int i, const std::string& s) {
    sqlite3_bind_text(stmt_, i, s.c_str(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  }
  sqlite3_stmt* get() { return stmt_; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int rc_;
};

std::string Column(sqlite3_stmt* s, int i) {
  const unsigned char* t = sqlite3_column_text(s, i);
  return t ? reinterpret_cast<const char*>(t) : "";
}

class IcebergTableStore;

// Writes one commit (steps 1-4 of iceberg_database.h) and returns the
// version to publish (its rows read from the new snapshot's files). `base`
// is null for CREATE TABLE; `append`: the new snapshot keeps base's files.
Result<TableVersionRef> WriteCommit(IcebergDatabase* db, const std::string& name,
                                    const SchemaRef& schema, const IcebergState* base,
                                    std::vector<RecordBatchRef> rows,
                                    bool append, const TableConstraints* constraints = nullptr,
                                    const TableVersion* stored_from = nullptr,
                                    const TablePartitioning* partitioning = nullptr);

Result<TableVersionRef> VacuumTable(IcebergDatabase* db, const std::string& name,
                                    const SchemaRef& schema, const TableVersionRef& current,
                                    MaintenanceCounts* counts);
Result<TableVersionRef> ExpireTableSnapshots(IcebergDatabase* db, const std::string& name,
                                             const TableVersionRef& current, int64_t older_than_ms,
                                             int64_t retain_last, MaintenanceCounts* counts);

class IcebergTableStore final : public TableStore {
 public:
  // `constraints`: the table's (its sequences' next values go into every commit).
  IcebergTableStore(std::shared_ptr<IcebergDatabase> db, std::string name, SchemaRef schema,
                    std::shared_ptr<const TableConstraints> constraints)
      : db_(std::move(db)),
        name_(std::move(name)),
        schema_(std::move(schema)),
        constraints_(std::move(constraints)) {}

  Result<TableVersionRef> Commit(const TableVersionRef& current, TableVersionRef next) override {
    QUIVER_RETURN_NOT_OK(db_->CheckWritable());
    const TableVersion* given = next.get();
    auto state = std::static_pointer_cast<const IcebergState>(current->storage);
    if (state == nullptr) {
      return Status::UnknownError("internal error: stored table \"{}\" without its Iceberg state",
                                  name_);
    }
    if (next->appended_to == current.get()) {
      if (next->num_rows == current->num_rows) return current;  // nothing appended
      // The new rows are next's batches after current's (the stored rows
      // come first and are not among the batches).
      const int64_t stored = next->stored != nullptr ? next->stored->num_rows() : 0;
      return WriteCommit(db_.get(), name_, schema_, state.get(),
                         SliceRows(schema_, next->batches, current->num_rows - stored,
                                   next->num_rows - stored),
                         true, constraints_.get(), given);
    }
    QUIVER_ASSIGN_OR_RAISE(next, MemoryTable::Materialize(schema_, next));
    return WriteCommit(db_.get(), name_, schema_, state.get(),
                       SliceRows(schema_, next->batches, 0, next->num_rows), false,
                       constraints_.get(), given);
  }

  Result<TableVersionRef> Vacuum(const TableVersionRef& current,
                                 MaintenanceCounts* counts) override {
    QUIVER_RETURN_NOT_OK(db_->CheckWritable());
    if (current->storage == nullptr || !current->batches.empty()) {
      return Status::UnknownError("internal error: VACUUM of \"{}\" without its Iceberg state", name_);
    }
    return VacuumTable(db_.get(), name_, schema_, current, counts);
  }

  Result<TableVersionRef> ExpireSnapshots(const TableVersionRef& current, int64_t older_than_ms,
                                          int64_t retain_last, MaintenanceCounts* counts) override {
    QUIVER_RETURN_NOT_OK(db_->CheckWritable());
    if (current->storage == nullptr) {
      return Status::UnknownError("internal error: \"{}\" without its Iceberg state", name_);
    }
    return ExpireTableSnapshots(db_.get(), name_, current, older_than_ms, retain_last, counts);
  }

 private:
  std::shared_ptr<IcebergDatabase> db_;
  std::string name_;
  SchemaRef schema_;
  std::shared_ptr<const TableConstraints> constraints_;
};

// The table's schema with Iceberg field ids, as its data files carry them.
SchemaRef WithFieldIds(const SchemaRef& schema, const std::vector<iceberg::SchemaField>& fields) {
  std::vector<FieldRef> out;
  for (int i = 0; i < schema->num_fields(); ++i) {
    const Field& f = *schema->field(i);
    out.push_back(field(f.name, f.type, f.nullable,
                        {{"PARQUET:field_id", std::to_string(fields[static_cast<size_t>(i)].id)}}));
  }
  return quiver::schema(std::move(out));
}

// The table property of `constraints`' PRIMARY KEY and UNIQUE constraints,
// by the field ids of `m`'s current schema (none: no property).
void SetUniqueProperty(const TableConstraints* constraints, TableMetadata* m);

// The table property of `constraints`' varchar(n) / char(n) lengths, by the
// field ids of `m`'s current schema (none: no property).
void SetLengthProperty(const TableConstraints* constraints, TableMetadata* m) {
  auto& props = m->properties;
  props.erase(std::remove_if(props.begin(), props.end(),
                             [](const auto& p) { return p.first == kLengthProperty; }),
              props.end());
  if (constraints == nullptr || !constraints->HasLengths()) return;
  nlohmann::json list = nlohmann::json::array();
  for (size_t c = 0; c < constraints->lengths.size() && c < m->fields.size(); ++c) {
    const CharLength& l = constraints->lengths[c];
    if (l.n <= 0) continue;
    list.push_back({{"field-id", m->fields[c].id}, {"length", l.n}, {"char", l.blank_padded}});
  }
  props.emplace_back(kLengthProperty,
                     list.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// Sets table property `key` to `list`, or removes it when `list` is empty.
void SetListProperty(const char* key, const nlohmann::json& list, TableMetadata* m) {
  auto& props = m->properties;
  props.erase(std::remove_if(props.begin(), props.end(), [&](const auto& p) { return p.first == key; }),
              props.end());
  if (list.empty()) return;
  props.emplace_back(key, list.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// The table property of `constraints`' serial / identity sequences, with
// the values they hand out next, by the field ids of `m`'s current schema.
void SetSequenceProperty(const TableConstraints* constraints, TableMetadata* m) {
  nlohmann::json list = nlohmann::json::array();
  for (size_t c = 0; constraints != nullptr && c < constraints->sequences.size() && c < m->fields.size();
       ++c) {
    const ColumnSequence* seq = constraints->sequences[c].get();
    if (seq == nullptr) continue;
    list.push_back({{"field-id", m->fields[c].id}, {"name", seq->name}, {"always", seq->always},
                    {"increment", seq->increment}, {"next", seq->next.load()}});
  }
  SetListProperty(kSequenceProperty, list, m);
}

// The table properties of `constraints`' DEFAULTs and CHECKs (as SQL text).
void SetExpressionProperties(const TableConstraints* constraints, TableMetadata* m) {
  nlohmann::json defaults = nlohmann::json::array();
  nlohmann::json checks = nlohmann::json::array();
  if (constraints != nullptr) {
    for (size_t c = 0; c < constraints->defaults.size() && c < m->fields.size(); ++c) {
      if (constraints->defaults[c] == nullptr || c >= constraints->default_sql.size()) continue;
      defaults.push_back({{"field-id", m->fields[c].id}, {"sql", constraints->default_sql[c]}});
    }
    for (const CheckConstraint& check : constraints->checks) {
      checks.push_back({{"name", check.name}, {"sql", check.sql}});
    }
  }
  SetListProperty(kDefaultProperty, defaults, m);
  SetListProperty(kCheckProperty, checks, m);
}

// The table properties of `constraints` (Iceberg has none of them).
void SetConstraintProperties(const TableConstraints* constraints, TableMetadata* m) {
  SetUniqueProperty(constraints, m);
  SetLengthProperty(constraints, m);
  SetExpressionProperties(constraints, m);
  SetSequenceProperty(constraints, m);
}

void SetUniqueProperty(const TableConstraints* constraints, TableMetadata* m) {
  auto& props = m->properties;
  props.erase(std::remove_if(props.begin(), props.end(),
                             [](const auto& p) { return p.first == kUniqueProperty; }),
              props.end());
  if (constraints == nullptr || constraints->unique.empty()) return;
  nlohmann::json list = nlohmann::json::array();
  for (const UniqueConstraint& u : constraints->unique) {
    nlohmann::json ids = nlohmann::json::array();
    for (int c : u.columns) ids.push_back(m->fields[static_cast<size_t>(c)].id);
    list.push_back({{"name", u.name}, {"field-ids", ids}, {"primary", u.primary}});
  }
  props.emplace_back(kUniqueProperty,
                     list.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// The manifest statistics of a data file from its batches' statistics.
Status AddStatistics(const std::vector<UnitStatistics>& stats, int64_t rows,
                     const std::vector<iceberg::SchemaField>& fields, DataFile* f) {
  for (size_t c = 0; c < fields.size(); ++c) {
    const int id = fields[c].id;
    int64_t nulls = 0;
    Value lo;
    Value hi;
    for (const UnitStatistics& s : stats) {
      nulls += s.nulls[c];
      const Value& a = s.min[c];
      const Value& b = s.max[c];
      if (!a.is_null() && (lo.is_null() || a.Compare(lo) < 0)) lo = a;
      if (!b.is_null() && (hi.is_null() || b.Compare(hi) > 0)) hi = b;
    }
    f->value_counts[id] = rows;
    f->null_counts[id] = nulls;
    if (!lo.is_null()) {
      QUIVER_ASSIGN_OR_RAISE(f->lower_bounds[id], iceberg::SerializeBound(lo));
      QUIVER_ASSIGN_OR_RAISE(f->upper_bounds[id], iceberg::SerializeBound(hi));
    }
  }
  return Status::OK();
}

// Writes one Parquet data file with its manifest statistics.
class DataFileWriter {
 public:
  static Result<std::unique_ptr<DataFileWriter>> Open(const std::string& path,
                                                      const SchemaRef& schema,
                                                      const std::vector<iceberg::SchemaField>& fields) {
    std::unique_ptr<DataFileWriter> w(new DataFileWriter());
    w->path_ = path;
    w->schema_ = schema;
    w->fields_ = fields;
    QUIVER_ASSIGN_OR_RAISE(w->file_, AtomicFile::Create(path));
    QUIVER_ASSIGN_OR_RAISE(w->writer_,
                           formats::MakeTableWriter(formats::FileFormat::kParquet, path,
                                                    w->file_.get(), WithFieldIds(schema, fields)));
    return w;
  }
  Status Write(const RecordBatchRef& b) {
    if (b->num_rows() == 0) return Status::OK();
    RecordBatchRef batch = RecordBatch::Make(schema_, b->num_rows(), b->columns());
    stats_.push_back(ComputeStatistics(*batch));
    rows_ += batch->num_rows();
    bytes_ += SliceBytes(*batch);
    return writer_->Write(*batch);
  }
  int64_t rows() const { return rows_; }
  int64_t bytes() const { return bytes_; }
  // Closes, syncs and renames the file in; its manifest entry.
  Result<DataFile> Finish() {
    QUIVER_RETURN_NOT_OK(writer_->Close());
    DataFile f;
    f.path = FileUri(path_);
    f.record_count = rows_;
    f.file_size = file_->Tell();
    QUIVER_RETURN_NOT_OK(file_->Commit());
    QUIVER_RETURN_NOT_OK(AddStatistics(stats_, rows_, fields_, &f));
    return f;
  }

 private:
  DataFileWriter() = default;
  std::string path_;
  SchemaRef schema_;
  std::vector<iceberg::SchemaField> fields_;
  std::unique_ptr<AtomicFile> file_;
  std::unique_ptr<formats::TableWriter> writer_;
  std::vector<UnitStatistics> stats_;
  int64_t rows_ = 0;
  int64_t bytes_ = 0;
};

// Writes rows into data files by partition: one file per partition value
// of `spec` (a new one once a file holds `roll_bytes` of rows; 0: never),
// named <prefix>-<n>.parquet, each with its partition tuple. An
// unpartitioned spec makes one group of every row.
class PartitionedWriter {
 public:
  PartitionedWriter(std::string prefix, SchemaRef schema, std::vector<iceberg::SchemaField> fields,
                    iceberg::BoundSpec spec, int64_t roll_bytes)
      : prefix_(std::move(prefix)),
        schema_(std::move(schema)),
        fields_(std::move(fields)),
        spec_(std::move(spec)),
        roll_bytes_(roll_bytes) {}

  Status Write(const RecordBatchRef& b) {
    const int64_t n = b->num_rows();
    if (n == 0) return Status::OK();
    if (spec_.type.fields.empty()) return WriteTo("", {}, b);
    // Rows by their partition key (the tuple's bytes), in order of first sight.
    std::unordered_map<std::string, size_t> index;
    std::vector<std::string> keys;
    std::vector<std::vector<uint32_t>> rows;
    std::vector<size_t> first;
    std::string key;
    for (int64_t r = 0; r < n; ++r) {
      key.clear();
      QUIVER_RETURN_NOT_OK(AppendKey(*b, r, &key));
      auto [it, fresh] = index.emplace(key, keys.size());
      if (fresh) {
        keys.push_back(key);
        rows.emplace_back();
        first.push_back(static_cast<size_t>(r));
      }
      rows[it->second].push_back(static_cast<uint32_t>(r));
    }
    for (size_t g = 0; g < keys.size(); ++g) {
      std::vector<std::optional<Value>> values;
      if (groups_.find(keys[g]) == groups_.end()) {
        for (size_t k = 0; k < spec_.type.fields.size(); ++k) {
          const ArrayData& a = *b->column(spec_.source_columns[k]);
          const auto r = static_cast<int64_t>(first[g]);
          values.emplace_back(a.IsNull(r) ? Value()
                                          : iceberg::TransformValue(spec_.type.fields[k].transform,
                                                                    ValueFromArray(a, r)));
        }
      }
      if (keys.size() == 1) return WriteTo(keys[g], std::move(values), b);
      std::vector<ArrayRef> cols;
      for (const ArrayRef& c : b->columns()) {
        QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(c, rows[g].data(),
                                                           static_cast<int64_t>(rows[g].size()),
                                                           DefaultMemoryPool()));
        cols.push_back(std::move(a));
      }
      QUIVER_RETURN_NOT_OK(WriteTo(keys[g], std::move(values),
                                   RecordBatch::Make(schema_, static_cast<int64_t>(rows[g].size()),
                                                     std::move(cols))));
    }
    return Status::OK();
  }

  // Closes every file; their manifest entries, in order of their partitions'
  // keys.
  Result<std::vector<DataFile>> Finish() {
    for (auto& [key, g] : groups_) QUIVER_RETURN_NOT_OK(Close(&g));
    return std::move(done_);
  }

 private:
  struct Group {
    std::vector<std::optional<Value>> values;
    std::unique_ptr<DataFileWriter> out;
  };

  // Row r's partition tuple as bytes: per field, 0 for NULL, else 1 and
  // the value (integers and temporal values as 8 bytes, text and others as
  // their bound bytes with their length).
  Status AppendKey(const RecordBatch& b, int64_t r, std::string* key) const {
    for (size_t k = 0; k < spec_.type.fields.size(); ++k) {
      const ArrayData& a = *b.column(spec_.source_columns[k]);
      if (a.IsNull(r)) {
        key->push_back('\0');
        continue;
      }
      key->push_back('\1');
      const std::string& transform = spec_.type.fields[k].transform;
      const TypeId id = a.type->id;
      if (a.dictionary == nullptr && transform == "identity" && id == TypeId::kString) {
        const std::string_view v = a.GetString(r);
        const auto size = static_cast<uint32_t>(v.size());
        key->append(reinterpret_cast<const char*>(&size), 4);
        key->append(v.data(), v.size());
        continue;
      }
      int64_t x = 0;
      if (a.dictionary == nullptr && (id == TypeId::kInt32 || id == TypeId::kDate32)) {
        x = a.GetValues<int32_t>(1)[r];
      } else if (a.dictionary == nullptr && (id == TypeId::kInt64 || id == TypeId::kTimestamp)) {
        x = a.GetValues<int64_t>(1)[r];
      } else {
        QUIVER_ASSIGN_OR_RAISE(std::string bytes,
                               iceberg::SerializeBound(iceberg::TransformValue(transform, ValueFromArray(a, r))));
        const auto size = static_cast<uint32_t>(bytes.size());
        key->append(reinterpret_cast<const char*>(&size), 4);
        *key += bytes;
        continue;
      }
      if (transform != "identity") {
        const Value v = iceberg::TransformValue(transform, Value::Integer(a.type, x));
        x = v.integer();
      }
      key->append(reinterpret_cast<const char*>(&x), 8);
    }
    return Status::OK();
  }

  Status WriteTo(const std::string& key, std::vector<std::optional<Value>> values,
                 const RecordBatchRef& b) {
    Group& g = groups_[key];
    if (g.out == nullptr && g.values.empty()) g.values = std::move(values);
    if (g.out == nullptr) {
      QUIVER_ASSIGN_OR_RAISE(g.out, DataFileWriter::Open(fmt::format("{}-{}.parquet", prefix_, files_++),
                                                         schema_, fields_));
    }
    QUIVER_RETURN_NOT_OK(g.out->Write(b));
    if (roll_bytes_ > 0 && g.out->bytes() >= roll_bytes_) QUIVER_RETURN_NOT_OK(Close(&g));
    return Status::OK();
  }

  Status Close(Group* g) {
    if (g->out == nullptr) return Status::OK();
    QUIVER_ASSIGN_OR_RAISE(DataFile f, g->out->Finish());
    g->out.reset();
    f.spec_id = spec_.type.spec_id;
    f.partition = g->values;
    done_.push_back(std::move(f));
    return Status::OK();
  }

  std::string prefix_;
  SchemaRef schema_;
  std::vector<iceberg::SchemaField> fields_;
  iceberg::BoundSpec spec_;
  int64_t roll_bytes_;
  std::map<std::string, Group> groups_;
  std::vector<DataFile> done_;
  int files_ = 0;
};

Result<TableVersionRef> WriteCommit(IcebergDatabase* db, const std::string& name,
                                    const SchemaRef& schema, const IcebergState* base,
                                    std::vector<RecordBatchRef> rows,
                                    bool append, const TableConstraints* constraints,
                                    const TableVersion* stored_from,
                                    const TablePartitioning* partitioning) {
  auto state = std::make_shared<IcebergState>();
  if (base != nullptr) {
    state->metadata = base->metadata;
    state->version = base->version + 1;
    if (append) state->manifests = base->manifests;
    // The sequences moved on with the rows this commit writes.
    if (constraints != nullptr && constraints->HasSequences()) {
      SetSequenceProperty(constraints, &state->metadata);
    }
  } else {
    // A new table: a location of its own, so that a table dropped and
    // created again never shares files with the old one.
    state->metadata.table_uuid = iceberg::NewUuid();
    const auto [ns, bare] = SplitQualifiedName(name);
    state->metadata.location = FileUri(fmt::format("{}/{}.db/{}-{}", db->dir(), ns, bare,
                                                   state->metadata.table_uuid.substr(0, 8)));
    QUIVER_ASSIGN_OR_RAISE(state->metadata.fields, iceberg::FieldsOf(*schema));
    state->metadata.last_column_id = static_cast<int>(state->metadata.fields.size());
    if (partitioning != nullptr && !partitioning->empty()) {
      QUIVER_ASSIGN_OR_RAISE(iceberg::PartitionSpec spec,
                             iceberg::SpecOf(*partitioning, *schema, state->metadata.fields));
      state->metadata.last_partition_id = 999 + static_cast<int>(spec.fields.size());
      state->metadata.specs = {std::move(spec)};
    }
    SetConstraintProperties(constraints, &state->metadata);
    state->version = 1;
  }
  TableMetadata& m = state->metadata;
  QUIVER_ASSIGN_OR_RAISE(const std::string location, iceberg::LocalPath(m.location));
  std::error_code ec;
  fs::create_directories(location + "/data", ec);
  if (!ec) fs::create_directories(location + "/metadata", ec);
  if (ec) return Status::IOError("cannot create \"{}\": {}", location, ec.message());

  int64_t new_rows = 0;
  for (const auto& b : rows) new_rows += b->num_rows();
  const bool snapshot = base != nullptr || new_rows > 0;
  // The rows are laid out by the table's default partition spec.
  const iceberg::PartitionSpec* spec = m.default_spec();
  if (spec == nullptr) return Status::Invalid("table \"{}\": no default partition spec", name);
  iceberg::BoundSpec bound = iceberg::BindSpec(*spec, m.fields, *schema);
  if (!bound.writable()) {
    std::string transforms;
    for (const auto& f : spec->fields) transforms += (transforms.empty() ? "" : ", ") + f.transform;
    return Status::Unsupported("writing to Iceberg table \"{}\" partitioned by {}", name, transforms)
        .WithSqlState(sqlstate::kFeatureNotSupported)
        .WithHint("Quiver writes tables partitioned by identity, year, month, day and hour.");
  }

  const int64_t now = NowMs();
  std::vector<DataFile> files;  // the new snapshot's
  if (append && base != nullptr && base->rows != nullptr) files = base->rows->files();
  int64_t added_files = 0;
  if (snapshot) {
    const int64_t snapshot_id = NewSnapshotId();
    const int64_t seq = m.last_sequence_number + 1;
    const std::string uuid = iceberg::NewUuid();
    if (new_rows > 0) {
      // 1. The data files: one per partition value.
      PartitionedWriter writer(fmt::format("{}/data/{:05d}-{}", location, seq, uuid), schema,
                               m.fields, bound, 0);
      for (const auto& b : rows) QUIVER_RETURN_NOT_OK(writer.Write(b));
      QUIVER_ASSIGN_OR_RAISE(std::vector<DataFile> added, writer.Finish());
      // The manifest leaves their sequence numbers null (inherited); the
      // published version's deletes compare them (an older equality delete
      // kept by an append never reaches these rows).
      for (DataFile& f : added) f.sequence_number = seq;
      added_files = static_cast<int64_t>(added.size());
      // 2. Their manifest.
      QUIVER_ASSIGN_OR_RAISE(
          ManifestFile manifest,
          iceberg::WriteManifest(FileUri(fmt::format("{}/metadata/{}-m0.avro", location, uuid)),
                                 m.fields, m.schema_id, bound.type, snapshot_id, seq, added));
      state->manifests.push_back(std::move(manifest));
      for (DataFile& f : added) files.push_back(std::move(f));
    }
    const std::string list =
        FileUri(fmt::format("{}/metadata/snap-{}-1-{}.avro", location, snapshot_id, uuid));
    QUIVER_RETURN_NOT_OK(iceberg::WriteManifestList(list, snapshot_id, m.current_snapshot_id, seq,
                                                    state->manifests));
    iceberg::Snapshot snap;
    snap.snapshot_id = snapshot_id;
    snap.parent_snapshot_id = m.current_snapshot_id;
    snap.sequence_number = seq;
    snap.timestamp_ms = now;
    snap.manifest_list = list;
    snap.operation = append ? "append" : (new_rows > 0 ? "overwrite" : "delete");
    snap.summary = {{"added-records", std::to_string(new_rows)},
                    {"added-data-files", std::to_string(added_files)}};
    snap.schema_id = m.schema_id;
    m.snapshots.push_back(std::move(snap));
    m.snapshot_log.emplace_back(now, snapshot_id);
    m.current_snapshot_id = snapshot_id;
    m.last_sequence_number = seq;
  }
  // 3. The metadata file.
  if (base != nullptr) m.metadata_log.emplace_back(base->metadata.last_updated_ms, base->metadata_location);
  m.last_updated_ms = now;
  const std::string metadata_path =
      fmt::format("{}/metadata/v{}.metadata.json", location, state->version);
  {
    // A file of that name is left over from a commit that crashed before
    // step 4 (this process holds the database): nothing refers to it.
    QUIVER_ASSIGN_OR_RAISE(auto file, AtomicFile::Create(metadata_path));
    const std::string text = iceberg::ToJson(m);
    QUIVER_RETURN_NOT_OK(file->Write(text.data(), static_cast<int64_t>(text.size())));
    QUIVER_RETURN_NOT_OK(file->Commit());
  }
  state->metadata_location = FileUri(metadata_path);
  // 4. The catalog's compare-and-swap.
  QUIVER_RETURN_NOT_OK(db->SwapMetadataLocation(
      name, base != nullptr ? base->metadata_location : "", state->metadata_location));

  // The version published reads the snapshot's files.
  std::vector<FieldRef> plain;
  for (const auto& fd : schema->fields) plain.push_back(field(fd->name, fd->type, fd->nullable));
  QUIVER_ASSIGN_OR_RAISE(state->rows,
                         iceberg::IcebergRows::Make(name, quiver::schema(std::move(plain)), m.fields,
                                                    m.specs, std::move(files)));
  auto version = std::make_shared<TableVersion>();
  version->num_rows = state->rows->num_rows();
  version->stored = state->rows;
  version->storage = std::move(state);
  version->stored_from = stored_from;
  return TableVersionRef(std::move(version));
}

// ---- maintenance: VACUUM and expire_snapshots ----

// Compaction: data files smaller than this are merged; new files are closed
// once they hold about kTargetFileBytes of rows (in memory; far less on disk).
constexpr int64_t kSmallFileBytes = int64_t{32} << 20;
constexpr int64_t kTargetFileBytes = int64_t{256} << 20;

// Steps 3-4 of a commit: `state`'s metadata (already holding the new
// snapshot, if any) written as the next metadata file, then the catalog's
// compare-and-swap from `base`'s.
Status WriteMetadataAndSwap(IcebergDatabase* db, const std::string& name, const IcebergState& base,
                            IcebergState* state, const std::string& new_name = "") {
  TableMetadata& m = state->metadata;
  const int64_t now = NowMs();
  m.metadata_log.emplace_back(base.metadata.last_updated_ms, base.metadata_location);
  m.last_updated_ms = now;
  QUIVER_ASSIGN_OR_RAISE(const std::string location, iceberg::LocalPath(m.location));
  const std::string metadata_path =
      fmt::format("{}/metadata/v{}.metadata.json", location, state->version);
  {
    QUIVER_ASSIGN_OR_RAISE(auto file, AtomicFile::Create(metadata_path));
    const std::string text = iceberg::ToJson(m);
    QUIVER_RETURN_NOT_OK(file->Write(text.data(), static_cast<int64_t>(text.size())));
    QUIVER_RETURN_NOT_OK(file->Commit());
  }
  state->metadata_location = FileUri(metadata_path);
  return db->SwapMetadataLocation(name, base.metadata_location, state->metadata_location, new_name);
}

// The local paths of every file the table's metadata refers to: the
// current metadata file and those of its metadata log, each snapshot's
// manifest list, manifests, data and delete files.
enum class FileKind { kMetadata, kManifestList, kManifest, kData, kPositionDeletes, kEqualityDeletes };

Result<std::map<std::string, FileKind>> ReferencedFiles(const IcebergState& state) {
  std::map<std::string, FileKind> out;
  auto add = [&](const std::string& uri, FileKind kind) -> Status {
    QUIVER_ASSIGN_OR_RAISE(std::string p, iceberg::LocalPath(uri));
    out.emplace(fs::path(p).lexically_normal().string(), kind);
    return Status::OK();
  };
  QUIVER_RETURN_NOT_OK(add(state.metadata_location, FileKind::kMetadata));
  for (const auto& entry : state.metadata.metadata_log) {
    QUIVER_RETURN_NOT_OK(add(entry.second, FileKind::kMetadata));
  }
  std::set<std::string> manifests_seen;
  for (const iceberg::Snapshot& s : state.metadata.snapshots) {
    QUIVER_RETURN_NOT_OK(add(s.manifest_list, FileKind::kManifestList));
    QUIVER_ASSIGN_OR_RAISE(std::vector<ManifestFile> manifests,
                           iceberg::ReadManifestList(s.manifest_list));
    for (const ManifestFile& mf : manifests) {
      if (!manifests_seen.insert(mf.path).second) continue;
      QUIVER_RETURN_NOT_OK(add(mf.path, FileKind::kManifest));
      QUIVER_ASSIGN_OR_RAISE(std::vector<DataFile> files,
                             iceberg::ReadManifest(mf.path, mf.sequence_number));
      for (const DataFile& f : files) {
        QUIVER_RETURN_NOT_OK(add(f.path, f.content == 1   ? FileKind::kPositionDeletes
                                         : f.content == 2 ? FileKind::kEqualityDeletes
                                                          : FileKind::kData));
      }
    }
  }
  return out;
}

// Removes the files under the table's data/ and metadata/ directories that
// its metadata does not refer to (a crashed commit's, an expired
// snapshot's, files a compaction replaced once no snapshot lists them),
// counted by what `before` (the metadata before the statement) held them for.
Status RemoveUnreferencedFiles(const IcebergState& state, const IcebergState& before,
                               MaintenanceCounts* counts) {
  QUIVER_ASSIGN_OR_RAISE(auto keep, ReferencedFiles(state));
  std::map<std::string, FileKind> known = keep;
  if (&before != &state) {
    QUIVER_ASSIGN_OR_RAISE(known, ReferencedFiles(before));
  }
  QUIVER_ASSIGN_OR_RAISE(const std::string location, iceberg::LocalPath(state.metadata.location));
  for (const char* sub : {"data", "metadata"}) {
    const fs::path dir = fs::path(location) / sub;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> doomed;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      const std::string p = it->path().lexically_normal().string();
      if (it->path().filename() == "version-hint.text") continue;
      if (keep.count(p) == 0) doomed.push_back(it->path());
    }
    if (ec) return Status::IOError("cannot list \"{}\": {}", dir.string(), ec.message());
    for (const fs::path& p : doomed) {
      if (!fs::remove(p, ec) && ec) {
        return Status::IOError("cannot remove \"{}\": {}", p.string(), ec.message());
      }
      ++counts->files_removed;
      auto it = known.find(p.lexically_normal().string());
      if (it == known.end()) {
        ++counts->orphan_files_removed;
        continue;
      }
      switch (it->second) {
        case FileKind::kData: ++counts->data_files_removed; break;
        case FileKind::kPositionDeletes: ++counts->position_delete_files_removed; break;
        case FileKind::kEqualityDeletes: ++counts->equality_delete_files_removed; break;
        case FileKind::kManifest: ++counts->manifests_removed; break;
        case FileKind::kManifestList: ++counts->manifest_lists_removed; break;
        case FileKind::kMetadata: ++counts->orphan_files_removed; break;  // never: the log keeps them
      }
    }
  }
  return Status::OK();
}

// The bound specs of a table's metadata by spec id; fails unless every
// spec a data file of `files` uses and the default spec can be written.
Result<std::map<int, iceberg::BoundSpec>> WritableSpecs(const std::string& name,
                                                        const TableMetadata& m,
                                                        const SchemaRef& schema,
                                                        const std::vector<DataFile>& files) {
  std::map<int, iceberg::BoundSpec> out;
  for (const iceberg::PartitionSpec& s : m.specs) out.emplace(s.spec_id, iceberg::BindSpec(s, m.fields, *schema));
  std::set<int> used = {m.default_spec_id};
  for (const DataFile& f : files) used.insert(f.spec_id);
  for (int id : used) {
    auto it = out.find(id);
    if (it == out.end()) return Status::Invalid("table \"{}\": no partition spec {}", name, id);
    if (!it->second.writable()) {
      return Status::Unsupported("rewriting Iceberg table \"{}\": a partition transform Quiver does not write", name)
          .WithSqlState(sqlstate::kFeatureNotSupported);
    }
  }
  return out;
}

// VACUUM: the small data files (and every file deletes remove rows of:
// rows a position delete names or an equality delete reaches) rewritten
// into files of about kTargetFileBytes, the deletes applied,
// in one "replace" commit; then the files nothing refers to are removed.
// Files merge within their partition: a partition's small files are
// rewritten when there are two or more (or deletes name one of them).
Result<TableVersionRef> VacuumTable(IcebergDatabase* db, const std::string& name,
                                    const SchemaRef& schema, const TableVersionRef& current,
                                    MaintenanceCounts* counts) {
  auto base = std::static_pointer_cast<const IcebergState>(current->storage);
  TableVersionRef published = current;
  const iceberg::IcebergRows& rows = *base->rows;
  QUIVER_ASSIGN_OR_RAISE(auto specs, WritableSpecs(name, base->metadata, schema, rows.data_files()));
  // Partition values as the specs' types (a manifest read gives them as
  // its Avro types), for grouping and for the new manifests.
  std::vector<DataFile> data = rows.data_files();
  for (DataFile& f : data) {
    const iceberg::BoundSpec& b = specs.at(f.spec_id);
    if (f.partition.size() != b.type.fields.size()) {
      return Status::Invalid("table \"{}\": data file {} has {} partition values, its spec {} fields",
                             name, f.path, f.partition.size(), b.type.fields.size());
    }
    for (size_t k = 0; k < f.partition.size(); ++k) {
      std::optional<Value> v = iceberg::PartitionValueAs(f.partition[k], b.type.types[k]);
      if (!v.has_value()) {
        return Status::Invalid("table \"{}\": data file {}: a partition value of field {} unreadable",
                               name, f.path, b.type.fields[k].name);
      }
      f.partition[k] = std::move(v);
    }
  }
  // Candidates by partition: (spec id, the tuple's bytes).
  std::map<std::string, std::vector<size_t>> candidates;
  std::vector<bool> deletes(data.size(), false);
  for (size_t i = 0; i < data.size(); ++i) {
    const DataFile& f = data[i];
    deletes[i] = rows.HasDeletes(i);
    if (f.file_size >= kSmallFileBytes && !deletes[i]) continue;
    std::string key = std::to_string(f.spec_id) + "/";
    for (const std::optional<Value>& v : f.partition) {
      key.push_back(v->is_null() ? '\0' : '\1');
      if (v->is_null()) continue;
      QUIVER_ASSIGN_OR_RAISE(std::string bytes, iceberg::SerializeBound(*v));
      key += std::to_string(bytes.size()) + ":" + bytes;
    }
    candidates[key].push_back(i);
  }
  std::vector<bool> rewritten(data.size(), false);
  for (const auto& [key, group] : candidates) {
    bool any_deletes = false;
    for (size_t i : group) any_deletes = any_deletes || deletes[i];
    if (group.size() < 2 && !any_deletes) continue;
    for (size_t i : group) rewritten[i] = true;
  }
  std::vector<DataFile> rewrite;
  std::vector<DataFile> kept;
  for (size_t i = 0; i < data.size(); ++i) (rewritten[i] ? rewrite : kept).push_back(std::move(data[i]));
  if (!rewrite.empty() || !rows.delete_files().empty()) {
    auto state = std::make_shared<IcebergState>(*base);
    state->version = base->version + 1;
    TableMetadata& m = state->metadata;
    QUIVER_ASSIGN_OR_RAISE(const std::string location, iceberg::LocalPath(m.location));
    const int64_t snapshot_id = NewSnapshotId();
    const int64_t seq = m.last_sequence_number + 1;
    const std::string uuid = iceberg::NewUuid();
    // The rows of the files rewritten, deletes applied, read by row groups.
    std::vector<DataFile> inputs = rewrite;
    for (const DataFile& d : rows.delete_files()) inputs.push_back(d);
    std::vector<FieldRef> plain;
    for (const auto& fd : schema->fields) plain.push_back(field(fd->name, fd->type, fd->nullable));
    const SchemaRef plain_schema = quiver::schema(std::move(plain));
    QUIVER_ASSIGN_OR_RAISE(auto source, iceberg::IcebergRows::Make(name, plain_schema, m.fields,
                                                                   m.specs, std::move(inputs)));
    ScanRequest all;
    for (int c = 0; c < schema->num_fields(); ++c) all.columns.push_back(c);
    QUIVER_ASSIGN_OR_RAISE(auto plan, source->Plan(all));
    int64_t records_in = 0;
    for (const DataFile& f : rewrite) records_in += f.record_count;
    // Each partition's rows into files of about kTargetFileBytes.
    PartitionedWriter out(fmt::format("{}/data/{:05d}-{}-c", location, seq, uuid), schema, m.fields,
                          specs.at(m.default_spec_id), kTargetFileBytes);
    for (int64_t u = 0; u < plan->num_units(); ++u) {
      QUIVER_ASSIGN_OR_RAISE(RecordBatchRef b, plan->ReadUnit(u));
      QUIVER_RETURN_NOT_OK(out.Write(b));
    }
    QUIVER_ASSIGN_OR_RAISE(std::vector<DataFile> added, out.Finish());
    int64_t records_out = 0;
    for (const DataFile& f : added) records_out += f.record_count;
    // Every file written to the new manifests takes the commit's sequence
    // number (inherited from the manifest list). No delete file is kept:
    // each data file a delete removes rows of was rewritten above.
    for (DataFile& f : kept) f.sequence_number = seq;
    for (DataFile& f : added) f.sequence_number = seq;
    std::vector<DataFile> files = kept;
    files.insert(files.end(), added.begin(), added.end());
    // One manifest per partition spec the files use.
    state->manifests.clear();
    std::map<int, std::vector<DataFile>> by_spec;
    for (const DataFile& f : files) by_spec[f.spec_id].push_back(f);
    for (const auto& [spec_id, spec_files] : by_spec) {
      QUIVER_ASSIGN_OR_RAISE(
          ManifestFile manifest,
          iceberg::WriteManifest(
              FileUri(fmt::format("{}/metadata/{}-m{}.avro", location, uuid, state->manifests.size())),
              m.fields, m.schema_id, specs.at(spec_id).type, snapshot_id, seq, spec_files));
      state->manifests.push_back(std::move(manifest));
    }
    const std::string list =
        FileUri(fmt::format("{}/metadata/snap-{}-1-{}.avro", location, snapshot_id, uuid));
    QUIVER_RETURN_NOT_OK(iceberg::WriteManifestList(list, snapshot_id, m.current_snapshot_id, seq,
                                                    state->manifests));
    const int64_t now = NowMs();
    iceberg::Snapshot snap;
    snap.snapshot_id = snapshot_id;
    snap.parent_snapshot_id = m.current_snapshot_id;
    snap.sequence_number = seq;
    snap.timestamp_ms = now;
    snap.manifest_list = list;
    snap.operation = "replace";
    snap.summary = {{"added-data-files", std::to_string(added.size())},
                    {"deleted-data-files", std::to_string(rewrite.size())},
                    {"removed-delete-files", std::to_string(rows.delete_files().size())},
                    {"added-records", std::to_string(records_out)},
                    {"deleted-records", std::to_string(records_in - records_out)}};
    snap.schema_id = m.schema_id;
    m.snapshots.push_back(std::move(snap));
    m.snapshot_log.emplace_back(now, snapshot_id);
    m.current_snapshot_id = snapshot_id;
    m.last_sequence_number = seq;
    QUIVER_RETURN_NOT_OK(WriteMetadataAndSwap(db, name, *base, state.get()));
    QUIVER_ASSIGN_OR_RAISE(state->rows, iceberg::IcebergRows::Make(name, plain_schema, m.fields,
                                                                   m.specs, std::move(files)));
    auto version = std::make_shared<TableVersion>();
    version->num_rows = state->rows->num_rows();
    version->stored = state->rows;
    version->storage = state;
    published = std::move(version);
    counts->files_compacted = static_cast<int64_t>(rewrite.size());
    counts->files_written = static_cast<int64_t>(added.size());
  }
  auto state = std::static_pointer_cast<const IcebergState>(published->storage);
  QUIVER_RETURN_NOT_OK(RemoveUnreferencedFiles(*state, *base, counts));
  return published;
}

// expire_snapshots: the snapshots committed before `older_than_ms`, but
// for the current one and the `retain_last` newest, removed from the
// metadata (the snapshot log trimmed after the last of them), then the
// files nothing refers to any more.
Result<TableVersionRef> ExpireTableSnapshots(IcebergDatabase* db, const std::string& name,
                                             const TableVersionRef& current, int64_t older_than_ms,
                                             int64_t retain_last, MaintenanceCounts* counts) {
  auto base = std::static_pointer_cast<const IcebergState>(current->storage);
  const TableMetadata& old = base->metadata;
  std::vector<const iceberg::Snapshot*> by_time;
  for (const iceberg::Snapshot& s : old.snapshots) by_time.push_back(&s);
  std::stable_sort(by_time.begin(), by_time.end(),
                   [](const iceberg::Snapshot* a, const iceberg::Snapshot* b) {
                     return a->timestamp_ms > b->timestamp_ms;
                   });
  std::set<int64_t> keep;
  for (size_t i = 0; i < by_time.size(); ++i) {
    const iceberg::Snapshot& s = *by_time[i];
    if (static_cast<int64_t>(i) < retain_last || s.timestamp_ms >= older_than_ms ||
        (old.current_snapshot_id.has_value() && *old.current_snapshot_id == s.snapshot_id)) {
      keep.insert(s.snapshot_id);
    }
  }
  TableVersionRef published = current;
  if (keep.size() < old.snapshots.size()) {
    auto state = std::make_shared<IcebergState>(*base);
    state->version = base->version + 1;
    TableMetadata& m = state->metadata;
    m.snapshots.clear();
    for (const iceberg::Snapshot& s : old.snapshots) {
      if (keep.count(s.snapshot_id) > 0) m.snapshots.push_back(s);
    }
    size_t last_expired = 0;  // one past the last log entry of an expired snapshot
    for (size_t i = 0; i < old.snapshot_log.size(); ++i) {
      if (keep.count(old.snapshot_log[i].second) == 0) last_expired = i + 1;
    }
    m.snapshot_log.assign(old.snapshot_log.begin() + static_cast<std::ptrdiff_t>(last_expired),
                          old.snapshot_log.end());
    counts->snapshots_expired = static_cast<int64_t>(old.snapshots.size() - keep.size());
    QUIVER_RETURN_NOT_OK(WriteMetadataAndSwap(db, name, *base, state.get()));
    auto version = std::make_shared<TableVersion>(*current);
    version->storage = state;
    version->appended_to = nullptr;
    version->same_rows_as = nullptr;
    published = std::move(version);
  }
  auto state = std::static_pointer_cast<const IcebergState>(published->storage);
  QUIVER_RETURN_NOT_OK(RemoveUnreferencedFiles(*state, *base, counts));
  return published;
}

// The DEFAULT, CHECK and sequence properties of a stored table (written by
// SetExpressionProperties / SetSequenceProperty) into *constraints (made
// when there are any).
Status LoadExpressionProperties(const IcebergDatabase* db, const std::string& name,
                                const TableMetadata& m, const Schema& schema,
                                std::shared_ptr<TableConstraints>* constraints) {
  const size_t n = m.fields.size();
  auto ensure = [&]() -> TableConstraints& {
    if (*constraints == nullptr) *constraints = std::make_shared<TableConstraints>();
    TableConstraints& c = **constraints;
    c.defaults.resize(n);
    c.default_sql.resize(n);
    c.sequences.resize(n);
    return c;
  };
  for (const auto& [key, value] : m.properties) {
    if (key != kDefaultProperty && key != kCheckProperty && key != kSequenceProperty) continue;
    auto list = nlohmann::json::parse(value, nullptr, /*allow_exceptions=*/false);
    auto bad = [&, key = key, value = value](const std::string& why) {
      return Status::Invalid("table \"{}\": malformed property {} ({}): {}", name, key, why, value);
    };
    if (!list.is_array()) return bad("not a list");
    for (const auto& e : list) {
      if (!e.is_object()) return bad("an entry is not an object");
      auto text = [&](const char* k) -> std::string {
        return e.contains(k) && e[k].is_string() ? e[k].get<std::string>() : std::string();
      };
      int column = -1;
      if (key != kCheckProperty) {
        if (!e.contains("field-id") || !e["field-id"].is_number_integer()) return bad("no field-id");
        column = iceberg::FieldPosition(m.fields, e["field-id"].get<int>());
        if (column < 0) return bad("unknown field-id");
      }
      if (key == kDefaultProperty || key == kCheckProperty) {
        const std::string sql = text("sql");
        if (sql.empty()) return bad("no sql");
        auto expr = sql::ParseExpression(sql);
        if (!expr.ok()) return bad(expr.status().message());
        TableConstraints& c = ensure();
        if (key == kDefaultProperty) {
          c.defaults[static_cast<size_t>(column)] = *expr;
          c.default_sql[static_cast<size_t>(column)] = sql;
        } else {
          if (text("name").empty()) return bad("a check without a name");
          c.checks.push_back({text("name"), *expr, sql});
        }
        continue;
      }
      // A sequence.
      if (text("name").empty() || !e.contains("increment") || !e["increment"].is_number_integer() ||
          !e.contains("next") || !e["next"].is_number_integer()) {
        return bad("a sequence needs name, increment and next");
      }
      if (!db->sequence_factory()) {
        return Status::UnknownError("internal error: no sequence factory to open table \"{}\"", name);
      }
      const bool always = e.contains("always") && e["always"].is_boolean() && e["always"].get<bool>();
      auto seq = db->sequence_factory()(text("name"), schema.field(column)->type, always,
                                        e["increment"].get<int64_t>(), e["next"].get<int64_t>());
      if (!seq.ok()) return bad(seq.status().message());
      ensure().sequences[static_cast<size_t>(column)] = *seq;
    }
  }
  return Status::OK();
}

// Reads a stored table: its metadata, manifests and data files.
Result<std::shared_ptr<MemoryTable>> LoadTable(const std::shared_ptr<IcebergDatabase>& db,
                                               const std::string& name,
                                               const std::string& metadata_location) {
  QUIVER_ASSIGN_OR_RAISE(std::string path, iceberg::LocalPath(metadata_location));
  QUIVER_ASSIGN_OR_RAISE(auto buffer, ReadFileFully(path));
  auto state = std::make_shared<IcebergState>();
  QUIVER_ASSIGN_OR_RAISE(
      state->metadata,
      iceberg::ParseTableMetadata(std::string(reinterpret_cast<const char*>(buffer->data()),
                                              static_cast<size_t>(buffer->size())),
                                  path));
  state->metadata_location = metadata_location;
  state->version = static_cast<int>(state->metadata.metadata_log.size()) + 1;
  const std::string file_name = fs::path(path).filename().string();
  int n = 0;
  if (std::sscanf(file_name.c_str(), "v%d.metadata.json", &n) == 1 && n > 0) state->version = n;
  QUIVER_ASSIGN_OR_RAISE(SchemaRef schema, iceberg::EngineSchema(state->metadata));
  // Engine schema without the ids (the ids are the state's).
  std::vector<FieldRef> plain;
  for (const auto& f : schema->fields) plain.push_back(field(f->name, f->type, f->nullable));
  schema = quiver::schema(std::move(plain));

  std::vector<DataFile> files;
  if (const iceberg::Snapshot* snap = state->metadata.current_snapshot()) {
    QUIVER_ASSIGN_OR_RAISE(state->manifests, iceberg::ReadManifestList(snap->manifest_list));
    QUIVER_ASSIGN_OR_RAISE(files, iceberg::SnapshotFiles(*snap));
  }
  // The rows stay in the files: scans plan them (storage/iceberg_scan.h).
  QUIVER_ASSIGN_OR_RAISE(state->rows,
                         iceberg::IcebergRows::Make(name, schema, state->metadata.fields,
                                                    state->metadata.specs, std::move(files)));
  auto version = std::make_shared<TableVersion>();
  version->num_rows = state->rows->num_rows();
  version->stored = state->rows;
  // PRIMARY KEY and UNIQUE, by field id.
  std::shared_ptr<TableConstraints> constraints;
  for (const auto& [key, value] : state->metadata.properties) {
    if (key != kUniqueProperty) continue;
    auto list = nlohmann::json::parse(value, nullptr, /*allow_exceptions=*/false);
    auto bad = [&] {
      return Status::Invalid("table \"{}\": malformed property {}: {}", name, kUniqueProperty, value);
    };
    if (!list.is_array()) return bad();
    constraints = std::make_shared<TableConstraints>();
    for (const auto& u : list) {
      if (!u.is_object() || !u.contains("name") || !u["name"].is_string() ||
          !u.contains("field-ids") || !u["field-ids"].is_array()) {
        return bad();
      }
      UniqueConstraint c;
      c.name = u["name"].get<std::string>();
      c.primary = u.contains("primary") && u["primary"].is_boolean() && u["primary"].get<bool>();
      for (const auto& id : u["field-ids"]) {
        if (!id.is_number_integer()) return bad();
        const int found = iceberg::FieldPosition(state->metadata.fields, id.get<int>());
        if (found < 0) return bad();
        c.columns.push_back(found);
      }
      constraints->unique.push_back(std::move(c));
    }
  }
  // varchar(n) / char(n) lengths, by field id.
  for (const auto& [key, value] : state->metadata.properties) {
    if (key != kLengthProperty) continue;
    auto list = nlohmann::json::parse(value, nullptr, /*allow_exceptions=*/false);
    auto bad = [&] {
      return Status::Invalid("table \"{}\": malformed property {}: {}", name, kLengthProperty, value);
    };
    if (!list.is_array()) return bad();
    if (constraints == nullptr) constraints = std::make_shared<TableConstraints>();
    constraints->lengths.assign(state->metadata.fields.size(), CharLength{});
    for (const auto& l : list) {
      if (!l.is_object() || !l.contains("field-id") || !l["field-id"].is_number_integer() ||
          !l.contains("length") || !l["length"].is_number_integer()) {
        return bad();
      }
      const int64_t n = l["length"].get<int64_t>();
      if (n < 1 || n > 10485760) return bad();
      const int found = iceberg::FieldPosition(state->metadata.fields, l["field-id"].get<int>());
      if (found < 0) return bad();
      constraints->lengths[static_cast<size_t>(found)] = {
          static_cast<int32_t>(n), l.contains("char") && l["char"].is_boolean() && l["char"].get<bool>()};
    }
  }
  // DEFAULTs, CHECKs (SQL text) and serial / identity sequences.
  QUIVER_RETURN_NOT_OK(LoadExpressionProperties(db.get(), name, state->metadata, *schema, &constraints));
  version->storage = state;
  auto table = std::make_shared<MemoryTable>(name, schema, constraints);
  table->Restore(std::move(version));
  table->set_store(std::make_shared<IcebergTableStore>(db, name, schema, table->constraints()));
  return table;
}

// N of Quiver's "vN.metadata.json"; -1 for any other name (other engines
// name theirs "NNNNN-<uuid>.metadata.json").
int64_t QuiverMetadataVersion(const std::string& name) {
  const std::string suffix = ".metadata.json";
  if (name.size() <= suffix.size() + 1 || name[0] != 'v' ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return -1;
  }
  const std::string digits = name.substr(1, name.size() - suffix.size() - 1);
  if (digits.empty() || digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return -1;
  }
  return std::stoll(digits);
}

// N of "vN.metadata.json" or "NNNNN-<uuid>.metadata.json"; -1 otherwise.
int64_t AnyMetadataVersion(const std::string& name) {
  if (!name.ends_with(".metadata.json")) return -1;
  size_t i = !name.empty() && name[0] == 'v' ? 1 : 0;
  const size_t start = i;
  int64_t n = 0;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) && i - start < 18) {
    n = n * 10 + (name[i] - '0');
    ++i;
  }
  if (i == start || (name[i] != '.' && name[i] != '-')) return -1;
  return n;
}

// AtomicFile's temporary names: "<name>.tmp-" and 8 hex digits.
bool IsTemporaryFile(const std::string& name) {
  const size_t at = name.rfind(".tmp-");
  if (at == std::string::npos || name.size() != at + 13) return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(at + 5), name.end(),
                     [](unsigned char c) { return std::isxdigit(c); });
}

// What a commit killed before its catalog swap left in a table's
// directories, removed when a writer opens the database (it holds the
// lock, so no commit of Quiver's is in flight): metadata files of Quiver's
// naming numbered at or above the catalog's current one (but for it), which `read_iceberg`
// over the table's path would otherwise take for the newest, and
// AtomicFile's temporary files. Other engines' files (pyiceberg, Spark
// name theirs "NNNNN-<uuid>.metadata.json") are left alone: their commit
// may be in flight. Unreferenced data files and manifests stay until
// VACUUM; no reader finds them without a metadata file.
Status RemoveUncommittedFiles(const std::string& metadata_location) {
  QUIVER_ASSIGN_OR_RAISE(std::string current, iceberg::LocalPath(metadata_location));
  const fs::path metadata_dir = fs::path(current).parent_path();
  if (metadata_dir.filename() != "metadata") return Status::OK();  // not our layout
  const std::string current_name = fs::path(current).filename().string();
  const int64_t current_version = AnyMetadataVersion(current_name);
  for (const fs::path& dir : {metadata_dir, metadata_dir.parent_path() / "data"}) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> doomed;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
         it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (!it->is_regular_file(ec)) continue;
      const int64_t n = QuiverMetadataVersion(name);
      if (IsTemporaryFile(name) ||
          (dir == metadata_dir && current_version >= 0 && n >= current_version &&
           name != current_name)) {
        doomed.push_back(it->path());
      }
    }
    if (ec) return Status::IOError("cannot list \"{}\": {}", dir.string(), ec.message());
    for (const fs::path& p : doomed) {
      if (!fs::remove(p, ec) && ec) {
        return Status::IOError("cannot remove \"{}\": {}", p.string(), ec.message());
      }
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<IcebergDatabase>> IcebergDatabase::Open(const std::string& dir,
                                                               bool read_only) {
  std::error_code ec;
  if (!read_only) fs::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create database directory \"{}\": {}", dir, ec.message());
  const fs::path abs = fs::absolute(dir, ec);
  if (ec) return Status::IOError("database directory \"{}\": {}", dir, ec.message());
  std::shared_ptr<IcebergDatabase> db(new IcebergDatabase());
  db->dir_ = abs.lexically_normal().string();
  while (db->dir_.size() > 1 && db->dir_.back() == '/') db->dir_.pop_back();
  db->read_only_ = read_only;
  if (read_only) {
    const std::string catalog_path = db->dir_ + "/catalog.db";
    if (!fs::exists(catalog_path, ec)) {
      return Status::IOError("database \"{}\" does not exist (no catalog.db)", db->dir_);
    }
    const int rc = sqlite3_open_v2(catalog_path.c_str(), &db->db_,
                                   SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, nullptr);
    if (rc != SQLITE_OK) {
      return Status::IOError("cannot open catalog \"{}\": {}", catalog_path,
                             db->db_ ? sqlite3_errmsg(db->db_) : sqlite3_errstr(rc));
    }
    sqlite3_busy_timeout(db->db_, 5000);
    return db;
  }

  const std::string lock_path = db->dir_ + "/quiver.lock";
  db->lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (db->lock_fd_ < 0) {
    return Status::IOError("cannot open \"{}\": {}", lock_path, std::strerror(errno));
  }
  if (::flock(db->lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    char pid[32] = {0};
    const ssize_t n = ::pread(db->lock_fd_, pid, sizeof(pid) - 1, 0);
    std::string holder = n > 0 ? std::string(pid, static_cast<size_t>(n)) : "";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    return Status::IOError(
               "database \"{}\" is in use by another Quiver process{}: one process at a time "
               "opens a database",
               db->dir_, holder.empty() ? "" : " (pid " + holder + ")")
        .WithSqlState("55006");  // object_in_use
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(db->lock_fd_, 0) != 0 ||
      ::pwrite(db->lock_fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    return Status::IOError("cannot write \"{}\": {}", lock_path, std::strerror(errno));
  }

  const std::string catalog_path = db->dir_ + "/catalog.db";
  const int rc = sqlite3_open_v2(catalog_path.c_str(), &db->db_,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                                 nullptr);
  if (rc != SQLITE_OK) {
    return Status::IOError("cannot open catalog \"{}\": {}", catalog_path,
                           db->db_ ? sqlite3_errmsg(db->db_) : sqlite3_errstr(rc));
  }
  sqlite3_busy_timeout(db->db_, 5000);
  // The tables of Iceberg's JDBC catalog (its "V1" schema, with
  // iceberg_type), as pyiceberg's SqlCatalog creates them too.
  QUIVER_RETURN_NOT_OK(db->Exec(
      "CREATE TABLE IF NOT EXISTS iceberg_tables ("
      "catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL, "
      "table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000), "
      "previous_metadata_location VARCHAR(1000), iceberg_type VARCHAR(5), "
      "PRIMARY KEY (catalog_name, table_namespace, table_name))"));
  QUIVER_RETURN_NOT_OK(db->Exec(
      "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties ("
      "catalog_name VARCHAR(255) NOT NULL, namespace VARCHAR(255) NOT NULL, "
      "property_key VARCHAR(255) NOT NULL, property_value VARCHAR(1000), "
      "PRIMARY KEY (catalog_name, namespace, property_key))"));
  QUIVER_RETURN_NOT_OK(db->Exec(fmt::format(
      "INSERT OR IGNORE INTO iceberg_namespace_properties VALUES ('{}', '{}', 'exists', 'true')",
      kCatalogName, kNamespace)));
  return db;
}

Status IcebergDatabase::CheckWritable() const {
  if (!read_only_) return Status::OK();
  return Status::Invalid("cannot write: database \"{}\" was opened read-only", dir_)
      .WithSqlState(sqlstate::kReadOnlySqlTransaction);
}

IcebergDatabase::~IcebergDatabase() {
  if (db_ != nullptr) sqlite3_close(db_);
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

Status IcebergDatabase::Exec(const std::string& sql) {
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    Status st = Status::IOError("catalog database: {}", err ? err : sqlite3_errstr(rc));
    sqlite3_free(err);
    return st;
  }
  return Status::OK();
}

Status IcebergDatabase::LoadInto(Catalog* catalog) {
  std::vector<std::pair<std::string, std::string>> rows;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Stmt s(db_,
           "SELECT table_namespace, table_name, metadata_location FROM iceberg_tables WHERE "
           "catalog_name = ? AND (iceberg_type IS NULL OR iceberg_type = 'TABLE') "
           "ORDER BY table_namespace, table_name");
    QUIVER_RETURN_NOT_OK(s.status());
    s.Bind(1, kCatalogName);
    int rc;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
      const std::string ns = Column(s.get(), 0);
      // Nested namespaces (a.b) have no schema here: left out.
      if (ns.find('.') != std::string::npos) continue;
      rows.emplace_back(QualifiedName(ns, Column(s.get(), 1)), Column(s.get(), 2));
    }
    QUIVER_RETURN_NOT_OK(Sqlite(db_, rc, "reading iceberg_tables"));
  }
  QUIVER_ASSIGN_OR_RAISE(std::vector<std::string> namespaces, Namespaces());
  for (const std::string& ns : namespaces) {
    if (!IsBuiltinSchema(ns)) QUIVER_RETURN_NOT_OK(catalog->CreateSchema(ns, true));
  }
  for (const auto& [name, location] : rows) {
    if (!read_only_) {
      Status st = RemoveUncommittedFiles(location);
      if (!st.ok()) {
        return st.WithContext(fmt::format("opening table \"{}\" of {}", name, dir_));
      }
    }
    auto table = LoadTable(shared_from_this(), name, location);
    if (!table.ok()) {
      return table.status().WithContext(fmt::format("opening table \"{}\" of {}", name, dir_));
    }
    QUIVER_RETURN_NOT_OK(catalog->CreateTable(name, *table));
  }
  return Status::OK();
}

Status IcebergDatabase::CheckTable(const MemoryTable& table) {
  QUIVER_RETURN_NOT_OK(CheckWritable());
  if (const TableConstraints* c = table.constraints().get()) {
    // DEFAULTs and CHECKs are kept as SQL text: one without it cannot be.
    for (size_t i = 0; i < c->defaults.size(); ++i) {
      if (c->defaults[i] != nullptr && (i >= c->default_sql.size() || c->default_sql[i].empty())) {
        return Status::Unsupported("the DEFAULT of column \"{}\" in a --db table: its SQL text is unknown",
                                   table.schema()->field(static_cast<int>(i))->name)
            .WithSqlState(sqlstate::kFeatureNotSupported);
      }
    }
    for (const CheckConstraint& check : c->checks) {
      if (check.sql.empty()) {
        return Status::Unsupported("check constraint \"{}\" in a --db table: its SQL text is unknown",
                                   check.name)
            .WithSqlState(sqlstate::kFeatureNotSupported);
      }
    }
  }
  // Field ids need each column's Iceberg type; the checks come first.
  for (const auto& f : table.schema()->fields) {
    QUIVER_RETURN_NOT_OK(iceberg::IcebergTypeOf(*f->type).status());
  }
  return Status::OK();
}

Status IcebergDatabase::CreateTable(const std::shared_ptr<MemoryTable>& table,
                                    const TablePartitioning& partitioning) {
  QUIVER_RETURN_NOT_OK(CheckTable(*table));
  TableVersionRef current = table->version();
  QUIVER_ASSIGN_OR_RAISE(
      TableVersionRef v,
      WriteCommit(this, table->name(), table->schema(), nullptr,
                  SliceRows(table->schema(), current->batches, 0, current->num_rows), true,
                  table->constraints().get(), nullptr, &partitioning));
  table->Restore(std::move(v));
  table->set_store(
      std::make_shared<IcebergTableStore>(shared_from_this(), table->name(), table->schema(),
                                          table->constraints()));
  return Status::OK();
}

Status IcebergDatabase::DropTable(const std::string& name) {
  QUIVER_RETURN_NOT_OK(CheckWritable());
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_,
         "DELETE FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND "
         "table_name = ? AND (iceberg_type IS NULL OR iceberg_type = 'TABLE')");
  QUIVER_RETURN_NOT_OK(s.status());
  s.Bind(1, kCatalogName);
  s.Bind(2, SplitQualifiedName(name).first);
  s.Bind(3, SplitQualifiedName(name).second);
  return Sqlite(db_, sqlite3_step(s.get()), "DROP TABLE");
}

Result<std::vector<std::string>> IcebergDatabase::Namespaces() {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_,
         "SELECT namespace FROM iceberg_namespace_properties WHERE catalog_name = ? UNION "
         "SELECT table_namespace FROM iceberg_tables WHERE catalog_name = ? ORDER BY 1");
  QUIVER_RETURN_NOT_OK(s.status());
  s.Bind(1, kCatalogName);
  s.Bind(2, kCatalogName);
  std::vector<std::string> out;
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    std::string ns = Column(s.get(), 0);
    if (ns.find('.') == std::string::npos) out.push_back(std::move(ns));
  }
  QUIVER_RETURN_NOT_OK(Sqlite(db_, rc, "reading namespaces"));
  return out;
}

Status IcebergDatabase::CreateSchema(const std::string& name) {
  QUIVER_RETURN_NOT_OK(CheckWritable());
  std::lock_guard<std::mutex> lock(mu_);
  // The row pyiceberg's SqlCatalog.create_namespace writes too.
  Stmt s(db_,
         "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, "
         "property_value) VALUES (?, ?, 'exists', 'true')");
  QUIVER_RETURN_NOT_OK(s.status());
  s.Bind(1, kCatalogName);
  s.Bind(2, name);
  const int rc = sqlite3_step(s.get());
  if (rc == SQLITE_CONSTRAINT) {
    return Status::Invalid("schema \"{}\" already exists in the catalog of {}", name, dir_)
        .WithSqlState("42P06");
  }
  return Sqlite(db_, rc, "CREATE SCHEMA");
}

Status IcebergDatabase::DropSchema(const std::string& name) {
  QUIVER_RETURN_NOT_OK(CheckWritable());
  std::lock_guard<std::mutex> lock(mu_);
  QUIVER_RETURN_NOT_OK(Exec("BEGIN IMMEDIATE"));
  // Its tables' and views' rows and its properties, in one transaction
  // (the tables' files stay, as DROP TABLE leaves them).
  for (const char* sql :
       {"DELETE FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ?",
        "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ?"}) {
    Stmt s(db_, sql);
    Status st = s.status();
    if (st.ok()) {
      s.Bind(1, kCatalogName);
      s.Bind(2, name);
      st = Sqlite(db_, sqlite3_step(s.get()), "DROP SCHEMA");
    }
    if (!st.ok()) {
      (void)Exec("ROLLBACK");
      return st;
    }
  }
  return Exec("COMMIT");
}

Status IcebergDatabase::AlterTable(const MemoryTable& table,
                                   const std::shared_ptr<MemoryTable>& next,
                                   const std::vector<int>& moved) {
  QUIVER_RETURN_NOT_OK(CheckTable(*next));
  const TableVersionRef current = table.version();
  auto base = std::static_pointer_cast<const IcebergState>(current->storage);
  if (base == nullptr || dynamic_cast<const IcebergTableStore*>(table.store().get()) == nullptr ||
      base->rows == nullptr) {
    return Status::UnknownError("internal error: stored table \"{}\" without its Iceberg state",
                                table.name());
  }
  auto state = std::make_shared<IcebergState>(*base);
  state->version = base->version + 1;
  TableMetadata& m = state->metadata;
  const SchemaRef& schema = next->schema();
  std::vector<iceberg::SchemaField> fields;
  for (int i = 0; i < schema->num_fields(); ++i) {
    const Field& f = *schema->field(i);
    const int from = moved[static_cast<size_t>(i)];
    if (from >= 0) {
      // A kept column keeps its field id (and so its values in every file).
      iceberg::SchemaField sf = base->metadata.fields[static_cast<size_t>(from)];
      sf.name = f.name;
      fields.push_back(std::move(sf));
      continue;
    }
    QUIVER_ASSIGN_OR_RAISE(std::string type, iceberg::IcebergTypeOf(*f.type));
    fields.push_back({++m.last_column_id, f.name, std::move(type), !f.nullable});
  }
  // Partition specs name their source columns by field id: those stay.
  for (const iceberg::PartitionSpec& spec : m.specs) {
    for (const iceberg::PartitionField& pf : spec.fields) {
      const bool kept = std::any_of(fields.begin(), fields.end(),
                                    [&](const iceberg::SchemaField& f) { return f.id == pf.source_id; });
      if (kept) continue;
      std::string column;
      for (const iceberg::SchemaField& f : base->metadata.fields) {
        if (f.id == pf.source_id) column = f.name;
      }
      return Status::Unsupported("dropping column \"{}\" of \"{}\": the table is partitioned by it",
                                 column, table.name())
          .WithSqlState(sqlstate::kFeatureNotSupported);
    }
  }
  // Equality deletes name their delete columns by field id: those stay too.
  for (const DataFile& f : base->rows->delete_files()) {
    for (int id : f.equality_ids) {
      const bool kept = std::any_of(fields.begin(), fields.end(),
                                    [&](const iceberg::SchemaField& sf) { return sf.id == id; });
      if (kept) continue;
      const int at = iceberg::FieldPosition(base->metadata.fields, id);
      return Status::Unsupported(
                 "dropping column \"{}\" of \"{}\": equality delete files of the "
                 "table delete rows by it",
                 at >= 0 ? base->metadata.fields[static_cast<size_t>(at)].name : "", table.name())
          .WithSqlState(sqlstate::kFeatureNotSupported)
          .WithHint("VACUUM the table first: it applies the deletes and drops the delete files.");
    }
  }
  const auto same = [](const iceberg::SchemaField& a, const iceberg::SchemaField& b) {
    return a.id == b.id && a.name == b.name && a.type == b.type && a.required == b.required;
  };
  if (!std::equal(fields.begin(), fields.end(), m.fields.begin(), m.fields.end(), same)) {
    // A new schema, the old one kept for the snapshots that name it.
    int next_id = m.schema_id;
    for (const auto& [id, text] : m.other_schemas) next_id = std::max(next_id, id);
    m.other_schemas.emplace_back(m.schema_id, iceberg::SchemaJson(m.fields, m.schema_id));
    m.schema_id = next_id + 1;
    m.fields = std::move(fields);
  }
  SetConstraintProperties(next->constraints().get(), &m);
  const bool renamed = next->name() != table.name();
  QUIVER_RETURN_NOT_OK(WriteMetadataAndSwap(this, table.name(), *base, state.get(),
                                            renamed ? next->name() : ""));
  // The same files, read as next's columns.
  std::vector<FieldRef> plain;
  for (const auto& f : schema->fields) plain.push_back(field(f->name, f->type, f->nullable));
  QUIVER_ASSIGN_OR_RAISE(state->rows,
                         iceberg::IcebergRows::Make(next->name(), quiver::schema(std::move(plain)),
                                                    m.fields, m.specs, base->rows->files()));
  auto version = std::make_shared<TableVersion>();
  version->num_rows = state->rows->num_rows();
  version->stored = state->rows;
  version->storage = std::move(state);
  next->Restore(std::move(version));
  next->set_store(
      std::make_shared<IcebergTableStore>(shared_from_this(), next->name(), schema, next->constraints()));
  return Status::OK();
}

namespace {

std::string QuoteIdentifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

}  // namespace

// The query of a CREATE [OR REPLACE] [TEMP] VIEW statement: what follows
// the AS after the name and the optional column list (the parser gives the
// statement's text only). Quoted names may hold anything but their quote.
static Result<std::string> ViewQuery(const std::string& statement) {
  size_t i = 0;
  const size_t n = statement.size();
  auto skip_space = [&] {
    while (i < n) {
      if (std::isspace(static_cast<unsigned char>(statement[i]))) {
        ++i;
      } else if (statement.compare(i, 2, "--") == 0) {
        while (i < n && statement[i] != '\n') ++i;
      } else if (statement.compare(i, 2, "/*") == 0) {
        const size_t end = statement.find("*/", i + 2);
        i = end == std::string::npos ? n : end + 2;
      } else {
        break;
      }
    }
  };
  auto word = [&]() -> std::string {
    skip_space();
    std::string w;
    if (i < n && statement[i] == '"') {
      w.push_back('"');
      ++i;
      while (i < n) {
        if (statement[i] == '"') {
          if (i + 1 < n && statement[i + 1] == '"') {
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        ++i;
      }
      return w;  // a quoted name: never a keyword
    }
    while (i < n && (std::isalnum(static_cast<unsigned char>(statement[i])) || statement[i] == '_' ||
                     statement[i] == '.' || static_cast<unsigned char>(statement[i]) >= 0x80)) {
      w.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(statement[i]))));
      ++i;
    }
    return w;
  };
  auto fail = [&]() { return Status::Invalid("cannot find the query of: {}", statement); };
  if (word() != "CREATE") return fail();
  std::string w = word();
  if (w == "OR") {
    if (word() != "REPLACE") return fail();
    w = word();
  }
  if (w == "TEMP" || w == "TEMPORARY") w = word();
  if (w != "VIEW") return fail();
  // The name: words and quoted parts joined by dots.
  do {
    if (word().empty()) return fail();
    skip_space();
  } while (i < n && statement[i] == '.' && ++i);
  skip_space();
  if (i < n && statement[i] == '(') {
    ++i;
    while (true) {
      skip_space();
      if (i >= n) return fail();
      if (statement[i] == ')') {
        ++i;
        break;
      }
      if (statement[i] == ',') {
        ++i;
        continue;
      }
      if (word().empty()) return fail();
    }
  }
  if (word() != "AS") return fail();
  skip_space();
  std::string query = statement.substr(i);
  while (!query.empty() && (std::isspace(static_cast<unsigned char>(query.back())) || query.back() == ';')) {
    query.pop_back();
  }
  if (query.empty()) return fail();
  return query;
}

Status IcebergDatabase::CreateView(const std::string& name, const std::string& statement_text,
                                   const std::vector<std::pair<std::string, TypeRef>>& columns,
                                   bool replace) {
  if (loading_) return Status::OK();
  QUIVER_RETURN_NOT_OK(CheckWritable());
  iceberg::ViewMetadata v;
  v.view_uuid = iceberg::NewUuid();
  QUIVER_ASSIGN_OR_RAISE(v.sql, ViewQuery(statement_text));
  v.timestamp_ms = NowMs();
  for (size_t i = 0; i < columns.size(); ++i) {
    auto type = iceberg::IcebergTypeOf(*columns[i].second);
    if (!type.ok()) {
      return type.status().WithContext(
          fmt::format("column \"{}\" of view \"{}\"", columns[i].first, name));
    }
    v.fields.push_back({static_cast<int>(i) + 1, columns[i].first, *type, false});
  }
  const auto [ns, bare] = SplitQualifiedName(name);
  const std::string dir = fmt::format("{}/{}.db/views", dir_, ns);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create \"{}\": {}", dir, ec.message());
  const std::string path = fmt::format("{}/{}-{}.metadata.json", dir, bare, v.view_uuid);
  v.location = FileUri(dir);
  {
    QUIVER_ASSIGN_OR_RAISE(auto file, AtomicFile::Create(path));
    const std::string text = iceberg::ToJson(v);
    QUIVER_RETURN_NOT_OK(file->Write(text.data(), static_cast<int64_t>(text.size())));
    QUIVER_RETURN_NOT_OK(file->Commit());
  }
  const std::string location = FileUri(path);
  std::lock_guard<std::mutex> lock(mu_);
  QUIVER_RETURN_NOT_OK(Exec("BEGIN IMMEDIATE"));
  auto rollback = [&](Status st) {
    (void)Exec("ROLLBACK");
    return st;
  };
  bool replaced = false;
  if (replace) {
    Stmt s(db_,
           "UPDATE iceberg_tables SET previous_metadata_location = metadata_location, "
           "metadata_location = ? WHERE catalog_name = ? AND table_namespace = ? AND "
           "table_name = ? AND iceberg_type = 'VIEW'");
    if (!s.status().ok()) return rollback(s.status());
    s.Bind(1, location);
    s.Bind(2, kCatalogName);
    s.Bind(3, SplitQualifiedName(name).first);
    s.Bind(4, SplitQualifiedName(name).second);
    const int rc = sqlite3_step(s.get());
    if (rc != SQLITE_DONE) return rollback(Sqlite(db_, rc, "CREATE VIEW"));
    replaced = sqlite3_changes(db_) == 1;
  }
  if (!replaced) {
    Stmt s(db_,
           "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
           "metadata_location, previous_metadata_location, iceberg_type) "
           "VALUES (?, ?, ?, ?, NULL, 'VIEW')");
    if (!s.status().ok()) return rollback(s.status());
    s.Bind(1, kCatalogName);
    s.Bind(2, SplitQualifiedName(name).first);
    s.Bind(3, SplitQualifiedName(name).second);
    s.Bind(4, location);
    const int rc = sqlite3_step(s.get());
    if (rc == SQLITE_CONSTRAINT) {
      return rollback(Status::Invalid("relation \"{}\" already exists in the catalog of {}", name,
                                      dir_)
                          .WithSqlState(sqlstate::kDuplicateTable));
    }
    if (rc != SQLITE_DONE) return rollback(Sqlite(db_, rc, "CREATE VIEW"));
  }
  return Exec("COMMIT");
}

Status IcebergDatabase::DropView(const std::string& name) {
  QUIVER_RETURN_NOT_OK(CheckWritable());
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_,
         "DELETE FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND "
         "table_name = ? AND iceberg_type = 'VIEW'");
  QUIVER_RETURN_NOT_OK(s.status());
  s.Bind(1, kCatalogName);
  s.Bind(2, SplitQualifiedName(name).first);
  s.Bind(3, SplitQualifiedName(name).second);
  return Sqlite(db_, sqlite3_step(s.get()), "DROP VIEW");
}

Result<std::vector<std::pair<std::string, std::string>>> IcebergDatabase::ViewStatements() {
  std::vector<std::pair<std::string, std::string>> rows;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Stmt s(db_,
           "SELECT table_namespace, table_name, metadata_location FROM iceberg_tables WHERE "
           "catalog_name = ? AND iceberg_type = 'VIEW' ORDER BY rowid");
    QUIVER_RETURN_NOT_OK(s.status());
    s.Bind(1, kCatalogName);
    int rc;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
      const std::string ns = Column(s.get(), 0);
      if (ns.find('.') != std::string::npos) continue;
      rows.emplace_back(QualifiedName(ns, Column(s.get(), 1)), Column(s.get(), 2));
    }
    QUIVER_RETURN_NOT_OK(Sqlite(db_, rc, "reading iceberg_tables"));
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, location] : rows) {
    QUIVER_ASSIGN_OR_RAISE(std::string path, iceberg::LocalPath(location));
    QUIVER_ASSIGN_OR_RAISE(auto buffer, ReadFileFully(path));
    QUIVER_ASSIGN_OR_RAISE(
        iceberg::ViewMetadata v,
        iceberg::ParseViewMetadata(std::string(reinterpret_cast<const char*>(buffer->data()),
                                               static_cast<size_t>(buffer->size())),
                                   path));
    const auto [ns, bare] = SplitQualifiedName(name);
    std::string sql = "CREATE VIEW " + (ns == kNamespace ? "" : QuoteIdentifier(ns) + ".") +
                      QuoteIdentifier(bare);
    if (!v.fields.empty()) {
      sql += " (";
      for (size_t i = 0; i < v.fields.size(); ++i) {
        if (i > 0) sql += ", ";
        sql += QuoteIdentifier(v.fields[i].name);
      }
      sql += ")";
    }
    sql += " AS " + v.sql;
    out.emplace_back(name, std::move(sql));
  }
  return out;
}

Status IcebergDatabase::SwapMetadataLocation(const std::string& table, const std::string& expected,
                                             const std::string& next, const std::string& new_name) {
  std::lock_guard<std::mutex> lock(mu_);
  QUIVER_RETURN_NOT_OK(Exec("BEGIN IMMEDIATE"));
  auto rollback = [&](Status st) {
    (void)Exec("ROLLBACK");
    return st;
  };
  if (expected.empty()) {
    Stmt s(db_,
           "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
           "metadata_location, previous_metadata_location, iceberg_type) "
           "VALUES (?, ?, ?, ?, NULL, 'TABLE')");
    if (!s.status().ok()) return rollback(s.status());
    s.Bind(1, kCatalogName);
    s.Bind(2, SplitQualifiedName(table).first);
    s.Bind(3, SplitQualifiedName(table).second);
    s.Bind(4, next);
    const int rc = sqlite3_step(s.get());
    if (rc == SQLITE_CONSTRAINT) {
      return rollback(Status::Invalid("relation \"{}\" already exists in the catalog of {}", table,
                                      dir_)
                          .WithSqlState(sqlstate::kDuplicateTable));
    }
    if (rc != SQLITE_DONE) return rollback(Sqlite(db_, rc, "CREATE TABLE"));
  } else {
    Stmt s(db_,
           "UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ?, "
           "table_name = ? WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND "
           "metadata_location = ?");
    if (!s.status().ok()) return rollback(s.status());
    s.Bind(1, next);
    s.Bind(2, expected);
    s.Bind(3, SplitQualifiedName(new_name.empty() ? table : new_name).second);
    s.Bind(4, kCatalogName);
    s.Bind(5, SplitQualifiedName(table).first);
    s.Bind(6, SplitQualifiedName(table).second);
    s.Bind(7, expected);
    const int rc = sqlite3_step(s.get());
    if (rc == SQLITE_CONSTRAINT) {
      return rollback(Status::Invalid("relation \"{}\" already exists in the catalog of {}",
                                      new_name, dir_)
                          .WithSqlState(sqlstate::kDuplicateTable));
    }
    if (rc != SQLITE_DONE) return rollback(Sqlite(db_, rc, "commit"));
    if (sqlite3_changes(db_) != 1) {
      return rollback(Status::Invalid(
                          "could not serialize access due to concurrent update: table \"{}\" "
                          "was changed or dropped by another writer of {}",
                          table, dir_)
                          .WithSqlState("40001")
                          .WithHint("Another program committed to the table through the catalog; "
                                    "open the database again to see its commit."));
    }
  }
  return Exec("COMMIT");
}

std::optional<std::string> CatalogMetadataFile(const std::string& table_dir) {
  std::string dir = fs::path(table_dir).lexically_normal().string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const fs::path catalog_path = fs::path(dir).parent_path().parent_path() / "catalog.db";
  std::error_code ec;
  if (!fs::path(dir).parent_path().filename().string().ends_with(".db") ||
      !fs::is_regular_file(catalog_path, ec)) {
    return std::nullopt;
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(catalog_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return std::nullopt;
  }
  sqlite3_busy_timeout(db, 2000);
  std::optional<std::string> out;
  {
    const std::string prefix = FileUri(dir) + "/metadata/";
    Stmt s(db,
           "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ? AND "
           "(iceberg_type IS NULL OR iceberg_type = 'TABLE') AND "
           "substr(metadata_location, 1, length(?)) = ?");
    if (s.status().ok()) {
      s.Bind(1, kCatalogName);
      s.Bind(2, prefix);
      s.Bind(3, prefix);
      if (sqlite3_step(s.get()) == SQLITE_ROW) {
        auto path = iceberg::LocalPath(Column(s.get(), 0));
        if (path.ok() && fs::is_regular_file(*path, ec)) out = *path;
        if (sqlite3_step(s.get()) != SQLITE_DONE) out.reset();  // ambiguous
      }
    }
  }
  sqlite3_close(db);
  return out;
}

std::optional<std::string> IcebergMetadataLocation(const TableSource& table) {
  const auto* memory = dynamic_cast<const MemoryTable*>(&table);
  if (memory == nullptr || dynamic_cast<const IcebergTableStore*>(memory->store().get()) == nullptr) {
    return std::nullopt;
  }
  auto state = std::static_pointer_cast<const IcebergState>(memory->version()->storage);
  if (state == nullptr) return std::nullopt;
  return state->metadata_location;
}

}  // namespace quiver
