#include "execution/physical_planner.h"

#include <algorithm>

#include "execution/expression_executor.h"
#include "execution/operators/physical_filter.h"
#include "execution/operators/physical_hash_aggregate.h"
#include "execution/operators/physical_hash_join.h"
#include "execution/operators/physical_nested_loop_join.h"
#include "execution/operators/physical_order.h"
#include "execution/operators/physical_projection.h"
#include "execution/operators/physical_set_operation.h"
#include "execution/operators/physical_table_scan.h"
#include "execution/operators/physical_values.h"
#include "execution/runtime_filter.h"
#include "functions/cast.h"
#include "planner/expression_binder.h"

namespace quiver::exec {

using plan::ColumnBinding;
using plan::Expression;
using plan::ExprPtr;
using plan::ExprType;
using plan::JoinType;
using plan::LogicalOperator;
using plan::LogicalOpType;

Result<ExprPtr> BindToPositions(const Expression& expr, const std::vector<ColumnBinding>& input) {
  ExprPtr out = expr.Copy();
  Status st;
  plan::VisitExpression(&out, [&](ExprPtr* e) {
    if ((*e)->type != ExprType::kColumnRef) return;
    if ((*e)->depth != 0) {
      st = Status::UnknownError("internal error: correlated reference {} left in a physical plan", (*e)->ToString());
      return;
    }
    const int idx = plan::FindBinding(input, (*e)->binding);
    if (idx < 0) {
      st = Status::UnknownError("internal error: column {} not found in the operator's input",
                                (*e)->ToString());
      return;
    }
    *e = plan::MakeBoundRef(idx, (*e)->return_type, (*e)->alias);
  });
  QUIVER_RETURN_NOT_OK(st);
  return out;
}

namespace {

// Evaluation order of a filter's conjuncts: the cheap ones that cannot fail
// first, so the expensive ones see fewer rows. 0: a fixed-width column
// compared with a constant or column (or IN a list, IS NULL); 1: the same
// on strings; 2: LIKE on a column; 3: everything else, which keeps its
// written order after the others (moving a conjunct that cannot fail ahead
// of one that can only spares the latter rows).
int ConjunctCost(const Expression& e) {
  auto is_input = [](const Expression& x) {
    return x.type == ExprType::kBoundRef || x.type == ExprType::kConstant;
  };
  auto is_string = [](const Expression& x) {
    return x.return_type->id == TypeId::kString || x.return_type->id == TypeId::kBinary;
  };
  if (e.type == ExprType::kIsNull || e.type == ExprType::kIsNotNull) return is_input(*e.children[0]) ? 0 : 3;
  if (e.type == ExprType::kIn) {
    for (const auto& c : e.children) {
      if (!is_input(*c)) return 3;
    }
    return is_string(*e.children[0]) ? 1 : 0;
  }
  if (e.type != ExprType::kFunction || e.function.function == nullptr || e.children.size() != 2 ||
      !is_input(*e.children[0]) || !is_input(*e.children[1])) {
    return 3;
  }
  const std::string& name = e.function.function->name;
  if (name == "like" || name == "not like" || name == "ilike" || name == "not ilike") return 2;
  if (name == "=" || name == "<>" || name == "<" || name == "<=" || name == ">" || name == ">=") {
    return is_string(*e.children[0]) ? 1 : 0;
  }
  return 3;
}

// A hash join's residual predicates bound to positions in (probe ++ build)
// rows, each side as wide as its physical input (computed key columns at its
// end); null when there are none.
Result<ExprPtr> BindResidual(const std::vector<ExprPtr>& residual, const std::vector<ColumnBinding>& probe,
                             size_t probe_width, const std::vector<ColumnBinding>& build, size_t build_width) {
  if (residual.empty()) return ExprPtr();
  std::vector<ColumnBinding> both = probe;
  both.resize(probe_width, ColumnBinding{-2, -2});
  both.insert(both.end(), build.begin(), build.end());
  both.resize(probe_width + build_width, ColumnBinding{-2, -2});
  std::vector<ExprPtr> bound;
  for (const auto& r : residual) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr b, BindToPositions(*r, both));
    bound.push_back(std::move(b));
  }
  return plan::MakeAnd(std::move(bound));
}

class Planner {
 public:
  explicit Planner(const PhysicalPlanOptions& options) : options_(options) {}

  Result<PhysicalOpPtr> Plan(const LogicalOperator& op);

