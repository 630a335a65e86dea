// What every readable file format provides to the rest of Quiver: the
// FileReader interface (whole files or independently readable units, with
// projection and per-unit statistics) and its options.
//
// Layers of formats/ (each includes only those below it):
//
//   file_format.h           the registry: detection, OpenFile / OpenBuffer,
//                           MakeTableWriter; the CLI, scans and COPY use it
//   ipc/ipc_source.h        one adapter per format: a FileReader and a
//   csv/csv_source.h        TableWriter over that format's own reader and
//   parquet/parquet_source.h  writer
//   avro/avro_source.h
//   file_reader.h           these interfaces, SequentialSource
//   table_writer.h          (sequential_source.h) and projection helpers
//   ipc/ csv/ parquet/ avro/ the formats themselves, which know nothing of
//                           the interfaces above
//
// A new format adds its folder, an adapter, and a case in the registry.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "common/status.h"
#include "formats/csv/options.h"

namespace quiver::formats {

enum class FileFormat : int8_t { kAuto, kIpcFile, kIpcStream, kCsv, kParquet, kAvro };

// "Arrow IPC file", "Arrow IPC stream", "CSV", "Parquet", "Avro".
const char* FileFormatName(FileFormat format);

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

// Statistics of a run of rows inside a unit: one page of a Parquet column
// chunk, from the file's page index.
struct SliceStatistics {
  int64_t first_row = 0;  // within the unit
  int64_t rows = 0;
  ColumnStatistics stats;
};

// Rows [begin, end) of a unit.
struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;
};

// A file opened for reading.
//
// Random-access formats (IPC files, Parquet) split into units (record
// batches, row groups) that can be read in any order and from several
// threads at once; sequential formats (CSV, IPC streams) are read front to
// back through ReadSequential() (see SequentialSource).
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
  // Statistics of the row slices of `unit` for schema column `column`, in
  // row order and covering the unit (a Parquet page index); empty when the
  // file has none.
  virtual std::vector<SliceStatistics> unit_slices(int unit, int column) const { return {}; }
  // Only rows `ranges` (ascending, disjoint, inside the unit) of one unit;
  // Parquet decodes only the pages holding them. The default reads the
  // unit and cuts the ranges out. Thread-safe.
  virtual Result<RecordBatchRef> ReadUnitRows(int unit, const std::vector<int>& columns,
                                              const std::vector<RowRange>& ranges);
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

// --- helpers for the adapters --------------------------------------------------

// An IndexError naming `path` when a column index is outside `schema`.
Status CheckColumns(const std::vector<int>& columns, const Schema& schema, const std::string& path);

// `schema` with only `columns`, in that order (metadata kept). REQUIRES: the
// indices are valid (CheckColumns).
SchemaRef ProjectSchema(const SchemaRef& schema, const std::vector<int>& columns);

// A reader that picks `columns` (empty = all: `in` itself) out of each batch
// of `in`, sharing the arrays. REQUIRES: the indices are valid.
std::unique_ptr<RecordBatchReader> ProjectColumns(std::unique_ptr<RecordBatchReader> in,
                                                  const std::vector<int>& columns);

// The rows `ranges` of `batch`, in order (slices when one range, else a copy).
// REQUIRES: the ranges are ascending, disjoint and inside the batch.
Result<RecordBatchRef> CutRanges(const RecordBatchRef& batch, const std::vector<RowRange>& ranges,
                                 MemoryPool* pool);

// `st` with "PATH: " in front unless its message already names the file.
Status WithPath(const Status& st, const std::string& path);

}  // namespace quiver::formats
