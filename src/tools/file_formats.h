// File formats as the CLI sees them: telling them apart, the CSV options the
// commands share, and one reader/writer interface over Arrow IPC and CSV.
//
// Input detection (DetectInputFormat) looks at the bytes first, then the name:
//   "ARROW1" at offset 0                       -> Arrow IPC file
//   0xFFFFFFFF continuation marker at offset 0 -> Arrow IPC stream
//   *.csv *.tsv *.txt (optionally .gz/.zst)    -> CSV (.tsv: tab-delimited)
//   *.arrow *.feather *.ipc / *.arrows *.stream -> IPC file / stream
//   anything else                              -> error asking for --format
// "-" is standard input: read whole, IPC by its magic, anything else is CSV.
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

namespace quiver::ipc {
class IpcFileReader;
}

namespace quiver::cli {

enum class FileFormat : int8_t { kAuto, kIpcFile, kIpcStream, kCsv };

// "Arrow IPC file", "Arrow IPC stream", "CSV".
const char* FileFormatName(FileFormat format);
// --format/--to values: auto, arrow|file|ipc|feather, stream|arrows, csv|tsv.
Result<FileFormat> ParseFileFormat(const std::string& name);
// The values the command line accepts (for CLI11's IsMember check).
inline const std::vector<std::string> kFormatChoices = {"auto",    "arrow",  "file",   "ipc",
                                                        "feather", "stream", "arrows", "csv"};
// Magic bytes first, then the file name (see the table above).
Result<FileFormat> DetectInputFormat(const std::string& path);
// From the name only (output files); kAuto when the extension says nothing.
FileFormat FormatFromExtension(const std::string& path);
// *.tsv, *.tsv.gz, *.tsv.zst
bool IsTsvPath(const std::string& path);

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
};

// A table being read, with what the progress bar needs.
struct InputTable {
  std::unique_ptr<RecordBatchReader> reader;
  FileFormat format = FileFormat::kAuto;
  std::function<int64_t()> bytes_done;
  int64_t total_bytes = 0;
  // Set for IPC files: batch count and footer metadata are known up front.
  std::shared_ptr<ipc::IpcFileReader> ipc_file;
};

// Opens `path` as `format` (kAuto: detect). Errors name the file.
Result<InputTable> OpenInput(const std::string& path, FileFormat format, const CsvFlags& csv);

// One writer interface over IpcWriter (file/stream) and CsvWriter.
class TableWriter {
 public:
  virtual ~TableWriter() = default;
  virtual Status Write(const RecordBatch& batch) = 0;
  // Finishes the format (footer, end-of-stream, header of an empty CSV).
  virtual Status Close() = 0;
};

// `codec` applies to IPC only; asking for compression of CSV output is an
// error. `input_is_csv` decides which CsvFlags describe the output (see above).
Result<std::unique_ptr<TableWriter>> MakeTableWriter(FileFormat format, const std::string& path,
                                                     OutputStream* sink, const SchemaRef& schema,
                                                     compression::Codec codec, const CsvFlags& csv,
                                                     bool input_is_csv = false);

// `st` with "PATH: " in front unless its message already names the file, so
// every error the CLI prints says which file it is about.
Status WithPath(const Status& st, const std::string& path);

// "1.5 MB", "312 B" (decimal units, like `ls --si`).
std::string HumanBytes(int64_t bytes);

}  // namespace quiver::cli
