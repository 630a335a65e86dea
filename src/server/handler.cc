// Flight SQL semantics: GetFlightInfo, GetSchema, DoGet tickets (handler.h).
// Actions live in handler_actions.cc, DoPut in handler_put.cc.
#include "server/handler.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "columnar/batch_util.h"
#include "formats/ipc/message_codec.h"
#include "server/metadata.h"
#include "sql/parser.h"

#ifndef QUIVER_VERSION
#define QUIVER_VERSION "unknown"
#endif

namespace quiver::server {

namespace {

std::string QuoteIdentifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}


// Whether every column of `next` continues the slice of `prev` in the same
// buffers (a scan's consecutive chunks of one stored batch).
bool ContinuesSlice(const RecordBatch& prev, const RecordBatch& next) {
  for (int c = 0; c < prev.num_columns(); ++c) {
    const ArrayData& a = *prev.column(c);
    const ArrayData& b = *next.column(c);
    if (b.offset != a.offset + a.length || a.buffers != b.buffers || !a.children.empty() ||
        a.dictionary != nullptr) {
      return false;
    }
  }
  return true;
}

int64_t RowsOf(const std::vector<RecordBatchRef>& batches) {
  int64_t n = 0;
  for (const auto& b : batches) n += b->num_rows();
  return n;
}

}  // namespace

// Runs an execution for DoGet: its statement once per parameter row (or its
// precomputed batches), batch by batch; big batches leave as slices.
class ExecutionStream final : public TicketStream {
 public:
  ExecutionStream(Handler* handler, std::shared_ptr<Execution> e, std::string user, int part)
      : handler_(handler), e_(std::move(e)), user_(std::move(user)), part_(part) {
    start_ = std::chrono::steady_clock::now();
    id_ = handler_->log_->NextQueryId();
  }
  ~ExecutionStream() override { Close(); }

  Status Open() {
    if (e_->query == nullptr) {
      schema_ = e_->schema;
      return Status::OK();
    }
    QUIVER_RETURN_NOT_OK(StartNext());
    schema_ = stream_ ? stream_->schema() : e_->query->result_schema();
    return Status::OK();
  }

  const SchemaRef& schema() const override { return schema_; }

  // Batches leave in messages of about options.batch_bytes: the engine's
  // small batches (a vector of rows each) are merged, since every message
  // costs the server a few thread hand-offs and the client a batch to
  // decode and import; big ones leave in slices of about batch_bytes (and
  // at most max_batch_rows rows), so narrow rows travel in as few messages
  // as wide ones.
  Status Next(RecordBatchRef* out) override {
    *out = nullptr;
    if (pending_ == nullptr) {
      QUIVER_RETURN_NOT_OK(Gather());
      if (pending_ == nullptr) return Status::OK();
      pending_max_ = handler_->options_.max_batch_rows;
      const int64_t bytes = SliceBytes(*pending_);
      const int64_t limit = handler_->options_.batch_bytes;
      if (bytes > limit + limit / 4 && pending_->num_rows() > 1) {
        // Rows per slice for slices of about batch_bytes each (equal parts).
        const int64_t parts = (bytes + limit - 1) / limit;
        pending_max_ = std::min(pending_max_, (pending_->num_rows() + parts - 1) / parts);
      }
    }
    const int64_t max = std::max<int64_t>(pending_max_, 1);
    if (pending_->num_rows() - pending_offset_ <= max && pending_offset_ == 0) {
      *out = std::move(pending_);
    } else {
      const int64_t n = std::min(max, pending_->num_rows() - pending_offset_);
      *out = pending_->Slice(pending_offset_, n);
      pending_offset_ += n;
      if (pending_offset_ >= pending_->num_rows()) pending_ = nullptr;
    }
    rows_ += (*out)->num_rows();
    return Status::OK();
  }

  void Cancel() override { e_->cancel->Cancel(); }

