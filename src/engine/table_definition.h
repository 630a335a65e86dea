// CREATE TABLE (without AS): the MemoryTable a definition describes, with
// its columns' types and nullability and its constraints
// (catalog/table_constraints.h), named as PostgreSQL names them.
#pragma once

#include <memory>

#include "catalog/memory_table.h"
#include "catalog/table_constraints.h"
#include "catalog/table_store.h"
#include "sql/ast.h"
#include "sql/ast_partition.h"

namespace quiver {

Result<std::shared_ptr<MemoryTable>> MakeTableFromDefinition(const sql::CreateTableStatement& s);

// The sequence of a serial / identity column of integer type `type`
// (smallint, integer, bigint; 22023 otherwise) named `name`, handing out
// `next`, next + increment, ... through its nextval function, within the
// range PostgreSQL gives such a sequence (1..max of the type ascending,
// min..-1 descending; 2200H past it). A SequenceFactory
// (catalog/table_constraints.h): --db tables make their stored sequences with it.
Result<std::shared_ptr<ColumnSequence>> MakeColumnSequence(const std::string& name, const TypeRef& type,
                                                           bool always, int64_t increment, int64_t next);

// The partition keys of PARTITION BY over `schema` (the table's): each a
// column of it (42703 otherwise); year / month / day of a date, timestamp
// or timestamptz column (42883 for others, as PostgreSQL has no date_trunc
// of them), hour of a timestamp or timestamptz one.
Result<TablePartitioning> PartitioningOf(const sql::PartitionedCreateTableStatement& s,
                                         const Schema& schema);

// ALTER TABLE (ADD / DROP / RENAME COLUMN, RENAME TO): the table `s` makes
// of `table`, without rows, and in *moved, per column of it, the column of
// `table` it takes (-1: the added one, filled with its DEFAULT). Null when
// there is nothing to do (ADD COLUMN IF NOT EXISTS of a column there, DROP
// COLUMN IF EXISTS of one that is not). DROP COLUMN drops the PRIMARY KEY /
// UNIQUE and CHECK constraints that involve the column, as PostgreSQL does;
// RENAME COLUMN of a column a CHECK reads is refused (the CHECK is kept as
// written text, which names it).
Result<std::shared_ptr<MemoryTable>> AlterTableDefinition(const MemoryTable& table,
                                                          const sql::AlterTableStatement& s,
                                                          std::vector<int>* moved);

}  // namespace quiver
