// What the Flight SQL server needs from a database: statements prepared and
// run as streams of batches, the tables to list, and bulk ingestion. The
// server sees the database only through this interface, so the in-memory
// catalog of today (EngineBackend over quiver::Database) can be replaced by a
// persistent one without touching the protocol code.
//
// Thread-safety: every method may be called from many threads at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/scan.h"
#include "columnar/array.h"
#include "common/status.h"
#include "vector/value.h"

namespace quiver::server {

// The limits one statement runs under.
struct ExecOptions {
  std::optional<std::chrono::steady_clock::time_point> deadline;
  int64_t memory_limit = -1;  // < 0: the database's
  bool read_only = false;     // refuse statements that write
  // Directories files may be read from or written to; empty: any path,
  // unless confine_files (then: no file at all).
  std::vector<std::string> data_dirs;
  bool confine_files = false;
  // About the bytes of the batches the query's threads hand out (merged
  // from its chunks); 0: one batch per chunk.
  int64_t result_batch_bytes = int64_t{1} << 20;
  // One part of a query's result (catalog/scan.h; count 1: all of it).
  ScanPartition partition;
};

// The result of one statement, batch by batch as the engine produces it.
class BatchStream {
 public:
  virtual ~BatchStream() = default;
  // No fields for statements that return no rows.
  virtual const SchemaRef& schema() const = 0;
  // The next batch, or *out == nullptr at the end.
  virtual Status Next(RecordBatchRef* out) = 0;
  // Next that waits no later than `until` (then *timed_out, *out null, and
  // the stream goes on): the server gathers small batches into bigger
  // messages without holding back the ones it has for long.
  virtual Status NextBefore(std::chrono::steady_clock::time_point until, RecordBatchRef* out,
                            bool* timed_out) {
    *timed_out = false;
    return Next(out);
  }
  // Thread-safe: the running statement stops, and Next fails with Cancelled.
  virtual void Cancel() = 0;
  // After the end: rows inserted, updated or deleted (-1: not a DML command)
  // and the command tag ("INSERT 0 3", "CREATE TABLE"; empty for queries).
  virtual int64_t rows_affected() const = 0;
  virtual std::string command_tag() const = 0;
};

// One statement, parsed and bound once, run any number of times.
class PreparedQuery {
 public:
  virtual ~PreparedQuery() = default;
  virtual bool returns_rows() const = 0;
  // Columns of the result; no fields when !returns_rows().
  virtual const SchemaRef& result_schema() const = 0;
  // $1 .. $n placeholders.
  virtual int num_parameters() const = 0;
  // Whether ExecOptions::partition splits the result (a scan of one table
  // with filters and projections only); other queries return every row in
  // part 0 and none in the others.
  virtual bool partitionable() const { return false; }
  virtual Result<std::unique_ptr<BatchStream>> Execute(const std::vector<Value>& params,
                                                       const ExecOptions& options) const = 0;
};

struct TableInfo {
  std::string db_schema = "public";  // CREATE SCHEMA's schemas besides public
  std::string name;                  // in its schema
  std::string type;  // "TABLE", "VIEW" (GetTableTypes lists these)
  SchemaRef schema;  // engine types
};

struct IngestRequest {
  std::string table;
  // Table missing: create it, else fail. Table present: append, replace its
  // rows (and columns), or fail.
  bool create_if_missing = true;
  enum class IfExists : int8_t { kFail, kAppend, kReplace } if_exists = IfExists::kFail;
  bool temporary = false;
  bool read_only = false;  // the server runs --read-only: refuse
};

class SqlBackend {
 public:
  virtual ~SqlBackend() = default;
  // `sql` holds one statement with $n placeholders. Errors are the SQL
  // errors (syntax, unknown names, types) the statement would raise.
  // Binding opens the files a query reads (for their columns), so
  // `options.data_dirs` confine it already.
  virtual Result<std::shared_ptr<PreparedQuery>> Prepare(const std::string& sql,
                                                         const ExecOptions& options) = 0;
  virtual std::vector<TableInfo> ListTables() const = 0;
  // The schemas (GetDbSchemas), in name order.
  virtual std::vector<std::string> ListSchemas() const { return {"public"}; }
  // Creates, appends to or replaces `request.table` with `batches` (all of
  // `schema`): all or nothing. Returns the rows written.
  virtual Result<int64_t> Ingest(const IngestRequest& request, const SchemaRef& schema,
                                 const std::vector<RecordBatchRef>& batches) = 0;
  // Drops a table created by Ingest with `temporary` (when its session ends).
  virtual Status DropTemporary(const std::string& table) = 0;
};

}  // namespace quiver::server
