#include "engine/database.h"

#include <algorithm>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "columnar/builder.h"
#include "common/calendar.h"
#include "common/io.h"
#include "common/memory_release.h"
#include "catalog/table_store.h"
#include "engine/copy_options.h"
#include "engine/copy_output.h"
#include "engine/foreign_ddl.h"
#include "engine/session.h"
#include "engine/table_definition.h"
#include "sql/ast_partition.h"
#include "execution/execution_context.h"
#include "execution/operators/physical_result_collector.h"
#include "execution/operators/physical_result_stream.h"
#include "execution/operators/physical_table_scan.h"
#include "execution/physical_planner.h"
#include "execution/pipeline.h"
#include "formats/file_format.h"
#include "functions/cast.h"
#include "optimizer/optimizer.h"
#include "planner/binder.h"
#include "planner/expression_binder.h"
#include "sql/parser.h"
#include "vector/sql_type.h"

namespace quiver {

using plan::BoundQuery;
using plan::ExprPtr;
using plan::LogicalOpPtr;

int64_t QueryResult::num_rows() const {
  int64_t n = 0;
  for (const auto& b : batches) n += b->num_rows();
  return n;
}

std::vector<Value> QueryResult::Row(int64_t r) const {
  for (const auto& b : batches) {
    if (r < b->num_rows()) {
      std::vector<Value> out;
      for (const auto& c : b->columns()) out.push_back(ValueFromArray(*c, r));
      return out;
    }
    r -= b->num_rows();
  }
  return {};
}

// --- statement execution -------------------------------------------------------------

namespace {

bool HasSubqueryOrWindow(const plan::Expression& e) {
  if (e.type == plan::ExprType::kSubquery || e.type == plan::ExprType::kWindow ||
      e.type == plan::ExprType::kAggregate) {
    return true;
  }
  for (const auto& c : e.children) {
    if (c != nullptr && HasSubqueryOrWindow(*c)) return true;
  }
  return false;
}

// A scan of one table under filters and projections only: each part of the
// table gives its own part of the result (PreparedStatement::partitionable).
bool IsPartitionableScan(const plan::LogicalOperator& root) {
  const plan::LogicalOperator* op = &root;
  for (;;) {
    bool nested = false;
    op->ForEachExpression([&](const plan::Expression& e) { nested |= HasSubqueryOrWindow(e); });
    if (nested) return false;
    if (op->type == plan::LogicalOpType::kGet) {
      return op->children.empty() && op->As<plan::LogicalGet>().table != nullptr;
    }
    if ((op->type != plan::LogicalOpType::kFilter &&
         op->type != plan::LogicalOpType::kProjection) ||
        op->children.size() != 1) {
      return false;
    }
    op = op->children[0].get();
  }
}

// The options of the statement running on this thread. A statement runs on
// the thread that called ExecuteStream (only its pipeline tasks run
// elsewhere, and they read the ExecutionContext), so its limits reach every
// statement kind's code (binding, COPY, RunQuery) without a parameter
// threaded through each.
thread_local const StatementOptions* tls_statement_options = nullptr;

class StatementOptionsScope {
 public:
  explicit StatementOptionsScope(const StatementOptions* o) : saved_(tls_statement_options) {
    tls_statement_options = o;
  }
  ~StatementOptionsScope() { tls_statement_options = saved_; }

 private:
  const StatementOptions* saved_;
};

const StatementOptions& CurrentOptions() {
  static const StatementOptions kDefaults;
  return tls_statement_options ? *tls_statement_options : kDefaults;
}

const FileAccessPolicy* CurrentFilePolicy() { return CurrentOptions().file_policy.get(); }

// The catalog the statement running on this thread sees: its transaction's
// private one (engine/transaction.h), or null for the database's own.
thread_local Catalog* tls_catalog = nullptr;

class CatalogScope {
 public:
  explicit CatalogScope(Catalog* c) : saved_(tls_catalog) { tls_catalog = c; }
  ~CatalogScope() { tls_catalog = saved_; }

 private:
  Catalog* saved_;
};

// The tables a statement writes, which a transaction makes private first.
std::vector<std::string> WrittenTables(const sql::Statement& s) {
  switch (s.kind) {
    case sql::StatementKind::kInsert:
      return {static_cast<const sql::InsertStatement&>(s).table};
    case sql::StatementKind::kUpdate:
      return {static_cast<const sql::UpdateStatement&>(s).table};
    case sql::StatementKind::kDelete:
      return {static_cast<const sql::DeleteStatement&>(s).table};
    case sql::StatementKind::kCopy: {
      const auto& c = static_cast<const sql::CopyStatement&>(s);
      if (c.is_from) return {c.table};
      return {};
    }
    case sql::StatementKind::kTruncate:
      return static_cast<const sql::TruncateStatement&>(s).tables;
    case sql::StatementKind::kVacuum:
      return static_cast<const sql::VacuumStatement&>(s).tables;
    case sql::StatementKind::kExplain: {
      const auto& e = static_cast<const sql::ExplainStatement&>(s);
      if (e.analyze && e.statement) return WrittenTables(*e.statement);
      return {};
    }
    default:
      return {};
  }
}

Status CheckFile(const std::string& path) {
  const FileAccessPolicy* policy = CurrentFilePolicy();
  return policy ? policy->Check(path) : Status::OK();
}

// PostgreSQL's name of what a writing statement does; empty if it does not
// write.
std::string WriteKind(const sql::Statement& s) {
  switch (s.kind) {
    case sql::StatementKind::kInsert:
      return "INSERT";
    case sql::StatementKind::kUpdate:
      return "UPDATE";
    case sql::StatementKind::kDelete:
      return "DELETE";
    case sql::StatementKind::kCreateTable:
      return static_cast<const sql::CreateTableStatement&>(s).as_select ? "CREATE TABLE AS"
                                                                        : "CREATE TABLE";
    case sql::StatementKind::kCreateView:
      return "CREATE VIEW";
    case sql::StatementKind::kCreateIndex:
      return "CREATE INDEX";
    case sql::StatementKind::kDrop:
      switch (static_cast<const sql::DropStatement&>(s).object) {
        case sql::DropStatement::kView:
          return "DROP VIEW";
        case sql::DropStatement::kIndex:
          return "DROP INDEX";
        case sql::DropStatement::kForeignTable:
          return "DROP FOREIGN TABLE";
        default:
          return "DROP TABLE";
      }
    case sql::StatementKind::kCreateForeignTable:
      return "CREATE FOREIGN TABLE";
    case sql::StatementKind::kImportForeignSchema:
      return "IMPORT FOREIGN SCHEMA";
    case sql::StatementKind::kAlterForeignTable:
      return "ALTER FOREIGN TABLE";
    case sql::StatementKind::kAlterTable:
      return "ALTER TABLE";
    case sql::StatementKind::kNoOp:
      return static_cast<const sql::NoOpStatement&>(s).tag;
    case sql::StatementKind::kCopy:
      // COPY TO writes a file: refused too, unlike PostgreSQL.
      return static_cast<const sql::CopyStatement&>(s).is_from ? "COPY FROM" : "COPY TO";
    case sql::StatementKind::kExplain: {
      const auto& e = static_cast<const sql::ExplainStatement&>(s);
      return e.analyze && e.statement ? WriteKind(*e.statement) : "";
    }
    case sql::StatementKind::kTruncate:
      return "TRUNCATE TABLE";
    case sql::StatementKind::kVacuum:
      return "VACUUM";
    case sql::StatementKind::kCall:
      return "CALL";
    case sql::StatementKind::kSelect:
    case sql::StatementKind::kSet:
    case sql::StatementKind::kTransaction:
      return "";
  }
  return "this statement";
}

Status CheckReadOnly(const sql::Statement& s, const StatementOptions& options) {
  if (!options.read_only) return Status::OK();
  const std::string kind = WriteKind(s);
  if (kind.empty()) return Status::OK();
  return Status::Invalid("cannot execute {} in a read-only transaction", kind)
      .WithSqlState(sqlstate::kReadOnlySqlTransaction);
}

}  // namespace

struct QueryStream::State {
  bool has_rows = false;
  SchemaRef schema;
  std::string command_tag;
  int64_t rows_affected = 0;
  // A finished result (commands, EXPLAIN) ...
  std::vector<RecordBatchRef> batches;
  size_t next = 0;
  std::atomic<bool> cancelled{false};
  // ... or a query running on `thread`.
  std::shared_ptr<exec::ExecutionContext> ctx;
  std::shared_ptr<exec::ResultChannel> channel;
  std::thread thread;
  // The transaction the query runs in: an error aborts it.
  std::shared_ptr<Transaction> transaction;
};

QueryStream::QueryStream(std::unique_ptr<State> state) : state_(std::move(state)) {}

QueryStream::~QueryStream() {
  if (state_->thread.joinable()) {
    Cancel();
    state_->thread.join();
  }
}

bool QueryStream::has_rows() const { return state_->has_rows; }
const SchemaRef& QueryStream::schema() const { return state_->schema; }
const std::string& QueryStream::command_tag() const { return state_->command_tag; }
int64_t QueryStream::rows_affected() const { return state_->rows_affected; }
int64_t QueryStream::memory_peak() const {
  return state_->ctx ? state_->ctx->pool()->peak_bytes() : 0;
}

Status QueryStream::Next(RecordBatchRef* out) {
  *out = nullptr;
  if (state_->channel) {
    Status st = state_->channel->Pop(out);
    if (!st.ok() && state_->transaction) state_->transaction->set_aborted(true);
    return st;
  }
  if (state_->cancelled.load()) {
    return Status::Cancelled("canceling statement due to user request");
  }
  if (state_->next < state_->batches.size()) *out = state_->batches[state_->next++];
  return Status::OK();
}

Status QueryStream::NextBefore(std::chrono::steady_clock::time_point until, RecordBatchRef* out,
                               bool* timed_out) {
  *timed_out = false;
  if (state_->channel) {
    Status st = state_->channel->PopBefore(until, out, timed_out);
    if (!st.ok() && state_->transaction) state_->transaction->set_aborted(true);
    return st;
  }
  return Next(out);
}

void QueryStream::Cancel() {
  state_->cancelled.store(true);
  if (state_->ctx) state_->ctx->CancelByUser();
  if (state_->channel) state_->channel->Abort();
}

struct Database::Impl {
  Database* db;
  // The session of Execute, ExecuteScript and streams without one.
  std::shared_ptr<Session> default_session = std::make_shared<Session>();

