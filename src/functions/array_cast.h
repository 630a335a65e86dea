// Casts to and from SQL arrays (list<item: T>); CastVector dispatches here.
#pragma once

#include "columnar/array.h"
#include "common/memory_pool.h"
#include "common/status.h"
#include "vector/data_chunk.h"

namespace quiver {

// array -> text, text -> array, array -> array whose elements cast.
bool CanCastArray(const DataType& from, const DataType& to);
Result<ArrayRef> CastArrayVector(const VectorRef& in, int64_t n, const TypeRef& to, MemoryPool* pool);

}  // namespace quiver
