// Column pruning: walking down from the root with the set of bindings that
// are actually read, scans drop unread columns (so files decode only what
// the query uses), projections drop unread expressions and aggregates
// unread aggregates. Dropping a projection's or aggregate's column renumbers
// its outputs; the returned map renames the references above.
#include <algorithm>
#include <map>
#include <set>

#include "optimizer/optimizer.h"

namespace quiver::optimizer {

namespace {

using Required = std::set<ColumnBinding>;
using Renames = std::map<ColumnBinding, ColumnBinding>;

void AddRefs(const Expression& e, Required* req) {
  plan::VisitExpression(e, [&](const Expression& x) {
    if (const auto* ref = plan::LocalColumnRef(x)) req->insert(ref->binding);
  });
}

void Rename(ExprPtr* e, const Renames& map) {
  if (map.empty()) return;
  plan::VisitExpression(e, [&](ExprPtr* x) {
    if (auto* ref = plan::LocalColumnRef(**x)) {
      auto it = map.find(ref->binding);
      if (it != map.end()) ref->binding = it->second;
    }
  });
}

void RenameAll(LogicalOperator* op, const Renames& map) {
  if (map.empty()) return;
  op->VisitExpressions([&](ExprPtr* e) { Rename(e, map); });
}

void AddAllRefs(const LogicalOperator& op, Required* req) {
  op.ForEachExpression([&](const Expression& e) { AddRefs(e, req); });
}

// The cheapest column to keep when a scan needs none (row counts only).
int NarrowestColumn(const LogicalGet& get) {
  int best = get.column_ids.empty() ? 0 : get.column_ids[0];
  int best_width = 1 << 30;
  for (int c : get.column_ids) {
    const DataType& t = *get.column_types[static_cast<size_t>(c)];
    const int w = t.is_fixed_width() ? std::max(1, t.byte_width_of_values()) : 64;
    if (w < best_width) {
      best = c;
      best_width = w;
    }
  }
  return best;
}

// Prunes `op` given the bindings read above it; returns renames of its outputs.
Renames Prune(LogicalOperator* op, const Required& required) {
  switch (op->type) {
    case LogicalOpType::kGet: {
      auto& get = op->As<LogicalGet>();
      std::vector<int> keep;
      for (int c : get.column_ids) {
        if (required.count({get.table_index, c})) keep.push_back(c);
      }
      // Scan predicates stay usable for pruning even when the column is not read.
      if (keep.empty() && !get.column_ids.empty()) keep.push_back(NarrowestColumn(get));
      get.column_ids = std::move(keep);
      return {};
    }
    case LogicalOpType::kProjection: {
      std::vector<ExprPtr> kept;
      Renames renames;
      for (size_t i = 0; i < op->expressions.size(); ++i) {
        const ColumnBinding old{op->table_index, static_cast<int>(i)};
        if (!required.count(old)) continue;
        const ColumnBinding now{op->table_index, static_cast<int>(kept.size())};
        if (old != now) renames[old] = now;
        kept.push_back(std::move(op->expressions[i]));
      }
      op->expressions = std::move(kept);
      Required child;
      for (const auto& e : op->expressions) AddRefs(*e, &child);
      Renames below = Prune(op->children[0].get(), child);
      RenameAll(op, below);
      return renames;
    }
    case LogicalOpType::kAggregate: {
      auto& agg = op->As<LogicalAggregate>();
      std::vector<ExprPtr> kept;
      Renames renames;
      for (size_t i = 0; i < op->expressions.size(); ++i) {
        const ColumnBinding old{agg.aggregate_index, static_cast<int>(i)};
        // Keep at least one aggregate of an ungrouped aggregate? Not needed:
        // it yields one row regardless.
        if (!required.count(old)) continue;
        const ColumnBinding now{agg.aggregate_index, static_cast<int>(kept.size())};
        if (old != now) renames[old] = now;
        kept.push_back(std::move(op->expressions[i]));
      }
      op->expressions = std::move(kept);
      Required child;
      for (const auto& g : agg.groups) AddRefs(*g, &child);
      for (const auto& e : op->expressions) AddRefs(*e, &child);
      Renames below = Prune(op->children[0].get(), child);
      RenameAll(op, below);
      return renames;
    }
    case LogicalOpType::kDistinct:
    case LogicalOpType::kSetOp:
    case LogicalOpType::kRecursiveCte: {
      // Every column matters (duplicates are judged on all of them).
      for (auto& c : op->children) {
        Required all;
        for (const auto& b : c->GetColumnBindings()) all.insert(b);
        Renames below = Prune(c.get(), all);
        RenameAll(op, below);
      }
      return {};
    }
    case LogicalOpType::kValues:
    case LogicalOpType::kDummyScan:
    case LogicalOpType::kEmpty:
      return {};
    default:
      break;
  }
  // Filters, joins, orders, limits: pass through, plus their own references.
  Required req = required;
  AddAllRefs(*op, &req);
  if (const auto* mark = plan::JoinOf(*op, JoinType::kMark)) req.insert({mark->mark_index, 0});
  Renames all;
  for (auto& c : op->children) {
    Renames below = Prune(c.get(), req);
    for (const auto& [k, v] : below) all[k] = v;
  }
  RenameAll(op, all);
  return all;
}

}  // namespace

Result<LogicalOpPtr> PruneColumns(LogicalOpPtr plan) {
  Required root;
  for (const auto& b : plan->GetColumnBindings()) root.insert(b);
  Prune(plan.get(), root);
  return plan;
}

}  // namespace quiver::optimizer