  void Finish(int64_t bytes_sent, const Status& outcome) override {
    Close();
    QueryRecord r;
    r.id = id_;
    r.user = user_;
    r.sql = e_->sql;
    r.rows = rows_;
    r.bytes = bytes_sent;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    r.outcome = outcome;
    handler_->log_->Query(r);
  }

 private:
  static Status Cancelled() { return Status::Cancelled("canceling statement due to user request"); }

  // The next message's rows into pending_ (null at the end): batches as
  // they come until batch_bytes or max_batch_rows, or until kGatherWait
  // has passed since the first one (a slow query's rows are not held back).
  Status Gather() {
    static constexpr auto kGatherWait = std::chrono::milliseconds(20);
    const int64_t max_rows = handler_->options_.max_batch_rows;
    const int64_t max_bytes = handler_->options_.batch_bytes;
    std::vector<RecordBatchRef> parts;
    int64_t rows = 0;
    int64_t bytes = 0;
    std::chrono::steady_clock::time_point until;
    while (rows < max_rows && bytes < max_bytes) {
      RecordBatchRef batch = std::move(lookahead_);
      if (batch == nullptr) {
        QUIVER_RETURN_NOT_OK(Pull(parts.empty() ? nullptr : &until, &batch));
        if (batch == nullptr) break;  // the end, or waited long enough
      }
      if (!parts.empty() && (rows + batch->num_rows() > max_rows ||
                             (bytes >= max_bytes / 4 && !ContinuesSlice(*parts.back(), *batch)))) {
        // Full; or a message of slices of one stored batch (sent without a
        // copy) that this batch would turn into a copied one.
        lookahead_ = std::move(batch);
        break;
      }
      if (parts.empty()) until = std::chrono::steady_clock::now() + kGatherWait;
      rows += batch->num_rows();
      bytes += SliceBytes(*batch);
      parts.push_back(std::move(batch));
    }
    pending_offset_ = 0;
    if (parts.size() <= 1) {
      pending_ = parts.empty() ? nullptr : std::move(parts[0]);
      return Status::OK();
    }
    QUIVER_ASSIGN_OR_RAISE(pending_, ConcatenateBatches(parts[0]->schema(), parts));
    return Status::OK();
  }

  // The next batch of the execution (null at the end, or when `until` is
  // given and passes first).
  Status Pull(const std::chrono::steady_clock::time_point* until, RecordBatchRef* out) {
    *out = nullptr;
    for (;;) {
      if (e_->query == nullptr) {
        if (next_batch_ >= e_->batches.size()) return Status::OK();
        if (e_->cancel->cancelled()) return Cancelled();
        *out = e_->batches[next_batch_++];
        return Status::OK();
      }
      if (stream_ == nullptr) return Status::OK();
      RecordBatchRef batch;
      bool timed_out = false;
      Status st = until != nullptr ? stream_->NextBefore(*until, &batch, &timed_out)
                                   : stream_->Next(&batch);
      if (!st.ok())
        return st.code() == StatusCode::kCancelled && e_->cancel->cancelled() ? Cancelled() : st;
      if (timed_out) return Status::OK();
      if (batch == nullptr) {
        Close();
        QUIVER_RETURN_NOT_OK(StartNext());
        continue;
      }
      if (batch->num_columns() != schema_->num_fields()) {
        return Status::Invalid("parameter rows produce results of different shapes");
      }
      for (int i = 0; i < batch->num_columns(); ++i) {
        if (!batch->column(i)->type->Equals(*schema_->field(i)->type)) {
          return Status::Invalid(
              "parameter rows produce different result types for column \"{}\" ({} and {})",
              schema_->field(i)->name, schema_->field(i)->type->ToString(),
              batch->column(i)->type->ToString());
        }
      }
      *out = RecordBatch::Make(schema_, batch->num_rows(), batch->columns());
      return Status::OK();
    }
  }

