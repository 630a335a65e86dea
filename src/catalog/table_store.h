// TableStore: where a MemoryTable's commits are made durable (the Iceberg
// tables of a --db database, storage/iceberg_store.h). MemoryTable::Commit
// calls it between computing the next version and publishing it, under the
// table's write lock: a failed store commit leaves the table unchanged.
#pragma once

#include "catalog/memory_table.h"

namespace quiver {

// What VACUUM and expire_snapshots did (their result rows, with the names
// of Spark's rewrite_data_files / expire_snapshots procedures).
struct MaintenanceCounts {
  int64_t files_compacted = 0;    // data files rewritten into larger ones
  int64_t files_written = 0;      // the larger ones
  int64_t snapshots_expired = 0;
  int64_t files_removed = 0;      // files no snapshot refers to, deleted: all of them
  // ... by what the table's metadata before the statement held them for
  int64_t data_files_removed = 0;
  int64_t position_delete_files_removed = 0;
  int64_t equality_delete_files_removed = 0;
  int64_t manifests_removed = 0;
  int64_t manifest_lists_removed = 0;
  int64_t orphan_files_removed = 0;  // no metadata named them (a killed commit's)
};

class TableStore {
 public:
  virtual ~TableStore() = default;
  // VACUUM: compacts the table's small data files in one commit, then
  // removes the files nothing refers to. Returns the version to publish.
  virtual Result<TableVersionRef> Vacuum(const TableVersionRef& current,
                                         MaintenanceCounts* counts) = 0;
  // expire_snapshots: removes the snapshots committed before
  // `older_than_ms` (but the current one and the `retain_last` newest),
  // then the files nothing refers to any more.
  virtual Result<TableVersionRef> ExpireSnapshots(const TableVersionRef& current,
                                                  int64_t older_than_ms, int64_t retain_last,
                                                  MaintenanceCounts* counts) = 0;
  // Makes `next` durable as the successor of `current` (`next->appended_to
  // == current.get()`: an append of the rows after current's). Returns the
  // version to publish: `next` or the same rows laid out as stored (with
  // unit statistics and the store's state).
  virtual Result<TableVersionRef> Commit(const TableVersionRef& current,
                                         TableVersionRef next) = 0;
};

// A table's partition keys (CREATE TABLE ... PARTITION BY, sql/ast_partition.h):
// per key, a column of the table and the transform of its values that
// partitions it: "identity", "year", "month", "day" or "hour".
struct PartitionKeyColumn {
  int column = 0;
  std::string transform;
};
using TablePartitioning = std::vector<PartitionKeyColumn>;

// The tables of a database kept on disk (`quiver sql --db DIR`), for the
// engine's CREATE TABLE and DROP TABLE. The engine refuses what a storage
// cannot keep yet (foreign tables, transaction blocks) rather than holding
// it in memory only.
class DatabaseStorage {
 public:
  virtual ~DatabaseStorage() = default;
  // Whether CreateTable can store `table` (its types and constraints),
  // without storing anything.
  virtual Status CheckTable(const MemoryTable& table) = 0;
  // Stores a new table with its current rows (CREATE TABLE AS fills the
  // table first) as one commit, and sets the table's store. `partitioning`
  // (empty: none) lays its rows out by partition; it has no other effect.
  virtual Status CreateTable(const std::shared_ptr<MemoryTable>& table,
                             const TablePartitioning& partitioning) = 0;
  // Removes the table from the stored catalog (its files stay, as an
  // Iceberg catalog's drop without purge leaves them).
  virtual Status DropTable(const std::string& name) = 0;
  // ALTER TABLE: stores `next` (`table` with columns added, dropped or
  // renamed, or renamed itself) as one commit that rewrites no data, and
  // sets next's rows (table's, read as next's columns) and store.
  // `moved[i]`: the column of `table` that next's column i was, or -1 for a
  // new column (NULL in the stored rows). REQUIRES: table's writes locked.
  virtual Status AlterTable(const MemoryTable& table, const std::shared_ptr<MemoryTable>& next,
                            const std::vector<int>& moved) = 0;
  // Stores a view: its CREATE VIEW statement's text and its output columns
  // (renamed as CREATE VIEW v (a, b) says). `replace`: CREATE OR REPLACE.
  virtual Status CreateView(const std::string& name, const std::string& statement_text,
                            const std::vector<std::pair<std::string, TypeRef>>& columns,
                            bool replace) = 0;
  virtual Status DropView(const std::string& name) = 0;
  // CREATE SCHEMA / DROP SCHEMA (its tables and views with it: the engine
  // drops a non-empty schema only with CASCADE). Tables and views of a
  // schema are named "s.t" (catalog/catalog.h SplitQualifiedName).
  virtual Status CreateSchema(const std::string& name) = 0;
  virtual Status DropSchema(const std::string& name) = 0;
};

}  // namespace quiver
