#include "formats/avro/avro_source.h"

#include <atomic>
#include <utility>
#include <vector>

#include "formats/avro/reader.h"
#include "formats/avro/writer.h"

namespace quiver::avro {
namespace {

// A unit gathers consecutive blocks up to about this many rows (or bytes):
// writers' blocks are small (16,000 records, 64 KiB), too small to be worth a
// task each.
constexpr int64_t kUnitRows = 64 * 1024;
constexpr int64_t kUnitBytes = 16 << 20;

class AvroSource final : public formats::FileReader {
 public:
  static Result<std::shared_ptr<formats::FileReader>> Open(const std::string& path,
                                                           std::shared_ptr<Buffer> data,
                                                           const formats::ReadOptions& options) {
    if (!data) {
      QUIVER_ASSIGN_OR_RAISE(data, MapFile(path));
    }
    QUIVER_ASSIGN_OR_RAISE(auto reader, AvroFileReader::Open(data, path, options.pool,
                                                                 options.validate_full));
    return std::shared_ptr<formats::FileReader>(
        new AvroSource(path, std::move(reader), data->size()));
  }

  SchemaRef schema() const override { return reader_->schema(); }
  int num_units() const override { return static_cast<int>(units_.size()) - 1; }
  int64_t num_rows() const override { return reader_->num_rows(); }
  int64_t unit_rows(int unit) const override {
    if (unit < 0 || unit >= num_units()) return -1;
    int64_t n = 0;
    for (int b = units_[unit]; b < units_[unit + 1]; ++b) n += reader_->blocks()[b].rows;
    return n;
  }
  Result<RecordBatchRef> ReadUnit(int unit, const std::vector<int>& columns) override {
    if (unit < 0 || unit >= num_units()) {
      return Status::IndexError("{}: unit {} out of range", path(), unit);
    }
    QUIVER_RETURN_NOT_OK(formats::CheckColumns(columns, *schema(), path()));
    QUIVER_ASSIGN_OR_RAISE(auto batch,
                           reader_->ReadBlocks(units_[unit], units_[unit + 1], columns));
    // The decoder built the arrays (and checked UTF-8 unless told not to):
    // structural checks only.
    Status st = batch->Validate(/*full=*/false);
    if (!st.ok()) return formats::WithPath(st, path());
    const auto& blocks = reader_->blocks();
    const auto& last = blocks[static_cast<size_t>(units_[unit + 1] - 1)];
    bytes_read_ += last.data_offset + last.data_size - blocks[static_cast<size_t>(units_[unit])].offset;
    return batch;
  }
  Result<std::unique_ptr<RecordBatchReader>> ReadSequential(
      const std::vector<int>& columns) override {
    QUIVER_RETURN_NOT_OK(formats::CheckColumns(columns, *schema(), path()));
    return std::unique_ptr<RecordBatchReader>(new UnitReader(this, columns));
  }
  int64_t bytes_read() const override { return bytes_read_.load(); }
  int64_t total_bytes() const override { return total_bytes_; }

 private:
  AvroSource(const std::string& path, std::unique_ptr<AvroFileReader> reader, int64_t total_bytes)
      : FileReader(path, formats::FileFormat::kAvro),
        reader_(std::move(reader)),
        total_bytes_(total_bytes) {
    const auto& blocks = reader_->blocks();
    units_.push_back(0);
    int64_t rows = 0, bytes = 0;
    for (size_t b = 0; b < blocks.size(); ++b) {
      rows += blocks[b].rows;
      bytes += blocks[b].data_size;
      if (rows >= kUnitRows || bytes >= kUnitBytes || b + 1 == blocks.size()) {
        units_.push_back(static_cast<int>(b + 1));
        rows = bytes = 0;
      }
    }
  }

  // The units in order; a file without blocks gives one empty batch.
  class UnitReader final : public RecordBatchReader {
   public:
    UnitReader(AvroSource* source, std::vector<int> columns)
        : source_(source), columns_(std::move(columns)) {}
    SchemaRef schema() const override {
      return formats::ProjectSchema(source_->schema(), columns_.empty() ? All() : columns_);
    }
    Status ReadNext(RecordBatchRef* out) override {
      *out = nullptr;
      if (next_ < source_->num_units()) {
        QUIVER_ASSIGN_OR_RAISE(*out, source_->ReadUnit(next_++, columns_));
      } else if (source_->num_units() == 0 && !empty_sent_) {
        empty_sent_ = true;
        QUIVER_ASSIGN_OR_RAISE(*out, source_->reader_->ReadBlocks(0, 0, columns_));
      }
      return Status::OK();
    }

   private:
    std::vector<int> All() const {
      std::vector<int> all;
      for (int i = 0; i < source_->schema()->num_fields(); ++i) all.push_back(i);
      return all;
    }
    AvroSource* source_;
    std::vector<int> columns_;
    int next_ = 0;
    bool empty_sent_ = false;
  };

  std::unique_ptr<AvroFileReader> reader_;
  int64_t total_bytes_;
  std::vector<int> units_;  // unit u = blocks [units_[u], units_[u+1])
  std::atomic<int64_t> bytes_read_{0};
};

}  // namespace

Result<std::shared_ptr<formats::FileReader>> OpenAvroSource(const std::string& path,
                                                            std::shared_ptr<Buffer> data,
                                                            const formats::ReadOptions& options) {
  return AvroSource::Open(path, std::move(data), options);
}

Result<std::unique_ptr<formats::TableWriter>> MakeAvroTableWriter(
    const std::string& path, OutputStream* sink, const SchemaRef& schema,
    const formats::WriteOptions& options) {
  BlockCodec codec;
  switch (options.codec) {
    case compression::Codec::kNone: codec = BlockCodec::kNull; break;
    case compression::Codec::kGzip: codec = BlockCodec::kDeflate; break;
    case compression::Codec::kSnappy: codec = BlockCodec::kSnappy; break;
    case compression::Codec::kZstd: codec = BlockCodec::kZstd; break;
    default:
      return Status::Invalid("Avro compression is null, deflate, snappy or zstd, not {} ({})",
                             compression::CodecName(options.codec), path);
  }
  QUIVER_ASSIGN_OR_RAISE(auto writer, AvroWriter::Make(sink, schema, codec, options.level));
  return std::unique_ptr<formats::TableWriter>(
      new formats::TableWriterOf<AvroWriter>(std::move(writer)));
}

}  // namespace quiver::avro