  // Starts the statement for the next parameter row; none left: stream_ null.
  Status StartNext() {
    const ParameterRows& rows = e_->parameters;
    if (rows.empty() ? started_ > 0 : started_ >= rows.size()) return Status::OK();
    static const std::vector<Value> kNone;
    const std::vector<Value>& params = rows.empty() ? kNone : rows[started_];
    if (started_++ == 0) {
      // Started by GetFlightInfo (already registered with the token)?
      std::lock_guard<std::mutex> lock(e_->started_mu);
      const auto part = static_cast<size_t>(part_);
      if (part < e_->started.size() && e_->started[part] != nullptr) {
        stream_ = std::move(e_->started[part]);
        return Status::OK();
      }
    }
    if (e_->cancel->cancelled()) return Cancelled();
    QUIVER_ASSIGN_OR_RAISE(stream_,
                           e_->query->Execute(params, handler_->PartOptions(*e_, part_)));
    if (!e_->cancel->Register(stream_.get())) {
      stream_.reset();
      return Cancelled();
    }
    return Status::OK();
  }

  void Close() {
    if (stream_ != nullptr) {
      e_->cancel->Unregister(stream_.get());
      stream_.reset();
    }
  }

  Handler* handler_;
  std::shared_ptr<Execution> e_;
  std::string user_;
  int part_ = 0;  // of e_->parts
  SchemaRef schema_;
  std::unique_ptr<BatchStream> stream_;
  size_t started_ = 0;
  size_t next_batch_ = 0;
  RecordBatchRef pending_;  // being sent, in slices when big
  int64_t pending_offset_ = 0;
  int64_t pending_max_ = 0;  // rows per slice of pending_
  RecordBatchRef lookahead_;  // pulled, for the next message
  int64_t rows_ = 0;
  int64_t id_ = 0;
  std::chrono::steady_clock::time_point start_;
};

namespace {
// How long a query started by GetFlightInfo waits for its DoGet before it is
// dropped (DoGet then runs it anew).
constexpr auto kStartedWait = std::chrono::seconds(5);
}  // namespace

Handler::Handler(const FlightServerOptions& options, std::shared_ptr<SqlBackend> backend,
                 QueryLog* log)
    : options_(options), backend_(std::move(backend)), log_(log) {
  reaper_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(started_mu_);
    while (!stopping_) {
      if (started_.empty()) {
        started_cv_.wait(lock);
      } else {
        started_cv_.wait_for(lock, kStartedWait / 4);
      }
      if (stopping_) break;
      lock.unlock();
      ReapStarted();
      lock.lock();
    }
  });
}

Handler::~Handler() {
  {
    std::lock_guard<std::mutex> lock(started_mu_);
    stopping_ = true;
  }
  started_cv_.notify_all();
  reaper_.join();
}

// Starts the query of a new ticket now, so that by the time its DoGet
// arrives (a round trip later) the first batches wait in the query's bounded
// queue. Only the first execution of a statement starts early; on failure
// nothing is kept and DoGet runs the statement itself (and reports).
void Handler::StartEarly(const std::shared_ptr<Execution>& e) {
  static const std::vector<Value> kNone;
  if (e->query == nullptr || e->parameters.size() > 1) return;
  std::vector<std::unique_ptr<BatchStream>> parts;
  for (int part = 0; part < e->parts; ++part) {
    auto stream = e->query->Execute(e->parameters.empty() ? kNone : e->parameters[0],
                                    PartOptions(*e, part));
    if (!stream.ok()) break;
    std::unique_ptr<BatchStream> s = std::move(stream).ValueOrDie();
    if (!e->cancel->Register(s.get())) break;
    parts.push_back(std::move(s));
  }
  if (static_cast<int>(parts.size()) != e->parts) {
    for (auto& s : parts) e->cancel->Unregister(s.get());
    return;  // each DoGet runs its part itself
  }
  {
    std::lock_guard<std::mutex> lock(e->started_mu);
    e->started = std::move(parts);
    e->started_at = Clock::now();
  }
  {
    std::lock_guard<std::mutex> lock(started_mu_);
    started_.push_back(e);
  }
  started_cv_.notify_all();
}

