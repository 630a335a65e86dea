// EngineBackend: the server's SqlBackend over quiver::Database.
//
// Statements run through Database::Execute, which returns the whole result
// at once; the stream hands its batches out one by one. (The engine's
// streaming interface, Database::Prepare / ExecuteStream, replaces this
// when it lands: then batches leave as the final pipeline emits them.)
#include "server/engine_backend.h"

#include <atomic>
#include <mutex>
#include <utility>

#include "catalog/catalog.h"
#include "catalog/table_source.h"
#include "functions/cast.h"
#include "planner/binder.h"
#include "sql/parser.h"
#include "vector/sql_type.h"

namespace quiver::server {
namespace {

// A finished result handed out batch by batch.
class MaterializedStream final : public BatchStream {
 public:
  explicit MaterializedStream(QueryResult result) : result_(std::move(result)) {
    schema_ = result_.has_rows && result_.schema ? result_.schema : std::make_shared<Schema>();
  }
  const SchemaRef& schema() const override { return schema_; }
  Status Next(RecordBatchRef* out) override {
    *out = nullptr;
    if (cancelled_.load()) return Status::Cancelled("canceling statement due to user request");
    if (next_ < result_.batches.size()) *out = result_.batches[next_++];
    return Status::OK();
  }
  void Cancel() override { cancelled_.store(true); }
  int64_t rows_affected() const override { return result_.has_rows ? -1 : result_.rows_affected; }
  std::string command_tag() const override { return result_.command_tag; }

 private:
  QueryResult result_;
  SchemaRef schema_;
  size_t next_ = 0;
  std::atomic<bool> cancelled_{false};
};

bool Writes(const sql::Statement& s) {
  switch (s.kind) {
    case sql::StatementKind::kSelect:
    case sql::StatementKind::kExplain:
    case sql::StatementKind::kSet:
    case sql::StatementKind::kTransaction:
      return false;
    default:
      return true;
  }
}

// The highest $n in `sql` outside literals, quoted names and comments.
int MaxParameter(std::string_view sql) {
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

class EnginePrepared final : public PreparedQuery {
 public:
  EnginePrepared(std::shared_ptr<Database> db, std::string sql, bool returns_rows, bool writes,
                 SchemaRef schema, int num_parameters)
      : db_(std::move(db)),
        sql_(std::move(sql)),
        returns_rows_(returns_rows),
        writes_(writes),
        schema_(std::move(schema)),
        num_parameters_(num_parameters) {}

  bool returns_rows() const override { return returns_rows_; }
  const SchemaRef& result_schema() const override { return schema_; }
  int num_parameters() const override { return num_parameters_; }

  Result<std::unique_ptr<BatchStream>> Execute(const std::vector<Value>& params,
                                               const ExecOptions& options) const override {
    if (options.read_only && writes_) {
      return Status::Invalid("cannot execute this statement: the server is read-only");
    }
    QUIVER_ASSIGN_OR_RAISE(QueryResult r, db_->Execute(sql_, params));
    return std::unique_ptr<BatchStream>(std::make_unique<MaterializedStream>(std::move(r)));
  }

 private:
  std::shared_ptr<Database> db_;
  std::string sql_;
  bool returns_rows_;
  bool writes_;
  SchemaRef schema_;
  int num_parameters_;
};

class EngineBackend final : public SqlBackend {
 public:
  explicit EngineBackend(std::shared_ptr<Database> db) : db_(std::move(db)) {}

  Result<std::shared_ptr<PreparedQuery>> Prepare(const std::string& sql) override {
    QUIVER_ASSIGN_OR_RAISE(auto statements, sql::Parse(sql));
    if (statements.size() != 1) {
      return Status::Invalid("expected one statement, got {}", statements.size());
    }
    const sql::Statement& stmt = *statements[0];
    const int num_parameters = MaxParameter(sql);
    SchemaRef schema = std::make_shared<Schema>();
    const bool returns_rows =
        stmt.kind == sql::StatementKind::kSelect || stmt.kind == sql::StatementKind::kExplain;
    if (stmt.kind == sql::StatementKind::kSelect) {
      // Bind once for the result's columns; parameters are untyped NULLs
      // until values are bound.
      plan::BindState state;
      state.catalog = db_->catalog();
      state.parameters.assign(static_cast<size_t>(num_parameters), Value::Null(null()));
      plan::Binder binder(&state);
      QUIVER_ASSIGN_OR_RAISE(
          plan::BoundQuery q,
          binder.BindQuery(*static_cast<const sql::SelectStatement&>(stmt).select));
      std::vector<FieldRef> fields;
      for (size_t i = 0; i < q.names.size(); ++i) {
        fields.push_back(field(q.names[i], q.types[i]->id == TypeId::kNull ? utf8() : q.types[i]));
      }
      schema = quiver::schema(std::move(fields));
    } else if (stmt.kind == sql::StatementKind::kExplain) {
      schema = quiver::schema({field("QUERY PLAN", utf8(), false)});
    }
    return std::shared_ptr<PreparedQuery>(std::make_shared<EnginePrepared>(
        db_, sql, returns_rows, Writes(stmt), std::move(schema), num_parameters));
  }

  std::vector<TableInfo> ListTables() const override {
    std::vector<TableInfo> out;
    Catalog* catalog = db_->catalog();
    for (const std::string& name : catalog->TableNames()) {
      auto entry = catalog->Lookup(name);
      if (entry == nullptr) continue;  // dropped meanwhile
      TableInfo info;
      info.name = name;
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
      return Status::Invalid("cannot ingest into \"{}\": the server is read-only", request.table);
    }
    if (request.table.empty()) return Status::Invalid("ingest: no target table given");
    std::lock_guard<std::mutex> lock(ingest_mu_);
    Catalog* catalog = db_->catalog();
    auto entry = catalog->Lookup(request.table);
    SchemaRef target;
    std::shared_ptr<MemoryTable> existing;
    if (entry != nullptr) {
      if (request.if_exists == IngestRequest::IfExists::kFail) {
        return Status::Invalid("relation \"{}\" already exists", request.table);
      }
      if (request.if_exists == IngestRequest::IfExists::kAppend) {
        existing = std::dynamic_pointer_cast<MemoryTable>(entry->table);
        if (existing == nullptr) {
          return Status::Invalid(
              "cannot append to \"{}\": it is {}", request.table,
              entry->view ? "a view" : "read-only (" + entry->table->Describe() + ")");
        }
        target = existing->schema();
      }
    } else if (!request.create_if_missing) {
      return Status::KeyError("relation \"{}\" does not exist", request.table);
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
                                schema->field(s)->name, request.table);
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
              target->field(t)->name, request.table);
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
