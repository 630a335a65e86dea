// Rows a sink collects, column-wise in chunks with their batch indexes,
// concatenated in input order once the input is complete (ORDER BY, LIMIT,
// window functions).
#pragma once

#include <algorithm>
#include <vector>

#include "execution/operators/physical_result_collector.h"

namespace quiver::exec {

// Rows collected by a sink, column-wise in chunks.
struct RowBuffer {
  std::vector<std::vector<ArrayRef>> chunks;
  std::vector<int64_t> batch_index;
  int64_t rows = 0;

  Status Add(const DataChunk& input, MemoryPool* pool) {
    QUIVER_ASSIGN_OR_RAISE(auto cols, FlattenChunk(input, pool));
    chunks.push_back(std::move(cols));
    batch_index.push_back(input.batch_index);
    rows += input.num_rows;
    return Status::OK();
  }
  // Concatenated columns (chunks ordered by batch index, so ties keep input order).
  Result<std::vector<ArrayRef>> Columns(const std::vector<TypeRef>& types, MemoryPool* pool) {
    std::vector<size_t> order(chunks.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return batch_index[a] < batch_index[b]; });
    std::vector<ArrayRef> out;
    for (size_t c = 0; c < types.size(); ++c) {
      std::vector<ArrayRef> pieces;
      for (size_t k : order) pieces.push_back(chunks[k][c]);
      if (pieces.empty()) {
        QUIVER_ASSIGN_OR_RAISE(ArrayRef e, MakeArrayOfNull(types[c], 0, pool));
        out.push_back(e);
      } else if (pieces.size() == 1) {
        out.push_back(pieces[0]);
      } else {
        QUIVER_ASSIGN_OR_RAISE(ArrayRef a, Concatenate(pieces, pool));
        out.push_back(a);
      }
    }
    return out;
  }
};

}  // namespace quiver::exec
