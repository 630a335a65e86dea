// Bound expressions: typed, resolved trees that logical plans carry.
//
// Column references name their column by a ColumnBinding (table index,
// column index) — the output slot of some operator in the logical plan —
// rather than by position, so the optimizer can reorder joins and move
// filters without renumbering (DuckDB's design). The physical planner turns
// bindings into positions (kColumnRef -> kBoundRef).
//
// Kinds and their fields:
//   kColumnRef   binding, depth (0 = this query, n = n levels out: correlated)
//   kBoundRef    index into the input chunk's columns (physical only)
//   kConstant    value
//   kFunction    function (resolved overload); children = arguments
//   kCast        children[0] -> return_type
//   kCase        children = when0, then0, when1, then1, ..., else
//   kAnd, kOr    children (n-ary)
//   kNot         children[0]
//   kIsNull, kIsNotNull  children[0]
//   kIn          children[0] [NOT] IN (children[1..]) (negated)
//   kCoalesce    children
//   kAggregate   aggregate; children = arguments; distinct; filter
//   kSubquery    subquery (binder-only; planning replaces it by a join)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
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
};

struct BoundSubquery;  // planner/binder.h

struct Expression;
using ExprPtr = std::unique_ptr<Expression>;

struct Expression {
  ExprType type;
  TypeRef return_type;
  std::string alias;  // a name for output columns and EXPLAIN

  ColumnBinding binding;
  int depth = 0;
  int index = -1;

  Value value;
  // An untyped string literal ('...'): PostgreSQL's `unknown`, which takes
  // whatever type its context needs.
  bool unknown_literal = false;

  BoundFunction function;
  const AggregateFunction* aggregate = nullptr;
  bool distinct = false;
  ExprPtr filter;

  bool negated = false;
  std::vector<ExprPtr> children;

  std::shared_ptr<BoundSubquery> subquery;

  Expression(ExprType t, TypeRef ret) : type(t), return_type(std::move(ret)) {}

  ExprPtr Copy() const;
  // Renders for EXPLAIN: "(l_quantity < 24)", "sum(l_extendedprice)".
  std::string ToString() const;
  // Structural equality (same kind, function, children, constants, bindings).
  bool Equals(const Expression& other) const;
  size_t Hash() const;

  // Whether the expression has no column references, aggregates,
  // subqueries or volatile functions (so it can be folded to a constant).
  bool IsFoldable() const;
  bool HasAggregate() const;
  bool HasSubquery() const;
  bool IsVolatile() const;
};

ExprPtr MakeColumnRef(ColumnBinding b, TypeRef type, std::string alias = "", int depth = 0);
ExprPtr MakeBoundRef(int index, TypeRef type, std::string alias = "");
ExprPtr MakeConstant(Value v);
ExprPtr MakeCast(ExprPtr child, TypeRef to);
ExprPtr MakeNot(ExprPtr child);
ExprPtr MakeAnd(std::vector<ExprPtr> children);
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
