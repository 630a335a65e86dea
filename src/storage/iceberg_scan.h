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
//                   the others are planned by storage/data_file_scan.h
//                   (opened, footer only, as FileTables, the request's
//                   columns and predicates mapped to the file's columns by
//                   field id, so that row groups and pages are pruned and
//                   only referenced columns decoded; equality deletes a
//                   filter of the file's rows)
//   ReadUnit(i)     one row group of one file (a morsel of the parallel
//                   scan): columns a file lacks read as NULL, promoted types
//                   (int -> long, float -> double, wider decimals) cast, rows
//                   a position delete file names removed, rows an equality
//                   delete reaches removed (iceberg_equality_deletes.h)
//
// Files with position deletes are planned without predicates (a unit's row
// positions must be known); the manifest-level pruning still applies.
// Equality deletes: Make reads the delete files and the delete columns of
// every data file one reaches (sequence numbers, partitions) once, to count
// the rows left (num_rows is exact) and to know which files lose rows; a
// scan builds the index of the delete files that reach the files it plans
// (its memory reserved from the request's pool), reads the delete columns
// besides the requested ones and probes each batch. Predicates still prune
// such files: a row either side of a predicate is deleted by its values.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "catalog/memory_table.h"
#include "common/file_access.h"
#include "storage/iceberg_equality_deletes.h"
#include "storage/iceberg_manifest.h"
#include "storage/iceberg_metadata.h"
#include "storage/iceberg_partition.h"

namespace quiver::iceberg {

class IcebergRows final : public StoredRows,
                          public std::enable_shared_from_this<IcebergRows> {
 public:
  // The rows of the data files (content 0) less the rows the position
  // delete files (content 1) of `files` name and the rows their equality
  // delete files (content 2) reach. `schema`: the table's engine schema,
  // column for column with `fields` (its field ids). `policy`, when set,
  // checks every file path before anything is opened. Formats other than
  // Parquet, and equality deletes on a column the schema lacks or of a type
  // keys cannot hold, are refused. `specs`: the table's partition specs, by
  // which files' partition values prune and equality deletes are scoped.
  static Result<std::shared_ptr<const IcebergRows>> Make(std::string name, SchemaRef schema,
                                                         std::vector<SchemaField> fields,
                                                         const std::vector<PartitionSpec>& specs,
                                                         std::vector<DataFile> files,
                                                         const FileAccessPolicy* policy = nullptr);

  int64_t num_rows() const override { return rows_; }
  Result<std::unique_ptr<ScanPlan>> Plan(const ScanRequest& request) const override;

  const std::vector<DataFile>& data_files() const { return data_; }
  const std::vector<DataFile>& delete_files() const { return delete_files_; }
  // Whether deletes (position or equality) remove rows of data file `i`
  // (of data_files()).
  bool HasDeletes(size_t i) const {
    auto it = deleted_.find(data_paths_[i]);
    return (it != deleted_.end() && !it->second.empty()) || equality_deleted_[i] != 0;
  }
  // The data and delete files together (what a manifest of this state lists).
  std::vector<DataFile> files() const;

 private:
  IcebergRows() = default;
  // Whether data file `i`'s manifest statistics allow a row matching every
  // predicate.
  bool FileMayMatch(size_t i, const std::vector<ScanPredicate>& predicates) const;
  // Resolves the equality delete files against the table and counts the
  // rows they delete (Make).
  Status ResolveEqualityDeletes(const std::map<int, BoundSpec>& bound);
  // The index of the equality delete files `which` (of equality_).
  Result<std::shared_ptr<const EqualityDeleteIndex>> BuildIndex(const std::vector<size_t>& which,
                                                                MemoryPool* pool) const;
  // Plan with the data files `only` when set (else those the predicates
  // leave), probing with `index` when set (else one built for them).
  Result<std::unique_ptr<ScanPlan>> PlanFiles(
      const ScanRequest& request, const std::vector<size_t>* only,
      std::shared_ptr<const EqualityDeleteIndex> index) const;

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
  // The equality delete files (also in delete_files_), resolved.
  std::vector<EqualityDeleteFile> equality_;
  // Per data file: its partition scope (PartitionScope; empty when no
  // equality delete is partitioned), the equality delete files that reach
  // it, and the rows they remove that position deletes leave (-1: not yet
  // counted, while Make counts).
  std::vector<std::string> scopes_;
  std::vector<std::vector<size_t>> equality_reaches_;
  std::vector<int64_t> equality_deleted_;
  int64_t rows_ = 0;
};

// The live data and delete files of a snapshot (its manifest list and
// manifests); `policy` as for IcebergRows::Make.
Result<std::vector<DataFile>> SnapshotFiles(const Snapshot& snapshot,
                                            const FileAccessPolicy* policy = nullptr);

}  // namespace quiver::iceberg
