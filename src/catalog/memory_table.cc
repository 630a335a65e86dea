#include "catalog/memory_table.h"

#include <algorithm>
#include <utility>

#include "catalog/table_store.h"
#include "columnar/batch_util.h"
#include "columnar/builder.h"

namespace quiver {

namespace {

// Stored batches hold up to kUnitRows rows (and kUnitBytes bytes): a scan
// then hands out slices of a few large arrays, so a result streamed as
// stored (SELECT * over a Flight SQL connection) is sent without copies,
// and a parallel scan still gets a morsel per kUnitRows rows. Inserts of a
// few rows each are merged like a binary counter (a run of small batches is
// merged into the one before it once it is as large), so each row is copied
// O(log kUnitRows) times at most, and most rows once or never.
constexpr int64_t kUnitRows = int64_t{64} << 10;
constexpr int64_t kUnitBytes = int64_t{64} << 20;

bool Fits(int64_t rows, int64_t bytes) { return rows <= kUnitRows && bytes <= kUnitBytes; }

// `incoming` appended to `stored`, in runs of up to a unit each.
Status AppendCoalesced(const SchemaRef& schema, std::vector<RecordBatchRef> incoming,
                       std::vector<RecordBatchRef>* stored) {
  std::vector<RecordBatchRef> run;
  int64_t run_rows = 0;
  int64_t run_bytes = 0;
  auto flush = [&]() -> Status {
    if (run.empty()) return Status::OK();
    QUIVER_ASSIGN_OR_RAISE(auto merged, ConcatenateBatches(schema, run));
    stored->push_back(std::move(merged));
    run.clear();
    run_rows = run_bytes = 0;
    return Status::OK();
  };
  for (auto& b : incoming) {
    if (b->num_rows() == 0) continue;
    if (b->num_rows() > kUnitRows) {
      // A big batch (an ingested DataFrame) is kept as zero-copy slices of a
      // unit each, morsels for a parallel scan.
      QUIVER_RETURN_NOT_OK(flush());
      for (int64_t at = 0; at < b->num_rows(); at += kUnitRows) {
        RecordBatchRef part = b->Slice(at, std::min(kUnitRows, b->num_rows() - at));
        stored->push_back(RecordBatch::Make(schema, part->num_rows(), part->columns()));
      }
      continue;
    }
    const int64_t bytes = SliceBytes(*b);
    if (!Fits(run_rows + b->num_rows(), run_bytes + bytes)) QUIVER_RETURN_NOT_OK(flush());
    run_rows += b->num_rows();
    run_bytes += bytes;
    run.push_back(std::move(b));
  }
  QUIVER_RETURN_NOT_OK(flush());
  // The binary-counter rule on the tail.
  while (stored->size() >= 2) {
    const RecordBatchRef& prev = (*stored)[stored->size() - 2];
    const RecordBatchRef& last = stored->back();
    if (last->num_rows() < prev->num_rows() ||
        !Fits(prev->num_rows() + last->num_rows(), SliceBytes(*prev) + SliceBytes(*last))) {
      break;
    }
    QUIVER_ASSIGN_OR_RAISE(auto merged, ConcatenateBatches(schema, {prev, last}));
    stored->pop_back();
    stored->back() = std::move(merged);
  }
  return Status::OK();
}

class MemoryScanPlan final : public ScanPlan {
 public:
  MemoryScanPlan(SchemaRef schema, std::vector<RecordBatchRef> batches, std::vector<int> columns)
      : schema_(std::move(schema)), batches_(std::move(batches)), columns_(std::move(columns)) {}
  SchemaRef schema() const override { return schema_; }
  int64_t num_units() const override { return static_cast<int64_t>(batches_.size()); }
  int64_t unit_rows(int64_t unit) const override {
    return batches_[static_cast<size_t>(unit)]->num_rows();
  }
  Result<RecordBatchRef> ReadUnit(int64_t unit) override {
    const RecordBatchRef& b = batches_[static_cast<size_t>(unit)];
    std::vector<ArrayRef> cols;
    for (int c : columns_) cols.push_back(b->column(c));
    counters().units_read++;
    counters().rows_read += b->num_rows();
    return RecordBatch::Make(schema_, b->num_rows(), std::move(cols));
  }

 private:
  SchemaRef schema_;
  std::vector<RecordBatchRef> batches_;
  std::vector<int> columns_;
};

// A version's stored rows, then its batches in memory (a version an append
// extended before its store laid the new rows out in files).
class ConcatScanPlan final : public ScanPlan {
 public:
  ConcatScanPlan(std::unique_ptr<ScanPlan> first, std::unique_ptr<ScanPlan> second)
      : first_(std::move(first)), second_(std::move(second)) {
    for (const ScanPlan* p : {first_.get(), second_.get()}) {
      const Counters& c = p->counters();
      counters().units_total += c.units_total.load();
      counters().units_pruned += c.units_pruned.load();
      counters().rows_pruned += c.rows_pruned.load();
      counters().files += c.files.load();
    }
    counters().files_pruned = first_->counters().files_pruned.load();
  }
  SchemaRef schema() const override { return first_->schema(); }
  int64_t num_units() const override { return first_->num_units() + second_->num_units(); }
  Result<RecordBatchRef> ReadUnit(int64_t unit) override {
    const int64_t n = first_->num_units();
    QUIVER_ASSIGN_OR_RAISE(RecordBatchRef b, unit < n ? first_->ReadUnit(unit)
                                                      : second_->ReadUnit(unit - n));
    counters().units_read++;
    counters().rows_read += b->num_rows();
    return b;
  }
  const UnitStatistics* unit_statistics(int64_t unit) const override {
    const int64_t n = first_->num_units();
    return unit < n ? first_->unit_statistics(unit) : second_->unit_statistics(unit - n);
  }

