// MemoryTable: a table held in memory (CREATE TABLE, INSERT, COPY FROM).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "catalog/scan.h"

namespace quiver {

struct TableConstraints;  // catalog/table_constraints.h
class TableStore;         // catalog/table_store.h

// Rows a version keeps in files rather than in memory (a --db table's
// Iceberg snapshot, storage/iceberg_scan.h): scanned lazily, each scan
// planning the files it needs (pruned by their statistics) and reading
// them by units, so that no scan materializes the table.
class StoredRows {
 public:
  virtual ~StoredRows() = default;
  // The number of rows (after deletes).
  virtual int64_t num_rows() const = 0;
  // A scan of the table's columns `request.columns` (indices into the
  // table's schema, as for a TableSource).
  virtual Result<std::unique_ptr<ScanPlan>> Plan(const ScanRequest& request) const = 0;
};

// One state of a table's rows. Immutable once published: scans, a
// transaction's savepoints and a commit in progress hold versions while
// writers publish newer ones (the shape an Iceberg snapshot has too).
// The rows are `stored`'s (when set) followed by `batches`.
struct TableVersion {
  std::vector<RecordBatchRef> batches;
  int64_t num_rows = 0;  // stored's and the batches' together
  std::shared_ptr<const StoredRows> stored;
  // Set by Materialize: the version whose rows this one holds in memory
  // (UPDATE / DELETE compare it with the table's current version).
  // Compared, never dereferenced.
  const TableVersion* same_rows_as = nullptr;
  // Set by AppendTo: the version whose rows are this one's first rows (the
  // rest are new), so that a TableStore writes only the new rows. Compared,
  // never dereferenced.
  const TableVersion* appended_to = nullptr;
  // Set by a TableStore's Commit: the version it was given, whose rows this
  // one holds as stored (the unique-key index built for that version serves
  // this one: execution/constraint_check.cc). Compared, never dereferenced.
  const TableVersion* stored_from = nullptr;
  // Per batch, when known (tables of a --db database: one per data file):
  // scans skip batches whose statistics rule out a predicate.
  std::vector<UnitStatistics> unit_statistics;
  // The TableStore's own description of this version (an Iceberg snapshot).
  std::shared_ptr<const void> storage;
};
using TableVersionRef = std::shared_ptr<const TableVersion>;

// A table held in memory: a current TableVersion of engine-typed columns,
// merged into units of up to 64K rows as they arrive (memory_table.cc says
// why). Writers take turns (Commit) and publish a new version; scans see
// the version current when planned and never wait for a writer.
class MemoryTable final : public TableSource {
 public:
  MemoryTable(std::string name, SchemaRef schema,
              std::shared_ptr<const TableConstraints> constraints = nullptr);
  const std::string& name() const override { return name_; }
  SchemaRef schema() const override { return schema_; }
  int64_t EstimatedRows() const override;
  Result<std::unique_ptr<ScanPlan>> Plan(const ScanRequest& request) const override;
  std::string Describe() const override { return "memory table"; }

  // PRIMARY KEY, UNIQUE, CHECK and DEFAULT (NOT NULL is the schema's
  // nullability); null when the table declares none.
  const std::shared_ptr<const TableConstraints>& constraints() const { return constraints_; }

  TableVersionRef version() const;

  // A writer's commit. Under the table's write lock (writers take turns),
  // `make` computes the next version from the current one, checking the
  // constraints against it; with a store, the store then makes it durable
  // (and may return it re-laid out); on success that version is published,
  // else the table is unchanged. `writer_state` persists between commits for `make`'s
  // use (execution/constraint_check.h keeps the unique keys of the version
  // it last built there; it must tag them with the version they describe).
  using VersionMaker = std::function<Result<TableVersionRef>(const TableVersionRef& current,
                                                            std::shared_ptr<void>* writer_state)>;
  Status Commit(const VersionMaker& make);
  // Under the write lock: publishes what `fn` makes of the current version
  // (a store's VACUUM or snapshot expiry: the same rows, stored anew).
  Status Maintain(const std::function<Result<TableVersionRef>(const TableVersionRef&)>& fn);

