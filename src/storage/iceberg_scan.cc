#include "storage/iceberg_scan.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "catalog/file_table.h"
#include "functions/cast.h"
#include "functions/kernel_util.h"
#include "storage/iceberg_partition.h"

namespace quiver::iceberg {

namespace {

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

Status CheckPolicy(const FileAccessPolicy* policy, const std::string& path) {
  if (policy == nullptr || !policy->restricted()) return Status::OK();
  return policy->Check(path);
}

// The field id of a stored file column (PARQUET:field_id), -1 when none.
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

// Per column of `file` (its engine schema): the field id its stored column
// carries, -1 when none.
std::vector<int> FileFieldIds(const FileTable& file) {
  std::vector<int> out;
  for (const auto& f : file.schema()->fields) {
    int id = -1;
    for (const auto& sf : file.file_schema()->fields) {
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

// A data file's key in the deleted-positions map: its local path when it
// has one.
std::string FileKey(const std::string& path) {
  auto local = LocalPath(path);
  return local.ok() ? *local : path;
}

// Reads a position delete file into `out` (by data file key).
Status ReadPositionDeletes(const std::string& path, std::map<std::string, std::set<int64_t>>* out) {
  QUIVER_ASSIGN_OR_RAISE(auto file, FileTable::Open("delete file", path));
  const std::vector<int> ids = FileFieldIds(*file);
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
      (*out)[FileKey(p.ToString())].insert(static_cast<int64_t>(n.ToDouble()));
    }
  }
  return Status::OK();
}

// A predicate over table columns as one over a file's columns (`to_file`:
// per table column, the file column or -1 when the file lacks it or holds
// another type); nullopt when it cannot be mapped. Predicates are hints:
// dropping one (or a conjunct of an AND) only prunes less.
std::optional<ScanPredicate> MapPredicate(const ScanPredicate& p, const std::vector<int>& to_file) {
  if (p.op == ScanPredicate::kAnd || p.op == ScanPredicate::kOr) {
    ScanPredicate out = p;
    out.children.clear();
    for (const ScanPredicate& c : p.children) {
      auto m = MapPredicate(c, to_file);
      if (!m.has_value()) {
        if (p.op == ScanPredicate::kOr) return std::nullopt;
        continue;
      }
      out.children.push_back(std::move(*m));
    }
    if (out.children.empty()) return std::nullopt;
    return out;
  }
  if (p.column < 0 || static_cast<size_t>(p.column) >= to_file.size()) return std::nullopt;
  const int f = to_file[static_cast<size_t>(p.column)];
  if (f < 0) return std::nullopt;
  ScanPredicate out = p;
  out.column = f;
  return out;
}

class IcebergScanPlan final : public ScanPlan {
 public:
  // The delete columns of one probe of a part's rows.
  struct KeyProbe {
    EqualityDeleteIndex::Probe probe;
    std::vector<int> source;     // per delete column: the sub-plan's column, -1 none
    std::vector<TypeRef> types;  // per delete column: the table's type
  };
  struct Part {
    std::string path;
    std::unique_ptr<ScanPlan> plan;
    std::vector<int> source;  // per output column: the sub-plan's column, -1 none
    const std::vector<int64_t>* deleted = nullptr;
    std::vector<int64_t> starts;  // with deletes: per unit, its first row's position
    std::vector<KeyProbe> probes;
  };
  struct Unit {
    size_t part;
    int64_t sub;
    UnitStatistics stats;
  };

  IcebergScanPlan(SchemaRef schema, MemoryPool* pool) : schema_(std::move(schema)), pool_(pool) {}
  SchemaRef schema() const override { return schema_; }
  int64_t num_units() const override { return static_cast<int64_t>(units_.size()); }
  const UnitStatistics* unit_statistics(int64_t unit) const override {
    return &units_[static_cast<size_t>(unit)].stats;
  }
  Result<RecordBatchRef> ReadUnit(int64_t i) override {
    const Unit& u = units_[static_cast<size_t>(i)];
    Part& part = parts_[u.part];
    QUIVER_ASSIGN_OR_RAISE(RecordBatchRef b, part.plan->ReadUnit(u.sub));
    const int64_t n = b->num_rows();
    // A column of the sub-plan (-1: one the file lacks) as the table's type.
    auto column = [&](int s, const TypeRef& want) -> Result<ArrayRef> {
      if (s < 0) return MakeArrayOfNull(want, n);
      ArrayRef a = b->column(s);
      if (a->type->Equals(*want)) return a;
      auto cast = CastArray(a, want, pool_);
      if (!cast.ok()) return cast.status().WithContext("Iceberg data file " + part.path);
      return *cast;
    };
    std::vector<ArrayRef> cols;
    for (size_t k = 0; k < part.source.size(); ++k) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef a,
                             column(part.source[k], schema_->field(static_cast<int>(k))->type));
      cols.push_back(std::move(a));
    }
    RecordBatchRef out = RecordBatch::Make(schema_, n, std::move(cols));
    // The rows deletes leave (empty: all).
    std::vector<uint8_t> keep;
    if (part.deleted != nullptr) {
      const int64_t start = part.starts[static_cast<size_t>(u.sub)];
      auto it = std::lower_bound(part.deleted->begin(), part.deleted->end(), start);
      if (it != part.deleted->end() && *it < start + n) {
        keep.assign(static_cast<size_t>(n), 1);
        for (; it != part.deleted->end() && *it < start + n; ++it)
          keep[static_cast<size_t>(*it - start)] = 0;
      }
    }
    if (!part.probes.empty() && n > 0) {
      if (keep.empty()) keep.assign(static_cast<size_t>(n), 1);
      for (const KeyProbe& kp : part.probes) {
        std::vector<ArrayRef> keys;
        for (size_t k = 0; k < kp.source.size(); ++k) {
          QUIVER_ASSIGN_OR_RAISE(ArrayRef a, column(kp.source[k], kp.types[k]));
          keys.push_back(std::move(a));
        }
        QUIVER_RETURN_NOT_OK(EqualityDeleteIndex::Apply(kp.probe, keys, &keep));
      }
    }
    if (!keep.empty()) {
      std::vector<uint32_t> kept;
      kept.reserve(static_cast<size_t>(n));
      for (int64_t r = 0; r < n; ++r) {
        if (keep[static_cast<size_t>(r)] != 0) kept.push_back(static_cast<uint32_t>(r));
      }
      if (static_cast<int64_t>(kept.size()) < n) {
        std::vector<ArrayRef> picked;
        for (const ArrayRef& c : out->columns()) {
          QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(c, kept.data(),
                                                             static_cast<int64_t>(kept.size()),
                                                             pool_));
          picked.push_back(std::move(a));
        }
        out = RecordBatch::Make(schema_, static_cast<int64_t>(kept.size()), std::move(picked));
      }
    }
    counters().units_read++;
    counters().rows_read += out->num_rows();
    return out;
  }

