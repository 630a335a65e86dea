// Pruning inside a unit: which rows of a Parquet row group the scan's
// predicates may match, judged by the statistics of the row slices the file
// keeps per column (its page index; formats::FileReader::unit_slices).
//
// Each predicate on one column rules out the slices of that column whose
// statistics prove it false; the rows left are the intersection over the
// predicates. Slices of different columns need not line up: ranges are in
// rows. The reader then decodes only the pages holding the rows left
// (FileReader::ReadUnitRows) and the Filter above the scan does the rest.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "catalog/scan_pruning.h"
#include "formats/file_reader.h"

namespace quiver {

struct UnitRows {
  bool none = false;                     // no row may match: skip the unit
  std::vector<formats::RowRange> ranges;  // empty (and !none): every row
  int64_t rows() const;                   // rows in `ranges`
};

// `file_column(c)`: the file's column of table column c, or -1;
// `stat_value(array, c)`: a slice statistic as a Value of table column c's
// type (a null Value when it cannot be converted).
UnitRows RowsMayMatch(const formats::FileReader& reader, int unit, int64_t unit_rows,
                      const std::vector<ScanPredicate>& predicates, int num_columns,
                      const std::function<int(int)>& file_column,
                      const std::function<Value(const ArrayRef&, int)>& stat_value);

}  // namespace quiver
