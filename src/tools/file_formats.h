// File formats as the CLI sees them: the format registry of src/formats
// (detection, readers, writers) plus the CSV options the commands share.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "columnar/array.h"
#include "common/io.h"
#include "common/status.h"
#include "formats/compression/codec.h"
#include "formats/csv/reader.h"
#include "formats/csv/writer.h"
#include "formats/file_format.h"

namespace quiver::cli {

using formats::FileFormat;
using formats::FileFormatName;
using formats::FormatFromExtension;
using formats::IsTsvPath;
using formats::ParseFileFormat;
using formats::TableWriter;
using formats::WithPath;
// The values the command line accepts (for CLI11's IsMember check).
inline const std::vector<std::string> kFormatChoices = {
    "auto", "arrow", "file", "ipc", "feather", "stream", "arrows", "csv", "parquet", "avro"};
// Magic bytes first, then the file name (formats/file_format.h); the error
// for an unknown format points at --format.
Result<FileFormat> DetectInputFormat(const std::string& path);

// The CSV options shared by `cat` and `convert`. They describe the CSV side
// of a command: the input when it is CSV, else the CSV output (delimiter,
// quote, header and the first --null). When both sides are CSV they describe
// the input, and the output takes the --out-* options (defaults: ',' or tab
// by extension, '"', a header, empty NULLs).
struct CsvFlags {
  std::string delimiter;  // one character, "\t" or "tab"; empty = by extension
  std::string quote;
  bool no_header = false;
  std::vector<std::string> nulls;
  std::string schema;  // "a:int64,b:utf8"
  // Output-only overrides (convert).
  std::string out_delimiter;
  std::string out_quote;
  bool out_no_header = false;
  std::vector<std::string> out_null;  // at most one

  // Declares the options on `cmd` in a "CSV options" help group. The column
  // types option is "--schema" (convert) unless the command already uses that
  // name (cat --schema prints the schema); "--column-types" always works.
  void Register(CLI::App* cmd, bool types_as_schema = true);
  // Declares the --out-* options in a "CSV output options" group.
  void RegisterOutput(CLI::App* cmd);
  // The delimiter to use for `path`: the flag, else tab for .tsv, else ','.
  Result<char> Delimiter(const std::string& path) const;
  Result<char> Quote() const;
  // Reader options for CSV input named `path` (delimiter by extension).
  Result<formats::CsvOptions> ReadOptions(const std::string& path) const;
};

// A table being read, with what the progress bar needs.
struct InputTable {
  std::shared_ptr<formats::FileReader> file;
  std::unique_ptr<RecordBatchReader> reader;  // all columns, front to back
  FileFormat format = FileFormat::kAuto;
  std::function<int64_t()> bytes_done;
  int64_t total_bytes = 0;
};

// Opens `path` as `format` (kAuto: detect). Errors name the file.
Result<InputTable> OpenInput(const std::string& path, FileFormat format, const CsvFlags& csv);

// `codec` applies to IPC only; asking for compression of CSV output is an
// error. `input_is_csv` decides which CsvFlags describe the output (see above).
Result<std::unique_ptr<TableWriter>> MakeTableWriter(FileFormat format, const std::string& path,
                                                     OutputStream* sink, const SchemaRef& schema,
                                                     compression::Codec codec, const CsvFlags& csv,
                                                     bool input_is_csv = false);

// "1.5 MB", "312 B" (decimal units, like `ls --si`).
std::string HumanBytes(int64_t bytes);

}  // namespace quiver::cli
