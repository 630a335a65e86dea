// IpcFileReader, IpcStreamReader and format sniffing (layouts in reader.h).
#include "formats/ipc/reader.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <utility>

#include "common/io.h"
#include "formats/ipc/array_loader_internal.h"
#include "formats/ipc/message_internal.h"

namespace quiver::ipc {

using internal::DecodedMessage;
using internal::DictionaryMemo;
namespace fb = internal::fb;

namespace {

Result<std::shared_ptr<Buffer>> ReadInput(const std::string& path, const IpcReadOptions& options) {
  if (path != "-" && options.use_mmap) {
    auto mapped = MapFile(path);
    if (mapped.ok()) return mapped;
  }
  return ReadFileFully(path);
}

// Keeps only the included top-level fields (in the given order).
class Projection {
 public:
  Status Init(const SchemaRef& full, const std::vector<int>& included) {
    if (included.empty()) {
      schema_ = full;
      return Status::OK();
    }
    auto s = std::make_shared<Schema>();
    s->metadata = full->metadata;
    for (int i : included) {
      if (i < 0 || i >= full->num_fields()) {
        return Status::IndexError("included field {} out of range (schema has {} fields)", i,
                                  full->num_fields());
      }
      s->fields.push_back(full->fields[i]);
    }
    indices_ = included;
    needed_.assign(full->fields.size(), false);
    for (int i : included) needed_[i] = true;
    schema_ = s;
    return Status::OK();
  }
  const SchemaRef& schema() const { return schema_; }
  // Which top-level columns of the full schema must be loaded; null = all.
  const std::vector<bool>* needed() const { return indices_.empty() ? nullptr : &needed_; }
  RecordBatchRef Apply(RecordBatchRef batch) const {
    if (indices_.empty()) return batch;
    std::vector<ArrayRef> cols;
    for (int i : indices_) cols.push_back(batch->column(i));
    return RecordBatch::Make(schema_, batch->num_rows(), std::move(cols));
  }

 private:
  SchemaRef schema_;
  std::vector<int> indices_;
  std::vector<bool> needed_;
};

Status AtOffset(const Status& st, const std::string& name, int64_t offset) {
  return st.WithContext(fmt::format("{}: message at byte {}", name, offset));
}

}  // namespace

bool LooksLikeIpcFile(const uint8_t* data, int64_t size) {
  return size >= 6 && std::memcmp(data, internal::kFileMagic, 6) == 0;
}

bool LooksLikeIpcStream(const uint8_t* data, int64_t size) {
  if (size < 8) return false;
  uint32_t first;
  int32_t second;
  std::memcpy(&first, data, 4);
  std::memcpy(&second, data + 4, 4);
  if (first == internal::kContinuation) return second > 0 && second <= size - 8;
  // Pre-0.15 streams start directly with the metadata length; the flatbuffer
  // after it starts with the offset of its root table, inside the metadata.
  const int32_t len = static_cast<int32_t>(first);
  return len > 0 && len <= size - 4 && second > 0 && second < len;
}

// ---------------------------------------------------------------------------
// Stream reader

struct IpcStreamReader::Impl {
  std::string name;
  std::shared_ptr<Buffer> data;
  IpcReadOptions options;
  internal::LoadOptions load;
  int64_t pos = 0;
  bool done = false;
  SchemaRef full_schema;
  Projection projection;
  DictionaryMemo memo;
  int64_t batches = 0;

  Result<std::optional<DecodedMessage>> Next() {
    auto msg = internal::ReadMessageAt(data, pos, options.pool);
    if (!msg.ok()) return AtOffset(msg.status(), name, pos);
    if (!msg->has_value()) {
      done = true;
      return msg;
    }
    QUIVER_RETURN_NOT_OK(
        AtOffset(internal::CheckMetadataVersion((*msg)->message->version()), name, pos));
    pos = (*msg)->end;
    return msg;
  }

  Status Init() {
    QUIVER_ASSIGN_OR_RAISE(auto msg, Next());
    if (!msg.has_value()) return Status::Invalid("{}: empty Arrow IPC stream (no schema)", name);
    const fb::Schema* s = msg->message->header_as_Schema();
    if (s == nullptr) {
      return Status::Invalid("{}: message at byte {}: expected a Schema message first", name,
                             msg->offset);
    }
    auto schema = internal::SchemaFromFlatbuffer(s, &memo.types, &load.swap_endian);
    if (!schema.ok()) return AtOffset(schema.status(), name, msg->offset);
    full_schema = *schema;
    load.version = msg->message->version();
    load.pool = options.pool;
    load.validate_full = options.validate;
    return projection.Init(full_schema, options.included_fields).WithContext(name);
  }