  Catalog* Cat() { return tls_catalog != nullptr ? tls_catalog : &db->catalog_; }

  int64_t memory_limit() const { return db->memory_limit_; }

  std::shared_ptr<exec::ExecutionContext> MakeContext(const StatementOptions& options,
                                                      bool profile) {
    const int64_t limit = options.memory_limit >= 0 ? options.memory_limit : memory_limit();
    auto ctx = std::make_shared<exec::ExecutionContext>(limit, profile);
    if (db->options_.threads > 0) ctx->set_num_threads(db->options_.threads);
    if (options.deadline) ctx->set_deadline(*options.deadline);
    if (options.cancel) ctx->set_cancel_flag(options.cancel);
    return ctx;
  }

  // The scan under a chain of single-child operators; null when there is
  // none (a query IsPartitionableScan accepted plans to such a chain).
  static exec::PhysicalTableScan* PartitionableScanOf(exec::PhysicalOperator* op) {
    while (op != nullptr) {
      if (auto* scan = dynamic_cast<exec::PhysicalTableScan*>(op)) return scan;
      if (op->children().size() != 1) return nullptr;
      op = op->children()[0].get();
    }
    return nullptr;
  }

  // Plans a bound query and starts it on a thread of its own, its result
  // streamed (see QueryStream).
  Result<std::unique_ptr<QueryStream>> StartQuery(BoundQuery q, plan::BindState* state,
                                                  const StatementOptions& options,
                                                  std::shared_ptr<Transaction> txn = nullptr) {
    QUIVER_ASSIGN_OR_RAISE(LogicalOpPtr plan, Optimize(std::move(q.plan), state));
    exec::PhysicalPlanOptions popts;
    popts.runtime_filters = db->options_.runtime_filters;
    QUIVER_ASSIGN_OR_RAISE(exec::PhysicalOpPtr physical, exec::CreatePhysicalPlan(*plan, popts));
    std::vector<FieldRef> fields;
    for (size_t i = 0; i < q.names.size(); ++i) fields.push_back(field(q.names[i], q.types[i]));
    auto st = std::make_unique<QueryStream::State>();
    st->has_rows = true;
    st->schema = schema(std::move(fields));
    st->transaction = std::move(txn);
    if (options.partition.count > 1) {
      exec::PhysicalTableScan* scan =
          IsPartitionableScan(*plan) ? PartitionableScanOf(physical.get()) : nullptr;
      if (scan != nullptr) {
        scan->SetPartition(options.partition);
      } else if (options.partition.index != 0) {
        return std::make_unique<QueryStream>(std::move(st));  // part 0 has every row
      }
    }
    // A few batches in flight (about 8 MiB, 2 to 8 batches): enough to keep
    // the consumer and the query both busy, little enough that the result
    // never piles up.
    const int64_t in_flight =
        (int64_t{8} << 20) / std::max<int64_t>(options.result_batch_bytes, 1);
    st->channel = std::make_shared<exec::ResultChannel>(
        static_cast<size_t>(std::clamp<int64_t>(in_flight, 2, 8)), options.result_batch_bytes);
    st->ctx = MakeContext(options, false);
    std::shared_ptr<exec::PhysicalOperator> root =
        std::make_shared<exec::PhysicalResultStream>(q.types, st->schema, st->channel);
    root->children().push_back(std::move(physical));
    // The physical plan may point into the logical one (as RunQuery's does
    // while it runs): both live as long as the query.
    std::shared_ptr<plan::LogicalOperator> logical(std::move(plan));
    st->thread = std::thread([root, logical, ctx = st->ctx, channel = st->channel]() mutable {
      Status status = exec::ExecutePlan(*ctx, root.get());
      // The plan's states (hash tables, sort buffers) go before the end is
      // announced, so a finished stream holds only the batches handed out.
      root.reset();
      logical.reset();
      channel->Close(std::move(status));
      // After the end is announced: the consumer does not wait for it.
      ReleaseFreedMemory();
    });
    return std::make_unique<QueryStream>(std::move(st));
  }

  Result<LogicalOpPtr> Optimize(LogicalOpPtr plan, plan::BindState* state) {
    if (!db->options_.optimize) return plan;
    optimizer::OptimizerOptions o;
    o.disabled = db->options_.disabled_optimizer_rules;
    return optimizer::Optimize(std::move(plan), state, o);
  }

  // Runs a bound query to completion.
  Result<QueryResult> RunQuery(BoundQuery q, plan::BindState* state, bool profile,
                               std::string* explain_out = nullptr) {
    QUIVER_ASSIGN_OR_RAISE(LogicalOpPtr plan, Optimize(std::move(q.plan), state));
    exec::PhysicalPlanOptions popts;
    popts.runtime_filters = db->options_.runtime_filters;
    QUIVER_ASSIGN_OR_RAISE(exec::PhysicalOpPtr physical, exec::CreatePhysicalPlan(*plan, popts));
    std::vector<FieldRef> fields;
    for (size_t i = 0; i < q.names.size(); ++i) fields.push_back(field(q.names[i], q.types[i]));
    auto out_schema = schema(std::move(fields));
    auto collector = std::make_unique<exec::PhysicalResultCollector>(q.types, out_schema);
    collector->children().push_back(std::move(physical));
    auto ctx = MakeContext(CurrentOptions(), profile);
    const auto start = std::chrono::steady_clock::now();
    QUIVER_RETURN_NOT_OK(exec::ExecutePlan(*ctx, collector.get()));
    QueryResult r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (explain_out) *explain_out = collector->children()[0]->ToString(0, ctx.get());
    r.schema = out_schema;
    r.batches = collector->TakeBatches();
    r.has_rows = true;
    // Results may share buffers with the query's pool: keep it alive.
    r.keep_alive = ctx;
    return r;
  }

  Result<BoundQuery> BindSelect(const sql::SelectNode& node, plan::BindState* state) {
    plan::Binder binder(state);
    return binder.BindQuery(node);
  }

  Result<QueryResult> ExecuteSelect(const sql::SelectStatement& s,
                                    const std::vector<Value>& params) {
    plan::BindState state;
    state.catalog = Cat();
    state.file_policy = CurrentFilePolicy();
    state.parameters = params;
    QUIVER_ASSIGN_OR_RAISE(BoundQuery q, BindSelect(*s.select, &state));
    return RunQuery(std::move(q), &state, false);
  }

  static QueryResult Command(std::string tag, int64_t rows = 0) {
    QueryResult r;
    r.command_tag = std::move(tag);
    r.rows_affected = rows;
    return r;
  }

  static QueryResult TextResult(const std::string& column, const std::string& text) {
    QueryResult r;
    StringBuilder b(utf8());
    size_t start = 0;
    while (start < text.size()) {
      size_t nl = text.find('\n', start);
      if (nl == std::string::npos) nl = text.size();
      (void)b.Append(std::string_view(text).substr(start, nl - start));
      start = nl + 1;
    }
    auto a = b.Finish();
    r.schema = schema({field(column, utf8(), false)});
    r.batches.push_back(RecordBatch::Make(r.schema, (*a)->length, {*a}));
    r.has_rows = true;
    return r;
  }

