// The Delta Lake transaction log of a table directory, replayed into one
// version's state: its protocol, metadata (schema, partition columns,
// configuration) and live data files. read_delta() (storage/delta_scan.h)
// scans the state; nothing here reads a data file.
//
//   DIR/_delta_log/NNNNNNNNNNNNNNNNNNNN.json     commit N: one JSON action a line
//                                                 (protocol, metaData, add,
//                                                 remove, txn, commitInfo, ...)
//   DIR/_delta_log/N.checkpoint.parquet           the reconciled state at N
//   DIR/_delta_log/N.checkpoint.K.M.parquet       the same in M parts
//   DIR/_delta_log/_last_checkpoint               {"version": N, "parts": M, ...}
//
//   ReplayLog(dir, version)
//     1. list _delta_log; the version asked for (else the newest commit)
//     2. the newest complete checkpoint at or before it (_last_checkpoint
//        first, then the listing), read with Quiver's own Parquet reader:
//        each row's add / metaData / protocol struct turned into the same
//        JSON action a commit holds (its remove tombstones are skipped)
//     3. every commit after the checkpoint (from 0 without one) up to the
//        version, each present (a gap is an error naming the missing file)
//     4. actions applied in order: the last protocol / metaData wins, an add
//        makes its path live, a remove drops it
//   CheckReadable(state, dir) refuses a reader version above 3 and reader
//   features other than columnMapping, deletionVectors, timestampNtz and
//   vacuumProtocolCheck (v2Checkpoint, typeWidening, variantType, ...),
//   naming the feature and the table. Deletion vectors are read by
//   storage/delta_deletion_vector.h.
//
// Malformed input (bad JSON, an action of the wrong shape, a checkpoint that
// does not read) is an error naming the file (and line), never a crash.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "columnar/type.h"
#include "common/file_access.h"
#include "common/status.h"
#include "storage/delta_deletion_vector.h"

namespace quiver::delta {

struct Protocol {
  int64_t min_reader_version = 1;
  int64_t min_writer_version = 1;
  std::vector<std::string> reader_features;
};

struct Metadata {
  std::string schema_string;  // Spark's JSON schema
  std::vector<std::string> partition_columns;
  std::map<std::string, std::string> configuration;
};

struct AddFile {
  std::string path;  // percent-decoded: relative to the table, or a URI
  // By physical column name; nullopt for a null partition value.
  std::map<std::string, std::optional<std::string>> partition_values;
  std::string stats;                              // JSON statistics text, empty when none
  std::optional<DeletionVector> deletion_vector;  // rows of the file deleted
};

// One version of a table.
struct LogState {
  int64_t version = -1;
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  // Live files by (decoded) path and deletion vector (a file's rows can be
  // deleted again: a remove of it with the old vector, an add with the new).
  std::map<std::string, AddFile> files;
};

// Applies one commit's text (newline-delimited JSON actions) to `state`;
// `what` names the file in errors.
Status ApplyCommit(const std::string& text, const std::string& what, LogState* state);

// The state of the table at `dir` at `version` (the newest when nullopt).
// `policy`, when set, checks the log's files before they are read.
Result<LogState> ReplayLog(const std::string& dir, std::optional<int64_t> version,
                           const FileAccessPolicy* policy = nullptr);

// Errors unless Quiver reads every feature the state needs.
Status CheckReadable(const LogState& state, const std::string& dir);

// One top-level column of a table's schema.
struct Column {
  std::string name;           // logical (what queries see)
  std::string physical_name;  // in data files, statistics and partition values
  int field_id = -1;          // delta.columnMapping.id, -1 when none
  TypeRef type;               // engine type
  bool partition = false;     // values in the log, not in data files
};

// The columns of `state`'s schema (its metadata's, under its column
// mapping mode). Types Quiver does not read are refused.
Result<std::vector<Column>> SchemaColumns(const LogState& state, const std::string& what);

// The local path of a data file `path` (AddFile::path) of the table at
// `dir`; files outside the local file system are refused.
Result<std::string> DataFilePath(const std::string& dir, const std::string& path);

// The table's column mapping mode: delta.columnMapping.mode ("none",
// "name", "id") where the protocol enables column mapping (reader version
// 2, or 3 with the columnMapping reader feature), else "none" (writers such
// as delta-rs set the property on tables whose files use logical names).
std::string ColumnMappingMode(const LogState& state);

}  // namespace quiver::delta
