#include "storage/iceberg_scan.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "catalog/file_table.h"
#include "functions/cast.h"
#include "storage/data_file_scan.h"
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
  QUIVER_ASSIGN_OR_RAISE(auto batches, ReadAllRows(*file));
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
  int64_t files_pruned = 0;
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
  std::vector<DataFileRef> refs;
  for (size_t i : planned) {
    DataFileRef ref;
    ref.path = data_paths_[i];
    if (auto it = deleted_.find(ref.path); it != deleted_.end() && !it->second.empty()) {
      ref.deleted = &it->second;
    }
    if (index != nullptr && equality_deleted_[i] != 0) {
      // The probes of the equality deletes that reach the file, over the
      // union of their delete columns.
      std::vector<EqualityDeleteIndex::Probe> probes =
          index->ProbesFor(data_[i].sequence_number, scopes_[i]);
      std::vector<std::vector<size_t>> at;  // per probe: its columns' places in filter_columns
      for (const EqualityDeleteIndex::Probe& probe : probes) {
        std::vector<size_t> places;
        for (int c : *probe.columns) {
          auto it = std::find(ref.filter_columns.begin(), ref.filter_columns.end(), c);
          places.push_back(static_cast<size_t>(it - ref.filter_columns.begin()));
          if (it == ref.filter_columns.end()) ref.filter_columns.push_back(c);
        }
        at.push_back(std::move(places));
      }
      ref.filter = [probes = std::move(probes), at = std::move(at)](
                       const std::vector<ArrayRef>& columns, std::vector<uint8_t>* keep) {
        for (size_t p = 0; p < probes.size(); ++p) {
          std::vector<ArrayRef> keys;
          for (size_t place : at[p]) keys.push_back(columns[place]);
          QUIVER_RETURN_NOT_OK(EqualityDeleteIndex::Apply(probes[p], keys, keep));
        }
        return Status::OK();
      };
    }
    refs.push_back(std::move(ref));
  }
  DataFileScan scan;
  scan.format = "Iceberg";
  scan.name = name_;
  scan.schema = schema_;
  // Columns by field id (by name in files without ids).
  scan.match = [this](const FileTable& file) {
    const std::vector<int> ids = FileFieldIds(file);
    const bool any_ids = std::any_of(ids.begin(), ids.end(), [](int id) { return id >= 0; });
    const Schema& fs = *file.schema();
    return MatchFileColumns(file, fields_.size(), [&](size_t c, int k) {
      return any_ids ? ids[static_cast<size_t>(k)] == fields_[c].id
                     : fs.field(k)->name == fields_[c].name;
    });
  };
  scan.describe = [this](int c) {
    const SchemaField& f = fields_[static_cast<size_t>(c)];
    return fmt::format("column \"{}\" (field id {})", f.name, f.id);
  };
  return PlanDataFiles(scan, std::move(refs), request, static_cast<int64_t>(data_.size()),
                       files_pruned, {shared_from_this(), std::move(index)});
}

}  // namespace quiver::iceberg
