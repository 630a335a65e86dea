// Format detection and the dispatch to each format's adapter (see
// file_format.h).
#include "formats/file_format.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <sys/stat.h>

#include "formats/avro/avro_source.h"
#include "formats/csv/csv_source.h"
#include "formats/ipc/ipc_source.h"
#include "formats/ipc/reader.h"
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

Result<std::shared_ptr<FileReader>> OpenAs(const std::string& path, std::shared_ptr<Buffer> data,
                                           FileFormat format, const ReadOptions& options) {
  switch (format) {
    case FileFormat::kIpcFile:
      return ipc::OpenIpcFileSource(path, std::move(data), options);
    case FileFormat::kIpcStream:
      return ipc::OpenIpcStreamSource(path, std::move(data), options);
    case FileFormat::kCsv:
      return csv::OpenCsvSource(path, std::move(data), options);
    case FileFormat::kParquet:
      return parquet::OpenParquetSource(path, std::move(data), options);
    case FileFormat::kAvro:
      return avro::OpenAvroSource(path, std::move(data), options);
    case FileFormat::kAuto:
      break;
  }
  return Status::Invalid("cannot tell the format of {}", path);
}

}  // namespace

Result<FileFormat> ParseFileFormat(const std::string& name) {
  const std::string n = Lower(name);
  if (n == "auto") return FileFormat::kAuto;
  if (n == "arrow" || n == "file" || n == "ipc" || n == "feather") return FileFormat::kIpcFile;
  if (n == "stream" || n == "arrows") return FileFormat::kIpcStream;
  if (n == "csv" || n == "tsv") return FileFormat::kCsv;
  if (n == "parquet") return FileFormat::kParquet;
  if (n == "avro") return FileFormat::kAvro;
  return Status::Invalid("unknown format '{}' (expected auto, arrow, stream, csv, parquet or avro)",
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
  if (EndsWith(p, ".avro")) return FileFormat::kAvro;
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
  if (size >= 4 && std::memcmp(data, "Obj\x01", 4) == 0) return FileFormat::kAvro;
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
    case FileFormat::kIpcStream:
      return ipc::MakeIpcTableWriter(format == FileFormat::kIpcStream, sink, schema, options);
    case FileFormat::kCsv: {
      // A compression codec is the adapter's error (checked first).
      const std::string lower = Lower(path);
      if (options.codec == compression::Codec::kNone && StripCompression(lower) != lower) {
        return Status::Unsupported("writing compressed CSV ({})", path);
      }
      return csv::MakeCsvTableWriter(path, sink, schema, options);
    }
    case FileFormat::kParquet:
      return parquet::MakeParquetTableWriter(path, sink, schema, options);
    case FileFormat::kAvro:
      return avro::MakeAvroTableWriter(path, sink, schema, options);
    case FileFormat::kAuto:
      break;
  }
  return Status::Invalid("cannot tell the output format of {}", path);
}

}  // namespace quiver::formats