 private:
  Result<PhysicalOpPtr> PlanGet(const LogicalOperator& op);
  Result<PhysicalOpPtr> PlanValues(const LogicalOperator& op);
  Result<PhysicalOpPtr> PlanAggregate(const LogicalOperator& op);
  Result<PhysicalOpPtr> PlanJoin(const LogicalOperator& op);
  Result<PhysicalOpPtr> PlanOrder(const LogicalOperator& op, int64_t limit, int64_t offset);
  Result<PhysicalOpPtr> PlanSetOp(const LogicalOperator& op);

  // Projection of `child` computing `exprs` (over child_bindings).
  Result<PhysicalOpPtr> Project(PhysicalOpPtr child, const std::vector<ColumnBinding>& child_bindings,
                                const std::vector<const Expression*>& exprs);
  // Wraps `child` so that `exprs` are available as columns: plain column
  // references use existing positions; others are appended by a
  // projection. Writes the positions into *positions.
  Result<PhysicalOpPtr> EnsureColumns(PhysicalOpPtr child, const std::vector<ColumnBinding>& child_bindings,
                                      const std::vector<const Expression*>& exprs, std::vector<int>* positions);

  void WireRuntimeFilter(PhysicalOperator* probe_child, int probe_col, const std::shared_ptr<RuntimeFilter>& f);
  // A runtime filter on the probe side's key column `col`, wired to the scan
  // below it; null when runtime filters are off or the key cannot have one.
  std::shared_ptr<RuntimeFilter> AttachRuntimeFilter(PhysicalOperator* probe, int col, bool nulls_equal);

  PhysicalPlanOptions options_;
};


Result<PhysicalOpPtr> Planner::Project(PhysicalOpPtr child, const std::vector<ColumnBinding>& child_bindings,
                                       const std::vector<const Expression*>& exprs) {
  std::vector<ExprPtr> bound;
  std::vector<TypeRef> types;
  for (const Expression* e : exprs) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr b, BindToPositions(*e, child_bindings));
    types.push_back(b->return_type);
    bound.push_back(std::move(b));
  }
  auto p = std::make_unique<PhysicalProjection>(std::move(types), std::move(bound));
  p->estimated_rows = child->estimated_rows;
  p->children().push_back(std::move(child));
  return PhysicalOpPtr(std::move(p));
}

Result<PhysicalOpPtr> Planner::EnsureColumns(PhysicalOpPtr child, const std::vector<ColumnBinding>& child_bindings,
                                             const std::vector<const Expression*>& exprs,
                                             std::vector<int>* positions) {
  positions->clear();
  std::vector<const Expression*> extra;
  const int width = static_cast<int>(child->types().size());
  for (const Expression* e : exprs) {
    if (e->type == ExprType::kColumnRef && e->depth == 0) {
      const int idx = plan::FindBinding(child_bindings, e->binding);
      if (idx >= 0) {
        positions->push_back(idx);
        continue;
      }
    }
    positions->push_back(width + static_cast<int>(extra.size()));
    extra.push_back(e);
  }
  if (extra.empty()) return child;
  // Keep every child column, append the computed ones.
  std::vector<ExprPtr> bound;
  std::vector<TypeRef> types = child->types();
  for (int i = 0; i < width; ++i) bound.push_back(plan::MakeBoundRef(i, types[static_cast<size_t>(i)]));
  for (const Expression* e : extra) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr b, BindToPositions(*e, child_bindings));
    types.push_back(b->return_type);
    bound.push_back(std::move(b));
  }
  auto p = std::make_unique<PhysicalProjection>(std::move(types), std::move(bound));
  p->estimated_rows = child->estimated_rows;
  p->children().push_back(std::move(child));
  return PhysicalOpPtr(std::move(p));
}

