// Helpers over whole batches: their size counted by their own rows, and
// merging runs of batches.
#pragma once

#include <cstdint>
#include <vector>

#include "columnar/array.h"

namespace quiver {

// About the bytes of `a`'s rows as an IPC body would carry them: for flat
// layouts the rows of a slice only (buffers shared with rows outside the
// slice are not counted); for other layouts the whole buffers.
int64_t SliceBytes(const ArrayData& a);
// The sum over the batch's columns.
int64_t SliceBytes(const RecordBatch& batch);

// The rows of `batches` (all of `schema`'s column types) in order, as one
// batch of `schema`: columns that are consecutive slices of the same buffers
// become one slice, others are copied into `pool`.
Result<RecordBatchRef> ConcatenateBatches(const SchemaRef& schema,
                                          const std::vector<RecordBatchRef>& batches,
                                          MemoryPool* pool = DefaultMemoryPool());

}  // namespace quiver
