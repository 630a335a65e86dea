// Min/max statistics in Arrow IPC files, in the two encodings PG-Strom's
// pg2arrow writes and arrow_fdw reads:
//
//   1. footer schema, field custom metadata:
//        min_values = "v0,v1,...,vN-1"   max_values = "w0,...,wN-1"
//      one token per record batch (N = the file's record batches);
//   2. each record batch message's custom metadata:
//        min_max_stats.<field name> = "min,max"
//
// Tokens are the values as stored: integers for integer columns, the stored
// integer of date (days or ms), time, timestamp (in the column's unit) and
// decimal (the unscaled value) columns, decimal text for floats, the text
// itself for utf8 (encoding 2 only when it holds no comma).
//
// Statistics that are malformed (a wrong number of tokens, a token that does
// not parse as the column's type, min > max) are not used: the column's
// record batches are then read in full, never skipped, and a warning names
// the file and column (common/warning.h). Writing: WritePgStromStatistics.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "formats/file_reader.h"

namespace quiver::ipc {

// stats[column][batch]; a column without usable statistics has an empty
// vector. `batch_metadata(i)` gives record batch i's custom metadata.
std::vector<std::vector<formats::ColumnStatistics>> ReadPgStromStatistics(
    const std::string& path, const Schema& schema, int num_batches,
    const std::function<KeyValueMetadata(int)>& batch_metadata);

// Whether a column of `type` can carry statistics in these encodings.
bool PgStromStatisticsSupported(const DataType& type);

// The token of slot `i` of `array` (of a supported type), as written into
// either encoding; empty when null.
std::string PgStromStatisticsToken(const ArrayData& array, int64_t i);

// The record-batch metadata (encoding 2) of `batch` for `columns`: each
// column's min and max over its non-null values. Columns of unsupported
// types, all-NULL columns and float columns holding NaN are left out.
KeyValueMetadata PgStromBatchStatistics(const RecordBatch& batch, const std::vector<int>& columns);

}  // namespace quiver::ipc
