// INSERT ... ON CONFLICT: the proposed rows left-joined to the target's
// current version (with row positions, PositionedTable) on the arbiter key,
// so the conflicts are found by one hash join over the whole statement:
//
//   INSERT t (on_conflict)    PhysicalUpsert (execution/operators/physical_upsert.h)
//     PROJECTION  the row to write: DO NOTHING the proposed row; DO UPDATE
//                   CASE WHEN ctid IS NULL THEN proposed
//                        WHEN matched THEN the SET value (or the old one) ELSE old END,
//                 ctid (NULL: no conflict; DO NOTHING: the first of its
//                 arbiters' ctids), matched ((DO UPDATE's WHERE) IS TRUE),
//                 the proposed row, RETURNING's columns over the row written,
//                 the CHECK columns of the row written, then of the proposed row
//       LEFT JOIN t.k = proposed.k         (DO NOTHING: one per arbiter key)
//         proposed rows (PlanInsert's projection)
//         GET t with ctid (PositionedTable of the version the sink commits against)
//
// The arbiters: ON CONSTRAINT's, else every PRIMARY KEY / UNIQUE whose
// columns are the target's (42P10 without one), else (bare DO NOTHING)
// all. In DO UPDATE's SET and WHERE the target is the existing row (by its
// alias) and `excluded` the proposed one, as in PostgreSQL.
#include "catalog/memory_table.h"
#include "catalog/table_constraints.h"
#include "planner/expression_binder.h"

