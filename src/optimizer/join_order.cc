// Join ordering and cardinality estimates.
//
// A region of inner joins and cross products is flattened into relations
// and predicates, then rebuilt left-deep, greedily: the largest relation is
// the probe side at the bottom, and each step adds, among the relations
// connected to what is joined so far, the one giving the smallest estimated
// result; it becomes the build side. On star and snowflake schemas this
// probes the fact table and builds the (filtered) dimensions.
//
// Snowflake branches are joined first: a filtered relation that is joined
// to exactly one other relation (not the probe root) becomes the build side
// of a join with that relation before the greedy pass, so a branch such as
// orders - customer - nation(filtered) shrinks before it meets the fact
// table, and its runtime filters reach the branch's own scans (TPC-H Q5,
// Q7, Q8).
//
// Estimates: base tables know their row counts (file metadata); filters
// apply textbook selectivities (equality 0.1, range 1/3, LIKE 0.25, IN
// 0.1 per value); an equi-join of L with a base relation R whose filters
// kept a fraction f of R estimates |L| x f (a foreign key into a filtered
// primary key), else max(|L|, |R|).
#include <algorithm>
#include <cmath>

#include "optimizer/optimizer.h"

namespace quiver::optimizer {

namespace {

double Selectivity(const Expression& e) {
  switch (e.type) {
    case ExprType::kAnd: {
      double s = 1;
      for (const auto& c : e.children) s *= Selectivity(*c);
      return s;
    }
    case ExprType::kOr: {
      double s = 0;
      for (const auto& c : e.children) s += Selectivity(*c);
      return std::min(1.0, s);
    }
    case ExprType::kNot:
      return 1 - Selectivity(*e.children[0]);
    case ExprType::kIn:
      return std::min(1.0, 0.1 * static_cast<double>(e.children.size() - 1));
    case ExprType::kIsNull:
      return 0.05;
    case ExprType::kIsNotNull:
      return 0.95;
    case ExprType::kFunction: {
      const std::string& n = e.As<plan::FunctionExpression>().name();
      if (n == "=") return 0.1;
      if (n == "<>") return 0.9;
      if (n == "<" || n == "<=" || n == ">" || n == ">=") return 1.0 / 3;
      if (n == "like" || n == "ilike") return 0.25;
      if (n == "not like" || n == "not ilike") return 0.75;
      return 0.5;
    }
    default:
      return 0.5;
  }
}

// Rows the base table(s) under `op` would give without any filter.
double UnfilteredRows(const LogicalOperator& op) {
  switch (op.type) {
    case LogicalOpType::kGet: {
      const auto& table = op.As<LogicalGet>().table;
      return table ? std::max<double>(
                         1, static_cast<double>(table->EstimatedRows() >= 0 ? table->EstimatedRows()
                                                                            : 1000))
                   : 1000;
    }
    case LogicalOpType::kFilter:
    case LogicalOpType::kProjection:
      return UnfilteredRows(*op.children[0]);
    case LogicalOpType::kJoin:
      // Semi and anti joins filter their left input.
      if (op.As<LogicalJoin>().IsSemiOrAnti()) return UnfilteredRows(*op.children[0]);
      return op.estimated_rows;
    default:
      return op.estimated_rows;
  }
}

}  // namespace

void EstimateCardinalities(LogicalOperator* op) {
  for (auto& c : op->children) EstimateCardinalities(c.get());
  auto child = [&](size_t i) { return std::max(1.0, op->children[i]->estimated_rows); };
  double est = 1;
  switch (op->type) {
    case LogicalOpType::kGet:
      est = UnfilteredRows(*op);
      break;
    case LogicalOpType::kDummyScan:
      est = 1;
      break;
    case LogicalOpType::kValues:
      est = static_cast<double>(op->As<plan::LogicalValues>().rows.size());
      break;
    case LogicalOpType::kEmpty:
      est = 0;
      break;
    case LogicalOpType::kFilter: {
      double s = 1;
      for (const auto& e : op->expressions) s *= Selectivity(*e);
      est = std::max(1.0, child(0) * s);
      break;
    }
    case LogicalOpType::kProjection:
    case LogicalOpType::kOrder:
    case LogicalOpType::kWindow:
      est = child(0);
      break;
    case LogicalOpType::kAggregate:
      est = op->As<LogicalAggregate>().groups.empty() ? 1 : std::max(1.0, child(0) / 10);
      break;
    case LogicalOpType::kDistinct:
      est = std::max(1.0, child(0) / 2);
      break;
    case LogicalOpType::kLimit:
    case LogicalOpType::kTopN: {
      const int64_t limit = op->type == LogicalOpType::kLimit ? op->As<plan::LogicalLimit>().limit
                                                              : op->As<plan::LogicalTopN>().limit;
      est = limit >= 0 ? std::min(child(0), static_cast<double>(limit)) : child(0);
      break;
    }
    case LogicalOpType::kCrossProduct:
      est = child(0) * child(1);
      break;
    case LogicalOpType::kJoin: {
      const double l = child(0), r = child(1);
      const auto& join = op->As<LogicalJoin>();
      switch (join.join_type) {
        case JoinType::kSemi:
          // At most half; at most the build side's rows when the probe key
          // is a key of the left side (IN over a key column).
          est = std::min(l / 2, r);
          break;
        case JoinType::kAnti:
          est = l / 2;
          break;
        case JoinType::kMark:
        case JoinType::kSingle:
          est = l;
          break;
        case JoinType::kLeft:
          est = std::max(l, std::min(l * r, std::max(l, r)));
          break;
        default: {
          if (join.conditions.empty()) {
            est = l * r * 0.5;
          } else {
            // Foreign key into the (filtered) smaller side.
            const double lf = l / std::max(1.0, UnfilteredRows(*op->children[0]));
            const double rf = r / std::max(1.0, UnfilteredRows(*op->children[1]));
            est = l >= r ? l * std::min(1.0, rf) : r * std::min(1.0, lf);
          }
        }
      }
      break;
    }
    case LogicalOpType::kSetOp:
      est = child(0) + child(1);
      break;
    case LogicalOpType::kTableFunction:
      est = child(0) * 1000;  // a guess: a series per input row
      break;
    case LogicalOpType::kRecursiveCte:
      est = child(0) * 100;  // a guess: the anchor's rows over the iterations
      break;
    case LogicalOpType::kInsert:
    case LogicalOpType::kUpdate:
    case LogicalOpType::kDelete:
      est = 1;  // one row: the count
      break;
  }
  op->estimated_rows = std::max(0.0, est);
}

namespace {

struct Relation {
  LogicalOpPtr op;
  std::vector<ColumnBinding> bindings;
  double rows = 1;
  double filtered_fraction = 1;
};

struct Predicate {
  ExprPtr expr;  // boolean, over relations' bindings
  bool used = false;
};

// Flattens an inner-join region into relations and predicates.
Status Flatten(LogicalOpPtr op, std::vector<Relation>* rels, std::vector<Predicate>* preds) {
  const bool inner =
      op->type == LogicalOpType::kCrossProduct || plan::JoinOf(*op, JoinType::kInner) != nullptr;
  if (!inner) {
    Relation r;
    r.bindings = op->GetColumnBindings();
    r.rows = std::max(1.0, op->estimated_rows);
    r.filtered_fraction = std::min(1.0, r.rows / std::max(1.0, UnfilteredRows(*op)));
    r.op = std::move(op);
    rels->push_back(std::move(r));
    return Status::OK();
  }
  if (auto* join = op->TryAs<LogicalJoin>()) {
    for (auto& c : join->conditions) {
      QUIVER_ASSIGN_OR_RAISE(ExprPtr cmp, std::move(c).ToExpression());
      preds->push_back({std::move(cmp), false});
    }
  }
  for (auto& e : op->expressions) preds->push_back({std::move(e), false});
  QUIVER_RETURN_NOT_OK(Flatten(std::move(op->children[0]), rels, preds));
  return Flatten(std::move(op->children[1]), rels, preds);
}

bool IsEquiBetween(const Expression& e, const std::vector<ColumnBinding>& a,
                   const std::vector<ColumnBinding>& b) {
  if (e.type != ExprType::kFunction || e.children.size() != 2) return false;
  const std::string& n = e.As<plan::FunctionExpression>().name();
  if (n != "=" && n != "is not distinct from") return false;
  return (ReferencesOnly(*e.children[0], a) && ReferencesOnly(*e.children[1], b)) ||
         (ReferencesOnly(*e.children[0], b) && ReferencesOnly(*e.children[1], a));
}

Result<LogicalOpPtr> Reorder(LogicalOpPtr op);

// The relations (indices into rels, among the live ones) `e` reads.
std::vector<size_t> RelationsOf(const Expression& e, const std::vector<Relation>& rels,
                                const std::vector<bool>& gone) {
  std::vector<size_t> out;
  for (size_t i = 0; i < rels.size(); ++i) {
    if (gone[i]) continue;
    bool uses = false;
    plan::VisitExpression(e, [&](const Expression& x) {
      const auto* ref = plan::LocalColumnRef(x);
      if (ref != nullptr && plan::FindBinding(rels[i].bindings, ref->binding) >= 0) {
        uses = true;
      }
    });
    if (uses) out.push_back(i);
  }
  return out;
}

// Joins filtered snowflake branches into their parents (see the top of the
// file); merged relations are marked gone.
void CollapseBranches(std::vector<Relation>& rels, std::vector<Predicate>& preds, size_t root,
                      std::vector<bool>& gone) {
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t leaf = 0; leaf < rels.size() && !merged; ++leaf) {
      if (gone[leaf] || leaf == root || rels[leaf].filtered_fraction >= 0.9) continue;
      // Its partners: every relation an unused equi-join predicate joins it
      // with (other predicates over several relations wait for all of them).
      std::vector<size_t> partners;
      bool equi = false;
      for (const auto& p : preds) {
        if (p.used || plan::CallOf(*p.expr, "=") == nullptr) {
          continue;
        }
        const std::vector<size_t> r = RelationsOf(*p.expr, rels, gone);
        if (std::find(r.begin(), r.end(), leaf) == r.end() || r.size() < 2) continue;
        for (size_t x : r) {
          if (x != leaf && std::find(partners.begin(), partners.end(), x) == partners.end())
            partners.push_back(x);
        }
      }
      if (partners.size() != 1 || partners[0] == root) continue;
      const size_t parent = partners[0];
      if (rels[leaf].rows >= rels[parent].rows) continue;
      for (const auto& p : preds) {
        if (!p.used && IsEquiBetween(*p.expr, rels[parent].bindings, rels[leaf].bindings))
          equi = true;
      }
      if (!equi) continue;
      // parent ⋈ leaf, the leaf built.
      auto join = std::make_unique<LogicalJoin>(JoinType::kInner);
      std::vector<ColumnBinding> both = rels[parent].bindings;
      both.insert(both.end(), rels[leaf].bindings.begin(), rels[leaf].bindings.end());
      for (auto& p : preds) {
        if (p.used || !ReferencesOnly(*p.expr, both)) continue;
        p.used = true;
        AddJoinPredicate(join.get(), std::move(p.expr), rels[parent].bindings, rels[leaf].bindings);
      }
      Relation& P = rels[parent];
      const Relation& L = rels[leaf];
      P.rows = std::max(1.0, P.rows * L.filtered_fraction);
      P.filtered_fraction *= L.filtered_fraction;
      join->estimated_rows = P.rows;
      join->children.push_back(std::move(P.op));
      join->children.push_back(std::move(rels[leaf].op));
      P.op = std::move(join);
      P.bindings = std::move(both);
      gone[leaf] = true;
      merged = true;
    }
  }
}