  Status ReadNext(RecordBatchRef* out) {
    *out = nullptr;
    while (!done) {
      QUIVER_ASSIGN_OR_RAISE(auto msg, Next());
      if (!msg.has_value()) break;
      load.version = msg->message->version();
      switch (msg->message->header_type()) {
        case fb::MessageHeader::DictionaryBatch: {
          Status st = internal::LoadDictionaryBatch(msg->message->header_as_DictionaryBatch(),
                                                    msg->body, &memo, load, true);
          if (!st.ok()) return AtOffset(st, name, msg->offset);
          break;
        }
        case fb::MessageHeader::RecordBatch: {
          auto batch = internal::LoadRecordBatch(msg->message->header_as_RecordBatch(), full_schema,
                                                 msg->body, memo, load, projection.needed());
          if (!batch.ok()) return AtOffset(batch.status(), name, msg->offset);
          ++batches;
          *out = projection.Apply(std::move(batch).ValueOrDie());
          return Status::OK();
        }
        case fb::MessageHeader::Schema:
          return AtOffset(Status::Invalid("second Schema message in stream"), name, msg->offset);
        case fb::MessageHeader::Tensor:
        case fb::MessageHeader::SparseTensor:
          return AtOffset(Status::Unsupported("tensor messages"), name, msg->offset);
        default:
          return AtOffset(Status::Invalid("unknown message type {}",
                                          static_cast<int>(msg->message->header_type())),
                          name, msg->offset);
      }
    }
    return Status::OK();
  }
};

IpcStreamReader::IpcStreamReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
IpcStreamReader::~IpcStreamReader() = default;

Result<std::unique_ptr<IpcStreamReader>> IpcStreamReader::Open(const std::string& path,
                                                               const IpcReadOptions& options) {
  QUIVER_ASSIGN_OR_RAISE(auto data, ReadInput(path, options));
  return Open(std::move(data), options, path == "-" ? "<stdin>" : path);
}

Result<std::unique_ptr<IpcStreamReader>> IpcStreamReader::Open(std::shared_ptr<Buffer> stream,
                                                               const IpcReadOptions& options,
                                                               std::string name) {
  auto impl = std::make_unique<Impl>();
  impl->name = std::move(name);
  impl->data = std::move(stream);
  impl->options = options;
  QUIVER_RETURN_NOT_OK(impl->Init());
  return std::unique_ptr<IpcStreamReader>(new IpcStreamReader(std::move(impl)));
}

SchemaRef IpcStreamReader::schema() const { return impl_->projection.schema(); }
Status IpcStreamReader::ReadNext(RecordBatchRef* out) { return impl_->ReadNext(out); }
int64_t IpcStreamReader::num_record_batches_read() const { return impl_->batches; }
int64_t IpcStreamReader::bytes_read() const { return impl_->pos; }
int64_t IpcStreamReader::total_bytes() const { return impl_->data->size(); }
const std::string& IpcStreamReader::name() const { return impl_->name; }

// ---------------------------------------------------------------------------
// File reader

struct IpcFileReader::Impl {
  struct Block {
    int64_t offset;
    int64_t metadata_length;
    int64_t body_length;
  };

  std::string name;
  std::shared_ptr<Buffer> data;
  IpcReadOptions options;
  internal::LoadOptions load;
  std::shared_ptr<Buffer> footer_bytes;
  SchemaRef full_schema;
  Projection projection;
  DictionaryMemo memo;
  std::vector<Block> dictionaries;
  std::vector<Block> batches;
  int version = 5;
  std::atomic<int64_t> bytes_read{0};

  // Reads the message of `block`, which must lie before the footer.
  Result<DecodedMessage> ReadBlock(const Block& block, int64_t footer_start,
                                   fb::MessageHeader expected) {
    if (block.offset < 0 || block.metadata_length < 0 || block.body_length < 0 ||
        block.offset > footer_start || block.metadata_length > footer_start - block.offset ||
        block.body_length > footer_start - block.offset - block.metadata_length) {
      return Status::Invalid("{}: block at byte {} (+{} +{}) outside the file", name, block.offset,
                             block.metadata_length, block.body_length);
    }
    auto msg = internal::ReadMessageAt(data, block.offset, options.pool);
    if (!msg.ok()) return AtOffset(msg.status(), name, block.offset);
    if (!msg->has_value()) {
      return AtOffset(Status::Invalid("end-of-stream marker where a block was expected"), name,
                      block.offset);
    }
    DecodedMessage m = std::move(**msg);
    QUIVER_RETURN_NOT_OK(
        AtOffset(internal::CheckMetadataVersion(m.message->version()), name, block.offset));
    if (m.message->header_type() != expected) {
      return AtOffset(
          Status::Invalid("unexpected message type {}", static_cast<int>(m.message->header_type())),
          name, block.offset);
    }
    bytes_read += m.end - m.offset;
    return m;
  }

