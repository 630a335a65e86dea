// Public API of the CSV reader: CsvReader and the --schema parser (the
// options are in options.h).
//
// The reader is split by stage, like Arrow's (files in this folder):
//   chunker        speculative block boundaries (the first newline after each
//                  block_size step) and their quote-aware verification
//   parser         tokenizes one block into field spans (RFC 4180 quoting,
//                  embedded newlines, CR/LF/CRLF), counting physical lines
//   value_parsing  field text -> one typed value (ints, floats, dates...)
//   inference      picks a column type from a sample of field texts
//   converter      field spans of one column of one block -> an Arrow array
//                  (this is also the column-builder stage: each block's
//                  arrays are built directly into pool buffers, and a batch
//                  is one block, so no cross-block column assembly is needed)
//   reader         orchestration: decompression, BOM, header, schema, the
//                  window of in-flight blocks on the thread pool, row order
//
// Defaults follow pyarrow.csv where that is sensible; the differences are
// listed at each option. Line numbers in errors are 1-based physical lines of
// the (decompressed) input, counting the header, skipped rows and newlines
// embedded in quoted values.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "columnar/array.h"
#include "columnar/type.h"
#include "common/memory_pool.h"
#include "common/status.h"
#include "formats/csv/options.h"

namespace quiver::csv {

// Thread-safety: one consumer thread calls ReadNext; blocks are parsed and
// converted on GlobalThreadPool() meanwhile (a window of 2 blocks per pool
// thread). Do not call ReadNext from a task of that pool: it waits on them.
// bytes_processed() may be read from any thread.
class CsvReader : public RecordBatchReader {
 public:
  // Opens a file ("-" = stdin). gzip and zstd input is detected by its magic
  // bytes and decompressed in memory first.
  static Result<std::unique_ptr<CsvReader>> Open(const std::string& path,
                                                 const ReadOptions& read_options = {},
                                                 const ParseOptions& parse_options = {},
                                                 const ConvertOptions& convert_options = {});
  // Reads from an in-memory buffer (compressed or not); `name` prefixes errors.
  static Result<std::unique_ptr<CsvReader>> Make(std::shared_ptr<Buffer> data, std::string name,
                                                 const ReadOptions& read_options = {},
                                                 const ParseOptions& parse_options = {},
                                                 const ConvertOptions& convert_options = {});
  ~CsvReader() override;

  SchemaRef schema() const override;
  // Sets *out to the next batch in row order, or nullptr at end of input.
  Status ReadNext(RecordBatchRef* out) override;

  // Progress, in bytes of (decompressed) input.
  int64_t bytes_processed() const;
  int64_t total_bytes() const;

  class Impl;

 private:
  explicit CsvReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Parses "a:int64,b:utf8,c:timestamp[us, tz=UTC],d:decimal128(10,2)" into
// (name, type) pairs for --schema overrides. Accepted type names: bool, int8..
// int64, uint8..uint64, float32/float, float64/double, utf8/string,
// large_utf8, binary, date32/date, date64, time32[s|ms], time64[us|ns],
// timestamp[unit] or timestamp[unit, tz=ZONE], decimal32/64/128/256(p,s) and
// decimal(p,s), null; also the SQL names bigint, integer, smallint, tinyint,
// varchar, text, real, boolean.
Result<std::vector<std::pair<std::string, TypeRef>>> ParseColumnTypes(std::string_view spec);

// Reads a whole CSV input into one table-like vector of batches (tests, small
// files).
Result<std::vector<RecordBatchRef>> ReadAll(CsvReader* reader);

}  // namespace quiver::csv
