// The catalog: named tables (in memory or over files) and views.
//
// Names are stored as written after PostgreSQL's identifier folding (the
// parser lower-cases unquoted names). Lookups try the exact name first and
// then a case-insensitive match, so `SELECT * FROM Lineitem` finds
// "lineitem" and a file column "L_ORDERKEY" is reachable unquoted.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "catalog/table_source.h"
#include "sql/ast.h"

namespace quiver {

struct ViewDefinition {
  std::string name;
  std::vector<std::string> columns;  // CREATE VIEW v (a, b): renames
  std::shared_ptr<const sql::SelectNode> query;
  std::string text;
};

struct CatalogEntry {
  std::shared_ptr<TableSource> table;        // set for tables
  std::shared_ptr<const ViewDefinition> view;  // set for views
};

// The catalog's contents, copied: what a transaction starts from and works
// on (engine/transaction.h).
struct CatalogSnapshot {
  std::map<std::string, std::shared_ptr<const CatalogEntry>> entries;
  std::map<std::string, std::string> indexes;  // index name -> table
  std::map<std::string, std::string> schemas;  // created schema -> "" (a set)
};

class Catalog {
 public:
  // Fails with 'relation "x" already exists' unless `replace`.
  Status CreateTable(const std::string& name, std::shared_ptr<TableSource> table,
                     bool replace = false);
  Status CreateView(std::shared_ptr<const ViewDefinition> view, bool replace = false);
  // Drops a table (is_view = false) or a view; errors name what is wrong:
  // 'table "x" does not exist', '"x" is not a view'.
  Status Drop(const std::string& name, bool is_view, bool if_exists);
  // Null when absent.
  std::shared_ptr<const CatalogEntry> Lookup(const std::string& name) const;
  std::vector<std::string> TableNames() const;

  // Schemas: public (the default), pg_catalog and information_schema always
  // exist; CREATE SCHEMA adds others. A table or view in schema s is the
  // entry "s.t" (SplitQualifiedName); one in public is plain "t".
  // Errors as PostgreSQL's: 42P06 duplicate, 3F000 missing, 2BP01 not empty
  // without `cascade`. DropSchema with `cascade` drops the schema's tables,
  // views and indexes too (the caller has dropped their stored copies).
  Status CreateSchema(const std::string& name, bool if_not_exists);
  Status DropSchema(const std::string& name, bool if_exists, bool cascade);
  bool HasSchema(const std::string& name) const;
  // The schemas CREATE SCHEMA made, in name order.
  std::vector<std::string> SchemaNames() const;
  // The entries of schema `name` ("s.t"), in name order.
  std::vector<std::string> NamesInSchema(const std::string& name) const;

  // Index names (indexes are accepted for compatibility and do nothing:
  // every query scans columns). Errors as PostgreSQL's.
  Status CreateIndex(const std::string& name, const std::string& table, bool if_not_exists);
  Status DropIndex(const std::string& name, bool if_exists);

  CatalogSnapshot Snapshot() const;
  void Restore(CatalogSnapshot snapshot);
  // A transaction's commit of its catalog changes: under the catalog's lock,
  // each name whose entry differs between `base` and `next` must still have
  // base's entry here (else 40001, "could not serialize access due to
  // concurrent update"); then `publish` runs (it swaps table versions; on
  // error the catalog is left unchanged) and next's entries for those names
  // replace the current ones. Indexes likewise.
  Status Commit(const CatalogSnapshot& base, const CatalogSnapshot& next,
                const std::function<Status()>& publish);

 private:
  // OK when the schema of catalog name `name` takes new relations.
  Status CheckSchemaLocked(const std::string& name) const;  // REQUIRES: mu_ held
  // Exact, else the unique case-insensitive match; end() when none.
  std::map<std::string, std::shared_ptr<const CatalogEntry>>::const_iterator Find(
      const std::string& name) const;

  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const CatalogEntry>> entries_;  // GUARDED_BY(mu_)
  std::map<std::string, std::string> indexes_;                           // name -> table; GUARDED_BY(mu_)
  std::map<std::string, std::string> schemas_;                           // GUARDED_BY(mu_)
};

// Case-insensitive ASCII comparison of identifiers.
bool IdentifierEquals(const std::string& a, const std::string& b);

// A catalog name's schema and relation: "s.t" -> {"s", "t"}, "t" ->
// {"public", "t"} (a table name holding a dot reads as qualified).
std::pair<std::string, std::string> SplitQualifiedName(const std::string& name);
// The catalog name of relation `relation` in `schema` (plain in public).
std::string QualifiedName(const std::string& schema, const std::string& relation);
// Whether `schema` is one of the schemas that always exist.
bool IsBuiltinSchema(const std::string& schema);

}  // namespace quiver
