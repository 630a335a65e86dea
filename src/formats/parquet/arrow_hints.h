// Restoring Arrow types from the ARROW:schema a file was written with.
//
// Parquet has no place for some Arrow types, so writers store them as a
// cousin and record the original schema. These are put back, as Arrow C++
// does (other differences keep the type decoded from Parquet):
//   timestamp time zone      timestamp[unit, tz=UTC] -> the stored zone (unit kept)
//   duration                 int64 -> duration[unit]
//   dictionary               string/binary -> dictionary<stored index type>
//   large and view variants  string/binary -> large_*, *_view
//   list variants            list -> large_list, fixed_size_list, list_view, large_list_view
//   narrow decimals          decimal128 -> decimal32/64 (same precision and scale)
//   map key order            keys_sorted
//   field metadata           the stored field's, plus PARQUET:field_id
// Names of nested fields stay as the Parquet schema spells them.
#pragma once

#include "columnar/array.h"
#include "columnar/type.h"
#include "common/status.h"

namespace quiver::parquet {

// The field to produce for `decoded` given the field the file was written
// from. Every difference it introduces is one ConvertToType can make.
FieldRef MergeStoredField(const FieldRef& decoded, const FieldRef& stored);

// `array` (of the decoded type) as `type` (from MergeStoredField).
Result<ArrayRef> ConvertToType(const ArrayRef& array, const TypeRef& type, MemoryPool* pool);

}  // namespace quiver::parquet
