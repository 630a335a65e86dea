// IpcWriter: file and stream formats (layouts in reader.h, body layout in
// array_writer_internal.h).
#include "formats/ipc/writer.h"

#include <algorithm>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "formats/ipc/array_writer_internal.h"
#include "formats/ipc/body_compressor_internal.h"
#include "formats/ipc/message_internal.h"

namespace quiver::ipc {

namespace fb = internal::fb;

namespace {

// Counts bytes so file blocks can record message offsets even when the
// sink did not start at position 0.
class CountingSink final : public OutputStream {
 public:
  explicit CountingSink(OutputStream* out) : out_(out) {}
  Status Write(const void* data, int64_t size) override {
    if (size == 0) return Status::OK();
    QUIVER_RETURN_NOT_OK(out_->Write(data, size));
    position_ += size;
    return Status::OK();
  }
  int64_t Tell() const override { return position_; }
  Status Flush() override { return out_->Flush(); }

 private:
  OutputStream* out_;
  int64_t position_ = 0;
};

// A dictionary or record batch message waiting for its body's compression.
struct PendingMessage final : internal::CompressionJob {
  PendingMessage(internal::BodyWriter b, fb::MessageHeader t, int64_t n)
      : CompressionJob(std::move(b)), type(t), length(n) {}
  fb::MessageHeader type;
  int64_t length;  // rows (record batch) or dictionary values
  int64_t dictionary_id = 0;
  bool is_delta = false;
  int64_t raw_bytes = 0;  // uncompressed body bytes, for the window
  KeyValueMetadata custom_metadata;  // the message's (PG-Strom's min_max_stats.<col>)
};

// The pipeline's window: a few messages per thread, so that the threads
// always find buffers to compress while the oldest message waits for its
// last ones, and a cap on the (referenced, not copied) batches held back.
constexpr int64_t kMaxPendingBytes = int64_t{64} << 20;
int64_t MaxPendingMessages(const ThreadPool& pool) { return std::max(8, 4 * pool.num_threads()); }

}  // namespace

struct IpcWriter::Impl {
  explicit Impl(OutputStream* out) : sink(out) {}
  struct Block {
    int64_t offset;
    int32_t metadata_length;
    int64_t body_length;
  };

  CountingSink sink;
  SchemaRef schema;
  IpcWriteOptions options;
  bool file_format = false;
  bool started = false;
  bool closed = false;
  std::vector<Block> dictionary_blocks;
  std::vector<Block> batch_blocks;
  std::map<int64_t, ArrayRef> dictionaries;  // last written dictionary per id
  int64_t batches_written = 0;
  int64_t dictionaries_written = 0;
  // Set when a message could not be compressed or written: the output is
  // broken from there on, so every later call fails with it.
  Status broken;
  // Compression on threads: null when serial (no codec, or !use_threads).
  std::unique_ptr<internal::BodyCompressor> compressor;
  int64_t max_pending_messages = 0;
  std::deque<std::shared_ptr<PendingMessage>> pending;  // in output order
  int64_t pending_bytes = 0;

  ~Impl() {
    // Stop the pool from touching the bodies before they go away.
    if (compressor) compressor->Cancel();
  }

  // Frames and writes one message; returns its block.
  Result<Block> WriteMessage(fb::MessageHeader type, flatbuffers::FlatBufferBuilder& fbb,
                             flatbuffers::Offset<void> header, const internal::BodyWriter* body,
                             const KeyValueMetadata* custom_metadata = nullptr) {
    const int64_t body_length = body ? body->body_length() : 0;
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>> md;
    if (custom_metadata != nullptr && !custom_metadata->empty())
      md = internal::MetadataToFlatbuffer(fbb, *custom_metadata);
    auto message = fb::CreateMessage(fbb, fb::MetadataVersion::V5, type, header, body_length, md);
    fbb.Finish(message);
    Block block{sink.Tell(), 0, body_length};
    QUIVER_ASSIGN_OR_RAISE(
        block.metadata_length,
        internal::WriteMessageMetadata(&sink, fbb.GetBufferPointer(), fbb.GetSize()));
    if (body) QUIVER_RETURN_NOT_OK(body->WriteBody(&sink));
    return block;
  }

  Status Start() {
    if (started) return Status::OK();
    started = true;
    if (file_format) {
      static const uint8_t kMagic[8] = {'A', 'R', 'R', 'O', 'W', '1', 0, 0};
      QUIVER_RETURN_NOT_OK(sink.Write(kMagic, 8));
    }
    flatbuffers::FlatBufferBuilder fbb;
    auto s = internal::SchemaToFlatbuffer(fbb, *schema);
    return WriteMessage(fb::MessageHeader::Schema, fbb, s.Union(), nullptr).status();
  }

