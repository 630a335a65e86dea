#include "tools/gen/chunked_writer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <filesystem>
#include <limits>
#include <memory>

#include "common/io.h"
#include "common/thread_pool.h"
#include "formats/file_format.h"
#include "tools/file_formats.h"

namespace quiver::gen {
namespace {

// Concatenates the NOT NULL generated columns of one type: fixed-width
// values are copied whole, utf8 offsets re-based. (The general Concatenate
// appends strings one by one, which made it the writer thread's bottleneck.)
Result<ArrayRef> ConcatenateColumn(const std::vector<ArrayRef>& parts) {
  const TypeRef& type = parts[0]->type;
  int64_t length = 0;
  for (const auto& p : parts) {
    if (p->null_count != 0) return Concatenate(parts);
    length += p->length;
  }
  if (type->id == TypeId::kString) {
    int64_t bytes = 0;
    for (const auto& p : parts) {
      const int32_t* offsets = p->GetValues<int32_t>(1);
      bytes += offsets[p->length] - offsets[0];
    }
    if (bytes > std::numeric_limits<int32_t>::max()) return Concatenate(parts);
    QUIVER_ASSIGN_OR_RAISE(auto offsets, MutableBuffer::Allocate((length + 1) * 4));
    QUIVER_ASSIGN_OR_RAISE(auto data, MutableBuffer::Allocate(bytes));
    auto* out_offsets = offsets->mutable_data_as<int32_t>();
    uint8_t* out_data = data->mutable_data();
    int32_t base = 0;
    int64_t row = 0;
    for (const auto& p : parts) {
      const int32_t* in = p->GetValues<int32_t>(1);
      for (int64_t i = 0; i < p->length; ++i) out_offsets[row++] = base + (in[i] - in[0]);
      const int32_t n = in[p->length] - in[0];
      if (n > 0)
        std::memcpy(out_data + base, p->buffers[2]->data() + in[0], static_cast<size_t>(n));
      base += n;
    }
    out_offsets[row] = base;
    offsets->ZeroPadding();
    data->ZeroPadding();
    return ArrayData::Make(type, length,
                           {nullptr, std::shared_ptr<Buffer>(std::move(offsets)),
                            std::shared_ptr<Buffer>(std::move(data))},
                           0);
  }
  const int width = type->byte_width_of_values();
  if (width <= 0 || type->id == TypeId::kBool) return Concatenate(parts);
  QUIVER_ASSIGN_OR_RAISE(auto values, MutableBuffer::Allocate(length * width));
  uint8_t* out = values->mutable_data();
  for (const auto& p : parts) {
    const int64_t n = p->length * width;
    std::memcpy(out, p->buffers[1]->data() + p->offset * width, static_cast<size_t>(n));
    out += n;
  }
  values->ZeroPadding();
  return ArrayData::Make(type, length, {nullptr, std::shared_ptr<Buffer>(std::move(values))}, 0);
}

// Writes one table: re-cuts chunk batches into batch_rows-row record batches
// and spreads them over the table's files.
class TableSink {
 public:
  TableSink(const GenOptions& options, const TableDef& def) : options_(options), def_(def) {}

  Status StartFile(int index) {
    namespace fs = std::filesystem;
    const char* ext = options_.format == OutputFormat::kArrow     ? "arrow"
                      : options_.format == OutputFormat::kParquet ? "parquet"
                                                                  : "csv";
    fs::path path = fs::path(options_.out_dir);
    if (options_.files_per_table > 1) {
      path /= def_.name;
      path /= fmt::format("part-{:03d}.{}", index, ext);
    } else {
      path /= fmt::format("{}.{}", def_.name, ext);
    }
    path_ = path.string();
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) {
      return Status::IOError("cannot create directory {}: {}", path.parent_path().string(),
                             ec.message());
    }
    QUIVER_ASSIGN_OR_RAISE(file_, AtomicFile::Create(path_));
    formats::WriteOptions write_options;  // CSV: ',', '"', a header, no NULLs to spell
    formats::FileFormat format = formats::FileFormat::kCsv;
    if (options_.format == OutputFormat::kArrow) {
      format = formats::FileFormat::kIpcFile;
    } else if (options_.format == OutputFormat::kParquet) {
      format = formats::FileFormat::kParquet;
      // Emit() hands the writer batch_rows rows at a time: one row group each.
      write_options.row_group_rows = options_.batch_rows;
    }
    if (options_.codec) {
      write_options.codec = *options_.codec;
      write_options.codec_chosen = true;
    }
    QUIVER_ASSIGN_OR_RAISE(writer_, formats::MakeTableWriter(format, path_, file_.get(),
                                                             def_.schema, write_options));
    ++files_;
    return Status::OK();
  }

  Status Add(RecordBatchRef chunk) {
    if (chunk->num_rows() == 0) return Status::OK();
    pending_rows_ += chunk->num_rows();
    pending_.push_back({std::move(chunk), 0});
    while (pending_rows_ >= options_.batch_rows) {
      QUIVER_RETURN_NOT_OK(Emit(options_.batch_rows));
    }
    return Status::OK();
  }

  Status FinishFile() {
    if (pending_rows_ > 0) QUIVER_RETURN_NOT_OK(Emit(pending_rows_));
    QUIVER_RETURN_NOT_OK(writer_->Close());
    writer_.reset();
    bytes_ += file_->Tell();
    QUIVER_RETURN_NOT_OK(file_->Commit());
    file_.reset();
    return Status::OK();
  }

  const std::string& path() const { return path_; }
  int64_t rows() const { return rows_; }
  int64_t bytes() const { return bytes_; }
  int files() const { return files_; }

