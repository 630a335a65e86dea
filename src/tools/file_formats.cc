// Format detection, shared CSV flags and reader/writer adapters for the CLI.
#include "tools/file_formats.h"

#include <utility>

namespace quiver::cli {
namespace {

Result<char> SingleChar(const std::string& flag, const std::string& value) {
  if (value == "\\t" || value == "tab" || value == "\t") return '\t';
  if (value.size() != 1) {
    return Status::Invalid("{} must be a single character (or \\t), got '{}'", flag, value);
  }
  return value[0];
}

}  // namespace

Result<FileFormat> DetectInputFormat(const std::string& path) {
  auto format = formats::DetectFormat(path);
  if (!format.ok() && format.status().IsInvalid()) {
    return Status::Invalid("cannot tell the format of {}; use --format", path);
  }
  return format;
}

void CsvFlags::Register(CLI::App* cmd, bool types_as_schema) {
  const char* group = "CSV options";
  cmd->add_option("--delimiter", delimiter,
                  "Field delimiter: one character, or \\t / tab (default ',', tab for .tsv)")
      ->group(group);
  cmd->add_option("--quote", quote, "Quote character (default '\"')")->group(group);
  cmd->add_flag("--no-header", no_header,
                "CSV input has no header row (columns are named f0, f1, ...); "
                "CSV output gets no header row")
      ->group(group);
  cmd->add_option("--null", nulls,
                  "Text that means NULL; repeatable. Reading: replaces the default null texts "
                  "and makes matching strings NULL too. Writing: the first is written for NULL")
      ->group(group);
  cmd->add_option(types_as_schema ? "--schema,--column-types" : "--column-types", schema,
                  "Column types instead of inference, e.g. \"a:int64,b:utf8,"
                  "c:timestamp[us, tz=UTC]\"")
      ->group(group);
}

void CsvFlags::RegisterOutput(CLI::App* cmd) {
  const char* group = "CSV output options";
  cmd->add_option("--out-delimiter", out_delimiter,
                  "Delimiter of the CSV output (default ',', tab for .tsv)")
      ->group(group);
  cmd->add_option("--out-quote", out_quote, "Quote character of the CSV output (default '\"')")
      ->group(group);
  cmd->add_flag("--out-no-header", out_no_header, "Write no header row")->group(group);
  cmd->add_option("--out-null", out_null, "Text written for NULL (default empty)")
      ->group(group)
      ->expected(1);
}

Result<char> CsvFlags::Delimiter(const std::string& path) const {
  if (!delimiter.empty()) return SingleChar("--delimiter", delimiter);
  return IsTsvPath(path) ? '\t' : ',';
}

Result<char> CsvFlags::Quote() const {
  if (quote.empty()) return '"';
  return SingleChar("--quote", quote);
}

Result<formats::CsvOptions> CsvFlags::ReadOptions(const std::string& path) const {
  formats::CsvOptions o;
  QUIVER_ASSIGN_OR_RAISE(o.parse.delimiter, Delimiter(path));
  QUIVER_ASSIGN_OR_RAISE(o.parse.quote, Quote());
  o.read.header = !no_header;
  if (!nulls.empty()) {
    o.convert.null_values = nulls;
    o.convert.strings_can_be_null = true;
  }
  if (!schema.empty()) {
    auto types = csv::ParseColumnTypes(schema);
    if (!types.ok()) return types.status().WithContext("--schema");
    o.convert.column_types = std::move(types).ValueOrDie();
  }
  return o;
}

Result<InputTable> OpenInput(const std::string& path, FileFormat format, const CsvFlags& csv) {
  if (path != "-" && format == FileFormat::kAuto) {
    QUIVER_ASSIGN_OR_RAISE(format, DetectInputFormat(path));
  }
  formats::ReadOptions options;
  QUIVER_ASSIGN_OR_RAISE(options.csv, csv.ReadOptions(path == "-" ? "<stdin>" : path));
  InputTable in;
  QUIVER_ASSIGN_OR_RAISE(in.file, formats::OpenFile(path, format, options));
  in.format = in.file->format();
  QUIVER_ASSIGN_OR_RAISE(in.reader, in.file->ReadSequential({}));
  formats::FileReader* file = in.file.get();
  in.bytes_done = [file] { return file->bytes_read(); };
  in.total_bytes = file->total_bytes();
  return in;
}

Result<std::unique_ptr<TableWriter>> MakeTableWriter(FileFormat format, const std::string& path,
                                                     OutputStream* sink, const SchemaRef& schema,
                                                     compression::Codec codec, const CsvFlags& csv,
                                                     bool input_is_csv) {
  formats::WriteOptions options;
  options.codec = codec;
  if (format == FileFormat::kCsv) {
    if (codec != compression::Codec::kNone) {
      return Status::Invalid("--compression applies to Arrow IPC output, not CSV ({})", path);
    }
    // The shared flags describe the output only when the input is not CSV;
    // --out-* options always win.
    CsvFlags out;
    if (!input_is_csv) out = csv;
    if (!csv.out_delimiter.empty()) out.delimiter = csv.out_delimiter;
    if (!csv.out_quote.empty()) out.quote = csv.out_quote;
    if (csv.out_no_header) out.no_header = true;
    if (!csv.out_null.empty()) out.nulls = csv.out_null;
    QUIVER_ASSIGN_OR_RAISE(options.csv.delimiter, out.Delimiter(path));
    QUIVER_ASSIGN_OR_RAISE(options.csv.quote, out.Quote());
    options.csv.header = !out.no_header;
    if (!out.nulls.empty()) options.csv.null_string = out.nulls.front();
  }
  auto writer = formats::MakeTableWriter(format, path, sink, schema, options);
  if (!writer.ok() && format == FileFormat::kAuto) {
    return Status::Invalid("cannot tell the output format of {}; use --to", path);
  }
  return writer;
}

std::string HumanBytes(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes < 1000) return fmt::format("{} B", bytes);
  if (bytes < 1000 * 1000) return fmt::format("{:.1f} kB", b / 1e3);
  if (bytes < int64_t{1000} * 1000 * 1000) return fmt::format("{:.1f} MB", b / 1e6);
  return fmt::format("{:.2f} GB", b / 1e9);
}

}  // namespace quiver::cli
