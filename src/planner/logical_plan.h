// Logical plans: trees of relational operators over ColumnBindings.
//
// Each operator's output columns are a list of bindings (GetColumnBindings):
//   kGet          (table_index, c) for each scanned table column c (column_ids)
//   kDummyScan    none (one row, no columns: SELECT without FROM)
//   kValues       (table_index, i)
//   kFilter, kOrder, kLimit, kTopN, kDistinct     the child's
//   kProjection   (table_index, i) per expression
//   kAggregate    (group_index, i) per group, then (aggregate_index, j) per aggregate
//   kJoin         left's + right's; kSemi/kAnti: left's only;
//                 kMark: left's + (mark_index, 0) (boolean: match / no match / NULL)
//   kCrossProduct left's + right's
//   kSetOp        (table_index, i)
//   kEmpty        (table_index, i) of `types`, zero rows
//   kInsert, kUpdate, kDelete   (table_index, 0): the number of rows written
//                 (bigint). The child yields the target table's columns in
//                 order, of its types; kUpdate and kDelete add a last boolean
//                 column, TRUE for the rows WHERE selects (updated / deleted).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "catalog/table_source.h"
#include "planner/expression.h"

namespace quiver::plan {

enum class LogicalOpType : int8_t {
  kGet,
  kDummyScan,
  kValues,
  kFilter,
  kProjection,
  kAggregate,
  kJoin,
  kCrossProduct,
  kOrder,
  kLimit,
  kTopN,
  kDistinct,
  kSetOp,
  kEmpty,
  kInsert,  // appends the child's rows to `target`
  kUpdate,  // replaces `target`'s rows by the child's (new values), counting the matched ones
  kDelete,  // replaces `target`'s rows by the child's unmatched ones, counting the others
};

// Whether `t` writes a table (kInsert, kUpdate, kDelete): such an operator is
// only ever the root of a plan.
inline bool IsDataModification(LogicalOpType t) {
  return t == LogicalOpType::kInsert || t == LogicalOpType::kUpdate || t == LogicalOpType::kDelete;
}

enum class JoinType : int8_t {
  kInner,
  kLeft,
  kRight,
  kFull,
  kSemi,    // left rows with a match
  kAnti,    // left rows without a match
  kMark,    // every left row + a boolean: matched / not matched / NULL (IN semantics)
  kSingle,  // left join that fails when a left row matches twice (scalar subqueries)
};
const char* JoinTypeName(JoinType t);

enum class SetOpType : int8_t { kUnion, kIntersect, kExcept };

// left <op> right, `left` over the left child's columns and `right` over the
// right child's. op: "=", "<>", "<", "<=", ">", ">=", "is not distinct from".
struct JoinCondition {
  ExprPtr left;
  ExprPtr right;
  std::string op = "=";
  JoinCondition Copy() const { return {left->Copy(), right->Copy(), op}; }
  // The condition as one boolean expression, `left op right` (the operator
  // resolved over the operands' types). Fails only on an internal error (an
  // operator that does not exist for the operands' types); callers
  // propagate it: a condition dropped silently would change the answer.
  Result<ExprPtr> ToExpression() const&;
  // The same, consuming the operands.
  Result<ExprPtr> ToExpression() &&;
};

struct OrderSpec {
  ExprPtr expr;
  bool descending = false;
  bool nulls_first = false;  // PostgreSQL's default: NULLS LAST for ASC, FIRST for DESC
  OrderSpec Copy() const { return {expr->Copy(), descending, nulls_first}; }
};

struct LogicalOperator;
using LogicalOpPtr = std::unique_ptr<LogicalOperator>;

struct LogicalOperator {
  LogicalOpType type;
  std::vector<LogicalOpPtr> children;
  // kFilter: conjuncts; kProjection: outputs; kAggregate: aggregates;
  // kJoin: residual predicates over both sides; kDistinct: DISTINCT ON keys
  // (empty = all columns); kValues: unused.
  std::vector<ExprPtr> expressions;
  int table_index = -1;

  // kGet
  std::shared_ptr<TableSource> table;
  std::string table_alias;
  std::vector<int> column_ids;                 // table columns read
  std::vector<std::string> column_names;       // names of all table columns
  std::vector<TypeRef> column_types;           // types of all table columns
  std::vector<ScanPredicate> scan_predicates;  // pushed down (hints)

  // kValues / kEmpty
  std::vector<std::vector<ExprPtr>> rows;
  std::vector<TypeRef> types;

  // kAggregate
  int group_index = -1;
  int aggregate_index = -1;
  std::vector<ExprPtr> groups;

  // kJoin. For every type but kMark, a pair of rows joins when all
  // `conditions` and all `expressions` (residual predicates over both
  // sides) are TRUE. For kMark, `expressions` must be TRUE for a right row
  // to count (correlation), and the one condition, if any, decides the mark
  // three-valued (x IN / ANY / ALL semantics: TRUE if some counted row
  // compares TRUE, else NULL if some compares NULL, else FALSE).
  JoinType join_type = JoinType::kInner;
  std::vector<JoinCondition> conditions;
  int mark_index = -1;
  // kAnti from NOT IN: a NULL key on either side makes rows unknown (never TRUE).
  bool null_aware = false;

  // kOrder / kTopN
  std::vector<OrderSpec> orders;

  // kLimit / kTopN
  int64_t limit = -1;  // -1: none
  int64_t offset = 0;

  // kSetOp
  SetOpType setop = SetOpType::kUnion;
  bool setop_all = false;

  // kInsert / kUpdate / kDelete: the table written (a CREATE TABLE AS
  // target is not in the catalog yet).
  std::shared_ptr<MemoryTable> target;

  double estimated_rows = -1;

  explicit LogicalOperator(LogicalOpType t) : type(t) {}

  std::vector<ColumnBinding> GetColumnBindings() const;
  std::vector<TypeRef> GetTypes() const;
  // Indented tree for EXPLAIN (logical form).
  std::string ToString(int indent = 0) const;
  LogicalOpPtr Copy() const;
};

// Index of `b` among `bindings`, or -1.
int FindBinding(const std::vector<ColumnBinding>& bindings, const ColumnBinding& b);

}  // namespace quiver::plan