 private:
  struct Pending {
    RecordBatchRef batch;
    int64_t offset;  // rows of it already written
  };

  // Writes the next `n` pending rows as one record batch.
  Status Emit(int64_t n) {
    std::vector<RecordBatchRef> pieces;
    for (int64_t need = n; need > 0;) {
      Pending& front = pending_.front();
      const int64_t avail = front.batch->num_rows() - front.offset;
      const int64_t take = std::min(need, avail);
      pieces.push_back(take == front.batch->num_rows() ? front.batch
                                                       : front.batch->Slice(front.offset, take));
      front.offset += take;
      need -= take;
      if (front.offset == front.batch->num_rows()) pending_.pop_front();
    }
    pending_rows_ -= n;
    rows_ += n;
    if (pieces.size() == 1) return writer_->Write(*pieces[0]);
    std::vector<ArrayRef> columns(def_.schema->num_fields());
    std::vector<ArrayRef> parts(pieces.size());
    for (size_t c = 0; c < columns.size(); ++c) {
      for (size_t p = 0; p < pieces.size(); ++p) parts[p] = pieces[p]->column(static_cast<int>(c));
      QUIVER_ASSIGN_OR_RAISE(columns[c], ConcatenateColumn(parts));
    }
    return writer_->Write(*RecordBatch::Make(def_.schema, n, std::move(columns)));
  }

  const GenOptions& options_;
  const TableDef& def_;
  std::unique_ptr<AtomicFile> file_;
  std::unique_ptr<formats::TableWriter> writer_;
  std::string path_;
  std::deque<Pending> pending_;
  int64_t pending_rows_ = 0;
  int64_t rows_ = 0;
  int64_t bytes_ = 0;
  int files_ = 0;
};

}  // namespace

int64_t ScaledRows(double base, double scale_factor, int64_t min_rows) {
  return std::max(min_rows, static_cast<int64_t>(std::llround(base * scale_factor)));
}

Status GenerateTables(const GenOptions& options, const std::vector<TableDef>& tables,
                      int64_t num_chunks, const ChunkGenerator& generate,
                      std::vector<TableReport>* reports) {
  const auto start = std::chrono::steady_clock::now();
  const int files = options.files_per_table;
  // File f of every table holds chunks [file_end(f-1), file_end(f)); when
  // there are fewer chunks than files, the first files get them.
  auto file_end = [&](int f) { return (num_chunks * (f + 1) + files - 1) / files; };

  std::vector<TableSink> sinks;
  sinks.reserve(tables.size());
  for (const auto& def : tables) sinks.emplace_back(options, def);
  int current_file = 0;
  for (auto& sink : sinks) QUIVER_RETURN_NOT_OK(sink.StartFile(current_file));

  const int64_t window = std::max(2, 2 * GlobalThreadPool()->num_threads());
  // Two windows in flight at most: the one being written and the next.
  std::vector<std::vector<RecordBatchRef>> slots(static_cast<size_t>(2 * window));
  auto launch = [&](int64_t begin, TaskGroup* group) {
    for (int64_t c = begin; c < std::min(begin + window, num_chunks); ++c) {
      group->Submit([&, c]() -> Status {
        QUIVER_ASSIGN_OR_RAISE(auto batches, generate(c));
        if (batches.size() != tables.size()) {
          return Status::Invalid("generator made {} tables, expected {}", batches.size(),
                                 tables.size());
        }
        slots[static_cast<size_t>(c % (2 * window))] = std::move(batches);
        return Status::OK();
      });
    }
  };
  auto current = std::make_unique<TaskGroup>();
  launch(0, current.get());
  for (int64_t begin = 0; begin < num_chunks; begin += window) {
    QUIVER_RETURN_NOT_OK(current->Wait());
    auto next = std::make_unique<TaskGroup>();
    if (begin + window < num_chunks) launch(begin + window, next.get());
    for (int64_t c = begin; c < std::min(begin + window, num_chunks); ++c) {
      while (c >= file_end(current_file)) {
        ++current_file;
        for (auto& sink : sinks) {
          QUIVER_RETURN_NOT_OK(sink.FinishFile());
          QUIVER_RETURN_NOT_OK(sink.StartFile(current_file));
        }
      }
      auto& batches = slots[static_cast<size_t>(c % (2 * window))];
      for (size_t t = 0; t < sinks.size(); ++t) {
        QUIVER_RETURN_NOT_OK(
            formats::WithPath(sinks[t].Add(std::move(batches[t])), sinks[t].path()));
      }
      batches.clear();
    }
    current = std::move(next);
  }
  // Finish the last file, and write empty ones where there were fewer chunks
  // than files.
  for (;;) {
    for (auto& sink : sinks) QUIVER_RETURN_NOT_OK(sink.FinishFile());
    if (++current_file >= files) break;
    for (auto& sink : sinks) QUIVER_RETURN_NOT_OK(sink.StartFile(current_file));
  }

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& sink : sinks) {
    TableReport report{tables[static_cast<size_t>(&sink - sinks.data())].name, sink.rows(),
                       sink.bytes(), sink.files(), seconds};
    if (!options.quiet) {
      const std::string where =
          files > 1 ? fmt::format("in {} files", files) : fmt::format("to {}", sink.path());
      std::fprintf(stderr, "%-10s %11lld rows %10s %6.2f s  %s\n", report.name.c_str(),
                   static_cast<long long>(report.rows), cli::HumanBytes(report.bytes).c_str(),
                   report.seconds, where.c_str());
    }
    reports->push_back(std::move(report));
  }
  return Status::OK();
}

}  // namespace quiver::gen
