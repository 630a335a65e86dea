// The foreign-table statements (sql/ast_foreign.h) against the catalog:
// CREATE FOREIGN TABLE, IMPORT FOREIGN SCHEMA, ALTER FOREIGN TABLE ...
// OPTIONS, DROP FOREIGN TABLE, and the no-op CREATE EXTENSION / SERVER /
// FOREIGN DATA WRAPPER / USER MAPPING. Each returns its command tag.
#pragma once

#include <functional>
#include <string>

#include "catalog/catalog.h"
#include "sql/ast_foreign.h"

namespace quiver {

// Checks that a statement may read `path` (quiver serve --data).
using FileCheck = std::function<Status(const std::string& path)>;

Result<std::string> ExecuteCreateForeignTable(const sql::CreateForeignTableStatement& s, Catalog* catalog,
                                              const FileCheck& check);
Result<std::string> ExecuteImportForeignSchema(const sql::ImportForeignSchemaStatement& s, Catalog* catalog,
                                               const FileCheck& check);
Result<std::string> ExecuteAlterForeignTable(const sql::AlterForeignTableStatement& s, Catalog* catalog,
                                             const FileCheck& check);
Result<std::string> ExecuteForeignNoOp(const sql::NoOpStatement& s);
// DROP FOREIGN TABLE: refuses tables that are not foreign, as PostgreSQL.
Status DropForeignTable(const std::string& name, bool if_exists, Catalog* catalog);
// DROP TABLE of a foreign table is refused the same way.
Status CheckNotForeign(const std::string& name, Catalog* catalog);

}  // namespace quiver
