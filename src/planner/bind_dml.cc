// INSERT, UPDATE, DELETE, CREATE TABLE AS and COPY FROM: the rows to write as a query,
// under a logical insert / update / delete (logical_plan.h) that the physical
// planner turns into a sink writing the table
// (execution/operators/physical_modify_table.h):
//
//   INSERT INTO t (cols) q   INSERT t
//                              PROJECTION  one per column of t: q's column cast to the
//                                          column's type (assignment cast), or NULL
//                                q
//   UPDATE t SET c = e       UPDATE t
//     WHERE p                  PROJECTION  one per column of t: the old value, or for c
//                                          CASE WHEN matched THEN CAST(e AS type) ELSE c END;
//                                          then matched, which the sink counts and drops
//                                PROJECTION  every column below, and matched := p IS TRUE
//                                            (without WHERE: neither, matched is TRUE)
//                                  joins of the subqueries in p and e (plan_subquery.cc)
//                                    GET t
//   COPY t FROM 'file'       INSERT t
//                              PROJECTION  the file's columns by position, cast as CAST does
//                                GET 'file' (read with the table's column names and types)
//   DELETE FROM t WHERE p    DELETE t
//                              PROJECTION  the columns of t, then (p IS TRUE): the sink keeps
//                                          the rows where it is FALSE and counts the others
//                                joins of the subqueries in p
//                                  GET t
//
// Subqueries become mark / single / left joins, which keep every row of the
// scan, so the projection sees each row of the table exactly once.
#include <map>
#include <optional>

#include "catalog/memory_table.h"
#include "catalog/table_constraints.h"
#include "columnar/extension_type.h"
#include "functions/cast.h"
#include "functions/function.h"
#include "functions/kernel_util.h"
#include "planner/expression_binder.h"
#include "vector/sql_type.h"

