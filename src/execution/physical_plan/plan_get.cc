// kGet -> PhysicalTableScan: the columns read and the conjuncts pushed into
// the scan (hints for pruning units by statistics, never applied row by row).
#include "execution/operators/physical_table_scan.h"
#include "execution/physical_plan/plan_generator_internal.h"

namespace quiver::exec::internal {

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanGet(const plan::LogicalGet& op) {
  ScanRequest req;
  req.columns = op.column_ids;
  req.predicates = op.scan_predicates;
  std::vector<TypeRef> types;
  std::vector<std::string> names;
  for (int c : op.column_ids) {
    types.push_back(op.column_types[static_cast<size_t>(c)]);
    names.push_back(op.column_names[static_cast<size_t>(c)]);
  }
  auto scan = std::make_unique<PhysicalTableScan>(std::move(types), op.table, std::move(req),
                                                  std::move(names));
  scan->estimated_rows = op.estimated_rows;
  return PhysicalOpPtr(std::move(scan));
}

}  // namespace quiver::exec::internal
