#include "planner/logical_recursive_cte.h"

namespace quiver::plan {

std::vector<ColumnBinding> LogicalRecursiveCte::GetColumnBindings() const {
  std::vector<ColumnBinding> out;
  for (size_t i = 0; i < types.size(); ++i) out.push_back({table_index, static_cast<int>(i)});
  return out;
}

std::string LogicalRecursiveCte::NodeString() const {
  return std::string("RECURSIVE_CTE ") + name + (union_all ? " UNION ALL" : " UNION");
}

LogicalOpPtr LogicalRecursiveCte::CopyNode() const {
  return std::make_unique<LogicalRecursiveCte>(table_index, name, types, union_all, working_table);
}

}  // namespace quiver::plan