// Forgets tickets whose early query was taken or is gone, and drops the
// early queries that waited longer than kStartedWait.
void Handler::ReapStarted() {
  std::vector<std::weak_ptr<Execution>> list;
  {
    std::lock_guard<std::mutex> lock(started_mu_);
    list.swap(started_);
  }
  std::vector<std::weak_ptr<Execution>> keep;
  const auto now = Clock::now();
  for (auto& weak : list) {
    std::shared_ptr<Execution> e = weak.lock();
    if (e == nullptr) continue;
    std::vector<std::unique_ptr<BatchStream>> drop;
    {
      std::lock_guard<std::mutex> lock(e->started_mu);
      bool any = false;
      for (const auto& s : e->started) any |= s != nullptr;
      if (!any) continue;
      if (now - e->started_at < kStartedWait) {
        keep.push_back(std::move(weak));
        continue;
      }
      drop.swap(e->started);
    }
    for (auto& s : drop) {
      if (s == nullptr) continue;
      e->cancel->Unregister(s.get());
      s.reset();  // cancels the query and waits for it to stop
    }
  }
  std::lock_guard<std::mutex> lock(started_mu_);
  started_.insert(started_.end(), std::make_move_iterator(keep.begin()),
                  std::make_move_iterator(keep.end()));
}

ExecOptions Handler::StatementOptions() const {
  ExecOptions o;
  if (options_.query_timeout.count() > 0) {
    o.deadline = std::chrono::steady_clock::now() + options_.query_timeout;
  }
  o.memory_limit = options_.memory_limit;
  o.read_only = options_.read_only;
  o.data_dirs = options_.data_dirs;
  o.confine_files = options_.confine_files;
  // The query's threads merge its chunks into 1 MiB batches, which Gather
  // joins into messages (without a copy when they are slices of one stored
  // batch). Batches of the full message size (4 MiB) left a server that
  // clients dropped mid-stream 100 MiB bigger (test_flight_sql_load.py's
  // drop test): the retention is not understood yet, so 1 MiB it is.
  o.result_batch_bytes = int64_t{1} << 20;
  return o;
}

ExecOptions Handler::PartOptions(const Execution& e, int part) const {
  ExecOptions o = StatementOptions();
  if (e.parts > 1) {
    o.partition.index = part;
    o.partition.count = e.parts;
    o.partition.group = e.partition_group;
  }
  return o;
}

int Handler::EndpointsFor(const Caller& caller) {
  // Only a session that set options has one; a plain query creates none.
  auto session = registry_.FindSession(caller.session);
  if (session != nullptr) {
    std::lock_guard<std::mutex> lock(session->mu);
    auto it = session->options.find(kEndpointsOption);
    if (it != session->options.end()) return std::stoi(it->second);  // checked when set
  }
  return options_.endpoints;
}

Result<std::shared_ptr<PreparedQuery>> Handler::Prepare(const std::string& sql) {
  // JDBC and ADBC users write ? placeholders; the engine takes $n.
  int count = 0;
  const std::string rewritten = sql::RewritePlaceholders(sql, &count);
  return backend_->Prepare(count > 0 ? rewritten : sql, StatementOptions());
}

Result<int64_t> Handler::RunCommand(const Caller& caller, const PreparedQuery& query,
                                    const std::string& sql, const ParameterRows& rows) {
  const auto start = std::chrono::steady_clock::now();
  QueryRecord r;
  r.id = log_->NextQueryId();
  r.user = caller.user;
  r.sql = sql;
  int64_t affected = -1;
  auto run = [&]() -> Status {
    static const std::vector<Value> kNone;
    const size_t n = rows.empty() ? 1 : rows.size();
    for (size_t i = 0; i < n; ++i) {
      QUIVER_ASSIGN_OR_RAISE(auto stream,
                             query.Execute(rows.empty() ? kNone : rows[i], StatementOptions()));
      for (;;) {
        RecordBatchRef batch;
        QUIVER_RETURN_NOT_OK(stream->Next(&batch));
        if (batch == nullptr) break;
        r.rows += batch->num_rows();
      }
      if (stream->rows_affected() >= 0)
        affected = std::max<int64_t>(affected, 0) + stream->rows_affected();
    }
    return Status::OK();
  };
  r.outcome = run();
  if (affected > 0) r.rows = affected;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  log_->Query(r);
  QUIVER_RETURN_NOT_OK(r.outcome);
  return affected;
}

