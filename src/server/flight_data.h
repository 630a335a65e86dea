// FlightData on the wire, written and parsed by hand so that record batch
// bodies are never copied into a protobuf message.
//
// FlightData (proto/Flight.proto) in protobuf's wire format:
//
//   0x0A len FlightDescriptor    field 1, first message of a DoPut only
//   0x12 len data_header         field 2: the flatbuffer IPC Message
//   0x1A len app_metadata        field 3
//   0xC2 0x3E len data_body      field 1000: the IPC message body
//
// (len = a base-128 varint.) The encoder emits the fields in this order as
// a list of pieces: the tags, lengths and the (small) header in byte
// strings, and each body buffer as a reference to the batch's own Buffer
// followed by its zero padding, so the transport sends the buffers as they
// are (gRPC: one slice per buffer, released when sent). Buffers smaller than
// kInlineBufferBytes are copied into the byte strings: a slice per tiny
// validity bitmap costs more than the copy.
//
// The parser takes untrusted bytes: every length is checked against what is
// left, unknown fields are skipped by wire type, and the header and body
// come back as zero-copy slices of the input.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/buffer.h"
#include "common/status.h"
#include "formats/ipc/message_codec.h"

namespace quiver::server {

inline constexpr int64_t kInlineBufferBytes = 4096;

// One piece of an encoded message: a byte string, or a shared buffer.
struct WirePiece {
  std::string bytes;               // used when buffer is null
  std::shared_ptr<Buffer> buffer;  // sent as is
};

// Appends the wire form of a FlightData carrying `message` (and
// `app_metadata`, may be empty) to *out. Returns its size in bytes.
int64_t EncodeFlightData(const ipc::EncodedMessage& message, std::string_view app_metadata,
                         std::vector<WirePiece>* out);

struct FlightDataView {
  bool has_descriptor = false;
  std::string_view descriptor;     // the serialized FlightDescriptor
  std::shared_ptr<Buffer> header;  // data_header; null when absent
  std::shared_ptr<Buffer> body;    // data_body; null when absent
  std::string_view app_metadata;
};

// Parses one FlightData message. The views and buffers point into `bytes`
// (which they keep alive).
Result<FlightDataView> ParseFlightData(const std::shared_ptr<Buffer>& bytes);

// Protobuf wire helpers shared with the tests and the fuzz harness.
void AppendVarint(uint64_t value, std::string* out);

}  // namespace quiver::server
