// FROM: tables, views, CTEs, files (quoted names and read_* functions),
// subqueries, joins (ON / USING / NATURAL), generate_series.
#include <algorithm>
#include <filesystem>

#include "catalog/foreign_table.h"
#include "catalog/system_tables.h"
#include "common/calendar.h"
#include "columnar/builder.h"
#include "formats/csv/reader.h"
#include "functions/cast.h"
#include "functions/table_function.h"
#include "planner/bind_json.h"
#include "planner/expression_binder.h"
#include "storage/delta_scan.h"
#include "storage/iceberg_database.h"
#include "storage/iceberg_reader.h"
#include "vector/sql_type.h"

namespace quiver::plan {

using sql::TableRef;

Result<LogicalOpPtr> Binder::BindFrom(const std::vector<std::unique_ptr<TableRef>>& from) {
  if (from.empty()) return LogicalOpPtr(std::make_unique<LogicalDummyScan>());
  LogicalOpPtr plan;
  for (const auto& ref : from) {
    if (plan != nullptr && ref->kind == TableRef::kSubquery && ref->lateral) {
      QUIVER_ASSIGN_OR_RAISE(LogicalOpPtr p, BindLateralSubquery(*ref, &plan, JoinType::kInner));
      plan = plan == nullptr ? std::move(p)
                             : std::make_unique<LogicalCrossProduct>(std::move(plan), std::move(p));
      continue;
    }
    if (plan != nullptr && IsSetReturningCall(*ref)) {
      // Its arguments may read the items before it (implicit LATERAL).
      const size_t before = scope_.size();
      QUIVER_ASSIGN_OR_RAISE(LogicalOpPtr p, BindSetReturningFunction(*ref, &plan));
      MarkFunctionItems(*ref, &scope_, before);
      plan = plan == nullptr ? std::move(p)
                             : std::make_unique<LogicalCrossProduct>(std::move(plan), std::move(p));
      continue;
    }
    QUIVER_ASSIGN_OR_RAISE(LogicalOpPtr p, BindTableRef(*ref));
    if (plan == nullptr) {
      plan = std::move(p);
    } else {
      plan = std::make_unique<LogicalCrossProduct>(std::move(plan), std::move(p));
    }
  }
  return plan;
}

Result<LogicalOpPtr> Binder::BindTableRef(const TableRef& ref) {
  switch (ref.kind) {
    case TableRef::kTable:
      return BindBaseTable(ref);
    case TableRef::kFunction: {
      const size_t before = scope_.size();
      auto out = BindTableFunction(ref);
      MarkFunctionItems(ref, &scope_, before);
      return out;
    }
    case TableRef::kSubquery:
      return BindSubqueryRef(*ref.subquery, ref.alias, "", ref.location);
    case TableRef::kJoin:
      return BindJoin(ref);
  }
  return Status::Invalid("bad FROM item");
}

void MarkFunctionItems(const TableRef& ref, std::vector<ScopeTable>* scope, size_t from) {
  if (ref.kind != TableRef::kFunction || ref.function->kind != sql::ExprKind::kFunction) return;
  const std::string& name = ref.function->name;
  if (name.rfind("read_", 0) == 0 || name == "quiver_snapshots") return;
  for (size_t i = from; i < scope->size(); ++i) (*scope)[i].function_item = true;
}

bool IsSetReturningCall(const TableRef& ref) {
  if (ref.kind != TableRef::kFunction || ref.function->kind != sql::ExprKind::kFunction) {
    return false;
  }
  return IsSetReturningFunction(ref.function->name);
}

bool IsSetReturningFunction(const std::string& name) {
  return name != "read_arrow" && name != "read_csv" && name != "read_parquet" &&
         name != "read_avro" && name != "read_file" && name != "read_iceberg" && name != "read_delta" &&
         name != "quiver_snapshots" && TableFunctionRegistry::Get().Has(name);
}

const Binder::VisibleCte* Binder::FindCte(const std::string& name) const {
  for (auto it = ctes_.rbegin(); it != ctes_.rend(); ++it) {
    if (it->cte->name == name) return &*it;
  }
  return nullptr;
}

Result<LogicalOpPtr> Binder::MakeGet(std::shared_ptr<TableSource> table, const sql::Alias& alias,
                                     const std::string& default_name, int location) {
  auto get = std::make_unique<LogicalGet>();
  get->table_index = state_->NewTableIndex();
  get->table = table;
  const SchemaRef schema = table->schema();
  ScopeTable scope;
  scope.alias = alias.empty() ? default_name : alias.name;
  get->table_alias = scope.alias;
  if (alias.columns.size() > static_cast<size_t>(schema->num_fields())) {
    return Status::Invalid("table \"{}\" has {} columns available but {} columns specified",
                           scope.alias, schema->num_fields(), alias.columns.size())
        .WithSqlState(sqlstate::kInvalidColumnReference)
        .WithPosition(location);
  }
  for (int i = 0; i < schema->num_fields(); ++i) {
    get->column_ids.push_back(i);
    get->column_names.push_back(schema->field(i)->name);
    get->column_types.push_back(schema->field(i)->type);
    scope.names.push_back(static_cast<size_t>(i) < alias.columns.size()
                              ? alias.columns[static_cast<size_t>(i)]
                              : schema->field(i)->name);
    scope.types.push_back(schema->field(i)->type);
    scope.bindings.push_back({get->table_index, i});
  }
  const int64_t rows = table->EstimatedRows();
  get->estimated_rows = rows >= 0 ? static_cast<double>(rows) : -1;
  scope.unreadable = table->UnreadableColumns();
  QUIVER_RETURN_NOT_OK(AddScopeTable(std::move(scope), location));
  return LogicalOpPtr(std::move(get));
}

namespace {

bool LooksLikePath(const std::string& name) {
  if (name.find('/') != std::string::npos || name.find('*') != std::string::npos) return true;
  static const char* kExts[] = {".arrow", ".arrows",  ".feather", ".ipc", ".csv",   ".tsv",
                                ".txt",   ".parquet", ".gz",      ".zst", ".stream"};
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  for (const char* e : kExts) {
    const std::string ext(e);
    if (lower.size() > ext.size() &&
        lower.compare(lower.size() - ext.size(), ext.size(), ext) == 0) {
      return true;
    }
  }
  return false;
}

// The file name without directories and extensions: the default alias.
std::string FileStem(const std::string& path) {
  std::string base = std::filesystem::path(path).filename().string();
  const auto dot = base.find('.');
  if (dot != std::string::npos && dot > 0) base = base.substr(0, dot);
  if (base.find('*') != std::string::npos || base.empty()) base = "file";
  return base;
}

// Files are opened only once the statement's file policy allows the pattern
// and every file it expands to (a symlink in an allowed directory may lead
// out of it).
Result<std::shared_ptr<FileTable>> OpenFileTable(const BindState& state, const std::string& name,
                                                 const std::string& pattern,
                                                 const FileTableOptions& options) {
  if (state.file_policy != nullptr && state.file_policy->restricted()) {
    QUIVER_RETURN_NOT_OK(state.file_policy->Check(pattern));
    QUIVER_ASSIGN_OR_RAISE(std::vector<std::string> paths, ExpandPaths(pattern));
    for (const std::string& p : paths) QUIVER_RETURN_NOT_OK(state.file_policy->Check(p));
  }
  return FileTable::Open(name, pattern, options);
}

}  // namespace

Result<LogicalOpPtr> Binder::BindBaseTable(const TableRef& ref) {
  // CTEs shadow catalog tables.
  if (ref.schema.empty()) {
    // The recursive term's reference to its own query: the working table.
    for (auto it = state_->working_tables.rbegin(); it != state_->working_tables.rend(); ++it) {
      if (it->name == ref.name) return MakeGet(it->table, ref.alias, ref.name, ref.location);
    }
    if (const VisibleCte* visible = FindCte(ref.name)) {
      if (visible->recursive) return BindRecursiveCte(*visible, ref);
      if (std::find(cte_in_progress_.begin(), cte_in_progress_.end(), ref.name) !=
          cte_in_progress_.end()) {
        if (visible->in_recursive_with) {
          // A reference back through another WITH item (PostgreSQL's words).
          return Status::Unsupported("mutual recursion between WITH items is not implemented")
              .WithSqlState(sqlstate::kFeatureNotSupported)
              .WithPosition(ref.location);
        }
        // A plain WITH item does not see itself.
        return Status::KeyError("relation \"{}\" does not exist", ref.name)
            .WithSqlState(sqlstate::kUndefinedTable)
            .WithDetail(fmt::format("There is a WITH item named \"{}\", but it cannot be referenced "
                                    "from this part of the query.",
                                    ref.name))
            .WithHint("Use WITH RECURSIVE, or re-order the WITH items to remove forward references.")
            .WithPosition(ref.location);
      }
      const sql::CommonTableExpr& cte = *visible->cte;
      cte_in_progress_.push_back(ref.name);
      auto r = BindSubqueryRef(*cte.query, ref.alias, ref.name, ref.location, cte.columns,
                               visible->outer);
      cte_in_progress_.pop_back();
      return r;
    }
  }
  // A relation of a created schema is the catalog's "s.t" (never the bare
  // name: that would be another table); PostgreSQL's words when absent.
  std::string key = ref.name;
  if (!ref.schema.empty() && ref.schema != "public" && ref.schema != "information_schema" &&
      ref.schema != "pg_catalog") {
    key = QualifiedName(ref.schema, ref.name);
    if (state_->catalog == nullptr || state_->catalog->Lookup(key) == nullptr) {
      return Status::KeyError("relation \"{}.{}\" does not exist", ref.schema, ref.name)
          .WithSqlState(sqlstate::kUndefinedTable)
          .WithPosition(ref.location);
    }
  }
  if (ref.schema == "information_schema" && state_->catalog != nullptr) {
    QUIVER_ASSIGN_OR_RAISE(auto system, InformationSchemaTable(*state_->catalog, ref.name));
    if (system == nullptr)
      return Status::KeyError("relation \"information_schema.{}\" does not exist", ref.name)
          .WithSqlState(sqlstate::kUndefinedTable)
          .WithPosition(ref.location);
    return MakeGet(system, ref.alias, ref.name, ref.location);
  }
  auto entry = state_->catalog ? state_->catalog->Lookup(key) : nullptr;
  // pg_catalog's tables, qualified or not (a table of the same name wins
  // over an unqualified reference).
  if (state_->catalog != nullptr &&
      (ref.schema == "pg_catalog" || (ref.schema.empty() && entry == nullptr && ref.name.rfind("pg_", 0) == 0))) {
    QUIVER_ASSIGN_OR_RAISE(auto system, PgCatalogTable(*state_->catalog, ref.name));
    if (system != nullptr) return MakeGet(system, ref.alias, ref.name, ref.location);
    if (ref.schema == "pg_catalog")
      return Status::KeyError("relation \"pg_catalog.{}\" does not exist", ref.name)
          .WithSqlState(sqlstate::kUndefinedTable)
          .WithPosition(ref.location);
  }
  if (entry != nullptr) {
    if (entry->view) {
      Binder view_binder(state_, nullptr);
      auto r = view_binder.BindQuery(*entry->view->query);
      if (!r.ok())
        return r.status().WithContext("view \"" + ref.name + "\"").WithPosition(ref.location);
      BoundQuery q = std::move(r).ValueOrDie();
      std::vector<std::string> names = q.names;
      for (size_t i = 0; i < entry->view->columns.size() && i < names.size(); ++i) {
        names[i] = entry->view->columns[i];
      }
      ScopeTable scope;
      scope.alias = ref.alias.empty() ? ref.name : ref.alias.name;
      const auto bindings = q.plan->GetColumnBindings();
      for (size_t i = 0; i < names.size(); ++i) {
        scope.names.push_back(i < ref.alias.columns.size() ? ref.alias.columns[i] : names[i]);
        scope.types.push_back(q.types[i]);
        scope.bindings.push_back(bindings[i]);
      }
      QUIVER_RETURN_NOT_OK(AddScopeTable(std::move(scope), ref.location));
      return std::move(q.plan);
    }
    return MakeGet(entry->table, ref.alias, ref.name, ref.location);
  }
  // A quoted file name: FROM "data/events.arrow".
  if (LooksLikePath(ref.name)) {
    auto table = OpenFileTable(*state_, ref.name, ref.name, {});
    if (!table.ok()) return table.status().WithPosition(ref.location);
    return MakeGet(*table, ref.alias, FileStem(ref.name), ref.location);
  }
  return Status::KeyError("relation \"{}\" does not exist", ref.name)
      .WithSqlState(sqlstate::kUndefinedTable)
      .WithPosition(ref.location);
}

Result<LogicalOpPtr> Binder::BindSubqueryRef(const sql::SelectNode& select, const sql::Alias& alias,
                                             const std::string& default_name, int location,
                                             const std::vector<std::string>& renames,
                                             std::optional<Binder*> outer) {
  // FROM subqueries see outer scopes but not siblings; CTE bodies those
  // outside their WITH.
  Binder child(state_, outer.value_or(parent_));
  child.ctes_ = ctes_;
  child.cte_in_progress_ = cte_in_progress_;
  QUIVER_ASSIGN_OR_RAISE(BoundQuery q, child.BindQuery(select));
  if (outer.has_value() && *outer != parent_ && !child.correlated().empty()) {
    // Its outer references count levels from the WITH, not from here.
    return Status::Unsupported(
               "a WITH query that references an outer query, used inside a subquery")
        .WithPosition(location);
  }
  for (const auto& c : child.correlated()) {
    // A FROM subquery referencing outer columns is itself correlated.
    if (std::find(correlated_.begin(), correlated_.end(), c) == correlated_.end())
      correlated_.push_back(c);
  }
  ScopeTable scope;
  scope.alias = alias.empty() ? default_name : alias.name;
  const auto bindings = q.plan->GetColumnBindings();
  std::vector<std::string> names = q.names;
  for (size_t i = 0; i < renames.size() && i < names.size(); ++i) names[i] = renames[i];
  if (alias.columns.size() > names.size()) {
    return Status::Invalid("table \"{}\" has {} columns available but {} columns specified",
                           scope.alias, names.size(), alias.columns.size())
        .WithSqlState(sqlstate::kInvalidColumnReference)
        .WithPosition(location);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    scope.names.push_back(i < alias.columns.size() ? alias.columns[i] : names[i]);
    scope.types.push_back(q.types[i]);
    scope.bindings.push_back(bindings[i]);
  }
  QUIVER_RETURN_NOT_OK(AddScopeTable(std::move(scope), location));
  return std::move(q.plan);
}

namespace {

// Options of read_csv / read_arrow given as name => value.
struct FunctionArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> named;
};

Result<FunctionArgs> EvaluateArgs(Binder* binder, const sql::ParsedExpr& call) {
  FunctionArgs out;
  ExpressionBinder eb(binder, ExpressionBinder::Clause::kOther);
  for (size_t i = 0; i < call.children.size(); ++i) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr e, eb.Bind(*call.children[i]));
    e = ExpressionBinder::ResolveUnknown(std::move(e));
    if (e->type != ExprType::kConstant) {
      return Status::Invalid("arguments of {} must be constants", call.name)
          .WithSqlState(sqlstate::kFeatureNotSupported)
          .WithPosition(call.children[i]->location);
    }
    const std::string& name = i < call.arg_names.size() ? call.arg_names[i] : std::string();
    if (name.empty()) {
      out.positional.push_back(e->As<ConstantExpression>().value);
    } else {
      out.named.emplace_back(name, e->As<ConstantExpression>().value);
    }
  }
  return out;
}

