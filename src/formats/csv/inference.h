// Type inference: picks a column type from the field texts of a sample.
//
// Candidates are tried in a fixed order of preference (pyarrow's):
//   null -> int64 -> bool -> date32 -> time32[s] -> timestamp[s] ->
//   timestamp[ns] -> timestamp[s, UTC] -> timestamp[ns, UTC] -> float64 ->
//   utf8 -> binary
// Null texts are ignored. When a value fails the current candidate, the next
// candidate that accepts it is taken and every earlier value is checked again
// against it, so the result accepts the whole sample. A sample of nulls only
// yields utf8 (see ConvertOptions).
#pragma once

#include <vector>

#include "formats/csv/converter.h"
#include "formats/csv/parser.h"

namespace quiver::csv::internal {

struct InferredType {
  TypeRef type;
  bool all_null = false;  // the sample held null texts only
};

// Infers the type of column `col` from every row of `blocks`.
InferredType InferColumnType(const std::vector<const ParsedBlock*>& blocks, int col,
                             const ConvertContext& ctx);

}  // namespace quiver::csv::internal
