// The binder: AST (sql/ast.h) -> logical plan, resolving names against the
// catalog and types with PostgreSQL's rules.
//
// Scopes: each SELECT gets a Binder; a subquery's Binder has the enclosing
// one as parent, so a name not found locally is looked up outward and bound
// as a correlated reference (depth > 0). Subqueries in expressions are
// planned into joins right after their clause is bound (plan_subquery.cc),
// so finished plans never contain kSubquery expressions.
//
// Errors carry PostgreSQL's texts and the position of the offending token:
//   column "x" does not exist / relation "t" does not exist /
//   column reference "a" is ambiguous / column "t.a" must appear in the
//   GROUP BY clause or be used in an aggregate function / ...
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "common/file_access.h"
#include "planner/logical_plan.h"
#include "sql/ast.h"

namespace quiver::plan {

// Shared by all binders of one statement: fresh table indices, parameters.
struct BindState {
  const Catalog* catalog = nullptr;
  std::vector<Value> parameters;  // $1, $2, ...
  // Files the statement may read (FROM 'file', read_csv, ...); null: any.
  const FileAccessPolicy* file_policy = nullptr;
  int next_table_index = 0;
  int NewTableIndex() { return next_table_index++; }
  // WITH RECURSIVE: the working tables of the recursive terms being bound
  // (innermost last); a reference to `name` inside one scans `table`.
  struct WorkingTable {
    std::string name;
    std::shared_ptr<MemoryTable> table;
  };
  std::vector<WorkingTable> working_tables;
};

// Copies a plan giving every table index in it a fresh number (so the copy
// can sit in the same plan as the original); `map` receives old -> new for
// every binding of the copy (its outputs and all inside).
LogicalOpPtr CopyFresh(const LogicalOperator& op, BindState* state,
                       std::map<ColumnBinding, ColumnBinding>* map);

// A column from an outer query referenced inside a subquery.
struct CorrelatedColumn {
  ColumnBinding binding;
  TypeRef type;
  std::string name;
  int depth = 1;
  bool operator==(const CorrelatedColumn& o) const {
    return binding == o.binding && depth == o.depth;
  }
};

struct BoundSubquery {
  sql::SubqueryKind kind = sql::SubqueryKind::kScalar;
  LogicalOpPtr plan;
  TypeRef type;                              // scalar: the column's type
  std::vector<CorrelatedColumn> correlated;  // depth counted from the subquery
  std::string op = "=";                      // ANY / ALL comparison
  ExprPtr test;                              // ANY / ALL left-hand side (bound in the outer scope)
  int location = -1;
};

// A SELECT (or VALUES, or set operation) once bound.
struct BoundQuery {
  LogicalOpPtr plan;
  std::vector<std::string> names;
  std::vector<TypeRef> types;
};

// One table visible in a FROM scope.
struct ScopeTable {
  std::string alias;
  std::vector<std::string> names;
  std::vector<TypeRef> types;
  std::vector<ColumnBinding> bindings;
  std::vector<bool> hidden;  // merged away by USING/NATURAL (still reachable qualified)
  // Columns of the table that queries cannot read yet (name, type text):
  // naming one, or `*` over the table, is an error rather than a column
  // silently missing (TableSource::UnreadableColumns).
  std::vector<std::pair<std::string, std::string>> unreadable;
  // On the nullable side of an outer join (its whole row may be NULL), or a
  // join's alias (JOIN ... AS j): whole-row references to these are refused.
  bool outer_nullable = false;
  bool join_alias = false;
  // A set-returning function in FROM (generate_series, unnest, jsonb_each
  // ...): PostgreSQL's whole row of one returning a scalar is that scalar,
  // so whole-row references to these are refused as well.
  bool function_item = false;
};

// A column of `schema` by name: the exact name, else the case-insensitive
// match (as the catalog looks up tables); -1 when none (bind_dml.cc).
int FindColumn(const Schema& schema, const std::string& name);

class Binder {
 public:
  explicit Binder(BindState* state, Binder* parent = nullptr) : state_(state), parent_(parent) {}