  // VACUUM's and CALL expire_snapshots' result: a row of counts per table,
  // the columns named as Spark's rewrite_data_files / expire_snapshots
  // procedures name theirs (Quiver's own: expired_snapshots_count,
  // deleted_orphan_files_count).
  using CountOf = int64_t (*)(const MaintenanceCounts&);
  static std::vector<std::pair<const char*, CountOf>> MaintenanceColumns(bool vacuum) {
    std::vector<std::pair<const char*, CountOf>> columns;
    if (vacuum) {
      columns.emplace_back("rewritten_data_files_count",
                           [](const MaintenanceCounts& c) { return c.files_compacted; });
      columns.emplace_back("added_data_files_count",
                           [](const MaintenanceCounts& c) { return c.files_written; });
    } else {
      columns.emplace_back("expired_snapshots_count",
                           [](const MaintenanceCounts& c) { return c.snapshots_expired; });
    }
    columns.emplace_back("deleted_data_files_count",
                         [](const MaintenanceCounts& c) { return c.data_files_removed; });
    columns.emplace_back("deleted_position_delete_files_count", [](const MaintenanceCounts& c) {
      return c.position_delete_files_removed;
    });
    columns.emplace_back("deleted_equality_delete_files_count", [](const MaintenanceCounts& c) {
      return c.equality_delete_files_removed;
    });
    columns.emplace_back("deleted_manifest_files_count",
                         [](const MaintenanceCounts& c) { return c.manifests_removed; });
    columns.emplace_back("deleted_manifest_lists_count",
                         [](const MaintenanceCounts& c) { return c.manifest_lists_removed; });
    columns.emplace_back("deleted_orphan_files_count",
                         [](const MaintenanceCounts& c) { return c.orphan_files_removed; });
    return columns;
  }
  static SchemaRef MaintenanceSchema(bool vacuum) {
    std::vector<FieldRef> fields{field("table_name", utf8(), false)};
    for (const auto& c : MaintenanceColumns(vacuum)) fields.push_back(field(c.first, int64(), false));
    return schema(std::move(fields));
  }
  static Result<QueryResult> MaintenanceResult(
      bool vacuum, const std::vector<std::pair<std::string, MaintenanceCounts>>& tables) {
    QueryResult r;
    std::vector<ArrayRef> arrays;
    StringBuilder names(utf8());
    for (const auto& t : tables) QUIVER_RETURN_NOT_OK(names.Append(t.first));
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, names.Finish());
    arrays.push_back(std::move(a));
    for (const auto& [name, get] : MaintenanceColumns(vacuum)) {
      Int64Builder b(int64());
      for (const auto& t : tables) QUIVER_RETURN_NOT_OK(b.Append(get(t.second)));
      QUIVER_ASSIGN_OR_RAISE(ArrayRef col, b.Finish());
      arrays.push_back(std::move(col));
    }
    r.schema = MaintenanceSchema(vacuum);
    r.batches.push_back(RecordBatch::Make(r.schema, static_cast<int64_t>(tables.size()), std::move(arrays)));
    r.has_rows = true;
    return r;
  }

  // The statements EXPLAIN shows: queries and data modifications (EXPLAIN
  // ANALYZE runs them, as PostgreSQL does).
  Result<BoundQuery> BindExplained(const sql::Statement& stmt, plan::BindState* state) {
    plan::Binder binder(state);
    switch (stmt.kind) {
      case sql::StatementKind::kSelect:
        return binder.BindQuery(*static_cast<const sql::SelectStatement&>(stmt).select);
      case sql::StatementKind::kInsert:
        return binder.BindInsert(static_cast<const sql::InsertStatement&>(stmt));
      case sql::StatementKind::kUpdate:
        return binder.BindUpdate(static_cast<const sql::UpdateStatement&>(stmt));
      case sql::StatementKind::kDelete:
        return binder.BindDelete(static_cast<const sql::DeleteStatement&>(stmt));
      default:
        return Status::Unsupported(
            "EXPLAIN of statements other than SELECT, INSERT, UPDATE and DELETE");
    }
  }

  Result<QueryResult> ExecuteExplain(const sql::ExplainStatement& s,
                                     const std::vector<Value>& params) {
    plan::BindState state;
    state.catalog = Cat();
    state.file_policy = CurrentFilePolicy();
    state.parameters = params;
    QUIVER_ASSIGN_OR_RAISE(BoundQuery q, BindExplained(*s.statement, &state));
    if (s.analyze) {
      std::string text;
      QUIVER_ASSIGN_OR_RAISE(QueryResult r, RunQuery(std::move(q), &state, true, &text));
      text += fmt::format("Result: {} rows in {:.3f} s\n", r.num_rows(), r.seconds);
      return TextResult("QUERY PLAN", text);
    }
    QUIVER_ASSIGN_OR_RAISE(LogicalOpPtr plan, Optimize(std::move(q.plan), &state));
    exec::PhysicalPlanOptions popts;
    popts.runtime_filters = db->options_.runtime_filters;
    QUIVER_ASSIGN_OR_RAISE(exec::PhysicalOpPtr physical, exec::CreatePhysicalPlan(*plan, popts));
    std::string text = physical->ToString(0, nullptr);
    if (s.verbose) text += "\nLogical plan:\n" + plan->ToString();
    return TextResult("QUERY PLAN", text);
  }

  plan::BindState NewBindState(const std::vector<Value>& params) {
    plan::BindState state;
    state.catalog = Cat();
    state.file_policy = CurrentFilePolicy();
    state.parameters = params;
    return state;
  }

  // INSERT, UPDATE, DELETE and CREATE TABLE AS are bound into a logical
  // insert / update / delete (planner/bind_dml.cc) and run like queries: the
  // sink writes the table and yields one row, the number of rows written.
  Result<int64_t> RunModification(BoundQuery q, plan::BindState* state) {
    QUIVER_ASSIGN_OR_RAISE(QueryResult r, RunQuery(std::move(q), state, false));
    if (r.num_rows() != 1) {
      return Status::UnknownError("internal error: a data modification returned {} rows",
                                  r.num_rows());
    }
    return r.Row(0)[0].integer();
  }

  // An INSERT / UPDATE / DELETE: its command tag ("INSERT 0 n" is `prefix`
  // then n), and with RETURNING its rows, one per row counted.
  Result<QueryResult> RunDml(BoundQuery q, plan::BindState* state, bool returning,
                             const std::string& prefix) {
    if (!returning) {
      QUIVER_ASSIGN_OR_RAISE(const int64_t n, RunModification(std::move(q), state));
      return Command(prefix + std::to_string(n), n);
    }
    QUIVER_ASSIGN_OR_RAISE(QueryResult r, RunQuery(std::move(q), state, false));
    r.rows_affected = r.num_rows();
    r.command_tag = prefix + std::to_string(r.rows_affected);
    return r;
  }

  Result<QueryResult> ExecuteInsert(const sql::InsertStatement& s,
                                    const std::vector<Value>& params) {
    plan::BindState state = NewBindState(params);
    plan::Binder binder(&state);
    QUIVER_ASSIGN_OR_RAISE(BoundQuery q, binder.BindInsert(s));
    return RunDml(std::move(q), &state, !s.returning.empty(), "INSERT 0 ");
  }

  Result<QueryResult> ExecuteUpdate(const sql::UpdateStatement& s,
                                    const std::vector<Value>& params) {
    plan::BindState state = NewBindState(params);
    plan::Binder binder(&state);
    QUIVER_ASSIGN_OR_RAISE(BoundQuery q, binder.BindUpdate(s));
    return RunDml(std::move(q), &state, !s.returning.empty(), "UPDATE ");
  }

  Result<QueryResult> ExecuteDelete(const sql::DeleteStatement& s,
                                    const std::vector<Value>& params) {
    plan::BindState state = NewBindState(params);
    plan::Binder binder(&state);
    QUIVER_ASSIGN_OR_RAISE(BoundQuery q, binder.BindDelete(s));
    return RunDml(std::move(q), &state, !s.returning.empty(), "DELETE ");
  }

  Result<QueryResult> ExecuteCreateTable(const sql::CreateTableStatement& s,
                                         const std::vector<Value>& params) {
    if (Cat()->Lookup(s.name) != nullptr) {
      if (s.if_not_exists) return Command("CREATE TABLE");
      return Status::Invalid("relation \"{}\" already exists", s.name)
          .WithSqlState(sqlstate::kDuplicateTable)
          .WithPosition(s.name_location);
    }
    if (s.as_select) {
      // An insert into a new table, added to the catalog once filled.
      plan::BindState state = NewBindState(params);
      plan::Binder binder(&state);
      std::shared_ptr<MemoryTable> table;
      QUIVER_ASSIGN_OR_RAISE(BoundQuery q, binder.BindCreateTableAs(s, &table));
      QUIVER_ASSIGN_OR_RAISE(const int64_t n, RunModification(std::move(q), &state));
      // Stored with its rows as one commit (catalog/table_store.h).
      if (db->options_.storage) QUIVER_RETURN_NOT_OK(db->options_.storage->CreateTable(table, {}));
      QUIVER_RETURN_NOT_OK(Cat()->CreateTable(s.name, table, false));
      return Command(fmt::format("SELECT {}", n), n);
    }
    if (!db->options_.informational_constraints && !s.unenforced_constraints.empty()) {
      const sql::UnenforcedConstraint& c = s.unenforced_constraints.front();
      return Status::Unsupported(
                 "{} constraints are not enforced yet; declare the table without them "
                 "(NOT NULL, PRIMARY KEY, UNIQUE and CHECK are enforced)",
                 c.kind)
          .WithPosition(c.location);
    }
    QUIVER_ASSIGN_OR_RAISE(std::shared_ptr<MemoryTable> table, MakeTableFromDefinition(s));
    {
      plan::BindState state = NewBindState(params);
      plan::Binder binder(&state);
      QUIVER_RETURN_NOT_OK(binder.CheckTableExpressions(*table));
    }
    // PARTITION BY is checked on every table; only a --db table's files are
    // laid out by it (a table in memory has no files to prune).
    TablePartitioning partitioning;
    if (const auto* p = dynamic_cast<const sql::PartitionedCreateTableStatement*>(&s)) {
      QUIVER_ASSIGN_OR_RAISE(partitioning, PartitioningOf(*p, *table->schema()));
    }
    if (db->options_.storage) {
      QUIVER_RETURN_NOT_OK(db->options_.storage->CreateTable(table, partitioning));
    }
    QUIVER_RETURN_NOT_OK(Cat()->CreateTable(s.name, table, false));
    return Command("CREATE TABLE");
  }

