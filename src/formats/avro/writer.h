// Writes record batches as an Avro object container file (layout in
// avro_format.h): the header on Make(), a block whenever about 1 MiB of
// records is encoded, the rest on Close(). Types map as avro_format.h lists;
// column names must be Avro names, and types Avro has no equivalent for
// (unsigned 64-bit, intervals, durations, nanosecond times, maps with keys
// other than strings) are refused when the writer is made.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "common/io.h"
#include "formats/avro/avro_format.h"

namespace quiver::avro {

class ValueEncoder;

class AvroWriter {
 public:
  static Result<std::unique_ptr<AvroWriter>> Make(OutputStream* sink, const SchemaRef& schema,
                                                  BlockCodec codec, int level);
  ~AvroWriter();

  Status WriteRecordBatch(const RecordBatch& batch);
  Status Close();

  const std::string& schema_json() const { return schema_json_; }

 private:
  AvroWriter() = default;
  Status FlushBlock();

  OutputStream* sink_ = nullptr;
  SchemaRef schema_;
  BlockCodec codec_ = BlockCodec::kNull;
  int level_ = 0;
  std::string schema_json_;
  std::vector<std::unique_ptr<ValueEncoder>> columns_;
  std::string sync_;
  std::string block_;
  std::string compressed_;
  int64_t block_rows_ = 0;
  bool closed_ = false;
};

}  // namespace quiver::avro
