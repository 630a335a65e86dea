// CsvReader: orchestration of the CSV stages (see reader.h, chunker.h).
//
//   Open: map/decompress -> strip BOM -> skip rows -> header -> parse the
//         first blocks serially (verified) -> infer types -> schema
//   ReadNext: keep a window of speculative blocks in flight on the pool
//         (parse + convert each), take them in order, verify each starts
//         where the previous one ended (else re-parse it here), turn errors
//         into "file: line N[, column 'x']: ..." and hand out batches.
//
// Memory stays bounded by the window (2 blocks per thread) plus the input
// itself (mapped, or decompressed in memory).
#include "formats/csv/reader.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "common/io.h"
#include "common/thread_pool.h"
#include "formats/compression/codec.h"
#include "formats/csv/chunker.h"
#include "formats/csv/converter.h"
#include "formats/csv/inference.h"
#include "formats/csv/parser.h"

namespace quiver::csv {

using internal::BlockError;
using internal::BlockParser;
using internal::ColumnSpec;
using internal::ConvertContext;
using internal::ParsedBlock;

namespace {

// One block in flight.
struct Block {
  int64_t start = 0;
  int64_t limit = 0;
  bool verified = false;  // parsed serially from a known row start
  ParsedBlock parsed;
  std::vector<ArrayRef> columns;
  Status convert_status;
  BlockError convert_error;
  bool done = false;  // GUARDED_BY(Impl::mu_)
};

}  // namespace

class CsvReader::Impl {
 public:
  Impl(std::shared_ptr<Buffer> data, std::string name, const ReadOptions& ro,
       const ParseOptions& po, const ConvertOptions& co)
      : data_(std::move(data)),
        bytes_(reinterpret_cast<const char*>(data_->data())),
        size_(data_->size()),
        name_(std::move(name)),
        read_options_(ro),
        convert_options_(co),
        parser_(po),
        chunker_(bytes_, size_, ro.block_size) {
    ctx_.parse_options = po;
    ctx_.nulls = internal::TextMatcher(co.null_values);
    ctx_.quoted_nulls = co.quoted_strings_can_be_null;
    ctx_.trues = internal::TextMatcher(co.true_values);
    ctx_.falses = internal::TextMatcher(co.false_values);
    ctx_.pool = ro.pool != nullptr ? ro.pool : DefaultMemoryPool();
  }

  ~Impl() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return in_flight_ == 0; });
  }

  Status Init();
  SchemaRef schema() const { return schema_; }
  Status ReadNext(RecordBatchRef* out);
  int64_t bytes_processed() const { return bytes_processed_.load(std::memory_order_relaxed); }
  int64_t total_bytes() const { return size_; }

 private:
  Status ParseOneRow(int num_cols, ParsedBlock* row);
  Status Located(int64_t line, const std::string& message) const {
    return Status::Invalid("{}: line {}: {}", name_, line, message);
  }
  std::string RowText(const ParsedBlock& block, int col) const;
  void FillWindow();
  void RunBlock(Block* block) const;
  Status TakeBlock(std::vector<ArrayRef>* columns, int64_t* rows);
  Status NextBlockBatch(RecordBatchRef* out);

  std::shared_ptr<Buffer> data_;
  const char* bytes_;
  int64_t size_;
  std::string name_;
  ReadOptions read_options_;
  ConvertOptions convert_options_;
  BlockParser parser_;
  ConvertContext ctx_;
  internal::Chunker chunker_;
  std::vector<ColumnSpec> specs_;
  std::vector<bool> inferred_;
  SchemaRef schema_;
  int num_cols_ = 0;
  int64_t inference_rows_seen_ = 0;

  int64_t position_ = 0;  // where the next real block starts
  int64_t next_line_ = 1;  // physical line number at position_
  std::atomic<int64_t> bytes_processed_{0};
  std::deque<std::shared_ptr<Block>> verified_;  // parsed during Init
  std::deque<std::shared_ptr<Block>> window_;
  int max_window_ = 1;
  Status error_;  // sticky

  std::deque<RecordBatchRef> pending_;  // batches not yet handed out (batch_rows)
  int64_t pending_rows_ = 0;
  bool input_done_ = false;

  std::mutex mu_;
  std::condition_variable cv_;
  int64_t in_flight_ = 0;  // GUARDED_BY(mu_)
};

Status CsvReader::Impl::ParseOneRow(int num_cols, ParsedBlock* row) {
  parser_.Parse(bytes_, size_, position_, size_, size_, num_cols, 1, row);
  if (row->has_error) return Located(next_line_ + row->error.line_offset, row->error.message);
  position_ = row->end;
  next_line_ += row->lines;
  return Status::OK();
}