  // ALTER TABLE: a new table (engine/table_definition.h AlterTableDefinition)
  // takes the old one's place in the catalog, with its rows: the columns
  // kept as they are (no copy), or, for ADD COLUMN over rows, an insert of
  // the old rows with the new column's DEFAULT (evaluated per row, NOT NULL
  // and CHECK enforced as by INSERT). The old table is locked for writes
  // while its rows are read and the entry swapped. On a --db table the
  // storage commits a new Iceberg schema instead (DatabaseStorage::AlterTable):
  // nothing is rewritten, so ADD COLUMN takes no DEFAULT there.
  Result<QueryResult> ExecuteAlterTable(const sql::AlterTableStatement& statement,
                                        const std::vector<Value>& params) {
    const sql::AlterTableStatement* stmt = &statement;
    sql::AlterTableStatement without_default;
    const sql::ParsedExpr* d = statement.column.default_value.get();
    if (db->options_.storage && statement.action == sql::AlterTableStatement::kAddColumn &&
        d != nullptr && d->kind == sql::ExprKind::kConstant && d->literal == sql::LiteralKind::kNull) {
      // DEFAULT NULL is no default: what a --db table (no defaults) can hold.
      without_default = statement;
      without_default.column.default_value = nullptr;
      stmt = &without_default;
    }
    if (statement.action == sql::AlterTableStatement::kRenameTable &&
        statement.table.find('.') != std::string::npos) {
      // The new name is in the table's schema (PostgreSQL's RENAME TO).
      if (stmt != &without_default) without_default = statement;
      without_default.new_name =
          QualifiedName(SplitQualifiedName(statement.table).first, statement.new_name);
      stmt = &without_default;
    }
    const sql::AlterTableStatement& s = *stmt;
    auto entry = Cat()->Lookup(s.table);
    if (entry == nullptr) {
      if (s.if_exists) return Command("ALTER TABLE");
      return Status::KeyError("relation \"{}\" does not exist", s.table)
          .WithSqlState(sqlstate::kUndefinedTable)
          .WithPosition(s.table_location);
    }
    auto table = std::dynamic_pointer_cast<MemoryTable>(entry->table);
    if (table == nullptr) {
      return Status::Invalid("\"{}\" is not a table", s.table)
          .WithSqlState(sqlstate::kWrongObjectType)
          .WithPosition(s.table_location);
    }
    if (s.action == sql::AlterTableStatement::kRenameTable && Cat()->Lookup(s.new_name) != nullptr) {
      return Status::Invalid("relation \"{}\" already exists", s.new_name)
          .WithSqlState(sqlstate::kDuplicateTable);
    }
    std::vector<int> moved;
    QUIVER_ASSIGN_OR_RAISE(std::shared_ptr<MemoryTable> next, AlterTableDefinition(*table, s, &moved));
    if (next == nullptr) return Command("ALTER TABLE");
    {
      plan::BindState state = NewBindState(params);
      plan::Binder binder(&state);
      QUIVER_RETURN_NOT_OK(binder.CheckTableExpressions(*next));
    }
    auto lock = table->LockWrites();
    const TableVersionRef rows = table->version();
    const bool added = std::find(moved.begin(), moved.end(), -1) != moved.end();
    if (db->options_.storage) {
      // Iceberg schema evolution (storage/iceberg_database.h): no rows are
      // rewritten, so an added column reads NULL in every stored row.
      if (added && s.column.default_value != nullptr) {
        return Status::Unsupported("ADD COLUMN with a DEFAULT in a --db table")
            .WithSqlState(sqlstate::kFeatureNotSupported)
            .WithDetail("Iceberg v2 tables have no column defaults: stored rows read NULL in a "
                        "new column.")
            .WithHint("Add the column without DEFAULT, then UPDATE it.");
      }
      QUIVER_RETURN_NOT_OK(db->options_.storage->CheckTable(*next));
      if (added && rows->num_rows > 0 && !next->schema()->fields.back()->nullable) {
        return Status::Invalid("column \"{}\" of relation \"{}\" contains null values",
                               s.column.name, table->name())
            .WithSqlState(sqlstate::kNotNullViolation);
      }
      QUIVER_RETURN_NOT_OK(db->options_.storage->AlterTable(*table, next, moved));
    } else if (added && rows->num_rows > 0) {
      plan::BindState state = NewBindState(params);
      plan::Binder binder(&state);
      // The table's rows are `rows` while its writes are locked.
      QUIVER_ASSIGN_OR_RAISE(BoundQuery q, binder.BindTableRewrite(table, next, moved));
      auto n = RunModification(std::move(q), &state);
      if (!n.ok()) {
        if (n.status().sql_state() == std::string(sqlstate::kNotNullViolation)) {
          return Status::Invalid("column \"{}\" of relation \"{}\" contains null values",
                                 s.column.name, table->name())
              .WithSqlState(sqlstate::kNotNullViolation);
        }
        return n.status();
      }
    } else {
      std::vector<RecordBatchRef> batches;
      for (const RecordBatchRef& b : rows->batches) {
        std::vector<ArrayRef> cols;
        for (int c : moved) cols.push_back(b->column(c));
        batches.push_back(RecordBatch::Make(next->schema(), b->num_rows(), std::move(cols)));
      }
      QUIVER_RETURN_NOT_OK(next->Append(std::move(batches)));
    }
    if (s.action == sql::AlterTableStatement::kRenameTable) {
      QUIVER_RETURN_NOT_OK(Cat()->CreateTable(s.new_name, next, false));
      QUIVER_RETURN_NOT_OK(Cat()->Drop(s.table, false, false));
    } else {
      QUIVER_RETURN_NOT_OK(Cat()->CreateTable(s.table, next, true));
    }
    return Command("ALTER TABLE");
  }

  Result<QueryResult> ExecuteCreateView(const sql::CreateViewStatement& s) {
    // Bind once to report errors now rather than at first use.
    plan::BindState state;
    state.catalog = Cat();
    state.file_policy = CurrentFilePolicy();
    QUIVER_ASSIGN_OR_RAISE(BoundQuery q, BindSelect(*s.query, &state));
    if (s.columns.size() > q.names.size()) {
      return Status::Invalid("CREATE VIEW specifies more column names than columns")
          .WithSqlState(sqlstate::kSyntaxError);
    }
    if (db->options_.storage && (s.or_replace || Cat()->Lookup(s.name) == nullptr)) {
      // Stored first: a failure leaves no view anywhere. (A name already
      // taken without OR REPLACE is the catalog's error below.)
      std::vector<std::pair<std::string, TypeRef>> columns;
      for (size_t i = 0; i < q.names.size(); ++i) {
        columns.emplace_back(i < s.columns.size() ? s.columns[i] : q.names[i], q.types[i]);
      }
      QUIVER_RETURN_NOT_OK(
          db->options_.storage->CreateView(s.name, s.text, columns, s.or_replace));
    }
    auto view = std::make_shared<ViewDefinition>();
    view->name = s.name;
    view->columns = s.columns;
    view->query = s.query;
    view->text = s.text;
    QUIVER_RETURN_NOT_OK(
        Cat()->CreateView(std::move(view), s.or_replace).WithPosition(s.name_location));
    return Command("CREATE VIEW");
  }

  Result<QueryResult> ExecuteDrop(const sql::DropStatement& s) {
    if (s.object == sql::DropStatement::kIndex) {
      for (const auto& name : s.names)
        QUIVER_RETURN_NOT_OK(Cat()->DropIndex(name, s.if_exists));
      return Command("DROP INDEX");
    }
    if (s.object == sql::DropStatement::kOther)
      return Status::Unsupported("DROP of this kind of object");
    if (s.object == sql::DropStatement::kForeignTable) {
      for (const auto& name : s.names) {
        QUIVER_RETURN_NOT_OK(DropForeignTable(name, s.if_exists, Cat()));
      }
      return Command("DROP FOREIGN TABLE");
    }
    if (s.object == sql::DropStatement::kTable) {
      for (const auto& name : s.names) QUIVER_RETURN_NOT_OK(CheckNotForeign(name, Cat()));
    }
    const bool view = s.object == sql::DropStatement::kView;
    for (const auto& name : s.names) {
      if (view && db->options_.storage) {
        auto entry = Cat()->Lookup(name);
        if (entry != nullptr && entry->view != nullptr) {
          QUIVER_RETURN_NOT_OK(db->options_.storage->DropView(entry->view->name));
        }
      }
      if (!view && db->options_.storage) {
        // The stored catalog's row goes first: a failure there leaves the
        // table in place everywhere.
        auto entry = Cat()->Lookup(name);
        auto table = entry ? std::dynamic_pointer_cast<MemoryTable>(entry->table) : nullptr;
        if (table != nullptr && table->store() != nullptr) {
          QUIVER_RETURN_NOT_OK(db->options_.storage->DropTable(table->name()));
        }
      }
      QUIVER_RETURN_NOT_OK(Cat()->Drop(name, view, s.if_exists));
    }
    return Command(view ? "DROP VIEW" : "DROP TABLE");
  }