Result<pb::FlightInfo> Handler::InfoFor(const Caller& caller, std::shared_ptr<Execution> e,
                                        const pb::FlightDescriptor& d) {
  if (e->query != nullptr && e->parameters.size() <= 1 && e->query->partitionable()) {
    e->parts = std::max(EndpointsFor(caller), 1);
    if (e->parts > 1) e->partition_group = std::make_shared<ScanPartition::Group>();
  }
  QUIVER_ASSIGN_OR_RAISE(e, registry_.AddExecution(std::move(e)));
  StartEarly(e);
  pb::FlightInfo info;
  const SchemaRef& schema = e->query ? e->query->result_schema() : e->schema;
  info.set_schema(ipc::SerializeSchema(*schema));
  *info.mutable_flight_descriptor() = d;
  for (int part = 0; part < e->parts; ++part) {
    // Parts of one result: "<handle>/<part>" (one part: the handle).
    sqlpb::TicketStatementQuery ticket;
    ticket.set_statement_handle(e->parts > 1 ? e->handle + "/" + std::to_string(part)
                                             : e->handle);
    pb::FlightEndpoint* endpoint = info.add_endpoint();
    endpoint->mutable_ticket()->set_ticket(PackAny(ticket));
  }
  info.set_total_records(e->query ? -1 : RowsOf(e->batches));
  info.set_total_bytes(-1);
  // Parts of a scan without ORDER BY: no order across the endpoints.
  info.set_ordered(e->parts == 1);
  return info;
}

Result<pb::FlightInfo> Handler::StatementInfo(const Caller& caller, const std::string& sql,
                                              const pb::FlightDescriptor& d) {
  QUIVER_ASSIGN_OR_RAISE(auto query, Prepare(sql));
  auto e = std::make_shared<Execution>();
  e->user = caller.user;
  e->sql = sql;
  if (!query->returns_rows()) {
    // Commands run now; the ticket fetches their (empty) result.
    QUIVER_RETURN_NOT_OK(RunCommand(caller, *query, sql, {}).status());
    e->schema = query->result_schema();
    return InfoFor(caller, std::move(e), d);
  }
  if (query->num_parameters() > 0) {
    return Status::Invalid(
        "the statement has {} parameter(s); prepare it and bind values (DoPut) to run it",
        query->num_parameters());
  }
  e->query = std::move(query);
  return InfoFor(caller, std::move(e), d);
}

Result<pb::FlightInfo> Handler::PreparedInfo(const Caller& caller, const std::string& handle,
                                             const pb::FlightDescriptor& d) {
  std::shared_ptr<Prepared> p = registry_.FindPrepared(handle, caller.user);
  if (p == nullptr)
    return Status::Invalid("unknown or closed prepared statement handle")
        .WithSqlState(sqlstate::kInvalidSqlStatementName);
  ParameterRows rows = registry_.GetParameters(*p);
  const int expected = p->query->num_parameters();
  if (expected > 0 && rows.empty()) {
    return Status::Invalid("the statement has {} parameter(s) but no values were bound", expected);
  }
  for (const auto& row : rows) {
    if (static_cast<int>(row.size()) != expected) {
      return Status::Invalid("the statement has {} parameter(s), {} values were bound per row",
                             expected, row.size());
    }
  }
  auto e = std::make_shared<Execution>();
  e->user = caller.user;
  e->sql = p->sql;
  if (!p->query->returns_rows()) {
    QUIVER_RETURN_NOT_OK(RunCommand(caller, *p->query, p->sql, rows).status());
    e->schema = p->query->result_schema();
    return InfoFor(caller, std::move(e), d);
  }
  e->query = p->query;
  e->parameters = std::move(rows);
  return InfoFor(caller, std::move(e), d);
}