std::string CsvReader::Impl::RowText(const ParsedBlock& block, int col) const {
  const internal::FieldSpan& f = block.field(0, col);
  std::string text;
  if (f.needs_unescape()) {
    internal::UnescapeField(block.FieldText(f), parser_.options(), &text);
  } else {
    text.assign(block.FieldText(f));
  }
  return text;
}

Status CsvReader::Impl::Init() {
  const ParseOptions& po = parser_.options();
  if (po.delimiter == '\n' || po.delimiter == '\r' || (po.quoting && po.quote == po.delimiter) ||
      (po.escape != 0 && (po.escape == po.delimiter || (po.quoting && po.escape == po.quote)))) {
    return Status::Invalid("{}: delimiter, quote and escape characters must differ", name_);
  }
  if (read_options_.block_size <= 0 || read_options_.batch_rows < 0 ||
      read_options_.skip_rows < 0) {
    return Status::Invalid("{}: block_size must be > 0, batch_rows and skip_rows >= 0", name_);
  }
  position_ = internal::BomLength(bytes_, size_);

  ParsedBlock row;
  for (int64_t i = 0; i < read_options_.skip_rows && position_ < size_; ++i) {
    QUIVER_RETURN_NOT_OK(ParseOneRow(-1, &row));
  }

  std::vector<std::string> names = read_options_.column_names;
  if (read_options_.header) {
    QUIVER_RETURN_NOT_OK(ParseOneRow(-1, &row));
    if (names.empty()) {
      for (int c = 0; c < row.num_cols && row.num_rows > 0; ++c) names.push_back(RowText(row, c));
    }
  } else if (names.empty()) {
    // Peek at the first row for the column count; it stays data.
    parser_.Parse(bytes_, size_, position_, size_, size_, -1, 1, &row);
    for (int c = 0; row.num_rows > 0 && c < row.num_cols; ++c) names.push_back(fmt::format("f{}", c));
  }
  num_cols_ = static_cast<int>(names.size());

  // Parse whole blocks serially until the inference sample is large enough.
  // These blocks are verified (known start) and are converted later.
  chunker_.Reset(position_);
  int64_t line = next_line_;
  while (num_cols_ > 0 && !chunker_.done() && inference_rows_seen_ < std::max<int64_t>(
                                                     convert_options_.inference_rows, 1)) {
    auto block = std::make_shared<Block>();
    chunker_.Next(&block->start, &block->limit);
    block->verified = true;
    parser_.Parse(bytes_, size_, block->start, block->limit, size_, num_cols_, -1, &block->parsed);
    if (block->parsed.has_error) {
      return Located(line + block->parsed.error.line_offset, block->parsed.error.message);
    }
    chunker_.Reset(block->parsed.end);
    line += block->parsed.lines;
    inference_rows_seen_ += block->parsed.num_rows;
    verified_.push_back(std::move(block));
  }

  // Column types: explicit ones first, inference for the rest.
  for (const auto& [name, type] : convert_options_.column_types) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      return Status::Invalid("{}: column_types names column '{}', which the file does not have",
                             name_, name);
    }
    Status st = internal::CheckConvertible(type);
    if (!st.ok()) return st.WithContext(fmt::format("{}: column '{}'", name_, name));
  }
  std::vector<const ParsedBlock*> sample;
  for (const auto& b : verified_) sample.push_back(&b->parsed);
  std::vector<FieldRef> fields;
  for (int c = 0; c < num_cols_; ++c) {
    ColumnSpec spec;
    spec.name = names[c];
    bool explicit_type = false;
    for (const auto& [name, type] : convert_options_.column_types) {
      if (name == names[c]) {
        spec.type = type;
        explicit_type = true;
      }
    }
    const bool strings_nullable = convert_options_.strings_can_be_null;
    spec.null_texts_are_null = strings_nullable;
    if (!explicit_type) {
      internal::InferredType inferred = internal::InferColumnType(sample, c, ctx_);
      spec.type = inferred.type;
      if (inferred.all_null) spec.null_texts_are_null = true;
    }
    const TypeId id = spec.type->id;
    if (id != TypeId::kString && id != TypeId::kLargeString && id != TypeId::kBinary &&
        id != TypeId::kLargeBinary) {
      spec.null_texts_are_null = true;
    }
    internal::PrepareColumnSpec(ctx_, &spec);
    fields.push_back(quiver::field(spec.name, spec.type));
    inferred_.push_back(!explicit_type);
    specs_.push_back(std::move(spec));
  }
  schema_ = quiver::schema(std::move(fields));

  if (read_options_.use_threads) {
    max_window_ = std::max(2, 2 * GlobalThreadPool()->num_threads());
  }
  bytes_processed_.store(position_, std::memory_order_relaxed);
  return Status::OK();
}

