// Logical plans: trees of relational operators over ColumnBindings.
//
// One class per kind (DuckDB's LogicalGet, LogicalJoin, ...), each holding
// only its own fields, under a LogicalOperator base that holds what they
// share; As<T>() / TryAs<T>() reach a kind's fields (as for expressions):
//   kGet LogicalGet, kDummyScan LogicalDummyScan, kValues LogicalValues,
//   kEmpty LogicalEmpty, kFilter LogicalFilter, kProjection LogicalProjection,
//   kAggregate LogicalAggregate, kJoin LogicalJoin, kCrossProduct
//   LogicalCrossProduct, kOrder LogicalOrder, kLimit LogicalLimit, kTopN
//   LogicalTopN, kDistinct LogicalDistinct, kSetOp LogicalSetOp,
//   kInsert / kUpdate / kDelete LogicalModifyTable, kWindow LogicalWindow,
//   kTableFunction LogicalTableFunction, kRecursiveCte LogicalRecursiveCte
//   (these two in their own headers).
//
// Each operator's output columns are a list of bindings (GetColumnBindings):
//   kGet          (table_index, c) for each scanned table column c (column_ids)
//   kDummyScan    none (one row, no columns: SELECT without FROM)
//   kValues       (table_index, i)
//   kFilter, kOrder, kLimit, kTopN, kDistinct     the child's
//   kProjection   (table_index, i) per expression
//   kAggregate    (group_index, i) per group, then (aggregate_index, j) per aggregate
//   kWindow       the child's, then (window_index, k) per window function
//   kJoin         left's + right's; kSemi/kAnti: left's only;
//                 kMark: left's + (mark_index, 0) (boolean: match / no match / NULL)
//   kCrossProduct left's + right's
//   kSetOp        (table_index, i)
//   kTableFunction the child's, then (table_index, i) per function column
//                 (and the ordinality column last, WITH ORDINALITY)
//   kRecursiveCte (table_index, i)
//   kEmpty        (table_index, i) of `types`, zero rows
//   kInsert, kUpdate, kDelete   (table_index, 0): the number of rows written
//                 (bigint). The child yields the target table's columns in
//                 order, of its types; kUpdate and kDelete add a boolean
//                 column, TRUE for the rows WHERE selects (updated / deleted);
//                 then RETURNING's columns, then one boolean per CHECK.
//                 With RETURNING: (table_index, i) per RETURNING column.
#pragma once

#include <cassert>
#include <cstdint>
#include <functional>
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
  kWindow,  // the child's rows with window functions computed over them
  // A set-returning function in FROM over each row of its child
  // (LogicalTableFunction, planner/logical_table_function.h).
  kTableFunction,
  // WITH RECURSIVE: anchor, then the recursive term over a working table until
  // it yields no rows (LogicalRecursiveCte, planner/logical_recursive_cte.h).
  kRecursiveCte,
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

// What every kind has: its kind, inputs, the expressions most kinds carry,
// its output table index and a cardinality estimate. The fields of one kind
// live in that kind's class below (DuckDB's LogicalGet, LogicalJoin, ...);
// As<T>() reaches them once `type` says which (checked in debug builds).
// A rule that changes a node's kind builds a node of the new class and
// moves the shared fields over (TakeSharedFrom).
struct LogicalOperator {
  const LogicalOpType type;
  std::vector<LogicalOpPtr> children;
  // kFilter: conjuncts; kProjection: outputs; kAggregate: aggregates;
  // kJoin: residual predicates over both sides; kDistinct: DISTINCT ON keys
  // (empty = all columns); other kinds: unused.
  std::vector<ExprPtr> expressions;
  // The table index of the output bindings (kGet, kValues, kEmpty,
  // kProjection, kSetOp, kInsert/kUpdate/kDelete).
  int table_index = -1;
  double estimated_rows = -1;

  virtual ~LogicalOperator() = default;
  LogicalOperator(const LogicalOperator&) = delete;
  LogicalOperator& operator=(const LogicalOperator&) = delete;

  template <typename T>
  T& As() {
    assert(T::IsKind(type));
    return static_cast<T&>(*this);
  }
  template <typename T>
  const T& As() const {
    assert(T::IsKind(type));
    return static_cast<const T&>(*this);
  }
  template <typename T>
  bool Is() const {
    return T::IsKind(type);
  }
  // This operator as a T, or null when it is of another kind.
  template <typename T>
  T* TryAs() {
    return T::IsKind(type) ? static_cast<T*>(this) : nullptr;
  }
  template <typename T>
  const T* TryAs() const {
    return T::IsKind(type) ? static_cast<const T*>(this) : nullptr;
  }