Result<char> OneChar(const Value& v, const char* option) {
  const std::string s = v.ToString();
  if (s == "\\t" || s == "tab") return '\t';
  if (s.size() != 1) return Status::Invalid("{} must be a single character, got '{}'", option, s);
  return s[0];
}

}  // namespace

// read_iceberg(path [, snapshot_id => n | as_of => timestamp]): one
// snapshot of an Iceberg table (storage/iceberg_reader.h), read when bound.
Result<LogicalOpPtr> Binder::BindReadIceberg(const TableRef& ref,
                                             const std::vector<Value>& positional,
                                             const std::vector<std::pair<std::string, Value>>& named) {
  if (positional.size() != 1 || positional[0].is_null()) {
    return Status::Invalid("read_iceberg takes one path (a table directory or a metadata file)")
        .WithSqlState(sqlstate::kInvalidParameterValue)
        .WithPosition(ref.location);
  }
  const std::string given = positional[0].ToString();
  QUIVER_ASSIGN_OR_RAISE(const std::string path, IcebergTarget(given, ref.location));
  iceberg::ReadOptions options;
  for (const auto& [opt, v] : named) {
    if (v.is_null()) {
      return Status::Invalid("read_iceberg option \"{}\" is null", opt)
          .WithSqlState(sqlstate::kInvalidParameterValue)
          .WithPosition(ref.location);
    }
    if (opt == "snapshot_id") {
      const TypeId id = v.type()->id;
      if (id != TypeId::kInt16 && id != TypeId::kInt32 && id != TypeId::kInt64) {
        return Status::Invalid("read_iceberg snapshot_id must be an integer, got {}",
                               v.type()->ToString())
            .WithSqlState(sqlstate::kInvalidParameterValue)
            .WithPosition(ref.location);
      }
      auto c = CastValue(v, int64());
      if (!c.ok()) return c.status().WithPosition(ref.location);
      options.snapshot_id = c->integer();
    } else if (opt == "as_of") {
      auto c = CastValue(v, timestamp(TimeUnit::kMicro, "UTC"));
      if (!c.ok()) {
        return c.status().WithContext("read_iceberg as_of (a timestamp)").WithPosition(ref.location);
      }
      options.as_of_ms = FloorDiv(c->integer(), 1000);
    } else {
      return Status::Invalid("read_iceberg has no option \"{}\" (options: snapshot_id, as_of)", opt)
          .WithSqlState(sqlstate::kInvalidParameterValue)
          .WithPosition(ref.location);
    }
  }
  // A path the query names (not a --db table's own files): every file it
  // leads to is checked against the server's data directories.
  if (path == given) options.policy = state_->file_policy;
  const std::string stem = path == given ? FileStem(path) : given;
  auto table = iceberg::ReadIcebergTable(stem, path, options);
  if (!table.ok()) return table.status().WithPosition(ref.location);
  return MakeGet(*table, ref.alias, stem, ref.location);
}

