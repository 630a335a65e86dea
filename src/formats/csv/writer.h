// CSV writer: record batches -> RFC 4180 text.
//
// Values are formatted so that Quiver's CSV reader (and pyarrow) read them
// back to the same values:
//   bool             true / false
//   integers         decimal digits
//   floats           shortest text that round-trips (std::to_chars);
//                    nan / inf / -inf (note: "nan" is a default null text)
//   date32/date64    YYYY-MM-DD (date64: the day of the instant)
//   time32/time64    HH:MM:SS[.fff|.ffffff|.fffffffff] by unit
//   timestamp        YYYY-MM-DD HH:MM:SS[.fraction by unit], + "Z" when the
//                    type has a time zone (the instant is written in UTC)
//   duration         the integer count of units
//   decimals         unscaled value with the point inserted: -12.30
//   utf8/binary      the bytes, quoted when needed
//   dictionary       the dictionary value
// Nested types and intervals are unsupported (Make fails).
//
// Quoting (kNeeded): a text field is quoted when it contains the delimiter,
// the quote, CR or LF, starts/ends with a space, or is empty while
// null_string is empty (so "" stays an empty string and nothing is null).
// Quotes inside are doubled.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "common/io.h"
#include "formats/csv/options.h"

namespace quiver::csv {

// Thread-safety: none; one writer per sink.
class CsvWriter {
 public:
  static Result<std::unique_ptr<CsvWriter>> Make(OutputStream* sink, SchemaRef schema,
                                                 const WriteOptions& options = {});
  ~CsvWriter();
  // REQUIRES: batch.schema() has the writer's field types.
  Status WriteRecordBatch(const RecordBatch& batch);
  // Writes the header if no batch was written, then flushes the sink.
  Status Close();

  class ColumnFormatter;

 private:
  CsvWriter(OutputStream* sink, SchemaRef schema, WriteOptions options,
            std::vector<std::unique_ptr<ColumnFormatter>> formatters);
  Status WriteHeader();

  OutputStream* sink_;
  SchemaRef schema_;
  WriteOptions options_;
  std::vector<std::unique_ptr<ColumnFormatter>> formatters_;
  bool header_written_ = false;
  bool closed_ = false;
  std::string line_buffer_;
};

}  // namespace quiver::csv
