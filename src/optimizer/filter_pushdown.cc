// Filter pushdown: every conjunct travels as far toward the scans as its
// columns allow.
//
//   Filter          its conjuncts join the set being pushed
//   Projection      conjuncts over its outputs are rewritten in terms of its
//                   inputs (column -> defining expression) and pushed
//   Inner join /    conjuncts over one side go to that side; conjuncts over
//   cross product   both become join predicates (`l = r` a hash key)
//   Left / single   conjuncts over the left side go left; ON predicates over
//                   the right side only filter the right side
//   Semi/anti/mark  conjuncts over the left side (not the mark) go left
//   Aggregate       conjuncts over group columns only go below it
//   Order/Distinct  pass through
//   Set operations  a copy goes to each input, over that input's columns
//   Get             conjuncts stay in a Filter right above the scan; the
//                   `col op constant` ones are also handed to the scan as
//                   predicates for statistics pruning
#include <algorithm>
#include <optional>

#include "optimizer/optimizer.h"

namespace quiver::optimizer {

namespace {

bool HasVolatileOrSubquery(const Expression& e) { return e.IsVolatile() || e.HasSubquery(); }

LogicalOpPtr WrapFilter(LogicalOpPtr op, std::vector<ExprPtr> filters) {
  // Repeated passes may derive the same conjunct twice.
  std::vector<ExprPtr> unique;
  for (auto& f : filters) {
    bool dup = false;
    for (const auto& u : unique) dup |= u->Equals(*f);
    if (!dup) unique.push_back(std::move(f));
  }
  filters = std::move(unique);
  if (filters.empty()) return op;
  return std::make_unique<LogicalFilter>(std::move(filters), std::move(op));
}

// Replaces references to a projection's outputs by the expressions.
bool InlineProjection(ExprPtr* e, const LogicalOperator& proj) {
  bool ok = true;
  plan::VisitExpression(e, [&](ExprPtr* x) {
    const auto* ref = plan::LocalColumnRef(**x);
    if (ref != nullptr && ref->binding.table == proj.table_index) {
      const Expression& def = *proj.expressions[static_cast<size_t>(ref->binding.column)];
      if (HasVolatileOrSubquery(def)) {
        ok = false;
        return;
      }
      *x = def.Copy();
    }
  });
  return ok;
}

bool InlineGroups(ExprPtr* e, const LogicalAggregate& agg) {
  bool ok = true;
  plan::VisitExpression(e, [&](ExprPtr* x) {
    const auto* ref = plan::LocalColumnRef(**x);
    if (ref == nullptr) return;
    if (ref->binding.table == agg.group_index) {
      // A key some grouping set leaves out is NULL in that set's rows, not
      // the expression's value: a filter on it cannot go below.
      if (!agg.GroupKeptInEverySet(ref->binding.column)) {
        ok = false;
        return;
      }
      *x = agg.groups[static_cast<size_t>(ref->binding.column)]->Copy();
    } else if (ref->binding.table == agg.aggregate_index) {
      ok = false;
    }
  });
  return ok;
}

// Scan predicates from conjuncts of the forms column op constant (=, <>, <,
// <=, >, >=; NOT of one flips it), column [NOT] IN (constants), column IS
// [NOT] NULL, text LIKE 'prefix%', and AND / OR of those. The constant must
// have the column's type (no cast in between). A predicate that cannot be
// expressed makes the enclosing OR unusable; inside an AND it is dropped (a
// weaker hint is still a true one: predicates only rule units out).
std::optional<ScanPredicate> ToScanPredicate(const LogicalGet& get, const Expression& e) {
  auto column_of = [&](const Expression& x) -> int {
    const auto* ref = plan::LocalColumnRef(x);
    if (ref == nullptr || ref->binding.table != get.table_index) return -1;
    return ref->binding.column;
  };
  auto same_type = [&](const Value& v, int col) {
    return !v.is_null() && v.type()->Equals(*get.column_types[static_cast<size_t>(col)]);
  };
  ScanPredicate p;
  if (e.type == ExprType::kFunction && e.children.size() == 2) {
    const std::string& op = e.As<plan::FunctionExpression>().name();
    int col = column_of(*e.children[0]);
    const Expression* other = e.children[1].get();
    bool flipped = false;
    if (col < 0 && op != "like") {
      col = column_of(*e.children[1]);
      other = e.children[0].get();
      flipped = true;
    }
    const auto* constant = other->TryAs<plan::ConstantExpression>();
    if (col < 0 || constant == nullptr || !same_type(constant->value, col)) return std::nullopt;
    if (op == "=") {
      p.op = ScanPredicate::kEq;
    } else if (op == "<>") {
      p.op = ScanPredicate::kNe;
    } else if (op == "<") {
      p.op = flipped ? ScanPredicate::kGt : ScanPredicate::kLt;
    } else if (op == "<=") {
      p.op = flipped ? ScanPredicate::kGe : ScanPredicate::kLe;
    } else if (op == ">") {
      p.op = flipped ? ScanPredicate::kLt : ScanPredicate::kGt;
    } else if (op == ">=") {
      p.op = flipped ? ScanPredicate::kLe : ScanPredicate::kGe;
    } else if (op == "like" && constant->value.type()->id == TypeId::kString) {
      // The literal characters before the first wildcard or escape.
      const std::string& pattern = constant->value.str();
      const size_t n = pattern.find_first_of("%_\\");
      const std::string prefix = pattern.substr(0, n);
      if (prefix.empty()) return std::nullopt;
      p.op = ScanPredicate::kPrefix;
      p.column = col;
      p.values = {Value::Text(prefix)};
      return p;
    } else {
      return std::nullopt;
    }
    p.column = col;
    p.values = {constant->value};
    return p;
  }
  if (e.type == ExprType::kIsNull || e.type == ExprType::kIsNotNull) {
    const int col = column_of(*e.children[0]);
    if (col < 0) return std::nullopt;
    p.column = col;
    p.op = e.type == ExprType::kIsNull ? ScanPredicate::kIsNull : ScanPredicate::kIsNotNull;
    return p;
  }
  if (e.type == ExprType::kIn && !e.As<plan::InExpression>().negated) {
    const int col = column_of(*e.children[0]);
    if (col < 0) return std::nullopt;
    for (size_t i = 1; i < e.children.size(); ++i) {
      const auto* item = e.children[i]->TryAs<plan::ConstantExpression>();
      if (item == nullptr || !same_type(item->value, col)) return std::nullopt;
      p.values.push_back(item->value);
    }
    if (p.values.empty()) return std::nullopt;
    p.column = col;
    p.op = ScanPredicate::kIn;
    return p;
  }
  if (e.type == ExprType::kNot && e.children.size() == 1) {
    // NOT (a < c) is a >= c for every row where it is true (NULL stays NULL).
    auto inner = ToScanPredicate(get, *e.children[0]);
    if (!inner) return std::nullopt;
    switch (inner->op) {
      case ScanPredicate::kEq: inner->op = ScanPredicate::kNe; break;
      case ScanPredicate::kNe: inner->op = ScanPredicate::kEq; break;
      case ScanPredicate::kLt: inner->op = ScanPredicate::kGe; break;
      case ScanPredicate::kLe: inner->op = ScanPredicate::kGt; break;
      case ScanPredicate::kGt: inner->op = ScanPredicate::kLe; break;
      case ScanPredicate::kGe: inner->op = ScanPredicate::kLt; break;
      case ScanPredicate::kIsNull: inner->op = ScanPredicate::kIsNotNull; break;
      case ScanPredicate::kIsNotNull: inner->op = ScanPredicate::kIsNull; break;
      default: return std::nullopt;
    }
    return inner;
  }
  if (e.type == ExprType::kOr || e.type == ExprType::kAnd) {
    p.op = e.type == ExprType::kOr ? ScanPredicate::kOr : ScanPredicate::kAnd;
    for (const auto& c : e.children) {
      auto child = ToScanPredicate(get, *c);
      if (!child) {
        if (p.op == ScanPredicate::kOr) return std::nullopt;
        continue;
      }
      p.children.push_back(std::move(*child));
    }
    if (p.children.empty()) return std::nullopt;
    if (p.children.size() == 1) return std::move(p.children[0]);
    return p;
  }
  return std::nullopt;
}

void ExtractScanPredicates(LogicalGet* get, const std::vector<ExprPtr>& filters) {
  for (const auto& f : filters) {
    if (auto p = ToScanPredicate(*get, *f)) get->scan_predicates.push_back(std::move(*p));
  }
}

// (A AND B) OR (A AND C)  =>  A AND (B OR C): conjuncts common to every
// branch of an OR move out of it, so a join key hidden in each branch (TPC-H
// Q19) becomes a join key.
void FactorOr(ExprPtr e, std::vector<ExprPtr>* out) {
  if (e->type != ExprType::kOr) {
    out->push_back(std::move(e));
    return;
  }
  std::vector<std::vector<ExprPtr>> branches;
  for (auto& c : e->children) {
    std::vector<ExprPtr> parts;
    plan::SplitConjunction(std::move(c), &parts);
    branches.push_back(std::move(parts));
  }
  std::vector<ExprPtr> common;
  for (size_t i = 0; i < branches[0].size();) {
    bool everywhere = true;
    for (size_t b = 1; b < branches.size() && everywhere; ++b) {
      bool found = false;
      for (const auto& x : branches[b]) found |= x->Equals(*branches[0][i]);
      everywhere = found;
    }
    if (!everywhere || branches[0][i]->IsVolatile()) {
      ++i;
      continue;
    }
    ExprPtr c = std::move(branches[0][i]);
    branches[0].erase(branches[0].begin() + static_cast<long>(i));
    for (size_t b = 1; b < branches.size(); ++b) {
      for (size_t k = 0; k < branches[b].size(); ++k) {
        if (branches[b][k]->Equals(*c)) {
          branches[b].erase(branches[b].begin() + static_cast<long>(k));
          break;
        }
      }
    }
    common.push_back(std::move(c));
  }
  for (auto& c : common) out->push_back(std::move(c));
  // A branch left empty is TRUE: the whole OR is TRUE.
  for (const auto& b : branches) {
    if (b.empty()) return;
  }
  auto rest = std::make_unique<plan::OperatorExpression>(ExprType::kOr, boolean());
  for (auto& b : branches) rest->children.push_back(plan::MakeAnd(std::move(b)));
  out->push_back(std::move(rest));
}

// For an OR over both sides of a join, the OR of each branch's conjuncts
// over one side alone is implied and can filter that side early:
// (p.a = 1 AND l.b = 2) OR (p.a = 3 AND l.b = 4)  implies  p.a = 1 OR p.a = 3.
ExprPtr ImpliedFor(const Expression& e, const std::vector<ColumnBinding>& side) {
  if (e.type != ExprType::kOr) return nullptr;
  auto out = std::make_unique<plan::OperatorExpression>(ExprType::kOr, boolean());
  for (const auto& branch : e.children) {
    std::vector<const Expression*> parts;
    if (branch->type == ExprType::kAnd) {
      for (const auto& c : branch->children) parts.push_back(c.get());
    } else {
      parts.push_back(branch.get());
    }
    std::vector<ExprPtr> keep;
    for (const Expression* p : parts) {
      if (ReferencesOnly(*p, side) && !p->IsVolatile() && !p->HasSubquery())
        keep.push_back(p->Copy());
    }
    if (keep.empty()) return nullptr;  // this branch says nothing about the side
    out->children.push_back(plan::MakeAnd(std::move(keep)));
  }
  return out;
}

class Pusher {
 public:
  explicit Pusher(plan::BindState* state) : state_(state) {}