  std::vector<Part> parts_;
  std::vector<Unit> units_;
  std::shared_ptr<const IcebergRows> rows_;  // holds the deleted positions parts_ point to
  std::shared_ptr<const EqualityDeleteIndex> index_;  // the maps parts_' probes point to

 private:
  SchemaRef schema_;
  MemoryPool* pool_;
};

// A file's partition (spec id and tuple) as bytes equal for equal
// partitions: values as their spec's types (a manifest's Avro types vary:
// int or long, fixed or bytes), else as read.
Result<std::string> PartitionScope(const DataFile& f, const std::map<int, BoundSpec>& bound) {
  std::string out = std::to_string(f.spec_id) + "/";
  auto it = bound.find(f.spec_id);
  for (size_t k = 0; k < f.partition.size(); ++k) {
    std::optional<Value> v;
    if (it != bound.end() && k < it->second.type.types.size()) {
      v = PartitionValueAs(f.partition[k], it->second.type.types[k]);
    }
    if (!v.has_value()) v = f.partition[k];
    if (!v.has_value()) {
      return Status::Unsupported(
          "Iceberg file {}: partition value {} of a type not read (an "
          "equality delete is scoped by it)",
          f.path, k);
    }
    if (v->is_null()) {
      out.push_back('\0');
      continue;
    }
    QUIVER_ASSIGN_OR_RAISE(std::string bytes, SerializeBound(*v));
    out.push_back('\1');
    out +=
        std::to_string(static_cast<int>(v->type()->id)) + ":" + std::to_string(bytes.size()) + ":";
    out += bytes;
  }
  return out;
}