// Parses (unless already parsed) and converts one block. Runs on the pool.
void CsvReader::Impl::RunBlock(Block* block) const {
  if (!block->verified) {
    // Give up on a speculative block whose last row runs a whole block past
    // its limit: it probably started inside a quoted value.
    const int64_t slack = std::max<int64_t>(read_options_.block_size, 1 << 20);
    parser_.Parse(bytes_, size_, block->start, block->limit, block->limit + slack, num_cols_, -1,
                  &block->parsed);
  }
  if (block->parsed.has_error || block->parsed.aborted) return;
  block->columns.resize(num_cols_);
  for (int c = 0; c < num_cols_; ++c) {
    block->convert_status = internal::ConvertColumn(block->parsed, c, specs_[c], ctx_,
                                                    &block->columns[c], &block->convert_error);
    if (!block->convert_status.ok()) return;
  }
}

void CsvReader::Impl::FillWindow() {
  while (static_cast<int>(window_.size()) < max_window_ && (!verified_.empty() || !chunker_.done())) {
    std::shared_ptr<Block> block;
    if (!verified_.empty()) {
      block = std::move(verified_.front());
      verified_.pop_front();
    } else {
      block = std::make_shared<Block>();
      chunker_.Next(&block->start, &block->limit);
    }
    window_.push_back(block);
    if (!read_options_.use_threads) {
      RunBlock(block.get());
      block->done = true;
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++in_flight_;
    }
    GlobalThreadPool()->Submit([this, block] {
      RunBlock(block.get());
      std::lock_guard<std::mutex> lock(mu_);
      block->done = true;
      --in_flight_;
      cv_.notify_all();
    });
  }
}

Status CsvReader::Impl::TakeBlock(std::vector<ArrayRef>* columns, int64_t* rows) {
  std::shared_ptr<Block> block = std::move(window_.front());
  window_.pop_front();
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return block->done; });
  }
  if (block->start != position_ || block->parsed.aborted) {
    // Mis-speculated: the previous block ended elsewhere. Parse for real.
    block->start = position_;
    block->verified = true;
    block->columns.clear();
    block->convert_status = Status::OK();
    parser_.Parse(bytes_, size_, position_, block->limit, size_, num_cols_, -1, &block->parsed);
    RunBlock(block.get());
  }
  const ParsedBlock& parsed = block->parsed;
  if (parsed.has_error) return Located(next_line_ + parsed.error.line_offset, parsed.error.message);
  if (!block->convert_status.ok()) {
    const BlockError& e = block->convert_error;
    std::string hint;
    if (inferred_[e.column]) {
      hint = fmt::format(" (type inferred from the first {} rows; declare the column type to "
                         "override)", inference_rows_seen_);
    }
    Status st = Status::Invalid("{}: line {}, column '{}': {}{}", name_, next_line_ + e.line_offset,
                                specs_[e.column].name, e.message, hint);
    // A value that is not of its column's type: PostgreSQL's COPY says 22P02.
    if (e.message.rfind("cannot parse", 0) == 0) {
      st = std::move(st).WithSqlState(sqlstate::kInvalidTextRepresentation);
    }
    return st;
  }
  position_ = parsed.end;
  next_line_ += parsed.lines;
  bytes_processed_.store(position_, std::memory_order_relaxed);
  *columns = std::move(block->columns);
  *rows = parsed.num_rows;
  return Status::OK();
}

// The next non-empty block as one batch, or nullptr at the end.
Status CsvReader::Impl::NextBlockBatch(RecordBatchRef* out) {
  *out = nullptr;
  while (num_cols_ > 0) {
    FillWindow();
    if (window_.empty()) break;
    std::vector<ArrayRef> columns;
    int64_t rows = 0;
    QUIVER_RETURN_NOT_OK(TakeBlock(&columns, &rows));
    if (rows > 0) {
      *out = RecordBatch::Make(schema_, rows, std::move(columns));
      return Status::OK();
    }
  }
  return Status::OK();
}

