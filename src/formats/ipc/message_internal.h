// PRIVATE to formats/ipc (includes generated flatbuffers headers).
//
// Message framing shared by the file and stream readers and the writer:
//
//   [0xFFFFFFFF] int32 metadata_size  flatbuffer Message + zero padding  body
//
// metadata_size counts the flatbuffer and its padding, chosen so that the body
// starts 8-byte aligned. Before Arrow 0.15 the continuation word was absent.
// A metadata_size of 0 ends the stream.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/buffer.h"
#include "common/io.h"
#include "common/status.h"
#include "formats/ipc/metadata_internal.h"

namespace quiver::ipc::internal {

struct DecodedMessage {
  int64_t offset = 0;                // where the message prefix starts in the input
  int64_t end = 0;                   // just past its body
  std::shared_ptr<Buffer> metadata;  // owns the verified flatbuffer bytes
  const fb::Message* message = nullptr;
  std::shared_ptr<Buffer> body;  // slice of the input
};

// Decodes the message at `offset` of `data`. Returns nullopt at end of stream
// (an end-of-stream marker, or no bytes left). Errors do not carry the file
// name; callers add it.
Result<std::optional<DecodedMessage>> ReadMessageAt(const std::shared_ptr<Buffer>& data,
                                                    int64_t offset, MemoryPool* pool);

// Verifies `size` bytes of a flatbuffer Message, copying them to an aligned
// buffer first when needed (flatbuffer accessors read scalars in place).
// `*owner` keeps the verified bytes alive; the result points into it.
Result<const fb::Message*> VerifyMessage(const std::shared_ptr<Buffer>& data, int64_t offset,
                                         int64_t size, MemoryPool* pool,
                                         std::shared_ptr<Buffer>* owner);

// Verifies a standalone flatbuffer (e.g. a file footer), copying it to an
// aligned buffer first when needed. `*owner` keeps the bytes alive.
Result<const fb::Footer*> VerifyFooter(const uint8_t* data, int64_t size, MemoryPool* pool,
                                       std::shared_ptr<Buffer>* owner);

// Writes prefix + `fbb`'s finished flatbuffer + padding to 8. Returns the
// number of bytes written (Block.meta_data_length).
Result<int32_t> WriteMessageMetadata(OutputStream* sink, const uint8_t* flatbuffer, int64_t size);

// Writes zero bytes to reach a multiple of `alignment` past `written`.
Status WritePadding(OutputStream* sink, int64_t written, int64_t alignment = 8);

}  // namespace quiver::ipc::internal