  int64_t FooterStart() const {
    return footer_bytes ? data->size() - 10 - footer_bytes->size() : 0;
  }

  Status Init() {
    const int64_t size = data->size();
    const uint8_t* p = data->data();
    if (size < internal::kFileMagicPadded + 4 + 6 || !LooksLikeIpcFile(p, size) ||
        std::memcmp(p + size - 6, internal::kFileMagic, 6) != 0) {
      return Status::Invalid("{}: not an Arrow IPC file (missing ARROW1 magic)", name);
    }
    int32_t footer_len;
    std::memcpy(&footer_len, p + size - 10, 4);
    if (footer_len <= 0 || footer_len > size - 10 - internal::kFileMagicPadded) {
      return Status::Invalid("{}: footer length {} invalid for a {}-byte file", name, footer_len,
                             size);
    }
    const int64_t footer_start = size - 10 - footer_len;
    auto footer = internal::VerifyFooter(p + footer_start, footer_len, options.pool, &footer_bytes);
    if (!footer.ok()) return AtOffset(footer.status(), name, footer_start);
    const fb::Footer* f = *footer;
    // Arrow 0.14 wrote footers without a version (V1) around V4 messages, so
    // only message versions are checked; the footer's is informational.
    if (f->version() > fb::MetadataVersion::V5) {
      QUIVER_RETURN_NOT_OK(
          AtOffset(internal::CheckMetadataVersion(f->version()), name, footer_start));
    }
    version = std::max(static_cast<int>(f->version()) + 1, 4);
    auto schema = internal::SchemaFromFlatbuffer(f->schema(), &memo.types, &load.swap_endian);
    if (!schema.ok()) return AtOffset(schema.status(), name, footer_start);
    full_schema = *schema;
    auto copy_blocks = [](const flatbuffers::Vector<const fb::Block*>* in,
                          std::vector<Block>* out) {
      if (in == nullptr) return;
      for (size_t i = 0; i < in->size(); ++i) {
        const fb::Block b = internal::LoadElement(in, i);
        out->push_back({b.offset(), b.meta_data_length(), b.body_length()});
      }
    };
    copy_blocks(f->dictionaries(), &dictionaries);
    copy_blocks(f->record_batches(), &batches);
    load.version = f->version();
    load.pool = options.pool;
    load.validate_full = options.validate;
    QUIVER_RETURN_NOT_OK(projection.Init(full_schema, options.included_fields).WithContext(name));
    // Dictionaries apply to every batch in a file, so read them all up front.
    for (const Block& b : dictionaries) {
      QUIVER_ASSIGN_OR_RAISE(auto m,
                             ReadBlock(b, footer_start, fb::MessageHeader::DictionaryBatch));
      load.version = m.message->version();
      QUIVER_RETURN_NOT_OK(
          AtOffset(internal::LoadDictionaryBatch(m.message->header_as_DictionaryBatch(), m.body,
                                                 &memo, load, /*allow_replacement=*/false),
                   name, b.offset));
    }
    return Status::OK();
  }

  // Thread-safe after Init(): works on a copy of the load options.
  Result<RecordBatchRef> Read(int i) {
    if (i < 0 || i >= static_cast<int>(batches.size())) {
      return Status::IndexError("{}: record batch {} out of range (file has {})", name, i,
                                batches.size());
    }
    QUIVER_ASSIGN_OR_RAISE(auto m,
                           ReadBlock(batches[i], FooterStart(), fb::MessageHeader::RecordBatch));
    internal::LoadOptions batch_load = load;
    batch_load.version = m.message->version();
    auto batch = internal::LoadRecordBatch(m.message->header_as_RecordBatch(), full_schema, m.body,
                                           memo, batch_load, projection.needed());
    if (!batch.ok()) return AtOffset(batch.status(), name, batches[i].offset);
    return projection.Apply(std::move(batch).ValueOrDie());
  }
};

namespace {

class FileBatchReader final : public RecordBatchReader {
 public:
  explicit FileBatchReader(std::shared_ptr<IpcFileReader> file) : file_(std::move(file)) {}
  SchemaRef schema() const override { return file_->schema(); }
  Status ReadNext(RecordBatchRef* out) override {
    *out = nullptr;
    if (next_ >= file_->num_record_batches()) return Status::OK();
    QUIVER_ASSIGN_OR_RAISE(*out, file_->ReadRecordBatch(next_++));
    return Status::OK();
  }

