// EngineBackend: the server's SqlBackend over quiver::Database.
//
// Statements are prepared and run through the engine's streaming interface
// (Database::Prepare, PreparedStatement::Execute): batches leave as the
// final pipeline emits them, and the statement's limits (deadline, memory,
// read-only, data directories) are the engine's StatementOptions.
#include "server/engine_backend.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <tuple>
#include <utility>

#include "catalog/catalog.h"
#include "catalog/table_source.h"
#include "catalog/table_store.h"
#include "functions/cast.h"
#include "planner/binder.h"
#include "sql/parser.h"
#include "vector/sql_type.h"

namespace quiver::server {
namespace {

Result<StatementOptions> ToStatementOptions(const ExecOptions& options) {
  StatementOptions o;
  o.deadline = options.deadline;
  o.memory_limit = options.memory_limit;
  o.read_only = options.read_only;
  o.result_batch_bytes = options.result_batch_bytes;
  o.partition = options.partition;
  // Calls of one client may arrive on any connection and several clients
  // share the database's session, so a BEGIN here would open a block that
  // other clients' statements join: refused (0A000). Each statement commits
  // on its own, as the Begin/EndTransaction actions say.
  o.transaction_blocks = false;
  if (options.confine_files || !options.data_dirs.empty()) {
    QUIVER_ASSIGN_OR_RAISE(FileAccessPolicy policy, FileAccessPolicy::Make(options.data_dirs));
    o.file_policy = std::make_shared<FileAccessPolicy>(std::move(policy));
  }
  return o;
}

// The engine's stream as the server's: batches leave as the query's final
// pipeline emits them, and a slow client makes the query wait.
class EngineStream final : public BatchStream {
 public:
  explicit EngineStream(std::unique_ptr<QueryStream> stream) : stream_(std::move(stream)) {}
  const SchemaRef& schema() const override { return stream_->schema(); }
  Status Next(RecordBatchRef* out) override { return stream_->Next(out); }
  Status NextBefore(std::chrono::steady_clock::time_point until, RecordBatchRef* out,
                    bool* timed_out) override {
    return stream_->NextBefore(until, out, timed_out);
  }
  void Cancel() override { stream_->Cancel(); }
  int64_t rows_affected() const override {
    // Queries affect none; INSERT / UPDATE / DELETE ... RETURNING return
    // rows and have a command tag (executeUpdate reports their count).
    return stream_->has_rows() && stream_->command_tag().empty() ? -1 : stream_->rows_affected();
  }
  std::string command_tag() const override { return stream_->command_tag(); }

 private:
  std::unique_ptr<QueryStream> stream_;
};

class EnginePrepared final : public PreparedQuery {
 public:
  EnginePrepared(std::shared_ptr<Database> db, std::shared_ptr<PreparedStatement> statement)
      : db_(std::move(db)), statement_(std::move(statement)) {}

  bool returns_rows() const override { return statement_->returns_rows(); }
  const SchemaRef& result_schema() const override { return statement_->result_schema(); }
  int num_parameters() const override { return statement_->num_parameters(); }
  bool partitionable() const override { return statement_->partitionable(); }

  Result<std::unique_ptr<BatchStream>> Execute(const std::vector<Value>& params,
                                               const ExecOptions& options) const override {
    QUIVER_ASSIGN_OR_RAISE(StatementOptions o, ToStatementOptions(options));
    QUIVER_ASSIGN_OR_RAISE(auto stream, statement_->Execute(params, o));
    return std::unique_ptr<BatchStream>(std::make_unique<EngineStream>(std::move(stream)));
  }

 private:
  std::shared_ptr<Database> db_;  // outlives the statement
  std::shared_ptr<PreparedStatement> statement_;
};

class EngineBackend final : public SqlBackend {
 public:
  explicit EngineBackend(std::shared_ptr<Database> db) : db_(std::move(db)) {}

  Result<std::shared_ptr<PreparedQuery>> Prepare(const std::string& sql,
                                                 const ExecOptions& options) override {
    QUIVER_ASSIGN_OR_RAISE(StatementOptions o, ToStatementOptions(options));
    QUIVER_ASSIGN_OR_RAISE(auto statement, db_->Prepare(sql, o));
    return std::shared_ptr<PreparedQuery>(std::make_shared<EnginePrepared>(db_, std::move(statement)));
  }