  // For a commit that spans tables (engine/transaction.h): hold every
  // table's LockWrites, check each version() is the one the transaction
  // started from, then PublishLocked the new ones.
  std::unique_lock<std::mutex> LockWrites() const { return std::unique_lock<std::mutex>(write_mu_); }
  // REQUIRES: LockWrites() held.
  void PublishLocked(TableVersionRef next);
  // Restores an earlier version (a transaction's private table at ROLLBACK TO).
  void Restore(TableVersionRef v);

  // Where commits are made durable (catalog/table_store.h); null: memory only.
  // Set once, before the table is shared.
  void set_store(std::shared_ptr<TableStore> store) { store_ = std::move(store); }
  const std::shared_ptr<TableStore>& store() const { return store_; }

  // A table of the same name, schema and constraints sharing the current
  // rows: a transaction's private copy, written while the original is not.
  // The copy has no store.
  std::shared_ptr<MemoryTable> Clone() const;

  // Appends rows (NOT NULL checked; PRIMARY KEY, UNIQUE and CHECK are not:
  // writes that need them go through the engine's INSERT).
  // REQUIRES: batch columns have this table's types.
  Status Append(std::vector<RecordBatchRef> batches);
  // Replaces all rows (UPDATE / DELETE rewrite the table). On error (out
  // of memory) the table is unchanged.
  Status Replace(std::vector<RecordBatchRef> batches);
  std::vector<RecordBatchRef> batches() const;

  // Versions built from batches (coalesced into units as Append does).
  static Result<TableVersionRef> AppendTo(const SchemaRef& schema, const TableVersionRef& base,
                                          std::vector<RecordBatchRef> batches);
  static Result<TableVersionRef> MakeVersion(const SchemaRef& schema,
                                             std::vector<RecordBatchRef> batches);
  // `v` itself when it holds its rows in memory; else the same rows read
  // into batches (same_rows_as = v): what UPDATE, DELETE and unique-key
  // checks need, never a SELECT.
  static Result<TableVersionRef> Materialize(const SchemaRef& schema, const TableVersionRef& v);
  // The NOT NULL check of rows about to be written ("null value in column
  // "c" of relation "t" violates not-null constraint", 23502).
  Status CheckNotNull(const RecordBatch& batch) const;

 private:
  std::string name_;
  SchemaRef schema_;
  std::shared_ptr<const TableConstraints> constraints_;
  std::shared_ptr<TableStore> store_;
  mutable std::mutex write_mu_;         // held by a writer from reading to publishing
  std::shared_ptr<void> writer_state_;  // GUARDED_BY(write_mu_)
  mutable std::mutex mu_;
  TableVersionRef version_;  // GUARDED_BY(mu_)
};

// One version of a memory table's rows with each row's position (0-based,
// in the version's order) as a last bigint column: what UPDATE ... FROM and
// DELETE ... USING scan, so that their sink, which sees a target row once
// per source row it joins, can tell the rows apart and write each once, by
// position (PostgreSQL's ctid).
class PositionedTable final : public TableSource {
 public:
  PositionedTable(std::shared_ptr<const MemoryTable> table, TableVersionRef version);
  const std::string& name() const override { return table_->name(); }
  SchemaRef schema() const override { return schema_; }
  int64_t EstimatedRows() const override { return version_->num_rows; }
  // Every batch of the version (no pruning: positions count them all).
  Result<std::unique_ptr<ScanPlan>> Plan(const ScanRequest& request) const override;
  std::string Describe() const override { return "memory table with row positions"; }
  const TableVersionRef& version() const { return version_; }

 private:
  std::shared_ptr<const MemoryTable> table_;
  TableVersionRef version_;
  SchemaRef schema_;
  std::vector<int64_t> starts_;  // per batch: the position of its first row
};

}  // namespace quiver
