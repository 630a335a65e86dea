// Format detection, FileReader implementations and writer factories
// (see file_format.h).
#include "formats/file_format.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <utility>

#include <sys/stat.h>

#include "formats/ipc/reader.h"
#include "formats/ipc/writer.h"
#include "formats/parquet/parquet_source.h"

namespace quiver::formats {
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

// Picks `columns` (empty = all) out of each batch of `in`.
class ProjectingReader final : public RecordBatchReader {
 public:
  ProjectingReader(std::unique_ptr<RecordBatchReader> in, std::vector<int> columns)
      : in_(std::move(in)), columns_(std::move(columns)) {
    auto s = std::make_shared<Schema>();
    s->metadata = in_->schema()->metadata;
    for (int c : columns_) s->fields.push_back(in_->schema()->fields[c]);
    schema_ = std::move(s);
  }
  SchemaRef schema() const override { return schema_; }
  Status ReadNext(RecordBatchRef* out) override {
    RecordBatchRef batch;
    QUIVER_RETURN_NOT_OK(in_->ReadNext(&batch));
    if (batch == nullptr) {
      *out = nullptr;
      return Status::OK();
    }
    std::vector<ArrayRef> cols;
    cols.reserve(columns_.size());
    for (int c : columns_) cols.push_back(batch->column(c));
    *out = RecordBatch::Make(schema_, batch->num_rows(), std::move(cols));
    return Status::OK();
  }

 private:
  std::unique_ptr<RecordBatchReader> in_;
  std::vector<int> columns_;
  SchemaRef schema_;
};

Status CheckColumns(const std::vector<int>& columns, const Schema& schema, const std::string& path) {
  for (int c : columns) {
    if (c < 0 || c >= schema.num_fields()) {
      return Status::IndexError("{}: column {} out of range (the file has {})", path, c,
                                schema.num_fields());
    }
  }
  return Status::OK();
}

std::unique_ptr<RecordBatchReader> Project(std::unique_ptr<RecordBatchReader> in,
                                           const std::vector<int>& columns) {
  if (columns.empty()) return in;
  return std::make_unique<ProjectingReader>(std::move(in), columns);
}

// Arrow IPC file: one unit per record batch; projected reads decode only the
// requested columns.
class IpcFileSource final : public FileReader {
 public:
  static Result<std::shared_ptr<FileReader>> Open(const std::string& path,
                                                  std::shared_ptr<Buffer> data,
                                                  const ReadOptions& options) {
    ipc::IpcReadOptions ipc_options;
    ipc_options.validate = options.validate_full;
    ipc_options.pool = options.pool;
    std::shared_ptr<ipc::IpcFileReader> reader;
    if (data) {
      QUIVER_ASSIGN_OR_RAISE(reader, ipc::IpcFileReader::Open(data, ipc_options, path));
    } else {
      QUIVER_ASSIGN_OR_RAISE(reader, ipc::IpcFileReader::Open(path, ipc_options));
    }
    return std::shared_ptr<FileReader>(
        new IpcFileSource(path, std::move(data), ipc_options, std::move(reader)));
  }

  SchemaRef schema() const override { return full_->schema(); }
  int num_units() const override { return full_->num_record_batches(); }
  int64_t num_rows() const override {
    int64_t total = 0;
    for (int i = 0; i < num_units(); ++i) {
      const int64_t n = unit_rows(i);
      if (n < 0) return -1;
      total += n;
    }
    return total;
  }
  int64_t unit_rows(int unit) const override { return full_->num_rows(unit); }

  Result<RecordBatchRef> ReadUnit(int unit, const std::vector<int>& columns) override {
    QUIVER_ASSIGN_OR_RAISE(auto reader, ProjectedReader(columns));
    return reader->ReadRecordBatch(unit);
  }
  Result<std::unique_ptr<RecordBatchReader>> ReadSequential(
      const std::vector<int>& columns) override {
    QUIVER_ASSIGN_OR_RAISE(auto reader, ProjectedReader(columns));
    return reader->ToReader();
  }
  int64_t bytes_read() const override {
    std::lock_guard<std::mutex> lock(mu_);
    int64_t n = full_->bytes_read();
    for (const auto& [cols, r] : projected_) n += r->bytes_read();
    return n;
  }
  int64_t total_bytes() const override { return full_->total_bytes(); }