Status CsvReader::Impl::ReadNext(RecordBatchRef* out) {
  *out = nullptr;
  if (!error_.ok()) return error_;
  const int64_t want = read_options_.batch_rows;
  if (want == 0) {
    error_ = NextBlockBatch(out);
    return error_;
  }
  // Gather whole blocks until `want` rows are pending (or the input ends).
  while (!input_done_ && pending_rows_ < want) {
    RecordBatchRef batch;
    error_ = NextBlockBatch(&batch);
    if (!error_.ok()) return error_;
    if (batch == nullptr) {
      input_done_ = true;
      break;
    }
    pending_rows_ += batch->num_rows();
    pending_.push_back(std::move(batch));
  }
  if (pending_.empty()) return Status::OK();
  const int64_t take = std::min(want, pending_rows_);
  if (pending_.front()->num_rows() >= take) {
    RecordBatchRef front = pending_.front();
    *out = front->num_rows() == take ? front : front->Slice(0, take);
    if (front->num_rows() == take) {
      pending_.pop_front();
    } else {
      pending_.front() = front->Slice(take, front->num_rows() - take);
    }
  } else {
    // Concatenate slices of several blocks (copies; only for small blocks).
    std::vector<std::vector<ArrayRef>> parts(num_cols_);
    int64_t got = 0;
    while (got < take) {
      RecordBatchRef front = pending_.front();
      const int64_t n = std::min(take - got, front->num_rows());
      RecordBatchRef piece = n == front->num_rows() ? front : front->Slice(0, n);
      for (int c = 0; c < num_cols_; ++c) parts[c].push_back(piece->column(c));
      if (n == front->num_rows()) {
        pending_.pop_front();
      } else {
        pending_.front() = front->Slice(n, front->num_rows() - n);
      }
      got += n;
    }
    std::vector<ArrayRef> columns(num_cols_);
    for (int c = 0; c < num_cols_; ++c) {
      auto concatenated = Concatenate(parts[c], ctx_.pool);
      if (!concatenated.ok()) return error_ = concatenated.status();
      columns[c] = std::move(concatenated).ValueOrDie();
    }
    *out = RecordBatch::Make(schema_, take, std::move(columns));
  }
  pending_rows_ -= take;
  return Status::OK();
}

// --- CsvReader ---------------------------------------------------------------

CsvReader::CsvReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CsvReader::~CsvReader() = default;

Result<std::unique_ptr<CsvReader>> CsvReader::Open(const std::string& path,
                                                   const ReadOptions& read_options,
                                                   const ParseOptions& parse_options,
                                                   const ConvertOptions& convert_options) {
  std::shared_ptr<Buffer> data;
  if (path == "-") {
    QUIVER_ASSIGN_OR_RAISE(data, ReadFileFully(path));
  } else {
    QUIVER_ASSIGN_OR_RAISE(data, MapFile(path));
  }
  return Make(std::move(data), path, read_options, parse_options, convert_options);
}

Result<std::unique_ptr<CsvReader>> CsvReader::Make(std::shared_ptr<Buffer> data, std::string name,
                                                   const ReadOptions& read_options,
                                                   const ParseOptions& parse_options,
                                                   const ConvertOptions& convert_options) {
  if (data == nullptr) return Status::Invalid("{}: no input buffer", name);
  const compression::Codec codec = compression::DetectCodec(data->data(), data->size());
  if (codec != compression::Codec::kNone) {
    auto decompressed = compression::DecompressAll(codec, data->data(), data->size(),
                                                   int64_t{1} << 40, read_options.pool);
    if (!decompressed.ok()) {
      return decompressed.status().WithContext(
          fmt::format("{}: {} input", name, compression::CodecName(codec)));
    }
    data = std::move(decompressed).ValueOrDie();
  }
  auto impl = std::make_unique<Impl>(std::move(data), std::move(name), read_options,
                                     parse_options, convert_options);
  QUIVER_RETURN_NOT_OK(impl->Init());
  return std::unique_ptr<CsvReader>(new CsvReader(std::move(impl)));
}

SchemaRef CsvReader::schema() const { return impl_->schema(); }
Status CsvReader::ReadNext(RecordBatchRef* out) { return impl_->ReadNext(out); }
int64_t CsvReader::bytes_processed() const { return impl_->bytes_processed(); }
int64_t CsvReader::total_bytes() const { return impl_->total_bytes(); }

Result<std::vector<RecordBatchRef>> ReadAll(CsvReader* reader) {
  std::vector<RecordBatchRef> batches;
  for (;;) {
    RecordBatchRef batch;
    QUIVER_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (batch == nullptr) break;
    batches.push_back(std::move(batch));
  }
  return batches;
}

}  // namespace quiver::csv
