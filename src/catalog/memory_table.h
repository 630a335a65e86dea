// MemoryTable: a table held in memory (CREATE TABLE, INSERT, COPY FROM).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "catalog/scan.h"

namespace quiver {

// A table held in memory: batches of engine-typed columns, merged into units
// of up to 64K rows as they arrive (memory_table.cc says why). Inserts
// append under a lock; scans see the batches present when planned.
class MemoryTable final : public TableSource {
 public:
  MemoryTable(std::string name, SchemaRef schema) : name_(std::move(name)), schema_(std::move(schema)) {}
  const std::string& name() const override { return name_; }
  SchemaRef schema() const override { return schema_; }
  int64_t EstimatedRows() const override;
  Result<std::unique_ptr<ScanPlan>> Plan(const ScanRequest& request) const override;
  std::string Describe() const override { return "memory table"; }

  // REQUIRES: batch columns have this table's types (nullability is checked).
  Status Append(std::vector<RecordBatchRef> batches);
  // Replaces all rows (UPDATE / DELETE rewrite the table). On error (out
  // of memory) the table is unchanged.
  Status Replace(std::vector<RecordBatchRef> batches);
  std::vector<RecordBatchRef> batches() const;

 private:
  std::string name_;
  SchemaRef schema_;
  mutable std::mutex mu_;
  std::vector<RecordBatchRef> batches_;  // GUARDED_BY(mu_)
};

}  // namespace quiver