  Result<LogicalOpPtr> Push(LogicalOpPtr op, std::vector<ExprPtr> filters) {
    switch (op->type) {
      case LogicalOpType::kFilter: {
        for (auto& e : op->expressions) filters.push_back(std::move(e));
        return Push(std::move(op->children[0]), std::move(filters));
      }
      case LogicalOpType::kProjection: {
        std::vector<ExprPtr> down, stay;
        for (auto& f : filters) {
          ExprPtr copy = f->Copy();
          if (!HasVolatileOrSubquery(*f) && InlineProjection(&copy, *op)) {
            down.push_back(std::move(copy));
          } else {
            stay.push_back(std::move(f));
          }
        }
        QUIVER_ASSIGN_OR_RAISE(op->children[0], Push(std::move(op->children[0]), std::move(down)));
        return WrapFilter(std::move(op), std::move(stay));
      }
      case LogicalOpType::kOrder:
      case LogicalOpType::kDistinct: {
        if (op->type == LogicalOpType::kDistinct && !op->expressions.empty()) break;
        QUIVER_ASSIGN_OR_RAISE(op->children[0],
                               Push(std::move(op->children[0]), std::move(filters)));
        return op;
      }
      case LogicalOpType::kAggregate: {
        std::vector<ExprPtr> down, stay;
        for (auto& f : filters) {
          ExprPtr copy = f->Copy();
          const auto& agg = op->As<LogicalAggregate>();
          if (!agg.groups.empty() && !HasVolatileOrSubquery(*f) && InlineGroups(&copy, agg)) {
            down.push_back(std::move(copy));
            // Empty grouping sets give a row even when every input row is
            // filtered out: the filter stays above to judge that row too.
            if (!agg.empty_grouping_sets.empty()) stay.push_back(std::move(f));
          } else {
            stay.push_back(std::move(f));
          }
        }
        QUIVER_ASSIGN_OR_RAISE(op->children[0], Push(std::move(op->children[0]), std::move(down)));
        return WrapFilter(std::move(op), std::move(stay));
      }
      case LogicalOpType::kCrossProduct: {
        auto join = std::make_unique<LogicalJoin>(JoinType::kInner);
        join->TakeSharedFrom(*op);
        return PushJoin(std::move(join), std::move(filters));
      }
      case LogicalOpType::kJoin:
        return PushJoin(std::move(op), std::move(filters));
      case LogicalOpType::kSetOp: {
        // A filter commutes with UNION / INTERSECT / EXCEPT [ALL]: it judges
        // a row by its values alone, and both inputs are already cast to the
        // output types. Each input gets a copy over its own columns, so a
        // view `recent UNION ALL files` prunes the files' scan too.
        std::vector<ExprPtr> stay;
        std::vector<std::vector<ExprPtr>> down(op->children.size());
        for (auto& f : filters) {
          if (HasVolatileOrSubquery(*f)) {
            stay.push_back(std::move(f));
            continue;
          }
          std::vector<ExprPtr> copies;
          bool ok = true;
          for (size_t c = 0; c < op->children.size() && ok; ++c) {
            const auto bindings = op->children[c]->GetColumnBindings();
            ExprPtr copy = f->Copy();
            plan::VisitExpression(&copy, [&](ExprPtr* x) {
              auto* ref = plan::LocalColumnRef(**x);
              if (ref == nullptr || ref->binding.table != op->table_index) return;
              const size_t i = static_cast<size_t>(ref->binding.column);
              if (i >= bindings.size()) {
                ok = false;
                return;
              }
              ref->binding = bindings[i];
            });
            copies.push_back(std::move(copy));
          }
          if (!ok) {
            stay.push_back(std::move(f));
            continue;
          }
          for (size_t c = 0; c < copies.size(); ++c) down[c].push_back(std::move(copies[c]));
        }
        for (size_t c = 0; c < op->children.size(); ++c) {
          QUIVER_ASSIGN_OR_RAISE(op->children[c], Push(std::move(op->children[c]), std::move(down[c])));
        }
        return WrapFilter(std::move(op), std::move(stay));
      }
      case LogicalOpType::kGet: {
        auto& get = op->As<LogicalGet>();
        get.scan_predicates.clear();  // re-derived from the filters every pass
        ExtractScanPredicates(&get, filters);
        return WrapFilter(std::move(op), std::move(filters));
      }
      default:
        break;
    }
    // Other operators: optimize below them, keep the filters above.
    for (auto& c : op->children) {
      QUIVER_ASSIGN_OR_RAISE(c, Push(std::move(c), {}));
    }
    return WrapFilter(std::move(op), std::move(filters));
  }