// read_delta(path [, version => n]): one version of a Delta Lake table
// (storage/delta_scan.h), its log read when bound.
Result<LogicalOpPtr> Binder::BindReadDelta(const TableRef& ref,
                                           const std::vector<Value>& positional,
                                           const std::vector<std::pair<std::string, Value>>& named) {
  if (positional.size() != 1 || positional[0].is_null()) {
    return Status::Invalid("read_delta takes one path (a Delta table directory)")
        .WithSqlState(sqlstate::kInvalidParameterValue)
        .WithPosition(ref.location);
  }
  const std::string path = positional[0].ToString();
  delta::ReadOptions options;
  for (const auto& [opt, v] : named) {
    if (opt != "version") {
      return Status::Invalid("read_delta has no option \"{}\" (options: version)", opt)
          .WithSqlState(sqlstate::kInvalidParameterValue)
          .WithPosition(ref.location);
    }
    const TypeId id = v.type()->id;
    if (v.is_null() || (id != TypeId::kInt16 && id != TypeId::kInt32 && id != TypeId::kInt64)) {
      return Status::Invalid("read_delta version must be an integer, got {}",
                             v.is_null() ? std::string("NULL") : v.type()->ToString())
          .WithSqlState(sqlstate::kInvalidParameterValue)
          .WithPosition(ref.location);
    }
    options.version = v.integer();
  }
  options.policy = state_->file_policy;
  const std::string stem = FileStem(path);
  auto table = delta::ReadDeltaTable(stem, path, options);
  if (!table.ok()) return table.status().WithPosition(ref.location);
  return MakeGet(*table, ref.alias, stem, ref.location);
}

