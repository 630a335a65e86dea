// DoPut (handler.h): updates, parameter binding and bulk ingestion.
#include <utility>

#include "catalog/table_source.h"
#include "server/handler.h"
#include "vector/sql_type.h"

namespace quiver::server {
namespace {

// What one DoPut may hold in memory before it is refused.
constexpr int64_t kDefaultPutLimit = int64_t{4} << 30;

int64_t BufferBytes(const ArrayData& a) {
  int64_t n = 0;
  for (const auto& b : a.buffers) n += b ? b->size() : 0;
  for (const auto& c : a.children) n += BufferBytes(*c);
  if (a.dictionary) n += BufferBytes(*a.dictionary);
  return n;
}

// Batches collected under a memory cap.
class Collector {
 public:
  explicit Collector(int64_t limit) : limit_(limit > 0 ? limit : kDefaultPutLimit) {}
  Status Add(const RecordBatchRef& batch) {
    for (const auto& c : batch->columns()) bytes_ += BufferBytes(*c);
    if (bytes_ > limit_) {
      return Status::OutOfMemory("upload exceeds the server's memory limit of {} MiB",
                                 limit_ >> 20);
    }
    batches_.push_back(batch);
    return Status::OK();
  }
  const std::vector<RecordBatchRef>& batches() const { return batches_; }

