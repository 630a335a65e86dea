// The JSON aggregates, bound onto string_agg (see functions/json_build.cc):
//
//   json_agg(x)            __json_wrap_array(string_agg(__json_element(x), ', '))
//   jsonb_agg(x)           __jsonb_wrap_array(...)          (normalised)
//   json_object_agg(k, v)  __json_wrap_object(string_agg(__json_object_field(k, v), ', '))
//   jsonb_object_agg(k, v) __jsonb_wrap_object(...)
//
// so ORDER BY, DISTINCT and FILTER inside the call, grouping and parallel
// partial aggregation all come from string_agg. No rows give NULL, as in
// PostgreSQL.
#pragma once

#include <string>
#include <vector>

#include "catalog/memory_table.h"
#include "planner/expression.h"

namespace quiver::plan {

bool IsJsonAggregate(const std::string& name);

// The arguments of string_agg for the call's bound arguments.
Result<std::vector<ExprPtr>> JsonAggregateArgs(const std::string& name, std::vector<ExprPtr> args,
                                               int location);

// Whether json_agg's items are arrays or rows (structs), which PostgreSQL
// puts on lines of their own: __json_element_rows and
// __json_wrap_array_rows instead of __json_element and __json_wrap_array.
bool JsonAggregateOfRows(const std::string& name, const DataType& arg);

// The call's result over string_agg's (a reference to the aggregate);
// `rows`: JsonAggregateOfRows of its argument.
Result<ExprPtr> WrapJsonAggregate(const std::string& name, ExprPtr string_agg, bool rows);

// The JSON set-returning functions in FROM, over constant arguments:
// json[b]_array_elements[_text] (column value), json[b]_each[_text] (key,
// value), json[b]_object_keys. The rows are computed while binding, as
// generate_series' are.
bool IsJsonTableFunction(const std::string& name);
Result<std::shared_ptr<MemoryTable>> JsonTableFunction(const std::string& name,
                                                       std::vector<ExprPtr> args);

}  // namespace quiver::plan
