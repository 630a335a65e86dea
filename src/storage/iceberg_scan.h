// The lazy scan of one Iceberg snapshot (a --db table's current version,
// read_iceberg's snapshot): the rows stay in the snapshot's Parquet files
// and each scan plans the files it needs.
//
//   snapshot --manifest list, manifests (read once, IcebergRows::Make)--> data files
//            with their record counts, value / null counts and lower / upper
//            bounds per field id; position delete files, read once
//   Plan(request)   every data file whose manifest statistics or partition
//                   values (iceberg_partition.h: the range of source values a
//                   partition value stands for) rule out a predicate is
//                   skipped unopened (Counters::files_pruned);
//                   the others are opened (footer only) as FileTables and
//                   planned with the request's columns and predicates mapped
//                   to the file's columns by field id, so that row groups and
//                   pages are pruned and only referenced columns decoded
//   ReadUnit(i)     one row group of one file (a morsel of the parallel
//                   scan): columns a file lacks read as NULL, promoted types
//                   (int -> long, float -> double, wider decimals) cast, rows
//                   a position delete file names removed
//
// Files with position deletes are planned without predicates (a unit's row
// positions must be known); the manifest-level pruning still applies.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "catalog/memory_table.h"
#include "common/file_access.h"
#include "storage/iceberg_manifest.h"
#include "storage/iceberg_metadata.h"

namespace quiver::iceberg {

class IcebergRows final : public StoredRows,
                          public std::enable_shared_from_this<IcebergRows> {
 public:
  // The rows of the data files (content 0) less the rows the position
  // delete files (content 1) of `files` name. `schema`: the table's engine
  // schema, column for column with `fields` (its field ids). `policy`, when
  // set, checks every file path before anything is opened. Equality deletes
  // and formats other than Parquet are refused. `specs`: the table's
  // partition specs, by which files' partition values prune.
  static Result<std::shared_ptr<const IcebergRows>> Make(std::string name, SchemaRef schema,
                                                         std::vector<SchemaField> fields,
                                                         const std::vector<PartitionSpec>& specs,
                                                         std::vector<DataFile> files,
                                                         const FileAccessPolicy* policy = nullptr);

  int64_t num_rows() const override { return rows_; }
  Result<std::unique_ptr<ScanPlan>> Plan(const ScanRequest& request) const override;

  const std::vector<DataFile>& data_files() const { return data_; }
  const std::vector<DataFile>& delete_files() const { return delete_files_; }
  // Whether position deletes name rows of the data file at `local_path`.
  bool HasDeletes(const std::string& local_path) const {
    auto it = deleted_.find(local_path);
    return it != deleted_.end() && !it->second.empty();
  }
  // The data and delete files together (what a manifest of this state lists).
  std::vector<DataFile> files() const;

 private:
  IcebergRows() = default;
  // Whether data file `i`'s manifest statistics allow a row matching every
  // predicate.
  bool FileMayMatch(size_t i, const std::vector<ScanPredicate>& predicates) const;

  std::string name_;
  SchemaRef schema_;
  std::vector<SchemaField> fields_;
  std::vector<DataFile> data_;
  std::vector<std::string> data_paths_;  // local paths, per data file
  std::vector<DataFile> delete_files_;
  // By a data file's local path: its deleted row positions, sorted.
  std::map<std::string, std::vector<int64_t>> deleted_;
  // Per data file: what its partition values say of its source columns.
  struct PartitionRange {
    int column;
    bool all_null;  // a null partition value
    Value lo, hi;   // else the source values' range
  };
  std::vector<std::vector<PartitionRange>> partition_ranges_;
  int64_t rows_ = 0;
};

// The live data and delete files of a snapshot (its manifest list and
// manifests); `policy` as for IcebergRows::Make.
Result<std::vector<DataFile>> SnapshotFiles(const Snapshot& snapshot,
                                            const FileAccessPolicy* policy = nullptr);

}  // namespace quiver::iceberg