// Rebuilds a region left-deep.
LogicalOpPtr BuildRegion(std::vector<Relation> rels, std::vector<Predicate> preds) {
  // Start from the largest relation: it is probed, never built.
  size_t start = 0;
  for (size_t i = 1; i < rels.size(); ++i) {
    if (rels[i].rows > rels[start].rows) start = i;
  }
  std::vector<bool> done(rels.size(), false);
  CollapseBranches(rels, preds, start, done);
  LogicalOpPtr plan = std::move(rels[start].op);
  std::vector<ColumnBinding> have = rels[start].bindings;
  double rows = rels[start].rows;
  done[start] = true;
  for (size_t step = 1; step < rels.size(); ++step) {
    if (std::all_of(done.begin(), done.end(), [](bool d) { return d; })) break;
    // Best connected relation.
    int best = -1;
    double best_rows = 0;
    for (size_t i = 0; i < rels.size(); ++i) {
      if (done[i]) continue;
      bool connected = false;
      for (const auto& p : preds) {
        if (!p.used && IsEquiBetween(*p.expr, have, rels[i].bindings)) connected = true;
      }
      if (!connected) continue;
      const double out = rows >= rels[i].rows ? rows * rels[i].filtered_fraction : rels[i].rows;
      if (best < 0 || out < best_rows ||
          (out == best_rows && rels[i].rows < rels[static_cast<size_t>(best)].rows)) {
        best = static_cast<int>(i);
        best_rows = out;
      }
    }
    bool cross = false;
    if (best < 0) {
      // Nothing connected: cross product with the smallest remaining.
      cross = true;
      for (size_t i = 0; i < rels.size(); ++i) {
        if (!done[i] && (best < 0 || rels[i].rows < rels[static_cast<size_t>(best)].rows))
          best = static_cast<int>(i);
      }
      best_rows = rows * rels[static_cast<size_t>(best)].rows;
    }
    Relation& r = rels[static_cast<size_t>(best)];
    done[static_cast<size_t>(best)] = true;
    auto join = std::make_unique<LogicalJoin>(JoinType::kInner);
    std::vector<ColumnBinding> both = have;
    both.insert(both.end(), r.bindings.begin(), r.bindings.end());
    for (auto& p : preds) {
      if (p.used || !ReferencesOnly(*p.expr, both)) continue;
      p.used = true;
      AddJoinPredicate(join.get(), std::move(p.expr), have, r.bindings);
    }
    LogicalOpPtr node;
    if (cross && join->conditions.empty() && join->expressions.empty()) {
      node = std::make_unique<LogicalCrossProduct>();
    } else {
      node = std::move(join);
    }
    node->children.push_back(std::move(plan));
    node->children.push_back(std::move(r.op));
    node->estimated_rows = best_rows;
    plan = std::move(node);
    have = std::move(both);
    rows = std::max(1.0, best_rows);
  }
  // Predicates not placed (should not happen): a filter on top.
  std::vector<ExprPtr> rest;
  for (auto& p : preds) {
    if (!p.used) rest.push_back(std::move(p.expr));
  }
  if (!rest.empty()) {
    plan = std::make_unique<LogicalFilter>(std::move(rest), std::move(plan));
  }
  return plan;
}

