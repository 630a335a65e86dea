// kAggregate -> PhysicalHashAggregate over the group keys and the
// aggregates' arguments, computed as columns below it; kDistinct -> the
// same with every column a group key and no aggregates.
#include "execution/operators/physical_hash_aggregate.h"
#include "execution/physical_plan/plan_generator_internal.h"
#include "vector/sql_type.h"

namespace quiver::exec::internal {

using plan::Expression;

Status CheckKeyType(const TypeRef& type, const char* what) {
  if (!IsNestedSqlType(*type)) return Status::OK();
  const char* kind = type->id == TypeId::kList ? "arrays" : type->id == TypeId::kStruct ? "structs" : "maps";
  return Status::Unsupported("{} on {} is not supported yet (column of type {})", what, kind,
                             PgTypeName(*type))
      .WithSqlState(sqlstate::kFeatureNotSupported);
}

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanAggregate(const plan::LogicalAggregate& op) {
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr child, Plan(*op.children[0]));
  const auto bindings = op.children[0]->GetColumnBindings();
  // Columns the aggregate reads: groups, then each aggregate's arguments and filter.
  std::vector<const Expression*> needed;
  for (const auto& g : op.groups) needed.push_back(g.get());
  for (const auto& e : op.expressions) {
    const auto& a = e->As<plan::AggregateExpression>();
    for (const auto& arg : a.children) needed.push_back(arg.get());
    if (a.filter) needed.push_back(a.filter.get());
  }
  std::vector<int> pos;
  QUIVER_ASSIGN_OR_RAISE(child, EnsureColumns(std::move(child), bindings, needed, &pos));
  const std::vector<TypeRef> in_types = child->types();
  size_t k = 0;
  std::vector<int> groups;
  for (size_t i = 0; i < op.groups.size(); ++i) {
    QUIVER_RETURN_NOT_OK(CheckKeyType(in_types[static_cast<size_t>(pos[k])], "GROUP BY"));
    groups.push_back(pos[k++]);
  }
  std::vector<AggregateSpec> specs;
  for (const auto& e : op.expressions) {
    const auto& a = e->As<plan::AggregateExpression>();
    AggregateSpec s;
    s.function = a.aggregate;
    for (size_t i = 0; i < a.children.size(); ++i) {
      if (a.distinct) {
        QUIVER_RETURN_NOT_OK(CheckKeyType(in_types[static_cast<size_t>(pos[k])], "DISTINCT in an aggregate"));
      }
      s.args.push_back(pos[k]);
      s.arg_types.push_back(in_types[static_cast<size_t>(pos[k])]);
      ++k;
    }
    if (a.filter) s.filter = pos[k++];
    s.distinct = a.distinct;
    s.type = a.return_type;
    s.name = a.ToString();
    specs.push_back(std::move(s));
  }
  auto agg =
      std::make_unique<PhysicalHashAggregate>(op.GetTypes(), std::move(groups), std::move(specs));
  agg->set_empty_grouping_sets(op.empty_grouping_sets);
  if (!op.grouping_sets.empty()) agg->set_grouping_sets(op.grouping_sets, op.grouping_set_id);
  agg->children().push_back(std::move(child));
  return PhysicalOpPtr(std::move(agg));
}

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanDistinct(const plan::LogicalDistinct& op) {
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr child, Plan(*op.children[0]));
  if (!op.expressions.empty()) return Status::Unsupported("DISTINCT ON");
  std::vector<int> groups;
  for (size_t i = 0; i < child->types().size(); ++i) {
    QUIVER_RETURN_NOT_OK(CheckKeyType(child->types()[i], "DISTINCT"));
    groups.push_back(static_cast<int>(i));
  }
  auto agg = std::make_unique<PhysicalHashAggregate>(child->types(), std::move(groups),
                                                     std::vector<AggregateSpec>{});
  agg->children().push_back(std::move(child));
  return PhysicalOpPtr(std::move(agg));
}

}  // namespace quiver::exec::internal
