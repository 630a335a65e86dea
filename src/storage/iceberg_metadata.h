// Iceberg table metadata (format version 2) as Quiver writes and reads it:
// the table's schema with field ids, its snapshots and logs, the
// `metadata/vN.metadata.json` text, and the single-value binary form of
// column bounds that manifests carry (Iceberg spec, "Binary single-value
// serialization"). Pure functions of their inputs: no files here.
//
//   engine type          Iceberg type          bound bytes
//   boolean              boolean               1 byte, 0 / 1
//   integer / bigint     int / long            4 / 8 bytes little-endian
//   real / double        float / double        IEEE 754, little-endian
//   numeric(p,s)         decimal(p,s)          unscaled, big-endian two's complement, minimal
//   text                 string                UTF-8 bytes
//   bytea                binary                the bytes
//   date                 date                  days, 4 bytes little-endian
//   time                 time                  microseconds, 8 bytes little-endian
//   timestamp[tz]        timestamp[tz]         microseconds, 8 bytes little-endian
//
// Other engine types (smallint, interval, json, nested) are refused.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "columnar/type.h"
#include "common/status.h"
#include "vector/value.h"

namespace quiver::iceberg {

// The Iceberg type of an engine type ("int", "decimal(10,2)", ...).
Result<std::string> IcebergTypeOf(const DataType& type);
// The engine type of an Iceberg primitive type.
Result<TypeRef> EngineTypeOf(const std::string& iceberg_type);

// Bound bytes of a non-null value of `type` (an engine type).
Result<std::string> SerializeBound(const Value& v);
Result<Value> DeserializeBound(const TypeRef& type, const std::string& bytes);

struct SchemaField {
  int id = 0;
  std::string name;
  std::string type;  // Iceberg primitive type
  bool required = false;
};

// A partition spec: each field a transform of a source column (by field
// id), named and numbered (partition field ids start at 1000).
struct PartitionField {
  int source_id = 0;
  int field_id = 0;
  std::string name;
  std::string transform;  // "identity", "year", "month", "day", "hour", "bucket[16]", ...
};

struct PartitionSpec {
  int spec_id = 0;
  std::vector<PartitionField> fields;  // none: unpartitioned
};

struct Snapshot {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  std::string manifest_list;
  std::string operation;  // append, overwrite, delete
  std::vector<std::pair<std::string, std::string>> summary;  // besides operation
  int schema_id = 0;
};

struct TableMetadata {
  std::string table_uuid;
  std::string location;  // file:///...
  int64_t last_sequence_number = 0;
  int64_t last_updated_ms = 0;
  int last_column_id = 0;
  int schema_id = 0;
  std::vector<SchemaField> fields;  // the current schema
  // The table's other schemas (older ones, which older snapshots name), as
  // their JSON objects, kept as read so that a commit writes them back.
  std::vector<std::pair<int, std::string>> other_schemas;
  std::vector<PartitionSpec> specs = {PartitionSpec{}};
  int default_spec_id = 0;
  int last_partition_id = 999;  // none yet: partition field ids start at 1000
  std::optional<int64_t> current_snapshot_id;
  std::vector<Snapshot> snapshots;
  std::vector<std::pair<int64_t, int64_t>> snapshot_log;  // (timestamp-ms, snapshot-id)
  std::vector<std::pair<int64_t, std::string>> metadata_log;  // (timestamp-ms, file)
  std::vector<std::pair<std::string, std::string>> properties;

  const Snapshot* current_snapshot() const;
  // The spec of that id, null when absent.
  const PartitionSpec* spec(int spec_id) const;
  const PartitionSpec* default_spec() const { return spec(default_spec_id); }
};

// The engine schema of the metadata's current schema (field ids in each
// field's metadata as PARQUET:field_id).
Result<SchemaRef> EngineSchema(const TableMetadata& m);
// Fields with ids 1..n for an engine schema (CREATE TABLE).
Result<std::vector<SchemaField>> FieldsOf(const Schema& schema);
// The position of the field with id `id` in `fields`; -1 when none has it.
int FieldPosition(const std::vector<SchemaField>& fields, int id);

std::string ToJson(const TableMetadata& m);
// `what` names the file in errors.
Result<TableMetadata> ParseTableMetadata(const std::string& json, const std::string& what);

// The JSON array of a spec's fields (a manifest's "partition-spec" key).
std::string PartitionSpecJson(const PartitionSpec& spec);

// The Iceberg schema JSON of `fields` (a manifest's "schema" key).
std::string SchemaJson(const std::vector<SchemaField>& fields, int schema_id);

// An Iceberg view (view specification, format version 1) with one version
// whose representation is the SQL text of the query (dialect "postgresql").
struct ViewMetadata {
  std::string view_uuid;
  std::string location;
  std::string sql;
  std::vector<SchemaField> fields;  // the view's columns
  int64_t timestamp_ms = 0;
};
std::string ToJson(const ViewMetadata& v);
Result<ViewMetadata> ParseViewMetadata(const std::string& json, const std::string& what);

// A random (version 4) UUID in its text form.
std::string NewUuid();

}  // namespace quiver::iceberg