// The argument of read_iceberg / quiver_snapshots: the name of a table of
// the --db database (no '/'; its current metadata file), else a path.
Result<std::string> Binder::IcebergTarget(const std::string& given, int location) {
  if (given.find('/') == std::string::npos && state_->catalog != nullptr) {
    if (auto entry = state_->catalog->Lookup(given); entry != nullptr) {
      std::optional<std::string> metadata;
      if (entry->table != nullptr) metadata = IcebergMetadataLocation(*entry->table);
      if (!metadata.has_value()) {
        return Status::Invalid("\"{}\" is not a table of a --db database (give the path of an "
                               "Iceberg table)",
                               given)
            .WithSqlState(sqlstate::kWrongObjectType)
            .WithPosition(location);
      }
      return *metadata;
    }
  }
  return given;
}

// quiver_snapshots(table | path): the snapshots of an Iceberg table, as
// Iceberg's "snapshots" metadata table lists them.
Result<LogicalOpPtr> Binder::BindQuiverSnapshots(const TableRef& ref,
                                                 const std::vector<Value>& positional,
                                                 const std::vector<std::pair<std::string, Value>>& named) {
  if (positional.size() != 1 || positional[0].is_null() || !named.empty()) {
    return Status::Invalid("quiver_snapshots takes one table name or Iceberg table path")
        .WithSqlState(sqlstate::kInvalidParameterValue)
        .WithPosition(ref.location);
  }
  const std::string given = positional[0].ToString();
  QUIVER_ASSIGN_OR_RAISE(const std::string path, IcebergTarget(given, ref.location));
  auto table = iceberg::SnapshotsTable(path, path == given ? state_->file_policy : nullptr);
  if (!table.ok()) return table.status().WithPosition(ref.location);
  return MakeGet(*table, ref.alias, "quiver_snapshots", ref.location);
}

