// Format detection, shared CSV flags and reader/writer adapters for the CLI.
#include "tools/file_formats.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <sys/stat.h>

#include "formats/ipc/reader.h"
#include "formats/ipc/writer.h"

namespace quiver::cli {
namespace {

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix.data(), suffix.size()) == 0;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// The name without a trailing compression extension (data.csv.gz -> data.csv).
std::string StripCompression(const std::string& lower_path) {
  for (std::string_view ext : {".gz", ".zst", ".zstd"}) {
    if (EndsWith(lower_path, ext)) return lower_path.substr(0, lower_path.size() - ext.size());
  }
  return lower_path;
}

bool IsCsvName(const std::string& path) {
  const std::string p = StripCompression(Lower(path));
  return EndsWith(p, ".csv") || EndsWith(p, ".tsv") || EndsWith(p, ".txt");
}

Result<char> SingleChar(const std::string& flag, const std::string& value) {
  if (value == "\\t" || value == "tab" || value == "\t") return '\t';
  if (value.size() != 1) {
    return Status::Invalid("{} must be a single character (or \\t), got '{}'", flag, value);
  }
  return value[0];
}

class IpcTableWriter final : public TableWriter {
 public:
  explicit IpcTableWriter(std::unique_ptr<ipc::IpcWriter> writer) : writer_(std::move(writer)) {}
  Status Write(const RecordBatch& batch) override { return writer_->WriteRecordBatch(batch); }
  Status Close() override { return writer_->Close(); }

 private:
  std::unique_ptr<ipc::IpcWriter> writer_;
};

class CsvTableWriter final : public TableWriter {
 public:
  explicit CsvTableWriter(std::unique_ptr<csv::CsvWriter> writer) : writer_(std::move(writer)) {}
  Status Write(const RecordBatch& batch) override { return writer_->WriteRecordBatch(batch); }
  Status Close() override { return writer_->Close(); }

 private:
  std::unique_ptr<csv::CsvWriter> writer_;
};

}  // namespace

const char* FileFormatName(FileFormat format) {
  switch (format) {
    case FileFormat::kAuto:
      return "auto";
    case FileFormat::kIpcFile:
      return "Arrow IPC file";
    case FileFormat::kIpcStream:
      return "Arrow IPC stream";
    case FileFormat::kCsv:
      return "CSV";
  }
  return "?";
}

Result<FileFormat> ParseFileFormat(const std::string& name) {
  const std::string n = Lower(name);
  if (n == "auto") return FileFormat::kAuto;
  if (n == "arrow" || n == "file" || n == "ipc" || n == "feather") return FileFormat::kIpcFile;
  if (n == "stream" || n == "arrows") return FileFormat::kIpcStream;
  if (n == "csv" || n == "tsv") return FileFormat::kCsv;
  return Status::Invalid("unknown format '{}' (expected auto, arrow, stream or csv)", name);
}

bool IsTsvPath(const std::string& path) { return EndsWith(StripCompression(Lower(path)), ".tsv"); }

FileFormat FormatFromExtension(const std::string& path) {
  const std::string p = Lower(path);
  if (EndsWith(p, ".arrow") || EndsWith(p, ".feather") || EndsWith(p, ".ipc")) {
    return FileFormat::kIpcFile;
  }
  if (EndsWith(p, ".arrows") || EndsWith(p, ".stream")) return FileFormat::kIpcStream;
  if (IsCsvName(path)) return FileFormat::kCsv;
  return FileFormat::kAuto;
}