// Reads the delete rows of `d` into `index`: its delete columns, matched by
// field id (by the table's column names in a file without ids), cast to
// the table's types.
Status ReadEqualityDeletes(const EqualityDeleteFile& d, const Schema& schema,
                           const std::vector<SchemaField>& fields, EqualityDeleteIndex* index) {
  QUIVER_ASSIGN_OR_RAISE(auto file, FileTable::Open("delete file", d.path));
  const std::vector<int> ids = FileFieldIds(*file);
  bool any_ids = false;
  for (int id : ids) any_ids = any_ids || id >= 0;
  ScanRequest request;
  for (int c : d.columns) {
    const SchemaField& want = fields[static_cast<size_t>(c)];
    int found = -1;
    for (int k = 0; k < file->schema()->num_fields(); ++k) {
      if (any_ids ? ids[static_cast<size_t>(k)] == want.id
                  : file->schema()->field(k)->name == want.name) {
        found = k;
      }
    }
    if (found < 0) {
      return Status::Invalid(
          "Iceberg equality delete file {} lacks its delete column \"{}\" (field id {})", d.path,
          want.name, want.id);
    }
    const DataType& have = *file->schema()->field(found)->type;
    const DataType& type = *schema.field(c)->type;
    if (!have.Equals(type) && !Promotable(have, type)) {
      return Status::Unsupported(
          "Iceberg equality delete file {}: column \"{}\" has type {}, the table {}", d.path,
          want.name, have.ToString(), type.ToString());
    }
    request.columns.push_back(found);
  }
  QUIVER_ASSIGN_OR_RAISE(auto plan, file->Plan(request));
  for (int64_t u = 0; u < plan->num_units(); ++u) {
    QUIVER_ASSIGN_OR_RAISE(RecordBatchRef b, plan->ReadUnit(u));
    std::vector<ArrayRef> keys;
    for (size_t k = 0; k < d.columns.size(); ++k) {
      ArrayRef a = b->column(static_cast<int>(k));
      const TypeRef& want = schema.field(d.columns[k])->type;
      if (!a->type->Equals(*want)) {
        auto cast = CastArray(a, want, DefaultMemoryPool());
        if (!cast.ok()) return cast.status().WithContext("Iceberg equality delete file " + d.path);
        a = *cast;
      }
      keys.push_back(std::move(a));
    }
    QUIVER_RETURN_NOT_OK(index->Add(d, keys));
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<DataFile>> SnapshotFiles(const Snapshot& snapshot,
                                            const FileAccessPolicy* policy) {
  QUIVER_ASSIGN_OR_RAISE(std::string list_path, LocalPath(snapshot.manifest_list));
  QUIVER_RETURN_NOT_OK(CheckPolicy(policy, list_path));
  QUIVER_ASSIGN_OR_RAISE(std::vector<ManifestFile> manifests,
                         ReadManifestList(snapshot.manifest_list));
  std::vector<DataFile> out;
  for (const ManifestFile& mf : manifests) {
    QUIVER_ASSIGN_OR_RAISE(std::string manifest_path, LocalPath(mf.path));
    QUIVER_RETURN_NOT_OK(CheckPolicy(policy, manifest_path));
    QUIVER_ASSIGN_OR_RAISE(std::vector<DataFile> files, ReadManifest(mf.path, mf.sequence_number));
    for (DataFile& f : files) {
      f.spec_id = mf.partition_spec_id;
      if (f.content != 0 && f.content != 1 && f.content != 2) {
        return Status::Invalid("Iceberg manifest {}: data file content {}", mf.path, f.content);
      }
      if (Upper(f.format) != "PARQUET") {
        return Status::Unsupported("Iceberg {} files ({}, listed in {}): Parquet files are read",
                                   f.format, f.path, mf.path);
      }
      out.push_back(std::move(f));
    }
  }
  return out;
}

Result<std::shared_ptr<const IcebergRows>> IcebergRows::Make(std::string name, SchemaRef schema,
                                                             std::vector<SchemaField> fields,
                                                             const std::vector<PartitionSpec>& specs,
                                                             std::vector<DataFile> files,
                                                             const FileAccessPolicy* policy) {
  std::shared_ptr<IcebergRows> rows(new IcebergRows());
  rows->name_ = std::move(name);
  rows->schema_ = std::move(schema);
  rows->fields_ = std::move(fields);
  std::map<std::string, std::set<int64_t>> deleted;
  for (DataFile& f : files) {
    if (Upper(f.format) != "PARQUET") {
      return Status::Unsupported("Iceberg {} files ({}): Parquet files are read", f.format, f.path);
    }
    QUIVER_ASSIGN_OR_RAISE(std::string path, LocalPath(f.path));
    QUIVER_RETURN_NOT_OK(CheckPolicy(policy, path));
    if (f.content == 1) {
      QUIVER_RETURN_NOT_OK(ReadPositionDeletes(path, &deleted));
      rows->delete_files_.push_back(std::move(f));
    } else if (f.content == 2) {
      EqualityDeleteFile d;
      d.path = std::move(path);
      d.sequence_number = f.sequence_number;
      rows->equality_.push_back(std::move(d));
      rows->delete_files_.push_back(std::move(f));
    } else {
      rows->data_paths_.push_back(std::move(path));
      rows->data_.push_back(std::move(f));
    }
  }
  std::map<int, BoundSpec> bound;
  for (const PartitionSpec& s : specs) bound.emplace(s.spec_id, BindSpec(s, rows->fields_, *rows->schema_));
  rows->partition_ranges_.resize(rows->data_.size());
  for (size_t i = 0; i < rows->data_.size(); ++i) {
    const DataFile& f = rows->data_[i];
    auto it = bound.find(f.spec_id);
    if (it == bound.end()) continue;
    const BoundSpec& b = it->second;
    for (size_t k = 0; k < b.type.fields.size() && k < f.partition.size(); ++k) {
      const int column = b.source_columns[k];
      if (column < 0) continue;
      std::optional<Value> v = PartitionValueAs(f.partition[k], b.type.types[k]);
      if (!v.has_value()) continue;
      if (v->is_null()) {
        rows->partition_ranges_[i].push_back({column, true, Value(), Value()});
        continue;
      }
      auto range = SourceRange(b.type.fields[k].transform, *v, *rows->schema_->field(column)->type);
      if (!range.has_value()) continue;
      rows->partition_ranges_[i].push_back({column, false, std::move(range->first), std::move(range->second)});
    }
  }
  for (size_t i = 0; i < rows->data_.size(); ++i) {
    rows->rows_ += rows->data_[i].record_count;
    auto it = deleted.find(rows->data_paths_[i]);
    if (it == deleted.end()) continue;
    std::vector<int64_t>& positions = rows->deleted_[rows->data_paths_[i]];
    for (int64_t p : it->second) {
      if (p >= 0 && p < rows->data_[i].record_count) positions.push_back(p);
    }
    rows->rows_ -= static_cast<int64_t>(positions.size());
  }
  rows->equality_deleted_.assign(rows->data_.size(), 0);
  if (!rows->equality_.empty()) QUIVER_RETURN_NOT_OK(rows->ResolveEqualityDeletes(bound));
  return std::shared_ptr<const IcebergRows>(std::move(rows));
}

Status IcebergRows::ResolveEqualityDeletes(const std::map<int, BoundSpec>& bound) {
  // The equality delete files are delete_files_'s content 2 entries, in order.
  size_t e = 0;
  bool any_scoped = false;
  for (const DataFile& f : delete_files_) {
    if (f.content != 2) continue;
    EqualityDeleteFile& d = equality_[e++];
    if (f.equality_ids.empty()) {
      return Status::Invalid(
          "Iceberg equality delete file {} names no delete columns (equality_ids)", f.path);
    }
    for (int id : f.equality_ids) {
      const int c = FieldPosition(fields_, id);
      if (c < 0) {
        return Status::Unsupported(
            "Iceberg equality delete file {}: delete column field id {} is not a column of the "
            "table's schema",
            f.path, id);
      }
      QUIVER_RETURN_NOT_OK(CheckDeleteColumnType(fields_[static_cast<size_t>(c)].name,
                                                 *schema_->field(c)->type, f.path));
      d.columns.push_back(c);
    }
    std::sort(d.columns.begin(), d.columns.end());
    d.columns.erase(std::unique(d.columns.begin(), d.columns.end()), d.columns.end());
    auto spec = bound.find(f.spec_id);
    if (spec == bound.end() && !f.partition.empty()) {
      return Status::Invalid("Iceberg equality delete file {}: no partition spec {}", f.path,
                             f.spec_id);
    }
    d.global = spec == bound.end() || spec->second.type.fields.empty();
    if (!d.global) {
      QUIVER_ASSIGN_OR_RAISE(d.scope, PartitionScope(f, bound));
      any_scoped = true;
    }
  }
  scopes_.assign(data_.size(), std::string());
  equality_reaches_.assign(data_.size(), {});
  std::vector<size_t> reached;  // data files some delete reaches
  std::vector<bool> used(equality_.size(), false);
  for (size_t i = 0; i < data_.size(); ++i) {
    if (any_scoped) {
      QUIVER_ASSIGN_OR_RAISE(scopes_[i], PartitionScope(data_[i], bound));
    }
    for (size_t k = 0; k < equality_.size(); ++k) {
      const EqualityDeleteFile& d = equality_[k];
      if (data_[i].sequence_number >= d.sequence_number) continue;
      if (!d.global && d.scope != scopes_[i]) continue;
      equality_reaches_[i].push_back(k);
      used[k] = true;
    }
    if (!equality_reaches_[i].empty()) reached.push_back(i);
  }
  if (reached.empty()) return Status::OK();
  // Count the rows the deletes remove, file by file (a scan of the delete
  // columns only), so that num_rows is exact and scans probe only the files
  // that lose rows.
  std::vector<size_t> which;
  for (size_t k = 0; k < equality_.size(); ++k) {
    if (used[k]) which.push_back(k);
  }
  QUIVER_ASSIGN_OR_RAISE(auto index, BuildIndex(which, DefaultMemoryPool()));
  ScanRequest none;
  for (size_t i : reached) {
    equality_deleted_[i] = -1;
    const std::vector<size_t> only = {i};
    QUIVER_ASSIGN_OR_RAISE(auto plan, PlanFiles(none, &only, index));
    int64_t left = 0;
    for (int64_t u = 0; u < plan->num_units(); ++u) {
      QUIVER_ASSIGN_OR_RAISE(RecordBatchRef b, plan->ReadUnit(u));
      left += b->num_rows();
    }
    int64_t before = data_[i].record_count;
    if (auto it = deleted_.find(data_paths_[i]); it != deleted_.end()) {
      before -= static_cast<int64_t>(it->second.size());
    }
    equality_deleted_[i] = before - left;
    rows_ -= before - left;
  }
  return Status::OK();
}

Result<std::shared_ptr<const EqualityDeleteIndex>> IcebergRows::BuildIndex(
    const std::vector<size_t>& which, MemoryPool* pool) const {
  auto index = std::make_shared<EqualityDeleteIndex>(pool);
  for (size_t k : which) {
    QUIVER_RETURN_NOT_OK(ReadEqualityDeletes(equality_[k], *schema_, fields_, index.get()));
  }
  return std::shared_ptr<const EqualityDeleteIndex>(std::move(index));
}

std::vector<DataFile> IcebergRows::files() const {
  std::vector<DataFile> out = data_;
  out.insert(out.end(), delete_files_.begin(), delete_files_.end());
  return out;
}

bool IcebergRows::FileMayMatch(size_t i, const std::vector<ScanPredicate>& predicates) const {
  if (predicates.empty()) return true;
  const DataFile& f = data_[i];
  const int cols = schema_->num_fields();
  UnitStatistics s;
  s.rows = f.record_count;
  s.min.assign(static_cast<size_t>(cols), Value());
  s.max.assign(static_cast<size_t>(cols), Value());
  s.nulls.assign(static_cast<size_t>(cols), -1);
  std::vector<int> used;
  for (const ScanPredicate& p : predicates) p.Columns(&used);
  for (int c : used) {
    if (c < 0 || c >= cols) continue;
    const int id = fields_[static_cast<size_t>(c)].id;
    const TypeRef& type = schema_->field(c)->type;
    if (auto n = f.null_counts.find(id); n != f.null_counts.end() && n->second >= 0) {
      s.nulls[static_cast<size_t>(c)] = n->second;
    }
    // Floating point bounds are left out (NaN orders differently).
    if (type->id == TypeId::kFloat || type->id == TypeId::kDouble) continue;
    auto lo = f.lower_bounds.find(id);
    auto hi = f.upper_bounds.find(id);
    if (lo == f.lower_bounds.end() || hi == f.upper_bounds.end()) continue;
    auto a = DeserializeBound(type, lo->second);
    auto b = DeserializeBound(type, hi->second);
    if (!a.ok() || !b.ok()) continue;
    s.min[static_cast<size_t>(c)] = std::move(*a);
    s.max[static_cast<size_t>(c)] = std::move(*b);
  }
  // Partition values narrow the bounds: a value's source range, or every
  // row NULL.
  for (const PartitionRange& r : partition_ranges_[i]) {
    const auto c = static_cast<size_t>(r.column);
    if (std::find(used.begin(), used.end(), r.column) == used.end()) continue;
    if (r.all_null) {
      s.nulls[c] = f.record_count;
      s.min[c] = Value();
      s.max[c] = Value();
      continue;
    }
    s.nulls[c] = 0;
    if (s.min[c].is_null() || r.lo.Compare(s.min[c]) > 0) s.min[c] = r.lo;
    if (s.max[c].is_null() || r.hi.Compare(s.max[c]) < 0) s.max[c] = r.hi;
  }
  for (const ScanPredicate& p : predicates) {
    if (!UnitMayMatch(s, p)) return false;
  }
  return true;
}

Result<std::unique_ptr<ScanPlan>> IcebergRows::Plan(const ScanRequest& request) const {
  return PlanFiles(request, nullptr, nullptr);
}

Result<std::unique_ptr<ScanPlan>> IcebergRows::PlanFiles(
    const ScanRequest& request, const std::vector<size_t>* only,
    std::shared_ptr<const EqualityDeleteIndex> index) const {
  auto plan = std::make_unique<IcebergScanPlan>(ScanSchema(schema_, request.columns), request.pool);
  const int cols = schema_->num_fields();
  int64_t files_pruned = 0, units_total = 0, units_pruned = 0, rows_pruned = 0;
  std::vector<size_t> planned;
  if (only != nullptr) {
    planned = *only;
  } else {
    for (size_t i = 0; i < data_.size(); ++i) {
      if (FileMayMatch(i, request.predicates)) {
        planned.push_back(i);
      } else {
        ++files_pruned;
      }
    }
  }
  if (index == nullptr && !equality_.empty()) {
    // The equality delete files that reach the planned files that lose rows.
    std::vector<bool> used(equality_.size(), false);
    for (size_t i : planned) {
      if (equality_deleted_[i] == 0) continue;
      for (size_t k : equality_reaches_[i]) used[k] = true;
    }
    std::vector<size_t> which;
    for (size_t k = 0; k < used.size(); ++k) {
      if (used[k]) which.push_back(k);
    }
    if (!which.empty()) {
      QUIVER_ASSIGN_OR_RAISE(index, BuildIndex(which, request.pool));
    }
  }
  plan->index_ = index;
  for (size_t i : planned) {
    const std::string& path = data_paths_[i];
    QUIVER_ASSIGN_OR_RAISE(auto file, FileTable::Open(name_, path));
    const Schema& fs = *file->schema();
    const std::vector<int> ids = FileFieldIds(*file);
    bool any_ids = false;
    for (int id : ids) any_ids = any_ids || id >= 0;
    // Per table column: the file column (-1: none), and whether it has the
    // table's type exactly (predicates and statistics carry over).
    std::vector<int> source(static_cast<size_t>(cols), -1);
    std::vector<int> exact(static_cast<size_t>(cols), -1);
    for (int c = 0; c < cols; ++c) {
      const SchemaField& want_field = fields_[static_cast<size_t>(c)];
      int found = -1;
      for (int k = 0; k < fs.num_fields(); ++k) {
        if (any_ids ? ids[static_cast<size_t>(k)] == want_field.id
                    : fs.field(k)->name == want_field.name) {
          found = k;
        }
      }
      if (found < 0) continue;
      const DataType& have = *fs.field(found)->type;
      const DataType& want = *schema_->field(c)->type;
      if (!have.Equals(want) && !Promotable(have, want)) {
        return Status::Unsupported(
            "column \"{}\" (field id {}) of Iceberg data file {} has type {}, the table {}",
            want_field.name, want_field.id, path, have.ToString(), want.ToString());
      }
      source[static_cast<size_t>(c)] = found;
      if (have.Equals(want)) exact[static_cast<size_t>(c)] = found;
    }
    IcebergScanPlan::Part part;
    part.path = path;
    if (auto it = deleted_.find(path); it != deleted_.end() && !it->second.empty()) {
      part.deleted = &it->second;
    }
    ScanRequest sub;
    sub.pool = request.pool;
    for (int c : request.columns) {
      const int s = source[static_cast<size_t>(c)];
      if (s < 0) {
        part.source.push_back(-1);
        continue;
      }
      part.source.push_back(static_cast<int>(sub.columns.size()));
      sub.columns.push_back(s);
    }
    if (index != nullptr && equality_deleted_[i] != 0) {
      // The delete columns are read too (the output leaves them out).
      for (const EqualityDeleteIndex::Probe& probe :
           index->ProbesFor(data_[i].sequence_number, scopes_[i])) {
        IcebergScanPlan::KeyProbe kp;
        kp.probe = probe;
        for (int c : *probe.columns) {
          kp.types.push_back(schema_->field(c)->type);
          const int s = source[static_cast<size_t>(c)];
          if (s < 0) {
            kp.source.push_back(-1);
            continue;
          }
          auto at = std::find(sub.columns.begin(), sub.columns.end(), s);
          kp.source.push_back(static_cast<int>(at - sub.columns.begin()));
          if (at == sub.columns.end()) sub.columns.push_back(s);
        }
        part.probes.push_back(std::move(kp));
      }
    }
    // File scans need a column to count rows by: a query of columns the
    // file lacks (added since), or a count of the rows deletes leave,
    // reads its first one.
    if (sub.columns.empty() && fs.num_fields() > 0) sub.columns.push_back(0);
    if (part.deleted == nullptr) {
      for (const ScanPredicate& p : request.predicates) {
        if (auto m = MapPredicate(p, exact); m.has_value()) sub.predicates.push_back(std::move(*m));
      }
    }
    for (int c : request.statistics_columns) {
      if (c >= 0 && c < cols && exact[static_cast<size_t>(c)] >= 0) {
        sub.statistics_columns.push_back(exact[static_cast<size_t>(c)]);
      }
    }
    QUIVER_ASSIGN_OR_RAISE(part.plan, file->Plan(sub));
    if (part.plan->stream() != nullptr) {
      return Status::Unsupported("Iceberg data file {}: not readable by units", path);
    }
    const ScanPlan::Counters& c = part.plan->counters();
    units_total += c.units_total.load();
    units_pruned += c.units_pruned.load();
    rows_pruned += c.rows_pruned.load();
    const size_t index = plan->parts_.size();
    int64_t at = 0;
    for (int64_t u = 0; u < part.plan->num_units(); ++u) {
      IcebergScanPlan::Unit unit{index, u, {}};
      const UnitStatistics* fstats = part.plan->unit_statistics(u);
      const int64_t unit_rows = fstats != nullptr ? fstats->rows : -1;
      if (part.deleted != nullptr) {
        if (unit_rows < 0) {
          return Status::Unsupported("Iceberg data file {}: row group sizes unknown", path);
        }
        part.starts.push_back(at);
        at += unit_rows;
      }
      // The unit's statistics by table column, for runtime filters.
      unit.stats.rows = unit_rows;
      unit.stats.min.assign(static_cast<size_t>(cols), Value());
      unit.stats.max.assign(static_cast<size_t>(cols), Value());
      unit.stats.nulls.assign(static_cast<size_t>(cols), -1);
      for (int t = 0; t < cols && fstats != nullptr; ++t) {
        const int s = exact[static_cast<size_t>(t)];
        if (source[static_cast<size_t>(t)] < 0) {
          unit.stats.nulls[static_cast<size_t>(t)] = unit_rows;  // all NULL
          continue;
        }
        if (s < 0 || static_cast<size_t>(s) >= fstats->min.size()) continue;
        unit.stats.min[static_cast<size_t>(t)] = fstats->min[static_cast<size_t>(s)];
        unit.stats.max[static_cast<size_t>(t)] = fstats->max[static_cast<size_t>(s)];
        unit.stats.nulls[static_cast<size_t>(t)] = fstats->nulls[static_cast<size_t>(s)];
      }
      plan->units_.push_back(std::move(unit));
    }
    plan->parts_.push_back(std::move(part));
  }
  plan->rows_ = shared_from_this();
  plan->counters().files = static_cast<int64_t>(data_.size());
  plan->counters().files_pruned = files_pruned;
  plan->counters().units_total = units_total;
  plan->counters().units_pruned = units_pruned;
  plan->counters().rows_pruned = rows_pruned;
  return std::unique_ptr<ScanPlan>(std::move(plan));
}

}  // namespace quiver::iceberg
