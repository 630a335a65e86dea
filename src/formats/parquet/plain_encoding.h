// PLAIN encoding (and BYTE_STREAM_SPLIT, its byte-transposed twin):
//
//   BOOLEAN               bit-packed, LSB first
//   INT32/FLOAT           4 bytes little-endian each
//   INT64/DOUBLE          8 bytes little-endian each
//   INT96                 12 bytes each
//   FIXED_LEN_BYTE_ARRAY  type_length bytes each
//   BYTE_ARRAY            uint32 little-endian length, then the bytes
//
// BYTE_STREAM_SPLIT stores fixed-width values of K bytes as K streams: all
// first bytes, then all second bytes, and so on.
//
// Decoders read untrusted input and fail when it is shorter than the values
// it must hold; encoders append to a std::string.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "formats/parquet/value_buffers.h"

namespace quiver::parquet {

// Copies n values of `width` bytes; *consumed = n * width.
Status DecodePlainFixed(const uint8_t* src, int64_t size, int width, int64_t n, uint8_t* dst,
                        int64_t* consumed);
// n bits starting at bit `src_bit` of src into dst at bit dst_bit.
Status DecodePlainBool(const uint8_t* src, int64_t size, int64_t src_bit, int64_t n, uint8_t* dst,
                       int64_t dst_bit);
// n length-prefixed values.
Status DecodePlainByteArray(const uint8_t* src, int64_t size, int64_t n, ByteArrayBuilder* out,
                            int64_t* consumed);
// n values of `width` bytes from `width` streams of `stream_len` (>= n) bytes.
Status DecodeByteStreamSplit(const uint8_t* src, int64_t size, int width, int64_t n,
                             int64_t stream_len, uint8_t* dst);

void EncodePlainByteArray(const uint8_t* data, const int32_t* offsets, int64_t n, std::string* out);
void EncodeByteStreamSplit(const uint8_t* values, int width, int64_t n, std::string* out);

}  // namespace quiver::parquet