Result<PhysicalOpPtr> Planner::Plan(const LogicalOperator& op) {
  PhysicalOpPtr out;
  switch (op.type) {
    case LogicalOpType::kGet: {
      QUIVER_ASSIGN_OR_RAISE(out, PlanGet(op));
      break;
    }
    case LogicalOpType::kDummyScan:
      out = std::make_unique<PhysicalValues>(std::vector<TypeRef>{}, std::vector<ArrayRef>{}, 1, "DUMMY_SCAN");
      break;
    case LogicalOpType::kEmpty: {
      std::vector<ArrayRef> cols;
      for (const auto& t : op.types) {
        QUIVER_ASSIGN_OR_RAISE(ArrayRef a, MakeArrayOfNull(t, 0));
        cols.push_back(a);
      }
      out = std::make_unique<PhysicalValues>(op.types, std::move(cols), 0, "EMPTY_RESULT");
      break;
    }
    case LogicalOpType::kValues: {
      QUIVER_ASSIGN_OR_RAISE(out, PlanValues(op));
      break;
    }
    case LogicalOpType::kFilter: {
      QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr child, Plan(*op.children[0]));
      const auto bindings = op.children[0]->GetColumnBindings();
      std::vector<ExprPtr> conjuncts;
      for (const auto& e : op.expressions) {
        QUIVER_ASSIGN_OR_RAISE(ExprPtr b, BindToPositions(*e, bindings));
        conjuncts.push_back(std::move(b));
      }
      if (conjuncts.empty()) return child;
      std::stable_sort(conjuncts.begin(), conjuncts.end(),
                       [](const ExprPtr& a, const ExprPtr& b) { return ConjunctCost(*a) < ConjunctCost(*b); });
      ExprPtr pred = plan::MakeAnd(std::move(conjuncts));
      auto f = std::make_unique<PhysicalFilter>(child->types(), std::move(pred));
      f->children().push_back(std::move(child));
      out = std::move(f);
      break;
    }
    case LogicalOpType::kProjection: {
      QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr child, Plan(*op.children[0]));
      std::vector<const Expression*> exprs;
      for (const auto& e : op.expressions) exprs.push_back(e.get());
      QUIVER_ASSIGN_OR_RAISE(out, Project(std::move(child), op.children[0]->GetColumnBindings(), exprs));
      break;
    }
    case LogicalOpType::kAggregate: {
      QUIVER_ASSIGN_OR_RAISE(out, PlanAggregate(op));
      break;
    }
    case LogicalOpType::kDistinct: {
      QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr child, Plan(*op.children[0]));
      if (!op.expressions.empty()) return Status::Unsupported("DISTINCT ON");
      std::vector<int> groups;
      for (size_t i = 0; i < child->types().size(); ++i) groups.push_back(static_cast<int>(i));
      auto agg = std::make_unique<PhysicalHashAggregate>(child->types(), std::move(groups), std::vector<AggregateSpec>{});
      agg->children().push_back(std::move(child));
      out = std::move(agg);
      break;
    }
    case LogicalOpType::kJoin:
    case LogicalOpType::kCrossProduct: {
      QUIVER_ASSIGN_OR_RAISE(out, PlanJoin(op));
      break;
    }
    case LogicalOpType::kOrder: {
      QUIVER_ASSIGN_OR_RAISE(out, PlanOrder(op, -1, 0));
      break;
    }
    case LogicalOpType::kTopN: {
      QUIVER_ASSIGN_OR_RAISE(out, PlanOrder(op, op.limit, op.offset));
      break;
    }
    case LogicalOpType::kLimit: {
      QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr child, Plan(*op.children[0]));
      auto l = std::make_unique<PhysicalLimit>(child->types(), op.limit, op.offset);
      l->children().push_back(std::move(child));
      out = std::move(l);
      break;
    }
    case LogicalOpType::kSetOp: {
      QUIVER_ASSIGN_OR_RAISE(out, PlanSetOp(op));
      break;
    }
  }
  if (out->estimated_rows < 0) out->estimated_rows = op.estimated_rows;
  return out;
}

Result<PhysicalOpPtr> Planner::PlanGet(const LogicalOperator& op) {
  ScanRequest req;
  req.columns = op.column_ids;
  req.predicates = op.scan_predicates;
  std::vector<TypeRef> types;
  std::vector<std::string> names;
  for (int c : op.column_ids) {
    types.push_back(op.column_types[static_cast<size_t>(c)]);
    names.push_back(op.column_names[static_cast<size_t>(c)]);
  }
  auto scan = std::make_unique<PhysicalTableScan>(std::move(types), op.table, std::move(req), std::move(names));
  scan->estimated_rows = op.estimated_rows;
  return PhysicalOpPtr(std::move(scan));
}