 private:
  IpcFileSource(const std::string& path, std::shared_ptr<Buffer> data, ipc::IpcReadOptions options,
                std::shared_ptr<ipc::IpcFileReader> full)
      : FileReader(path, FileFormat::kIpcFile),
        data_(std::move(data)),
        options_(std::move(options)),
        full_(std::move(full)) {}

  // One reader per distinct projection, opened on first use over the same
  // mapping (opening re-reads only the footer and the dictionaries).
  Result<std::shared_ptr<ipc::IpcFileReader>> ProjectedReader(const std::vector<int>& columns) {
    if (columns.empty()) return full_;
    QUIVER_RETURN_NOT_OK(CheckColumns(columns, *full_->schema(), path()));
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [cols, r] : projected_) {
      if (cols == columns) return r;
    }
    ipc::IpcReadOptions o = options_;
    o.included_fields = columns;
    std::shared_ptr<ipc::IpcFileReader> r;
    if (data_) {
      QUIVER_ASSIGN_OR_RAISE(r, ipc::IpcFileReader::Open(data_, o, path()));
    } else {
      QUIVER_ASSIGN_OR_RAISE(r, ipc::IpcFileReader::Open(path(), o));
    }
    projected_.emplace_back(columns, r);
    return r;
  }

  std::shared_ptr<Buffer> data_;  // set when opened from memory
  ipc::IpcReadOptions options_;
  std::shared_ptr<ipc::IpcFileReader> full_;
  mutable std::mutex mu_;
  std::vector<std::pair<std::vector<int>, std::shared_ptr<ipc::IpcFileReader>>> projected_;
};

// Arrow IPC stream: sequential only.
class IpcStreamSource final : public FileReader {
 public:
  static Result<std::shared_ptr<FileReader>> Open(const std::string& path,
                                                  std::shared_ptr<Buffer> data,
                                                  const ReadOptions& options) {
    ipc::IpcReadOptions ipc_options;
    ipc_options.validate = options.validate_full;
    ipc_options.pool = options.pool;
    auto source = std::shared_ptr<IpcStreamSource>(new IpcStreamSource(path, data, ipc_options));
    QUIVER_ASSIGN_OR_RAISE(source->first_, source->OpenReader());
    source->schema_ = source->first_->schema();
    return std::shared_ptr<FileReader>(source);
  }

  SchemaRef schema() const override { return schema_; }
  Result<std::unique_ptr<RecordBatchReader>> ReadSequential(
      const std::vector<int>& columns) override {
    QUIVER_RETURN_NOT_OK(CheckColumns(columns, *schema_, path()));
    std::unique_ptr<ipc::IpcStreamReader> reader = std::move(first_);
    if (reader == nullptr) {
      QUIVER_ASSIGN_OR_RAISE(reader, OpenReader());
    }
    current_ = reader.get();
    return Project(std::move(reader), columns);
  }
  int64_t bytes_read() const override { return current_ ? current_->bytes_read() : 0; }
  int64_t total_bytes() const override {
    return current_ ? current_->total_bytes() : first_ ? first_->total_bytes() : 0;
  }

 private:
  IpcStreamSource(const std::string& path, std::shared_ptr<Buffer> data,
                  ipc::IpcReadOptions options)
      : FileReader(path, FileFormat::kIpcStream), data_(std::move(data)), options_(options) {}

  Result<std::unique_ptr<ipc::IpcStreamReader>> OpenReader() {
    if (data_) return ipc::IpcStreamReader::Open(data_, options_, path());
    return ipc::IpcStreamReader::Open(path(), options_);
  }

  std::shared_ptr<Buffer> data_;
  ipc::IpcReadOptions options_;
  SchemaRef schema_;
  std::unique_ptr<ipc::IpcStreamReader> first_;  // opened to learn the schema
  ipc::IpcStreamReader* current_ = nullptr;
};