  Result<QueryResult> ExecuteCopy(const sql::CopyStatement& s, const std::vector<Value>& params) {
    // Options are checked (copy_options.h) before anything is read or written.
    QUIVER_ASSIGN_OR_RAISE(CopyOptions copy, ParseCopyOptions(s.options, s.file, s.is_from));
    if (s.file.empty()) return Status::Unsupported("COPY to or from STDIN/STDOUT");
    if (s.is_from) {
      // COPY table FROM 'file'
      auto entry = Cat()->Lookup(s.table);
      if (entry == nullptr)
        return Status::KeyError("relation \"{}\" does not exist", s.table)
            .WithSqlState(sqlstate::kUndefinedTable);
      auto table = std::dynamic_pointer_cast<MemoryTable>(entry->table);
      if (table == nullptr)
        return Status::Invalid("cannot COPY into \"{}\"", s.table)
            .WithSqlState(sqlstate::kWrongObjectType);
      FileTableOptions options;
      options.format = copy.format;
      options.csv = copy.read;
      // CSV columns are the table's, by position (a header row is skipped), and
      // their types come from the table: no inference.
      for (const auto& f : table->schema()->fields) {
        options.csv.read.column_names.push_back(f->name);
        options.csv.convert.column_types.emplace_back(f->name, f->type);
      }
      QUIVER_RETURN_NOT_OK(CheckFile(s.file));
      if (CurrentFilePolicy() != nullptr) {
        QUIVER_ASSIGN_OR_RAISE(std::vector<std::string> paths, ExpandPaths(s.file));
        for (const std::string& p : paths) QUIVER_RETURN_NOT_OK(CheckFile(p));
      }
      QUIVER_ASSIGN_OR_RAISE(auto files, FileTable::Open(s.file, s.file, options));
      // An insert of the file's rows, like INSERT's (planner/bind_dml.cc).
      plan::BindState state = NewBindState(params);
      plan::Binder binder(&state);
      QUIVER_ASSIGN_OR_RAISE(BoundQuery q, binder.BindCopyFrom(table, files, s.file));
      QUIVER_ASSIGN_OR_RAISE(const int64_t n, RunModification(std::move(q), &state));
      return Command(fmt::format("COPY {}", n), n);
    }
    // COPY (query) TO / COPY table TO.
    std::shared_ptr<sql::SelectNode> node = s.query;
    if (!node) {
      node = std::make_shared<sql::SelectNode>();
      auto ref = std::make_unique<sql::TableRef>();
      ref->kind = sql::TableRef::kTable;
      ref->name = s.table;
      node->from.push_back(std::move(ref));
      if (s.columns.empty()) {
        node->targets.push_back(std::make_unique<sql::ParsedExpr>(sql::ExprKind::kStar));
        node->target_aliases.push_back("");
      } else {
        for (const auto& c : s.columns) {
          auto col = std::make_unique<sql::ParsedExpr>(sql::ExprKind::kColumnRef);
          col->names = {c};
          node->targets.push_back(std::move(col));
          node->target_aliases.push_back("");
        }
      }
    }
    plan::BindState state;
    state.catalog = Cat();
    state.file_policy = CurrentFilePolicy();
    state.parameters = params;
    QUIVER_ASSIGN_OR_RAISE(BoundQuery q, BindSelect(*node, &state));
    QUIVER_RETURN_NOT_OK(CheckFile(s.file));
    if (copy.stats) {
      // STATS names output columns; none named: all of them.
      for (size_t i = 0; i < q.names.size() && copy.stats_columns.empty(); ++i) {
        copy.write.stats_columns.push_back(static_cast<int>(i));
      }
      for (const std::string& name : copy.stats_columns) {
        const auto it = std::find(q.names.begin(), q.names.end(), name);
        if (it == q.names.end())
          return Status::KeyError("column \"{}\" of COPY's STATS is not in the query's output", name)
              .WithSqlState(sqlstate::kUndefinedColumn);
        copy.write.stats_columns.push_back(static_cast<int>(it - q.names.begin()));
      }
    }
    std::vector<int> partition_columns;
    for (const std::string& name : copy.partition_by) {
      const auto it = std::find(q.names.begin(), q.names.end(), name);
      if (it == q.names.end())
        return Status::KeyError("column \"{}\" of COPY's PARTITION_BY is not in the query's output", name)
            .WithSqlState(sqlstate::kUndefinedColumn);
      const TypeRef& type = q.types[it - q.names.begin()];
      if (!ValueHolds(*type))
        return Status::Unsupported("COPY ... PARTITION_BY on column \"{}\" of type {}", name,
                                   PgTypeName(*type));
      partition_columns.push_back(static_cast<int>(it - q.names.begin()));
    }
    if (!partition_columns.empty() && partition_columns.size() == q.names.size())
      return Status::Invalid(
                 "COPY ... PARTITION_BY names every column of the query; no column would be left "
                 "to write into the files")
          .WithSqlState(sqlstate::kInvalidParameterValue);
    if (!partition_columns.empty()) QUIVER_RETURN_NOT_OK(CheckPartitionDirectory(s.file, copy));
    QUIVER_ASSIGN_OR_RAISE(QueryResult r, RunQuery(std::move(q), &state, false));
    if (!partition_columns.empty()) {
      QUIVER_RETURN_NOT_OK(
          WriteHivePartitions(s.file, copy, r.schema, r.batches, partition_columns).status());
      const int64_t n = r.num_rows();
      return Command(fmt::format("COPY {}", n), n);
    }
    QUIVER_ASSIGN_OR_RAISE(auto file, AtomicFile::Create(s.file));
    QUIVER_ASSIGN_OR_RAISE(auto writer, formats::MakeTableWriter(copy.format, s.file, file.get(),
                                                                 r.schema, copy.write));
    if (copy.format == formats::FileFormat::kIpcFile || copy.format == formats::FileFormat::kIpcStream) {
      const int64_t rows = copy.batch_rows > 0 ? copy.batch_rows : kDefaultArrowBatchRows;
      QUIVER_RETURN_NOT_OK(WriteInBatchesOf(rows, r.schema, r.batches, writer.get()));
    } else {
      for (const auto& b : r.batches) QUIVER_RETURN_NOT_OK(writer->Write(*b));
    }
    QUIVER_RETURN_NOT_OK(writer->Close());
    QUIVER_RETURN_NOT_OK(file->Commit());
    const int64_t n = r.num_rows();
    return Command(fmt::format("COPY {}", n), n);
  }

  Result<QueryResult> ExecuteTruncate(const sql::TruncateStatement& s) {
    // Every table is checked before any is emptied.
    std::vector<std::shared_ptr<MemoryTable>> tables;
    for (size_t i = 0; i < s.tables.size(); ++i) {
      plan::BindState state = NewBindState({});
      auto entry = Cat()->Lookup(s.tables[i]);
      if (entry == nullptr) {
        return Status::KeyError("relation \"{}\" does not exist", s.tables[i])
            .WithSqlState(sqlstate::kUndefinedTable)
            .WithPosition(s.locations[i]);
      }
      auto table = std::dynamic_pointer_cast<MemoryTable>(entry->table);
      if (table == nullptr) {
        return Status::Invalid("\"{}\" is not a table", s.tables[i])
            .WithSqlState(sqlstate::kWrongObjectType)
            .WithPosition(s.locations[i]);
      }
      tables.push_back(std::move(table));
    }
    for (const auto& t : tables) {
      QUIVER_RETURN_NOT_OK(t->Commit([](const TableVersionRef&, std::shared_ptr<void>*) {
        return Result<TableVersionRef>(std::make_shared<const TableVersion>());
      }));
    }
    return Command("TRUNCATE TABLE");
  }

  // VACUUM [t, ...] (no table: every table): a --db table's small data
  // files compacted in one commit and the files no snapshot refers to
  // removed (TableStore::Vacuum); a memory table has nothing to reclaim.
  Result<QueryResult> ExecuteVacuum(const sql::VacuumStatement& s) {
    std::vector<std::shared_ptr<MemoryTable>> tables;
    const bool all = s.tables.empty();
    const std::vector<std::string> names = all ? Cat()->TableNames() : s.tables;
    for (size_t i = 0; i < names.size(); ++i) {
      const int location = all ? -1 : s.locations[i];
      auto entry = Cat()->Lookup(names[i]);
      if (entry == nullptr) {
        return Status::KeyError("relation \"{}\" does not exist", names[i])
            .WithSqlState(sqlstate::kUndefinedTable)
            .WithPosition(location);
      }
      auto table = std::dynamic_pointer_cast<MemoryTable>(entry->table);
      if (table == nullptr) {
        if (all) continue;
        return Status::Invalid("\"{}\" is not a table", names[i])
            .WithSqlState(sqlstate::kWrongObjectType)
            .WithPosition(location);
      }
      tables.push_back(std::move(table));
    }
    std::vector<std::pair<std::string, MaintenanceCounts>> done;
    for (const auto& t : tables) {
      const std::shared_ptr<TableStore>& store = t->store();
      if (store == nullptr) continue;
      MaintenanceCounts counts;
      Status st = t->Maintain(
          [&](const TableVersionRef& current) { return store->Vacuum(current, &counts); });
      if (!st.ok()) return st.WithContext(fmt::format("VACUUM of \"{}\"", t->name()));
      done.emplace_back(t->name(), counts);
    }
    return MaintenanceResult(true, done);
  }

