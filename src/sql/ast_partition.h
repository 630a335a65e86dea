// CREATE TABLE ... PARTITION BY, in PostgreSQL's grammar:
//
//   CREATE TABLE t (...) PARTITION BY LIST (region)
//   CREATE TABLE t (...) PARTITION BY RANGE (date_trunc('month', ts))
//   CREATE TABLE t (...) PARTITION BY RANGE (region, date_trunc('day', d))
//
// Each key is a column, as it is (`identity`), or date_trunc of a column
// to a year, month, day or hour: Iceberg's transforms of the same names,
// which a --db table's partition spec takes (storage/iceberg_partition.h).
// HASH partitioning and other expressions are refused when parsed.
//
// A subclass of CreateTableStatement (kind kCreateTable) rather than a
// field of it, so that only the code that reads a partitioning includes
// this header: the engine looks for it with dynamic_cast.
#pragma once

#include <string>
#include <vector>

#include "sql/ast.h"

namespace quiver::sql {

struct PartitionKey {
  std::string column;
  std::string transform;  // "identity", "year", "month", "day", "hour"
  int location = -1;
};

struct PartitionedCreateTableStatement : CreateTableStatement {
  std::string strategy;  // "list" or "range", as written
  std::vector<PartitionKey> keys;
  int partition_location = -1;
};

}  // namespace quiver::sql
