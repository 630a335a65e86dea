// CREATE TABLE (without AS): the MemoryTable a definition describes, with
// its columns' types and nullability and its constraints
// (catalog/table_constraints.h), named as PostgreSQL names them.
#pragma once

#include <memory>

#include "catalog/memory_table.h"
#include "sql/ast.h"

namespace quiver {

Result<std::shared_ptr<MemoryTable>> MakeTableFromDefinition(const sql::CreateTableStatement& s);

}  // namespace quiver