  // Builds the message's header around its (compressed) body and writes both.
  Status WritePending(PendingMessage& m) {
    flatbuffers::FlatBufferBuilder fbb;
    auto data = m.body.Finish(fbb, m.length);
    if (m.type == fb::MessageHeader::DictionaryBatch) {
      auto batch = fb::CreateDictionaryBatch(fbb, m.dictionary_id, data, m.is_delta);
      QUIVER_ASSIGN_OR_RAISE(auto block, WriteMessage(m.type, fbb, batch.Union(), &m.body));
      dictionary_blocks.push_back(block);
    } else {
      QUIVER_ASSIGN_OR_RAISE(auto block, WriteMessage(m.type, fbb, data.Union(), &m.body, &m.custom_metadata));
      batch_blocks.push_back(block);
    }
    return Status::OK();
  }

  // Writes the compressed messages at the head of the queue; waits (and
  // compresses) for the head while the window is over its limits, or until
  // the queue is empty when `all`.
  Status WriteReady(bool all) {
    while (!pending.empty()) {
      PendingMessage& head = *pending.front();
      const bool full = static_cast<int64_t>(pending.size()) > max_pending_messages ||
                        pending_bytes > kMaxPendingBytes;
      if (!all && !full && !compressor->IsDone(head)) break;
      Status st = compressor->Wait(head);
      if (st.ok()) st = WritePending(head);
      if (!st.ok()) return broken = st;
      pending_bytes -= head.raw_bytes;
      pending.pop_front();
    }
    return Status::OK();
  }

  // Compresses and writes `m` now, or queues it behind the pending ones.
  Status Emit(std::shared_ptr<PendingMessage> m) {
    if (compressor == nullptr) {
      Status st = m->body.CompressAll();
      if (st.ok()) st = WritePending(*m);
      if (!st.ok()) broken = st;
      return st;
    }
    for (int i = 0; i < m->body.num_buffers(); ++i) m->raw_bytes += m->body.raw_size(i);
    compressor->Add(m);
    pending_bytes += m->raw_bytes;
    pending.push_back(std::move(m));
    return WriteReady(false);
  }

  Status WriteDictionary(int64_t id, const ArrayRef& values, bool is_delta) {
    internal::BodyWriter body(options.codec, options.level, options.pool);
    QUIVER_RETURN_NOT_OK(body.AddArray(*values));
    auto m = std::make_shared<PendingMessage>(std::move(body), fb::MessageHeader::DictionaryBatch,
                                              values->length);
    m->dictionary_id = id;
    m->is_delta = is_delta;
    QUIVER_RETURN_NOT_OK(Emit(std::move(m)));
    ++dictionaries_written;
    return Status::OK();
  }

  Status WriteDictionaries(const RecordBatch& batch) {
    int64_t next_id = 0;
    std::vector<std::pair<int64_t, ArrayRef>> found;
    for (const auto& col : batch.columns()) internal::CollectDictionaries(*col, &next_id, &found);
    for (auto& [id, dict] : found) {
      if (dict == nullptr) return Status::Invalid("dictionary array without dictionary values");
      auto it = dictionaries.find(id);
      if (it == dictionaries.end()) {
        QUIVER_RETURN_NOT_OK(WriteDictionary(id, dict, false));
        dictionaries.emplace(id, dict);
        continue;
      }
      const ArrayRef& old = it->second;
      if (old == dict || ArrayEquals(*old, *dict)) continue;
      const bool grew =
          old->length < dict->length && ArrayRangeEquals(*old, 0, *dict, 0, old->length);
      if (grew && (options.emit_dictionary_deltas || file_format)) {
        // Files cannot replace dictionaries, but a pure extension is a delta.
        QUIVER_RETURN_NOT_OK(
            WriteDictionary(id, dict->Slice(old->length, dict->length - old->length), true));
      } else if (file_format) {
        return Status::Invalid(
            "dictionary {} changed between record batches; the Arrow IPC file format cannot "
            "replace dictionaries (write a stream, or unify dictionaries first)",
            id);
      } else {
        QUIVER_RETURN_NOT_OK(WriteDictionary(id, dict, false));
      }
      it->second = dict;
    }
    return Status::OK();
  }

  Status WriteBatch(const RecordBatch& batch, KeyValueMetadata custom_metadata = {}) {
    if (closed) return Status::Invalid("IpcWriter: write after Close()");
    QUIVER_RETURN_NOT_OK(broken);
    if (batch.num_columns() != schema->num_fields()) {
      return Status::Invalid("IpcWriter: batch has {} columns, schema {}", batch.num_columns(),
                             schema->num_fields());
    }
    for (int i = 0; i < batch.num_columns(); ++i) {
      if (!batch.column(i)->type->Equals(*schema->field(i)->type)) {
        return Status::Invalid("IpcWriter: column {} has type {}, schema says {}", i,
                               batch.column(i)->type->ToString(),
                               schema->field(i)->type->ToString());
      }
      if (batch.column(i)->length != batch.num_rows()) {
        return Status::Invalid("IpcWriter: column {} has {} rows, batch {}", i,
                               batch.column(i)->length, batch.num_rows());
      }
    }
    QUIVER_RETURN_NOT_OK(Start());
    QUIVER_RETURN_NOT_OK(WriteDictionaries(batch));
    internal::BodyWriter body(options.codec, options.level, options.pool);
    for (const auto& col : batch.columns()) QUIVER_RETURN_NOT_OK(body.AddArray(*col));
    auto message = std::make_shared<PendingMessage>(std::move(body), fb::MessageHeader::RecordBatch,
                                                    batch.num_rows());
    message->custom_metadata = std::move(custom_metadata);
    QUIVER_RETURN_NOT_OK(Emit(std::move(message)));
    ++batches_written;
    return Status::OK();
  }