Result<std::shared_ptr<Execution>> Handler::MetadataResult(const Caller& caller,
                                                           const Command& cmd) {
  auto e = std::make_shared<Execution>();
  e->user = caller.user;
  e->sql = cmd.name;
  RecordBatchRef batch;
  switch (cmd.kind) {
    case CommandKind::kGetCatalogs: {
      QUIVER_ASSIGN_OR_RAISE(batch, CatalogsBatch());
      break;
    }
    case CommandKind::kGetDbSchemas: {
      sqlpb::CommandGetDbSchemas c;
      QUIVER_RETURN_NOT_OK(cmd.Unpack(&c));
      QUIVER_ASSIGN_OR_RAISE(batch, DbSchemasBatch(c, backend_->ListSchemas()));
      break;
    }
    case CommandKind::kGetTables: {
      sqlpb::CommandGetTables c;
      QUIVER_RETURN_NOT_OK(cmd.Unpack(&c));
      QUIVER_ASSIGN_OR_RAISE(batch, TablesBatch(c, backend_->ListTables()));
      break;
    }
    case CommandKind::kGetTableTypes: {
      QUIVER_ASSIGN_OR_RAISE(batch, TableTypesBatch());
      break;
    }
    case CommandKind::kGetSqlInfo: {
      sqlpb::CommandGetSqlInfo c;
      QUIVER_RETURN_NOT_OK(cmd.Unpack(&c));
      SqlInfoContext ctx;
      ctx.version = QUIVER_VERSION;
      ctx.read_only = options_.read_only;
      ctx.max_connections = options_.max_connections;
      QUIVER_ASSIGN_OR_RAISE(
          batch, SqlInfoBatch(std::vector<uint32_t>(c.info().begin(), c.info().end()), ctx));
      break;
    }
    case CommandKind::kGetXdbcTypeInfo: {
      sqlpb::CommandGetXdbcTypeInfo c;
      QUIVER_RETURN_NOT_OK(cmd.Unpack(&c));
      QUIVER_ASSIGN_OR_RAISE(
          batch, XdbcTypeInfoBatch(c.has_data_type() ? std::optional<int32_t>(c.data_type())
                                                     : std::nullopt));
      break;
    }
    case CommandKind::kGetPrimaryKeys: {
      sqlpb::CommandGetPrimaryKeys c;
      QUIVER_RETURN_NOT_OK(cmd.Unpack(&c));
      QUIVER_ASSIGN_OR_RAISE(batch, EmptyBatch(PrimaryKeysSchema()));
      break;
    }
    case CommandKind::kGetExportedKeys:
    case CommandKind::kGetImportedKeys:
    case CommandKind::kGetCrossReference: {
      QUIVER_ASSIGN_OR_RAISE(batch, EmptyBatch(ForeignKeysSchema()));
      break;
    }
    default:
      return Status::UnknownError("not a metadata command: {}", cmd.name);
  }
  e->schema = batch->schema();
  e->batches.push_back(std::move(batch));
  return e;
}