Result<LogicalOpPtr> Binder::BindTableFunction(const TableRef& ref) {
  const sql::ParsedExpr& call = *ref.function;
  if (call.kind != sql::ExprKind::kFunction) {
    return Status::Unsupported("this expression in FROM").WithPosition(ref.location);
  }
  const std::string& name = call.name;
  if (IsSetReturningCall(ref)) return BindSetReturningFunction(ref, nullptr);
  if (!ref.rows_from.empty()) {
    return Status::Unsupported(
               "{} in ROWS FROM (only set-returning functions such as "
               "generate_series and unnest)",
               name)
        .WithPosition(ref.location);
  }
  if (ref.ordinality) return Status::Unsupported("WITH ORDINALITY on {}", name).WithPosition(ref.location);
  if (IsJsonTableFunction(call.name)) {
    // Bound here, not by EvaluateArgs: a json constant is a cast, not a Value.
    ExpressionBinder eb(this, ExpressionBinder::Clause::kOther);
    std::vector<ExprPtr> bound;
    for (const auto& c : call.children) {
      auto b = eb.Bind(*c);
      if (!b.ok() && b.status().SqlState() == sqlstate::kUndefinedColumn) {
        // PostgreSQL reads the other FROM items' columns here (LATERAL).
        return Status::Unsupported("{} over a column of another FROM item (LATERAL)", call.name)
            .WithPosition(c->location);
      }
      QUIVER_RETURN_NOT_OK(b.status());
      bound.push_back(std::move(b).ValueOrDie());
    }
    auto table = JsonTableFunction(call.name, std::move(bound));
    if (!table.ok()) return table.status().WithPosition(ref.location);
    return MakeGet(std::move(table).ValueOrDie(), ref.alias, call.name, ref.location);
  }
  QUIVER_ASSIGN_OR_RAISE(FunctionArgs args, EvaluateArgs(this, call));
  if (name == "read_iceberg") return BindReadIceberg(ref, args.positional, args.named);
  if (name == "read_delta") return BindReadDelta(ref, args.positional, args.named);
  if (name == "quiver_snapshots") return BindQuiverSnapshots(ref, args.positional, args.named);
  if (name == "read_arrow" || name == "read_csv" || name == "read_parquet" || name == "read_avro" ||
      name == "read_file") {
    if (args.positional.size() != 1 || args.positional[0].is_null()) {
      return Status::Invalid("{} takes one path (a file, a directory or a glob)", name)
          .WithPosition(ref.location);
    }
    const std::string path = args.positional[0].ToString();
    FileTableOptions options;
    if (name == "read_csv") options.format = formats::FileFormat::kCsv;
    if (name == "read_parquet") options.format = formats::FileFormat::kParquet;
    if (name == "read_avro") options.format = formats::FileFormat::kAvro;
    if (name == "read_arrow") {
      const formats::FileFormat by_ext = formats::FormatFromExtension(path);
      options.format = by_ext == formats::FileFormat::kIpcStream ? formats::FileFormat::kIpcStream
                                                                 : formats::FileFormat::kAuto;
    }
    if (formats::IsTsvPath(path)) options.csv.parse.delimiter = '\t';
    // Hive directories (dir/year=2024/part-0.parquet): read_parquet and
    // read_arrow over a directory whose subdirectories are key=value read
    // them with the keys as columns (hive_partitioning, on by default there,
    // as DuckDB's), through a foreign table over the directory.
    if (name == "read_parquet" || name == "read_arrow") {
      std::optional<bool> hive;
      for (auto it = args.named.begin(); it != args.named.end();) {
        if (it->first != "hive_partitioning") {
          ++it;
          continue;
        }
        hive = it->second.type()->id == TypeId::kBool ? it->second.boolean() : it->second.ToString() == "true";
        it = args.named.erase(it);
      }
      std::error_code ec;
      if (!hive.has_value() && std::filesystem::is_directory(path, ec)) {
        for (const auto& e : std::filesystem::directory_iterator(path, ec)) {
          const std::string n = e.path().filename().string();
          if (e.is_directory() && n.find('=') != std::string::npos && n[0] != '.' && n[0] != '_') hive = true;
        }
      }
      if (hive.value_or(false) && args.named.empty()) {
        const std::vector<std::pair<std::string, std::string>> fdw = {{"dir", path}, {"hive_partitioning", "true"}};
        if (state_->file_policy != nullptr && state_->file_policy->restricted()) {
          auto files = ForeignTableFiles(fdw);
          if (!files.ok()) return files.status().WithPosition(ref.location);
          for (const auto& f : *files) QUIVER_RETURN_NOT_OK(state_->file_policy->Check(f).WithPosition(ref.location));
        }
        auto def = ImportForeignTableDef(FileStem(path), fdw);
        if (!def.ok()) return def.status().WithPosition(ref.location);
        auto table = ForeignTable::Open(std::move(def).ValueOrDie());
        if (!table.ok()) return table.status().WithPosition(ref.location);
        return MakeGet(*table, ref.alias, FileStem(path), ref.location);
      }
    }
    for (const auto& [opt, v] : args.named) {
      if (name != "read_csv") {
        return Status::Invalid("{} has no option \"{}\"", name, opt)
            .WithSqlState(sqlstate::kInvalidParameterValue)
            .WithPosition(ref.location);
      }
      if (opt == "header") {
        options.csv.read.header =
            v.type()->id == TypeId::kBool ? v.boolean() : v.ToString() == "true";
      } else if (opt == "delim" || opt == "delimiter" || opt == "sep") {
        QUIVER_ASSIGN_OR_RAISE(options.csv.parse.delimiter, OneChar(v, "delim"));
      } else if (opt == "quote") {
        QUIVER_ASSIGN_OR_RAISE(options.csv.parse.quote, OneChar(v, "quote"));
      } else if (opt == "escape") {
        QUIVER_ASSIGN_OR_RAISE(options.csv.parse.escape, OneChar(v, "escape"));
      } else if (opt == "null" || opt == "nullstr") {
        options.csv.convert.null_values = {v.ToString()};
        options.csv.convert.strings_can_be_null = true;
      } else if (opt == "skip") {
        options.csv.read.skip_rows = v.is_null() ? 0 : static_cast<int64_t>(v.ToDouble());
      } else if (opt == "columns" || opt == "types" || opt == "schema") {
        auto types = csv::ParseColumnTypes(v.ToString());
        if (!types.ok())
          return types.status().WithContext("read_csv columns").WithPosition(ref.location);
        options.csv.convert.column_types = std::move(types).ValueOrDie();
      } else if (opt == "names" || opt == "column_names") {
        std::string list = v.ToString();
        options.csv.read.column_names.clear();
        size_t start = 0;
        while (start <= list.size()) {
          const size_t comma = list.find(',', start);
          std::string n =
              list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
          while (!n.empty() && n.front() == ' ') n.erase(n.begin());
          while (!n.empty() && n.back() == ' ') n.pop_back();
          options.csv.read.column_names.push_back(n);
          if (comma == std::string::npos) break;
          start = comma + 1;
        }
      } else {
        return Status::Invalid(
                   "read_csv has no option \"{}\" (options: header, delim, quote, escape, null, "
                   "skip, "
                   "columns, names)",
                   opt)
            .WithSqlState(sqlstate::kInvalidParameterValue)
            .WithPosition(ref.location);
      }
    }
    auto table = OpenFileTable(*state_, path, path, options);
    if (!table.ok()) return table.status().WithPosition(ref.location);
    return MakeGet(*table, ref.alias, FileStem(path), ref.location);
  }
  return Status::KeyError("table function {} does not exist", name)
      .WithSqlState(sqlstate::kUndefinedFunction)
      .WithPosition(ref.location);
}

