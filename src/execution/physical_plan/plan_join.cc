// kJoin and kCrossProduct -> hash joins and nested-loop joins.
//
// The join's predicates are split into hashable equalities between the
// sides (keys) and the rest (a residual over both sides). Without keys the
// join is a nested loop. With keys it is a hash join that builds one side
// and probes it with the other:
//   - by default the right side is built and the left side probes;
//   - a semi, anti or left join whose left side is much smaller than its
//     right side builds the left side, and the right side marks the build
//     rows it matches (RIGHT_SEMI / RIGHT_ANTI, RIGHT_OUTER_ROWS);
//   - a right join is a left join with the sides swapped;
//   - a full join is a left join whose probe marks the build rows it
//     matches, and the unmatched build rows follow padded with NULLs
//     (RIGHT_OUTER_ROWS): each input is read once, the smaller one built.
// Key expressions that are not plain columns are computed by projections
// below the join and dropped again above it.
#include "execution/operators/physical_hash_join.h"
#include "execution/operators/physical_join_build_rows.h"
#include "execution/operators/physical_nested_loop_join.h"
#include "execution/physical_plan/plan_generator_internal.h"
#include "planner/expression_binder.h"

namespace quiver::exec::internal {

using plan::ColumnBinding;
using plan::Expression;
using plan::ExprPtr;
using plan::ExprType;
using plan::JoinType;
using plan::LogicalOperator;
using plan::LogicalOpType;

// A join on its way to a physical operator: the planned inputs and the
// join's predicates split into keys and the rest.
struct PhysicalPlanGenerator::JoinPlan {
  struct Key {
    const Expression* left;
    const Expression* right;
    bool nulls_equal;
  };
  JoinType type = JoinType::kInner;
  PhysicalOpPtr left, right;
  std::vector<ColumnBinding> lb, rb;       // the inputs' bindings
  size_t left_width = 0, right_width = 0;  // the inputs' widths without computed key columns
  double left_rows = -1, right_rows = -1;  // estimates
  std::vector<Key> keys;
  std::vector<ExprPtr> residual;  // over left ++ right (logical form)
  ExprPtr mark_condition;         // kMark: the three-valued comparison
  bool null_aware = false;
  std::vector<int> lpos, rpos;  // key columns in `left` / `right` (once computed)
};

namespace {

// Side of an expression: 0 = only left bindings, 1 = only right, -1 = mixed
// or none.
int SideOf(const Expression& e, const std::vector<ColumnBinding>& left,
           const std::vector<ColumnBinding>& right) {
  bool l = false, r = false, other = false;
  plan::VisitExpression(e, [&](const Expression& x) {
    const auto* ref = plan::LocalColumnRef(x);
    if (ref == nullptr) return;
    if (plan::FindBinding(left, ref->binding) >= 0) {
      l = true;
    } else if (plan::FindBinding(right, ref->binding) >= 0) {
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

bool IsEquality(const Expression& e) {
  return (plan::CallOf(e, "=") || plan::CallOf(e, "is not distinct from")) &&
         e.children.size() == 2;
}

// A hash join's residual predicates bound to positions in (probe ++ build)
// rows, each side as wide as its physical input (computed key columns at its
// end); null when there are none.
Result<ExprPtr> BindResidual(const std::vector<ExprPtr>& residual,
                             const std::vector<ColumnBinding>& probe, size_t probe_width,
                             const std::vector<ColumnBinding>& build, size_t build_width) {
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

// The positions first..first+count-1.
std::vector<size_t> Range(size_t first, size_t count) {
  std::vector<size_t> out;
  for (size_t i = 0; i < count; ++i) out.push_back(first + i);
  return out;
}

}  // namespace

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanJoin(const LogicalOperator& op) {
  const auto* join = op.TryAs<plan::LogicalJoin>();
  const JoinType type = join != nullptr ? join->join_type : JoinType::kInner;  // or a cross product
  if (type == JoinType::kRight) return PlanRightJoin(op);

  JoinPlan jp;
  jp.type = type;
  QUIVER_ASSIGN_OR_RAISE(jp.left, Plan(*op.children[0]));
  QUIVER_ASSIGN_OR_RAISE(jp.right, Plan(*op.children[1]));
  jp.lb = op.children[0]->GetColumnBindings();
  jp.rb = op.children[1]->GetColumnBindings();
  jp.left_width = jp.left->types().size();
  jp.right_width = jp.right->types().size();
  jp.left_rows = op.children[0]->estimated_rows;
  jp.right_rows = op.children[1]->estimated_rows;
  QUIVER_RETURN_NOT_OK(SplitJoinPredicates(op, &jp));
  if (jp.keys.empty()) return PlanNestedLoopJoin(op, jp);

  // Hash join: key expressions as columns on each side.
  std::vector<const Expression*> lkeys, rkeys;
  for (const auto& k : jp.keys) {
    lkeys.push_back(k.left);
    rkeys.push_back(k.right);
  }
  QUIVER_ASSIGN_OR_RAISE(jp.left, EnsureColumns(std::move(jp.left), jp.lb, lkeys, &jp.lpos));
  QUIVER_ASSIGN_OR_RAISE(jp.right, EnsureColumns(std::move(jp.right), jp.rb, rkeys, &jp.rpos));

  if (type == JoinType::kFull) {
    const bool build_left = jp.left_rows >= 0 && jp.right_rows >= 0 && jp.left_rows < jp.right_rows;
    return PlanOuterBuiltJoin(jp, build_left, JoinType::kLeft);
  }
  // A small left side and a large right one: semi, anti and left joins can
  // build the left side and let the right side probe it.
  const bool small_left = jp.left_rows >= 0 && jp.right_rows >= 0 &&
                          jp.left_rows * 4 < jp.right_rows && jp.right_rows > 10000;
  if (small_left && (type == JoinType::kSemi || type == JoinType::kAnti) && !jp.null_aware) {
    return PlanRightSemiAntiJoin(jp);
  }
  if (small_left && type == JoinType::kLeft) return PlanOuterBuiltJoin(jp, true, JoinType::kInner);
  return PlanHashJoin(jp);
}

// --- predicates --------------------------------------------------------------------------

Status PhysicalPlanGenerator::SplitJoinPredicates(const LogicalOperator& op, JoinPlan* jp) {
  const JoinType type = jp->type;
  const auto* join = op.TryAs<plan::LogicalJoin>();  // null: a cross product
  static const std::vector<plan::JoinCondition> kNoConditions;
  const auto& conditions = join != nullptr ? join->conditions : kNoConditions;
  for (const auto& c : conditions) {
    const bool eq = c.op == "=" || c.op == "is not distinct from";
    if (type == JoinType::kMark) {
      // The mark comparison: hashable only when it is the only predicate.
      if (c.op == "=" && conditions.size() == 1 && op.expressions.empty()) {
        jp->keys.push_back({c.left.get(), c.right.get(), false});
        jp->null_aware = true;
        continue;
      }
      QUIVER_ASSIGN_OR_RAISE(jp->mark_condition, c.ToExpression());
      continue;
    }
    if (eq && SideOf(*c.left, jp->lb, jp->rb) != 1 && SideOf(*c.right, jp->lb, jp->rb) != 0) {
      jp->keys.push_back({c.left.get(), c.right.get(), c.op == "is not distinct from"});
      continue;
    }
    QUIVER_ASSIGN_OR_RAISE(ExprPtr cmp, c.ToExpression());
    jp->residual.push_back(std::move(cmp));
  }
  if (type == JoinType::kSemi || type == JoinType::kAnti) jp->null_aware = join->null_aware;
  for (const auto& e : op.expressions) {
    // Equalities between the sides become keys (mark joins: correlation).
    if (IsEquality(*e) && (type != JoinType::kMark || jp->mark_condition == nullptr) &&
        !jp->null_aware) {
      const int s0 = SideOf(*e->children[0], jp->lb, jp->rb),
                s1 = SideOf(*e->children[1], jp->lb, jp->rb);
      const bool nulls_equal = plan::CallOf(*e, "is not distinct from") != nullptr;
      if (s0 == 0 && s1 == 1) {
        jp->keys.push_back({e->children[0].get(), e->children[1].get(), nulls_equal});
        continue;
      }
      if (s0 == 1 && s1 == 0) {
        jp->keys.push_back({e->children[1].get(), e->children[0].get(), nulls_equal});
        continue;
      }
    }
    jp->residual.push_back(e->Copy());
  }
  if (type == JoinType::kMark && jp->mark_condition != nullptr)
    jp->keys.clear();  // three-valued: nested loop
  return Status::OK();
}

// --- the shapes ------------------------------------------------------------------------

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanRightJoin(const LogicalOperator& op) {
  // RIGHT = LEFT with the sides swapped, columns put back in order.
  auto swapped = op.Copy();
  auto& swapped_join = swapped->As<plan::LogicalJoin>();
  swapped_join.join_type = JoinType::kLeft;
  std::swap(swapped->children[0], swapped->children[1]);
  for (auto& c : swapped_join.conditions) std::swap(c.left, c.right);
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr j, Plan(*swapped));
  const size_t nl = op.children[0]->GetTypes().size(), nr = op.children[1]->GetTypes().size();
  std::vector<size_t> columns = Range(nr, nl);
  for (size_t i = 0; i < nr; ++i) columns.push_back(i);
  return SelectColumns(std::move(j), columns);
}

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanNestedLoopJoin(const LogicalOperator& op,
                                                                JoinPlan& jp) {
  // Predicates over left ++ right.
  std::vector<ColumnBinding> both = jp.lb;
  both.insert(both.end(), jp.rb.begin(), jp.rb.end());
  if (jp.type == JoinType::kMark && jp.mark_condition == nullptr && jp.null_aware) {
    return Status::UnknownError("internal error: mark join without a condition");
  }
  ExprPtr must;
  if (!jp.residual.empty()) {
    std::vector<ExprPtr> bound;
    for (const auto& r : jp.residual) {
      QUIVER_ASSIGN_OR_RAISE(ExprPtr b, BindToPositions(*r, both));
      bound.push_back(std::move(b));
    }
    must = plan::MakeAnd(std::move(bound));
  }
  ExprPtr mark;
  if (jp.mark_condition) {
    QUIVER_ASSIGN_OR_RAISE(mark, BindToPositions(*jp.mark_condition, both));
  }
  if (jp.type == JoinType::kAnti && jp.null_aware) {
    return Status::Unsupported("NOT IN with a condition that is not an equality");
  }
  // FULL: a LEFT join that marks the right rows it pairs; the others follow.
  const bool full = jp.type == JoinType::kFull;
  const std::vector<TypeRef> left_types = jp.left->types();
  auto nlj = std::make_unique<PhysicalNestedLoopJoin>(
      op.GetTypes(), full ? JoinType::kLeft : jp.type, std::move(must), std::move(mark),
      jp.right->types(), full);
  nlj->children().push_back(std::move(jp.left));
  nlj->children().push_back(std::move(jp.right));
  if (!full) return PhysicalOpPtr(std::move(nlj));
  auto rows = std::make_unique<PhysicalJoinBuildRows>(nlj->types(), true, left_types, true);
  rows->children().push_back(std::move(nlj));
  return PhysicalOpPtr(std::move(rows));
}

Result<HashJoinSpec> PhysicalPlanGenerator::MakeHashJoinSpec(JoinPlan& jp, bool build_left,
                                                             JoinType probe_type) {
  const PhysicalOpPtr& probe = build_left ? jp.right : jp.left;
  const PhysicalOpPtr& build = build_left ? jp.left : jp.right;
  HashJoinSpec spec;
  spec.type = probe_type;
  spec.probe_keys = build_left ? jp.rpos : jp.lpos;
  spec.build_keys = build_left ? jp.lpos : jp.rpos;
  for (const auto& k : jp.keys) spec.nulls_equal.push_back(k.nulls_equal);
  QUIVER_ASSIGN_OR_RAISE(
      spec.residual, BindResidual(jp.residual, build_left ? jp.rb : jp.lb, probe->types().size(),
                                  build_left ? jp.lb : jp.rb, build->types().size()));
  // Only joins that drop probe rows without a partner can filter the probe scan.
  if (probe_type == JoinType::kInner || probe_type == JoinType::kSemi ||
      (build_left && probe_type == JoinType::kAnti)) {
    spec.runtime_filter = AttachRuntimeFilter(probe.get(), spec.probe_keys[0], spec.nulls_equal[0]);
  }
  return spec;
}

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanRightSemiAntiJoin(JoinPlan& jp) {
  // The right side marks the build rows it matches; PhysicalJoinBuildRows
  // emits the marked (semi) or unmarked (anti) ones. The right side's rows
  // never reach the result, so the left side's keys filter its scan.
  QUIVER_ASSIGN_OR_RAISE(HashJoinSpec spec, MakeHashJoinSpec(jp, true, jp.type));
  spec.emit_build = true;
  const std::vector<TypeRef> build_types = jp.left->types();
  auto hj =
      std::make_unique<PhysicalHashJoin>(std::vector<TypeRef>{}, std::move(spec), build_types);
  hj->children().push_back(std::move(jp.right));
  hj->children().push_back(std::move(jp.left));
  PhysicalOpPtr out =
      std::make_unique<PhysicalJoinBuildRows>(build_types, jp.type == JoinType::kAnti);
  out->children().push_back(std::move(hj));
  if (build_types.size() > jp.left_width)
    out = SelectColumns(std::move(out), Range(0, jp.left_width));
  return out;
}

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanOuterBuiltJoin(JoinPlan& jp, bool build_left,
                                                                JoinType probe_type) {
  // The probe side joins as `probe_type` (inner: a LEFT join built on its
  // left side; left: a FULL join) and marks the build rows it pairs; the
  // unmarked build rows follow, with NULLs for the probe side
  // (RIGHT_OUTER_ROWS).
  QUIVER_ASSIGN_OR_RAISE(HashJoinSpec spec, MakeHashJoinSpec(jp, build_left, probe_type));
  spec.mark_build = true;
  PhysicalOpPtr& probe = build_left ? jp.right : jp.left;
  PhysicalOpPtr& build = build_left ? jp.left : jp.right;
  const std::vector<TypeRef> probe_types = probe->types();
  const std::vector<TypeRef> build_types = build->types();
  std::vector<TypeRef> pair_types = probe_types;
  pair_types.insert(pair_types.end(), build_types.begin(), build_types.end());
  auto hj = std::make_unique<PhysicalHashJoin>(pair_types, std::move(spec), build_types);
  hj->children().push_back(std::move(probe));
  hj->children().push_back(std::move(build));
  PhysicalOpPtr rows = std::make_unique<PhysicalJoinBuildRows>(pair_types, true, probe_types, true);
  rows->children().push_back(std::move(hj));
  // Back to left ++ right, without computed key columns.
  const size_t left_at = build_left ? probe_types.size() : 0;
  const size_t right_at = build_left ? 0 : probe_types.size();
  std::vector<size_t> columns = Range(left_at, jp.left_width);
  for (size_t c : Range(right_at, jp.right_width)) columns.push_back(c);
  if (columns == Range(0, pair_types.size())) return rows;
  return SelectColumns(std::move(rows), columns);
}

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanHashJoin(JoinPlan& jp) {
  // The right side is built, the left side probes. Key types agree (the
  // binder cast both sides to the comparison type).
  const JoinType type = jp.type;
  QUIVER_ASSIGN_OR_RAISE(HashJoinSpec spec, MakeHashJoinSpec(jp, false, type));
  spec.null_aware = jp.null_aware;
  // Output types of the hash join itself.
  std::vector<TypeRef> types = jp.left->types();
  const std::vector<TypeRef> build_types = jp.right->types();
  const bool pairs_out =
      type != JoinType::kSemi && type != JoinType::kAnti && type != JoinType::kMark;
  if (type == JoinType::kMark) {
    types.push_back(boolean());
  } else if (pairs_out) {
    types.insert(types.end(), build_types.begin(), build_types.end());
  }
  const size_t probe_width = jp.left->types().size();
  auto hj = std::make_unique<PhysicalHashJoin>(types, std::move(spec), build_types);
  hj->children().push_back(std::move(jp.left));
  hj->children().push_back(std::move(jp.right));
  PhysicalOpPtr out = std::move(hj);
  // Drop computed key columns again.
  const bool extra_left = probe_width > jp.left_width;
  const bool extra_right = build_types.size() > jp.right_width;
  if (!extra_left && !(extra_right && pairs_out)) return out;
  std::vector<size_t> columns = Range(0, jp.left_width);
  if (type == JoinType::kMark) {
    columns.push_back(probe_width);
  } else if (pairs_out) {
    for (size_t c : Range(probe_width, jp.right_width)) columns.push_back(c);
  }
  return SelectColumns(std::move(out), columns);
}

}  // namespace quiver::exec::internal