 private:
  std::shared_ptr<IpcFileReader> file_;
  int next_ = 0;
};

}  // namespace

IpcFileReader::IpcFileReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
IpcFileReader::~IpcFileReader() = default;

Result<std::shared_ptr<IpcFileReader>> IpcFileReader::Open(const std::string& path,
                                                           const IpcReadOptions& options) {
  QUIVER_ASSIGN_OR_RAISE(auto data, ReadInput(path, options));
  return Open(std::move(data), options, path == "-" ? "<stdin>" : path);
}

Result<std::shared_ptr<IpcFileReader>> IpcFileReader::Open(std::shared_ptr<Buffer> file,
                                                           const IpcReadOptions& options,
                                                           std::string name) {
  auto impl = std::make_unique<Impl>();
  impl->name = std::move(name);
  impl->data = std::move(file);
  impl->options = options;
  QUIVER_RETURN_NOT_OK(impl->Init());
  return std::shared_ptr<IpcFileReader>(new IpcFileReader(std::move(impl)));
}

SchemaRef IpcFileReader::schema() const { return impl_->projection.schema(); }
int IpcFileReader::num_record_batches() const { return static_cast<int>(impl_->batches.size()); }
int IpcFileReader::num_dictionaries() const { return static_cast<int>(impl_->dictionaries.size()); }
Result<RecordBatchRef> IpcFileReader::ReadRecordBatch(int i) { return impl_->Read(i); }
const KeyValueMetadata& IpcFileReader::footer_metadata() const {
  return impl_->full_schema->metadata;
}
int IpcFileReader::metadata_version() const { return impl_->version; }
std::unique_ptr<RecordBatchReader> IpcFileReader::ToReader() {
  return std::make_unique<FileBatchReader>(shared_from_this());
}
int64_t IpcFileReader::bytes_read() const { return impl_->bytes_read.load(); }
int64_t IpcFileReader::num_rows(int i) const {
  if (i < 0 || i >= static_cast<int>(impl_->batches.size())) return -1;
  auto m = internal::ReadMessageAt(impl_->data, impl_->batches[i].offset, impl_->options.pool);
  if (!m.ok() || !m->has_value()) return -1;
  const fb::RecordBatch* rb = (**m).message->header_as_RecordBatch();
  return rb == nullptr ? -1 : rb->length();
}
KeyValueMetadata IpcFileReader::record_batch_metadata(int i) const {
  if (i < 0 || i >= static_cast<int>(impl_->batches.size())) return {};
  auto m = internal::ReadMessageAt(impl_->data, impl_->batches[i].offset, impl_->options.pool);
  if (!m.ok() || !m->has_value()) return {};
  return internal::MetadataFromFlatbuffer((**m).message->custom_metadata());
}
int64_t IpcFileReader::total_bytes() const { return impl_->data->size(); }
const std::string& IpcFileReader::name() const { return impl_->name; }

// ---------------------------------------------------------------------------

Result<std::unique_ptr<RecordBatchReader>> OpenIpcReader(std::shared_ptr<Buffer> data,
                                                         const IpcReadOptions& options,
                                                         std::string name) {
  if (LooksLikeIpcFile(data->data(), data->size())) {
    QUIVER_ASSIGN_OR_RAISE(auto file,
                           IpcFileReader::Open(std::move(data), options, std::move(name)));
    return file->ToReader();
  }
  QUIVER_ASSIGN_OR_RAISE(auto stream,
                         IpcStreamReader::Open(std::move(data), options, std::move(name)));
  return std::unique_ptr<RecordBatchReader>(std::move(stream));
}

Result<std::unique_ptr<RecordBatchReader>> OpenIpcReader(const std::string& path,
                                                         const IpcReadOptions& options) {
  QUIVER_ASSIGN_OR_RAISE(auto data, ReadInput(path, options));
  return OpenIpcReader(std::move(data), options, path == "-" ? "<stdin>" : path);
}

}  // namespace quiver::ipc
