// The embedded database: one catalog, and statements run against it.
//
//   Database db;                                  // memory limit, threads: DatabaseOptions
//   auto results = db.ExecuteScript("CREATE TABLE t AS SELECT ...; SELECT * FROM t");
//   auto r = db.Execute("SELECT count(*) FROM read_arrow('x.arrow')");
//
// The query path: sql::Parse -> plan::Binder -> optimizer::Optimize ->
// exec::CreatePhysicalPlan -> exec::ExecutePlan -> QueryResult.
//
// Streaming: ExecuteStream (and PreparedStatement::Execute) return a
// QueryStream whose batches leave as the final pipeline emits them, through a
// bounded queue (exec::PhysicalResultStream): a slow reader makes the query
// wait rather than the result pile up. StatementOptions bound one statement:
// deadline, memory, read-only, the files it may touch.
//
// Thread-safety: several statements may run at once (the catalog locks).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "columnar/array.h"
#include "common/file_access.h"
#include "common/memory_size.h"  // DefaultMemoryLimit, ParseMemorySize (moved there)
#include "common/status.h"
#include "vector/value.h"

namespace quiver {

class Session;          // engine/session.h: a connection's transaction block
class DatabaseStorage;  // catalog/table_store.h: tables kept on disk (--db)

struct DatabaseOptions {
  // Per-query memory limit in bytes; < 0: 80% of physical memory.
  int64_t memory_limit = -1;
  int threads = 0;  // 0: all cores
  bool optimize = true;
  bool runtime_filters = true;
  // Optimizer rules to skip, by name (optimizer::RuleNames(); an unknown name
  // makes every query fail). For differential tests and debugging.
  std::vector<std::string> disabled_optimizer_rules;
  // NOT NULL, PRIMARY KEY, UNIQUE and CHECK are enforced; FOREIGN KEY and
  // EXCLUDE are not, so CREATE TABLE refuses them. True accepts those two as
  // informational, for callers whose data are known to satisfy them (the
  // sqllogictest corpus, written for engines that enforce them): the rows a
  // query sees are the same either way; only a violating write would go
  // unnoticed.
  bool informational_constraints = false;
  // Where tables are kept (`quiver sql --db DIR`); null: in memory only.
  std::shared_ptr<DatabaseStorage> storage;
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

// The limits one statement runs under.
struct StatementOptions {
  // Past it the statement fails with "canceling statement due to statement
  // timeout" (Cancelled).
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // Bytes the statement's query may hold; < 0: the database's limit.
  int64_t memory_limit = -1;
  // Refuse statements that write (tables, views, indexes, files):
  // "cannot execute INSERT in a read-only transaction".
  bool read_only = false;
  // Files the statement may read or write (FROM 'file', read_*, COPY);
  // null: any.
  std::shared_ptr<const FileAccessPolicy> file_policy;
  // Streamed results (ExecuteStream, PreparedStatement::Execute): the query's
  // threads merge their chunks into batches of about this many bytes (see
  // exec::ResultChannel); 0: a batch per chunk of at most 2048 rows.
  int64_t result_batch_bytes = int64_t{1} << 20;
  // Once true (from any thread, or a signal handler: a lock-free atomic),
  // the statement fails with "canceling statement due to user request".
  // Unlike QueryStream::Cancel it also reaches commands (CREATE TABLE AS,
  // INSERT, COPY), which run inside ExecuteStream. Null: none.
  std::shared_ptr<const std::atomic<bool>> cancel;
  // The connection whose transaction block (BEGIN ... COMMIT) the statement
  // runs in (Database::NewSession); null: the database's own session, which
  // Execute and ExecuteScript use.
  std::shared_ptr<Session> session;
  // False refuses BEGIN, SAVEPOINT and the rest (0A000): for callers whose
  // statements do not belong to one connection's sequence.
  bool transaction_blocks = true;
  // Run one part of a query (catalog/scan.h ScanPartition; count > 1): a
  // query that is a scan of one table with only filters and projections
  // above it (PreparedStatement::partitionable) reads that part of the
  // table; any other query runs whole in part 0 and returns no rows in the
  // others. Either way the parts' rows together are the query's.
  ScanPartition partition;
};

// The result of one statement, batch by batch. Queries run on a background
// thread started by ExecuteStream; destroying the stream cancels the query
// and waits for it to stop. Batches handed out stay valid as long as the
// caller holds them. Next and the accessors are for one consumer thread;
// Cancel may be called from any thread.
class QueryStream {
 public:
  ~QueryStream();
  QueryStream(const QueryStream&) = delete;
  QueryStream& operator=(const QueryStream&) = delete;