  // CALL expire_snapshots('t', older_than => timestamptz [, retain_last => n]).
  Result<QueryResult> ExecuteCall(sql::CallStatement& s, const std::vector<Value>& params) {
    const int at = s.call->location;
    if (s.name != "expire_snapshots") {
      return Status::Invalid("procedure {}() does not exist", s.name)
          .WithSqlState(sqlstate::kUndefinedFunction)
          .WithPosition(at)
          .WithHint("Quiver's procedure: expire_snapshots('table', older_than => timestamptz "
                    "[, retain_last => n]).");
    }
    // The arguments, evaluated as a select list (constants, now() - interval ...).
    std::vector<Value> values;
    if (!s.call->children.empty()) {
      auto select = std::make_shared<sql::SelectNode>();
      for (auto& c : s.call->children) {
        select->targets.push_back(std::move(c));
        select->target_aliases.push_back("");
      }
      sql::SelectStatement stmt;
      stmt.select = select;
      auto r = ExecuteSelect(stmt, params);
      for (size_t i = 0; i < select->targets.size(); ++i) {
        s.call->children[i] = std::move(select->targets[i]);
      }
      QUIVER_RETURN_NOT_OK(r.status());
      if (r->num_rows() != 1) {
        return Status::UnknownError("internal error: CALL arguments gave {} rows", r->num_rows());
      }
      values = r->Row(0);
    }
    auto bad = [&](const std::string& what) {
      return Status::Invalid("expire_snapshots: {}", what)
          .WithSqlState(sqlstate::kInvalidParameterValue)
          .WithPosition(at)
          .WithHint("expire_snapshots('table', older_than => timestamptz [, retain_last => n])");
    };
    std::optional<std::string> table_name;
    std::optional<int64_t> older_than_ms;
    int64_t retain_last = 1;
    for (size_t i = 0; i < values.size(); ++i) {
      const std::string name = i < s.call->arg_names.size() ? s.call->arg_names[i] : "";
      const Value& v = values[i];
      if (v.is_null()) return bad(fmt::format("argument {} is null", name.empty() ? "1" : name));
      if (name.empty() || name == "table") {
        if ((name.empty() && i != 0) || table_name.has_value()) {
          return bad("one positional argument, the table; the others by name");
        }
        table_name = v.ToString();
      } else if (name == "older_than") {
        auto c = CastValue(v, timestamp(TimeUnit::kMicro, "UTC"));
        if (!c.ok()) return c.status().WithContext("expire_snapshots older_than (a timestamp)");
        older_than_ms = FloorDiv(c->integer(), 1000);
      } else if (name == "retain_last") {
        auto c = CastValue(v, int64());
        if (!c.ok()) return c.status().WithContext("expire_snapshots retain_last (an integer)");
        if (c->integer() < 1) return bad("retain_last must be at least 1");
        retain_last = c->integer();
      } else {
        return bad(fmt::format("no argument \"{}\" (arguments: table, older_than, retain_last)", name));
      }
    }
    if (!table_name.has_value()) return bad("the table is missing");
    if (!older_than_ms.has_value()) return bad("older_than => timestamptz is missing");
    auto entry = Cat()->Lookup(*table_name);
    if (entry == nullptr) {
      return Status::KeyError("relation \"{}\" does not exist", *table_name)
          .WithSqlState(sqlstate::kUndefinedTable)
          .WithPosition(at);
    }
    auto table = std::dynamic_pointer_cast<MemoryTable>(entry->table);
    if (table == nullptr || table->store() == nullptr) {
      return Status::Invalid("\"{}\" is not a table of a --db database (only those have snapshots)",
                             *table_name)
          .WithSqlState(sqlstate::kWrongObjectType)
          .WithPosition(at);
    }
    const std::shared_ptr<TableStore>& store = table->store();
    MaintenanceCounts counts;
    QUIVER_RETURN_NOT_OK(table->Maintain([&](const TableVersionRef& current) {
      return store->ExpireSnapshots(current, *older_than_ms, retain_last, &counts);
    }));
    return MaintenanceResult(false, {{table->name(), counts}});
  }

  // BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE, ROLLBACK TO, with
  // PostgreSQL's answers (a WARNING where PostgreSQL only warns is silent).
  Result<QueryResult> ExecuteTransaction(const sql::TransactionStatement& t, Session* session,
                                         const StatementOptions& options) {
    std::shared_ptr<Transaction> txn = session->transaction();
    if (!options.transaction_blocks) {
      return Status::Unsupported(
                 "transaction blocks (BEGIN, COMMIT, ROLLBACK, SAVEPOINT) over this "
                 "connection: each statement commits on its own")
          .WithSqlState(sqlstate::kFeatureNotSupported);
    }
    if (t.what == "begin" && db->options_.storage) {
      return Status::Unsupported(
                 "transaction blocks (BEGIN ... COMMIT) in a --db database: each statement "
                 "commits on its own")
          .WithSqlState(sqlstate::kFeatureNotSupported);
    }
    if (t.what == "begin") {
      // Inside a block PostgreSQL warns "there is already a transaction in
      // progress" and goes on; an aborted block refuses it.
      if (txn != nullptr && txn->aborted()) return AbortedError();
      if (txn == nullptr) session->set_transaction(std::make_shared<Transaction>(&db->catalog_));
      return Command("BEGIN");
    }
    if (t.what == "commit") {
      if (txn == nullptr) return Command("COMMIT");  // PostgreSQL: a WARNING
      session->set_transaction(nullptr);
      if (txn->aborted()) return Command("ROLLBACK");
      QUIVER_RETURN_NOT_OK(txn->Commit());
      return Command("COMMIT");
    }
    if (t.what == "rollback") {
      session->set_transaction(nullptr);
      return Command("ROLLBACK");
    }
    // Savepoints.
    if (txn == nullptr) {
      const char* what = t.what == "savepoint" ? "SAVEPOINT"
                         : t.what == "release" ? "RELEASE SAVEPOINT"
                                               : "ROLLBACK TO SAVEPOINT";
      return Status::Invalid("{} can only be used in transaction blocks", what)
          .WithSqlState(sqlstate::kNoActiveSqlTransaction);
    }
    if (t.what == "rollback_to") {
      QUIVER_RETURN_NOT_OK(txn->RollbackTo(t.savepoint));
      return Command("ROLLBACK");
    }
    if (txn->aborted()) return AbortedError();
    if (t.what == "savepoint") {
      QUIVER_RETURN_NOT_OK(txn->Savepoint(t.savepoint));
    } else {
      QUIVER_RETURN_NOT_OK(txn->Release(t.savepoint));
    }
    return Command(t.what == "savepoint" ? "SAVEPOINT" : "RELEASE");
  }

  static Status AbortedError() {
    return Status::Invalid(
               "current transaction is aborted, commands ignored until end of transaction block")
        .WithSqlState("25P02");  // in_failed_sql_transaction
  }

  // The transaction `stmt` runs in (null: autocommit), after the checks a
  // transaction block makes: an aborted block refuses it, and the tables it
  // writes are made private.
  Result<std::shared_ptr<Transaction>> EnterTransaction(const sql::Statement& stmt,
                                                        Session* session) {
    std::shared_ptr<Transaction> txn = session->transaction();
    if (txn == nullptr) return txn;
    if (txn->aborted()) return AbortedError();
    for (const std::string& name : WrittenTables(stmt)) {
      Status st = txn->PrepareWrite(name);
      if (!st.ok()) {
        txn->set_aborted(true);
        return st;
      }
    }
    return txn;
  }

  // A statement that failed before it ran (syntax) still aborts the
  // session's transaction block, as in PostgreSQL.
  static void AbortOnError(Session* session) {
    if (auto txn = session->transaction()) txn->set_aborted(true);
  }

  Session* SessionOf(const StatementOptions& options) {
    return options.session != nullptr ? options.session.get() : default_session.get();
  }

  // What a --db database cannot keep yet is refused rather than held in
  // memory and lost at exit. Every kind is listed (no default): a new kind
  // of statement must say here whether its effect reaches the storage
  // (catalog/table_store.h) before it runs on a --db database.
  static Status CheckStorable(const sql::Statement& stmt) {
    switch (stmt.kind) {
      case sql::StatementKind::kSelect:
      case sql::StatementKind::kExplain:
      case sql::StatementKind::kSet:
      case sql::StatementKind::kNoOp:
      case sql::StatementKind::kTransaction:  // BEGIN is refused in ExecuteTransaction
      case sql::StatementKind::kCreateIndex:  // builds nothing
        return Status::OK();
      // Through MemoryTable::Commit and DatabaseStorage.
      case sql::StatementKind::kInsert:
      case sql::StatementKind::kUpdate:
      case sql::StatementKind::kDelete:
      case sql::StatementKind::kCopy:
      case sql::StatementKind::kTruncate:
      case sql::StatementKind::kCreateView:
      case sql::StatementKind::kDrop:
      case sql::StatementKind::kVacuum:  // TableStore::Vacuum
      case sql::StatementKind::kCall:    // TableStore::ExpireSnapshots
        return Status::OK();
      case sql::StatementKind::kCreateTable:
        // A temporary table would be written to disk like any other: its
        // TEMP would be ignored.
        if (static_cast<const sql::CreateTableStatement&>(stmt).temporary) {
          return Status::Unsupported("CREATE TEMPORARY TABLE in a --db database")
              .WithSqlState(sqlstate::kFeatureNotSupported)
              .WithHint("Create it in a session without --db, or as an ordinary table.");
        }
        return Status::OK();
      case sql::StatementKind::kAlterTable:  // DatabaseStorage::AlterTable
        return Status::OK();
      case sql::StatementKind::kCreateForeignTable:
      case sql::StatementKind::kImportForeignSchema:
      case sql::StatementKind::kAlterForeignTable:
        break;
    }
    return Status::Unsupported("foreign tables in a --db database: not stored yet")
        .WithSqlState(sqlstate::kFeatureNotSupported);
  }

