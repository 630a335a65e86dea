// information_schema over the catalog, built as a memory table each time a
// query names one (so it is never stale):
//
//   information_schema.tables                  table_catalog, table_schema, table_name,
//                                              table_type ('BASE TABLE', 'VIEW', 'FOREIGN')
//   information_schema.columns                 ... column_name, ordinal_position, is_nullable,
//                                              data_type, numeric_precision, numeric_scale
//                                              (tables and foreign tables; views' columns need
//                                              binding and are not listed)
//   information_schema.foreign_tables          foreign_table_name, foreign_server_name
//   information_schema.foreign_table_options   foreign_table_name, option_name, option_value
//
// and the pg_catalog tables that tools read for a table list, with
// PostgreSQL's column names and oids (oid columns as bigint):
//
//   pg_catalog.pg_namespace   oid, nspname, nspowner
//   pg_catalog.pg_class       oid, relname, relnamespace, relkind ('r', 'v', 'f'),
//                             reltuples (-1 when unknown), relhasindex, relpersistence
//   pg_catalog.pg_attribute   attrelid, attname, atttypid, attnum, atttypmod, attnotnull,
//                             attisdropped (tables and foreign tables)
//   pg_catalog.pg_type        oid, typname, typnamespace, typlen, typtype (the engine's types)
//
// Names and types as PostgreSQL's views (text for its sql_identifier and
// character_data domains). There is one catalog, "quiver", and one schema,
// "public".
#pragma once

#include <memory>
#include <string>

#include "catalog/catalog.h"

namespace quiver {

// Null when `name` is not one of the tables above.
Result<std::shared_ptr<TableSource>> InformationSchemaTable(const Catalog& catalog, const std::string& name);
Result<std::shared_ptr<TableSource>> PgCatalogTable(const Catalog& catalog, const std::string& name);

}  // namespace quiver