// CSV: sequential only; the reader parses blocks in parallel itself.
class CsvSource final : public FileReader {
 public:
  static Result<std::shared_ptr<FileReader>> Open(const std::string& path,
                                                  std::shared_ptr<Buffer> data,
                                                  const ReadOptions& options) {
    auto source = std::shared_ptr<CsvSource>(new CsvSource(path, std::move(data), options));
    QUIVER_ASSIGN_OR_RAISE(source->first_, source->OpenReader());
    source->schema_ = source->first_->schema();
    source->current_ = source->first_.get();
    return std::shared_ptr<FileReader>(source);
  }

  SchemaRef schema() const override { return schema_; }
  Result<std::unique_ptr<RecordBatchReader>> ReadSequential(
      const std::vector<int>& columns) override {
    QUIVER_RETURN_NOT_OK(CheckColumns(columns, *schema_, path()));
    std::unique_ptr<csv::CsvReader> reader = std::move(first_);
    if (reader == nullptr) {
      QUIVER_ASSIGN_OR_RAISE(reader, OpenReader());
    }
    current_ = reader.get();
    return Project(std::move(reader), columns);
  }
  int64_t bytes_read() const override { return current_ ? current_->bytes_processed() : 0; }
  int64_t total_bytes() const override { return current_ ? current_->total_bytes() : 0; }

 private:
  CsvSource(const std::string& path, std::shared_ptr<Buffer> data, ReadOptions options)
      : FileReader(path, FileFormat::kCsv), data_(std::move(data)), options_(std::move(options)) {
    options_.csv.read.pool = options_.pool;
  }

  Result<std::unique_ptr<csv::CsvReader>> OpenReader() {
    const CsvOptions& o = options_.csv;
    if (data_) return csv::CsvReader::Make(data_, path(), o.read, o.parse, o.convert);
    return csv::CsvReader::Open(path(), o.read, o.parse, o.convert);
  }

  std::shared_ptr<Buffer> data_;
  ReadOptions options_;
  SchemaRef schema_;
  std::unique_ptr<csv::CsvReader> first_;  // opened to learn the schema
  csv::CsvReader* current_ = nullptr;
};

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

Result<std::shared_ptr<FileReader>> OpenAs(const std::string& path, std::shared_ptr<Buffer> data,
                                           FileFormat format, const ReadOptions& options) {
  switch (format) {
    case FileFormat::kIpcFile:
      return IpcFileSource::Open(path, std::move(data), options);
    case FileFormat::kIpcStream:
      return IpcStreamSource::Open(path, std::move(data), options);
    case FileFormat::kCsv:
      return CsvSource::Open(path, std::move(data), options);
    case FileFormat::kParquet:
      return parquet::OpenParquetSource(path, std::move(data), options);
    case FileFormat::kAuto:
      break;
  }
  return Status::Invalid("cannot tell the format of {}", path);
}

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
    case FileFormat::kParquet:
      return "Parquet";
  }
  return "?";
}

Result<FileFormat> ParseFileFormat(const std::string& name) {
  const std::string n = Lower(name);
  if (n == "auto") return FileFormat::kAuto;
  if (n == "arrow" || n == "file" || n == "ipc" || n == "feather") return FileFormat::kIpcFile;
  if (n == "stream" || n == "arrows") return FileFormat::kIpcStream;
  if (n == "csv" || n == "tsv") return FileFormat::kCsv;
  if (n == "parquet") return FileFormat::kParquet;
  return Status::Invalid("unknown format '{}' (expected auto, arrow, stream, csv or parquet)",
                         name);
}

bool IsTsvPath(const std::string& path) { return EndsWith(StripCompression(Lower(path)), ".tsv"); }

FileFormat FormatFromExtension(const std::string& path) {
  const std::string p = Lower(path);
  if (EndsWith(p, ".arrow") || EndsWith(p, ".feather") || EndsWith(p, ".ipc")) {
    return FileFormat::kIpcFile;
  }
  if (EndsWith(p, ".arrows") || EndsWith(p, ".stream")) return FileFormat::kIpcStream;
  if (EndsWith(p, ".parquet") || EndsWith(p, ".parq")) return FileFormat::kParquet;
  if (IsCsvName(path)) return FileFormat::kCsv;
  return FileFormat::kAuto;
}

