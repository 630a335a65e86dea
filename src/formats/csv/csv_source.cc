#include "formats/csv/csv_source.h"

#include <utility>

#include "formats/csv/reader.h"
#include "formats/csv/writer.h"
#include "formats/sequential_source.h"

namespace quiver::csv {
namespace {

class CsvSource final : public formats::SequentialSource {
 public:
  static Result<std::shared_ptr<formats::FileReader>> Open(const std::string& path,
                                                           std::shared_ptr<Buffer> data,
                                                           const formats::ReadOptions& options) {
    auto source = std::shared_ptr<CsvSource>(new CsvSource(path, std::move(data), options));
    QUIVER_RETURN_NOT_OK(source->Init());
    return std::shared_ptr<formats::FileReader>(std::move(source));
  }

 private:
  CsvSource(const std::string& path, std::shared_ptr<Buffer> data, formats::CsvOptions options,
            MemoryPool* pool)
      : SequentialSource(path, formats::FileFormat::kCsv),
        data_(std::move(data)),
        options_(std::move(options)) {
    options_.read.pool = pool;
  }
  CsvSource(const std::string& path, std::shared_ptr<Buffer> data,
            const formats::ReadOptions& options)
      : CsvSource(path, std::move(data), options.csv, options.pool) {}

  Result<std::unique_ptr<RecordBatchReader>> OpenInput() override {
    std::unique_ptr<CsvReader> reader;
    if (data_) {
      QUIVER_ASSIGN_OR_RAISE(
          reader, CsvReader::Make(data_, path(), options_.read, options_.parse, options_.convert));
    } else {
      QUIVER_ASSIGN_OR_RAISE(
          reader, CsvReader::Open(path(), options_.read, options_.parse, options_.convert));
    }
    return std::unique_ptr<RecordBatchReader>(std::move(reader));
  }
  int64_t InputBytesRead(const RecordBatchReader& input) const override {
    return static_cast<const CsvReader&>(input).bytes_processed();
  }
  int64_t InputTotalBytes(const RecordBatchReader& input) const override {
    return static_cast<const CsvReader&>(input).total_bytes();
  }

  std::shared_ptr<Buffer> data_;
  formats::CsvOptions options_;
};

}  // namespace

Result<std::shared_ptr<formats::FileReader>> OpenCsvSource(const std::string& path,
                                                           std::shared_ptr<Buffer> data,
                                                           const formats::ReadOptions& options) {
  return CsvSource::Open(path, std::move(data), options);
}

Result<std::unique_ptr<formats::TableWriter>> MakeCsvTableWriter(
    const std::string& path, OutputStream* sink, const SchemaRef& schema,
    const formats::WriteOptions& options) {
  if (options.codec != compression::Codec::kNone) {
    return Status::Invalid("compression applies to Arrow IPC and Parquet output, not CSV ({})",
                           path);
  }
  QUIVER_ASSIGN_OR_RAISE(auto writer, CsvWriter::Make(sink, schema, options.csv));
  return std::unique_ptr<formats::TableWriter>(
      new formats::TableWriterOf<CsvWriter>(std::move(writer)));
}

}  // namespace quiver::csv