  virtual std::vector<ColumnBinding> GetColumnBindings() const = 0;
  virtual std::vector<TypeRef> GetTypes() const = 0;
  // Indented tree for EXPLAIN (logical form).
  std::string ToString(int indent = 0) const;
  // A deep copy (children, expressions and all).
  LogicalOpPtr Copy() const;

  // Every expression slot of this node (not its children's): `expressions`,
  // then its kind's own (aggregate groups, both sides of join conditions,
  // order keys, VALUES rows), for code that reads or rewrites them all.
  void VisitExpressions(const std::function<void(ExprPtr*)>& f);
  void ForEachExpression(const std::function<void(const Expression&)>& f) const;

  // Moves `from`'s children and expressions into this node and takes its
  // table index and estimate (a rule replacing a node by one of another kind).
  void TakeSharedFrom(LogicalOperator& from);

 protected:
  explicit LogicalOperator(LogicalOpType t) : type(t) {}
  // This node's EXPLAIN line, without the estimate.
  virtual std::string NodeString() const = 0;
  // The node with this kind's fields, without the shared ones (which Copy adds).
  virtual LogicalOpPtr CopyNode() const = 0;
  // This kind's own expression slots (VisitExpressions visits `expressions` first).
  virtual void VisitOwnExpressions(const std::function<void(ExprPtr*)>& f) {}
};

// kGet: a table scan. Bindings are (table_index, c) for each read column c.
struct LogicalGet final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kGet; }
  LogicalGet() : LogicalOperator(LogicalOpType::kGet) {}
  std::shared_ptr<TableSource> table;
  std::string table_alias;
  std::vector<int> column_ids;                 // table columns read
  std::vector<std::string> column_names;       // names of all table columns
  std::vector<TypeRef> column_types;           // types of all table columns
  std::vector<ScanPredicate> scan_predicates;  // pushed down (hints)
  std::vector<ColumnBinding> GetColumnBindings() const override;
  std::vector<TypeRef> GetTypes() const override;

 protected:
  std::string NodeString() const override;
  LogicalOpPtr CopyNode() const override;
};

// kDummyScan: one row of no columns (SELECT without FROM).
struct LogicalDummyScan final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kDummyScan; }
  LogicalDummyScan() : LogicalOperator(LogicalOpType::kDummyScan) {}
  std::vector<ColumnBinding> GetColumnBindings() const override { return {}; }
  std::vector<TypeRef> GetTypes() const override { return {}; }

 protected:
  std::string NodeString() const override { return "DUMMY_SCAN"; }
  LogicalOpPtr CopyNode() const override;
};

// kValues: literal rows of `types`.
struct LogicalValues final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kValues; }
  LogicalValues() : LogicalOperator(LogicalOpType::kValues) {}
  std::vector<std::vector<ExprPtr>> rows;
  std::vector<TypeRef> types;
  std::vector<ColumnBinding> GetColumnBindings() const override;
  std::vector<TypeRef> GetTypes() const override { return types; }

 protected:
  std::string NodeString() const override;
  LogicalOpPtr CopyNode() const override;
  void VisitOwnExpressions(const std::function<void(ExprPtr*)>& f) override;
};

// kEmpty: zero rows of `types`.
struct LogicalEmpty final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kEmpty; }
  LogicalEmpty(int table_index, std::vector<TypeRef> types)
      : LogicalOperator(LogicalOpType::kEmpty), types(std::move(types)) {
    this->table_index = table_index;
  }
  std::vector<TypeRef> types;
  std::vector<ColumnBinding> GetColumnBindings() const override;
  std::vector<TypeRef> GetTypes() const override { return types; }

 protected:
  std::string NodeString() const override { return "EMPTY_RESULT"; }
  LogicalOpPtr CopyNode() const override;
};

// kFilter: the rows for which every conjunct in `expressions` is TRUE.
struct LogicalFilter final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kFilter; }
  LogicalFilter() : LogicalOperator(LogicalOpType::kFilter) {}
  LogicalFilter(std::vector<ExprPtr> conjuncts, LogicalOpPtr child);
  std::vector<ColumnBinding> GetColumnBindings() const override;
  std::vector<TypeRef> GetTypes() const override;

 protected:
  std::string NodeString() const override;
  LogicalOpPtr CopyNode() const override;
};

// kProjection: `expressions`, bound as (table_index, i).
struct LogicalProjection final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kProjection; }
  LogicalProjection() : LogicalOperator(LogicalOpType::kProjection) {}
  LogicalProjection(int table_index, std::vector<ExprPtr> exprs, LogicalOpPtr child);
  std::vector<ColumnBinding> GetColumnBindings() const override;
  std::vector<TypeRef> GetTypes() const override;

 protected:
  std::string NodeString() const override;
  LogicalOpPtr CopyNode() const override;
};

