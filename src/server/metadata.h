// Results of the Flight SQL metadata commands, as record batches whose
// schemas are exactly the specification's (clients compare them field for
// field: names, types, nullability; see proto/FlightSql.proto).
//
// Quiver has no catalogs (GetCatalogs is empty, catalog_name is NULL) and
// one schema, "public", holding every table and view; ADBC and JDBC treat
// such servers as catalog-less.
//
// PRIVATE to src/server.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/array.h"
#include "server/backend.h"
#include "server/commands.h"
#include "server/like.h"

namespace quiver::server {

inline constexpr const char* kSchemaName = "public";

SchemaRef CatalogsSchema();
SchemaRef DbSchemasSchema();
SchemaRef TablesSchema(bool include_schema);
SchemaRef TableTypesSchema();
SchemaRef PrimaryKeysSchema();
SchemaRef ForeignKeysSchema();  // exported, imported keys and cross references
SchemaRef SqlInfoSchema();
SchemaRef XdbcTypeInfoSchema();

Result<RecordBatchRef> CatalogsBatch();
// `schemas`: SqlBackend::ListSchemas().
Result<RecordBatchRef> DbSchemasBatch(const sqlpb::CommandGetDbSchemas& cmd,
                                      const std::vector<std::string>& schemas);
Result<RecordBatchRef> TablesBatch(const sqlpb::CommandGetTables& cmd,
                                   const std::vector<TableInfo>& tables);
Result<RecordBatchRef> TableTypesBatch();
// An empty result of `schema` (no keys are ever declared).
Result<RecordBatchRef> EmptyBatch(const SchemaRef& schema);

struct SqlInfoContext {
  std::string version;
  bool read_only = false;
  int64_t max_connections = 0;
};
// The requested info ids (all when empty), in the requested order; unknown
// ids are skipped.
Result<RecordBatchRef> SqlInfoBatch(const std::vector<uint32_t>& ids, const SqlInfoContext& ctx);
Result<RecordBatchRef> XdbcTypeInfoBatch(std::optional<int32_t> data_type);

// A table's columns as an IPC schema message for GetTables.table_schema,
// each field annotated with ARROW:FLIGHT:SQL:* metadata (type name,
// precision, scale, read-only ...).
std::string SerializeTableSchema(const TableInfo& table);

}  // namespace quiver::server