 private:
  int64_t limit_;
  int64_t bytes_ = 0;
  std::vector<RecordBatchRef> batches_;
};

std::string UpdateResult(int64_t count) {
  sqlpb::DoPutUpdateResult r;
  r.set_record_count(count);
  return r.SerializeAsString();
}

}  // namespace

Result<ParameterRows> RowsFromBatches(const std::vector<RecordBatchRef>& batches) {
  ParameterRows rows;
  for (const auto& raw : batches) {
    // Parameter values in engine types (int8 -> smallint, large_string -> text ...).
    std::vector<FieldRef> fields;
    for (int c = 0; c < raw->num_columns(); ++c) {
      auto t = ToEngineType(raw->column(c)->type);
      if (!t.ok()) return t.status().WithContext(fmt::format("parameter ${}", c + 1));
      if (!ValueHolds(**t)) {
        // A parameter is bound as one value; arrays and structs cannot be
        // yet (they would arrive as NULL).
        return Status::Unsupported("parameter ${} of type {}", c + 1, PgTypeName(**t));
      }
      fields.push_back(field("$" + std::to_string(c + 1), *t));
    }
    QUIVER_ASSIGN_OR_RAISE(RecordBatchRef batch,
                           ToEngineBatch(raw, schema(std::move(fields)), DefaultMemoryPool()));
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::vector<Value> row;
      for (const auto& col : batch->columns()) row.push_back(ValueFromArray(*col, r));
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

// CommandStatementUpdate / CommandPreparedStatementUpdate: runs the
// statement once (no batches) or once per uploaded parameter row.
class UpdateSink final : public PutSink {
 public:
  UpdateSink(Handler* h, Caller caller, std::shared_ptr<PreparedQuery> query, std::string sql)
      : h_(h),
        caller_(std::move(caller)),
        query_(std::move(query)),
        sql_(std::move(sql)),
        params_(h->options().memory_limit) {}
  Status Consume(const SchemaRef&, const RecordBatchRef& batch) override {
    return params_.Add(batch);
  }
  Result<std::string> Finish(const SchemaRef&) override {
    QUIVER_ASSIGN_OR_RAISE(ParameterRows rows, RowsFromBatches(params_.batches()));
    if (query_->num_parameters() > 0 && rows.empty()) {
      return Status::Invalid("the statement has {} parameter(s) but no values were bound",
                             query_->num_parameters());
    }
    QUIVER_ASSIGN_OR_RAISE(int64_t n, h_->RunCommand(caller_, *query_, sql_, rows));
    return UpdateResult(n);
  }

 private:
  Handler* h_;
  Caller caller_;
  std::shared_ptr<PreparedQuery> query_;
  std::string sql_;
  Collector params_;
};

// CommandPreparedStatementQuery: binds parameter rows for the next execution.
class ParameterSink final : public PutSink {
 public:
  ParameterSink(Handler* h, std::shared_ptr<Prepared> p)
      : h_(h), p_(std::move(p)), params_(h->options().memory_limit) {}
  Status Consume(const SchemaRef&, const RecordBatchRef& batch) override {
    return params_.Add(batch);
  }
  Result<std::string> Finish(const SchemaRef& schema) override {
    QUIVER_ASSIGN_OR_RAISE(ParameterRows rows, RowsFromBatches(params_.batches()));
    h_->registry_.SetParameters(p_.get(), std::move(rows), schema);
    sqlpb::DoPutPreparedStatementResult r;
    r.set_prepared_statement_handle(p_->handle);
    return r.SerializeAsString();
  }

 private:
  Handler* h_;
  std::shared_ptr<Prepared> p_;
  Collector params_;
};

// CommandStatementIngest: every batch first, then one all-or-nothing write.
class IngestSink final : public PutSink {
 public:
  IngestSink(Handler* h, Caller caller, IngestRequest request)
      : h_(h),
        caller_(std::move(caller)),
        request_(std::move(request)),
        batches_(h->options().memory_limit) {}
  Status Consume(const SchemaRef&, const RecordBatchRef& batch) override {
    return batches_.Add(batch);
  }
  Result<std::string> Finish(const SchemaRef& schema) override {
    if (schema == nullptr) return Status::Invalid("ingest: no schema was sent");
    const auto start = std::chrono::steady_clock::now();
    QueryRecord r;
    r.id = h_->log_->NextQueryId();
    r.user = caller_.user;
    r.sql = "INGEST INTO " + request_.table;
    auto n = h_->backend_->Ingest(request_, schema, batches_.batches());
    r.outcome = n.status();
    r.rows = n.ok() ? *n : 0;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    h_->log_->Query(r);
    QUIVER_RETURN_NOT_OK(n.status());
    if (request_.temporary) {
      auto session = h_->registry_.GetSession(caller_.session, caller_.user);
      std::lock_guard<std::mutex> lock(session->mu);
      session->temporary_tables.push_back(request_.table);
    }
    return UpdateResult(*n);
  }

 private:
  Handler* h_;
  Caller caller_;
  IngestRequest request_;
  Collector batches_;
};

namespace {

Result<IngestRequest> IngestRequestFrom(const sqlpb::CommandStatementIngest& c, bool read_only) {
  using Opt = sqlpb::CommandStatementIngest::TableDefinitionOptions;
  IngestRequest r;
  r.table = c.table();
  r.temporary = c.temporary();
  r.read_only = read_only;
  if (c.has_catalog() && !c.catalog().empty()) {
    return Status::Invalid("catalog \"{}\" does not exist (Quiver has no catalogs)", c.catalog());
  }
  if (c.has_schema() && !c.schema().empty() && c.schema() != "public") {
    // A table of a created schema: the catalog's "s.t" (catalog/catalog.h).
    r.table = c.schema() + "." + c.table();
  }
  const auto& o = c.table_definition_options();
  r.create_if_missing = o.if_not_exist() != Opt::TABLE_NOT_EXIST_OPTION_FAIL;
  switch (o.if_exists()) {
    case Opt::TABLE_EXISTS_OPTION_APPEND:
      r.if_exists = IngestRequest::IfExists::kAppend;
      break;
    case Opt::TABLE_EXISTS_OPTION_REPLACE:
      r.if_exists = IngestRequest::IfExists::kReplace;
      break;
    default:
      r.if_exists = IngestRequest::IfExists::kFail;
      break;
  }
  for (const auto& [key, value] : c.options()) {
    return Status::Unsupported("ingest option \"{}\"", key);
  }
  return r;
}

}  // namespace

Result<std::unique_ptr<PutSink>> Handler::StartPut(const Caller& caller,
                                                   const pb::FlightDescriptor& d) {
  if (d.type() != pb::FlightDescriptor::CMD) {
    return Status::Unsupported("DoPut with a path descriptor (use CommandStatementIngest)");
  }
  QUIVER_ASSIGN_OR_RAISE(Command cmd, DecodeCommand(d.cmd(), /*allow_sql_text=*/false));
  switch (cmd.kind) {
    case CommandKind::kStatementUpdate: {
      sqlpb::CommandStatementUpdate c;
      QUIVER_RETURN_NOT_OK(cmd.Unpack(&c));
      QUIVER_ASSIGN_OR_RAISE(auto query, Prepare(c.query()));
      return std::unique_ptr<PutSink>(
          std::make_unique<UpdateSink>(this, caller, std::move(query), c.query()));
    }
    case CommandKind::kPreparedStatementUpdate: {
      sqlpb::CommandPreparedStatementUpdate c;
      QUIVER_RETURN_NOT_OK(cmd.Unpack(&c));
      auto p = registry_.FindPrepared(c.prepared_statement_handle(), caller.user);
      if (p == nullptr) return Status::Invalid("unknown or closed prepared statement handle");
      return std::unique_ptr<PutSink>(std::make_unique<UpdateSink>(this, caller, p->query, p->sql));
    }
    case CommandKind::kPreparedStatementQuery: {
      sqlpb::CommandPreparedStatementQuery c;
      QUIVER_RETURN_NOT_OK(cmd.Unpack(&c));
      auto p = registry_.FindPrepared(c.prepared_statement_handle(), caller.user);
      if (p == nullptr) return Status::Invalid("unknown or closed prepared statement handle");
      return std::unique_ptr<PutSink>(std::make_unique<ParameterSink>(this, std::move(p)));
    }
    case CommandKind::kStatementIngest: {
      sqlpb::CommandStatementIngest c;
      QUIVER_RETURN_NOT_OK(cmd.Unpack(&c));
      QUIVER_ASSIGN_OR_RAISE(IngestRequest r, IngestRequestFrom(c, options_.read_only));
      return std::unique_ptr<PutSink>(std::make_unique<IngestSink>(this, caller, std::move(r)));
    }
    case CommandKind::kStatementSubstraitPlan:
      return Status::Unsupported("Substrait plans (send SQL text)");
    default:
      return Status::Unsupported("{} in DoPut", cmd.name);
  }
}

}  // namespace quiver::server
