// kInsert / kUpdate / kDelete -> PhysicalModifyTable over the plan of the
// rows to write (planner/bind_dml.cc gives them the table's column order).
#include "execution/operators/physical_modify_table.h"
#include "execution/operators/physical_upsert.h"
#include "execution/physical_plan/plan_generator_internal.h"

namespace quiver::exec::internal {

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanModifyTable(const plan::LogicalModifyTable& op) {
  if (op.target == nullptr) {
    return Status::UnknownError("internal error: data modification without a target table");
  }
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr child, Plan(*op.children[0]));
  if (op.on_conflict != nullptr) {
    // INSERT ... ON CONFLICT (planner/bind_upsert.cc).
    auto out = std::make_unique<PhysicalUpsert>(op.target, op.positioned, op.on_conflict->update,
                                                op.on_conflict->keys, op.returning);
    if (child->types().size() != static_cast<size_t>(out->input_width())) {
      return Status::UnknownError("internal error: INSERT ON CONFLICT over {} columns, expected {}",
                                  child->types().size(), out->input_width());
    }
    out->estimated_rows = op.returning.empty() ? 1 : child->estimated_rows;
    out->children().push_back(std::move(child));
    return PhysicalOpPtr(std::move(out));
  }
  const auto kind = op.type == plan::LogicalOpType::kInsert   ? PhysicalModifyTable::Kind::kInsert
                    : op.type == plan::LogicalOpType::kUpdate ? PhysicalModifyTable::Kind::kUpdate
                                                              : PhysicalModifyTable::Kind::kDelete;
  auto out = std::make_unique<PhysicalModifyTable>(kind, op.target, op.returning, op.positioned);
  // The table's columns, UPDATE's and DELETE's `matched`, RETURNING's
  // columns, then INSERT's and UPDATE's CHECK columns (planner/bind_dml.cc).
  const auto width = static_cast<size_t>(out->input_width());
  if (child->types().size() != width) {
    return Status::UnknownError("internal error: {} of \"{}\" over {} columns, expected {}",
                                out->name(), op.target->name(), child->types().size(), width);
  }
  out->estimated_rows = op.returning.empty() ? 1 : child->estimated_rows;
  out->children().push_back(std::move(child));
  return PhysicalOpPtr(std::move(out));
}

}  // namespace quiver::exec::internal
