// ExpressionBinder: ParsedExpr -> Expression within one Binder's scope.
//
// In aggregate mode (SELECT list, HAVING and ORDER BY of a grouped query)
// aggregate calls are bound with their arguments in the FROM scope, collected
// into `aggregates` (deduplicated) and replaced by references to the
// aggregate's output (aggregate_index, k); then ReplaceGroupKeys swaps
// subtrees equal to a GROUP BY expression for (group_index, i) and rejects
// any other column of the FROM scope.
#pragma once

#include <string>
#include <vector>

#include "planner/binder.h"

namespace quiver::plan {

class ExpressionBinder {
 public:
  // What kind of clause is being bound (for error messages and rules).
  enum class Clause : int8_t { kSelect, kWhere, kGroupBy, kHaving, kOrderBy, kJoinOn, kValues, kLimit, kUpdate, kReturning, kOther };

  ExpressionBinder(Binder* binder, Clause clause) : binder_(binder), clause_(clause) {}

  // Aggregate mode: aggregates go to *aggregates, refs use aggregate_index.
  void EnableAggregates(std::vector<ExprPtr>* aggregates, int aggregate_index) {
    aggregates_ = aggregates;
    aggregate_index_ = aggregate_index;
  }

  // Window mode: window function calls are bound into *windows
  // (deduplicated) and replaced by references (window_index, k); `named`
  // holds the query's WINDOW clause.
  void EnableWindows(std::vector<ExprPtr>* windows, int window_index,
                     const std::vector<std::shared_ptr<sql::WindowSpec>>* named) {
    windows_ = windows;
    window_index_ = window_index;
    named_windows_ = named;
  }

  Result<ExprPtr> Bind(const sql::ParsedExpr& e);
  // Binds and casts to boolean (WHERE, HAVING, ON): "argument of WHERE must
  // be type boolean, not type integer".
  Result<ExprPtr> BindPredicate(const sql::ParsedExpr& e, const char* clause_name);

  // Replaces subtrees equal to groups[i] by (group_index, i); errors on
  // other depth-0 column references (but those of the aggregate and of the
  // window functions, window_index).
  static Status ReplaceGroupKeys(ExprPtr* expr, const std::vector<ExprPtr>& groups,
                                 int group_index, int aggregate_index, int location,
                                 int window_index = -1);

  // Resolves an untyped literal to text (or `to`), as PostgreSQL does once
  // nothing else decides its type.
  static ExprPtr ResolveUnknown(ExprPtr e, const TypeRef& to = nullptr);

  // Casts `e` to `to`, checking that the cast exists.
  static Result<ExprPtr> CastTo(ExprPtr e, const TypeRef& to, int location, bool explicit_cast);

 private:
  Result<ExprPtr> BindColumnRef(const sql::ParsedExpr& e);
  // base.field over a struct (composite) value: __struct_field(base, k).
  Result<ExprPtr> BindColumnFields(const sql::ParsedExpr& e);
  Result<ExprPtr> BindField(ExprPtr base, const std::string& field, int location);
  Result<ExprPtr> BindConstant(const sql::ParsedExpr& e);
  Result<ExprPtr> BindOperator(const sql::ParsedExpr& e);
  static ExprPtr FuseJsonbCastField(ExprPtr call);
  Result<ExprPtr> BindFunction(const sql::ParsedExpr& e);
  Result<ExprPtr> BindGrouping(const sql::ParsedExpr& e);
  Result<ExprPtr> BindAggregate(const sql::ParsedExpr& e);
  Result<ExprPtr> BindOrderedSetAggregate(const sql::ParsedExpr& e, std::vector<ExprPtr> args,
                                          std::vector<ExprPtr> order_keys, ExprPtr filter);
  Result<ExprPtr> BindWindow(const sql::ParsedExpr& e);
  Status CheckAggregateOrder(const sql::ParsedExpr& e, const std::string& name,
                             const std::vector<ExprPtr>& args, std::vector<ExprPtr>* order_keys);
  Result<ExprPtr> BindCast(const sql::ParsedExpr& e);
  Result<ExprPtr> BindCase(const sql::ParsedExpr& e);
  Result<ExprPtr> BindIn(const sql::ParsedExpr& e);
  Result<ExprPtr> BindBetween(const sql::ParsedExpr& e);
  Result<ExprPtr> BindLike(const sql::ParsedExpr& e);
  Result<ExprPtr> BindBoolTest(const sql::ParsedExpr& e);
  Result<ExprPtr> BindCoalesce(const sql::ParsedExpr& e);
  Result<ExprPtr> BindGreatest(const sql::ParsedExpr& e);
  Result<ExprPtr> BindSubquery(const sql::ParsedExpr& e);
  Result<ExprPtr> BindBoolean(const sql::ParsedExpr& e);

  // Marks the column references of `expr`, found `depth` query levels out,
  // as correlated (in every binder between here and there).
  void MarkCorrelated(ExprPtr* expr, int depth);

  // bind_row.cc: whole-row values (a FROM item `t`, `t.*`, ROW(...)) as the
  // arguments of the JSON functions that take them (row_to_json, to_json,
  // json_agg, ...): a struct<column names> built by __row. Elsewhere a
  // whole-row reference is refused.
  Result<ExprPtr> BindArgument(const std::string& function, const sql::ParsedExpr& arg);
  Result<ExprPtr> BindRowConstructor(const sql::ParsedExpr& e);
  // The whole row of the FROM item named `alias` (this query's or an outer
  // one's); null when no FROM item has that name.
  Result<ExprPtr> BindWholeRow(const std::string& alias, int location);

  // Unifies the types of `exprs` (CASE, COALESCE, IN): casts each to the
  // common type.
  Status Unify(std::vector<ExprPtr>* exprs, const char* context, int location);

  Binder* binder_;
  Clause clause_;
  std::vector<ExprPtr>* aggregates_ = nullptr;
  int aggregate_index_ = -1;
  bool inside_aggregate_ = false;
  std::vector<ExprPtr>* windows_ = nullptr;
  int window_index_ = -1;
  const std::vector<std::shared_ptr<sql::WindowSpec>>* named_windows_ = nullptr;
  bool inside_window_ = false;
  bool whole_row_allowed_ = false;  // binding an argument BindArgument lets be a whole row
};

// Whether a value of type `from` may be stored in a column of type `to`
// (INSERT, CREATE TABLE AS): PostgreSQL's assignment casts — implicit casts,
// explicit casts within a type category, anything to text (bind_dml.cc).
bool IsAssignable(const DataType& from, const DataType& to);

// percentile_cont, percentile_disc, mode: called WITHIN GROUP (ORDER BY ...).
bool IsOrderedSetAggregate(const std::string& name);

// Makes a comparison (or any operator) with PostgreSQL's resolution.
Result<ExprPtr> BindOperatorCall(const std::string& op, std::vector<ExprPtr> args, int location);

}  // namespace quiver::plan
