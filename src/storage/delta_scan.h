// read_delta(): one version of a Delta Lake table another engine wrote, as
// a memory table whose rows stay in the table's Parquet files (a lazy scan,
// the shape of IcebergRows, planned by storage/data_file_scan.h).
//
//   log        storage/delta_log.h replays _delta_log (checkpoint + commits)
//              to the version asked for (`version => n`) or the newest:
//              protocol, metaData, the live add actions
//   columns    the schema's (Spark JSON types as engine types: byte and
//              short -> smallint, timestamp -> timestamptz, timestamp_ntz ->
//              timestamp, decimal(p,s) -> numeric(p,s), struct / array /
//              map nested); with column mapping (delta.columnMapping.mode
//              name / id) data files are read by physical name / field id
//   DeltaRows  per live file: its local path, its partition columns'
//              values (add.partitionValues, typed by the schema; constant
//              columns of the file's rows), its statistics (add.stats:
//              numRecords, minValues / maxValues / nullCount of top-level
//              columns, partition values as min = max) and the positions
//              its deletion vector deletes (storage/delta_deletion_vector.h,
//              read once)
//   Plan       files whose statistics rule out a predicate are skipped
//              unopened (Counters::files_pruned, EXPLAIN ANALYZE's
//              files_pruned=N); the others are planned by PlanDataFiles:
//              row groups pruned, columns a file lacks (added later: schema
//              evolution) read as NULL
//
// Statistics are read as the protocol allows: timestamps are truncated to
// milliseconds (a maximum stands for up to 999 us more), strings may be
// truncated prefixes (a maximum of 32 or more characters is not used),
// floating point bounds are not used (NaN).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/memory_table.h"
#include "common/file_access.h"
#include "storage/delta_log.h"
#include "vector/value.h"

namespace quiver::delta {

class DeltaRows final : public StoredRows, public std::enable_shared_from_this<DeltaRows> {
 public:
  // The live files of `state` (CheckReadable's), the table at `dir`.
  static Result<std::shared_ptr<const DeltaRows>> Make(std::string name, const std::string& dir,
                                                       const LogState& state,
                                                       const FileAccessPolicy* policy = nullptr);

  const SchemaRef& schema() const { return schema_; }
  int64_t num_rows() const override { return rows_; }
  Result<std::unique_ptr<ScanPlan>> Plan(const ScanRequest& request) const override;

 private:
  DeltaRows() = default;

  struct File {
    std::string path;                             // local
    std::vector<std::optional<Value>> constants;  // per column: partition values
    UnitStatistics stats;                         // per column, from the log
    std::vector<int64_t> deleted;                 // its deletion vector's positions, sorted
  };
  std::string name_;
  std::string mode_;  // column mapping: none, name, id
  std::vector<Column> columns_;
  SchemaRef schema_;
  std::vector<File> files_;
  int64_t rows_ = 0;
};

struct ReadOptions {
  std::optional<int64_t> version;
  // When set: every file the log leads to is checked before it is opened.
  const FileAccessPolicy* policy = nullptr;
};

// The rows of the table at `path` (a directory, or a file:// URI) as a
// memory table named `name`.
Result<std::shared_ptr<MemoryTable>> ReadDeltaTable(const std::string& name,
                                                    const std::string& path,
                                                    const ReadOptions& options);

}  // namespace quiver::delta