Result<PhysicalOpPtr> Planner::PlanValues(const LogicalOperator& op) {
  std::vector<ArrayRef> cols;
  for (size_t c = 0; c < op.types.size(); ++c) {
    std::vector<Value> values;
    for (const auto& row : op.rows) {
      QUIVER_ASSIGN_OR_RAISE(Value v, EvaluateConstant(*row[c]));
      if (!v.is_null() && !v.type()->Equals(*op.types[c])) {
        QUIVER_ASSIGN_OR_RAISE(v, CastValue(v, op.types[c]));
      }
      values.push_back(std::move(v));
    }
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, ArrayFromValues(values, op.types[c]));
    cols.push_back(std::move(a));
  }
  return PhysicalOpPtr(std::make_unique<PhysicalValues>(op.types, std::move(cols), static_cast<int64_t>(op.rows.size())));
}

Result<PhysicalOpPtr> Planner::PlanAggregate(const LogicalOperator& op) {
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr child, Plan(*op.children[0]));
  const auto bindings = op.children[0]->GetColumnBindings();
  // Columns the aggregate reads: groups, then each aggregate's arguments and filter.
  std::vector<const Expression*> needed;
  for (const auto& g : op.groups) needed.push_back(g.get());
  for (const auto& a : op.expressions) {
    for (const auto& arg : a->children) needed.push_back(arg.get());
    if (a->filter) needed.push_back(a->filter.get());
  }
  std::vector<int> pos;
  QUIVER_ASSIGN_OR_RAISE(child, EnsureColumns(std::move(child), bindings, needed, &pos));
  const std::vector<TypeRef> in_types = child->types();
  size_t k = 0;
  std::vector<int> groups;
  for (size_t i = 0; i < op.groups.size(); ++i) groups.push_back(pos[k++]);
  std::vector<AggregateSpec> specs;
  for (const auto& a : op.expressions) {
    AggregateSpec s;
    s.function = a->aggregate;
    for (size_t i = 0; i < a->children.size(); ++i) {
      s.args.push_back(pos[k]);
      s.arg_types.push_back(in_types[static_cast<size_t>(pos[k])]);
      ++k;
    }
    if (a->filter) s.filter = pos[k++];
    s.distinct = a->distinct;
    s.type = a->return_type;
    s.name = a->ToString();
    specs.push_back(std::move(s));
  }
  auto agg = std::make_unique<PhysicalHashAggregate>(op.GetTypes(), std::move(groups), std::move(specs));
  agg->children().push_back(std::move(child));
  return PhysicalOpPtr(std::move(agg));
}

Result<PhysicalOpPtr> Planner::PlanOrder(const LogicalOperator& op, int64_t limit, int64_t offset) {
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr child, Plan(*op.children[0]));
  const auto bindings = op.children[0]->GetColumnBindings();
  const size_t width = child->types().size();
  std::vector<const Expression*> exprs;
  for (const auto& o : op.orders) exprs.push_back(o.expr.get());
  std::vector<int> pos;
  QUIVER_ASSIGN_OR_RAISE(child, EnsureColumns(std::move(child), bindings, exprs, &pos));
  std::vector<SortKey> keys;
  for (size_t i = 0; i < op.orders.size(); ++i) {
    keys.push_back({pos[i], op.orders[i].descending, op.orders[i].nulls_first});
  }
  auto order = std::make_unique<PhysicalOrder>(child->types(), std::move(keys), limit, offset);
  order->children().push_back(std::move(child));
  PhysicalOpPtr out = std::move(order);
  if (out->types().size() > width) {
    std::vector<ExprPtr> keep;
    std::vector<TypeRef> types;
    for (size_t i = 0; i < width; ++i) {
      keep.push_back(plan::MakeBoundRef(static_cast<int>(i), out->types()[i]));
      types.push_back(out->types()[i]);
    }
    auto p = std::make_unique<PhysicalProjection>(std::move(types), std::move(keep));
    p->children().push_back(std::move(out));
    out = std::move(p);
  }
  return out;
}

Result<PhysicalOpPtr> Planner::PlanSetOp(const LogicalOperator& op) {
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr left, Plan(*op.children[0]));
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr right, Plan(*op.children[1]));
  if (op.setop == plan::SetOpType::kUnion) {
    auto u = std::make_unique<PhysicalUnion>(op.types);
    u->children().push_back(std::move(left));
    u->children().push_back(std::move(right));
    if (op.setop_all) return PhysicalOpPtr(std::move(u));
    std::vector<int> groups;
    for (size_t i = 0; i < op.types.size(); ++i) groups.push_back(static_cast<int>(i));
    auto d = std::make_unique<PhysicalHashAggregate>(op.types, std::move(groups), std::vector<AggregateSpec>{});
    d->children().push_back(std::move(u));
    return PhysicalOpPtr(std::move(d));
  }
  auto s = std::make_unique<PhysicalSetOperation>(op.types, op.setop, op.setop_all);
  s->children().push_back(std::move(left));
  s->children().push_back(std::move(right));
  return PhysicalOpPtr(std::move(s));
}