 private:
  Result<LogicalOpPtr> PushJoin(LogicalOpPtr op, std::vector<ExprPtr> filters) {
    const auto lb = op->children[0]->GetColumnBindings();
    const auto rb = op->children[1]->GetColumnBindings();
    std::vector<ExprPtr> left, right, stay;
    auto& join = op->As<LogicalJoin>();
    const JoinType type = join.join_type;
    if (type == JoinType::kInner) {
      // ON predicates and WHERE conjuncts are interchangeable here.
      for (auto& e : op->expressions) filters.push_back(std::move(e));
      op->expressions.clear();
      for (auto& c : join.conditions) {
        QUIVER_ASSIGN_OR_RAISE(ExprPtr cmp, std::move(c).ToExpression());
        filters.push_back(std::move(cmp));
      }
      join.conditions.clear();
      for (auto& f : filters) {
        std::vector<ExprPtr> split, parts;
        plan::SplitConjunction(std::move(f), &split);
        for (auto& x : split) FactorOr(std::move(x), &parts);
        for (auto& p : parts) {
          const bool in_left = ReferencesOnly(*p, lb);
          const bool in_right = ReferencesOnly(*p, rb);
          if (HasVolatileOrSubquery(*p)) {
            stay.push_back(std::move(p));
          } else if (in_left) {
            left.push_back(std::move(p));
          } else if (in_right) {
            right.push_back(std::move(p));
          } else {
            if (ExprPtr l = ImpliedFor(*p, lb)) left.push_back(std::move(l));
            if (ExprPtr r = ImpliedFor(*p, rb)) right.push_back(std::move(r));
            AddJoinPredicate(&join, std::move(p), lb, rb);
          }
        }
      }
      if (join.conditions.empty() && op->expressions.empty()) {
        auto cross = std::make_unique<LogicalCrossProduct>();
        cross->TakeSharedFrom(*op);
        op = std::move(cross);  // `join` is gone from here on
      }
    } else {
      // Filters above an outer/semi/anti/mark join: only left-only ones move.
      for (auto& f : filters) {
        if (!HasVolatileOrSubquery(*f) && ReferencesOnly(*f, lb)) {
          left.push_back(std::move(f));
        } else {
          stay.push_back(std::move(f));
        }
      }
      // ON predicates over the right side only filter the right side
      // (not the mark's three-valued comparison).
      std::vector<ExprPtr> keep;
      for (auto& e : op->expressions) {
        if (!HasVolatileOrSubquery(*e) && ReferencesOnly(*e, rb) && !ReferencesOnly(*e, lb)) {
          right.push_back(std::move(e));
        } else {
          keep.push_back(std::move(e));
        }
      }
      op->expressions = std::move(keep);
      if (type != JoinType::kMark) {
        std::vector<plan::JoinCondition> conds;
        for (auto& c : join.conditions) {
          // A condition comparing right-only expressions is a right filter.
          if (ReferencesOnly(*c.left, rb) && ReferencesOnly(*c.right, rb) &&
              !ReferencesOnly(*c.left, lb)) {
            QUIVER_ASSIGN_OR_RAISE(ExprPtr cmp, std::move(c).ToExpression());
            right.push_back(std::move(cmp));
            continue;
          }
          conds.push_back(std::move(c));
        }
        join.conditions = std::move(conds);
      }
    }
    QUIVER_ASSIGN_OR_RAISE(op->children[0], Push(std::move(op->children[0]), std::move(left)));
    QUIVER_ASSIGN_OR_RAISE(op->children[1], Push(std::move(op->children[1]), std::move(right)));
    return WrapFilter(std::move(op), std::move(stay));
  }

  plan::BindState* state_;
};

}  // namespace

Result<LogicalOpPtr> PushDownFilters(LogicalOpPtr plan, plan::BindState* state) {
  Pusher pusher(state);
  return pusher.Push(std::move(plan), {});
}

}  // namespace quiver::optimizer
