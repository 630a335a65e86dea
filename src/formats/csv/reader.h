// Public API of the CSV reader: options, CsvReader and the --schema parser.
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

namespace quiver::csv {

struct ParseOptions {
  char delimiter = ',';
  char quote = '"';
  // Whether `quote` starts a quoted field (only at the start of a field; a
  // quote in the middle of an unquoted field is an ordinary character).
  bool quoting = true;
  // Inside a quoted field, "" stands for one quote character (RFC 4180).
  bool double_quote = true;
  // Escape character (e.g. '\\'): the next character is taken literally.
  // 0 = none.
  char escape = 0;
  // Whether quoted values may contain line breaks. When false, a line break
  // inside a quoted value is an error.
  bool newlines_in_values = true;
};

struct ReadOptions {
  // Whether the first row (after skip_rows) holds the column names.
  bool header = true;
  // Column names to use. When header is also true, the header row is read and
  // discarded (renaming); when header is false and this is empty, names are
  // generated: "f0", "f1", ... (as pyarrow does).
  std::vector<std::string> column_names;
  // Rows (quote-aware) skipped before the header.
  int64_t skip_rows = 0;
  // Target size of a parallel block in bytes; blocks end at row boundaries.
  int64_t block_size = 4 << 20;
  // Maximum rows per output batch; 0 = one batch per block.
  int64_t batch_rows = 0;
  // Parse and convert blocks on the global thread pool.
  bool use_threads = true;
  MemoryPool* pool = DefaultMemoryPool();
};

struct ConvertOptions {
  // Field texts read as null (pyarrow's defaults). A quoted field matches too
  // (`""` is null in a numeric column).
  std::vector<std::string> null_values = {"",     "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN",
                                          "-NaN", "-nan", "1.#IND",   "1.#QNAN", "N/A",  "NA",
                                          "NULL", "NaN",  "n/a",      "nan",     "null"};
  // Boolean spellings (pyarrow's defaults). Integers win inference, so a 0/1
  // column is int64 unless declared bool.
  std::vector<std::string> true_values = {"1", "True", "TRUE", "true"};
  std::vector<std::string> false_values = {"0", "False", "FALSE", "false"};
  // Explicit column types by name; they override inference. Naming a column
  // that the file does not have is an error.
  std::vector<std::pair<std::string, TypeRef>> column_types;
  // Inference looks at whole blocks (at least the first) until at least this
  // many rows are seen; those blocks are parsed serially when opening.
  // Inferred types (in this order of preference):
  //   all null        -> utf8, null texts read as null (pyarrow: null type)
  //   int64, bool, date32 (YYYY-MM-DD), time32[s] (HH:MM[:SS]),
  //   timestamp[s] (whole seconds), timestamp[ns] (fractions),
  //   timestamp[s, tz=UTC] / timestamp[ns, tz=UTC] (with Z or +HH:MM),
  //   float64, utf8, binary (invalid UTF-8).
  // Decimals are never inferred (as pyarrow); declare decimal128(p,s).
  // A later block that contradicts an inferred type is an error naming the
  // line, column, value and type (a stream's schema cannot change).
  int64_t inference_rows = 10000;
  // Whether null texts become null in utf8/binary columns (pyarrow: false, so
  // an empty field is an empty string).
  bool strings_can_be_null = false;
};

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