// `a [LEFT] JOIN f(a.x) ON ...` where f's arguments read the left side:
// the function runs once per left row (LogicalTableFunction over `left`).
// An inner join's condition filters the result; a LEFT join keeps left
// rows without function rows when the condition is ON true (other
// conditions are refused).
Result<LogicalOpPtr> Binder::BindLateralFunctionJoin(const TableRef& ref, LogicalOpPtr* left) {
  const bool on_true = ref.condition == nullptr ||
                       (ref.condition->kind == sql::ExprKind::kConstant &&
                        ref.condition->literal == sql::LiteralKind::kBool && ref.condition->bval);
  const bool left_join = ref.join_kind == sql::JoinKind::kLeft;
  QUIVER_ASSIGN_OR_RAISE(LogicalOpPtr right,
                         BindSetReturningFunction(*ref.right, left, left_join && on_true));
  if (*left != nullptr) return right;  // not lateral: an ordinary join follows
  if (ref.join_kind == sql::JoinKind::kRight || ref.join_kind == sql::JoinKind::kFull) {
    return Status::Invalid("invalid reference to FROM-clause entry for table \"{}\"",
                           scope_.empty() ? std::string() : scope_.front().alias)
        .WithSqlState(sqlstate::kInvalidColumnReference)
        .WithHint("The combining JOIN type must be INNER or LEFT for a LATERAL reference.")
        .WithPosition(ref.right->location);
  }
  if (!ref.using_columns.empty() || ref.natural || !ref.alias.empty() || (left_join && !on_true)) {
    return Status::Unsupported(
               "this join of a function reading the left side (supported: [CROSS | INNER] JOIN "
               "... ON condition, LEFT JOIN ... ON true, without USING, NATURAL or a join alias)")
        .WithPosition(ref.right->location);
  }
  if (on_true) return right;
  ExpressionBinder eb(this, ExpressionBinder::Clause::kJoinOn);
  QUIVER_ASSIGN_OR_RAISE(ExprPtr cond, eb.BindPredicate(*ref.condition, "JOIN/ON"));
  QUIVER_RETURN_NOT_OK(PlanSubqueries(state_, &cond, &right));
  std::vector<ExprPtr> conjuncts;
  SplitConjunction(std::move(cond), &conjuncts);
  return LogicalOpPtr(std::make_unique<LogicalFilter>(std::move(conjuncts), std::move(right)));
}