  Status Close() {
    if (closed) return Status::OK();
    QUIVER_RETURN_NOT_OK(broken);
    QUIVER_RETURN_NOT_OK(Start());
    if (compressor) QUIVER_RETURN_NOT_OK(WriteReady(true));
    closed = true;
    const uint32_t eos[2] = {internal::kContinuation, 0};
    QUIVER_RETURN_NOT_OK(sink.Write(eos, 8));
    if (file_format) {
      flatbuffers::FlatBufferBuilder fbb;
      auto s = internal::SchemaToFlatbuffer(fbb, *schema);
      auto to_fb = [](const std::vector<Block>& blocks) {
        std::vector<fb::Block> out;
        for (const Block& b : blocks) out.emplace_back(b.offset, b.metadata_length, b.body_length);
        return out;
      };
      auto dicts = fbb.CreateVectorOfStructs(to_fb(dictionary_blocks));
      auto batches = fbb.CreateVectorOfStructs(to_fb(batch_blocks));
      fbb.Finish(fb::CreateFooter(fbb, fb::MetadataVersion::V5, s, dicts, batches));
      QUIVER_RETURN_NOT_OK(sink.Write(fbb.GetBufferPointer(), fbb.GetSize()));
      const int32_t footer_len = static_cast<int32_t>(fbb.GetSize());
      QUIVER_RETURN_NOT_OK(sink.Write(&footer_len, 4));
      QUIVER_RETURN_NOT_OK(sink.Write(internal::kFileMagic, 6));
    }
    return sink.Flush();
  }
};

namespace {

Result<std::unique_ptr<IpcWriter::Impl>> MakeImpl(OutputStream* sink, SchemaRef schema,
                                                  const IpcWriteOptions& options, bool file) {
  if (sink == nullptr || schema == nullptr)
    return Status::Invalid("IpcWriter: null sink or schema");
  using compression::Codec;
  if (options.codec != Codec::kNone && options.codec != Codec::kLz4Frame &&
      options.codec != Codec::kZstd) {
    return Status::Invalid("Arrow IPC body compression must be lz4 or zstd, not {}",
                           compression::CodecName(options.codec));
  }
  auto impl = std::make_unique<IpcWriter::Impl>(sink);
  impl->schema = std::move(schema);
  impl->options = options;
  impl->file_format = file;
  if (options.codec != Codec::kNone && options.use_threads) {
    ThreadPool* pool = options.thread_pool ? options.thread_pool : GlobalThreadPool();
    impl->compressor = std::make_unique<internal::BodyCompressor>(pool);
    impl->max_pending_messages = MaxPendingMessages(*pool);
  }
  return impl;
}

}  // namespace

IpcWriter::IpcWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
IpcWriter::~IpcWriter() = default;

Result<std::unique_ptr<IpcWriter>> IpcWriter::MakeFileWriter(OutputStream* sink, SchemaRef schema,
                                                             const IpcWriteOptions& options) {
  QUIVER_ASSIGN_OR_RAISE(auto impl, MakeImpl(sink, std::move(schema), options, true));
  return std::unique_ptr<IpcWriter>(new IpcWriter(std::move(impl)));
}

Result<std::unique_ptr<IpcWriter>> IpcWriter::MakeStreamWriter(OutputStream* sink, SchemaRef schema,
                                                               const IpcWriteOptions& options) {
  QUIVER_ASSIGN_OR_RAISE(auto impl, MakeImpl(sink, std::move(schema), options, false));
  return std::unique_ptr<IpcWriter>(new IpcWriter(std::move(impl)));
}

Status IpcWriter::WriteRecordBatch(const RecordBatch& batch) { return impl_->WriteBatch(batch); }
Status IpcWriter::WriteRecordBatch(const RecordBatch& batch, KeyValueMetadata custom_metadata) {
  return impl_->WriteBatch(batch, std::move(custom_metadata));
}
Status IpcWriter::Close() { return impl_->Close(); }
int64_t IpcWriter::num_record_batches_written() const { return impl_->batches_written; }
int64_t IpcWriter::num_dictionary_batches_written() const { return impl_->dictionaries_written; }
int64_t IpcWriter::bytes_written() const { return impl_->sink.Tell(); }

}  // namespace quiver::ipc