// kAggregate: `groups` bound as (group_index, i), then the aggregates in
// `expressions` as (aggregate_index, j).
struct LogicalAggregate final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kAggregate; }
  LogicalAggregate(int group_index, int aggregate_index)
      : LogicalOperator(LogicalOpType::kAggregate),
        group_index(group_index),
        aggregate_index(aggregate_index) {}
  int group_index = -1;
  int aggregate_index = -1;
  std::vector<ExprPtr> groups;
  // GROUPING SETS: the last group is the set id (int32); these are the ids
  // of empty sets, which give one row even when no row comes in (as an
  // aggregate without GROUP BY does), other keys NULL.
  std::vector<int32_t> empty_grouping_sets;
  // GROUPING SETS aggregated once at the finest grain and then rolled up
  // (bind_select.cc): `groups` are the keys as read, `grouping_set_id` is
  // the position among them of a constant placeholder that the operator
  // fills with each set's number, and each set lists the group positions it
  // keeps (the others come out NULL). Empty otherwise.
  std::vector<std::vector<int>> grouping_sets;
  int grouping_set_id = -1;
  // Whether group `i`'s output is the group expression's value in every
  // row (not NULLed by a grouping set that leaves it out).
  bool GroupKeptInEverySet(int i) const;
  std::vector<ColumnBinding> GetColumnBindings() const override;
  std::vector<TypeRef> GetTypes() const override;

 protected:
  std::string NodeString() const override;
  LogicalOpPtr CopyNode() const override;
  void VisitOwnExpressions(const std::function<void(ExprPtr*)>& f) override;
};

// kWindow: every row of the child, plus one column per window function in
// `expressions` (WindowExpressions, over the child's columns), bound as
// (window_index, k). Rows come out in no particular order.
struct LogicalWindow final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kWindow; }
  explicit LogicalWindow(int window_index)
      : LogicalOperator(LogicalOpType::kWindow), window_index(window_index) {}
  int window_index = -1;
  std::vector<ColumnBinding> GetColumnBindings() const override;
  std::vector<TypeRef> GetTypes() const override;

 protected:
  std::string NodeString() const override;
  LogicalOpPtr CopyNode() const override;
};

// kJoin. For every type but kMark, a pair of rows joins when all
// `conditions` and all `expressions` (residual predicates over both
// sides) are TRUE. For kMark, `expressions` must be TRUE for a right row
// to count (correlation), and the one condition, if any, decides the mark
// three-valued (x IN / ANY / ALL semantics: TRUE if some counted row
// compares TRUE, else NULL if some compares NULL, else FALSE).
struct LogicalJoin final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kJoin; }
  explicit LogicalJoin(JoinType join_type)
      : LogicalOperator(LogicalOpType::kJoin), join_type(join_type) {}
  LogicalJoin(JoinType join_type, LogicalOpPtr left, LogicalOpPtr right);
  JoinType join_type = JoinType::kInner;
  std::vector<JoinCondition> conditions;
  int mark_index = -1;
  // kAnti from NOT IN: a NULL key on either side makes rows unknown (never TRUE).
  bool null_aware = false;
  bool IsSemiOrAnti() const { return join_type == JoinType::kSemi || join_type == JoinType::kAnti; }
  std::vector<ColumnBinding> GetColumnBindings() const override;
  std::vector<TypeRef> GetTypes() const override;

 protected:
  std::string NodeString() const override;
  LogicalOpPtr CopyNode() const override;
  void VisitOwnExpressions(const std::function<void(ExprPtr*)>& f) override;
};

// kJoin of `type` if `op` is one, else null: the question join rules ask.
inline const LogicalJoin* JoinOf(const LogicalOperator& op, JoinType type) {
  const auto* j = op.TryAs<LogicalJoin>();
  return j != nullptr && j->join_type == type ? j : nullptr;
}

// kCrossProduct: every pair of the children's rows.
struct LogicalCrossProduct final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kCrossProduct; }
  LogicalCrossProduct() : LogicalOperator(LogicalOpType::kCrossProduct) {}
  LogicalCrossProduct(LogicalOpPtr left, LogicalOpPtr right);
  std::vector<ColumnBinding> GetColumnBindings() const override;
  std::vector<TypeRef> GetTypes() const override;

 protected:
  std::string NodeString() const override { return "CROSS_PRODUCT"; }
  LogicalOpPtr CopyNode() const override;
};

// kOrder: the child's rows sorted by `orders`.
struct LogicalOrder final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kOrder; }
  LogicalOrder() : LogicalOperator(LogicalOpType::kOrder) {}
  std::vector<OrderSpec> orders;
  std::vector<ColumnBinding> GetColumnBindings() const override;
  std::vector<TypeRef> GetTypes() const override;

 protected:
  std::string NodeString() const override;
  LogicalOpPtr CopyNode() const override;
  void VisitOwnExpressions(const std::function<void(ExprPtr*)>& f) override;
};