 private:
  std::unique_ptr<ScanPlan> first_;
  std::unique_ptr<ScanPlan> second_;
};

// PositionedTable's scan: the requested columns, the position column
// (index `width`) computed from the batch's first position.
class PositionedScanPlan final : public ScanPlan {
 public:
  PositionedScanPlan(SchemaRef schema, std::vector<RecordBatchRef> batches,
                     std::vector<int64_t> starts, std::vector<int> columns, int width)
      : schema_(std::move(schema)),
        batches_(std::move(batches)),
        starts_(std::move(starts)),
        columns_(std::move(columns)),
        width_(width) {}
  SchemaRef schema() const override { return schema_; }
  int64_t num_units() const override { return static_cast<int64_t>(batches_.size()); }
  int64_t unit_rows(int64_t unit) const override {
    return batches_[static_cast<size_t>(unit)]->num_rows();
  }
  Result<RecordBatchRef> ReadUnit(int64_t unit) override {
    const RecordBatchRef& b = batches_[static_cast<size_t>(unit)];
    std::vector<ArrayRef> cols;
    for (int c : columns_) {
      if (c != width_) {
        cols.push_back(b->column(c));
        continue;
      }
      Int64Builder positions(int64());
      const int64_t start = starts_[static_cast<size_t>(unit)];
      for (int64_t r = 0; r < b->num_rows(); ++r) QUIVER_RETURN_NOT_OK(positions.Append(start + r));
      QUIVER_ASSIGN_OR_RAISE(ArrayRef a, positions.Finish());
      cols.push_back(std::move(a));
    }
    counters().units_read++;
    counters().rows_read += b->num_rows();
    return RecordBatch::Make(schema_, b->num_rows(), std::move(cols));
  }

 private:
  SchemaRef schema_;
  std::vector<RecordBatchRef> batches_;
  std::vector<int64_t> starts_;
  std::vector<int> columns_;
  int width_;
};

}  // namespace

PositionedTable::PositionedTable(std::shared_ptr<const MemoryTable> table, TableVersionRef version)
    : table_(std::move(table)), version_(std::move(version)) {
  std::vector<FieldRef> fields = table_->schema()->fields;
  fields.push_back(field("ctid", int64(), false));
  schema_ = quiver::schema(std::move(fields));
  int64_t at = 0;
  for (const auto& b : version_->batches) {
    starts_.push_back(at);
    at += b->num_rows();
  }
}

Result<std::unique_ptr<ScanPlan>> PositionedTable::Plan(const ScanRequest& request) const {
  auto plan = std::make_unique<PositionedScanPlan>(ScanSchema(schema_, request.columns),
                                                   version_->batches, starts_, request.columns,
                                                   table_->schema()->num_fields());
  plan->counters().units_total = static_cast<int64_t>(version_->batches.size());
  return std::unique_ptr<ScanPlan>(std::move(plan));
}

MemoryTable::MemoryTable(std::string name, SchemaRef schema,
                         std::shared_ptr<const TableConstraints> constraints)
    : name_(std::move(name)),
      schema_(std::move(schema)),
      constraints_(std::move(constraints)),
      version_(std::make_shared<const TableVersion>()) {}

TableVersionRef MemoryTable::version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return version_;
}

int64_t MemoryTable::EstimatedRows() const { return version()->num_rows; }

Result<std::unique_ptr<ScanPlan>> MemoryTable::Plan(const ScanRequest& request) const {
  TableVersionRef v = version();
  std::unique_ptr<ScanPlan> stored;
  if (v->stored != nullptr) {
    QUIVER_ASSIGN_OR_RAISE(stored, v->stored->Plan(request));
    if (v->batches.empty()) return stored;
  }
  std::vector<RecordBatchRef> kept;
  int64_t pruned = 0;
  const bool have_stats = v->unit_statistics.size() == v->batches.size();
  for (size_t i = 0; i < v->batches.size(); ++i) {
    bool may_match = true;
    if (have_stats) {
      for (const ScanPredicate& p : request.predicates) {
        if (!UnitMayMatch(v->unit_statistics[i], p)) {
          may_match = false;
          break;
        }
      }
    }
    if (may_match) {
      kept.push_back(v->batches[i]);
    } else {
      ++pruned;
    }
  }
  auto plan = std::make_unique<MemoryScanPlan>(ScanSchema(schema_, request.columns),
                                               std::move(kept), request.columns);
  plan->counters().units_total = static_cast<int64_t>(v->batches.size());
  plan->counters().units_pruned = pruned;
  if (stored != nullptr) {
    return std::unique_ptr<ScanPlan>(
        std::make_unique<ConcatScanPlan>(std::move(stored), std::move(plan)));
  }
  return std::unique_ptr<ScanPlan>(std::move(plan));
}

