#include "catalog/memory_table.h"

namespace quiver {

namespace {

class MemoryScanPlan final : public ScanPlan {
 public:
  MemoryScanPlan(SchemaRef schema, std::vector<RecordBatchRef> batches, std::vector<int> columns)
      : schema_(std::move(schema)), batches_(std::move(batches)), columns_(std::move(columns)) {}
  SchemaRef schema() const override { return schema_; }
  int64_t num_units() const override { return static_cast<int64_t>(batches_.size()); }
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

}  // namespace

int64_t MemoryTable::EstimatedRows() const {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t n = 0;
  for (const auto& b : batches_) n += b->num_rows();
  return n;
}

Result<std::unique_ptr<ScanPlan>> MemoryTable::Plan(const ScanRequest& request) const {
  auto plan = std::make_unique<MemoryScanPlan>(ScanSchema(schema_, request.columns), batches(),
                                               request.columns);
  plan->counters().units_total = plan->num_units();
  return std::unique_ptr<ScanPlan>(std::move(plan));
}

Status MemoryTable::Append(std::vector<RecordBatchRef> batches) {
  for (const auto& b : batches) {
    for (int i = 0; i < b->num_columns(); ++i) {
      if (!schema_->field(i)->nullable && b->column(i)->GetNullCount() > 0) {
        return Status::Invalid(
            "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
            schema_->field(i)->name, name_);
      }
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& b : batches) {
    if (b->num_rows() > 0) batches_.push_back(RecordBatch::Make(schema_, b->num_rows(), b->columns()));
  }
  return Status::OK();
}

void MemoryTable::Replace(std::vector<RecordBatchRef> batches) {
  std::lock_guard<std::mutex> lock(mu_);
  batches_.clear();
  for (auto& b : batches) {
    if (b->num_rows() > 0) batches_.push_back(RecordBatch::Make(schema_, b->num_rows(), b->columns()));
  }
}

std::vector<RecordBatchRef> MemoryTable::batches() const {
  std::lock_guard<std::mutex> lock(mu_);
  return batches_;
}

}  // namespace quiver
