// Decoded column chunks -> Arrow arrays (the read side of the Arrow bridge).
//
// Nesting is rebuilt from the levels of one leaf under each node (Dremel
// record assembly): a node's slots are the entries whose repetition level is
// at most its parent list's and whose definition level shows its parent
// present; a slot is null below the node's own definition level; a list's
// elements are the entries at or below its repetition level that reach its
// element's definition level. Values are decoded densely and spread over
// the slots in place; physical values become logical ones on the way (INT32
// -> int8, INT96 -> timestamp[ns], big-endian decimals -> decimal128...).
#pragma once

#include <string>
#include <vector>

#include "columnar/array.h"
#include "common/status.h"
#include "formats/parquet/arrow_schema.h"
#include "formats/parquet/column_reader.h"
#include "formats/parquet/schema.h"
#include "formats/parquet/value_buffers.h"

namespace quiver::parquet {

// The array of `node` for one row group of `num_rows` rows. `chunks[c]` is
// the decoded chunk of leaf column c (only the node's leaves are used; they
// are consumed: buffers move into the result). `context` prefixes errors.
// `validate_utf8` checks that string values are UTF-8 (one pass over the
// data, not one per value). New buffers (offsets, bitmaps, values wider in
// Arrow than in Parquet) are charged to `budget` when given.
Result<ArrayRef> AssembleField(const FieldNode& node, const SchemaDescriptor& schema,
                               std::vector<ColumnChunkData>* chunks, int64_t num_rows,
                               const std::string& context, MemoryPool* pool,
                               bool validate_utf8 = true, DecodeBudget* budget = nullptr);

// A length-1 array of the leaf `node`'s type holding one value in the
// statistics encoding (PLAIN, without the length prefix of BYTE_ARRAY).
Result<ArrayRef> DecodeSingleValue(const FieldNode& node, const SchemaDescriptor& schema,
                                   std::string_view bytes, MemoryPool* pool);

}  // namespace quiver::parquet