// kLimit: `limit` rows (-1: all) after skipping `offset`.
struct LogicalLimit final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kLimit; }
  LogicalLimit() : LogicalOperator(LogicalOpType::kLimit) {}
  int64_t limit = -1;  // -1: none
  int64_t offset = 0;
  std::vector<ColumnBinding> GetColumnBindings() const override;
  std::vector<TypeRef> GetTypes() const override;

 protected:
  std::string NodeString() const override;
  LogicalOpPtr CopyNode() const override;
};

// kTopN: kOrder then kLimit in one (the top_n rule builds it).
struct LogicalTopN final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kTopN; }
  LogicalTopN(std::vector<OrderSpec> orders, int64_t limit, int64_t offset)
      : LogicalOperator(LogicalOpType::kTopN),
        orders(std::move(orders)),
        limit(limit),
        offset(offset) {}
  std::vector<OrderSpec> orders;
  int64_t limit = -1;
  int64_t offset = 0;
  std::vector<ColumnBinding> GetColumnBindings() const override;
  std::vector<TypeRef> GetTypes() const override;

 protected:
  std::string NodeString() const override;
  LogicalOpPtr CopyNode() const override;
  void VisitOwnExpressions(const std::function<void(ExprPtr*)>& f) override;
};

// kDistinct: distinct rows, or with `expressions` the first row per
// DISTINCT ON key.
struct LogicalDistinct final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kDistinct; }
  LogicalDistinct() : LogicalOperator(LogicalOpType::kDistinct) {}
  std::vector<ColumnBinding> GetColumnBindings() const override;
  std::vector<TypeRef> GetTypes() const override;

 protected:
  std::string NodeString() const override { return "DISTINCT"; }
  LogicalOpPtr CopyNode() const override;
};

// kSetOp: UNION / INTERSECT / EXCEPT [ALL] of two children of `types`.
struct LogicalSetOp final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kSetOp; }
  LogicalSetOp(SetOpType setop, bool all)
      : LogicalOperator(LogicalOpType::kSetOp), setop(setop), setop_all(all) {}
  SetOpType setop = SetOpType::kUnion;
  bool setop_all = false;
  std::vector<TypeRef> types;
  std::vector<ColumnBinding> GetColumnBindings() const override;
  std::vector<TypeRef> GetTypes() const override { return types; }

 protected:
  std::string NodeString() const override;
  LogicalOpPtr CopyNode() const override;
};

// kInsert, kUpdate, kDelete: they share every field, so one class.
struct LogicalModifyTable final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return IsDataModification(t); }
  LogicalModifyTable(LogicalOpType type, std::shared_ptr<MemoryTable> target)
      : LogicalOperator(type), target(std::move(target)) {
    assert(IsKind(type));
  }
  // The table written (a CREATE TABLE AS target is not in the catalog yet).
  std::shared_ptr<MemoryTable> target;
  // RETURNING: the types of its columns, which the child computes after the
  // table's columns (and UPDATE's / DELETE's `matched`); the operator then
  // yields those columns for the rows it wrote (INSERT, UPDATE) or deleted,
  // instead of the count. Empty: no RETURNING.
  std::vector<TypeRef> returning;
  // UPDATE ... FROM, DELETE ... USING: the version of `target` the child
  // scanned with row positions (PositionedTable); the child's column after
  // the table's is then the position (bigint) instead of `matched`, and
  // only the rows to write (or delete) come, a row perhaps several times.
  // Null otherwise.
  std::shared_ptr<const TableVersion> positioned;
  // INSERT ... ON CONFLICT (planner/bind_upsert.cc): set with `positioned`,
  // the version the child joined the proposed rows to. The child's columns
  // are then the row to write, the conflicting row's position (NULL: none),
  // DO UPDATE's `matched`, the proposed row, RETURNING's columns, the CHECK
  // columns of the row to write, then those of the proposed row.
  struct OnConflict {
    bool update = false;  // DO UPDATE, else DO NOTHING
    // The arbiter keys (table columns): proposed rows equal on one of them
    // are the same row (DO NOTHING keeps the first, DO UPDATE fails).
    std::vector<std::vector<int>> keys;
  };
  std::shared_ptr<const OnConflict> on_conflict;
  std::vector<ColumnBinding> GetColumnBindings() const override;
  std::vector<TypeRef> GetTypes() const override;

 protected:
  std::string NodeString() const override;
  LogicalOpPtr CopyNode() const override;
};

// Index of `b` among `bindings`, or -1.
int FindBinding(const std::vector<ColumnBinding>& bindings, const ColumnBinding& b);

}  // namespace quiver::plan
