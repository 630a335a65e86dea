#include "formats/parquet/parquet_source.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "common/thread_pool.h"
#include "formats/parquet/file_reader.h"
#include "formats/parquet/file_writer.h"
#include "formats/parquet/statistics.h"

namespace quiver::parquet {
namespace {

// One row group being read ahead. Whoever gets to it first runs it: a pool
// worker, or the consumer when no worker has started it yet (so waiting on
// it never waits on a queued task).
struct RowGroupJob {
  int row_group = 0;
  std::vector<int> fields;
  std::shared_ptr<const ParquetFileReader> reader;
  std::atomic<bool> claimed{false};
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;  // GUARDED_BY(mu)
  Result<RecordBatchRef> result = Status::UnknownError("not read");

  void RunIfUnclaimed() {
    if (claimed.exchange(true)) return;
    Result<RecordBatchRef> r = reader->ReadRowGroup(row_group, fields);
    std::lock_guard<std::mutex> lock(mu);
    result = std::move(r);
    done = true;
    cv.notify_all();
  }
  Result<RecordBatchRef> Get() {
    RunIfUnclaimed();
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return done; });
    return std::move(result);
  }
};

class RowGroupStream final : public RecordBatchReader {
 public:
  RowGroupStream(std::shared_ptr<const ParquetFileReader> reader, std::vector<int> fields,
                 SchemaRef schema, std::shared_ptr<std::atomic<int64_t>> bytes_read)
      : reader_(std::move(reader)),
        fields_(std::move(fields)),
        schema_(std::move(schema)),
        bytes_read_(std::move(bytes_read)),
        window_(std::max(1, std::min(GlobalThreadPool()->num_threads(), 4))) {}
  ~RowGroupStream() override {
    // Jobs keep what they need alive; claiming the unstarted ones stops them.
    for (auto& job : jobs_) job->claimed.exchange(true);
  }

  SchemaRef schema() const override { return schema_; }
  Status ReadNext(RecordBatchRef* out) override {
    while (static_cast<int>(jobs_.size()) < window_ && next_ < reader_->num_row_groups()) {
      auto job = std::make_shared<RowGroupJob>();
      job->row_group = next_++;
      job->fields = fields_;
      job->reader = reader_;
      jobs_.push_back(job);
      if (window_ > 1) GlobalThreadPool()->Submit([job] { job->RunIfUnclaimed(); });
    }
    if (jobs_.empty()) {
      *out = nullptr;
      return Status::OK();
    }
    std::shared_ptr<RowGroupJob> job = std::move(jobs_.front());
    jobs_.pop_front();
    QUIVER_ASSIGN_OR_RAISE(*out, job->Get());
    bytes_read_->fetch_add(reader_->row_group_bytes(job->row_group, fields_));
    return Status::OK();
  }

 private:
  std::shared_ptr<const ParquetFileReader> reader_;
  std::vector<int> fields_;
  SchemaRef schema_;
  std::shared_ptr<std::atomic<int64_t>> bytes_read_;
  int window_;
  int next_ = 0;
  std::deque<std::shared_ptr<RowGroupJob>> jobs_;
};

class ParquetSource final : public formats::FileReader {
 public:
  ParquetSource(const std::string& path, std::shared_ptr<ParquetFileReader> reader)
      : FileReader(path, formats::FileFormat::kParquet), reader_(std::move(reader)) {}