Result<FileFormat> DetectInputFormat(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IOError("cannot open {}: {}", path, std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Status::IOError("cannot read {}: it is a directory", path);
  }
  uint8_t head[8] = {};
  ssize_t n = ::read(fd, head, sizeof(head));
  ::close(fd);
  if (n < 0) return Status::IOError("cannot read {}: {}", path, std::strerror(errno));
  if (ipc::LooksLikeIpcFile(head, n)) return FileFormat::kIpcFile;
  static const uint8_t kContinuation[4] = {0xff, 0xff, 0xff, 0xff};
  if (n >= 4 && std::memcmp(head, kContinuation, 4) == 0) return FileFormat::kIpcStream;
  const FileFormat by_name = FormatFromExtension(path);
  if (by_name != FileFormat::kAuto) return by_name;
  return Status::Invalid("cannot tell the format of {}; use --format", path);
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

namespace {

// Builds the CSV reader options from the flags; `name` picks the delimiter.
Status CsvOptionsFromFlags(const CsvFlags& csv, const std::string& name, csv::ReadOptions* read,
                           csv::ParseOptions* parse, csv::ConvertOptions* convert) {
  QUIVER_ASSIGN_OR_RAISE(parse->delimiter, csv.Delimiter(name));
  QUIVER_ASSIGN_OR_RAISE(parse->quote, csv.Quote());
  read->header = !csv.no_header;
  if (!csv.nulls.empty()) {
    convert->null_values = csv.nulls;
    convert->strings_can_be_null = true;
  }
  if (!csv.schema.empty()) {
    auto types = csv::ParseColumnTypes(csv.schema);
    if (!types.ok()) return types.status().WithContext("--schema");
    convert->column_types = std::move(types).ValueOrDie();
  }
  return Status::OK();
}

// Standard input cannot be sniffed and re-read, so it is read whole; IPC
// magic decides, and anything else is taken as CSV.
Result<InputTable> OpenStdin(FileFormat format, const CsvFlags& csv) {
  QUIVER_ASSIGN_OR_RAISE(std::shared_ptr<Buffer> data, ReadFileFully("-"));
  if (format == FileFormat::kAuto) {
    static const uint8_t kContinuation[4] = {0xff, 0xff, 0xff, 0xff};
    format = ipc::LooksLikeIpcFile(data->data(), data->size()) ? FileFormat::kIpcFile
             : data->size() >= 4 && std::memcmp(data->data(), kContinuation, 4) == 0
                 ? FileFormat::kIpcStream
                 : FileFormat::kCsv;
  }
  const std::string name = "<stdin>";
  InputTable in;
  in.format = format;
  in.total_bytes = data->size();
  switch (format) {
    case FileFormat::kIpcFile: {
      QUIVER_ASSIGN_OR_RAISE(in.ipc_file, ipc::IpcFileReader::Open(data, {}, name));
      in.reader = in.ipc_file->ToReader();
      ipc::IpcFileReader* file = in.ipc_file.get();
      in.bytes_done = [file] { return file->bytes_read(); };
      break;
    }
    case FileFormat::kIpcStream: {
      QUIVER_ASSIGN_OR_RAISE(auto stream, ipc::IpcStreamReader::Open(data, {}, name));
      ipc::IpcStreamReader* r = stream.get();
      in.bytes_done = [r] { return r->bytes_read(); };
      in.reader = std::move(stream);
      break;
    }
    case FileFormat::kCsv:
    case FileFormat::kAuto: {
      csv::ReadOptions read;
      csv::ParseOptions parse;
      csv::ConvertOptions convert;
      QUIVER_RETURN_NOT_OK(CsvOptionsFromFlags(csv, name, &read, &parse, &convert));
      QUIVER_ASSIGN_OR_RAISE(auto reader, csv::CsvReader::Make(data, name, read, parse, convert));
      csv::CsvReader* r = reader.get();
      in.bytes_done = [r] { return r->bytes_processed(); };
      in.reader = std::move(reader);
      break;
    }
  }
  return in;
}

}  // namespace

Result<InputTable> OpenInput(const std::string& path, FileFormat format, const CsvFlags& csv) {
  if (path == "-") return OpenStdin(format, csv);
  if (format == FileFormat::kAuto) {
    QUIVER_ASSIGN_OR_RAISE(format, DetectInputFormat(path));
  }
  InputTable in;
  in.format = format;
  switch (format) {
    case FileFormat::kIpcFile: {
      QUIVER_ASSIGN_OR_RAISE(in.ipc_file, ipc::IpcFileReader::Open(path));
      in.reader = in.ipc_file->ToReader();
      ipc::IpcFileReader* file = in.ipc_file.get();
      in.bytes_done = [file] { return file->bytes_read(); };
      in.total_bytes = file->total_bytes();
      break;
    }
    case FileFormat::kIpcStream: {
      QUIVER_ASSIGN_OR_RAISE(auto stream, ipc::IpcStreamReader::Open(path));
      ipc::IpcStreamReader* s = stream.get();
      in.bytes_done = [s] { return s->bytes_read(); };
      in.total_bytes = s->total_bytes();
      in.reader = std::move(stream);
      break;
    }
    case FileFormat::kCsv: {
      csv::ReadOptions read;
      csv::ParseOptions parse;
      csv::ConvertOptions convert;
      QUIVER_RETURN_NOT_OK(CsvOptionsFromFlags(csv, path, &read, &parse, &convert));
      QUIVER_ASSIGN_OR_RAISE(auto reader, csv::CsvReader::Open(path, read, parse, convert));
      csv::CsvReader* r = reader.get();
      in.bytes_done = [r] { return r->bytes_processed(); };
      in.total_bytes = r->total_bytes();
      in.reader = std::move(reader);
      break;
    }
    case FileFormat::kAuto:
      return Status::Invalid("cannot tell the format of {}; use --format", path);
  }
  return in;
}

Result<std::unique_ptr<TableWriter>> MakeTableWriter(FileFormat format, const std::string& path,
                                                     OutputStream* sink, const SchemaRef& schema,
                                                     compression::Codec codec, const CsvFlags& csv,
                                                     bool input_is_csv) {
  switch (format) {
    case FileFormat::kIpcFile:
    case FileFormat::kIpcStream: {
      ipc::IpcWriteOptions options;
      options.codec = codec;
      std::unique_ptr<ipc::IpcWriter> writer;
      if (format == FileFormat::kIpcFile) {
        QUIVER_ASSIGN_OR_RAISE(writer, ipc::IpcWriter::MakeFileWriter(sink, schema, options));
      } else {
        QUIVER_ASSIGN_OR_RAISE(writer, ipc::IpcWriter::MakeStreamWriter(sink, schema, options));
      }
      return std::unique_ptr<TableWriter>(new IpcTableWriter(std::move(writer)));
    }
    case FileFormat::kCsv: {
      if (codec != compression::Codec::kNone) {
        return Status::Invalid("--compression applies to Arrow IPC output, not CSV ({})", path);
      }
      const std::string lower = Lower(path);
      if (StripCompression(lower) != lower) {
        return Status::Unsupported("writing compressed CSV ({})", path);
      }
      // The shared flags describe the output only when the input is not CSV;
      // --out-* options always win.
      CsvFlags out;
      if (!input_is_csv) out = csv;
      if (!csv.out_delimiter.empty()) out.delimiter = csv.out_delimiter;
      if (!csv.out_quote.empty()) out.quote = csv.out_quote;
      if (csv.out_no_header) out.no_header = true;
      if (!csv.out_null.empty()) out.nulls = csv.out_null;
      csv::WriteOptions options;
      QUIVER_ASSIGN_OR_RAISE(options.delimiter, out.Delimiter(path));
      QUIVER_ASSIGN_OR_RAISE(options.quote, out.Quote());
      options.header = !out.no_header;
      if (!out.nulls.empty()) options.null_string = out.nulls.front();
      QUIVER_ASSIGN_OR_RAISE(auto writer, csv::CsvWriter::Make(sink, schema, options));
      return std::unique_ptr<TableWriter>(new CsvTableWriter(std::move(writer)));
    }
    case FileFormat::kAuto:
      break;
  }
  return Status::Invalid("cannot tell the output format of {}; use --to", path);
}

Status WithPath(const Status& st, const std::string& path) {
  if (st.ok() || st.message().find(path) != std::string::npos) return st;
  return st.WithContext(path);
}

std::string HumanBytes(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes < 1000) return fmt::format("{} B", bytes);
  if (bytes < 1000 * 1000) return fmt::format("{:.1f} kB", b / 1e3);
  if (bytes < int64_t{1000} * 1000 * 1000) return fmt::format("{:.1f} MB", b / 1e6);
  return fmt::format("{:.2f} GB", b / 1e9);
}

}  // namespace quiver::cli
