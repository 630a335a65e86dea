// Ranking windows the binder plans on its own, for clauses PostgreSQL
// defines by row position within groups: LIMIT per correlation group
// (LATERAL top-n), SELECT DISTINCT ON (first row per key), FETCH FIRST ...
// WITH TIES (rows ranked within the limit).
#pragma once

#include <vector>

#include "planner/logical_plan.h"

namespace quiver::plan {

// `f` (row_number or rank) OVER (PARTITION BY partitions ORDER BY orders),
// a bigint.
ExprPtr MakeRankingWindow(WindowFunction f, std::vector<ExprPtr> partitions,
                          std::vector<OrderSpec> orders);

// `child` with that window computed (a LogicalWindow at `window_index`) and
// kept only where first <= value (and value <= last when last >= 0):
// the filter reads (window_index, 0). Output: the child's columns plus the
// window value.
Result<LogicalOpPtr> FilterByRank(LogicalOpPtr child, int window_index, ExprPtr window,
                                  int64_t first, int64_t last);

}  // namespace quiver::plan
