// Bound expressions: typed, resolved trees that logical plans carry.
//
// Column references name their column by a ColumnBinding (table index,
// column index) — the output slot of some operator in the logical plan —
// rather than by position, so the optimizer can reorder joins and move
// filters without renumbering (DuckDB's design). The physical planner turns
// bindings into positions (kColumnRef -> kBoundRef).
//
// One class per kind (DuckDB's Bound*Expression), its fields its own:
//   kColumnRef   ColumnRefExpression: binding, depth (0 = this query, n = n
//                levels out: correlated)
//   kBoundRef    BoundRefExpression: index into the input chunk's columns
//                (physical only)
//   kConstant    ConstantExpression: value
//   kFunction    FunctionExpression: function (resolved overload);
//                children = arguments
//   kAggregate   AggregateExpression: aggregate, distinct, filter;
//                children = arguments
//   kIn          InExpression: children[0] [NOT] IN (children[1..]), negated
//   kSubquery    SubqueryExpression: subquery (binder-only; planning
//                replaces it by a join)
//   kWindow      WindowExpression: a window function call with its window;
//                children = arguments, PARTITION BY keys, ORDER BY keys,
//                FILTER, frame offsets (only inside LogicalWindow)
//   OperatorExpression, the kinds that are their operands alone:
//   kCast        children[0] -> return_type
//   kCase        children = when0, then0, when1, then1, ..., else
//   kAnd, kOr    children (n-ary)
//   kNot         children[0]
//   kIsNull, kIsNotNull  children[0]
//   kCoalesce    children
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "functions/function.h"
#include "vector/value.h"

namespace quiver::plan {

struct ColumnBinding {
  int table = -1;
  int column = -1;
  bool operator==(const ColumnBinding& o) const { return table == o.table && column == o.column; }
  bool operator!=(const ColumnBinding& o) const { return !(*this == o); }
  bool operator<(const ColumnBinding& o) const {
    return table < o.table || (table == o.table && column < o.column);
  }
};

enum class ExprType : int8_t {
  kColumnRef,
  kBoundRef,
  kConstant,
  kFunction,
  kCast,
  kCase,
  kAnd,
  kOr,
  kNot,
  kIsNull,
  kIsNotNull,
  kIn,
  kCoalesce,
  kAggregate,
  kSubquery,
  kWindow,
};

struct BoundSubquery;  // planner/binder.h

struct Expression;
using ExprPtr = std::unique_ptr<Expression>;

// What every kind has: its kind, result type, a display name and operands.
// The fields of one kind live in that kind's class below; As<T>() reaches
// them once `type` says which (checked in debug builds).
struct Expression {
  const ExprType type;
  TypeRef return_type;
  std::string alias;  // a name for output columns and EXPLAIN
  // An untyped string literal ('...'), or an expression over one that has
  // not been given a type yet: PostgreSQL's `unknown`, which takes whatever
  // type its context needs. Part of the type, so every kind has it.
  bool unknown_literal = false;
  // Text only: the varchar(n) / char(n) length an explicit cast gave it
  // (PostgreSQL's typmod, which CREATE TABLE AS keeps: bind_dml.cc
  // LengthOfOutput); -1: a cast to a type without one (text, varchar); 0:
  // no cast here.
  int32_t cast_length = 0;
  bool cast_blank_padded = false;  // the cast was to char(n)
  std::vector<ExprPtr> children;  // operands (see the kinds above)

  virtual ~Expression() = default;
  Expression(const Expression&) = delete;
  Expression& operator=(const Expression&) = delete;

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
  // This expression as a T, or null when it is of another kind.
  template <typename T>
  T* TryAs() {
    return T::IsKind(type) ? static_cast<T*>(this) : nullptr;
  }
  template <typename T>
  const T* TryAs() const {
    return T::IsKind(type) ? static_cast<const T*>(this) : nullptr;
  }

  // A deep copy (children, filters and all).
  ExprPtr Copy() const;
  // Renders for EXPLAIN: "(l_quantity < 24)", "sum(l_extendedprice)".
  virtual std::string ToString() const = 0;
  // Structural equality (same kind, function, children, constants, bindings).
  bool Equals(const Expression& other) const;
  size_t Hash() const;

  // Whether the expression has no column references, aggregates,
  // subqueries or volatile functions (so it can be folded to a constant).
  bool IsFoldable() const;
  bool HasAggregate() const;
  bool HasSubquery() const;
  bool IsVolatile() const;

