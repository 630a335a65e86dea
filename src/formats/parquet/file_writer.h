// Writing Arrow record batches as a Parquet file (layout: parquet_format.h).
//
//   WriteRecordBatch: batches are held (zero-copy) until row_group_rows rows
//   are buffered; then the row group is written:
//     every leaf column in parallel: levels + values (level_builder.h), then
//       pages, dictionary, compression, statistics (column_writer.h)
//     the chunks in column order to the sink
//   Close: the rest as a last row group, the page index, the footer with the
//   Arrow schema under ARROW:schema, "PAR1".
//
// Thread-safety: one thread at a time; the sink must outlive the writer.
// Atomicity is the sink's business (the CLI writes through AtomicFile).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "common/io.h"
#include "common/status.h"
#include "formats/parquet/column_writer.h"

namespace quiver::parquet {

struct ParquetWriteOptions {
  // Codec and level for every column (zstd level 1 by default: compresses
  // about as fast as snappy and noticeably smaller), with per-column
  // overrides by top-level field name or dotted leaf path.
  compression::Codec codec = compression::Codec::kZstd;
  int compression_level = compression::kDefaultLevel;
  struct ColumnCodec {
    std::string column;
    compression::Codec codec;
    int level = compression::kDefaultLevel;
  };
  std::vector<ColumnCodec> column_codecs;
  int64_t row_group_rows = int64_t{1} << 20;
  int data_page_version = 1;  // 1 or 2
  int64_t data_page_size = 1 << 20;
  int64_t data_page_rows = 20000;
  bool dictionary = true;
  int64_t dictionary_page_size_limit = 1 << 20;
  // For values not dictionary-encoded, where the column's type allows it.
  std::optional<Encoding> encoding;
  bool statistics = true;
  bool page_index = true;
  bool page_checksum = true;
  // Store the Arrow schema (base64 IPC) under ARROW:schema so readers
  // restore types Parquet lacks (time zones, durations, dictionaries...).
  bool store_arrow_schema = true;
  KeyValueMetadata key_value_metadata;  // added to the schema's metadata
  bool parallel = true;
  MemoryPool* pool = DefaultMemoryPool();
};

class ParquetFileWriter {
 public:
  static Result<std::unique_ptr<ParquetFileWriter>> Make(OutputStream* sink, SchemaRef schema,
                                                         const ParquetWriteOptions& options = {});
  ~ParquetFileWriter();

  // REQUIRES: batch has the writer's fields.
  Status WriteRecordBatch(const RecordBatch& batch);
  // Writes the buffered rows, the page index and the footer. Idempotent.
  Status Close();

  int64_t rows_written() const;
  int num_row_groups() const;

  struct Impl;

 private:
  explicit ParquetFileWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace quiver::parquet
