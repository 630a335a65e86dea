// The scan of a table kept as a set of Parquet data files whose list comes
// from a table format's own metadata (an Iceberg snapshot's manifests,
// storage/iceberg_scan.h; a Delta version's log, storage/delta_scan.h).
// The format decides which files to plan (pruning them by the statistics
// its metadata keeps) and how its columns are found in a file; this plans
// the files it keeps:
//
//   files    each opened (footer only) as a FileTable; the format's matcher
//            names, per table column, the file's column (by field id,
//            physical name or name), or none (the column reads as NULL:
//            a file older than the column), or a constant (a Delta
//            partition column, whose values live in the log)
//   plan     the request's columns and predicates mapped to each file's
//            columns, so that FileTable prunes row groups and pages and
//            decodes only what is referenced; each row group a unit (a
//            morsel of the parallel scan), its statistics by table column
//   read     a unit's columns in table order: NULL-filled, constant-filled,
//            promoted types cast, rows a position list names or a filter
//            (equality deletes) rejects removed
//
// A file with deleted positions is planned without predicates (a unit's row
// positions must be known).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/file_table.h"
#include "catalog/memory_table.h"
#include "catalog/scan.h"
#include "vector/value.h"

namespace quiver {

// One data file to plan.
struct DataFileRef {
  std::string path;  // local path
  // Sorted row positions of the file that are deleted (may be null).
  const std::vector<int64_t>* deleted = nullptr;
  // Per table column (empty: none): set where every row holds the value and
  // the file does not store the column.
  const std::vector<std::optional<Value>>* constants = nullptr;
  // Rows a filter deletes (Iceberg's equality deletes): the table columns
  // it reads (read whether the request names them or not) and the filter,
  // which clears keep[r] for each row r of a unit it deletes, given those
  // columns (the table's types; NULL where the file lacks one).
  std::vector<int> filter_columns;
  std::function<Status(const std::vector<ArrayRef>& columns, std::vector<uint8_t>* keep)> filter;
};

struct DataFileScan {
  std::string format;  // "Iceberg", "Delta": errors name it
  std::string name;    // the table's name
  SchemaRef schema;    // the table's engine schema
  // Per table column: the column of `file`'s engine schema that holds it,
  // -1 when the file lacks it.
  std::function<std::vector<int>(const FileTable& file)> match;
  // How an error names table column `c` ("column \"x\" (field id 3)").
  std::function<std::string(int c)> describe;
};

// Plans `files` (those the format kept) for `request`. `files_total` and
// `files_pruned` go to the plan's counters; `keep_alive` is held by the
// plan (what the files' deleted / constants / filters point into).
Result<std::unique_ptr<ScanPlan>> PlanDataFiles(
    const DataFileScan& scan, std::vector<DataFileRef> files, const ScanRequest& request,
    int64_t files_total, int64_t files_pruned, std::vector<std::shared_ptr<const void>> keep_alive);

// Whether a file column of type `from` reads as the table's `to` (type
// promotions: smallint / int -> wider ints, float -> double, wider decimals;
// time zone spellings of timestamptz; string and binary widths).
bool Promotable(const DataType& from, const DataType& to);

// The field id a stored file column carries (PARQUET:field_id), -1 when none.
int FieldIdOf(const Field& f);

// Per column of `file`'s engine schema: the field id its stored column
// carries, -1 when none.
std::vector<int> FileFieldIds(const FileTable& file);

// Per table column c < `columns`: the (last) column k of `file`'s engine
// schema for which same(c, k), -1 when none (a DataFileScan's matcher).
std::vector<int> MatchFileColumns(const FileTable& file, size_t columns,
                                  const std::function<bool(size_t c, int k)>& same);

// A memory table named `name` whose one version holds `rows` (the rows
// stay in their files: read_iceberg's and read_delta's result).
std::shared_ptr<MemoryTable> StoredRowsTable(const std::string& name, SchemaRef schema,
                                             std::shared_ptr<const StoredRows> rows);

// Every row of `file`, all its columns (schema()'s), as engine batches.
Result<std::vector<RecordBatchRef>> ReadAllRows(const FileTable& file);

}  // namespace quiver