namespace {

bool IsMetadata(CommandKind k) {
  switch (k) {
    case CommandKind::kGetCatalogs:
    case CommandKind::kGetDbSchemas:
    case CommandKind::kGetTables:
    case CommandKind::kGetTableTypes:
    case CommandKind::kGetSqlInfo:
    case CommandKind::kGetXdbcTypeInfo:
    case CommandKind::kGetPrimaryKeys:
    case CommandKind::kGetExportedKeys:
    case CommandKind::kGetImportedKeys:
    case CommandKind::kGetCrossReference:
      return true;
    default:
      return false;
  }
}

Status NotForGetFlightInfo(const Command& cmd) {
  switch (cmd.kind) {
    case CommandKind::kStatementUpdate:
    case CommandKind::kPreparedStatementUpdate:
    case CommandKind::kStatementIngest:
      return Status::Invalid("{} is sent with DoPut, not GetFlightInfo", cmd.name);
    case CommandKind::kTicketStatementQuery:
      return Status::Invalid("{} is a ticket for DoGet, not a command", cmd.name);
    case CommandKind::kStatementSubstraitPlan:
      return Status::Unsupported("Substrait plans (send SQL text)");
    default:
      return Status::Unsupported("Flight SQL command {}", cmd.name);
  }
}

// A path descriptor names a table: ["readings"] -> SELECT * FROM "readings".
Result<std::string> PathQuery(const pb::FlightDescriptor& d) {
  if (d.path_size() != 1 || d.path(0).empty()) {
    return Status::Invalid("a path descriptor must hold one table name, got {} elements",
                           d.path_size());
  }
  return "SELECT * FROM " + QuoteIdentifier(d.path(0));
}

}  // namespace

Result<pb::FlightInfo> Handler::GetFlightInfo(const Caller& caller, const pb::FlightDescriptor& d) {
  if (d.type() == pb::FlightDescriptor::PATH) {
    QUIVER_ASSIGN_OR_RAISE(std::string sql, PathQuery(d));
    return StatementInfo(caller, sql, d);
  }
  if (d.type() != pb::FlightDescriptor::CMD) {
    return Status::Invalid("flight descriptor of unknown type {}", static_cast<int>(d.type()));
  }
  QUIVER_ASSIGN_OR_RAISE(Command cmd, DecodeCommand(d.cmd(), /*allow_sql_text=*/true));
  switch (cmd.kind) {
    case CommandKind::kSqlText:
      return StatementInfo(caller, cmd.sql, d);
    case CommandKind::kStatementQuery: {
      sqlpb::CommandStatementQuery q;
      QUIVER_RETURN_NOT_OK(cmd.Unpack(&q));
      return StatementInfo(caller, q.query(), d);
    }
    case CommandKind::kPreparedStatementQuery: {
      sqlpb::CommandPreparedStatementQuery q;
      QUIVER_RETURN_NOT_OK(cmd.Unpack(&q));
      return PreparedInfo(caller, q.prepared_statement_handle(), d);
    }
    default:
      break;
  }
  if (IsMetadata(cmd.kind)) {
    QUIVER_ASSIGN_OR_RAISE(auto e, MetadataResult(caller, cmd));
    return InfoFor(caller, std::move(e), d);
  }
  return NotForGetFlightInfo(cmd);
}