  // Whether the statement returns rows (SELECT, EXPLAIN); else schema() has
  // no fields and the stream no batches.
  bool has_rows() const;
  const SchemaRef& schema() const;
  // The next batch, *out == nullptr at the end; the query's error (Cancelled
  // after Cancel) instead.
  Status Next(RecordBatchRef* out);
  // Next that waits for a batch no later than `until`: then *timed_out and
  // *out == nullptr (the stream goes on). For readers that gather batches.
  Status NextBefore(std::chrono::steady_clock::time_point until, RecordBatchRef* out,
                    bool* timed_out);
  // Thread-safe: the query stops at its next chunk boundary.
  void Cancel();
  // After the end: the command tag ("INSERT 0 3", "CREATE TABLE"; empty for
  // queries) and the rows a command affected.
  const std::string& command_tag() const;
  int64_t rows_affected() const;
  // The most bytes the query's memory pool held at once (0 for commands).
  int64_t memory_peak() const;

  struct State;
  explicit QueryStream(std::unique_ptr<State> state);

 private:
  std::unique_ptr<State> state_;
};

class Database;

// One statement parsed and checked once, run any number of times with
// parameter values ($1 .. $n). Thread-safe.
class PreparedStatement {
 public:
  bool returns_rows() const { return returns_rows_; }
  // Columns of the result (no fields for commands). A column whose type
  // depends on an unbound parameter is text.
  const SchemaRef& result_schema() const { return schema_; }
  int num_parameters() const { return num_parameters_; }
  const std::string& sql() const { return sql_; }
  // A query that reads one table through filters and projections only (no
  // join, aggregate, ORDER BY, LIMIT, DISTINCT, window, set operation): its
  // result can be split into parts (StatementOptions::partition).
  bool partitionable() const { return partitionable_; }

  Result<std::unique_ptr<QueryStream>> Execute(const std::vector<Value>& params,
                                               const StatementOptions& options = {}) const;

 private:
  friend class Database;
  Database* db_ = nullptr;
  std::string sql_;
  bool returns_rows_ = false;
  bool partitionable_ = false;
  SchemaRef schema_;
  int num_parameters_ = 0;
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

  // Runs `sql` (one statement) as a stream. Errors found before execution
  // (syntax, names, types, read-only, file policy) are returned here.
  // Statements other than queries run to completion before this returns.
  Result<std::unique_ptr<QueryStream>> ExecuteStream(const std::string& sql,
                                                     const std::vector<Value>& params = {},
                                                     const StatementOptions& options = {});
  // Parses and binds `sql` (one statement, $n placeholders) once. Binding
  // opens the files a query reads, so `options.file_policy` applies here too.
  Result<std::shared_ptr<PreparedStatement>> Prepare(const std::string& sql,
                                                     const StatementOptions& options = {});

  // A connection of its own: statements given it in StatementOptions::session
  // share one transaction block, invisible to other sessions until COMMIT.
  // Ending the session (its last reference) rolls back an open transaction.
  std::shared_ptr<Session> NewSession();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  DatabaseOptions options_;
  int64_t memory_limit_;
  Catalog catalog_;
};

// The highest $n placeholder in `sql` outside literals, quoted names and
// comments (0: none).
int MaxParameterIndex(std::string_view sql);

}  // namespace quiver
