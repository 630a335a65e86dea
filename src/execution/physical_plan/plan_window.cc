// kWindow -> PhysicalWindow over the window functions' arguments,
// PARTITION BY and ORDER BY keys and FILTERs, computed as columns below it
// and dropped again above it.
#include "execution/operators/physical_window.h"
#include "execution/physical_plan/plan_generator_internal.h"

namespace quiver::exec::internal {

using plan::Expression;

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanWindow(const plan::LogicalWindow& op) {
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr child, Plan(*op.children[0]));
  const auto bindings = op.children[0]->GetColumnBindings();
  const size_t width = child->types().size();
  std::vector<const Expression*> needed;
  for (const auto& e : op.expressions) {
    const auto& w = e->As<plan::WindowExpression>();
    if (w.has_start_offset || w.has_end_offset) {
      return Status::Unsupported("window frame offsets");
    }
    for (const auto& c : w.children) needed.push_back(c.get());
  }
  std::vector<int> pos;
  QUIVER_ASSIGN_OR_RAISE(child, EnsureColumns(std::move(child), bindings, needed, &pos));
  const std::vector<TypeRef> in_types = child->types();
  size_t k = 0;
  std::vector<WindowFunctionSpec> specs;
  for (const auto& e : op.expressions) {
    const auto& w = e->As<plan::WindowExpression>();
    WindowFunctionSpec s;
    s.function = w.function;
    s.aggregate = w.aggregate;
    for (int i = 0; i < w.num_args; ++i) {
      s.args.push_back(pos[k]);
      s.arg_types.push_back(in_types[static_cast<size_t>(pos[k])]);
      ++k;
    }
    for (int i = 0; i < w.num_partitions; ++i) s.partitions.push_back(pos[k++]);
    for (const auto& o : w.order) s.orders.push_back({pos[k++], o.descending, o.nulls_first});
    if (w.has_filter) s.filter = pos[k++];
    s.frame_options = w.frame_options;
    s.type = w.return_type;
    s.name = w.name;
    specs.push_back(std::move(s));
  }
  const size_t extended = in_types.size();
  const size_t functions = specs.size();
  auto window = std::make_unique<PhysicalWindow>(in_types, std::move(specs));
  window->estimated_rows = child->estimated_rows;
  window->children().push_back(std::move(child));
  PhysicalOpPtr out = std::move(window);
  if (extended > width) {
    // Drop the computed key columns: the child's columns, then the results.
    std::vector<size_t> keep;
    for (size_t i = 0; i < width; ++i) keep.push_back(i);
    for (size_t i = 0; i < functions; ++i) keep.push_back(extended + i);
    out = SelectColumns(std::move(out), keep);
  }
  return out;
}

}  // namespace quiver::exec::internal
