// What every writable file format provides (see file_reader.h for the layers
// of formats/): the TableWriter interface and its options.
#pragma once

#include <vector>

#include <cstdint>
#include <memory>
#include <utility>

#include "columnar/array.h"
#include "common/status.h"
#include "formats/compression/codec.h"
#include "formats/csv/options.h"

namespace quiver::formats {

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
  // Arrow IPC output: columns whose min and max per record batch go into the
  // batch's custom metadata as PG-Strom's min_max_stats.<name> = "min,max"
  // (ipc/pgstrom_statistics.h); arrow_fdw and Quiver skip batches by them.
  std::vector<int> stats_columns;
};

// One writer interface over every output format.
class TableWriter {
 public:
  virtual ~TableWriter() = default;
  virtual Status Write(const RecordBatch& batch) = 0;
  // Finishes the format (footer, end-of-stream, header of an empty CSV).
  virtual Status Close() = 0;
};

// The TableWriter of a format's own writer W, which has
// `Status WriteRecordBatch(const RecordBatch&)` and `Status Close()`.
template <typename W>
class TableWriterOf final : public TableWriter {
 public:
  explicit TableWriterOf(std::unique_ptr<W> writer) : writer_(std::move(writer)) {}
  Status Write(const RecordBatch& batch) override { return writer_->WriteRecordBatch(batch); }
  Status Close() override { return writer_->Close(); }

 private:
  std::unique_ptr<W> writer_;
};

}  // namespace quiver::formats