namespace quiver::plan {
namespace {

ExprPtr IsNull(ExprPtr e) {
  std::vector<ExprPtr> args;
  args.push_back(std::move(e));
  return MakeOperator(ExprType::kIsNull, boolean(), std::move(args));
}

Status NoMatchingConstraint() {
  return Status::Invalid(
             "there is no unique or exclusion constraint matching the ON CONFLICT specification")
      .WithSqlState(sqlstate::kInvalidColumnReference);
}

}  // namespace

Result<BoundQuery> Binder::PlanUpsert(std::shared_ptr<MemoryTable> table, LogicalOpPtr proposed,
                                      int proposed_index, const sql::InsertStatement& s) {
  const sql::InsertStatement::OnConflict& oc = *s.on_conflict;
  const SchemaRef schema = table->schema();
  const int width = schema->num_fields();
  const TableConstraints* tc = table->constraints().get();
  const size_t num_unique = tc != nullptr ? tc->unique.size() : 0;

  // The arbiter constraints' key columns (distinct sets).
  std::vector<std::vector<int>> keys;
  auto add_key = [&](std::vector<int> k) {
    std::sort(k.begin(), k.end());
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(std::move(k));
  };
  if (!oc.constraint.empty()) {
    const UniqueConstraint* found = nullptr;
    for (size_t u = 0; u < num_unique; ++u) {
      if (tc->unique[u].name == oc.constraint) found = &tc->unique[u];
    }
    if (found == nullptr) {
      return Status::KeyError("constraint \"{}\" for table \"{}\" does not exist", oc.constraint,
                              table->name())
          .WithSqlState(sqlstate::kUndefinedObject);
    }
    add_key(found->columns);
  } else if (!oc.columns.empty()) {
    std::vector<int> target;
    for (const std::string& name : oc.columns) {
      const int c = FindColumn(*schema, name);
      if (c < 0) {
        return Status::KeyError("column \"{}\" does not exist", name)
            .WithSqlState(sqlstate::kUndefinedColumn)
            .WithPosition(oc.location);
      }
      if (std::find(target.begin(), target.end(), c) == target.end()) target.push_back(c);
    }
    std::sort(target.begin(), target.end());
    for (size_t u = 0; u < num_unique; ++u) {
      std::vector<int> k = tc->unique[u].columns;
      std::sort(k.begin(), k.end());
      if (k == target) add_key(k);
    }
    if (keys.empty()) return NoMatchingConstraint();
  } else {
    if (oc.update) {
      return Status::Invalid(
                 "ON CONFLICT DO UPDATE requires inference specification or constraint name")
          .WithSqlState(sqlstate::kSyntaxError)
          .WithHint("For example, ON CONFLICT (column_name).")
          .WithPosition(oc.location);
    }
    for (size_t u = 0; u < num_unique; ++u) add_key(tc->unique[u].columns);
  }

  // The current version with row positions, left-joined once per key.
  // Positions count the rows of one version held in memory (a --db table's
  // files are read here, as UPDATE ... FROM reads them).
  QUIVER_ASSIGN_OR_RAISE(TableVersionRef in_memory,
                         MemoryTable::Materialize(table->schema(), table->version()));
  auto positioned = std::make_shared<PositionedTable>(table, std::move(in_memory));
  const sql::Alias alias{s.alias.empty() ? table->name() : s.alias, {}};
  Binder scope(state_);  // DO UPDATE: the target and `excluded`
  LogicalOpPtr plan = std::move(proposed);
  std::vector<ColumnBinding> existing;  // DO UPDATE: the target's columns and ctid
  std::vector<ExprPtr> ctids;
  for (const std::vector<int>& key : keys) {
    Binder get_scope(state_);
    Binder& b = oc.update ? scope : get_scope;
    QUIVER_ASSIGN_OR_RAISE(LogicalOpPtr get, b.MakeGet(positioned, alias, table->name(),
                                                       s.table_location));
    b.scope_.back().hidden.back() = true;  // ctid: only qualified
    const auto bindings = get->GetColumnBindings();
    auto join = std::make_unique<LogicalJoin>(JoinType::kLeft, std::move(plan), std::move(get));
    for (int c : key) {
      const TypeRef& type = schema->field(c)->type;
      join->conditions.push_back({MakeColumnRef({proposed_index, c}, type),
                                  MakeColumnRef(bindings[static_cast<size_t>(c)], type), "="});
    }
    plan = std::move(join);
    ctids.push_back(MakeColumnRef(bindings[static_cast<size_t>(width)], int64(), "ctid"));
    existing = bindings;
  }
  const bool conflicts_possible = !keys.empty();

  // The proposed row as `excluded`.
  std::vector<ExprPtr> values(static_cast<size_t>(width));
  ExprPtr matched = MakeConstant(Value::Boolean(oc.update));
  if (oc.update) {
    ScopeTable excluded;
    excluded.alias = "excluded";
    for (int c = 0; c < width; ++c) {
      excluded.names.push_back(schema->field(c)->name);
      excluded.types.push_back(schema->field(c)->type);
      excluded.bindings.push_back({proposed_index, c});
      excluded.hidden.push_back(false);
    }
    QUIVER_RETURN_NOT_OK(scope.AddScopeTable(std::move(excluded), oc.location));
    for (const auto& [column, expr] : oc.assignments) {
      const int c = FindColumn(*schema, column);
      if (c < 0) {
        return Status::KeyError("column \"{}\" of relation \"{}\" does not exist", column,
                                table->name())
            .WithSqlState(sqlstate::kUndefinedColumn)
            .WithPosition(expr->location);
      }
      if (values[static_cast<size_t>(c)] != nullptr) {
        return Status::Invalid("multiple assignments to same column \"{}\"", column)
            .WithSqlState(sqlstate::kSyntaxError);
      }
      QUIVER_ASSIGN_OR_RAISE(ExprPtr e, BindAssignment(*table, c, *expr, &scope));
      QUIVER_RETURN_NOT_OK(PlanSubqueries(state_, &e, &plan));
      values[static_cast<size_t>(c)] = std::move(e);
    }
    if (oc.where != nullptr) {
      ExpressionBinder eb(&scope, ExpressionBinder::Clause::kWhere);
      QUIVER_ASSIGN_OR_RAISE(ExprPtr cond, eb.BindPredicate(*oc.where, "WHERE"));
      QUIVER_RETURN_NOT_OK(PlanSubqueries(state_, &cond, &plan));
      std::vector<ExprPtr> args;
      args.push_back(std::move(cond));
      args.push_back(MakeConstant(Value::Boolean(false)));
      matched = MakeOperator(ExprType::kCoalesce, boolean(), std::move(args));
    }
  }

  // The projection the sink reads (see the header comment).
  const int rows_index = state_->NewTableIndex();
  std::vector<ExprPtr> exprs;
  for (int c = 0; c < width; ++c) {
    const TypeRef& type = schema->field(c)->type;
    ExprPtr e = MakeColumnRef({proposed_index, c}, type, schema->field(c)->name);
    if (oc.update) {
      ExprPtr old = MakeColumnRef(existing[static_cast<size_t>(c)], type);
      ExprPtr set = values[static_cast<size_t>(c)] != nullptr
                        ? std::move(values[static_cast<size_t>(c)])
                        : old->Copy();
      std::vector<ExprPtr> arms;
      arms.push_back(IsNull(ctids[0]->Copy()));
      arms.push_back(std::move(e));
      arms.push_back(matched->Copy());
      arms.push_back(std::move(set));
      arms.push_back(std::move(old));
      e = MakeOperator(ExprType::kCase, type, std::move(arms));
    }
    e->alias = schema->field(c)->name;
    exprs.push_back(std::move(e));
  }
  ExprPtr ctid;
  if (!conflicts_possible) {
    ctid = MakeConstant(Value::Null(int64()));
  } else if (ctids.size() == 1) {
    ctid = std::move(ctids[0]);
  } else {
    ctid = MakeOperator(ExprType::kCoalesce, int64(), std::move(ctids));
  }
  ctid->alias = "ctid";
  exprs.push_back(std::move(ctid));
  matched->alias = "matched";
  exprs.push_back(std::move(matched));
  for (int c = 0; c < width; ++c) {
    exprs.push_back(MakeColumnRef({proposed_index, c}, schema->field(c)->type,
                                  schema->field(c)->name));
  }
  LogicalOpPtr rows =
      std::make_unique<LogicalProjection>(rows_index, std::move(exprs), std::move(plan));

  // RETURNING reads the row written, by the target's alias.
  BoundQuery returning;
  if (!s.returning.empty()) {
    Binder rscope(state_);
    ScopeTable st;
    st.alias = alias.name;
    for (int c = 0; c < width; ++c) {
      st.names.push_back(schema->field(c)->name);
      st.types.push_back(schema->field(c)->type);
      st.bindings.push_back({rows_index, c});
      st.hidden.push_back(false);
    }
    QUIVER_RETURN_NOT_OK(rscope.AddScopeTable(std::move(st), s.table_location));
    QUIVER_RETURN_NOT_OK(rscope.BindReturning(s.returning, static_cast<size_t>(2 * width + 2),
                                              &rows, &returning));
  }
  QUIVER_ASSIGN_OR_RAISE(rows, AddCheckColumns(*table, std::move(rows)));
  QUIVER_ASSIGN_OR_RAISE(rows, AddCheckColumns(*table, std::move(rows), width + 2));
  BoundQuery q = FinishModification(LogicalOpType::kInsert, std::move(table), std::move(rows),
                                    std::move(returning));
  auto& op = q.plan->As<LogicalModifyTable>();
  op.positioned = positioned->version();
  auto spec = std::make_shared<LogicalModifyTable::OnConflict>();
  spec->update = oc.update;
  spec->keys = std::move(keys);
  op.on_conflict = std::move(spec);
  return q;
}

}  // namespace quiver::plan
