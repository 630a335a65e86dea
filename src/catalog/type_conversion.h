// File columns as engine columns: the engine computes on a smaller set of
// types (vector/sql_type.h) than files store.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "columnar/array.h"
#include "common/memory_pool.h"
#include "common/status.h"

namespace quiver {

// Converts a batch of file columns to engine types (cast where needed).
Result<RecordBatchRef> ToEngineBatch(const RecordBatchRef& batch, const SchemaRef& engine_schema,
                                     MemoryPool* pool);

// Converts one array of file values to the engine type `to` (widening
// unsigned and small integers, time units to microseconds, intervals to
// month-day-nano, dictionaries and fixed-size binary decoded).
Result<ArrayRef> ToEngineArray(const ArrayRef& in, const TypeRef& to, MemoryPool* pool);

// The engine schema of a file schema. Columns the engine cannot type are left
// out (UnreadableColumns lists them); none left is an error naming `where`
// and them.
Result<SchemaRef> EngineSchema(const Schema& file_schema, const std::string& where);

// The columns of `file_schema` the engine cannot type, as (name, type text).
std::vector<std::pair<std::string, std::string>> UnreadableColumns(const Schema& file_schema);

}  // namespace quiver
