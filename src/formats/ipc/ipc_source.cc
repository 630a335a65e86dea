#include "formats/ipc/ipc_source.h"

#include <mutex>
#include <utility>
#include <vector>

#include "formats/ipc/pgstrom_statistics.h"
#include "formats/ipc/reader.h"
#include "formats/ipc/writer.h"
#include "formats/sequential_source.h"

namespace quiver::ipc {
namespace {

IpcReadOptions ToIpcOptions(const formats::ReadOptions& options) {
  IpcReadOptions o;
  o.validate = options.validate_full;
  o.pool = options.pool;
  return o;
}

// Arrow IPC file: one unit per record batch; projected reads decode only the
// requested columns.
class IpcFileSource final : public formats::FileReader {
 public:
  static Result<std::shared_ptr<formats::FileReader>> Open(const std::string& path,
                                                           std::shared_ptr<Buffer> data,
                                                           const formats::ReadOptions& options) {
    const IpcReadOptions ipc_options = ToIpcOptions(options);
    std::shared_ptr<IpcFileReader> reader;
    if (data) {
      QUIVER_ASSIGN_OR_RAISE(reader, IpcFileReader::Open(data, ipc_options, path));
    } else {
      QUIVER_ASSIGN_OR_RAISE(reader, IpcFileReader::Open(path, ipc_options));
    }
    return std::shared_ptr<formats::FileReader>(
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
  // PG-Strom's min/max statistics (pgstrom_statistics.h), parsed on first use.
  formats::ColumnStatistics unit_statistics(int unit, int column) const override {
    std::call_once(stats_once_, [&] {
      stats_ = ReadPgStromStatistics(path(), *full_->schema(), full_->num_record_batches(),
                                     [&](int b) { return full_->record_batch_metadata(b); });
    });
    if (column < 0 || column >= static_cast<int>(stats_.size())) return {};
    const auto& col = stats_[static_cast<size_t>(column)];
    if (unit < 0 || unit >= static_cast<int>(col.size())) return {};
    return col[static_cast<size_t>(unit)];
  }

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
  IpcFileSource(const std::string& path, std::shared_ptr<Buffer> data, IpcReadOptions options,
                std::shared_ptr<IpcFileReader> full)
      : FileReader(path, formats::FileFormat::kIpcFile),
        data_(std::move(data)),
        options_(std::move(options)),
        full_(std::move(full)) {}

  // One reader per distinct projection, opened on first use over the same
  // mapping (opening re-reads only the footer and the dictionaries).
  Result<std::shared_ptr<IpcFileReader>> ProjectedReader(const std::vector<int>& columns) {
    if (columns.empty()) return full_;
    QUIVER_RETURN_NOT_OK(formats::CheckColumns(columns, *full_->schema(), path()));
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [cols, r] : projected_) {
      if (cols == columns) return r;
    }
    IpcReadOptions o = options_;
    o.included_fields = columns;
    std::shared_ptr<IpcFileReader> r;
    if (data_) {
      QUIVER_ASSIGN_OR_RAISE(r, IpcFileReader::Open(data_, o, path()));
    } else {
      QUIVER_ASSIGN_OR_RAISE(r, IpcFileReader::Open(path(), o));
    }
    projected_.emplace_back(columns, r);
    return r;
  }

  std::shared_ptr<Buffer> data_;  // set when opened from memory
  IpcReadOptions options_;
  std::shared_ptr<IpcFileReader> full_;
  mutable std::once_flag stats_once_;
  mutable std::vector<std::vector<formats::ColumnStatistics>> stats_;  // [column][batch]
  mutable std::mutex mu_;
  std::vector<std::pair<std::vector<int>, std::shared_ptr<IpcFileReader>>> projected_;
};

// Arrow IPC stream: read front to back.
class IpcStreamSource final : public formats::SequentialSource {
 public:
  static Result<std::shared_ptr<formats::FileReader>> Open(const std::string& path,
                                                           std::shared_ptr<Buffer> data,
                                                           const formats::ReadOptions& options) {
    auto source = std::shared_ptr<IpcStreamSource>(
        new IpcStreamSource(path, std::move(data), ToIpcOptions(options)));
    QUIVER_RETURN_NOT_OK(source->Init());
    return std::shared_ptr<formats::FileReader>(std::move(source));
  }

 private:
  IpcStreamSource(const std::string& path, std::shared_ptr<Buffer> data, IpcReadOptions options)
      : SequentialSource(path, formats::FileFormat::kIpcStream),
        data_(std::move(data)),
        options_(std::move(options)) {}

  Result<std::unique_ptr<RecordBatchReader>> OpenInput() override {
    std::unique_ptr<IpcStreamReader> reader;
    if (data_) {
      QUIVER_ASSIGN_OR_RAISE(reader, IpcStreamReader::Open(data_, options_, path()));
    } else {
      QUIVER_ASSIGN_OR_RAISE(reader, IpcStreamReader::Open(path(), options_));
    }
    return std::unique_ptr<RecordBatchReader>(std::move(reader));
  }
  int64_t InputBytesRead(const RecordBatchReader& input) const override {
    return static_cast<const IpcStreamReader&>(input).bytes_read();
  }
  int64_t InputTotalBytes(const RecordBatchReader& input) const override {
    return static_cast<const IpcStreamReader&>(input).total_bytes();
  }

  std::shared_ptr<Buffer> data_;
  IpcReadOptions options_;
};

// Writes each batch with PG-Strom's min/max statistics of `columns` in its
// message metadata.
class StatsWriter final : public formats::TableWriter {
 public:
  StatsWriter(std::unique_ptr<IpcWriter> writer, std::vector<int> columns)
      : writer_(std::move(writer)), columns_(std::move(columns)) {}
  Status Write(const RecordBatch& batch) override {
    return writer_->WriteRecordBatch(batch, PgStromBatchStatistics(batch, columns_));
  }
  Status Close() override { return writer_->Close(); }

 private:
  std::unique_ptr<IpcWriter> writer_;
  std::vector<int> columns_;
};

}  // namespace

Result<std::shared_ptr<formats::FileReader>> OpenIpcFileSource(
    const std::string& path, std::shared_ptr<Buffer> data, const formats::ReadOptions& options) {
  return IpcFileSource::Open(path, std::move(data), options);
}

Result<std::shared_ptr<formats::FileReader>> OpenIpcStreamSource(
    const std::string& path, std::shared_ptr<Buffer> data, const formats::ReadOptions& options) {
  return IpcStreamSource::Open(path, std::move(data), options);
}

Result<std::unique_ptr<formats::TableWriter>> MakeIpcTableWriter(
    bool stream, OutputStream* sink, const SchemaRef& schema,
    const formats::WriteOptions& options) {
  IpcWriteOptions ipc_options;
  ipc_options.codec = options.codec;
  ipc_options.level = options.level;
  std::unique_ptr<IpcWriter> writer;
  if (stream) {
    QUIVER_ASSIGN_OR_RAISE(writer, IpcWriter::MakeStreamWriter(sink, schema, ipc_options));
  } else {
    QUIVER_ASSIGN_OR_RAISE(writer, IpcWriter::MakeFileWriter(sink, schema, ipc_options));
  }
  if (!options.stats_columns.empty()) {
    return std::unique_ptr<formats::TableWriter>(new StatsWriter(std::move(writer), options.stats_columns));
  }
  return std::unique_ptr<formats::TableWriter>(
      new formats::TableWriterOf<IpcWriter>(std::move(writer)));
}

}  // namespace quiver::ipc
