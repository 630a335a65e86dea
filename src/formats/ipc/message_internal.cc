// Reading and writing of IPC message frames (layout in message_internal.h).
#include "formats/ipc/message_internal.h"

#include <cstring>

namespace quiver::ipc::internal {
namespace {

int32_t LoadInt32(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// Flatbuffer accessors read scalars in place, so the bytes must be 8-aligned.
Result<std::shared_ptr<Buffer>> AlignedView(const std::shared_ptr<Buffer>& data, int64_t offset,
                                            int64_t size, MemoryPool* pool) {
  const uint8_t* p = data->data() + offset;
  if (reinterpret_cast<uintptr_t>(p) % 8 == 0) return data->Slice(offset, size);
  return Buffer::CopyFrom(std::string_view(reinterpret_cast<const char*>(p), size), pool);
}

}  // namespace

Result<std::optional<DecodedMessage>> ReadMessageAt(const std::shared_ptr<Buffer>& data,
                                                    int64_t offset, MemoryPool* pool) {
  const int64_t size = data->size();
  if (offset < 0 || offset > size) return Status::Invalid("message offset outside the input");
  int64_t remaining = size - offset;
  if (remaining == 0) return std::optional<DecodedMessage>();
  if (remaining < 4) return Status::Invalid("truncated message prefix ({} bytes)", remaining);
  const uint8_t* p = data->data() + offset;
  int64_t prefix = 4;
  int32_t len = LoadInt32(p);
  if (static_cast<uint32_t>(len) == kContinuation) {
    if (remaining < 8) return Status::Invalid("truncated message prefix ({} bytes)", remaining);
    len = LoadInt32(p + 4);
    prefix = 8;
  }
  if (len == 0) return std::optional<DecodedMessage>();  // end-of-stream marker
  if (len < 0 || len > kMaxMetadataSize || len > remaining - prefix) {
    return Status::Invalid("message metadata size {} exceeds the {} bytes left", len,
                           remaining - prefix);
  }
  DecodedMessage msg;
  msg.offset = offset;
  QUIVER_ASSIGN_OR_RAISE(msg.message,
                         VerifyMessage(data, offset + prefix, len, pool, &msg.metadata));
  const int64_t body_len = msg.message->body_length();
  const int64_t body_start = offset + prefix + len;
  if (body_len < 0 || body_len > size - body_start) {
    return Status::Invalid("message body length {} exceeds the {} bytes left", body_len,
                           size - body_start);
  }
  msg.body = data->Slice(body_start, body_len);
  msg.end = body_start + body_len;
  return std::optional<DecodedMessage>(std::move(msg));
}

Result<const fb::Message*> VerifyMessage(const std::shared_ptr<Buffer>& data, int64_t offset,
                                         int64_t size, MemoryPool* pool,
                                         std::shared_ptr<Buffer>* owner) {
  if (size <= 0 || size > kMaxMetadataSize) {
    return Status::Invalid("message metadata size {} invalid", size);
  }
  QUIVER_ASSIGN_OR_RAISE(*owner, AlignedView(data, offset, size, pool));
  flatbuffers::Verifier verifier((*owner)->data(), static_cast<size_t>(size),
                                 kMaxNestingDepth * 2 + 16, kMaxFlatbufferTables);
  if (!fb::VerifyMessageBuffer(verifier)) {
    return Status::Invalid("message metadata is not a valid flatbuffer Message");
  }
  return fb::GetMessage((*owner)->data());
}

Result<const fb::Footer*> VerifyFooter(const uint8_t* data, int64_t size, MemoryPool* pool,
                                       std::shared_ptr<Buffer>* owner) {
  if (size <= 0 || size > kMaxMetadataSize) return Status::Invalid("footer size {} invalid", size);
  QUIVER_ASSIGN_OR_RAISE(
      *owner, Buffer::CopyFrom(std::string_view(reinterpret_cast<const char*>(data), size), pool));
  flatbuffers::Verifier verifier((*owner)->data(), static_cast<size_t>(size),
                                 kMaxNestingDepth * 2 + 16, kMaxFlatbufferTables);
  if (!fb::VerifyFooterBuffer(verifier)) {
    return Status::Invalid("file footer is not a valid flatbuffer Footer");
  }
  return fb::GetFooter((*owner)->data());
}

Result<int32_t> WriteMessageMetadata(OutputStream* sink, const uint8_t* flatbuffer, int64_t size) {
  // 8 bytes of prefix + flatbuffer, padded so the body starts 8-aligned.
  const int64_t padded = (size + 7) & ~int64_t{7};
  if (padded > INT32_MAX - 8) return Status::Invalid("IPC message metadata too large");
  const uint32_t cont = kContinuation;
  const int32_t len = static_cast<int32_t>(padded);
  QUIVER_RETURN_NOT_OK(sink->Write(&cont, 4));
  QUIVER_RETURN_NOT_OK(sink->Write(&len, 4));
  QUIVER_RETURN_NOT_OK(sink->Write(flatbuffer, size));
  static const uint8_t kZeros[8] = {};
  QUIVER_RETURN_NOT_OK(sink->Write(kZeros, padded - size));
  return static_cast<int32_t>(padded + 8);
}

Status WritePadding(OutputStream* sink, int64_t written, int64_t alignment) {
  static const uint8_t kZeros[64] = {};
  int64_t pad = (alignment - written % alignment) % alignment;
  if (pad == 0) return Status::OK();
  return sink->Write(kZeros, pad);
}

}  // namespace quiver::ipc::internal
