#include "storage/data_file_scan.h"

#include <algorithm>

#include "functions/cast.h"
#include "functions/kernel_util.h"

namespace quiver {

namespace {

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

// Whether a file's struct `from` reads as the table's struct `to`: each of
// its fields, found by name, reads as the table's (schema evolution added
// fields to the table's struct: they read as NULL).
bool StructWidens(const DataType& from, const DataType& to) {
  if (from.id != TypeId::kStruct || to.id != TypeId::kStruct) return false;
  for (const FieldRef& f : from.children) {
    auto it = std::find_if(to.children.begin(), to.children.end(),
                           [&](const FieldRef& t) { return t->name == f->name; });
    if (it == to.children.end()) return false;
    const DataType& want = *(*it)->type;
    if (!f->type->Equals(want) && !Promotable(*f->type, want) && !StructWidens(*f->type, want)) {
      return false;
    }
  }
  return true;
}

// A file's struct array as the table's struct type (StructWidens): fields
// by name, promoted, the table's fields the file lacks NULL.
Result<ArrayRef> WidenStruct(const ArrayRef& a, const TypeRef& want, MemoryPool* pool) {
  std::vector<ArrayRef> children;
  for (const FieldRef& f : want->children) {
    int k = -1;
    for (size_t j = 0; j < a->type->children.size(); ++j) {
      if (a->type->children[j]->name == f->name) k = static_cast<int>(j);
    }
    if (k < 0) {
      // Children are indexed from the parent's offset.
      QUIVER_ASSIGN_OR_RAISE(ArrayRef nulls, MakeArrayOfNull(f->type, a->offset + a->length));
      children.push_back(std::move(nulls));
      continue;
    }
    ArrayRef c = a->children[static_cast<size_t>(k)];
    if (!c->type->Equals(*f->type)) {
      if (c->type->id == TypeId::kStruct) {
        QUIVER_ASSIGN_OR_RAISE(c, WidenStruct(c, f->type, pool));
      } else {
        QUIVER_ASSIGN_OR_RAISE(c, CastArray(c, f->type, pool));
      }
    }
    children.push_back(std::move(c));
  }
  std::vector<std::shared_ptr<Buffer>> validity = {a->buffers.empty() ? nullptr : a->buffers[0]};
  return ArrayData::Make(want, a->length, std::move(validity), a->null_count, a->offset,
                         std::move(children));
}

// Where an output column of a part comes from.
constexpr int kNoColumn = -1;  // NULL in every row
constexpr int kConstant = -2;  // the part's constant

class DataFilesPlan final : public ScanPlan {
 public:
  struct Part {
    std::string path;
    std::unique_ptr<ScanPlan> plan;
    std::vector<int> source;      // per output column: the sub-plan's column, kNoColumn, kConstant
    std::vector<Value> constant;  // per output column (kConstant ones)
    const std::vector<int64_t>* deleted = nullptr;
    std::vector<int64_t> starts;        // with deletes: per unit, its first row's position
    std::vector<int> filter_source;     // per filter column: the sub-plan's column, -1 none
    std::vector<TypeRef> filter_types;  // per filter column: the table's type
    std::function<Status(const std::vector<ArrayRef>&, std::vector<uint8_t>*)> filter;
  };
  struct Unit {
    size_t part;
    int64_t sub;
    UnitStatistics stats;
  };