  // Binds a query; the plan's final projection yields `names`/`types`.
  Result<BoundQuery> BindQuery(const sql::SelectNode& node);

  // Data modification (bind_dml.cc): a logical insert / update / delete
  // (logical_plan.h) over the query computing the rows it writes; the bound
  // query's one column is the number of rows written.
  Result<BoundQuery> BindInsert(const sql::InsertStatement& s);
  Result<BoundQuery> BindUpdate(const sql::UpdateStatement& s);
  Result<BoundQuery> BindDelete(const sql::DeleteStatement& s);
  // ALTER TABLE ... ADD COLUMN over rows: the insert of `from`'s rows into
  // `to`, column c of `to` taking column moved[c] of `from` (-1: its DEFAULT).
  Result<BoundQuery> BindTableRewrite(std::shared_ptr<MemoryTable> from,
                                      std::shared_ptr<MemoryTable> to,
                                      const std::vector<int>& moved);
  // CREATE TABLE ... AS: an insert into a new table, `*table`, which the
  // caller adds to the catalog once the rows are in.
  Result<BoundQuery> BindCreateTableAs(const sql::CreateTableStatement& s,
                                       std::shared_ptr<MemoryTable>* table);
  // COPY table FROM file: an insert of the file's columns, by position,
  // converted as CAST converts (`files` opened with the table's columns).
  Result<BoundQuery> BindCopyFrom(std::shared_ptr<MemoryTable> table,
                                  std::shared_ptr<TableSource> files, const std::string& file);

  // CREATE TABLE: binds the table's DEFAULT and CHECK expressions once, so
  // that their errors are reported when the table is created.
  Status CheckTableExpressions(const MemoryTable& table);
  // INSERT ... VALUES: the target columns' types, so literals take them
  // (PostgreSQL resolves VALUES of an INSERT against the table), and what
  // a DEFAULT in VALUES column c stands for (the target column's default).
  using DefaultBinder = std::function<Result<ExprPtr>(size_t c)>;
  void SetValuesTargetTypes(std::vector<TypeRef> types, DefaultBinder defaults) {
    values_target_types_ = std::move(types);
    values_defaults_ = std::move(defaults);
  }

  // The correlated columns this binder's expressions used (depth relative
  // to this binder).
  const std::vector<CorrelatedColumn>& correlated() const { return correlated_; }

  BindState* state() const { return state_; }

 private:
  friend class ExpressionBinder;
  friend class SubqueryPlanner;

  // bind_select.cc: a SELECT clause by clause (SelectBinding carries the
  // state from one step to the next).
  struct SelectBinding;
  Result<BoundQuery> BindSelect(const sql::SelectNode& node);
  Result<LogicalOpPtr> BindWhere(const sql::SelectNode& node, LogicalOpPtr plan);
  Status ExpandSelectList(const sql::SelectNode& node, SelectBinding* sb);
  static bool HasAggregation(const sql::SelectNode& node, const SelectBinding& sb);
  Status BindGroupBy(const sql::SelectNode& node, SelectBinding* sb);
  Status BindSelectList(const sql::SelectNode& node, SelectBinding* sb);
  Status BindHaving(const sql::SelectNode& node, SelectBinding* sb);
  Status BindOrderBy(const sql::SelectNode& node, SelectBinding* sb);
  // The select-list column (maybe a hidden one it adds) that an ORDER BY or
  // DISTINCT ON item names: by position, output name or equal expression.
  Result<int> BindOutputColumn(const sql::SelectNode& node, SelectBinding* sb,
                               const sql::ParsedExpr& expr, bool order_by);
  // SELECT DISTINCT ON: its keys as columns, checked against ORDER BY.
  Status BindDistinctOn(const sql::SelectNode& node, SelectBinding* sb);
  static Status ReferToAggregation(const SelectBinding& sb, ExprPtr* e, int location);
  Result<LogicalOpPtr> PlanAggregation(SelectBinding* sb, LogicalOpPtr plan);
  Result<BoundQuery> PlanSelectOutput(const sql::SelectNode& node, SelectBinding* sb,
                                      LogicalOpPtr plan);
  Result<LogicalOpPtr> BindLimit(const sql::SelectNode& node, LogicalOpPtr plan);
  Result<LogicalOpPtr> BindLimitWithTies(const sql::SelectNode& node, std::vector<OrderSpec> orders,
                                         LogicalOpPtr plan);
  Result<BoundQuery> BindSetOp(const sql::SelectNode& node);
  Result<BoundQuery> BindValues(const sql::SelectNode& node);
  Status ApplyOrderLimit(const sql::SelectNode& node, BoundQuery* q,
                         std::vector<const sql::ParsedExpr*> select_exprs);
  Result<int64_t> BindLimitValue(const sql::ParsedExpr& e, const char* what);

