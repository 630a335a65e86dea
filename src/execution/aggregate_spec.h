// One aggregate of a hash aggregate, as the physical planner resolved it:
// the function, the input columns it reads, DISTINCT and FILTER. Shared by
// the operator (operators/physical_hash_aggregate.h) and the group tables
// that hold its states (group_table.h).
#pragma once

#include <string>
#include <vector>

#include "functions/function.h"

namespace quiver::exec {

struct AggregateSpec {
  const AggregateFunction* function = nullptr;
  std::vector<int> args;  // input columns
  std::vector<TypeRef> arg_types;
  bool distinct = false;
  int filter = -1;  // input column of a FILTER (WHERE ...) predicate, or -1
  TypeRef type;     // result type
  std::string name;
};

}  // namespace quiver::exec