// LATERAL (subquery): bound with this query level as its outer one, so that
// it reads the FROM items before it (depth-1 references); then joined to
// them as a dependent join (PlanLateralJoin), taking *left. A LATERAL
// subquery that reads nothing to its left is an ordinary one (*left kept).
Result<LogicalOpPtr> Binder::BindLateralSubquery(const TableRef& ref, LogicalOpPtr* left,
                                                 JoinType type) {
  Binder child(state_, this);
  child.ctes_ = ctes_;
  child.cte_in_progress_ = cte_in_progress_;
  QUIVER_ASSIGN_OR_RAISE(BoundQuery q, child.BindQuery(*ref.subquery));
  std::vector<CorrelatedColumn> lateral;
  for (const auto& c : child.correlated()) {
    if (c.depth == 1) lateral.push_back(c);
  }
  if (lateral.empty()) return BindSubqueryRef(*ref.subquery, ref.alias, "", ref.location);
  if (type == JoinType::kRight || type == JoinType::kFull) {
    return Status::Invalid("invalid reference to FROM-clause entry for table \"{}\"",
                           scope_.empty() ? std::string() : scope_.front().alias)
        .WithSqlState(sqlstate::kInvalidColumnReference)
        .WithHint("The combining JOIN type must be INNER or LEFT for a LATERAL reference.")
        .WithPosition(ref.location);
  }
  for (const auto& c : child.correlated()) {
    if (c.depth < 2) continue;
    // A reference to a query outside this one: correlated here, one level in.
    CorrelatedColumn outer = c;
    outer.depth = c.depth - 1;
    if (std::find(correlated_.begin(), correlated_.end(), outer) == correlated_.end())
      correlated_.push_back(outer);
  }
  const auto bindings = q.plan->GetColumnBindings();
  std::map<ColumnBinding, ColumnBinding> remap;
  QUIVER_ASSIGN_OR_RAISE(
      LogicalOpPtr joined,
      PlanLateralJoin(state_, std::move(*left), std::move(q.plan), lateral, type, &remap));
  ScopeTable scope;
  scope.alias = ref.alias.name;
  if (ref.alias.columns.size() > q.names.size()) {
    return Status::Invalid("table \"{}\" has {} columns available but {} columns specified",
                           scope.alias, q.names.size(), ref.alias.columns.size())
        .WithSqlState(sqlstate::kInvalidColumnReference)
        .WithPosition(ref.location);
  }
  for (size_t i = 0; i < q.names.size(); ++i) {
    scope.names.push_back(i < ref.alias.columns.size() ? ref.alias.columns[i] : q.names[i]);
    scope.types.push_back(q.types[i]);
    auto it = remap.find(bindings[i]);
    scope.bindings.push_back(it == remap.end() ? bindings[i] : it->second);
  }
  QUIVER_RETURN_NOT_OK(AddScopeTable(std::move(scope), ref.location));
  return joined;
}