FileFormat FormatFromMagic(const uint8_t* data, int64_t size) {
  if (ipc::LooksLikeIpcFile(data, size)) return FileFormat::kIpcFile;
  static const uint8_t kContinuation[4] = {0xff, 0xff, 0xff, 0xff};
  if (size >= 4 && std::memcmp(data, kContinuation, 4) == 0) return FileFormat::kIpcStream;
  if (size >= 4 && std::memcmp(data, "PAR1", 4) == 0) return FileFormat::kParquet;
  // Encrypted-footer Parquet: detected so the reader can say it is encrypted.
  if (size >= 4 && std::memcmp(data, "PARE", 4) == 0) return FileFormat::kParquet;
  return FileFormat::kAuto;
}

Result<FileFormat> DetectFormat(const std::string& path) {
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
  const FileFormat by_magic = FormatFromMagic(head, n);
  if (by_magic != FileFormat::kAuto) return by_magic;
  const FileFormat by_name = FormatFromExtension(path);
  if (by_name != FileFormat::kAuto) return by_name;
  return Status::Invalid("cannot tell the format of {}; name it (for example --format csv)", path);
}

Result<std::shared_ptr<FileReader>> OpenFile(const std::string& path, FileFormat format,
                                             const ReadOptions& options) {
  if (path == "-") {
    QUIVER_ASSIGN_OR_RAISE(std::shared_ptr<Buffer> data, ReadFileFully("-"));
    return OpenBuffer(std::move(data), "<stdin>", format, options);
  }
  if (format == FileFormat::kAuto) {
    QUIVER_ASSIGN_OR_RAISE(format, DetectFormat(path));
  }
  auto opened = OpenAs(path, nullptr, format, options);
  if (!opened.ok()) return WithPath(opened.status(), path);
  return opened;
}

Result<std::shared_ptr<FileReader>> OpenBuffer(std::shared_ptr<Buffer> data, std::string name,
                                               FileFormat format, const ReadOptions& options) {
  if (format == FileFormat::kAuto) {
    format = FormatFromMagic(data->data(), data->size());
    if (format == FileFormat::kAuto) format = FileFormat::kCsv;
  }
  return OpenAs(name, std::move(data), format, options);
}

Result<std::unique_ptr<TableWriter>> MakeTableWriter(FileFormat format, const std::string& path,
                                                     OutputStream* sink, const SchemaRef& schema,
                                                     const WriteOptions& options) {
  switch (format) {
    case FileFormat::kIpcFile:
    case FileFormat::kIpcStream: {
      ipc::IpcWriteOptions ipc_options;
      ipc_options.codec = options.codec;
      ipc_options.level = options.level;
      std::unique_ptr<ipc::IpcWriter> writer;
      if (format == FileFormat::kIpcFile) {
        QUIVER_ASSIGN_OR_RAISE(writer, ipc::IpcWriter::MakeFileWriter(sink, schema, ipc_options));
      } else {
        QUIVER_ASSIGN_OR_RAISE(writer,
                               ipc::IpcWriter::MakeStreamWriter(sink, schema, ipc_options));
      }
      return std::unique_ptr<TableWriter>(new IpcTableWriter(std::move(writer)));
    }
    case FileFormat::kCsv: {
      if (options.codec != compression::Codec::kNone) {
        return Status::Invalid("compression applies to Arrow IPC and Parquet output, not CSV ({})",
                               path);
      }
      const std::string lower = Lower(path);
      if (StripCompression(lower) != lower) {
        return Status::Unsupported("writing compressed CSV ({})", path);
      }
      QUIVER_ASSIGN_OR_RAISE(auto writer, csv::CsvWriter::Make(sink, schema, options.csv));
      return std::unique_ptr<TableWriter>(new CsvTableWriter(std::move(writer)));
    }
    case FileFormat::kParquet:
      return parquet::MakeParquetTableWriter(path, sink, schema, options);
    case FileFormat::kAuto:
      break;
  }
  return Status::Invalid("cannot tell the output format of {}", path);
}

Status WithPath(const Status& st, const std::string& path) {
  if (st.ok() || st.message().find(path) != std::string::npos) return st;
  return st.WithContext(path);
}

}  // namespace quiver::formats