// Side of an expression: 0 = only left bindings, 1 = only right, -1 = mixed
// or none.
int SideOf(const Expression& e, const std::vector<ColumnBinding>& left, const std::vector<ColumnBinding>& right) {
  bool l = false, r = false, other = false;
  plan::VisitExpression(e, [&](const Expression& x) {
    if (x.type != ExprType::kColumnRef || x.depth != 0) return;
    if (plan::FindBinding(left, x.binding) >= 0) {
      l = true;
    } else if (plan::FindBinding(right, x.binding) >= 0) {
      r = true;
    } else {
      other = true;
    }
  });
  if (other || (l && r)) return -1;
  if (l) return 0;
  if (r) return 1;
  return -1;
}

std::shared_ptr<RuntimeFilter> Planner::AttachRuntimeFilter(PhysicalOperator* probe, int col, bool nulls_equal) {
  const TypeRef& type = probe->types()[static_cast<size_t>(col)];
  if (!options_.runtime_filters || nulls_equal || !RuntimeFilterSupports(*type)) return nullptr;
  auto f = std::make_shared<RuntimeFilter>();
  f->type = type;
  WireRuntimeFilter(probe, col, f);
  return f;
}

void Planner::WireRuntimeFilter(PhysicalOperator* op, int col, const std::shared_ptr<RuntimeFilter>& f) {
  for (;;) {
    if (auto* scan = dynamic_cast<PhysicalTableScan*>(op)) {
      f->scan_column = col;
      scan->AddRuntimeFilter(f);
      return;
    }
    if (dynamic_cast<PhysicalFilter*>(op)) {
      op = op->children()[0].get();
      continue;
    }
    if (auto* proj = dynamic_cast<PhysicalProjection*>(op)) {
      const Expression& e = *proj->expressions()[static_cast<size_t>(col)];
      if (e.type != ExprType::kBoundRef) return;
      col = e.index;
      op = op->children()[0].get();
      continue;
    }
    if (dynamic_cast<PhysicalHashJoin*>(op) || dynamic_cast<PhysicalNestedLoopJoin*>(op)) {
      const int left_width = static_cast<int>(op->children()[0]->types().size());
      if (col >= left_width) return;
      op = op->children()[0].get();
      continue;
    }
    return;
  }
}