Result<LogicalOpPtr> Binder::BindJoin(const TableRef& ref) {
  const size_t first_table = scope_.size();
  QUIVER_ASSIGN_OR_RAISE(LogicalOpPtr left, BindTableRef(*ref.left));
  const size_t left_tables = scope_.size();
  // The tables an outer join may null-extend (their whole rows may be NULL).
  const auto mark_nullable = [&] {
    const bool left_null = ref.join_kind == sql::JoinKind::kRight ||
                           ref.join_kind == sql::JoinKind::kFull;
    const bool right_null = ref.join_kind == sql::JoinKind::kLeft ||
                            ref.join_kind == sql::JoinKind::kFull;
    for (size_t t = first_table; t < scope_.size(); ++t) {
      if (t < left_tables ? left_null : right_null) scope_[t].outer_nullable = true;
    }
  };
  LogicalOpPtr right;
  if (IsSetReturningCall(*ref.right)) {
    QUIVER_ASSIGN_OR_RAISE(right, BindLateralFunctionJoin(ref, &left));
    MarkFunctionItems(*ref.right, &scope_, left_tables);
    if (left == nullptr) {
      mark_nullable();
      return right;
    }
  } else if (ref.right->kind == TableRef::kSubquery && ref.right->lateral) {
    const JoinType type = ref.join_kind == sql::JoinKind::kLeft    ? JoinType::kLeft
                          : ref.join_kind == sql::JoinKind::kRight ? JoinType::kRight
                          : ref.join_kind == sql::JoinKind::kFull  ? JoinType::kFull
                                                                   : JoinType::kInner;
    QUIVER_ASSIGN_OR_RAISE(right, BindLateralSubquery(*ref.right, &left, type));
    mark_nullable();
    if (left == nullptr) {
      // `right` is the join already: the ON condition joins its residuals.
      if (!ref.using_columns.empty() || ref.natural || !ref.alias.empty()) {
        return Status::Unsupported("USING, NATURAL or a join alias with a LATERAL subquery")
            .WithPosition(ref.right->location);
      }
      if (ref.condition) {
        ExpressionBinder eb(this, ExpressionBinder::Clause::kJoinOn);
        QUIVER_ASSIGN_OR_RAISE(ExprPtr cond, eb.BindPredicate(*ref.condition, "JOIN/ON"));
        if (cond->HasSubquery()) {
          return Status::Unsupported("subqueries in the ON clause of a LATERAL join")
              .WithPosition(ref.condition->location);
        }
        SplitConjunction(std::move(cond), &right->expressions);
      }
      return right;
    }
  } else {
    QUIVER_ASSIGN_OR_RAISE(right, BindTableRef(*ref.right));
  }
  mark_nullable();
  auto join = std::make_unique<LogicalJoin>(JoinType::kInner);
  // CROSS JOIN, or NATURAL without common columns: planned as a cross product.
  bool cross = ref.join_kind == sql::JoinKind::kCross;
  switch (ref.join_kind) {
    case sql::JoinKind::kInner:
    case sql::JoinKind::kCross:
      join->join_type = JoinType::kInner;
      break;
    case sql::JoinKind::kLeft:
      join->join_type = JoinType::kLeft;
      break;
    case sql::JoinKind::kRight:
      join->join_type = JoinType::kRight;
      break;
    case sql::JoinKind::kFull:
      join->join_type = JoinType::kFull;
      break;
  }
  join->children.push_back(std::move(left));
  join->children.push_back(std::move(right));

  std::vector<std::string> using_cols = ref.using_columns;
  if (ref.natural) {
    // Columns with the same name on both sides.
    for (size_t t = left_tables; t < scope_.size(); ++t) {
      for (size_t i = 0; i < scope_[t].names.size(); ++i) {
        const std::string& n = scope_[t].names[i];
        for (size_t lt = 0; lt < left_tables; ++lt) {
          if (std::find(scope_[lt].names.begin(), scope_[lt].names.end(), n) !=
                  scope_[lt].names.end() &&
              std::find(using_cols.begin(), using_cols.end(), n) == using_cols.end()) {
            using_cols.push_back(n);
          }
        }
      }
    }
    if (using_cols.empty()) cross = true;
  }
  if (!using_cols.empty()) {
    for (const std::string& col : using_cols) {
      // Find the column on each side.
      auto find_side = [&](size_t from, size_t to, ColumnBinding* b, TypeRef* t, size_t* table,
                           size_t* index) -> Status {
        int hits = 0;
        for (size_t s = from; s < to; ++s) {
          for (size_t i = 0; i < scope_[s].names.size(); ++i) {
            if (scope_[s].names[i] == col && !scope_[s].hidden[i]) {
              ++hits;
              *b = scope_[s].bindings[i];
              *t = scope_[s].types[i];
              *table = s;
              *index = i;
            }
          }
        }
        if (hits == 0) {
          return Status::KeyError(
                     "column \"{}\" specified in USING clause does not exist in {} table", col,
                     from == 0 ? "left" : "right")
              .WithSqlState(sqlstate::kUndefinedColumn)
              .WithPosition(ref.location);
        }
        if (hits > 1) {
          return Status::Invalid("common column name \"{}\" appears more than once in {} table",
                                 col, from == 0 ? "left" : "right")
              .WithSqlState(sqlstate::kAmbiguousColumn)
              .WithPosition(ref.location);
        }
        return Status::OK();
      };
      ColumnBinding lb, rb;
      TypeRef lt, rt;
      size_t ltab, lidx, rtab, ridx;
      QUIVER_RETURN_NOT_OK(find_side(0, left_tables, &lb, &lt, &ltab, &lidx));
      QUIVER_RETURN_NOT_OK(find_side(left_tables, scope_.size(), &rb, &rt, &rtab, &ridx));
      std::vector<ExprPtr> args;
      args.push_back(MakeColumnRef(lb, lt, col));
      args.push_back(MakeColumnRef(rb, rt, col));
      QUIVER_ASSIGN_OR_RAISE(ExprPtr eq, BindOperatorCall("=", std::move(args), ref.location));
      join->conditions.push_back({std::move(eq->children[0]), std::move(eq->children[1]), "="});
      // The merged column: the left one (the right one for RIGHT joins,
      // COALESCE for FULL); both stay reachable when qualified.
      if (join->join_type == JoinType::kFull) {
        auto c = std::make_unique<OperatorExpression>(ExprType::kCoalesce, lt);
        c->children.push_back(MakeColumnRef(lb, lt, col));
        c->children.push_back(MakeCast(MakeColumnRef(rb, rt, col), lt));
        c->alias = col;
        using_columns_[col] = std::move(c);
        scope_[rtab].hidden[ridx] = true;
        scope_[ltab].hidden[lidx] = true;
      } else if (join->join_type == JoinType::kRight) {
        scope_[ltab].hidden[lidx] = true;
      } else {
        scope_[rtab].hidden[ridx] = true;
      }
    }
    cross = false;
  }
  if (ref.condition) {
    ExpressionBinder eb(this, ExpressionBinder::Clause::kJoinOn);
    QUIVER_ASSIGN_OR_RAISE(ExprPtr cond, eb.BindPredicate(*ref.condition, "JOIN/ON"));
    if (cond->HasSubquery()) {
      if (join->join_type != JoinType::kInner) {
        return Status::Unsupported("subqueries in the ON clause of an outer join")
            .WithPosition(ref.location);
      }
      // Inner join: the ON condition is a filter over the cross product.
      LogicalOpPtr plan = std::make_unique<LogicalCrossProduct>(std::move(join->children[0]),
                                                                std::move(join->children[1]));
      QUIVER_RETURN_NOT_OK(PlanSubqueries(state_, &cond, &plan));
      std::vector<ExprPtr> conjuncts;
      conjuncts.push_back(std::move(cond));
      return LogicalOpPtr(std::make_unique<LogicalFilter>(std::move(conjuncts), std::move(plan)));
    }
    SplitConjunction(std::move(cond), &join->expressions);
  }
  const bool unconditional =
      join->conditions.empty() && join->expressions.empty() && join->join_type == JoinType::kInner;
  LogicalOpPtr out = std::move(join);
  if (cross || unconditional) {
    auto product = std::make_unique<LogicalCrossProduct>();
    product->TakeSharedFrom(*out);
    out = std::move(product);
  }
  if (!ref.alias.empty()) {
    // JOIN ... AS j: the join's columns under one name.
    ScopeTable merged;
    merged.alias = ref.alias.name;
    merged.join_alias = true;
    for (const auto& t : scope_) {
      for (size_t i = 0; i < t.names.size(); ++i) {
        if (t.hidden[i]) continue;
        merged.names.push_back(t.names[i]);
        merged.types.push_back(t.types[i]);
        merged.bindings.push_back(t.bindings[i]);
      }
    }
    scope_.clear();
    QUIVER_RETURN_NOT_OK(AddScopeTable(std::move(merged), ref.location));
  }
  return out;
}

}  // namespace quiver::plan
