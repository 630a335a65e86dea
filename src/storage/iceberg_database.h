// A database in a directory (`quiver sql --db DIR`): Iceberg v2 tables
// listed in DIR/catalog.db, a SQLite database with the tables of Iceberg's
// JDBC / SQL catalog (iceberg_tables, iceberg_namespace_properties), so that
// pyiceberg's SqlCatalog("quiver", uri="sqlite:///DIR/catalog.db",
// warehouse="file://DIR") and Java's JdbcCatalog open it. Catalog name
// "quiver"; schema public is namespace "public", CREATE SCHEMA s makes
// namespace s; a table lives under DIR/<namespace>.db/<name>-<uuid>/
// (data/*.parquet, metadata/*.avro, metadata/vN.metadata.json).
//
// One commit per statement (IcebergTableStore::Commit, called by
// MemoryTable::Commit under the table's write lock):
//   1. new rows -> one Parquet data file (field ids, fsynced, renamed in)
//   2. manifest of the new files, manifest list of the snapshot (fsynced)
//   3. metadata/v(N+1).metadata.json (fsynced, renamed in)
//   4. SQLite transaction: UPDATE iceberg_tables SET metadata_location = new,
//      previous_metadata_location = old WHERE ... AND metadata_location = old
//      (no row changed: another writer committed first, 40001)
//   5. the in-memory version is published
// A crash before 4 leaves unreferenced files only (the catalog still names
// the old metadata); after 4 the commit is durable.
//
// Views are rows of iceberg_tables with iceberg_type 'VIEW' (as the JDBC
// catalog keeps them; pyiceberg lists tables only), their metadata an
// Iceberg view metadata file with the query's SQL text (dialect
// "postgresql") under DIR/public.db/views/.
//
// When the database opens, each table's metadata and manifests are read;
// its rows stay in the data files, which every scan plans and prunes
// (storage/iceberg_scan.h). One process at a time: DIR/quiver.lock is held
// with flock(2).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "catalog/table_constraints.h"
#include "catalog/table_store.h"

struct sqlite3;

namespace quiver {

class IcebergDatabase final : public DatabaseStorage,
                              public std::enable_shared_from_this<IcebergDatabase> {
 public:
  // Creates DIR and its catalog when absent. Fails when another process
  // holds the database. `read_only`: takes no lock (a writer may hold it;
  // this process reads the snapshots committed when it opens) and refuses
  // every write with 25006.
  static Result<std::shared_ptr<IcebergDatabase>> Open(const std::string& dir,
                                                       bool read_only = false);
  ~IcebergDatabase() override;

  // Adds every stored table to `catalog` (its rows stay in its files).
  Status LoadInto(Catalog* catalog);
  // What makes the stored sequences of serial / identity columns again when
  // their tables load (set before LoadInto; a table with sequences fails to
  // load without it).
  void set_sequence_factory(SequenceFactory f) { make_sequence_ = std::move(f); }
  const SequenceFactory& sequence_factory() const { return make_sequence_; }

  Status CheckTable(const MemoryTable& table) override;
  Status CreateTable(const std::shared_ptr<MemoryTable>& table,
                     const TablePartitioning& partitioning) override;
  Status DropTable(const std::string& name) override;
  // A schema is an Iceberg namespace: a row of iceberg_namespace_properties
  // ('exists' = 'true', as pyiceberg's create_namespace writes); a table
  // "s.t" is table t of namespace s, under DIR/s.db/. DropSchema removes
  // the namespace's table and view rows with it (CASCADE; the files stay).
  Status CreateSchema(const std::string& name) override;
  Status DropSchema(const std::string& name) override;
  // Iceberg schema evolution: a new schema (next schema-id) in which kept
  // columns keep their field ids and added ones take ids after
  // last-column-id; the current snapshot and its files stay as they are
  // (scans read them by field id). A renamed table keeps its location.
  Status AlterTable(const MemoryTable& table, const std::shared_ptr<MemoryTable>& next,
                    const std::vector<int>& moved) override;
  Status CreateView(const std::string& name, const std::string& statement_text,
                    const std::vector<std::pair<std::string, TypeRef>>& columns,
                    bool replace) override;
  Status DropView(const std::string& name) override;

  // The stored views, oldest first, as the CREATE VIEW statements that make
  // them again (the engine parses and binds them: LoadViews in
  // tools/database_dir.h). While `loading` is set CreateView stores nothing.
  Result<std::vector<std::pair<std::string, std::string>>> ViewStatements();
  void set_loading(bool loading) { loading_ = loading; }

  const std::string& dir() const { return dir_; }
  // 25006 when opened read-only.
  Status CheckWritable() const;

  // The catalog row's compare-and-swap (step 4 above); an empty `expected`
  // inserts the row (CREATE TABLE). A non-empty `new_name` renames the row
  // in the same transaction (ALTER TABLE ... RENAME TO).
  Status SwapMetadataLocation(const std::string& table, const std::string& expected,
                              const std::string& next, const std::string& new_name = "");

 private:
  IcebergDatabase() = default;
  Status Exec(const std::string& sql);
  // The catalog's namespaces (with properties or tables), nested ones left out.
  Result<std::vector<std::string>> Namespaces();

  std::string dir_;
  int lock_fd_ = -1;
  std::mutex mu_;  // the SQLite connection, used by one statement at a time
  sqlite3* db_ = nullptr;
  bool loading_ = false;
  bool read_only_ = false;
  SequenceFactory make_sequence_;
};

// The metadata file (file:// URI) of the snapshot a --db table's current
// version was read from or committed as; nullopt for a table not stored
// in a --db database (read_iceberg and quiver_snapshots over a table name).
std::optional<std::string> IcebergMetadataLocation(const TableSource& table);

// When `table_dir` (a local path) is the location of a table of a --db
// database (DIR/<schema>.db/<name>-<id>/, DIR/catalog.db beside <schema>.db),
// the metadata file the catalog names as its current one; nullopt when it
// is not, or the catalog cannot be read. read_iceberg over a table's path
// takes it rather than the highest-numbered metadata file, which may be a
// killed commit's that was never swapped into the catalog.
std::optional<std::string> CatalogMetadataFile(const std::string& table_dir);

}  // namespace quiver