  // One statement in its session: transaction statements, or any other in
  // the session's transaction block (whose failure aborts the block).
  Result<QueryResult> RunStatement(sql::Statement& stmt, const std::vector<Value>& params,
                                   const StatementOptions& options) {
    Session* session = SessionOf(options);
    if (stmt.kind == sql::StatementKind::kTransaction) {
      auto r = ExecuteTransaction(static_cast<sql::TransactionStatement&>(stmt), session, options);
      // A failed ROLLBACK TO / RELEASE / SAVEPOINT aborts the block too.
      if (!r.ok()) AbortOnError(session);
      return r;
    }
    QUIVER_ASSIGN_OR_RAISE(std::shared_ptr<Transaction> txn, EnterTransaction(stmt, session));
    if (txn == nullptr) return ExecuteStatement(stmt, params);
    CatalogScope scope(txn->catalog());
    auto r = ExecuteStatement(stmt, params);
    if (!r.ok()) txn->set_aborted(true);
    return r;
  }

  // 3F000 for DDL naming a relation "s.t" of a schema that does not exist,
  // as PostgreSQL's (statements that read or write rows find no relation
  // "s.t" instead: 42P01). IF EXISTS forms are left to skip the name.
  Status CheckSchemas(const sql::Statement& stmt) {
    std::vector<std::string> names;
    switch (stmt.kind) {
      case sql::StatementKind::kCreateTable:
        names.push_back(static_cast<const sql::CreateTableStatement&>(stmt).name);
        break;
      case sql::StatementKind::kCreateView:
        names.push_back(static_cast<const sql::CreateViewStatement&>(stmt).name);
        break;
      case sql::StatementKind::kCreateIndex:
        names.push_back(static_cast<const sql::CreateIndexStatement&>(stmt).table);
        break;
      case sql::StatementKind::kDrop: {
        const auto& d = static_cast<const sql::DropStatement&>(stmt);
        if (!d.if_exists) names = d.names;
        break;
      }
      case sql::StatementKind::kAlterTable: {
        const auto& a = static_cast<const sql::AlterTableStatement&>(stmt);
        if (!a.if_exists) names.push_back(a.table);
        break;
      }
      case sql::StatementKind::kTruncate:
        names = static_cast<const sql::TruncateStatement&>(stmt).tables;
        break;
      case sql::StatementKind::kCopy:
        names.push_back(static_cast<const sql::CopyStatement&>(stmt).table);
        break;
      default:
        break;
    }
    for (const std::string& name : names) {
      if (name.find('.') == std::string::npos) continue;
      const std::string schema = SplitQualifiedName(name).first;
      if (!Cat()->HasSchema(schema)) {
        return Status::KeyError("schema \"{}\" does not exist", schema)
            .WithSqlState(sqlstate::kInvalidSchemaName);
      }
    }
    return Status::OK();
  }

  // CREATE SCHEMA / DROP SCHEMA (NoOpStatements with those tags; see
  // sql/transform_statement.cc). On a --db database a schema is an Iceberg
  // namespace, stored first: a failure there changes nothing.
  Result<QueryResult> ExecuteSchemaStatement(const sql::NoOpStatement& s) {
    const std::string& name = s.object;
    if (s.tag == "CREATE SCHEMA") {
      if (name.rfind("pg_", 0) == 0) {
        return Status::Invalid("unacceptable schema name \"{}\"", name)
            .WithSqlState("42939")  // reserved_name
            .WithDetail("The prefix \"pg_\" is reserved for system schemas.");
      }
      if (name.find('.') != std::string::npos) {
        return Status::Unsupported("a schema name holding a dot (\"{}\")", name)
            .WithSqlState(sqlstate::kFeatureNotSupported);
      }
      if (Cat()->HasSchema(name)) {
        if (s.if_not_exists) return Command("CREATE SCHEMA");
        return Status::Invalid("schema \"{}\" already exists", name).WithSqlState("42P06");
      }
      if (db->options_.storage) QUIVER_RETURN_NOT_OK(db->options_.storage->CreateSchema(name));
      QUIVER_RETURN_NOT_OK(Cat()->CreateSchema(name, s.if_not_exists));
      return Command("CREATE SCHEMA");
    }
    const bool cascade = s.wrapper == "CASCADE";
    const std::vector<std::string> inside = Cat()->NamesInSchema(name);
    const bool exists = Cat()->HasSchema(name) && !IsBuiltinSchema(name);
    if (db->options_.storage && exists && (cascade || inside.empty())) {
      QUIVER_RETURN_NOT_OK(db->options_.storage->DropSchema(name));
    }
    QUIVER_RETURN_NOT_OK(Cat()->DropSchema(name, s.if_not_exists, cascade));
    return Command("DROP SCHEMA");
  }

  // SET search_path: only public (and pg_catalog, "$user") is searched, so
  // another schema there is refused rather than ignored.
  static Status CheckSet(const sql::SetStatement& s) {
    if (s.name != "search_path") return Status::OK();
    std::string item;
    std::vector<std::string> items;
    for (char c : s.value + ",") {
      if (c == ',') {
        items.push_back(item);
        item.clear();
      } else if (c != ' ' && c != '"' && c != '\'') {
        item.push_back(c);
      }
    }
    for (const std::string& i : items) {
      if (i == "public" || i == "pg_catalog" || i == "$user" || i.empty()) continue;
      return Status::Unsupported("SET search_path to schema \"{}\": names outside public must be qualified",
                                 i)
          .WithSqlState(sqlstate::kFeatureNotSupported)
          .WithHint("Write s.t for a table of schema s.");
    }
    return Status::OK();
  }

  Result<QueryResult> ExecuteStatement(sql::Statement& stmt, const std::vector<Value>& params) {
    if (db->options_.storage) QUIVER_RETURN_NOT_OK(CheckStorable(stmt));
    QUIVER_RETURN_NOT_OK(CheckSchemas(stmt));
    switch (stmt.kind) {
      case sql::StatementKind::kSelect:
        return ExecuteSelect(static_cast<sql::SelectStatement&>(stmt), params);
      case sql::StatementKind::kExplain:
        return ExecuteExplain(static_cast<sql::ExplainStatement&>(stmt), params);
      case sql::StatementKind::kInsert:
        return ExecuteInsert(static_cast<sql::InsertStatement&>(stmt), params);
      case sql::StatementKind::kCreateTable:
        return ExecuteCreateTable(static_cast<sql::CreateTableStatement&>(stmt), params);
      case sql::StatementKind::kCreateView:
        return ExecuteCreateView(static_cast<sql::CreateViewStatement&>(stmt));
      case sql::StatementKind::kDrop:
        return ExecuteDrop(static_cast<sql::DropStatement&>(stmt));
      case sql::StatementKind::kCopy:
        return ExecuteCopy(static_cast<sql::CopyStatement&>(stmt), params);
      case sql::StatementKind::kSet:
        QUIVER_RETURN_NOT_OK(CheckSet(static_cast<const sql::SetStatement&>(stmt)));
        return Command("SET");
      case sql::StatementKind::kTransaction:
        return Status::UnknownError("internal error: transaction statements run in RunStatement");
      case sql::StatementKind::kTruncate:
        return ExecuteTruncate(static_cast<sql::TruncateStatement&>(stmt));
      case sql::StatementKind::kVacuum:
        return ExecuteVacuum(static_cast<sql::VacuumStatement&>(stmt));
      case sql::StatementKind::kCall:
        return ExecuteCall(static_cast<sql::CallStatement&>(stmt), params);
      case sql::StatementKind::kCreateIndex: {
        const auto& c = static_cast<sql::CreateIndexStatement&>(stmt);
        QUIVER_RETURN_NOT_OK(Cat()->CreateIndex(c.name, c.table, c.if_not_exists)
                                 .WithPosition(c.table_location));
        return Command("CREATE INDEX");
      }
      case sql::StatementKind::kUpdate:
        return ExecuteUpdate(static_cast<sql::UpdateStatement&>(stmt), params);
      case sql::StatementKind::kDelete:
        return ExecuteDelete(static_cast<sql::DeleteStatement&>(stmt), params);
      case sql::StatementKind::kCreateForeignTable: {
        QUIVER_ASSIGN_OR_RAISE(std::string tag,
                               ExecuteCreateForeignTable(static_cast<sql::CreateForeignTableStatement&>(stmt),
                                                         Cat(), CheckFile));
        return Command(std::move(tag));
      }
      case sql::StatementKind::kImportForeignSchema: {
        QUIVER_ASSIGN_OR_RAISE(std::string tag,
                               ExecuteImportForeignSchema(static_cast<sql::ImportForeignSchemaStatement&>(stmt),
                                                          Cat(), CheckFile));
        return Command(std::move(tag));
      }
      case sql::StatementKind::kAlterForeignTable: {
        QUIVER_ASSIGN_OR_RAISE(std::string tag,
                               ExecuteAlterForeignTable(static_cast<sql::AlterForeignTableStatement&>(stmt),
                                                        Cat(), CheckFile));
        return Command(std::move(tag));
      }
      case sql::StatementKind::kNoOp: {
        const auto& noop = static_cast<sql::NoOpStatement&>(stmt);
        if (noop.tag == "CREATE SCHEMA" || noop.tag == "DROP SCHEMA") return ExecuteSchemaStatement(noop);
        QUIVER_ASSIGN_OR_RAISE(std::string tag, ExecuteForeignNoOp(noop));
        return Command(std::move(tag));
      }
      case sql::StatementKind::kAlterTable:
        return ExecuteAlterTable(static_cast<sql::AlterTableStatement&>(stmt), params);
    }
    return Status::Unsupported("this statement");
  }
};

