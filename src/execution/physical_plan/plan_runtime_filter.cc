// Runtime filters: a hash join's build keys ([min, max] and a bitmap or Bloom
// filter, execution/runtime_filter.h) reach the scan on its probe side, which
// skips units and rows that cannot find a partner.
#include "execution/operators/physical_filter.h"
#include "execution/operators/physical_join.h"
#include "execution/operators/physical_projection.h"
#include "execution/operators/physical_table_scan.h"
#include "execution/physical_plan/plan_generator_internal.h"

namespace quiver::exec::internal {

namespace {

// Follows the probe side's column `col` down through filters, projections
// (where it is a plain column) and the probe inputs of joins to a scan, and
// hands the scan the filter; anything else ends the walk without a filter.
void WireRuntimeFilter(PhysicalOperator* op, int col, const std::shared_ptr<RuntimeFilter>& f) {
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
      const plan::Expression& e = *proj->expressions()[static_cast<size_t>(col)];
      const auto* ref = e.TryAs<plan::BoundRefExpression>();
      if (ref == nullptr) return;
      col = ref->index;
      op = op->children()[0].get();
      continue;
    }
    if (dynamic_cast<PhysicalJoin*>(op)) {  // its probe side
      const int left_width = static_cast<int>(op->children()[0]->types().size());
      if (col >= left_width) return;
      op = op->children()[0].get();
      continue;
    }
    return;
  }
}

}  // namespace

std::shared_ptr<RuntimeFilter> PhysicalPlanGenerator::AttachRuntimeFilter(PhysicalOperator* probe,
                                                                          int col,
                                                                          bool nulls_equal) {
  const TypeRef& type = probe->types()[static_cast<size_t>(col)];
  if (!options_.runtime_filters || nulls_equal || !RuntimeFilterSupports(*type)) return nullptr;
  auto f = std::make_shared<RuntimeFilter>();
  f->type = type;
  WireRuntimeFilter(probe, col, f);
  return f;
}

}  // namespace quiver::exec::internal
