// Options of the CSV reader (reader.h) and writer (writer.h), apart from
// both so that the format registry's ReadOptions / WriteOptions
// (formats/file_reader.h, formats/table_writer.h) can hold them without
// depending on the reader or the writer.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "columnar/type.h"
#include "common/memory_pool.h"

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
  std::vector<std::string> null_values = {
      "",        "#N/A", "#N/A N/A", "#NA",  "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
      "1.#QNAN", "N/A",  "NA",       "NULL", "NaN",     "n/a",      "nan",  "null"};
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
  // Whether a quoted field may be read as null (pyarrow: true). PostgreSQL's
  // COPY FROM ... (FORMAT csv) sets it false: there `""` is an empty string,
  // and only an unquoted field equal to the NULL string is null.
  bool quoted_strings_can_be_null = true;
};

enum class QuotingStyle : int8_t {
  kNeeded,      // quote text only where required (see above)
  kAllStrings,  // quote every non-null text value
  kNone,        // never quote; fails on a value that would need it
};

struct WriteOptions {
  bool header = true;
  char delimiter = ',';
  char quote = '"';
  std::string null_string;  // written for nulls (unquoted)
  QuotingStyle quoting = QuotingStyle::kNeeded;
  std::string eol = "\n";
};

}  // namespace quiver::csv