  // bind_dml.cc
  // The memory table `name` names; other relations are an error (worded for
  // INSERT when `insert`).
  Result<std::shared_ptr<MemoryTable>> BindTargetTable(const std::string& name, int location,
                                                       bool insert);
  // The logical insert of `source`'s rows into `table`: target column c
  // takes source column mapping[c] (-1: NULL), converted by assignment casts
  // (by any cast CAST allows when `explicit_casts`).
  Result<BoundQuery> PlanInsert(std::shared_ptr<MemoryTable> table, BoundQuery source,
                                const std::vector<int>& mapping, bool explicit_casts = false,
                                const sql::InsertStatement* statement = nullptr);
  // RETURNING, bound in this binder's scope (the target table, its columns
  // read from *rows's outputs, and UPDATE's FROM items): a projection over
  // *rows (subqueries planned below it) keeping its first `keep` outputs,
  // then one per RETURNING item; their names and types go to *out.
  Status BindReturning(const sql::ReturningList& list, size_t keep, LogicalOpPtr* rows,
                       BoundQuery* out);
  // UPDATE / DELETE: a scan of `table` in scope, WHERE bound over it as
  // `matched` (the condition IS TRUE), subqueries planned below.
  struct ModifiedTable;
  Result<ModifiedTable> BindModifiedTable(const std::string& name, int location,
                                          const sql::Alias& alias, const sql::ParsedExpr* where);
  // UPDATE ... FROM and DELETE ... USING: the target (with row positions,
  // catalog/memory_table.h PositionedTable) joined to the FROM items by
  // WHERE, written by position (bind_dml.cc).
  Result<BoundQuery> BindJoinedModification(
      LogicalOpType type, const std::string& name, int location, const sql::Alias& alias,
      const std::vector<std::unique_ptr<sql::TableRef>>& from, const sql::ParsedExpr* where,
      const std::vector<std::pair<std::string, sql::ExprPtr>>* assignments,
      const sql::ReturningList& returning);
  // UPDATE's / DELETE's RETURNING over `*rows`, the projection (table index
  // `rows_index`) of the table's columns and `matched` (see BindReturning).
  Result<BoundQuery> BindModifiedReturning(const MemoryTable& table, const sql::Alias& alias,
                                           const sql::ReturningList& list, int rows_index,
                                           LogicalOpPtr* rows);
  // Column `c`'s DEFAULT (cast to its type), or NULL without one.
  Result<ExprPtr> BindDefault(const MemoryTable& table, int c);
  // UPDATE's SET c = v (and ON CONFLICT DO UPDATE's): v bound in `scope` and
  // cast to c's type as CAST does, or c's default for DEFAULT.
  Result<ExprPtr> BindAssignment(const MemoryTable& table, int c, const sql::ParsedExpr& v,
                                 Binder* scope);
  // A projection over `rows` (the table's columns, then `extra` more) that
  // adds one boolean per CHECK of `table`: the expression IS NOT FALSE.
  // `first`: where the table's columns start among `rows`' outputs.
  Result<LogicalOpPtr> AddCheckColumns(const MemoryTable& table, LogicalOpPtr rows,
                                       int first = 0);
  // INSERT ... ON CONFLICT (bind_upsert.cc): `proposed` (table index
  // `proposed_index`) yields the rows to insert in the table's columns.
  Result<BoundQuery> PlanUpsert(std::shared_ptr<MemoryTable> table, LogicalOpPtr proposed,
                                int proposed_index, const sql::InsertStatement& s);
  // The logical insert / update / delete of `rows` (see logical_plan.h) into `table`.
  // `returning`: RETURNING's names and types (BindReturning), else empty.
  BoundQuery FinishModification(LogicalOpType type, std::shared_ptr<MemoryTable> table,
                                LogicalOpPtr rows, BoundQuery returning = {});