Result<TableVersionRef> MemoryTable::Materialize(const SchemaRef& schema, const TableVersionRef& v) {
  if (v->stored == nullptr) return v;
  ScanRequest request;
  for (int c = 0; c < schema->num_fields(); ++c) request.columns.push_back(c);
  QUIVER_ASSIGN_OR_RAISE(auto plan, v->stored->Plan(request));
  auto out = std::make_shared<TableVersion>();
  for (int64_t u = 0; u < plan->num_units(); ++u) {
    QUIVER_ASSIGN_OR_RAISE(RecordBatchRef b, plan->ReadUnit(u));
    if (b->num_rows() == 0) continue;
    out->num_rows += b->num_rows();
    out->batches.push_back(RecordBatch::Make(schema, b->num_rows(), b->columns()));
  }
  for (const auto& b : v->batches) {
    out->num_rows += b->num_rows();
    out->batches.push_back(b);
  }
  out->storage = v->storage;
  out->same_rows_as = v.get();
  return TableVersionRef(std::move(out));
}

Result<TableVersionRef> MemoryTable::AppendTo(const SchemaRef& schema, const TableVersionRef& base,
                                              std::vector<RecordBatchRef> batches) {
  auto next = std::make_shared<TableVersion>();
  next->batches = base->batches;
  next->stored = base->stored;
  next->num_rows = base->num_rows;
  next->appended_to = base.get();
  for (const auto& b : batches) next->num_rows += b->num_rows();
  QUIVER_RETURN_NOT_OK(AppendCoalesced(schema, std::move(batches), &next->batches));
  return TableVersionRef(std::move(next));
}

Result<TableVersionRef> MemoryTable::MakeVersion(const SchemaRef& schema,
                                                 std::vector<RecordBatchRef> batches) {
  QUIVER_ASSIGN_OR_RAISE(TableVersionRef v, AppendTo(schema, std::make_shared<const TableVersion>(),
                                                     std::move(batches)));
  // Not an append to anything that lives on: the empty base dies here.
  std::const_pointer_cast<TableVersion>(v)->appended_to = nullptr;
  return v;
}

Status MemoryTable::CheckNotNull(const RecordBatch& b) const {
  for (int i = 0; i < b.num_columns(); ++i) {
    if (!schema_->field(i)->nullable && b.column(i)->GetNullCount() > 0) {
      return Status::Invalid(
                 "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
                 schema_->field(i)->name, name_)
          .WithSqlState(sqlstate::kNotNullViolation);
    }
  }
  return Status::OK();
}

Status MemoryTable::Commit(const VersionMaker& make) {
  std::lock_guard<std::mutex> writing(write_mu_);
  TableVersionRef current = version();
  QUIVER_ASSIGN_OR_RAISE(TableVersionRef next, make(current, &writer_state_));
  if (store_ != nullptr) {
    QUIVER_ASSIGN_OR_RAISE(next, store_->Commit(current, std::move(next)));
  }
  std::lock_guard<std::mutex> lock(mu_);
  version_ = std::move(next);
  return Status::OK();
}

Status MemoryTable::Maintain(
    const std::function<Result<TableVersionRef>(const TableVersionRef&)>& fn) {
  std::lock_guard<std::mutex> writing(write_mu_);
  QUIVER_ASSIGN_OR_RAISE(TableVersionRef next, fn(version()));
  PublishLocked(std::move(next));
  return Status::OK();
}

void MemoryTable::PublishLocked(TableVersionRef next) {
  std::lock_guard<std::mutex> lock(mu_);
  version_ = std::move(next);
}

void MemoryTable::Restore(TableVersionRef v) {
  std::lock_guard<std::mutex> writing(write_mu_);
  PublishLocked(std::move(v));
}

std::shared_ptr<MemoryTable> MemoryTable::Clone() const {
  auto copy = std::make_shared<MemoryTable>(name_, schema_, constraints_);
  copy->version_ = version();
  return copy;
}

Status MemoryTable::Append(std::vector<RecordBatchRef> batches) {
  for (const auto& b : batches) QUIVER_RETURN_NOT_OK(CheckNotNull(*b));
  // Built aside and swapped in: a failed merge leaves the table as it was.
  return Commit([&](const TableVersionRef& current, std::shared_ptr<void>*) {
    return AppendTo(schema_, current, std::move(batches));
  });
}

Status MemoryTable::Replace(std::vector<RecordBatchRef> batches) {
  QUIVER_ASSIGN_OR_RAISE(TableVersionRef next, MakeVersion(schema_, std::move(batches)));
  return Commit([&](const TableVersionRef&, std::shared_ptr<void>*) { return next; });
}

std::vector<RecordBatchRef> MemoryTable::batches() const { return version()->batches; }

}  // namespace quiver
