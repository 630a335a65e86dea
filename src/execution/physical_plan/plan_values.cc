// Literal rows: kValues (VALUES lists, evaluated once here), kDummyScan (one
// row of no columns: SELECT without FROM) and kEmpty (no rows).
#include "execution/expression/expression_executor.h"
#include "execution/operators/physical_values.h"
#include "execution/physical_plan/plan_generator_internal.h"
#include "functions/cast.h"
#include "vector/json_type.h"

namespace quiver::exec::internal {

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanValues(const plan::LogicalValues& op) {
  std::vector<ArrayRef> cols;
  for (size_t c = 0; c < op.types.size(); ++c) {
    if (op.types[c]->id == TypeId::kList) {
      // Arrays are no Values: each row's expression evaluated to an array of
      // one slot (cast to the column's type), the slots concatenated.
      std::vector<ArrayRef> slots;
      for (const auto& row : op.rows) {
        DataChunk one;
        one.num_rows = 1;
        ExpressionExecutor ex(nullptr, row[c].get());
        QUIVER_ASSIGN_OR_RAISE(ArrayRef a, ex.ExecuteToArray(one));
        if (!a->type->Equals(*op.types[c])) {
          QUIVER_ASSIGN_OR_RAISE(a, CastArray(a, op.types[c], DefaultMemoryPool()));
        }
        slots.push_back(std::move(a));
      }
      if (slots.empty()) {
        QUIVER_ASSIGN_OR_RAISE(ArrayRef e, MakeArrayOfNull(op.types[c], 0));
        slots.push_back(std::move(e));
      }
      QUIVER_ASSIGN_OR_RAISE(ArrayRef a, Concatenate(slots));
      cols.push_back(std::move(a));
      continue;
    }
    std::vector<Value> values;
    for (const auto& row : op.rows) {
      QUIVER_ASSIGN_OR_RAISE(Value v, EvaluateConstant(*row[c]));
      if (!v.is_null() && !v.type()->Equals(*op.types[c])) {
        QUIVER_ASSIGN_OR_RAISE(v, CastValue(v, op.types[c]));
      }
      values.push_back(std::move(v));
    }
    // A Value of json or jsonb is text (vector/json_type.h): build the text
    // (validated and normalised by CastValue above), then give it its type.
    const bool retype = !ValueCanHold(*op.types[c]);
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, ArrayFromValues(values, retype ? utf8() : op.types[c]));
    if (retype) {
      auto typed = std::make_shared<ArrayData>(*a);
      typed->type = op.types[c];
      a = std::move(typed);
    }
    cols.push_back(std::move(a));
  }
  return PhysicalOpPtr(std::make_unique<PhysicalValues>(op.types, std::move(cols),
                                                        static_cast<int64_t>(op.rows.size())));
}

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanDummyScan(const plan::LogicalDummyScan&) {
  return PhysicalOpPtr(std::make_unique<PhysicalValues>(std::vector<TypeRef>{},
                                                        std::vector<ArrayRef>{}, 1, "DUMMY_SCAN"));
}

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanEmpty(const plan::LogicalEmpty& op) {
  std::vector<ArrayRef> cols;
  for (const auto& t : op.types) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, MakeArrayOfNull(t, 0));
    cols.push_back(a);
  }
  return PhysicalOpPtr(
      std::make_unique<PhysicalValues>(op.types, std::move(cols), 0, "EMPTY_RESULT"));
}

}  // namespace quiver::exec::internal