Result<PhysicalOpPtr> Planner::PlanJoin(const LogicalOperator& op) {
  JoinType type = op.type == LogicalOpType::kCrossProduct ? JoinType::kInner : op.join_type;
  const LogicalOperator* lop = op.children[0].get();
  const LogicalOperator* rop = op.children[1].get();

  if (type == JoinType::kFull) {
    // FULL = LEFT JOIN  UNION ALL  (right rows without a partner, left side NULL).
    auto left_join = op.Copy();
    left_join->join_type = JoinType::kLeft;
    QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr lj, Plan(*left_join));
    auto anti = op.Copy();
    anti->join_type = JoinType::kAnti;
    std::swap(anti->children[0], anti->children[1]);
    for (auto& c : anti->conditions) std::swap(c.left, c.right);
    QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr aj, Plan(*anti));
    // Pad with NULL left columns.
    const auto left_types = lop->GetTypes();
    const auto right_types = rop->GetTypes();
    std::vector<ExprPtr> exprs;
    std::vector<TypeRef> types;
    for (const auto& t : left_types) {
      exprs.push_back(plan::MakeConstant(Value::Null(t)));
      types.push_back(t);
    }
    for (size_t i = 0; i < right_types.size(); ++i) {
      exprs.push_back(plan::MakeBoundRef(static_cast<int>(i), right_types[i]));
      types.push_back(right_types[i]);
    }
    auto pad = std::make_unique<PhysicalProjection>(types, std::move(exprs));
    pad->children().push_back(std::move(aj));
    auto u = std::make_unique<PhysicalUnion>(types);
    u->children().push_back(std::move(lj));
    u->children().push_back(std::move(pad));
    return PhysicalOpPtr(std::move(u));
  }
  if (type == JoinType::kRight) {
    // RIGHT = LEFT with the sides swapped, columns put back in order.
    auto swapped = op.Copy();
    swapped->join_type = JoinType::kLeft;
    std::swap(swapped->children[0], swapped->children[1]);
    for (auto& c : swapped->conditions) std::swap(c.left, c.right);
    QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr j, Plan(*swapped));
    const size_t nl = lop->GetTypes().size(), nr = rop->GetTypes().size();
    std::vector<ExprPtr> exprs;
    std::vector<TypeRef> types;
    for (size_t i = 0; i < nl; ++i) {
      exprs.push_back(plan::MakeBoundRef(static_cast<int>(nr + i), j->types()[nr + i]));
      types.push_back(j->types()[nr + i]);
    }
    for (size_t i = 0; i < nr; ++i) {
      exprs.push_back(plan::MakeBoundRef(static_cast<int>(i), j->types()[i]));
      types.push_back(j->types()[i]);
    }
    auto p = std::make_unique<PhysicalProjection>(types, std::move(exprs));
    p->children().push_back(std::move(j));
    return PhysicalOpPtr(std::move(p));
  }

  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr left, Plan(*lop));
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr right, Plan(*rop));
  const auto lb = lop->GetColumnBindings();
  const auto rb = rop->GetColumnBindings();
  const size_t left_width = left->types().size();
  const size_t right_width = right->types().size();

  // Split predicates into hashable equalities and the rest.
  struct Key {
    const Expression* left;
    const Expression* right;
    bool nulls_equal;
  };
  std::vector<Key> keys;
  std::vector<ExprPtr> residual;       // over left ++ right (logical form)
  ExprPtr mark_condition;              // kMark: the three-valued comparison
  bool null_aware = false;
  std::vector<ExprPtr> owned;          // keeps swapped operands alive
  for (const auto& c : op.conditions) {
    const bool eq = c.op == "=" || c.op == "is not distinct from";
    if (type == JoinType::kMark) {
      // The mark comparison: hashable only when it is the only predicate.
      if (eq && c.op == "=" && op.conditions.size() == 1 && op.expressions.empty()) {
        keys.push_back({c.left.get(), c.right.get(), false});
        null_aware = true;
        continue;
      }
      std::vector<ExprPtr> args;
      args.push_back(c.left->Copy());
      args.push_back(c.right->Copy());
      QUIVER_ASSIGN_OR_RAISE(mark_condition, plan::BindOperatorCall(c.op, std::move(args), -1));
      continue;
    }
    if (eq && SideOf(*c.left, lb, rb) != 1 && SideOf(*c.right, lb, rb) != 0) {
      keys.push_back({c.left.get(), c.right.get(), c.op == "is not distinct from"});
      continue;
    }
    std::vector<ExprPtr> args;
    args.push_back(c.left->Copy());
    args.push_back(c.right->Copy());
    QUIVER_ASSIGN_OR_RAISE(ExprPtr cmp, plan::BindOperatorCall(c.op, std::move(args), -1));
    residual.push_back(std::move(cmp));
  }
  if (type == JoinType::kSemi || type == JoinType::kAnti) null_aware = op.null_aware;
  for (const auto& e : op.expressions) {
    // Equalities between the sides become keys (mark joins: correlation).
    if (e->type == ExprType::kFunction && e->function.function &&
        (e->function.function->name == "=" || e->function.function->name == "is not distinct from") &&
        e->children.size() == 2 && (type != JoinType::kMark || mark_condition == nullptr) && !null_aware) {
      const int s0 = SideOf(*e->children[0], lb, rb), s1 = SideOf(*e->children[1], lb, rb);
      const bool nulls_equal = e->function.function->name == "is not distinct from";
      if (s0 == 0 && s1 == 1) {
        keys.push_back({e->children[0].get(), e->children[1].get(), nulls_equal});
        continue;
      }
      if (s0 == 1 && s1 == 0) {
        keys.push_back({e->children[1].get(), e->children[0].get(), nulls_equal});
        continue;
      }
    }
    residual.push_back(e->Copy());
  }
  if (type == JoinType::kMark && mark_condition != nullptr) keys.clear();  // three-valued: nested loop

  std::vector<ExprPtr> physical_residual;
  if (keys.empty()) {
    // Nested-loop join over left ++ right.
    std::vector<ColumnBinding> both = lb;
    both.insert(both.end(), rb.begin(), rb.end());
    if (type == JoinType::kMark && mark_condition == nullptr && null_aware) {
      return Status::UnknownError("internal error: mark join without a condition");
    }
    ExprPtr must;
    if (!residual.empty()) {
      std::vector<ExprPtr> bound;
      for (const auto& r : residual) {
        QUIVER_ASSIGN_OR_RAISE(ExprPtr b, BindToPositions(*r, both));
        bound.push_back(std::move(b));
      }
      must = plan::MakeAnd(std::move(bound));
    }
    ExprPtr mark;
    if (mark_condition) {
      QUIVER_ASSIGN_OR_RAISE(mark, BindToPositions(*mark_condition, both));
    }
    if (type == JoinType::kAnti && null_aware) {
      return Status::Unsupported("NOT IN with a condition that is not an equality");
    }
    auto nlj = std::make_unique<PhysicalNestedLoopJoin>(op.GetTypes(), type, std::move(must), std::move(mark),
                                                        right->types());
    nlj->children().push_back(std::move(left));
    nlj->children().push_back(std::move(right));
    return PhysicalOpPtr(std::move(nlj));
  }

  // Hash join: key expressions as columns on each side.
  std::vector<const Expression*> lkeys, rkeys;
  for (const auto& k : keys) {
    lkeys.push_back(k.left);
    rkeys.push_back(k.right);
  }
  std::vector<int> lpos, rpos;
  QUIVER_ASSIGN_OR_RAISE(left, EnsureColumns(std::move(left), lb, lkeys, &lpos));
  QUIVER_ASSIGN_OR_RAISE(right, EnsureColumns(std::move(right), rb, rkeys, &rpos));
  // A small left side and a large right one: semi, anti and left joins can
  // build the left side and let the right side probe it. The right side's
  // rows without a partner never reach the result, so the left side's keys
  // filter the right side's scan.
  const double left_rows = lop->estimated_rows, right_rows = rop->estimated_rows;
  const bool small_left = left_rows >= 0 && right_rows >= 0 && left_rows * 4 < right_rows && right_rows > 10000;
  auto left_built_spec = [&](JoinType probe_type) -> Result<HashJoinSpec> {
    HashJoinSpec spec;
    spec.type = probe_type;
    spec.probe_keys = rpos;
    spec.build_keys = lpos;
    for (const auto& k : keys) spec.nulls_equal.push_back(k.nulls_equal);
    QUIVER_ASSIGN_OR_RAISE(spec.residual,
                           BindResidual(residual, rb, right->types().size(), lb, left->types().size()));
    spec.runtime_filter = AttachRuntimeFilter(right.get(), rpos[0], spec.nulls_equal[0]);
    return spec;
  };
  // Semi / anti: the right side marks the build rows it matches (RIGHT_SEMI /
  // RIGHT_ANTI, see physical_hash_join.h).
  if ((type == JoinType::kSemi || type == JoinType::kAnti) && !null_aware && small_left) {
    QUIVER_ASSIGN_OR_RAISE(HashJoinSpec spec, left_built_spec(type));
    spec.emit_build = true;
    const std::vector<TypeRef> build_types = left->types();
    auto hj = std::make_unique<PhysicalHashJoin>(std::vector<TypeRef>{}, std::move(spec), build_types);
    hj->children().push_back(std::move(right));
    hj->children().push_back(std::move(left));
    PhysicalOpPtr out = std::make_unique<PhysicalJoinBuildRows>(build_types, type == JoinType::kAnti);
    out->children().push_back(std::move(hj));
    if (build_types.size() > left_width) {  // drop computed key columns again
      std::vector<ExprPtr> keep;
      std::vector<TypeRef> kt;
      for (size_t i = 0; i < left_width; ++i) {
        keep.push_back(plan::MakeBoundRef(static_cast<int>(i), build_types[i]));
        kt.push_back(build_types[i]);
      }
      auto p = std::make_unique<PhysicalProjection>(std::move(kt), std::move(keep));
      p->children().push_back(std::move(out));
      out = std::move(p);
    }
    return out;
  }
  // Left: the right side probes as an inner join that marks the build rows
  // it matches; the unmatched left rows follow, padded with NULLs
  // (RIGHT_OUTER_ROWS).
  if (type == JoinType::kLeft && small_left) {
    QUIVER_ASSIGN_OR_RAISE(HashJoinSpec spec, left_built_spec(JoinType::kInner));
    spec.mark_build = true;
    const std::vector<TypeRef> probe_types = right->types();
    const std::vector<TypeRef> build_types = left->types();
    std::vector<TypeRef> pair_types = probe_types;
    pair_types.insert(pair_types.end(), build_types.begin(), build_types.end());
    auto hj = std::make_unique<PhysicalHashJoin>(pair_types, std::move(spec), build_types);
    hj->children().push_back(std::move(right));
    hj->children().push_back(std::move(left));
    auto rows = std::make_unique<PhysicalJoinBuildRows>(pair_types, true, probe_types, true);
    rows->children().push_back(std::move(hj));
    // Back to left ++ right, without computed key columns.
    std::vector<ExprPtr> exprs;
    std::vector<TypeRef> types;
    for (size_t i = 0; i < left_width; ++i) {
      const size_t pos = probe_types.size() + i;
      exprs.push_back(plan::MakeBoundRef(static_cast<int>(pos), pair_types[pos]));
      types.push_back(pair_types[pos]);
    }
    for (size_t i = 0; i < right_width; ++i) {
      exprs.push_back(plan::MakeBoundRef(static_cast<int>(i), pair_types[i]));
      types.push_back(pair_types[i]);
    }
    auto p = std::make_unique<PhysicalProjection>(std::move(types), std::move(exprs));
    p->children().push_back(std::move(rows));
    return PhysicalOpPtr(std::move(p));
  }
  // Key types must agree (the binder cast both sides to the comparison type).
  HashJoinSpec spec;
  spec.type = type;
  spec.probe_keys = lpos;
  spec.build_keys = rpos;
  for (const auto& k : keys) spec.nulls_equal.push_back(k.nulls_equal);
  spec.null_aware = null_aware;
  QUIVER_ASSIGN_OR_RAISE(spec.residual, BindResidual(residual, lb, left->types().size(), rb, right->types().size()));
  // Output types of the hash join itself.
  std::vector<TypeRef> types = left->types();
  const std::vector<TypeRef> build_types = right->types();
  if (type == JoinType::kMark) {
    types.push_back(boolean());
  } else if (type != JoinType::kSemi && type != JoinType::kAnti) {
    types.insert(types.end(), build_types.begin(), build_types.end());
  }
  // Only joins that drop probe rows without a partner can filter the probe scan.
  if (type == JoinType::kInner || type == JoinType::kSemi) {
    spec.runtime_filter = AttachRuntimeFilter(left.get(), lpos[0], spec.nulls_equal[0]);
  }
  const size_t probe_width = left->types().size();
  auto hj = std::make_unique<PhysicalHashJoin>(types, std::move(spec), build_types);
  hj->children().push_back(std::move(left));
  hj->children().push_back(std::move(right));
  PhysicalOpPtr out = std::move(hj);
  // Drop computed key columns again.
  const bool extra_left = probe_width > left_width;
  const bool extra_right = build_types.size() > right_width;
  if (extra_left || (extra_right && type != JoinType::kSemi && type != JoinType::kAnti && type != JoinType::kMark)) {
    std::vector<ExprPtr> keep;
    std::vector<TypeRef> kt;
    for (size_t i = 0; i < left_width; ++i) {
      keep.push_back(plan::MakeBoundRef(static_cast<int>(i), out->types()[i]));
      kt.push_back(out->types()[i]);
    }
    if (type == JoinType::kMark) {
      keep.push_back(plan::MakeBoundRef(static_cast<int>(probe_width), boolean()));
      kt.push_back(boolean());
    } else if (type != JoinType::kSemi && type != JoinType::kAnti) {
      for (size_t i = 0; i < right_width; ++i) {
        keep.push_back(plan::MakeBoundRef(static_cast<int>(probe_width + i), out->types()[probe_width + i]));
        kt.push_back(out->types()[probe_width + i]);
      }
    }
    auto p = std::make_unique<PhysicalProjection>(std::move(kt), std::move(keep));
    p->children().push_back(std::move(out));
    out = std::move(p);
  }
  return out;
}

}  // namespace

Result<PhysicalOpPtr> CreatePhysicalPlan(const LogicalOperator& root, const PhysicalPlanOptions& options) {
  Planner p(options);
  return p.Plan(root);
}

}  // namespace quiver::exec
