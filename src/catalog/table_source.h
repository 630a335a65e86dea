// TableSource: anything a query can scan — an in-memory table, or files
// (one file, a directory, a glob; Arrow IPC, CSV, and every format the
// registry in formats/file_format.h knows).
//
// The scan interface:
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
// Pruning: a unit whose statistics (min/max/null count) prove that some
// predicate is false for every row is skipped before it is read. Runtime
// join filters, known only once the query runs, ask for the statistics of
// their key columns (ScanRequest::statistics_columns) and skip units whose
// range misses theirs (RuntimeFilter::MayMatch on ScanPlan::unit_statistics).
// Predicates are hints: the scan never promises to apply them row by row
// (the Filter above it does).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "common/status.h"
#include "formats/file_format.h"
#include "vector/value.h"

namespace quiver {

struct ScanPredicate {
  enum Op : int8_t { kEq, kNe, kLt, kLe, kGt, kGe, kIn, kIsNull, kIsNotNull, kBetween };
  int column = 0;  // index into the table's schema
  Op op = kEq;
  std::vector<Value> values;  // 1 for comparisons, 2 for BETWEEN, n for IN
  std::string ToString(const std::string& column_name) const;
};

struct ScanRequest {
  std::vector<int> columns;  // table columns to read, in output order
  std::vector<ScanPredicate> predicates;
  // More table columns whose unit statistics the plan should load (the keys
  // of runtime filters), besides the predicates' columns.
  std::vector<int> statistics_columns;
  MemoryPool* pool = DefaultMemoryPool();
};

// Statistics of one unit, per table column (engine types).
struct UnitStatistics {
  int64_t rows = -1;
  std::vector<Value> min;        // Null value = unknown
  std::vector<Value> max;
  std::vector<int64_t> nulls;    // -1 = unknown
};

// Whether a unit with `stats` may hold a row satisfying `p` (false only
// when the statistics prove otherwise).
bool UnitMayMatch(const UnitStatistics& stats, const ScanPredicate& p);

class ScanPlan {
 public:
  virtual ~ScanPlan() = default;
  // Output schema (the requested columns, engine types).
  virtual SchemaRef schema() const = 0;
  // Units left after pruning, readable in any order and concurrently.
  virtual int64_t num_units() const = 0;
  virtual Result<RecordBatchRef> ReadUnit(int64_t unit) = 0;
  virtual const UnitStatistics* unit_statistics(int64_t unit) const { return nullptr; }
  // Sequential sources: the batches after all units. Null when none.
  virtual RecordBatchReader* stream() { return nullptr; }

  // What EXPLAIN ANALYZE reports.
  struct Counters {
    std::atomic<int64_t> units_total{0};
    std::atomic<int64_t> units_pruned{0};   // by static predicates at planning
    std::atomic<int64_t> units_skipped{0};  // by runtime filters while scanning
    std::atomic<int64_t> units_read{0};
    std::atomic<int64_t> rows_read{0};
    std::atomic<int64_t> bytes_read{0};
    std::atomic<int64_t> files{0};
  };
  Counters& counters() { return counters_; }
  const Counters& counters() const { return counters_; }

 private:
  Counters counters_;
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
};

// A table held in memory: batches of engine-typed columns. Inserts append
// whole batches under a lock; scans see the batches present when planned.
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
  // Replaces all rows (UPDATE / DELETE rewrite the table).
  void Replace(std::vector<RecordBatchRef> batches);
  std::vector<RecordBatchRef> batches() const;

 private:
  std::string name_;
  SchemaRef schema_;
  mutable std::mutex mu_;
  std::vector<RecordBatchRef> batches_;  // GUARDED_BY(mu_)
};

struct FileTableOptions {
  formats::FileFormat format = formats::FileFormat::kAuto;
  formats::CsvOptions csv;
};

// Files as a table: one path, a directory (its files, sorted) or a glob
// (`logs/2024-*.arrow`, sorted). Every file must have the same columns as
// the first (the error names the file that differs).
class FileTable final : public TableSource {
 public:
  static Result<std::shared_ptr<FileTable>> Open(const std::string& name,
                                                 const std::string& path_or_glob,
                                                 const FileTableOptions& options = {});
  const std::string& name() const override { return name_; }
  SchemaRef schema() const override { return schema_; }
  int64_t EstimatedRows() const override { return rows_; }
  Result<std::unique_ptr<ScanPlan>> Plan(const ScanRequest& request) const override;
  std::string Describe() const override;
  const std::vector<std::string>& paths() const { return paths_; }

 private:
  FileTable() = default;
  std::string name_;
  std::string pattern_;
  FileTableOptions options_;
  std::vector<std::string> paths_;
  std::vector<std::shared_ptr<formats::FileReader>> files_;
  SchemaRef file_schema_;  // as stored
  SchemaRef schema_;       // engine types
  int64_t rows_ = -1;
};

// Expands `pattern` into sorted file paths: a file, a directory's regular
// files, or a glob (* ? [..] in the last components). Error when nothing
// matches ("no files match 'x/*.arrow'").
Result<std::vector<std::string>> ExpandPaths(const std::string& pattern);

// Converts a batch of file columns to engine types (cast where needed).
Result<RecordBatchRef> ToEngineBatch(const RecordBatchRef& batch, const SchemaRef& engine_schema,
                                     MemoryPool* pool);

}  // namespace quiver