 protected:
  Expression(ExprType t, TypeRef ret) : type(t), return_type(std::move(ret)) {}
  // The node without its children (which Copy adds).
  virtual ExprPtr CopyNode() const = 0;
  // This kind's own fields equal `other`'s (same kind, children compared apart).
  virtual bool NodeEquals(const Expression& other) const { return true; }
  virtual size_t NodeHash() const { return 0; }
  // Children joined by `sep`.
  std::string JoinChildren(const char* sep) const;
};

// kColumnRef: a column of some operator's output, by binding.
struct ColumnRefExpression final : Expression {
  static bool IsKind(ExprType t) { return t == ExprType::kColumnRef; }
  ColumnRefExpression(ColumnBinding b, TypeRef ret, int depth)
      : Expression(ExprType::kColumnRef, std::move(ret)), binding(b), depth(depth) {}
  ColumnBinding binding;
  int depth = 0;  // 0 = this query, n = n levels out (correlated)
  std::string ToString() const override;

 protected:
  ExprPtr CopyNode() const override;
  bool NodeEquals(const Expression& other) const override;
  size_t NodeHash() const override;
};

// kBoundRef: a column of the input chunk, by position (physical plans only).
struct BoundRefExpression final : Expression {
  static bool IsKind(ExprType t) { return t == ExprType::kBoundRef; }
  BoundRefExpression(int index, TypeRef ret)
      : Expression(ExprType::kBoundRef, std::move(ret)), index(index) {}
  int index;
  std::string ToString() const override;

 protected:
  ExprPtr CopyNode() const override;
  bool NodeEquals(const Expression& other) const override;
};

// kConstant.
struct ConstantExpression final : Expression {
  static bool IsKind(ExprType t) { return t == ExprType::kConstant; }
  explicit ConstantExpression(Value v)
      : Expression(ExprType::kConstant, v.type()), value(std::move(v)) {}
  Value value;
  std::string ToString() const override;

 protected:
  ExprPtr CopyNode() const override;
  bool NodeEquals(const Expression& other) const override;
  size_t NodeHash() const override;
};

// kFunction: a resolved scalar function or operator; children = arguments
// (already cast to the overload's argument types).
struct FunctionExpression final : Expression {
  static bool IsKind(ExprType t) { return t == ExprType::kFunction; }
  explicit FunctionExpression(BoundFunction f)
      : Expression(ExprType::kFunction, f.return_type), function(std::move(f)) {}
  BoundFunction function;
  // The function's name ("=", "substring", ...).
  const std::string& name() const;
  std::string ToString() const override;

 protected:
  ExprPtr CopyNode() const override;
  bool NodeEquals(const Expression& other) const override;
  size_t NodeHash() const override;
};

// kAggregate: children = arguments.
struct AggregateExpression final : Expression {
  static bool IsKind(ExprType t) { return t == ExprType::kAggregate; }
  AggregateExpression(const AggregateFunction* f, TypeRef ret)
      : Expression(ExprType::kAggregate, std::move(ret)), aggregate(f) {}
  const AggregateFunction* aggregate;
  bool distinct = false;
  ExprPtr filter;  // FILTER (WHERE ...), or null
  std::string ToString() const override;

 protected:
  ExprPtr CopyNode() const override;
  bool NodeEquals(const Expression& other) const override;
  size_t NodeHash() const override;
};

// Which window function a WindowExpression computes.
enum class WindowFunction : int8_t {
  kAggregate,  // an aggregate over the frame (WindowExpression::aggregate)
  kRowNumber,
  kRank,
  kDenseRank,
  kPercentRank,
  kCumeDist,
  kNtile,
  kLag,
  kLead,
  kFirstValue,
  kLastValue,
  kNthValue,
};

// kWindow: a window function over its window. `children` hold, in order,
// the arguments (num_args), the PARTITION BY keys (num_partitions), the
// ORDER BY keys (order.size()), then the FILTER predicate, the frame start
// offset and the frame end offset where present. Keeping every operand in
// `children` lets the generic walkers (copy, equality, column pruning,
// GROUP BY replacement) see them all.
struct WindowExpression final : Expression {
  static bool IsKind(ExprType t) { return t == ExprType::kWindow; }
  WindowExpression(WindowFunction f, TypeRef ret)
      : Expression(ExprType::kWindow, std::move(ret)), function(f) {}
  struct OrderFlags {
    bool descending = false;
    bool nulls_first = false;
    bool operator==(const OrderFlags& o) const {
      return descending == o.descending && nulls_first == o.nulls_first;
    }
  };
  WindowFunction function;
  const AggregateFunction* aggregate = nullptr;  // kAggregate
  std::string name;                              // the function's name, for EXPLAIN
  int num_args = 0;
  int num_partitions = 0;
  std::vector<OrderFlags> order;
  bool has_filter = false;
  bool has_start_offset = false;
  bool has_end_offset = false;
  int32_t frame_options = 0;  // sql::FrameOption bits