  std::vector<std::string> ListSchemas() const override {
    std::vector<std::string> out = db_->catalog()->SchemaNames();
    out.push_back("public");
    std::sort(out.begin(), out.end());
    return out;
  }

  std::vector<TableInfo> ListTables() const override {
    std::vector<TableInfo> out;
    Catalog* catalog = db_->catalog();
    for (const std::string& name : catalog->TableNames()) {
      auto entry = catalog->Lookup(name);
      if (entry == nullptr) continue;  // dropped meanwhile
      TableInfo info;
      std::tie(info.db_schema, info.name) = SplitQualifiedName(name);
      if (entry->table) {
        info.type = "TABLE";
        info.schema = entry->table->schema();
      } else if (entry->view) {
        info.type = "VIEW";
        plan::BindState state;
        state.catalog = catalog;
        plan::Binder binder(&state);
        auto q = binder.BindQuery(*entry->view->query);
        std::vector<FieldRef> fields;
        if (q.ok()) {
          for (size_t i = 0; i < q->names.size(); ++i) {
            const std::string& column =
                i < entry->view->columns.size() ? entry->view->columns[i] : q->names[i];
            fields.push_back(
                field(column, q->types[i]->id == TypeId::kNull ? utf8() : q->types[i]));
          }
        }
        info.schema = quiver::schema(std::move(fields));
      } else {
        continue;
      }
      out.push_back(std::move(info));
    }
    return out;
  }