  // bind_from.cc
  Result<LogicalOpPtr> BindFrom(const std::vector<std::unique_ptr<sql::TableRef>>& from);
  Result<LogicalOpPtr> BindTableRef(const sql::TableRef& ref);
  Result<LogicalOpPtr> BindBaseTable(const sql::TableRef& ref);
  Result<LogicalOpPtr> BindTableFunction(const sql::TableRef& ref);
  Result<LogicalOpPtr> BindReadIceberg(const sql::TableRef& ref, const std::vector<Value>& positional,
                                       const std::vector<std::pair<std::string, Value>>& named);
  Result<LogicalOpPtr> BindReadDelta(const sql::TableRef& ref, const std::vector<Value>& positional,
                                     const std::vector<std::pair<std::string, Value>>& named);
  Result<LogicalOpPtr> BindQuiverSnapshots(const sql::TableRef& ref,
                                           const std::vector<Value>& positional,
                                           const std::vector<std::pair<std::string, Value>>& named);
  Result<std::string> IcebergTarget(const std::string& given, int location);
  // bind_table_function.cc: a set-returning function (generate_series ...).
  // Its arguments may read the FROM items to its left (`*left`, their plan
  // so far; null: none), as PostgreSQL lets a function in FROM do: then
  // the call runs once per row of *left, which it takes (leaving null).
  // Otherwise *left is untouched and the call has no input.
  Result<LogicalOpPtr> BindSetReturningFunction(const sql::TableRef& ref, LogicalOpPtr* left,
                                                bool outer = false);
  // bind_from.cc: a LATERAL subquery joined (`type`) to *left (as above).
  Result<LogicalOpPtr> BindLateralSubquery(const sql::TableRef& ref, LogicalOpPtr* left,
                                           JoinType type);
  // bind_from.cc: a join whose right side is such a function (left: as above).
  Result<LogicalOpPtr> BindLateralFunctionJoin(const sql::TableRef& ref, LogicalOpPtr* left);
  Result<LogicalOpPtr> BindJoin(const sql::TableRef& ref);
  Result<LogicalOpPtr> BindSubqueryRef(const sql::SelectNode& select, const sql::Alias& alias,
                                       const std::string& default_name, int location,
                                       const std::vector<std::string>& renames = {},
                                       std::optional<Binder*> outer = std::nullopt);
  Result<LogicalOpPtr> MakeGet(std::shared_ptr<TableSource> table, const sql::Alias& alias,
                               const std::string& default_name, int location);

  // Scope lookups (bind_expression.cc).
  struct Resolved {
    ExprPtr expr;
    bool found = false;
  };
  Result<Resolved> ResolveColumn(const std::vector<std::string>& names, int location);
  Status AddScopeTable(ScopeTable t, int location);

