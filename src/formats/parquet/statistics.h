// Column chunk statistics as Arrow values, for pruning and parquet-meta.
//
// min_value/max_value are used when present. The deprecated min/max fields
// were written in signed order by old writers, so they are only trusted for
// types whose order is signed (integers, floats, dates, times, timestamps),
// not for unsigned integers, strings, binary or decimals in bytes. NaN
// bounds are dropped; a zero bound is widened to -0.0 / +0.0 as the format
// asks. INT96 has no usable order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "formats/parquet/file_reader.h"

namespace quiver::parquet {

struct FieldStatistics {
  ArrayRef min;  // length 1, the field's Arrow type; null when unknown
  ArrayRef max;
  int64_t null_count = -1;  // -1: unknown
  int64_t distinct_count = -1;
  bool min_exact = false;
  bool max_exact = false;
};

// Statistics of top-level field `field` in row group `row_group`. Fields
// that are not a single leaf column (structs, lists, maps) have none.
FieldStatistics RowGroupFieldStatistics(const ParquetFileReader& reader, int row_group, int field);

// Statistics of one data page (from the page index).
struct PageStatistics {
  int64_t first_row = 0;
  int64_t rows = 0;
  ArrayRef min;  // null when unknown (null pages, NaN bounds)
  ArrayRef max;
  int64_t null_count = -1;
};

// Per page of top-level field `field` in `row_group`, in row order, from
// its ColumnIndex and OffsetIndex. Empty when the field is not one flat
// leaf column, the writer stored no page index, or the index is
// inconsistent (then pages are not pruned, never wrongly).
std::vector<PageStatistics> PageFieldStatistics(const ParquetFileReader& reader, int row_group,
                                                int field);

// One statistic value rendered for humans (parquet-meta): the decoded value
// when the column's type allows, else hex bytes.
std::string FormatStatisticValue(const ParquetFileReader& reader, int column,
                                 const std::string& bytes);

}  // namespace quiver::parquet