  SchemaRef schema() const override { return reader_->schema(); }
  int num_units() const override { return reader_->num_row_groups(); }
  int64_t num_rows() const override { return reader_->num_rows(); }
  int64_t unit_rows(int unit) const override {
    return unit >= 0 && unit < num_units() ? reader_->row_group_rows(unit) : -1;
  }
  formats::ColumnStatistics unit_statistics(int unit, int column) const override {
    const FieldStatistics s = RowGroupFieldStatistics(*reader_, unit, column);
    formats::ColumnStatistics out;
    out.min = s.min;
    out.max = s.max;
    out.null_count = s.null_count;
    return out;
  }
  std::vector<formats::SliceStatistics> unit_slices(int unit, int column) const override {
    std::vector<formats::SliceStatistics> out;
    for (PageStatistics& p : PageFieldStatistics(*reader_, unit, column)) {
      formats::SliceStatistics s;
      s.first_row = p.first_row;
      s.rows = p.rows;
      s.stats.min = std::move(p.min);
      s.stats.max = std::move(p.max);
      s.stats.null_count = p.null_count;
      out.push_back(std::move(s));
    }
    return out;
  }
  Result<RecordBatchRef> ReadUnitRows(int unit, const std::vector<int>& columns,
                                      const std::vector<formats::RowRange>& ranges) override {
    std::vector<RowRange> rows;
    for (const formats::RowRange& r : ranges) rows.push_back({r.begin, r.end});
    QUIVER_ASSIGN_OR_RAISE(auto batch, reader_->ReadRowGroupRows(unit, columns, rows));
    bytes_read_->fetch_add(reader_->row_group_bytes(unit, columns));
    return batch;
  }
  Result<RecordBatchRef> ReadUnit(int unit, const std::vector<int>& columns) override {
    QUIVER_ASSIGN_OR_RAISE(auto batch, reader_->ReadRowGroup(unit, columns));
    bytes_read_->fetch_add(reader_->row_group_bytes(unit, columns));
    return batch;
  }
  Result<std::unique_ptr<RecordBatchReader>> ReadSequential(
      const std::vector<int>& columns) override {
    SchemaRef schema = reader_->schema();
    if (!columns.empty()) {
      QUIVER_RETURN_NOT_OK(formats::CheckColumns(columns, *schema, path()));
      schema = formats::ProjectSchema(schema, columns);
    }
    return std::unique_ptr<RecordBatchReader>(
        new RowGroupStream(reader_, columns, std::move(schema), bytes_read_));
  }
  int64_t bytes_read() const override { return bytes_read_->load(); }
  int64_t total_bytes() const override { return reader_->file_size(); }

 private:
  std::shared_ptr<ParquetFileReader> reader_;
  std::shared_ptr<std::atomic<int64_t>> bytes_read_ = std::make_shared<std::atomic<int64_t>>(0);
};

}  // namespace

Result<std::shared_ptr<formats::FileReader>> OpenParquetSource(
    const std::string& path, std::shared_ptr<Buffer> data, const formats::ReadOptions& options) {
  ParquetReadOptions o;
  o.validate_full = options.validate_full;
  o.pool = options.pool;
  std::shared_ptr<ParquetFileReader> reader;
  if (data) {
    QUIVER_ASSIGN_OR_RAISE(reader, ParquetFileReader::Open(std::move(data), path, o));
  } else {
    QUIVER_ASSIGN_OR_RAISE(reader, ParquetFileReader::Open(path, o));
  }
  return std::shared_ptr<formats::FileReader>(new ParquetSource(path, std::move(reader)));
}

Result<std::unique_ptr<formats::TableWriter>> MakeParquetTableWriter(
    const std::string& path, OutputStream* sink, const SchemaRef& schema,
    const formats::WriteOptions& options) {
  ParquetWriteOptions o;
  if (options.codec_chosen) {
    o.codec = options.codec;
    o.compression_level = options.level;
  }
  if (o.codec == compression::Codec::kLz4Frame) o.codec = compression::Codec::kLz4Raw;
  if (options.row_group_rows > 0) o.row_group_rows = options.row_group_rows;
  o.data_page_version = options.data_page_version;
  o.dictionary = options.dictionary;
  QUIVER_ASSIGN_OR_RAISE(auto writer, ParquetFileWriter::Make(sink, schema, o));
  return std::unique_ptr<formats::TableWriter>(
      new formats::TableWriterOf<ParquetFileWriter>(std::move(writer)));
}

}  // namespace quiver::parquet
