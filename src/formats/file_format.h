// The one place that knows file formats: telling them apart, opening a file
// for reading (whole or in independently readable units, with projection and
// per-unit statistics), and making a writer. The CLI (cat, convert), the SQL
// engine's scans and COPY all go through here, so a new format is added in
// this folder only: a FileFormat value, a detection rule, a FileReader and a
// TableWriter.
//
// Detection (DetectFormat) looks at the bytes first, then the name:
//   "ARROW1" at offset 0                        -> Arrow IPC file
//   0xFFFFFFFF continuation marker at offset 0  -> Arrow IPC stream
//   "PAR1" at offset 0                          -> Parquet
//   *.csv *.tsv *.txt (optionally .gz/.zst)     -> CSV (.tsv: tab-delimited)
//   *.arrow *.feather *.ipc / *.arrows *.stream -> IPC file / stream
//   *.parquet                                   -> Parquet
//   anything else                               -> error naming the file
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "common/io.h"
#include "common/status.h"
#include "formats/compression/codec.h"
#include "formats/csv/reader.h"
#include "formats/csv/writer.h"

namespace quiver::formats {

enum class FileFormat : int8_t { kAuto, kIpcFile, kIpcStream, kCsv, kParquet };

// "Arrow IPC file", "Arrow IPC stream", "CSV", "Parquet".
const char* FileFormatName(FileFormat format);
// auto, arrow|file|ipc|feather, stream|arrows, csv|tsv, parquet.
Result<FileFormat> ParseFileFormat(const std::string& name);
// Magic bytes first, then the file name (see the table above).
Result<FileFormat> DetectFormat(const std::string& path);
// The format of in-memory bytes by their magic; kAuto when they say nothing.
FileFormat FormatFromMagic(const uint8_t* data, int64_t size);
// From the name only (output files); kAuto when the extension says nothing.
FileFormat FormatFromExtension(const std::string& path);
// *.tsv, *.tsv.gz, *.tsv.zst
bool IsTsvPath(const std::string& path);

struct CsvOptions {
  csv::ReadOptions read;
  csv::ParseOptions parse;
  csv::ConvertOptions convert;
};

struct ReadOptions {
  CsvOptions csv;
  // Full validation (UTF-8, every offset) of what is read. Structural checks
  // that keep reads in bounds are always done.
  bool validate_full = true;
  MemoryPool* pool = DefaultMemoryPool();
};

// Statistics of one column within one unit of a file. `min`/`max` are
// length-1 arrays of the column's type, null when unknown.
struct ColumnStatistics {
  ArrayRef min;
  ArrayRef max;
  int64_t null_count = -1;  // -1: unknown
};

// A file opened for reading.
//
// Random-access formats (IPC files, Parquet) split into units (record
// batches, row groups) that can be read in any order and from several
// threads at once; sequential formats (CSV, IPC streams) are read front to
// back through ReadSequential().
class FileReader {
 public:
  virtual ~FileReader() = default;

  const std::string& path() const { return path_; }
  FileFormat format() const { return format_; }
  virtual SchemaRef schema() const = 0;
  // Number of independently readable units, or -1 for sequential formats.
  virtual int num_units() const { return -1; }
  // Rows in the file / in one unit, or -1 when unknown without reading.
  virtual int64_t num_rows() const { return -1; }
  virtual int64_t unit_rows(int unit) const { return -1; }
  // Statistics of schema column `column` in `unit`, where the file has them.
  virtual ColumnStatistics unit_statistics(int unit, int column) const { return {}; }
  // Reads one unit with only `columns` (indices into schema(), in that
  // order). REQUIRES: num_units() > 0. Thread-safe.
  virtual Result<RecordBatchRef> ReadUnit(int unit, const std::vector<int>& columns) {
    return Status::Invalid("{}: {} cannot be read by units", path_, FileFormatName(format_));
  }
  // The whole file, front to back, with only `columns` (empty = all).
  virtual Result<std::unique_ptr<RecordBatchReader>> ReadSequential(
      const std::vector<int>& columns) = 0;
  // Progress of reading, in bytes of the file (or of its decompressed text).
  virtual int64_t bytes_read() const { return 0; }
  virtual int64_t total_bytes() const { return 0; }

 protected:
  FileReader(std::string path, FileFormat format) : path_(std::move(path)), format_(format) {}

 private:
  std::string path_;
  FileFormat format_;
};

// Opens `path` ("-" = standard input, read whole) as `format` (kAuto:
// detect). Errors name the file.
Result<std::shared_ptr<FileReader>> OpenFile(const std::string& path, FileFormat format,
                                             const ReadOptions& options = {});
// Opens bytes held in memory; `name` is used in errors. kAuto goes by the
// magic bytes and takes anything else as CSV.
Result<std::shared_ptr<FileReader>> OpenBuffer(std::shared_ptr<Buffer> data, std::string name,
                                               FileFormat format, const ReadOptions& options = {});

struct WriteOptions {
  // IPC body / Parquet column compression; CSV output refuses anything else
  // than kNone.
  compression::Codec codec = compression::Codec::kNone;
  int level = compression::kDefaultLevel;
  csv::WriteOptions csv;
  // Parquet output. Unless codec_chosen, Parquet gets its own default codec
  // (zstd) instead of `codec`. row_group_rows 0 means the default
  // (1,048,576); data pages are version 1 or 2.
  bool codec_chosen = false;
  int64_t row_group_rows = 0;
  int data_page_version = 1;
  bool dictionary = true;
};

// One writer interface over every output format.
class TableWriter {
 public:
  virtual ~TableWriter() = default;
  virtual Status Write(const RecordBatch& batch) = 0;
  // Finishes the format (footer, end-of-stream, header of an empty CSV).
  virtual Status Close() = 0;
};

// A writer of `format` into `sink` (which must outlive it). `path` is only
// used in errors.
Result<std::unique_ptr<TableWriter>> MakeTableWriter(FileFormat format, const std::string& path,
                                                     OutputStream* sink, const SchemaRef& schema,
                                                     const WriteOptions& options = {});

// `st` with "PATH: " in front unless its message already names the file.
Status WithPath(const Status& st, const std::string& path);

}  // namespace quiver::formats