Result<LogicalOpPtr> Reorder(LogicalOpPtr op) {
  const bool inner =
      op->type == LogicalOpType::kCrossProduct || plan::JoinOf(*op, JoinType::kInner) != nullptr;
  if (!inner) {
    for (auto& c : op->children) {
      QUIVER_ASSIGN_OR_RAISE(c, Reorder(std::move(c)));
    }
    return op;
  }
  std::vector<Relation> rels;
  std::vector<Predicate> preds;
  QUIVER_RETURN_NOT_OK(Flatten(std::move(op), &rels, &preds));
  for (auto& r : rels) {
    QUIVER_ASSIGN_OR_RAISE(r.op, Reorder(std::move(r.op)));
    EstimateCardinalities(r.op.get());
    r.rows = std::max(1.0, r.op->estimated_rows);
  }
  return BuildRegion(std::move(rels), std::move(preds));
}

}  // namespace

Result<LogicalOpPtr> OrderJoins(LogicalOpPtr plan, plan::BindState* state) {
  (void)state;
  EstimateCardinalities(plan.get());
  QUIVER_ASSIGN_OR_RAISE(LogicalOpPtr out, Reorder(std::move(plan)));
  EstimateCardinalities(out.get());
  return out;
}

}  // namespace quiver::optimizer