namespace quiver::plan {

// A table being updated or deleted from, bound: its scan (with the joins of
// the WHERE clause's subqueries above), its columns read from the scan, and
// whether a row matched WHERE.
struct Binder::ModifiedTable {
  std::shared_ptr<MemoryTable> table;
  LogicalOpPtr plan;
  std::vector<ExprPtr> columns;
  ExprPtr matched;  // (WHERE) IS TRUE; TRUE without WHERE
};

int FindColumn(const Schema& schema, const std::string& name) {
  const int idx = schema.GetFieldIndex(name);
  if (idx >= 0) return idx;
  for (int f = 0; f < schema.num_fields(); ++f) {
    if (IdentifierEquals(schema.field(f)->name, name)) return f;
  }
  return -1;
}

namespace {

LogicalOpPtr MakeProjection(int table_index, std::vector<ExprPtr> exprs, LogicalOpPtr child) {
  return std::make_unique<LogicalProjection>(table_index, std::move(exprs), std::move(child));
}

}  // namespace

bool IsAssignable(const DataType& from, const DataType& to) {
  return from.id == TypeId::kNull || CanCastImplicitly(from, to) ||
         (CategoryOf(from) == CategoryOf(to) && CanCast(from, to)) ||
         (to.id == TypeId::kString && ExtensionName(to).empty());
}

Result<std::shared_ptr<MemoryTable>> Binder::BindTargetTable(const std::string& name, int location,
                                                             bool insert) {
  auto entry = state_->catalog != nullptr ? state_->catalog->Lookup(name) : nullptr;
  if (entry == nullptr) {
    return Status::KeyError("relation \"{}\" does not exist", name)
        .WithSqlState(sqlstate::kUndefinedTable)
        .WithPosition(location);
  }
  auto table = std::dynamic_pointer_cast<MemoryTable>(entry->table);
  if (table != nullptr) return table;
  if (insert) {
    return Status::Invalid("cannot insert into \"{}\": it is {}", name,
                           entry->view ? "a view" : "read-only (" + entry->table->Describe() + ")")
        .WithSqlState(sqlstate::kWrongObjectType);
  }
  return Status::Invalid("cannot modify \"{}\": it is not a table Quiver stores", name)
      .WithSqlState(sqlstate::kWrongObjectType);
}

Result<ExprPtr> Binder::BindDefault(const MemoryTable& table, int c) {
  const TypeRef& to = table.schema()->field(c)->type;
  const TableConstraints* constraints = table.constraints().get();
  const sql::ParsedExpr* d =
      constraints != nullptr && static_cast<size_t>(c) < constraints->defaults.size()
          ? constraints->defaults[static_cast<size_t>(c)].get()
          : nullptr;
  if (constraints != nullptr && static_cast<size_t>(c) < constraints->sequences.size() &&
      constraints->sequences[static_cast<size_t>(c)] != nullptr) {
    // serial / identity: nextval of the column's sequence, a block per chunk.
    const ColumnSequence& seq = *constraints->sequences[static_cast<size_t>(c)];
    BoundFunction f;
    f.function = seq.nextval.get();
    f.return_type = to;
    return ExprPtr(std::make_unique<FunctionExpression>(std::move(f)));
  }
  if (d == nullptr) return MakeConstant(Value::Null(to));
  // Bound in a scope of its own: a DEFAULT sees no columns.
  Binder scope(state_);
  ExpressionBinder eb(&scope, ExpressionBinder::Clause::kOther);
  QUIVER_ASSIGN_OR_RAISE(ExprPtr e, eb.Bind(*d));
  if (e->unknown_literal) {
    return ExpressionBinder::CastTo(std::move(e), to, d->location, /*explicit_cast=*/true);
  }
  if (!IsAssignable(*e->return_type, *to)) {
    return Status::TypeError(
               "column \"{}\" is of type {} but default expression is of type {}",
               table.schema()->field(c)->name, PgTypeName(*to), PgTypeName(*e->return_type))
        .WithSqlState(sqlstate::kDatatypeMismatch)
        .WithHint("You will need to rewrite or cast the expression.");
  }
  return ExpressionBinder::CastTo(std::move(e), to, d->location, /*explicit_cast=*/false);
}

Result<LogicalOpPtr> Binder::AddCheckColumns(const MemoryTable& table, LogicalOpPtr rows,
                                             int first) {
  const TableConstraints* constraints = table.constraints().get();
  if (constraints == nullptr || constraints->checks.empty()) return rows;
  const SchemaRef schema = table.schema();
  const auto bindings = rows->GetColumnBindings();
  const auto types = rows->GetTypes();
  ScopeTable st;
  st.alias = SplitQualifiedName(table.name()).second;
  for (int c = 0; c < schema->num_fields(); ++c) {
    st.names.push_back(schema->field(c)->name);
    st.types.push_back(schema->field(c)->type);
    st.bindings.push_back(bindings[static_cast<size_t>(first + c)]);
    st.hidden.push_back(false);
  }
  Binder scope(state_);
  QUIVER_RETURN_NOT_OK(scope.AddScopeTable(std::move(st), -1));
  const int index = state_->NewTableIndex();
  std::vector<ExprPtr> exprs;
  for (size_t b = 0; b < bindings.size(); ++b) exprs.push_back(MakeColumnRef(bindings[b], types[b]));
  for (const CheckConstraint& check : constraints->checks) {
    ExpressionBinder eb(&scope, ExpressionBinder::Clause::kOther);
    QUIVER_ASSIGN_OR_RAISE(ExprPtr cond, eb.BindPredicate(*check.expr, "CHECK"));
    // A CHECK passes unless FALSE: NULL passes.
    std::vector<ExprPtr> args;
    args.push_back(std::move(cond));
    args.push_back(MakeConstant(Value::Boolean(true)));
    ExprPtr ok = MakeOperator(ExprType::kCoalesce, boolean(), std::move(args));
    ok->alias = check.name;
    exprs.push_back(std::move(ok));
  }
  return MakeProjection(index, std::move(exprs), std::move(rows));
}

namespace {

// SQLSTATE generated_always (kept here, the one user; common/status.h is
// included by every file).
constexpr const char* kGeneratedAlwaysState = "428C9";

// SQLSTATE string_data_right_truncation (kept here, the one user).
constexpr const char* kStringDataRightTruncation = "22001";

// The value a varchar(n) / char(n) column takes on assignment, as
// PostgreSQL's: up to n characters (not bytes) as it is; longer, cut to n
// when the characters past n are all spaces, else 22001. NULL stays NULL.
Result<ArrayRef> AssignLength(bool blank_padded, const std::vector<VectorRef>& args, int64_t n,
                              const TypeRef& out_type, MemoryPool* pool) {
  kernels::StringAccess s(args[0]);
  kernels::ValidAccess valid(args[0]);
  const int64_t limit = kernels::ReadInt(args[1], 0);
  kernels::StringOutput out(out_type, n, pool);
  for (int64_t i = 0; i < n; ++i) {
    if (!valid(i)) {
      QUIVER_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    std::string_view v = s(i);
    // The byte offset past the first `limit` characters.
    size_t b = 0;
    for (int64_t chars = 0; b < v.size() && chars < limit; ++chars) {
      ++b;
      while (b < v.size() && (static_cast<unsigned char>(v[b]) & 0xC0) == 0x80) ++b;
    }
    if (b < v.size()) {
      if (v.find_first_not_of(' ', b) != std::string_view::npos) {
        return Status::Invalid("value too long for type {}({})",
                               blank_padded ? "character" : "character varying", limit)
            .WithSqlState(kStringDataRightTruncation);
      }
      v = v.substr(0, b);
    }
    QUIVER_RETURN_NOT_OK(out.Append(v));
  }
  return out.Finish();
}

ScalarFunction MakeAssignLength(bool blank_padded) {
  ScalarFunction f;
  f.name = blank_padded ? "bpchar_assign" : "varchar_assign";
  f.args = {utf8(), int64()};
  f.return_type = utf8();
  f.kernel = [blank_padded](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                            const TypeRef& out_type) {
    return AssignLength(blank_padded, args, n, out_type, ctx.pool);
  };
  return f;
}

// `e`, a value assigned to column c of `table`, checked against the
// column's declared varchar(n) / char(n) length (as is without one).
ExprPtr WithAssignedLength(const MemoryTable& table, int c, ExprPtr e) {
  const TableConstraints* tc = table.constraints().get();
  if (tc == nullptr) return e;
  const CharLength length = tc->LengthOf(c);
  if (length.n <= 0 || e->return_type->id != TypeId::kString ||
      !ExtensionName(*e->return_type).empty()) {
    return e;
  }
  static const ScalarFunction varchar_assign = MakeAssignLength(false);
  static const ScalarFunction bpchar_assign = MakeAssignLength(true);
  BoundFunction f;
  f.function = length.blank_padded ? &bpchar_assign : &varchar_assign;
  f.arg_types = {e->return_type, int64()};
  f.return_type = e->return_type;
  std::string alias = e->alias;
  auto out = std::make_unique<FunctionExpression>(std::move(f));
  out->children.push_back(std::move(e));
  out->children.push_back(MakeConstant(Value::Int64(length.n)));
  out->alias = std::move(alias);
  return ExprPtr(std::move(out));
}

// A GENERATED ALWAYS identity column takes no value from UPDATE but DEFAULT.
Status CheckIdentityUpdate(const MemoryTable& table, int c, const sql::ParsedExpr& value) {
  if (IsDefaultValue(value)) return Status::OK();
  const TableConstraints* tc = table.constraints().get();
  if (tc == nullptr || static_cast<size_t>(c) >= tc->sequences.size()) return Status::OK();
  const ColumnSequence* seq = tc->sequences[static_cast<size_t>(c)].get();
  if (seq == nullptr || !seq->always) return Status::OK();
  const std::string& name = table.schema()->field(c)->name;
  return Status::Invalid("column \"{}\" can only be updated to DEFAULT", name)
      .WithSqlState(kGeneratedAlwaysState)
      .WithDetail(fmt::format("Column \"{}\" is an identity column defined as GENERATED ALWAYS.", name));
}

// PostgreSQL refuses these in CHECK constraints when the table is created.
Status CheckExpressionShape(const sql::ParsedExpr& e) {
  if (e.kind == sql::ExprKind::kSubquery) {
    return Status::Unsupported("cannot use subquery in check constraint")
        .WithSqlState(sqlstate::kFeatureNotSupported)
        .WithPosition(e.location);
  }
  for (const auto& c : e.children) {
    if (c != nullptr) QUIVER_RETURN_NOT_OK(CheckExpressionShape(*c));
  }
  return Status::OK();
}

}  // namespace

Result<ExprPtr> Binder::BindAssignment(const MemoryTable& table, int c, const sql::ParsedExpr& v,
                                       Binder* scope) {
  const TypeRef& type = table.schema()->field(c)->type;
  if (IsDefaultValue(v)) {
    const TableConstraints* tc = table.constraints().get();
    if (tc != nullptr && static_cast<size_t>(c) < tc->sequences.size() &&
        tc->sequences[static_cast<size_t>(c)] != nullptr) {
      // The CASE that keeps unmatched rows' values would draw from the
      // sequence for every row, where PostgreSQL draws for the rows updated.
      return Status::Unsupported("UPDATE ... SET {} = DEFAULT on a serial or identity column",
                                 table.schema()->field(c)->name)
          .WithSqlState(sqlstate::kFeatureNotSupported)
          .WithPosition(v.location);
    }
    QUIVER_ASSIGN_OR_RAISE(ExprPtr d, BindDefault(table, c));
    return WithAssignedLength(table, c, std::move(d));
  }
  ExpressionBinder eb(scope, ExpressionBinder::Clause::kUpdate);
  QUIVER_ASSIGN_OR_RAISE(ExprPtr e, eb.Bind(v));
  // The new value is converted as by CAST (what UPDATE has always accepted).
  QUIVER_ASSIGN_OR_RAISE(e, ExpressionBinder::CastTo(std::move(e), type, v.location,
                                                     /*explicit_cast=*/true));
  return WithAssignedLength(table, c, std::move(e));
}

Status Binder::CheckTableExpressions(const MemoryTable& table) {
  for (int c = 0; c < table.schema()->num_fields(); ++c) {
    QUIVER_RETURN_NOT_OK(BindDefault(table, c).status());
  }
  const TableConstraints* constraints = table.constraints().get();
  if (constraints == nullptr || constraints->checks.empty()) return Status::OK();
  for (const CheckConstraint& check : constraints->checks) {
    QUIVER_RETURN_NOT_OK(CheckExpressionShape(*check.expr));
  }
  // Bound over an empty row of the table's types.
  std::vector<ExprPtr> nulls;
  for (const auto& f : table.schema()->fields) {
    nulls.push_back(MakeConstant(Value::Null(f->type)));
    nulls.back()->alias = f->name;
  }
  LogicalOpPtr rows = MakeProjection(state_->NewTableIndex(), std::move(nulls),
                                     std::make_unique<LogicalDummyScan>());
  return AddCheckColumns(table, std::move(rows)).status();
}

BoundQuery Binder::FinishModification(LogicalOpType type, std::shared_ptr<MemoryTable> table,
                                      LogicalOpPtr rows, BoundQuery returning) {
  auto op = std::make_unique<LogicalModifyTable>(type, std::move(table));
  op->table_index = state_->NewTableIndex();
  op->children.push_back(std::move(rows));
  op->returning = returning.types;
  BoundQuery q;
  q.plan = std::move(op);
  if (returning.types.empty()) {
    q.names = {"count"};
    q.types = {int64()};
  } else {
    q.names = std::move(returning.names);
    q.types = std::move(returning.types);
  }
  return q;
}

Status Binder::BindReturning(const sql::ReturningList& list, size_t keep, LogicalOpPtr* rows,
                             BoundQuery* out) {
  if (list.empty()) return Status::OK();
  std::vector<ExprPtr> items;
  for (size_t i = 0; i < list.targets.size(); ++i) {
    const sql::ParsedExpr& t = *list.targets[i];
    if (t.kind == sql::ExprKind::kStar) {
      // `*` / `t.*`: the columns of the tables in scope, as SELECT * lists them.
      const std::string qualifier = t.names.empty() ? "" : t.names.back();
      bool found = qualifier.empty();
      for (const ScopeTable& table : scope_) {
        if (!qualifier.empty() && !IdentifierEquals(table.alias, qualifier)) continue;
        found = true;
        for (size_t c = 0; c < table.names.size(); ++c) {
          if (qualifier.empty() && table.hidden[c]) continue;
          items.push_back(MakeColumnRef(table.bindings[c], table.types[c], table.names[c]));
          out->names.push_back(table.names[c]);
        }
      }
      if (!found) {
        return Status::KeyError("missing FROM-clause entry for table \"{}\"", qualifier)
            .WithSqlState(sqlstate::kUndefinedTable)
            .WithPosition(t.location);
      }
      continue;
    }
    ExpressionBinder eb(this, ExpressionBinder::Clause::kReturning);
    QUIVER_ASSIGN_OR_RAISE(ExprPtr e, eb.Bind(t));
    if (e->return_type->id == TypeId::kNull) {
      // An untyped NULL or literal comes back as text, as PostgreSQL's unknown resolves.
      QUIVER_ASSIGN_OR_RAISE(e, ExpressionBinder::CastTo(std::move(e), utf8(), t.location,
                                                         /*explicit_cast=*/true));
    }
    QUIVER_RETURN_NOT_OK(PlanSubqueries(state_, &e, rows));
    out->names.push_back(list.aliases[i].empty() ? t.ToString() : list.aliases[i]);
    items.push_back(std::move(e));
  }
  // The subqueries' joins keep every row of *rows and its bindings.
  const auto bindings = (*rows)->GetColumnBindings();
  const auto types = (*rows)->GetTypes();
  std::vector<ExprPtr> exprs;
  for (size_t b = 0; b < keep; ++b) exprs.push_back(MakeColumnRef(bindings[b], types[b]));
  for (size_t i = 0; i < items.size(); ++i) {
    out->types.push_back(items[i]->return_type);
    items[i]->alias = out->names[i];
    exprs.push_back(std::move(items[i]));
  }
  *rows = MakeProjection(state_->NewTableIndex(), std::move(exprs), std::move(*rows));
  return Status::OK();
}

Result<BoundQuery> Binder::PlanInsert(std::shared_ptr<MemoryTable> table, BoundQuery source,
                                      const std::vector<int>& mapping, bool explicit_casts,
                                      const sql::InsertStatement* statement) {
  const SchemaRef target = table->schema();
  const int rows_index = state_->NewTableIndex();
  const auto bindings = source.plan->GetColumnBindings();
  std::vector<ExprPtr> exprs;
  for (int c = 0; c < target->num_fields(); ++c) {
    const TypeRef& to = target->field(c)->type;
    const int src = mapping[static_cast<size_t>(c)];
    ExprPtr e;
    const TableConstraints* tc = table->constraints().get();
    const ColumnSequence* seq = tc != nullptr && static_cast<size_t>(c) < tc->sequences.size()
                                    ? tc->sequences[static_cast<size_t>(c)].get()
                                    : nullptr;
    using Overriding = sql::InsertStatement::Overriding;
    const Overriding overriding = statement != nullptr ? statement->overriding : Overriding::kNone;
    if (src >= 0 && seq != nullptr && seq->always && statement != nullptr && overriding == Overriding::kNone) {
      return Status::Invalid("cannot insert a non-DEFAULT value into column \"{}\"", target->field(c)->name)
          .WithSqlState(kGeneratedAlwaysState)
          .WithDetail(fmt::format("Column \"{}\" is an identity column defined as GENERATED ALWAYS.",
                                  target->field(c)->name))
          .WithHint("Use OVERRIDING SYSTEM VALUE to override.");
    }
    if (src < 0 || (seq != nullptr && overriding == Overriding::kUser)) {
      QUIVER_ASSIGN_OR_RAISE(e, BindDefault(*table, c));
    } else {
      const auto s = static_cast<size_t>(src);
      e = MakeColumnRef(bindings[s], source.types[s], source.names[s]);
      const DataType& from = *source.types[s];
      if (!from.Equals(*to)) {
        if (explicit_casts ? !CanCast(from, *to) : !IsAssignable(from, *to)) {
          return Status::TypeError(
                     "column \"{}\" is of type {} but expression is of type {} (you will need to "
                     "rewrite or cast the expression)",
                     target->field(c)->name, PgTypeName(*to), PgTypeName(from))
              .WithSqlState(sqlstate::kDatatypeMismatch);
        }
        e = MakeCast(std::move(e), to);
      }
    }
    e = WithAssignedLength(*table, c, std::move(e));
    e->alias = target->field(c)->name;
    exprs.push_back(std::move(e));
  }
  LogicalOpPtr rows = MakeProjection(rows_index, std::move(exprs), std::move(source.plan));
  if (statement != nullptr && statement->on_conflict != nullptr) {
    return PlanUpsert(std::move(table), std::move(rows), rows_index, *statement);
  }
  BoundQuery returning;
  if (statement != nullptr && !statement->returning.empty()) {
    // RETURNING reads the rows as inserted (defaults filled, values cast):
    // the target, by its alias if it has one, over the projection's outputs.
    ScopeTable st;
    st.alias = statement->alias.empty() ? SplitQualifiedName(table->name()).second : statement->alias;
    for (int c = 0; c < target->num_fields(); ++c) {
      st.names.push_back(target->field(c)->name);
      st.types.push_back(target->field(c)->type);
      st.bindings.push_back({rows_index, c});
      st.hidden.push_back(false);
    }
    QUIVER_RETURN_NOT_OK(AddScopeTable(std::move(st), statement->table_location));
    QUIVER_RETURN_NOT_OK(BindReturning(
        statement->returning, static_cast<size_t>(target->num_fields()), &rows, &returning));
  }
  QUIVER_ASSIGN_OR_RAISE(rows, AddCheckColumns(*table, std::move(rows)));
  return FinishModification(LogicalOpType::kInsert, std::move(table), std::move(rows),
                            std::move(returning));
}

Result<BoundQuery> Binder::BindInsert(const sql::InsertStatement& s) {
  QUIVER_ASSIGN_OR_RAISE(std::shared_ptr<MemoryTable> table,
                         BindTargetTable(s.table, s.table_location, true));
  const SchemaRef target = table->schema();
  // mapping[c]: the source column that table column c takes (-1: none, NULL).
  std::vector<int> mapping(static_cast<size_t>(target->num_fields()), -1);
  size_t given = mapping.size();
  if (!s.columns.empty()) {
    given = s.columns.size();
    for (size_t i = 0; i < s.columns.size(); ++i) {
      const int idx = FindColumn(*target, s.columns[i]);
      if (idx < 0) {
        return Status::KeyError("column \"{}\" of relation \"{}\" does not exist", s.columns[i],
                                s.table)
            .WithSqlState(sqlstate::kUndefinedColumn);
      }
      if (mapping[static_cast<size_t>(idx)] >= 0) {
        return Status::Invalid("column \"{}\" specified more than once", s.columns[i])
            .WithSqlState(sqlstate::kDuplicateColumn);
      }
      mapping[static_cast<size_t>(idx)] = static_cast<int>(i);
    }
  } else {
    for (size_t i = 0; i < mapping.size(); ++i) mapping[i] = static_cast<int>(i);
  }
  if (s.source == nullptr) {
    // INSERT ... DEFAULT VALUES: one row of the columns' defaults.
    BoundQuery one;
    one.plan = std::make_unique<LogicalDummyScan>();
    std::fill(mapping.begin(), mapping.end(), -1);
    return PlanInsert(std::move(table), std::move(one), mapping, false, &s);
  }
  Binder source_binder(state_);
  if (s.source->set_op == sql::SetOpKind::kNone && !s.source->values.empty()) {
    const auto& first = s.source->values[0];
    if (first.size() > given) {
      return Status::Invalid("INSERT has more expressions than target columns")
          .WithSqlState(sqlstate::kSyntaxError)
          .WithPosition(first[given]->location);
    }
    // INSERT ... VALUES: each value takes its column's type, and DEFAULT
    // its column's default. Without a column list, a shorter row fills the
    // first columns.
    std::vector<int> column_of(first.size(), -1);
    for (size_t c = 0; c < mapping.size(); ++c) {
      const int v = mapping[c];
      if (v >= 0 && static_cast<size_t>(v) < first.size()) column_of[static_cast<size_t>(v)] = static_cast<int>(c);
    }
    std::vector<TypeRef> types;
    for (int c : column_of) types.push_back(target->field(c)->type);
    // A column that is DEFAULT in every row takes its default above VALUES,
    // as a column left out does (a GENERATED ALWAYS identity column accepts
    // it; a sequence advances once per row, in blocks); VALUES holds NULLs
    // there. A column mixing DEFAULT and values takes it in VALUES.
    std::vector<bool> all_default(first.size(), true);
    for (const auto& row : s.source->values) {
      for (size_t v = 0; v < row.size() && v < all_default.size(); ++v) {
        if (!IsDefaultValue(*row[v])) all_default[v] = false;
      }
    }
    for (size_t v = 0; v < first.size(); ++v) {
      if (all_default[v]) mapping[static_cast<size_t>(column_of[v])] = -1;
    }
    MemoryTable* t = table.get();
    source_binder.SetValuesTargetTypes(
        types, [this, t, column_of, all_default, types](size_t v) -> Result<ExprPtr> {
          if (all_default[v]) return MakeConstant(Value::Null(types[v]));
          return BindDefault(*t, column_of[v]);
        });
  }
  QUIVER_ASSIGN_OR_RAISE(BoundQuery q, source_binder.BindQuery(*s.source));
  if (q.types.size() > given) {
    return Status::Invalid("INSERT has more expressions than target columns")
        .WithSqlState(sqlstate::kSyntaxError);
  }
  if (q.types.size() < given) {
    if (!s.columns.empty()) {
      return Status::Invalid("INSERT has more target columns than expressions")
          .WithSqlState(sqlstate::kSyntaxError);
    }
    // INSERT INTO t SELECT fewer columns: the remaining ones are NULL.
    for (size_t i = q.types.size(); i < mapping.size(); ++i) mapping[i] = -1;
  }
  return PlanInsert(std::move(table), std::move(q), mapping, false, &s);
}

namespace {

// PostgreSQL's exprTypmod for CREATE TABLE AS: the varchar(n) / char(n)
// length a text output column keeps. A column read as it is (through
// projections, subqueries, joins, GROUP BY, DISTINCT) keeps its table
// column's; an explicit cast gives its own (none for text / varchar);
// CASE, COALESCE and UNION / INTERSECT / EXCEPT keep a length all their
// branches share; any other expression has none.
CharLength LengthOfBinding(const LogicalOperator& op, ColumnBinding b);

CharLength LengthOfExpr(const Expression& e, const LogicalOperator& input) {
  if (e.return_type->id != TypeId::kString || !ExtensionName(*e.return_type).empty()) return {};
  if (e.cast_length != 0) {
    if (e.cast_length < 0) return {};
    return {e.cast_length, e.cast_blank_padded};
  }
  auto shared = [&](const std::vector<const Expression*>& branches) -> CharLength {
    if (branches.empty()) return {};
    const CharLength first = LengthOfExpr(*branches[0], input);
    for (size_t i = 1; i < branches.size(); ++i) {
      if (!(LengthOfExpr(*branches[i], input) == first)) return {};
    }
    return first;
  };
  switch (e.type) {
    case ExprType::kColumnRef: {
      const auto& ref = e.As<ColumnRefExpression>();
      return ref.depth == 0 ? LengthOfBinding(input, ref.binding) : CharLength{};
    }
    case ExprType::kCase: {
      std::vector<const Expression*> results;
      for (size_t i = 1; i < e.children.size(); i += 2) results.push_back(e.children[i].get());
      results.push_back(e.children.back().get());
      return shared(results);
    }
    case ExprType::kCoalesce: {
      std::vector<const Expression*> args;
      for (const auto& c : e.children) args.push_back(c.get());
      return shared(args);
    }
    default:
      return {};
  }
}

CharLength LengthOfBinding(const LogicalOperator& op, ColumnBinding b) {
  const auto at = static_cast<size_t>(b.column);
  if (const auto* get = op.TryAs<LogicalGet>()) {
    if (get->table_index != b.table) return {};
    const auto* table = dynamic_cast<const MemoryTable*>(get->table.get());
    if (table == nullptr || table->constraints() == nullptr) return {};
    return table->constraints()->LengthOf(b.column);
  }
  if (const auto* proj = op.TryAs<LogicalProjection>()) {
    if (proj->table_index == b.table) {
      return at < proj->expressions.size() ? LengthOfExpr(*proj->expressions[at], *op.children[0])
                                           : CharLength{};
    }
  }
  if (const auto* agg = op.TryAs<LogicalAggregate>()) {
    if (agg->group_index == b.table) {
      return at < agg->groups.size() ? LengthOfExpr(*agg->groups[at], *op.children[0])
                                     : CharLength{};
    }
    if (agg->aggregate_index == b.table) return {};
  }
  if (const auto* setop = op.TryAs<LogicalSetOp>()) {
    if (setop->table_index == b.table) {
      std::optional<CharLength> common;
      for (const auto& child : op.children) {
        const auto bindings = child->GetColumnBindings();
        if (at >= bindings.size()) return {};
        const CharLength l = LengthOfBinding(*child, bindings[at]);
        if (common && !(*common == l)) return {};
        common = l;
      }
      return common.value_or(CharLength{});
    }
  }
  // Filters, sorts, limits, joins, DISTINCT: the binding comes from a child.
  for (const auto& child : op.children) {
    for (const ColumnBinding& cb : child->GetColumnBindings()) {
      if (cb == b) return LengthOfBinding(*child, b);
    }
  }
  return {};
}

}  // namespace

Result<BoundQuery> Binder::BindCreateTableAs(const sql::CreateTableStatement& s,
                                             std::shared_ptr<MemoryTable>* table) {
  Binder source_binder(state_);
  QUIVER_ASSIGN_OR_RAISE(BoundQuery q, source_binder.BindQuery(*s.as_select));
  if (s.as_columns.size() > q.names.size()) {
    return Status::Invalid("too many column names were specified")
        .WithSqlState(sqlstate::kSyntaxError);
  }
  std::vector<FieldRef> fields;
  std::vector<int> mapping;
  auto constraints = std::make_shared<TableConstraints>();
  const std::vector<ColumnBinding> outputs = q.plan->GetColumnBindings();
  for (size_t i = 0; i < q.names.size(); ++i) {
    // A column of NULLs needs a type to be stored: text, as PostgreSQL's
    // unknown resolves.
    TypeRef t = q.types[i]->id == TypeId::kNull ? utf8() : q.types[i];
    fields.push_back(field(i < s.as_columns.size() ? s.as_columns[i] : q.names[i], t));
    mapping.push_back(static_cast<int>(i));
    constraints->lengths.push_back(i < outputs.size() ? LengthOfBinding(*q.plan, outputs[i])
                                                      : CharLength{});
  }
  *table = std::make_shared<MemoryTable>(
      s.name, schema(std::move(fields)),
      constraints->HasLengths() ? std::shared_ptr<const TableConstraints>(std::move(constraints))
                                : nullptr);
  return PlanInsert(*table, std::move(q), mapping);
}

Result<BoundQuery> Binder::BindTableRewrite(std::shared_ptr<MemoryTable> from,
                                            std::shared_ptr<MemoryTable> to,
                                            const std::vector<int>& moved) {
  BoundQuery source;
  QUIVER_ASSIGN_OR_RAISE(source.plan, MakeGet(from, sql::Alias{}, from->name(), -1));
  for (const auto& f : from->schema()->fields) {
    source.names.push_back(f->name);
    source.types.push_back(f->type);
  }
  return PlanInsert(std::move(to), std::move(source), moved);
}

Result<BoundQuery> Binder::BindCopyFrom(std::shared_ptr<MemoryTable> table,
                                        std::shared_ptr<TableSource> files,
                                        const std::string& file) {
  const SchemaRef target = table->schema();
  const SchemaRef read = files->schema();
  if (read->num_fields() != target->num_fields()) {
    return Status::Invalid("{}: has {} columns, table \"{}\" has {}", file, read->num_fields(),
                           table->name(), target->num_fields());
  }
  BoundQuery source;
  QUIVER_ASSIGN_OR_RAISE(source.plan, MakeGet(files, sql::Alias{}, table->name(), -1));
  std::vector<int> mapping;
  for (int c = 0; c < read->num_fields(); ++c) {
    source.names.push_back(read->field(c)->name);
    source.types.push_back(read->field(c)->type);
    mapping.push_back(c);
  }
  return PlanInsert(std::move(table), std::move(source), mapping, /*explicit_casts=*/true);
}

Result<Binder::ModifiedTable> Binder::BindModifiedTable(const std::string& name, int location,
                                                        const sql::Alias& alias,
                                                        const sql::ParsedExpr* where) {
  ModifiedTable m;
  QUIVER_ASSIGN_OR_RAISE(m.table, BindTargetTable(name, location, false));
  QUIVER_ASSIGN_OR_RAISE(m.plan, MakeGet(m.table, alias, SplitQualifiedName(name).second, location));
  const SchemaRef schema = m.table->schema();
  const auto bindings = m.plan->GetColumnBindings();
  for (int c = 0; c < schema->num_fields(); ++c) {
    m.columns.push_back(MakeColumnRef(bindings[static_cast<size_t>(c)], schema->field(c)->type,
                                      schema->field(c)->name));
  }
  if (where == nullptr) {
    m.matched = MakeConstant(Value::Boolean(true));
  } else {
    ExpressionBinder eb(this, ExpressionBinder::Clause::kWhere);
    QUIVER_ASSIGN_OR_RAISE(ExprPtr cond, eb.BindPredicate(*where, "WHERE"));
    QUIVER_RETURN_NOT_OK(PlanSubqueries(state_, &cond, &m.plan));
    // IS TRUE: a NULL condition leaves the row alone.
    std::vector<ExprPtr> args;
    args.push_back(std::move(cond));
    args.push_back(MakeConstant(Value::Boolean(false)));
    m.matched = MakeOperator(ExprType::kCoalesce, boolean(), std::move(args));
  }
  m.matched->alias = "matched";
  return m;
}

Result<BoundQuery> Binder::BindModifiedReturning(const MemoryTable& table, const sql::Alias& alias,
                                                 const sql::ReturningList& list, int rows_index,
                                                 LogicalOpPtr* rows) {
  BoundQuery out;
  if (list.empty()) return out;
  // A scope of its own: the target (by its alias) over `rows`' first
  // outputs, the row as written or deleted, rather than the scan's columns.
  Binder scope(state_);
  ScopeTable st;
  st.alias = alias.empty() ? SplitQualifiedName(table.name()).second : alias.name;
  const SchemaRef schema = table.schema();
  for (int c = 0; c < schema->num_fields(); ++c) {
    st.names.push_back(schema->field(c)->name);
    st.types.push_back(schema->field(c)->type);
    st.bindings.push_back({rows_index, c});
    st.hidden.push_back(false);
  }
  QUIVER_RETURN_NOT_OK(scope.AddScopeTable(std::move(st), -1));
  // The table's columns and `matched` stay below RETURNING's.
  QUIVER_RETURN_NOT_OK(
      scope.BindReturning(list, static_cast<size_t>(schema->num_fields()) + 1, rows, &out));
  return out;
}

Result<BoundQuery> Binder::BindJoinedModification(
    LogicalOpType type, const std::string& name, int location, const sql::Alias& alias,
    const std::vector<std::unique_ptr<sql::TableRef>>& from, const sql::ParsedExpr* where,
    const std::vector<std::pair<std::string, sql::ExprPtr>>* assignments,
    const sql::ReturningList& returning) {
  QUIVER_ASSIGN_OR_RAISE(std::shared_ptr<MemoryTable> table,
                         BindTargetTable(name, location, false));
  // Positions count the rows of one version held in memory (a --db
  // table's files are read here: UPDATE and DELETE rewrite the table).
  QUIVER_ASSIGN_OR_RAISE(TableVersionRef in_memory,
                         MemoryTable::Materialize(table->schema(), table->version()));
  auto positioned = std::make_shared<PositionedTable>(table, std::move(in_memory));
  QUIVER_ASSIGN_OR_RAISE(LogicalOpPtr plan,
                         MakeGet(positioned, alias, SplitQualifiedName(name).second, location));
  // The position column is reachable only qualified (t.ctid), as PostgreSQL's.
  scope_.back().hidden.back() = true;
  const size_t first_source = scope_.size();
  const auto target = plan->GetColumnBindings();
  const SchemaRef schema = table->schema();
  const int width = schema->num_fields();
  QUIVER_ASSIGN_OR_RAISE(LogicalOpPtr sources, BindFrom(from));
  plan = std::make_unique<LogicalCrossProduct>(std::move(plan), std::move(sources));
  if (where != nullptr) {
    ExpressionBinder eb(this, ExpressionBinder::Clause::kWhere);
    QUIVER_ASSIGN_OR_RAISE(ExprPtr cond, eb.BindPredicate(*where, "WHERE"));
    QUIVER_RETURN_NOT_OK(PlanSubqueries(state_, &cond, &plan));
    std::vector<ExprPtr> conjuncts;
    SplitConjunction(std::move(cond), &conjuncts);
    plan = std::make_unique<LogicalFilter>(std::move(conjuncts), std::move(plan));
  }
  // The row written: the new values (UPDATE) or the old ones (DELETE).
  std::vector<ExprPtr> exprs;
  for (int c = 0; c < width; ++c) {
    exprs.push_back(MakeColumnRef(target[static_cast<size_t>(c)], schema->field(c)->type,
                                  schema->field(c)->name));
  }
  if (assignments != nullptr) {
    std::vector<const sql::ParsedExpr*> new_values(static_cast<size_t>(width), nullptr);
    for (const auto& [column, expr] : *assignments) {
      const int idx = FindColumn(*schema, column);
      if (idx < 0) {
        return Status::KeyError("column \"{}\" of relation \"{}\" does not exist", column, name)
            .WithSqlState(sqlstate::kUndefinedColumn);
      }
      QUIVER_RETURN_NOT_OK(CheckIdentityUpdate(*table, idx, *expr));
      new_values[static_cast<size_t>(idx)] = expr.get();
    }
    for (int c = 0; c < width; ++c) {
      const sql::ParsedExpr* v = new_values[static_cast<size_t>(c)];
      if (v == nullptr) continue;
      QUIVER_ASSIGN_OR_RAISE(ExprPtr e, BindAssignment(*table, c, *v, this));
      QUIVER_RETURN_NOT_OK(PlanSubqueries(state_, &e, &plan));
      e->alias = schema->field(c)->name;
      exprs[static_cast<size_t>(c)] = std::move(e);
    }
  }
  exprs.push_back(MakeColumnRef(target[static_cast<size_t>(width)], int64(), "ctid"));
  // RETURNING may read the FROM items' columns: they pass through, after
  // the position, to the projection BindReturning puts on top.
  const int rows_index = state_->NewTableIndex();
  Binder scope(state_);
  if (!returning.empty()) {
    ScopeTable st;
    st.alias = scope_[first_source - 1].alias;
    for (int c = 0; c < width; ++c) {
      st.names.push_back(schema->field(c)->name);
      st.types.push_back(schema->field(c)->type);
      st.bindings.push_back({rows_index, c});
      st.hidden.push_back(false);
    }
    QUIVER_RETURN_NOT_OK(scope.AddScopeTable(std::move(st), -1));
    for (size_t t = first_source; t < scope_.size(); ++t) {
      ScopeTable st = scope_[t];
      for (size_t c = 0; c < st.bindings.size(); ++c) {
        const ColumnBinding b = st.bindings[c];
        st.bindings[c] = {rows_index, static_cast<int>(exprs.size())};
        exprs.push_back(MakeColumnRef(b, st.types[c], st.names[c]));
      }
      QUIVER_RETURN_NOT_OK(scope.AddScopeTable(std::move(st), -1));
    }
  }
  LogicalOpPtr rows = MakeProjection(rows_index, std::move(exprs), std::move(plan));
  BoundQuery out;
  QUIVER_RETURN_NOT_OK(
      scope.BindReturning(returning, static_cast<size_t>(width) + 1, &rows, &out));
  if (type == LogicalOpType::kUpdate) {
    QUIVER_ASSIGN_OR_RAISE(rows, AddCheckColumns(*table, std::move(rows)));
  }
  BoundQuery q = FinishModification(type, std::move(table), std::move(rows), std::move(out));
  static_cast<LogicalModifyTable*>(q.plan.get())->positioned = positioned->version();
  return q;
}

Result<BoundQuery> Binder::BindUpdate(const sql::UpdateStatement& s) {
  if (!s.from.empty()) {
    return BindJoinedModification(LogicalOpType::kUpdate, s.table, s.table_location, s.alias,
                                  s.from, s.where.get(), &s.assignments, s.returning);
  }
  // WHERE is bound before the SET list, as PostgreSQL does (its errors first).
  QUIVER_ASSIGN_OR_RAISE(ModifiedTable m,
                         BindModifiedTable(s.table, s.table_location, s.alias, s.where.get()));
  const SchemaRef schema = m.table->schema();
  std::vector<const sql::ParsedExpr*> new_values(static_cast<size_t>(schema->num_fields()),
                                                 nullptr);
  for (const auto& [name, expr] : s.assignments) {
    const int idx = FindColumn(*schema, name);
    if (idx < 0) {
      return Status::KeyError("column \"{}\" of relation \"{}\" does not exist", name, s.table)
          .WithSqlState(sqlstate::kUndefinedColumn);
    }
    QUIVER_RETURN_NOT_OK(CheckIdentityUpdate(*m.table, idx, *expr));
    // A column assigned twice takes the rightmost value, as SQLite does (the
    // sqllogictest corpus expects it; PostgreSQL rejects the statement).
    new_values[static_cast<size_t>(idx)] = expr.get();
  }
  // The new values, cast to the columns' types (null: not assigned).
  std::vector<ExprPtr> values(new_values.size());
  for (int c = 0; c < schema->num_fields(); ++c) {
    const auto i = static_cast<size_t>(c);
    if (new_values[i] == nullptr) continue;
    QUIVER_ASSIGN_OR_RAISE(ExprPtr e, BindAssignment(*m.table, c, *new_values[i], this));
    QUIVER_RETURN_NOT_OK(PlanSubqueries(state_, &e, &m.plan));
    values[i] = std::move(e);
  }
  if (s.where != nullptr) {
    // WHERE is evaluated once per row: a projection below the CASEs computes
    // `matched` beside every column of the scan and the subqueries' joins, and
    // the CASEs and the sink read that one value (a volatile condition, such
    // as random() < 0.5, updates all of a row's columns or none, and the
    // count agrees).
    const auto bindings = m.plan->GetColumnBindings();
    const auto types = m.plan->GetTypes();
    const int below = state_->NewTableIndex();
    std::map<ColumnBinding, ColumnBinding> forwarded;
    std::vector<ExprPtr> lower;
    for (size_t b = 0; b < bindings.size(); ++b) {
      forwarded[bindings[b]] = {below, static_cast<int>(b)};
      lower.push_back(MakeColumnRef(bindings[b], types[b]));
    }
    const ColumnBinding matched{below, static_cast<int>(lower.size())};
    lower.push_back(std::move(m.matched));
    m.plan = MakeProjection(below, std::move(lower), std::move(m.plan));
    auto rebind = [&](ExprPtr* e) {
      VisitExpression(e, [&](ExprPtr* x) {
        if (auto* ref = LocalColumnRef(**x)) {
          auto it = forwarded.find(ref->binding);
          if (it != forwarded.end()) ref->binding = it->second;
        }
      });
    };
    for (auto& c : m.columns) rebind(&c);
    for (auto& v : values) {
      if (v != nullptr) rebind(&v);
    }
    m.matched = MakeColumnRef(matched, boolean(), "matched");
  }
  std::vector<ExprPtr> exprs;
  for (int c = 0; c < schema->num_fields(); ++c) {
    const auto i = static_cast<size_t>(c);
    ExprPtr e = std::move(values[i]);
    if (e == nullptr) {
      exprs.push_back(std::move(m.columns[i]));  // not assigned: the old value
      continue;
    }
    if (s.where != nullptr) {
      std::vector<ExprPtr> arms;
      arms.push_back(m.matched->Copy());
      arms.push_back(std::move(e));
      arms.push_back(std::move(m.columns[i]));
      e = MakeOperator(ExprType::kCase, schema->field(c)->type, std::move(arms));
    }
    e->alias = schema->field(c)->name;
    exprs.push_back(std::move(e));
  }
  exprs.push_back(std::move(m.matched));
  const int rows_index = state_->NewTableIndex();
  LogicalOpPtr rows = MakeProjection(rows_index, std::move(exprs), std::move(m.plan));
  // RETURNING reads the new values.
  QUIVER_ASSIGN_OR_RAISE(BoundQuery returning,
                         BindModifiedReturning(*m.table, s.alias, s.returning, rows_index, &rows));
  QUIVER_ASSIGN_OR_RAISE(rows, AddCheckColumns(*m.table, std::move(rows)));
  return FinishModification(LogicalOpType::kUpdate, std::move(m.table), std::move(rows),
                            std::move(returning));
}

Result<BoundQuery> Binder::BindDelete(const sql::DeleteStatement& s) {
  if (!s.using_.empty()) {
    return BindJoinedModification(LogicalOpType::kDelete, s.table, s.table_location, s.alias,
                                  s.using_, s.where.get(), nullptr, s.returning);
  }
  QUIVER_ASSIGN_OR_RAISE(ModifiedTable m,
                         BindModifiedTable(s.table, s.table_location, s.alias, s.where.get()));
  std::vector<ExprPtr> exprs = std::move(m.columns);
  exprs.push_back(std::move(m.matched));
  const int rows_index = state_->NewTableIndex();
  LogicalOpPtr rows = MakeProjection(rows_index, std::move(exprs), std::move(m.plan));
  // RETURNING reads the deleted rows.
  QUIVER_ASSIGN_OR_RAISE(BoundQuery returning,
                         BindModifiedReturning(*m.table, s.alias, s.returning, rows_index, &rows));
  return FinishModification(LogicalOpType::kDelete, std::move(m.table), std::move(rows),
                            std::move(returning));
}

}  // namespace quiver::plan
