// Iceberg partition transforms for --db tables and scans: the partition
// value of a row, the rows of a partition value, and a --db table's spec
// from CREATE TABLE ... PARTITION BY.
//
//   transform  source                        value (engine type)      source range of value v
//   identity   any Iceberg type but floats   the value itself         [v, v]
//   year       date, timestamp[tz]           years since 1970 (int)   Jan 1 of 1970+v .. Dec 31
//   month      date, timestamp[tz]           months since 1970-01     the month's first .. last
//   day        date, timestamp[tz]           the date (date)          the day
//   hour       timestamp[tz]                 hours since 1970 (int)   the hour
//
// timestamptz is transformed in UTC, which is also the session time zone,
// so date_trunc('month', tz) and the month transform agree. Scans prune
// by the source ranges (a null partition value: every row NULL).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/table_store.h"
#include "storage/iceberg_manifest.h"

namespace quiver::iceberg {

// The engine type of `transform`'s values over `source`; null when the
// transform or the pair is not one of the table above.
TypeRef PartitionValueType(const std::string& transform, const DataType& source);

// The partition spec of a new table (field ids from 1000; names: the
// column's for identity, else column_year / _month / _day / _hour).
// Refuses (0A000) what Iceberg or this writer cannot partition by.
Result<PartitionSpec> SpecOf(const TablePartitioning& partitioning, const Schema& schema,
                             const std::vector<SchemaField>& fields);

// `spec` bound to a table's fields and engine schema: each field's value
// type (null where PartitionValueType is) and source column (-1: none).
struct BoundSpec {
  PartitionType type;
  std::vector<int> source_columns;
  // Whether every field has a value type: rows can be partitioned by it.
  bool writable() const;
};
BoundSpec BindSpec(const PartitionSpec& spec, const std::vector<SchemaField>& fields,
                   const Schema& schema);

// The partition value of a non-null source value (PartitionValueType's
// type). REQUIRES: the field's value type is not null.
Value TransformValue(const std::string& transform, const Value& source);

// A partition value read from a manifest (DataFile::partition) as a value
// of `type` (a field's value type); nullopt when it cannot be.
std::optional<Value> PartitionValueAs(const std::optional<Value>& raw, const TypeRef& type);

// The smallest and largest source values (of `source`'s type) whose
// partition value is `value` (not null); nullopt for transforms not known.
std::optional<std::pair<Value, Value>> SourceRange(const std::string& transform,
                                                   const Value& value, const DataType& source);

}  // namespace quiver::iceberg
