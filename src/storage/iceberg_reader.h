// read_iceberg(): one snapshot of an Iceberg table another engine (or a
// --db database) wrote, as a memory table whose rows stay in the files
// (a lazy scan: storage/iceberg_scan.h).
//
//   metadata     'DIR' (the table's location): the current metadata file
//                its catalog names when DIR is a table of a --db database
//                (storage/iceberg_database.h), else metadata/version-hint.text
//                when present, else the highest-numbered metadata file
//                (vN.metadata.json or NNNNN-<uuid>.metadata.json); or the
//                path of one metadata file. Format versions 1 and 2.
//   snapshot     the current one, or by id (snapshot_id), or the last one
//                committed at or before a time (as_of, from the snapshot log)
//   data files   Parquet, columns matched by Iceberg field id (renamed
//                columns read; a column a file lacks reads as NULL; int ->
//                long, float -> double and decimal widening promoted); files
//                without field ids matched by name
//   deletes      position delete files applied; equality delete files
//                applied by sequence number and partition
//                (iceberg_equality_deletes.h); ORC / Avro data files, nested
//                columns and format version 3 are refused, naming the
//                feature and the file
//
// Partitioned tables are read (their data files hold the source columns);
// the manifests' column bounds and null counts skip files, their partition
// values do not yet.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/memory_table.h"
#include "common/file_access.h"
#include "common/status.h"
#include "storage/iceberg_metadata.h"

namespace quiver::iceberg {

struct ReadOptions {
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> as_of_ms;  // milliseconds since the epoch
  // When set: every file the metadata leads to (metadata file, manifest
  // list, manifests, data and delete files; local paths) is checked before
  // it is opened (a server's FileAccessPolicy: metadata may name any path).
  const FileAccessPolicy* policy = nullptr;
};

// The metadata file of a table location or metadata path (a local path or
// a file:// URI).
Result<std::string> ResolveMetadataFile(const std::string& path);

// The parsed metadata of `metadata_file`.
Result<TableMetadata> ReadTableMetadata(const std::string& metadata_file);

// The snapshot `options` select (null: the table has no snapshot, or no
// option and no current snapshot); errors name unknown ones.
Result<const Snapshot*> SelectSnapshot(const TableMetadata& m, const ReadOptions& options,
                                       const std::string& what);

// The rows of the selected snapshot as a memory table named `name`.
Result<std::shared_ptr<MemoryTable>> ReadIcebergTable(const std::string& name,
                                                      const std::string& path,
                                                      const ReadOptions& options);

// quiver_snapshots(): one row per snapshot of the table at `path`, oldest
// first: committed_at timestamptz, snapshot_id bigint, parent_id bigint,
// operation text, manifest_list text, summary text (the snapshot summary
// besides the operation, as a JSON object), is_current boolean.
Result<std::shared_ptr<MemoryTable>> SnapshotsTable(const std::string& path,
                                                    const FileAccessPolicy* policy = nullptr);

}  // namespace quiver::iceberg