  // CTEs visible here (inner definitions shadow outer ones). A CTE's body
  // sees the query levels outside its WITH clause (`outer`), not those of
  // the place that references it: a CTE referenced from a subquery must not
  // resolve its names against that subquery's enclosing query.
  struct VisibleCte {
    const sql::CommonTableExpr* cte = nullptr;
    Binder* outer = nullptr;
    bool recursive = false;  // in WITH RECURSIVE, and its body references it
    bool in_recursive_with = false;  // defined by a WITH RECURSIVE
  };
  const VisibleCte* FindCte(const std::string& name) const;
  // bind_recursive_cte.cc: a reference to a recursive CTE (its shape
  // checked as PostgreSQL does), added to the scope.
  Result<LogicalOpPtr> BindRecursiveCte(const VisibleCte& visible, const sql::TableRef& ref);

  BindState* state_;
  Binder* parent_;
  std::vector<ScopeTable> scope_;
  std::map<std::string, ExprPtr> using_columns_;  // merged USING columns (FULL JOIN: COALESCE)
  std::vector<VisibleCte> ctes_;
  std::vector<std::string> cte_in_progress_;  // guards self-reference
  std::vector<CorrelatedColumn> correlated_;
  std::vector<TypeRef> values_target_types_;
  DefaultBinder values_defaults_;
  // While the select list, HAVING and ORDER BY of a grouped SELECT are
  // bound: what grouping() needs (the GROUP BY keys, where they are bound
  // above the aggregate, and the grouping sets as key indices; no sets for
  // a plain GROUP BY). The grouping-set id is group key groups->size().
  struct GroupingContext {
    const std::vector<ExprPtr>* groups = nullptr;
    int group_index = -1;
    const std::vector<std::vector<int>>* sets = nullptr;
  };
  const GroupingContext* grouping_ = nullptr;
};

// Whether an expression is DEFAULT written as a value (INSERT ... VALUES
// (1, DEFAULT), UPDATE ... SET c = DEFAULT).
inline bool IsDefaultValue(const sql::ParsedExpr& e) {
  return e.kind == sql::ExprKind::kValueFunction && e.name == "default";
}

// Whether a WITH RECURSIVE query references itself (bind_recursive_cte.cc).
bool IsRecursiveCte(const sql::CommonTableExpr& cte);

// Whether a FROM item is a call of a set-returning function
// (functions/table_function.h), not of read_arrow / read_csv / ...
bool IsSetReturningCall(const sql::TableRef& ref);
// Whether `name` is such a function (generate_series, unnest, ...: the
// TableFunctionRegistry's, not the read_* file readers).
bool IsSetReturningFunction(const std::string& name);
// Marks the scope tables from `from` on as a function's (ScopeTable::function_item)
// when `ref` calls a PostgreSQL set-returning function (not read_parquet & co).
void MarkFunctionItems(const sql::TableRef& ref, std::vector<ScopeTable>* scope, size_t from);

// Plans the subqueries inside `*expr` as joins on top of `*root`, replacing
// each by a reference to its result (plan_subquery.cc). `in_where` allows
// turning top-level EXISTS/IN into semi/anti joins.
Status PlanSubqueries(BindState* state, ExprPtr* expr, LogicalOpPtr* root);

// `left` joined (inner or left) with a LATERAL subquery's plan `sub`, whose
// depth-1 references `correlated` read left's columns: decorrelated as a
// dependent join (plan_subquery.cc). `*remap`: where the subquery's output
// bindings moved.
Result<LogicalOpPtr> PlanLateralJoin(BindState* state, LogicalOpPtr left, LogicalOpPtr sub,
                                     const std::vector<CorrelatedColumn>& correlated,
                                     JoinType join_type,
                                     std::map<ColumnBinding, ColumnBinding>* remap);

// Replaces correlated references (depth > 0) in `*expr` by `depth - 1`.
void DecrementDepth(Expression* expr);

// In grouped queries, subqueries see the outer query's grouped columns:
// rewrites their depth-1 references to GROUP BY columns into references to
// the aggregate's group outputs (subqueries nested in *expr included).
void RemapCorrelatedToGroups(Expression* expr, const std::vector<ExprPtr>& groups, int group_index);

}  // namespace quiver::plan
