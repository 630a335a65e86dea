// The scan interface: TableSource, anything a query can scan (memory_table.h,
// file_table.h), and the ScanPlan it makes for one scan.
//
//   ScanRequest {columns, predicates}  --TableSource::Plan-->  ScanPlan
//        referenced columns only,                              units (IPC record batches,
//        conjuncts `col op constant`,                          Parquet row groups, memory
//        IN, IS [NOT] NULL                                     batches) left after pruning
//                                                              by statistics; or a stream
//
//   ScanPlan::ReadUnit(i)  -> a batch of the requested columns (engine types),
//                             callable from many threads at once: each unit is
//                             one morsel of the parallel scan
//   ScanPlan::stream()     -> for sequential formats (CSV, IPC streams): a
//                             reader the scan drains under a lock, in order
//
// Pruning by statistics: catalog/scan_pruning.h.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "catalog/scan_pruning.h"
#include "columnar/array.h"
#include "common/memory_pool.h"
#include "common/status.h"

namespace quiver {

struct ScanRequest {
  std::vector<int> columns;  // table columns to read, in output order
  std::vector<ScanPredicate> predicates;
  // More table columns whose unit statistics the plan should load (the keys
  // of runtime filters), besides the predicates' columns.
  std::vector<int> statistics_columns;
  MemoryPool* pool = DefaultMemoryPool();
};

class ScanPlan {
 public:
  virtual ~ScanPlan() = default;
  // Output schema (the requested columns, engine types).
  virtual SchemaRef schema() const = 0;
  // Units left after pruning, readable in any order and concurrently.
  virtual int64_t num_units() const = 0;
  virtual Result<RecordBatchRef> ReadUnit(int64_t unit) = 0;
  virtual const UnitStatistics* unit_statistics(int64_t unit) const { return nullptr; }
  // Rows of a unit when known without reading it (memory batches), else -1.
  virtual int64_t unit_rows(int64_t unit) const { return -1; }
  // Sequential sources: the batches after all units. Null when none.
  virtual RecordBatchReader* stream() { return nullptr; }

  // What EXPLAIN ANALYZE reports.
  struct Counters {
    std::atomic<int64_t> units_total{0};
    std::atomic<int64_t> units_pruned{0};   // by static predicates at planning
    std::atomic<int64_t> units_skipped{0};  // by runtime filters while scanning
    std::atomic<int64_t> units_read{0};
    std::atomic<int64_t> rows_read{0};
    std::atomic<int64_t> rows_pruned{0};    // inside units read, by page statistics
    std::atomic<int64_t> bytes_read{0};
    std::atomic<int64_t> files{0};
    std::atomic<int64_t> files_skipped{0};  // whole files ruled out by virtual columns
    // Whole files ruled out by the statistics of a table format's metadata
    // (an Iceberg manifest's bounds and null counts); -1: not such a scan.
    std::atomic<int64_t> files_pruned{-1};
  };
  Counters& counters() { return counters_; }
  const Counters& counters() const { return counters_; }

 private:
  Counters counters_;
};

// One of `count` parts of a scan that together read it exactly once (the
// endpoints of a Flight SQL result, fetched in parallel). The parts share
// `group`: the first to start plans the scan and the others read that same
// ScanPlan, so all see one snapshot of the table. Part `index` reads the
// rows [index * R / count, (index + 1) * R / count) of the plan's R rows, in
// unit order, when every unit's row count is known (ScanPlan::unit_rows);
// else the units [index * U / count, (index + 1) * U / count). A sequential
// source's stream (after the units) belongs to part 0.
struct ScanPartition {
  struct Group {
    std::mutex mu;
    std::shared_ptr<ScanPlan> plan;  // GUARDED_BY(mu)
  };
  int index = 0;
  int count = 1;
  std::shared_ptr<Group> group;
};

class TableSource {
 public:
  virtual ~TableSource() = default;
  virtual const std::string& name() const = 0;
  // Columns with engine types (vector/sql_type.h).
  virtual SchemaRef schema() const = 0;
  // Row count when known without reading data (file metadata), else -1.
  virtual int64_t EstimatedRows() const = 0;
  virtual Result<std::unique_ptr<ScanPlan>> Plan(const ScanRequest& request) const = 0;
  // "memory table", "Arrow IPC file 'x.arrow'", "3 CSV files 'logs/*.csv'".
  virtual std::string Describe() const = 0;
  // Columns the source holds but queries cannot read yet (lists, structs,
  // maps of a file), as (name, type text): left out of schema(), and named
  // by the binder when a query asks for them, so that none is dropped
  // without an error.
  virtual std::vector<std::pair<std::string, std::string>> UnreadableColumns() const { return {}; }
  // Lines EXPLAIN prints under the scan's line (foreign tables: arrow_fdw's
  // referenced columns, Stats-Hint and per-file bytes); `plan` is the
  // executed plan under EXPLAIN ANALYZE, else null. Empty: none.
  virtual std::vector<std::string> ExplainLines(const ScanRequest& request,
                                                const ScanPlan* plan) const {
    return {};
  }
};

// The output schema of a scan: the table's `columns`, in that order.
SchemaRef ScanSchema(const SchemaRef& table_schema, const std::vector<int>& columns);

}  // namespace quiver