Database::Database(DatabaseOptions options) : impl_(std::make_unique<Impl>()), options_(options) {
  impl_->db = this;
  memory_limit_ = options.memory_limit >= 0 ? options.memory_limit : DefaultMemoryLimit();
}

Database::~Database() = default;

Result<std::vector<QueryResult>> Database::ExecuteScript(const std::string& sql,
                                                         const std::vector<Value>& params) {
  auto parsed = sql::Parse(sql);
  if (!parsed.ok()) {
    impl_->AbortOnError(impl_->default_session.get());
    return parsed.status();
  }
  std::vector<QueryResult> results;
  static const StatementOptions kDefaults;
  for (auto& stmt : *parsed) {
    auto r = impl_->RunStatement(*stmt, params, kDefaults);
    // Node locations, and so error positions, are offsets into `sql`.
    if (!r.ok()) return r.status();
    results.push_back(std::move(r).ValueOrDie());
  }
  return results;
}

Result<std::unique_ptr<QueryStream>> Database::ExecuteStream(const std::string& sql,
                                                             const std::vector<Value>& params,
                                                             const StatementOptions& options) {
  auto parsed = sql::Parse(sql);
  if (parsed.ok() && parsed->size() != 1) {
    parsed = Status::Invalid("expected one statement, got {}", parsed->size())
                 .WithSqlState(sqlstate::kSyntaxError);
  }
  if (!parsed.ok()) {
    impl_->AbortOnError(impl_->SessionOf(options));
    return parsed.status();
  }
  sql::Statement& stmt = *(*parsed)[0];
  QUIVER_RETURN_NOT_OK(CheckReadOnly(stmt, options));
  StatementOptionsScope scope(&options);
  if (stmt.kind == sql::StatementKind::kSelect) {
    QUIVER_ASSIGN_OR_RAISE(std::shared_ptr<Transaction> txn,
                           impl_->EnterTransaction(stmt, impl_->SessionOf(options)));
    CatalogScope catalog_scope(txn != nullptr ? txn->catalog() : &catalog_);
    plan::BindState state;
    state.catalog = impl_->Cat();
    state.parameters = params;
    state.file_policy = options.file_policy.get();
    auto q = impl_->BindSelect(*static_cast<sql::SelectStatement&>(stmt).select, &state);
    Result<std::unique_ptr<QueryStream>> stream =
        q.ok() ? impl_->StartQuery(std::move(q).ValueOrDie(), &state, options, txn)
               : Result<std::unique_ptr<QueryStream>>(q.status());
    if (txn != nullptr && !stream.ok()) txn->set_aborted(true);
    return stream;
  }
  // Commands (and EXPLAIN) run now; their stream hands out what they return.
  QUIVER_ASSIGN_OR_RAISE(QueryResult r, impl_->RunStatement(stmt, params, options));
  auto st = std::make_unique<QueryStream::State>();
  st->has_rows = r.has_rows;
  st->schema = r.has_rows && r.schema ? r.schema : std::make_shared<Schema>();
  st->batches = std::move(r.batches);
  st->command_tag = std::move(r.command_tag);
  st->rows_affected = r.rows_affected;
  return std::make_unique<QueryStream>(std::move(st));
}

Result<std::shared_ptr<PreparedStatement>> Database::Prepare(const std::string& sql,
                                                             const StatementOptions& options) {
  QUIVER_ASSIGN_OR_RAISE(auto parsed, sql::Parse(sql));
  if (parsed.size() != 1)
    return Status::Invalid("expected one statement, got {}", parsed.size())
        .WithSqlState(sqlstate::kSyntaxError);
  const sql::Statement& stmt = *parsed[0];
  auto p = std::make_shared<PreparedStatement>();
  p->db_ = this;
  p->sql_ = sql;
  p->num_parameters_ = MaxParameterIndex(sql);
  p->schema_ = std::make_shared<Schema>();
  p->returns_rows_ =
      stmt.kind == sql::StatementKind::kSelect || stmt.kind == sql::StatementKind::kExplain;
  if (stmt.kind == sql::StatementKind::kSelect) {
    // Bound once for the result's columns (and the errors binding finds);
    // parameters are untyped NULLs until values come.
    std::shared_ptr<Transaction> txn = impl_->SessionOf(options)->transaction();
    CatalogScope catalog_scope(txn != nullptr ? txn->catalog() : &catalog_);
    plan::BindState state;
    state.catalog = impl_->Cat();
    state.parameters.assign(static_cast<size_t>(p->num_parameters_), Value::Null(null()));
    state.file_policy = options.file_policy.get();
    QUIVER_ASSIGN_OR_RAISE(
        BoundQuery q,
        impl_->BindSelect(*static_cast<const sql::SelectStatement&>(stmt).select, &state));
    std::vector<FieldRef> fields;
    for (size_t i = 0; i < q.names.size(); ++i) {
      fields.push_back(
          field(q.names[i], q.types[i]->id == TypeId::kNull ? utf8() : q.types[i]));
    }
    p->schema_ = schema(std::move(fields));
    p->partitionable_ = IsPartitionableScan(*q.plan);
  } else if (stmt.kind == sql::StatementKind::kExplain) {
    p->schema_ = schema({field("QUERY PLAN", utf8(), false)});
  } else if (stmt.kind == sql::StatementKind::kVacuum || stmt.kind == sql::StatementKind::kCall) {
    p->returns_rows_ = true;
    p->schema_ = Impl::MaintenanceSchema(stmt.kind == sql::StatementKind::kVacuum);
  } else if (sql::ReturnsRows(stmt)) {
    // INSERT / UPDATE / DELETE ... RETURNING: bound (nothing runs) for the
    // result's columns.
    p->returns_rows_ = true;
    std::shared_ptr<Transaction> txn = impl_->SessionOf(options)->transaction();
    CatalogScope catalog_scope(txn != nullptr ? txn->catalog() : &catalog_);
    plan::BindState state;
    state.catalog = impl_->Cat();
    state.parameters.assign(static_cast<size_t>(p->num_parameters_), Value::Null(null()));
    state.file_policy = options.file_policy.get();
    QUIVER_ASSIGN_OR_RAISE(BoundQuery q, impl_->BindExplained(stmt, &state));
    std::vector<FieldRef> fields;
    for (size_t i = 0; i < q.names.size(); ++i) {
      fields.push_back(
          field(q.names[i], q.types[i]->id == TypeId::kNull ? utf8() : q.types[i]));
    }
    p->schema_ = schema(std::move(fields));
  }
  return p;
}

Result<std::unique_ptr<QueryStream>> PreparedStatement::Execute(
    const std::vector<Value>& params, const StatementOptions& options) const {
  // Parsed again: cheap, and concurrent executions share no AST.
  return db_->ExecuteStream(sql_, params, options);
}

std::shared_ptr<Session> Database::NewSession() { return std::make_shared<Session>(); }

int MaxParameterIndex(std::string_view sql) {
  int max = 0;
  size_t i = 0;
  const size_t n = sql.size();
  while (i < n) {
    const char c = sql[i];
    if (c == '\'' || c == '"') {
      const char q = c;
      for (++i; i < n; ++i) {
        if (sql[i] == q) {
          if (i + 1 < n && sql[i + 1] == q) {
            ++i;
            continue;
          }
          break;
        }
      }
      ++i;
    } else if (c == '-' && i + 1 < n && sql[i + 1] == '-') {
      while (i < n && sql[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
      int depth = 0;
      while (i < n) {
        if (sql.compare(i, 2, "/*") == 0) {
          ++depth;
          i += 2;
        } else if (sql.compare(i, 2, "*/") == 0) {
          i += 2;
          if (--depth == 0) break;
        } else {
          ++i;
        }
      }
    } else if (c == '$' && i + 1 < n && std::isdigit(static_cast<unsigned char>(sql[i + 1]))) {
      int v = 0;
      for (++i; i < n && std::isdigit(static_cast<unsigned char>(sql[i])); ++i) {
        v = std::min(v * 10 + (sql[i] - '0'), 1 << 20);
      }
      max = std::max(max, v);
    } else if (c == '$') {
      // $tag$ ... $tag$ (dollar quoting)
      size_t end = i + 1;
      while (end < n && (std::isalnum(static_cast<unsigned char>(sql[end])) || sql[end] == '_'))
        ++end;
      if (end < n && sql[end] == '$') {
        const std::string tag(sql.substr(i, end - i + 1));
        const size_t close = sql.find(tag, end + 1);
        i = close == std::string_view::npos ? n : close + tag.size();
      } else {
        ++i;
      }
    } else {
      ++i;
    }
  }
  return max;
}

Result<QueryResult> Database::Execute(const std::string& sql, const std::vector<Value>& params) {
  QUIVER_ASSIGN_OR_RAISE(auto results, ExecuteScript(sql, params));
  if (results.size() != 1) {
    return Status::Invalid("expected one statement, got {}", results.size())
        .WithSqlState(sqlstate::kSyntaxError);
  }
  return std::move(results[0]);
}

}  // namespace quiver