Result<pb::SchemaResult> Handler::GetSchema(const Caller& caller, const pb::FlightDescriptor& d) {
  pb::SchemaResult out;
  auto query_schema = [&](const std::string& sql) -> Status {
    QUIVER_ASSIGN_OR_RAISE(auto query, Prepare(sql));
    out.set_schema(ipc::SerializeSchema(*query->result_schema()));
    return Status::OK();
  };
  if (d.type() == pb::FlightDescriptor::PATH) {
    QUIVER_ASSIGN_OR_RAISE(std::string sql, PathQuery(d));
    QUIVER_RETURN_NOT_OK(query_schema(sql));
    return out;
  }
  QUIVER_ASSIGN_OR_RAISE(Command cmd, DecodeCommand(d.cmd(), /*allow_sql_text=*/true));
  switch (cmd.kind) {
    case CommandKind::kSqlText:
      QUIVER_RETURN_NOT_OK(query_schema(cmd.sql));
      return out;
    case CommandKind::kStatementQuery: {
      sqlpb::CommandStatementQuery q;
      QUIVER_RETURN_NOT_OK(cmd.Unpack(&q));
      QUIVER_RETURN_NOT_OK(query_schema(q.query()));
      return out;
    }
    case CommandKind::kPreparedStatementQuery: {
      sqlpb::CommandPreparedStatementQuery q;
      QUIVER_RETURN_NOT_OK(cmd.Unpack(&q));
      auto p = registry_.FindPrepared(q.prepared_statement_handle(), caller.user);
      if (p == nullptr)
        return Status::Invalid("unknown or closed prepared statement handle")
            .WithSqlState(sqlstate::kInvalidSqlStatementName);
      out.set_schema(ipc::SerializeSchema(*p->query->result_schema()));
      return out;
    }
    case CommandKind::kGetCatalogs:
      out.set_schema(ipc::SerializeSchema(*CatalogsSchema()));
      return out;
    case CommandKind::kGetDbSchemas:
      out.set_schema(ipc::SerializeSchema(*DbSchemasSchema()));
      return out;
    case CommandKind::kGetTables: {
      sqlpb::CommandGetTables c;
      QUIVER_RETURN_NOT_OK(cmd.Unpack(&c));
      out.set_schema(ipc::SerializeSchema(*TablesSchema(c.include_schema())));
      return out;
    }
    case CommandKind::kGetTableTypes:
      out.set_schema(ipc::SerializeSchema(*TableTypesSchema()));
      return out;
    case CommandKind::kGetSqlInfo:
      out.set_schema(ipc::SerializeSchema(*SqlInfoSchema()));
      return out;
    case CommandKind::kGetXdbcTypeInfo:
      out.set_schema(ipc::SerializeSchema(*XdbcTypeInfoSchema()));
      return out;
    case CommandKind::kGetPrimaryKeys:
      out.set_schema(ipc::SerializeSchema(*PrimaryKeysSchema()));
      return out;
    case CommandKind::kGetExportedKeys:
    case CommandKind::kGetImportedKeys:
    case CommandKind::kGetCrossReference:
      out.set_schema(ipc::SerializeSchema(*ForeignKeysSchema()));
      return out;
    default:
      return NotForGetFlightInfo(cmd);
  }
}

Result<std::unique_ptr<TicketStream>> Handler::OpenTicket(const Caller& caller,
                                                          std::string_view ticket) {
  QUIVER_ASSIGN_OR_RAISE(Command cmd, DecodeCommand(ticket, /*allow_sql_text=*/false));
  if (cmd.kind != CommandKind::kTicketStatementQuery) {
    return Status::Invalid("ticket holds {}, not a TicketStatementQuery", cmd.name);
  }
  sqlpb::TicketStatementQuery t;
  QUIVER_RETURN_NOT_OK(cmd.Unpack(&t));
  std::string handle = t.statement_handle();
  int part = 0;
  bool has_part = false;
  if (const size_t slash = handle.find('/'); slash != std::string::npos) {
    const std::string digits = handle.substr(slash + 1);
    if (digits.empty() || digits.size() > 4 ||
        digits.find_first_not_of("0123456789") != std::string::npos) {
      return Status::Invalid("unknown or expired ticket");
    }
    part = std::stoi(digits);
    has_part = true;
    handle.resize(slash);
  }
  std::shared_ptr<Execution> e = registry_.FindExecution(handle, caller.user);
  if (e == nullptr || has_part != (e->parts > 1) || part >= e->parts) {
    return Status::Invalid("unknown or expired ticket");
  }
  auto stream = std::make_unique<ExecutionStream>(this, std::move(e), caller.user, part);
  Status st = stream->Open();
  if (!st.ok()) {
    stream->Finish(0, st);
    return st;
  }
  return std::unique_ptr<TicketStream>(std::move(stream));
}

void Handler::EndSession(const std::shared_ptr<Session>& session) {
  if (session == nullptr) return;
  std::vector<std::string> tables;
  {
    std::lock_guard<std::mutex> lock(session->mu);
    tables.swap(session->temporary_tables);
  }
  for (const auto& t : tables) {
    Status st = backend_->DropTemporary(t);
    if (!st.ok()) log_->Info("could not drop temporary table " + t + ": " + st.message());
  }
}

}  // namespace quiver::server
