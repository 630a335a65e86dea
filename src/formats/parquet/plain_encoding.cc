#include "formats/parquet/plain_encoding.h"

#include <cstring>

#include "common/bit_util.h"

namespace quiver::parquet {

Status DecodePlainFixed(const uint8_t* src, int64_t size, int width, int64_t n, uint8_t* dst,
                        int64_t* consumed) {
  const int64_t bytes = n * width;
  if (bytes > size) {
    return Status::Invalid("PLAIN data holds {} bytes, {} values of {} bytes need {}", size, n,
                           width, bytes);
  }
  if (bytes > 0) std::memcpy(dst, src, static_cast<size_t>(bytes));
  *consumed = bytes;
  return Status::OK();
}

Status DecodePlainBool(const uint8_t* src, int64_t size, int64_t src_bit, int64_t n, uint8_t* dst,
                       int64_t dst_bit) {
  if (src_bit + n > size * 8) {
    return Status::Invalid("PLAIN booleans: {} bytes cannot hold {} values", size, src_bit + n);
  }
  bit_util::CopyBitmap(src, src_bit, n, dst, dst_bit);
  return Status::OK();
}

Status DecodePlainByteArray(const uint8_t* src, int64_t size, int64_t n, ByteArrayBuilder* out,
                            int64_t* consumed) {
  // Every value takes at least its 4-byte length, so n is bounded by size.
  if (n > size / 4) {
    return Status::Invalid("PLAIN BYTE_ARRAY data of {} bytes cannot hold {} values", size, n);
  }
  // The data is at most the input size minus the lengths.
  QUIVER_RETURN_NOT_OK(out->Reserve(n, size - 4 * n));
  int64_t pos = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (size - pos < 4) return Status::Invalid("PLAIN BYTE_ARRAY data ends inside value {}", i);
    uint32_t len;
    std::memcpy(&len, src + pos, 4);
    pos += 4;
    // The values after this one need their 4-byte lengths too: this keeps
    // the data within the size - 4 * n bytes reserved above.
    const int64_t room = size - pos - 4 * (n - i - 1);
    if (len > static_cast<uint64_t>(room)) {
      return Status::Invalid("PLAIN BYTE_ARRAY value {} of {} claims {} bytes, {} remain", i, n, len,
                             size - pos);
    }
    out->UnsafeAppend(src + pos, static_cast<int32_t>(len));
    pos += len;
  }
  *consumed = pos;
  return Status::OK();
}

Status DecodeByteStreamSplit(const uint8_t* src, int64_t size, int width, int64_t n,
                             int64_t stream_len, uint8_t* dst) {
  if (stream_len < n || stream_len * width > size) {
    return Status::Invalid("BYTE_STREAM_SPLIT data of {} bytes cannot hold {} values of {} bytes",
                           size, n, width);
  }
  if (width == 4 || width == 8) {
    // Gather one value at a time; the compiler keeps the streams in registers.
    for (int64_t i = 0; i < n; ++i) {
      for (int b = 0; b < width; ++b) dst[i * width + b] = src[b * stream_len + i];
    }
    return Status::OK();
  }
  for (int b = 0; b < width; ++b) {
    const uint8_t* s = src + b * stream_len;
    for (int64_t i = 0; i < n; ++i) dst[i * width + b] = s[i];
  }
  return Status::OK();
}

void EncodePlainByteArray(const uint8_t* data, const int32_t* offsets, int64_t n,
                          std::string* out) {
  const int64_t bytes = offsets[n] - offsets[0];
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>(4 * n + bytes));
  char* dst = out->data() + start;
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t len = static_cast<uint32_t>(offsets[i + 1] - offsets[i]);
    std::memcpy(dst, &len, 4);
    dst += 4;
    if (len > 0) std::memcpy(dst, data + offsets[i], len);
    dst += len;
  }
}

void EncodeByteStreamSplit(const uint8_t* values, int width, int64_t n, std::string* out) {
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>(n * width));
  uint8_t* dst = reinterpret_cast<uint8_t*>(out->data() + start);
  for (int b = 0; b < width; ++b) {
    for (int64_t i = 0; i < n; ++i) dst[b * n + i] = values[i * width + b];
  }
}

}  // namespace quiver::parquet
