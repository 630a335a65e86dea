// kRecursiveCte: WITH RECURSIVE t AS (anchor UNION [ALL] recursive term).
// children[0] is the anchor (the non-recursive term), children[1] the
// recursive term, both of `types`. The recursive term reads the working
// table through a LogicalGet over `working_table` (a MemoryTable the
// operator refills before each iteration with the rows the previous one
// produced). Execution: the anchor's rows, then the recursive term over
// them, then over its own new rows, until an iteration yields none (UNION:
// rows already produced are dropped, so the working table holds new rows
// only). Output bindings: (table_index, i).
#pragma once

#include <memory>

#include "catalog/memory_table.h"
#include "planner/logical_plan.h"

namespace quiver::plan {

struct LogicalRecursiveCte final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kRecursiveCte; }
  LogicalRecursiveCte(int table_index, std::string name, std::vector<TypeRef> types, bool union_all,
                      std::shared_ptr<MemoryTable> working_table)
      : LogicalOperator(LogicalOpType::kRecursiveCte),
        name(std::move(name)),
        types(std::move(types)),
        union_all(union_all),
        working_table(std::move(working_table)) {
    this->table_index = table_index;
  }
  std::string name;
  std::vector<TypeRef> types;
  bool union_all = false;
  std::shared_ptr<MemoryTable> working_table;
  std::vector<ColumnBinding> GetColumnBindings() const override;
  std::vector<TypeRef> GetTypes() const override { return types; }

 protected:
  std::string NodeString() const override;
  LogicalOpPtr CopyNode() const override;
};

}  // namespace quiver::plan