  DataFilesPlan(std::string format, SchemaRef schema, MemoryPool* pool)
      : format_(std::move(format)), schema_(std::move(schema)), pool_(pool) {}
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
    // A column of the sub-plan (kNoColumn: one the file lacks) as the
    // table's type.
    auto column = [&](int s, const TypeRef& want) -> Result<ArrayRef> {
      if (s < 0) return MakeArrayOfNull(want, n);
      ArrayRef a = b->column(s);
      if (a->type->Equals(*want)) return a;
      auto cast =
          a->type->id == TypeId::kStruct ? WidenStruct(a, want, pool_) : CastArray(a, want, pool_);
      if (!cast.ok()) return cast.status().WithContext(format_ + " data file " + part.path);
      return *cast;
    };
    std::vector<ArrayRef> cols;
    for (size_t k = 0; k < part.source.size(); ++k) {
      const TypeRef& want = schema_->field(static_cast<int>(k))->type;
      if (part.source[k] == kConstant) {
        const Value& v = part.constant[k];
        QUIVER_ASSIGN_OR_RAISE(
            ArrayRef a, v.is_null() ? MakeArrayOfNull(want, n) : MakeArrayFromValue(v, n, pool_));
        cols.push_back(std::move(a));
        continue;
      }
      QUIVER_ASSIGN_OR_RAISE(ArrayRef a, column(part.source[k], want));
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
        for (; it != part.deleted->end() && *it < start + n; ++it) {
          keep[static_cast<size_t>(*it - start)] = 0;
        }
      }
    }
    if (part.filter && n > 0) {
      if (keep.empty()) keep.assign(static_cast<size_t>(n), 1);
      std::vector<ArrayRef> keys;
      for (size_t k = 0; k < part.filter_source.size(); ++k) {
        QUIVER_ASSIGN_OR_RAISE(ArrayRef a, column(part.filter_source[k], part.filter_types[k]));
        keys.push_back(std::move(a));
      }
      QUIVER_RETURN_NOT_OK(part.filter(keys, &keep));
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
          QUIVER_ASSIGN_OR_RAISE(
              ArrayRef a,
              kernels::Gather(c, kept.data(), static_cast<int64_t>(kept.size()), pool_));
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
  // What parts_' deleted positions, constants and filters point into.
  std::vector<std::shared_ptr<const void>> keep_alive_;

 private:
  std::string format_;
  SchemaRef schema_;
  MemoryPool* pool_;
};

}  // namespace

bool Promotable(const DataType& from, const DataType& to) {
  if (from.id == TypeId::kInt16 && (to.id == TypeId::kInt32 || to.id == TypeId::kInt64))
    return true;
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

std::vector<int> MatchFileColumns(const FileTable& file, size_t columns,
                                  const std::function<bool(size_t c, int k)>& same) {
  const int n = file.schema()->num_fields();
  std::vector<int> out(columns, -1);
  for (size_t c = 0; c < columns; ++c) {
    for (int k = 0; k < n; ++k) {
      if (same(c, k)) out[c] = k;
    }
  }
  return out;
}

std::shared_ptr<MemoryTable> StoredRowsTable(const std::string& name, SchemaRef schema,
                                             std::shared_ptr<const StoredRows> rows) {
  auto version = std::make_shared<TableVersion>();
  version->num_rows = rows->num_rows();
  version->stored = std::move(rows);
  auto table = std::make_shared<MemoryTable>(name, std::move(schema));
  table->Restore(std::move(version));
  return table;
}

Result<std::vector<RecordBatchRef>> ReadAllRows(const FileTable& file) {
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

Result<std::unique_ptr<ScanPlan>> PlanDataFiles(
    const DataFileScan& scan, std::vector<DataFileRef> files, const ScanRequest& request,
    int64_t files_total, int64_t files_pruned,
    std::vector<std::shared_ptr<const void>> keep_alive) {
  auto plan = std::make_unique<DataFilesPlan>(scan.format, ScanSchema(scan.schema, request.columns),
                                              request.pool);
  const int cols = scan.schema->num_fields();
  int64_t units_total = 0, units_pruned = 0, rows_pruned = 0;
  for (DataFileRef& ref : files) {
    const std::string& path = ref.path;
    QUIVER_ASSIGN_OR_RAISE(auto file, FileTable::Open(scan.name, path));
    const Schema& fs = *file->schema();
    const std::vector<int> found = scan.match(*file);
    auto constant = [&](int c) -> const std::optional<Value>* {
      if (ref.constants == nullptr || static_cast<size_t>(c) >= ref.constants->size())
        return nullptr;
      const auto& v = (*ref.constants)[static_cast<size_t>(c)];
      return v.has_value() ? &v : nullptr;
    };
    // Per table column: the file column (-1: none), and whether it has the
    // table's type exactly (predicates and statistics carry over).
    std::vector<int> source(static_cast<size_t>(cols), -1);
    std::vector<int> exact(static_cast<size_t>(cols), -1);
    for (int c = 0; c < cols; ++c) {
      const int k = static_cast<size_t>(c) < found.size() ? found[static_cast<size_t>(c)] : -1;
      if (k < 0 || k >= fs.num_fields() || constant(c) != nullptr) continue;
      const DataType& have = *fs.field(k)->type;
      const DataType& want = *scan.schema->field(c)->type;
      if (!have.Equals(want) && !Promotable(have, want) && !StructWidens(have, want)) {
        return Status::Unsupported("{} of {} data file {} has type {}, the table {}",
                                   scan.describe(c), scan.format, path, have.ToString(),
                                   want.ToString());
      }
      source[static_cast<size_t>(c)] = k;
      if (have.Equals(want)) exact[static_cast<size_t>(c)] = k;
    }
    DataFilesPlan::Part part;
    part.path = path;
    if (ref.deleted != nullptr && !ref.deleted->empty()) part.deleted = ref.deleted;
    ScanRequest sub;
    sub.pool = request.pool;
    for (int c : request.columns) {
      if (const auto* v = constant(c)) {
        part.source.push_back(kConstant);
        part.constant.push_back(**v);
        continue;
      }
      part.constant.emplace_back();
      const int s = source[static_cast<size_t>(c)];
      if (s < 0) {
        part.source.push_back(kNoColumn);
        continue;
      }
      part.source.push_back(static_cast<int>(sub.columns.size()));
      sub.columns.push_back(s);
    }
    if (ref.filter) {
      // The filter's columns are read too (the output leaves them out).
      for (int c : ref.filter_columns) {
        part.filter_types.push_back(scan.schema->field(c)->type);
        const int fc = source[static_cast<size_t>(c)];
        if (fc < 0) {
          part.filter_source.push_back(kNoColumn);
          continue;
        }
        auto at = std::find(sub.columns.begin(), sub.columns.end(), fc);
        part.filter_source.push_back(static_cast<int>(at - sub.columns.begin()));
        if (at == sub.columns.end()) sub.columns.push_back(fc);
      }
      part.filter = std::move(ref.filter);
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
      return Status::Unsupported("{} data file {}: not readable by units", scan.format, path);
    }
    const ScanPlan::Counters& c = part.plan->counters();
    units_total += c.units_total.load();
    units_pruned += c.units_pruned.load();
    rows_pruned += c.rows_pruned.load();
    const size_t index = plan->parts_.size();
    int64_t at = 0;
    for (int64_t u = 0; u < part.plan->num_units(); ++u) {
      DataFilesPlan::Unit unit{index, u, {}};
      const UnitStatistics* fstats = part.plan->unit_statistics(u);
      const int64_t unit_rows = fstats != nullptr ? fstats->rows : -1;
      if (part.deleted != nullptr) {
        if (unit_rows < 0) {
          return Status::Unsupported("{} data file {}: row group sizes unknown", scan.format, path);
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
        const auto ut = static_cast<size_t>(t);
        if (const auto* v = constant(t)) {
          if ((*v)->is_null()) {
            unit.stats.nulls[ut] = unit_rows;
          } else {
            unit.stats.min[ut] = **v;
            unit.stats.max[ut] = **v;
            unit.stats.nulls[ut] = 0;
          }
          continue;
        }
        const int s = exact[ut];
        if (source[ut] < 0) {
          unit.stats.nulls[ut] = unit_rows;  // all NULL
          continue;
        }
        if (s < 0 || static_cast<size_t>(s) >= fstats->min.size()) continue;
        unit.stats.min[ut] = fstats->min[static_cast<size_t>(s)];
        unit.stats.max[ut] = fstats->max[static_cast<size_t>(s)];
        unit.stats.nulls[ut] = fstats->nulls[static_cast<size_t>(s)];
      }
      plan->units_.push_back(std::move(unit));
    }
    plan->parts_.push_back(std::move(part));
  }
  plan->keep_alive_ = std::move(keep_alive);
  plan->counters().files = files_total;
  plan->counters().files_pruned = files_pruned;
  plan->counters().units_total = units_total;
  plan->counters().units_pruned = units_pruned;
  plan->counters().rows_pruned = rows_pruned;
  return std::unique_ptr<ScanPlan>(std::move(plan));
}

}  // namespace quiver