  const Expression& arg(int i) const { return *children[static_cast<size_t>(i)]; }
  const Expression& partition(int i) const {
    return *children[static_cast<size_t>(num_args + i)];
  }
  const Expression& order_key(int i) const {
    return *children[static_cast<size_t>(num_args + num_partitions + i)];
  }
  // Index in `children` of the FILTER, start and end offsets (-1: none).
  int filter_index() const { return has_filter ? FirstExtra() : -1; }
  int start_offset_index() const { return has_start_offset ? FirstExtra() + has_filter : -1; }
  int end_offset_index() const {
    return has_end_offset ? FirstExtra() + has_filter + has_start_offset : -1;
  }
  // Whether `o` has the same PARTITION BY and ORDER BY (so one sort serves both).
  bool SameSort(const WindowExpression& o) const;
  std::string ToString() const override;

 protected:
  ExprPtr CopyNode() const override;
  bool NodeEquals(const Expression& other) const override;
  size_t NodeHash() const override;

 private:
  int FirstExtra() const {
    return num_args + num_partitions + static_cast<int>(order.size());
  }
};

// kIn: children[0] [NOT] IN (children[1..]).
struct InExpression final : Expression {
  static bool IsKind(ExprType t) { return t == ExprType::kIn; }
  explicit InExpression(bool negated) : Expression(ExprType::kIn, boolean()), negated(negated) {}
  bool negated;
  std::string ToString() const override;

 protected:
  ExprPtr CopyNode() const override;
  bool NodeEquals(const Expression& other) const override;
};

// kSubquery: binder-only; planning replaces it by a join.
struct SubqueryExpression final : Expression {
  static bool IsKind(ExprType t) { return t == ExprType::kSubquery; }
  SubqueryExpression(std::shared_ptr<BoundSubquery> sub, TypeRef ret)
      : Expression(ExprType::kSubquery, std::move(ret)), subquery(std::move(sub)) {}
  std::shared_ptr<BoundSubquery> subquery;
  std::string ToString() const override;

 protected:
  ExprPtr CopyNode() const override;
  bool NodeEquals(const Expression& other) const override { return false; }
};

// The kinds defined by their operands alone: kCast (children[0] ->
// return_type), kCase, kAnd, kOr, kNot, kIsNull, kIsNotNull, kCoalesce.
struct OperatorExpression final : Expression {
  static bool IsKind(ExprType t) {
    return t == ExprType::kCast || t == ExprType::kCase || t == ExprType::kAnd ||
           t == ExprType::kOr || t == ExprType::kNot || t == ExprType::kIsNull ||
           t == ExprType::kIsNotNull || t == ExprType::kCoalesce;
  }
  OperatorExpression(ExprType t, TypeRef ret) : Expression(t, std::move(ret)) { assert(IsKind(t)); }
  std::string ToString() const override;

 protected:
  ExprPtr CopyNode() const override;
};

// `e` as a column reference of this query's plan (depth 0), or null: the
// question rules that follow bindings keep asking.
inline ColumnRefExpression* LocalColumnRef(Expression& e) {
  auto* r = e.TryAs<ColumnRefExpression>();
  return r != nullptr && r->depth == 0 ? r : nullptr;
}
inline const ColumnRefExpression* LocalColumnRef(const Expression& e) {
  const auto* r = e.TryAs<ColumnRefExpression>();
  return r != nullptr && r->depth == 0 ? r : nullptr;
}
// `e` as a call of a function or operator with this name, or null.
inline const FunctionExpression* CallOf(const Expression& e, std::string_view name) {
  const auto* f = e.TryAs<FunctionExpression>();
  return f != nullptr && f->name() == name ? f : nullptr;
}

ExprPtr MakeColumnRef(ColumnBinding b, TypeRef type, std::string alias = "", int depth = 0);
ExprPtr MakeBoundRef(int index, TypeRef type, std::string alias = "");
ExprPtr MakeConstant(Value v);
ExprPtr MakeCast(ExprPtr child, TypeRef to);
ExprPtr MakeNot(ExprPtr child);
ExprPtr MakeAnd(std::vector<ExprPtr> children);
// An n-ary kOr (one child: that child).
ExprPtr MakeOr(std::vector<ExprPtr> children);
// kIsNull / kIsNotNull, kCoalesce, kCase (when0, then0, ..., else).
ExprPtr MakeOperator(ExprType type, TypeRef ret, std::vector<ExprPtr> children);
ExprPtr MakeIn(ExprPtr probe, std::vector<ExprPtr> items, bool negated);
// Resolves `name` over the children's types (implicit casts added).
Result<ExprPtr> MakeFunction(const std::string& name, std::vector<ExprPtr> children,
                             bool is_operator);

// Visits every node (pre-order). The callback may replace the node it is given.
void VisitExpression(ExprPtr* e, const std::function<void(ExprPtr*)>& f);
void VisitExpression(const Expression& e, const std::function<void(const Expression&)>& f);

// The column bindings an expression reads at depth 0.
void CollectBindings(const Expression& e, std::vector<ColumnBinding>* out);
// Splits a conjunction into its conjuncts.
void SplitConjunction(ExprPtr e, std::vector<ExprPtr>* out);

}  // namespace quiver::plan
