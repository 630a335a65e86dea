// The embedded database: one catalog, and statements run against it.
//
//   Database db;                                  // memory limit, threads: DatabaseOptions
//   auto results = db.ExecuteScript("CREATE TABLE t AS SELECT ...; SELECT * FROM t");
//   auto r = db.Execute("SELECT count(*) FROM read_arrow('x.arrow')");
//
// The query path: sql::Parse -> plan::Binder -> optimizer::Optimize ->
// exec::CreatePhysicalPlan -> exec::ExecutePlan -> QueryResult.
//
// Thread-safety: several statements may run at once (the catalog locks).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "columnar/array.h"
#include "common/status.h"
#include "vector/value.h"

namespace quiver {

struct DatabaseOptions {
  // Per-query memory limit in bytes; < 0: 80% of physical memory.
  int64_t memory_limit = -1;
  int threads = 0;  // 0: all cores
  bool optimize = true;
  bool runtime_filters = true;
  // Optimizer rules to skip, by name (optimizer::RuleNames(); an unknown name
  // makes every query fail). For differential tests and debugging.
  std::vector<std::string> disabled_optimizer_rules;
};

struct QueryResult {
  // Rows (SELECT, EXPLAIN, ...): schema + batches. Commands have an empty
  // schema and a tag: "CREATE TABLE", "INSERT 0 3", "DROP VIEW".
  SchemaRef schema;
  std::vector<RecordBatchRef> batches;
  std::string command_tag;
  int64_t rows_affected = 0;
  bool has_rows = false;
  double seconds = 0;
  // Keeps the memory the batches live in alive (the query's pool).
  std::shared_ptr<void> keep_alive;

  int64_t num_rows() const;
  // The values of row r (slow; for tests and small results).
  std::vector<Value> Row(int64_t r) const;
};

class Database {
 public:
  explicit Database(DatabaseOptions options = {});
  ~Database();

  Catalog* catalog() { return &catalog_; }
  const DatabaseOptions& options() const { return options_; }
  int64_t memory_limit() const { return memory_limit_; }

  // Runs every statement of `sql` in order; stops at the first error, whose
  // Status carries the position within `sql`.
  Result<std::vector<QueryResult>> ExecuteScript(const std::string& sql,
                                                 const std::vector<Value>& params = {});
  // Runs `sql`, which must hold exactly one statement.
  Result<QueryResult> Execute(const std::string& sql, const std::vector<Value>& params = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  DatabaseOptions options_;
  int64_t memory_limit_;
  Catalog catalog_;
};

// 80% of the machine's physical memory.
int64_t DefaultMemoryLimit();
// "4GB", "512MB", "1.5 GiB", "80%" -> bytes.
Result<int64_t> ParseMemorySize(const std::string& text);

}  // namespace quiver
