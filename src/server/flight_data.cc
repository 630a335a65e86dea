// FlightData wire encoding and parsing (layout in flight_data.h).
#include "server/flight_data.h"

#include <utility>

namespace quiver::server {
namespace {

constexpr uint8_t kZeros[8] = {};

// Field tags: (number << 3) | wire type 2 (length-delimited).
constexpr uint32_t kDescriptorField = 1;
constexpr uint32_t kHeaderField = 2;
constexpr uint32_t kAppMetadataField = 3;
constexpr uint32_t kBodyField = 1000;

void AppendTag(uint32_t field, std::string* out) { AppendVarint((uint64_t{field} << 3) | 2, out); }

// Reads a varint at *pos; false when truncated or longer than 10 bytes.
bool ReadVarint(const uint8_t* data, int64_t size, int64_t* pos, uint64_t* value) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= size) return false;
    const uint8_t byte = data[(*pos)++];
    v |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) {
      *value = v;
      return true;
    }
  }
  return false;
}

}  // namespace

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

int64_t EncodeFlightData(const ipc::EncodedMessage& message, std::string_view app_metadata,
                         std::vector<WirePiece>* out) {
  std::string prefix;
  if (message.metadata != nullptr) {
    AppendTag(kHeaderField, &prefix);
    AppendVarint(static_cast<uint64_t>(message.metadata->size()), &prefix);
    prefix.append(message.metadata->view());
  }
  if (!app_metadata.empty()) {
    AppendTag(kAppMetadataField, &prefix);
    AppendVarint(app_metadata.size(), &prefix);
    prefix.append(app_metadata);
  }
  if (message.body_length > 0) {
    AppendTag(kBodyField, &prefix);
    AppendVarint(static_cast<uint64_t>(message.body_length), &prefix);
  }
  // Small buffers and padding go into the last byte string; large buffers
  // become pieces of their own.
  const size_t first = out->size();
  out->emplace_back();
  out->back().bytes = std::move(prefix);
  for (size_t i = 0; i < message.body.size(); ++i) {
    const std::shared_ptr<Buffer>& b = message.body[i];
    const int64_t size = b ? b->size() : 0;
    if (size >= kInlineBufferBytes) {
      WirePiece piece;
      piece.buffer = b;
      out->push_back(std::move(piece));
      out->emplace_back();
    } else if (size > 0) {
      out->back().bytes.append(b->view());
    }
    out->back().bytes.append(reinterpret_cast<const char*>(kZeros),
                             static_cast<size_t>(message.padding_after(i)));
  }
  if (out->back().buffer == nullptr && out->back().bytes.empty()) out->pop_back();
  int64_t total = 0;
  for (size_t i = first; i < out->size(); ++i) {
    const WirePiece& p = (*out)[i];
    total += p.buffer ? p.buffer->size() : static_cast<int64_t>(p.bytes.size());
  }
  return total;
}

Result<FlightDataView> ParseFlightData(const std::shared_ptr<Buffer>& bytes) {
  FlightDataView view;
  const uint8_t* data = bytes->data();
  const int64_t size = bytes->size();
  int64_t pos = 0;
  while (pos < size) {
    uint64_t tag;
    if (!ReadVarint(data, size, &pos, &tag)) {
      return Status::Invalid("FlightData: truncated field tag at byte {}", pos);
    }
    const uint64_t field = tag >> 3;
    const int wire_type = static_cast<int>(tag & 7);
    switch (wire_type) {
      case 0: {  // varint
        uint64_t ignored;
        if (!ReadVarint(data, size, &pos, &ignored)) {
          return Status::Invalid("FlightData: truncated varint of field {}", field);
        }
        continue;
      }
      case 1:    // 64-bit
      case 5: {  // 32-bit
        const int64_t width = wire_type == 1 ? 8 : 4;
        if (size - pos < width) return Status::Invalid("FlightData: truncated field {}", field);
        pos += width;
        continue;
      }
      case 2:
        break;
      default:
        return Status::Invalid("FlightData: field {} has unsupported wire type {}", field,
                               wire_type);
    }
    uint64_t length;
    if (!ReadVarint(data, size, &pos, &length)) {
      return Status::Invalid("FlightData: truncated length of field {}", field);
    }
    if (length > static_cast<uint64_t>(size - pos)) {
      return Status::Invalid("FlightData: field {} claims {} bytes, {} left", field, length,
                             size - pos);
    }
    const int64_t n = static_cast<int64_t>(length);
    switch (field) {
      case kDescriptorField:
        view.has_descriptor = true;
        view.descriptor = std::string_view(reinterpret_cast<const char*>(data + pos), n);
        break;
      case kHeaderField:
        view.header = bytes->Slice(pos, n);
        break;
      case kAppMetadataField:
        view.app_metadata = std::string_view(reinterpret_cast<const char*>(data + pos), n);
        break;
      case kBodyField:
        view.body = bytes->Slice(pos, n);
        break;
      default:
        break;  // unknown field: skipped
    }
    pos += n;
  }
  return view;
}

}  // namespace quiver::server
