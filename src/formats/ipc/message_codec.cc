// MessageEncoder / MessageDecoder: IPC messages without stream framing
// (message_codec.h), built from the writer's and reader's own pieces.
#include "formats/ipc/message_codec.h"

#include <cstring>
#include <utility>

#include "formats/ipc/array_loader_internal.h"
#include "formats/ipc/array_writer_internal.h"
#include "formats/ipc/message_internal.h"

namespace quiver::ipc {

namespace fb = internal::fb;

namespace {

// Takes the finished flatbuffer out of `fbb` without copying it.
std::shared_ptr<Buffer> FinishedBytes(flatbuffers::FlatBufferBuilder& fbb) {
  auto owner = std::make_shared<flatbuffers::DetachedBuffer>(fbb.Release());
  return std::make_shared<Buffer>(owner->data(), static_cast<int64_t>(owner->size()), owner);
}

// The Message around a body already laid out by `body` (or none).
EncodedMessage Finish(EncodedMessage::Kind kind, fb::MessageHeader type,
                      flatbuffers::FlatBufferBuilder& fbb, flatbuffers::Offset<void> header,
                      const internal::BodyWriter* body) {
  EncodedMessage m;
  m.kind = kind;
  m.body_length = body ? body->body_length() : 0;
  auto message = fb::CreateMessage(fbb, fb::MetadataVersion::V5, type, header, m.body_length);
  fbb.Finish(message);
  m.metadata = FinishedBytes(fbb);
  if (body) m.body = body->buffers();
  return m;
}

}  // namespace

MessageEncoder::MessageEncoder(SchemaRef schema, const IpcWriteOptions& options)
    : schema_(std::move(schema)), options_(options) {}

MessageEncoder::~MessageEncoder() = default;

EncodedMessage MessageEncoder::EncodeSchema() const {
  flatbuffers::FlatBufferBuilder fbb;
  auto s = internal::SchemaToFlatbuffer(fbb, *schema_);
  return Finish(EncodedMessage::kSchema, fb::MessageHeader::Schema, fbb, s.Union(), nullptr);
}

Result<EncodedMessage> MessageEncoder::EncodeDictionary(int64_t id, const ArrayRef& values,
                                                        bool is_delta) {
  internal::BodyWriter body(options_.codec, options_.level, options_.pool);
  QUIVER_RETURN_NOT_OK(body.AddArray(*values));
  QUIVER_RETURN_NOT_OK(body.CompressAll());
  flatbuffers::FlatBufferBuilder fbb;
  auto data = body.Finish(fbb, values->length);
  auto batch = fb::CreateDictionaryBatch(fbb, id, data, is_delta);
  return Finish(EncodedMessage::kDictionaryBatch, fb::MessageHeader::DictionaryBatch, fbb,
                batch.Union(), &body);
}

Status MessageEncoder::EncodeBatch(const RecordBatch& batch, std::vector<EncodedMessage>* out) {
  if (batch.num_columns() != schema_->num_fields()) {
    return Status::Invalid("IPC encoder: batch has {} columns, schema {}", batch.num_columns(),
                           schema_->num_fields());
  }
  for (int i = 0; i < batch.num_columns(); ++i) {
    const ArrayData& col = *batch.column(i);
    if (!col.type->Equals(*schema_->field(i)->type)) {
      return Status::Invalid("IPC encoder: column {} has type {}, schema says {}", i,
                             col.type->ToString(), schema_->field(i)->type->ToString());
    }
    if (col.length != batch.num_rows()) {
      return Status::Invalid("IPC encoder: column {} has {} rows, batch {}", i, col.length,
                             batch.num_rows());
    }
  }
  // Dictionaries first (the stream format's replacement rules, writer.h).
  int64_t next_id = 0;
  std::vector<std::pair<int64_t, ArrayRef>> found;
  for (const auto& col : batch.columns()) internal::CollectDictionaries(*col, &next_id, &found);
  for (auto& [id, dict] : found) {
    if (dict == nullptr) return Status::Invalid("dictionary array without dictionary values");
    auto it = dictionaries_.find(id);
    if (it != dictionaries_.end() && (it->second == dict || ArrayEquals(*it->second, *dict))) {
      continue;
    }
    if (it != dictionaries_.end() && options_.emit_dictionary_deltas &&
        it->second->length < dict->length &&
        ArrayRangeEquals(*it->second, 0, *dict, 0, it->second->length)) {
      const int64_t old_length = it->second->length;
      QUIVER_ASSIGN_OR_RAISE(
          auto m, EncodeDictionary(id, dict->Slice(old_length, dict->length - old_length), true));
      out->push_back(std::move(m));
    } else {
      QUIVER_ASSIGN_OR_RAISE(auto m, EncodeDictionary(id, dict, false));
      out->push_back(std::move(m));
    }
    dictionaries_[id] = dict;
  }
  internal::BodyWriter body(options_.codec, options_.level, options_.pool);
  for (const auto& col : batch.columns()) QUIVER_RETURN_NOT_OK(body.AddArray(*col));
  QUIVER_RETURN_NOT_OK(body.CompressAll());
  flatbuffers::FlatBufferBuilder fbb;
  auto data = body.Finish(fbb, batch.num_rows());
  EncodedMessage m = Finish(EncodedMessage::kRecordBatch, fb::MessageHeader::RecordBatch, fbb,
                            data.Union(), &body);
  m.num_rows = batch.num_rows();
  out->push_back(std::move(m));
  return Status::OK();
}

std::string SerializeSchema(const Schema& schema) {
  flatbuffers::FlatBufferBuilder fbb;
  auto s = internal::SchemaToFlatbuffer(fbb, schema);
  fbb.Finish(
      fb::CreateMessage(fbb, fb::MetadataVersion::V5, fb::MessageHeader::Schema, s.Union(), 0));
  const int64_t size = fbb.GetSize();
  const int64_t padded = (size + 7) & ~int64_t{7};
  std::string out(static_cast<size_t>(8 + padded), '\0');
  const uint32_t continuation = internal::kContinuation;
  const int32_t length = static_cast<int32_t>(padded);
  std::memcpy(out.data(), &continuation, 4);
  std::memcpy(out.data() + 4, &length, 4);
  std::memcpy(out.data() + 8, fbb.GetBufferPointer(), static_cast<size_t>(size));
  return out;
}

Result<SchemaRef> DeserializeSchema(std::string_view bytes) {
  if (bytes.empty()) return Status::Invalid("empty schema message");
  QUIVER_ASSIGN_OR_RAISE(auto data, Buffer::CopyFrom(bytes));
  const fb::Message* message = nullptr;
  std::shared_ptr<Buffer> owner;
  uint32_t first = 0;
  if (bytes.size() >= 4) std::memcpy(&first, bytes.data(), 4);
  if (first == internal::kContinuation) {
    auto m = internal::ReadMessageAt(data, 0, DefaultMemoryPool());
    if (!m.ok()) return m.status();
    if (!m->has_value()) return Status::Invalid("schema message is an end-of-stream marker");
    owner = (*m)->metadata;
    message = (*m)->message;
  } else {
    QUIVER_ASSIGN_OR_RAISE(
        message, internal::VerifyMessage(data, 0, data->size(), DefaultMemoryPool(), &owner));
  }
  QUIVER_RETURN_NOT_OK(internal::CheckMetadataVersion(message->version()));
  const fb::Schema* s = message->header_as_Schema();
  if (s == nullptr) return Status::Invalid("expected a Schema message");
  internal::DictionaryTypes dicts;
  return internal::SchemaFromFlatbuffer(s, &dicts);
}

struct MessageDecoder::Impl {
  SchemaRef schema;
  internal::DictionaryMemo memo;
  internal::LoadOptions load;
};

MessageDecoder::MessageDecoder() : impl_(std::make_unique<Impl>()) {}
MessageDecoder::~MessageDecoder() = default;

const SchemaRef& MessageDecoder::schema() const { return impl_->schema; }

Status MessageDecoder::Consume(const std::shared_ptr<Buffer>& metadata,
                               const std::shared_ptr<Buffer>& body, RecordBatchRef* out) {
  *out = nullptr;
  if (metadata == nullptr || metadata->size() == 0) {
    return Status::Invalid("IPC message without metadata");
  }
  std::shared_ptr<Buffer> owner;
  QUIVER_ASSIGN_OR_RAISE(
      const fb::Message* message,
      internal::VerifyMessage(metadata, 0, metadata->size(), impl_->load.pool, &owner));
  QUIVER_RETURN_NOT_OK(internal::CheckMetadataVersion(message->version()));
  const int64_t body_size = body ? body->size() : 0;
  if (message->body_length() < 0 || message->body_length() > body_size) {
    return Status::Invalid("message body length {} exceeds the {} bytes received",
                           message->body_length(), body_size);
  }
  std::shared_ptr<Buffer> bounded =
      body ? body->Slice(0, message->body_length()) : std::make_shared<Buffer>(nullptr, 0);
  impl_->load.version = message->version();
  switch (message->header_type()) {
    case fb::MessageHeader::Schema: {
      if (impl_->schema != nullptr) return Status::Invalid("second Schema message in stream");
      QUIVER_ASSIGN_OR_RAISE(impl_->schema, internal::SchemaFromFlatbuffer(
                                                message->header_as_Schema(), &impl_->memo.types,
                                                &impl_->load.swap_endian));
      return Status::OK();
    }
    case fb::MessageHeader::DictionaryBatch:
      if (impl_->schema == nullptr) return Status::Invalid("dictionary batch before the schema");
      return internal::LoadDictionaryBatch(message->header_as_DictionaryBatch(), bounded,
                                           &impl_->memo, impl_->load, true);
    case fb::MessageHeader::RecordBatch: {
      if (impl_->schema == nullptr) return Status::Invalid("record batch before the schema");
      QUIVER_ASSIGN_OR_RAISE(
          *out, internal::LoadRecordBatch(message->header_as_RecordBatch(), impl_->schema, bounded,
                                          impl_->memo, impl_->load));
      return Status::OK();
    }
    case fb::MessageHeader::Tensor:
    case fb::MessageHeader::SparseTensor:
      return Status::Unsupported("tensor messages");
    default:
      return Status::Invalid("unknown message type {}", static_cast<int>(message->header_type()));
  }
}

}  // namespace quiver::ipc
