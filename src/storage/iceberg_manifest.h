// Iceberg manifests and manifest lists (format version 2) in Avro, through
// the C library libavro's generic values: the Avro schemas are the Iceberg
// specification's, with its field-id attributes. libavro's file writer
// cannot put the key-value metadata Iceberg asks for ("schema",
// "partition-spec", "format-version", "content") into a file's header, so
// the object container (header, blocks, sync markers) is framed here and
// only the records are encoded by libavro. Files are read with libavro's
// file reader (any codec it has), by field name.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "storage/iceberg_metadata.h"

namespace quiver::iceberg {

// One data file of a manifest (a manifest entry's data_file).
struct DataFile {
  int status = 1;   // manifest entry status: 0 existing, 1 added, 2 deleted
  int content = 0;  // 0 data, 1 position deletes, 2 equality deletes
  std::string path;
  std::string format = "PARQUET";
  int64_t record_count = 0;
  int64_t file_size = 0;
  std::map<int, int64_t> value_counts;  // by field id
  std::map<int, int64_t> null_counts;
  std::map<int, std::string> lower_bounds;  // single-value serialization
  std::map<int, std::string> upper_bounds;
  // The partition tuple, one value per field of the spec `spec_id` (a null
  // Value: a null partition value). Written: values of the PartitionType's
  // types. Read: as the Avro types hold them (int, long, string, bytes for
  // fixed, ...; nullopt for a type not understood), for
  // iceberg_partition.h's PartitionValueAs to convert.
  int spec_id = 0;
  std::vector<std::optional<Value>> partition;
  // Equality delete files (content 2): the field ids of the delete columns.
  std::vector<int> equality_ids;
  // The data sequence number: the manifest entry's, or, when null (an
  // entry added by the manifest's own snapshot), the manifest list's
  // sequence number for the manifest; 0 in format version 1. Deletes apply
  // by it (iceberg_equality_deletes.h). Written files take the sequence
  // number of their commit (written as null: inherited).
  int64_t sequence_number = 0;
};

// A partition spec with the engine type of each field's values
// (iceberg_partition.h PartitionValueType): what a manifest's partition
// struct holds.
struct PartitionType {
  int spec_id = 0;
  std::vector<PartitionField> fields;
  std::vector<TypeRef> types;
};

// A manifest's summary of one partition field (manifest list field 508).
struct FieldSummary {
  bool contains_null = false;
  std::optional<bool> contains_nan;
  std::optional<std::string> lower_bound;  // single-value serialization
  std::optional<std::string> upper_bound;
};

// One entry of a manifest list.
struct ManifestFile {
  std::string path;
  int64_t length = 0;
  int content = 0;  // 0 data, 1 deletes
  int64_t sequence_number = 0;
  int64_t min_sequence_number = 0;
  int64_t added_snapshot_id = 0;
  int32_t added_files = 0;
  int32_t existing_files = 0;
  int32_t deleted_files = 0;
  int64_t added_rows = 0;
  int64_t existing_rows = 0;
  int64_t deleted_rows = 0;
  int partition_spec_id = 0;
  std::optional<std::vector<FieldSummary>> partitions;  // per partition field
};

// The local path of a file:// URI (or of a plain absolute path).
Result<std::string> LocalPath(const std::string& uri);

// Writes (fsynced) the manifest of `files`, all added by `snapshot_id` at
// `sequence_number` and partitioned by `partition` (no fields:
// unpartitioned), at `uri`; returns its manifest-list entry, with the
// partition summaries.
Result<ManifestFile> WriteManifest(const std::string& uri, const std::vector<SchemaField>& fields,
                                   int schema_id, const PartitionType& partition,
                                   int64_t snapshot_id, int64_t sequence_number,
                                   const std::vector<DataFile>& files);
Status WriteManifestList(const std::string& uri, int64_t snapshot_id,
                         std::optional<int64_t> parent_snapshot_id, int64_t sequence_number,
                         const std::vector<ManifestFile>& manifests);

Result<std::vector<ManifestFile>> ReadManifestList(const std::string& uri);
// Live entries only (status existing or added). `sequence_number`: the
// manifest list's for this manifest, which entries with a null sequence
// number inherit.
Result<std::vector<DataFile>> ReadManifest(const std::string& uri, int64_t sequence_number = 0);

}  // namespace quiver::iceberg