  Result<int64_t> Ingest(const IngestRequest& request, const SchemaRef& schema,
                         const std::vector<RecordBatchRef>& batches) override {
    if (request.read_only) {
      return Status::Invalid("cannot ingest into \"{}\": the server is read-only", request.table)
          .WithSqlState(sqlstate::kReadOnlySqlTransaction);
    }
    if (request.table.empty()) return Status::Invalid("ingest: no target table given");
    const std::string schema_name = SplitQualifiedName(request.table).first;
    if (schema_name != "public" &&
        (IsBuiltinSchema(schema_name) || !db_->catalog()->HasSchema(schema_name))) {
      return Status::KeyError("schema \"{}\" does not exist", schema_name)
          .WithSqlState(sqlstate::kInvalidSchemaName);
    }
    std::lock_guard<std::mutex> lock(ingest_mu_);
    Catalog* catalog = db_->catalog();
    auto entry = catalog->Lookup(request.table);
    SchemaRef target;
    std::shared_ptr<MemoryTable> existing;
    if (entry != nullptr) {
      if (request.if_exists == IngestRequest::IfExists::kFail) {
        return Status::Invalid("relation \"{}\" already exists", request.table)
            .WithSqlState(sqlstate::kDuplicateTable);
      }
      if (request.if_exists == IngestRequest::IfExists::kAppend) {
        existing = std::dynamic_pointer_cast<MemoryTable>(entry->table);
        if (existing == nullptr) {
          return Status::Invalid(
                     "cannot append to \"{}\": it is {}", request.table,
                     entry->view ? "a view" : "read-only (" + entry->table->Describe() + ")")
              .WithSqlState(sqlstate::kWrongObjectType);
        }
        if (existing->constraints() != nullptr) {
          // Appended batches bypass the INSERT path that checks PRIMARY KEY,
          // UNIQUE and CHECK (catalog/table_constraints.h).
          return Status::Unsupported(
                     "ingest into \"{}\": it declares constraints, defaults or varchar(n) / char(n) lengths; use INSERT",
                     request.table)
              .WithSqlState(sqlstate::kFeatureNotSupported);
        }
        target = existing->schema();
      }
    } else if (!request.create_if_missing) {
      return Status::KeyError("relation \"{}\" does not exist", request.table)
          .WithSqlState(sqlstate::kUndefinedTable);
    }
    if (target == nullptr) {
      std::vector<FieldRef> fields;
      for (const auto& f : schema->fields) {
        QUIVER_ASSIGN_OR_RAISE(TypeRef t, ToEngineType(f->type));
        fields.push_back(field(f->name, t, f->nullable));
      }
      target = quiver::schema(std::move(fields));
    }
    // Columns by name (case-insensitive), cast to the table's types; table
    // columns the data lacks are NULL.
    std::vector<int> source_of(static_cast<size_t>(target->num_fields()), -1);
    for (int s = 0; s < schema->num_fields(); ++s) {
      int t = target->GetFieldIndex(schema->field(s)->name);
      if (t < 0) {
        for (int i = 0; i < target->num_fields(); ++i) {
          if (IdentifierEquals(target->field(i)->name, schema->field(s)->name)) t = i;
        }
      }
      if (t < 0) {
        return Status::KeyError("column \"{}\" of relation \"{}\" does not exist",
                                schema->field(s)->name, request.table)
            .WithSqlState(sqlstate::kUndefinedColumn);
      }
      source_of[static_cast<size_t>(t)] = s;
    }
    // The upload's columns in engine types (large_string -> text, ...).
    std::vector<FieldRef> incoming_fields;
    for (const auto& f : schema->fields) {
      QUIVER_ASSIGN_OR_RAISE(TypeRef t, ToEngineType(f->type));
      incoming_fields.push_back(field(f->name, t, f->nullable));
    }
    const SchemaRef incoming = quiver::schema(std::move(incoming_fields));
    std::vector<RecordBatchRef> converted;
    int64_t rows = 0;
    for (const auto& raw : batches) {
      QUIVER_ASSIGN_OR_RAISE(RecordBatchRef batch,
                             ToEngineBatch(raw, incoming, DefaultMemoryPool()));
      std::vector<ArrayRef> columns;
      for (int t = 0; t < target->num_fields(); ++t) {
        const TypeRef& type = target->field(t)->type;
        const int s = source_of[static_cast<size_t>(t)];
        ArrayRef column;
        if (s < 0) {
          QUIVER_ASSIGN_OR_RAISE(column, MakeArrayOfNull(type, batch->num_rows()));
        } else if (batch->column(s)->type->Equals(*type)) {
          column = batch->column(s);
        } else {
          auto cast = CastArray(batch->column(s), type, DefaultMemoryPool());
          if (!cast.ok())
            return cast.status().WithContext("column \"" + target->field(t)->name + "\"");
          column = *cast;
        }
        if (!target->field(t)->nullable && column->GetNullCount() > 0) {
          return Status::Invalid(
                     "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
                     target->field(t)->name, request.table)
              .WithSqlState(sqlstate::kNotNullViolation);
        }
        columns.push_back(std::move(column));
      }
      rows += batch->num_rows();
      converted.push_back(RecordBatch::Make(target, batch->num_rows(), std::move(columns)));
    }
    if (existing != nullptr) {
      QUIVER_RETURN_NOT_OK(existing->Append(std::move(converted)));
      return rows;
    }
    auto table = std::make_shared<MemoryTable>(request.table, target);
    QUIVER_RETURN_NOT_OK(table->Append(std::move(converted)));
    if (const auto& storage = db_->options().storage) {
      // A --db database keeps the new table (temporary ones stay in memory);
      // what it replaces is dropped from the stored catalog first.
      auto old = entry != nullptr ? std::dynamic_pointer_cast<MemoryTable>(entry->table) : nullptr;
      const bool stored = (old != nullptr && old->store() != nullptr) ||
                          (entry != nullptr && entry->view != nullptr);
      if (request.temporary && stored) {
        return Status::Unsupported("a temporary table replacing \"{}\" of a --db database",
                                   request.table)
            .WithSqlState(sqlstate::kFeatureNotSupported);
      }
      if (!request.temporary) {
        QUIVER_RETURN_NOT_OK(storage->CheckTable(*table));
        if (old != nullptr && old->store() != nullptr) {
          QUIVER_RETURN_NOT_OK(storage->DropTable(old->name()));
        } else if (entry != nullptr && entry->view != nullptr) {
          QUIVER_RETURN_NOT_OK(storage->DropView(entry->view->name));
        }
        QUIVER_RETURN_NOT_OK(storage->CreateTable(table, {}));
      }
    }
    QUIVER_RETURN_NOT_OK(catalog->CreateTable(request.table, table, entry != nullptr));
    return rows;
  }

  Status DropTemporary(const std::string& table) override {
    return db_->catalog()->Drop(table, /*is_view=*/false, /*if_exists=*/true);
  }

 private:
  std::shared_ptr<Database> db_;
  // Ingests check and change the catalog in several steps.
  std::mutex ingest_mu_;
};

}  // namespace

std::shared_ptr<SqlBackend> MakeEngineBackend(std::shared_ptr<Database> db) {
  return std::make_shared<EngineBackend>(std::move(db));
}

}  // namespace quiver::server
