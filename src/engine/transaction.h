// Transactions: BEGIN ... COMMIT / ROLLBACK, SAVEPOINT / ROLLBACK TO /
// RELEASE, over the catalog and its memory tables.
//
// A transaction works on a private Catalog, a copy of the shared one's
// entries taken at BEGIN. Tables are copied on first write: before a
// statement writes table T, T is cloned (MemoryTable::Clone, sharing T's
// immutable rows) and the clone replaces T in the private catalog, so the
// transaction's writes publish versions of the clone that no other session
// sees. DDL (CREATE, DROP, views, indexes) changes only the private
// catalog. Reads see the private catalog: the transaction's own writes, and
// the latest committed rows of tables it has not written.
//
// COMMIT publishes everything at once: under the shared catalog's lock,
// entries the transaction changed must still be the ones it started from,
// and each written table's current version must still be the one it was
// cloned from (else 40001: another session committed first, and the
// transaction's work is discarded; optimistic concurrency, as Iceberg
// commits are); then each cloned table's final version is published into
// the original table (TableVersions are immutable snapshots, so a publish
// is a pointer swap), and new / dropped / replaced entries are applied.
// ROLLBACK drops the private state. A savepoint records the private
// catalog and the version of each private table; ROLLBACK TO restores them.
//
// On-disk tables (Iceberg, issue 14) are meant to commit through the same
// steps: a table's "version" becomes its metadata location, the publish a
// compare-and-swap of the catalog row.
//
// Thread-safety: one statement of a session at a time is expected; the
// methods lock anyway.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "catalog/catalog.h"

namespace quiver {

class Transaction {
 public:
  explicit Transaction(Catalog* shared);

  // The catalog the transaction's statements bind against.
  Catalog* catalog() { return &private_; }

  // Makes the memory table `name` private to the transaction before a
  // statement writes it (no-op when it already is, or is not a memory table).
  Status PrepareWrite(const std::string& name);

  Status Savepoint(const std::string& name);
  Status RollbackTo(const std::string& name);
  Status Release(const std::string& name);
  // Publishes the transaction's changes (see above).
  Status Commit();

  // A failed statement aborts the transaction: until ROLLBACK (or ROLLBACK
  // TO a savepoint) every statement fails with 25P02.
  bool aborted() const;
  void set_aborted(bool aborted);

 private:
  struct Clone {
    std::shared_ptr<MemoryTable> origin;
    TableVersionRef base;  // origin's version when cloned
  };
  struct SavepointState {
    std::string name;
    CatalogSnapshot catalog;
    std::map<MemoryTable*, Clone> clones;
    std::vector<std::pair<std::shared_ptr<MemoryTable>, TableVersionRef>> versions;
  };

  // Whether `table` was created or cloned by this transaction.
  bool IsPrivate(const std::shared_ptr<const CatalogEntry>& entry) const;

  Catalog* shared_;
  CatalogSnapshot base_;
  Catalog private_;
  mutable std::mutex mu_;
  std::map<MemoryTable*, Clone> clones_;      // GUARDED_BY(mu_); private clone -> origin
  std::vector<SavepointState> savepoints_;   // GUARDED_BY(mu_)
  bool aborted_ = false;                      // GUARDED_BY(mu_)
};

}  // namespace quiver
