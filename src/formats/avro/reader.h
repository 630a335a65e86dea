// Reads Avro object container files (layout in avro_format.h) into record
// batches. Opening parses the header and walks the block headers (counts,
// sizes, sync markers) without decoding; blocks then decode independently,
// from any thread. Every error names the file, and the block and its byte
// offset where one is at fault.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "columnar/builder.h"
#include "common/buffer.h"
#include "formats/avro/avro_format.h"

namespace quiver::avro {

struct BlockInfo {
  int64_t offset = 0;       // of the block's count in the file
  int64_t rows = 0;
  int64_t data_offset = 0;  // of its (compressed) data
  int64_t data_size = 0;
};

class AvroFileReader {
 public:
  // `data` holds the whole file; `path` names it in errors.
  // `validate_utf8`: check that strings and map keys are UTF-8.
  static Result<std::unique_ptr<AvroFileReader>> Open(std::shared_ptr<Buffer> data,
                                                      std::string path, MemoryPool* pool,
                                                      bool validate_utf8 = true);

  const SchemaRef& schema() const { return schema_.arrow; }
  BlockCodec codec() const { return codec_; }
  const std::vector<BlockInfo>& blocks() const { return blocks_; }
  int64_t num_rows() const { return num_rows_; }
  const std::string& path() const { return path_; }

  // Blocks [first, last) with only `columns` (indices into schema(), in
  // that order; empty = all) as one batch. Thread-safe.
  Result<RecordBatchRef> ReadBlocks(int first, int last, const std::vector<int>& columns) const;

 private:
  AvroFileReader() = default;
  Status ParseHeader();
  Status WithFile(const Status& st) const;
  Status ScanBlocks(int64_t from);
  Status DecodeBlock(int index, const std::vector<int>& projected,
                     std::vector<std::unique_ptr<ArrayBuilder>>* builders) const;

  std::shared_ptr<Buffer> data_;
  std::string path_;
  MemoryPool* pool_ = nullptr;
  bool validate_utf8_ = true;
  FileSchema schema_;
  BlockCodec codec_ = BlockCodec::kNull;
  uint8_t sync_[kSyncSize] = {};
  std::vector<BlockInfo> blocks_;
  int64_t num_rows_ = 0;
};

}  // namespace quiver::avro
