// Bit packing and the RLE / bit-packing hybrid: definition and repetition
// levels, dictionary indices (RLE_DICTIONARY) and RLE booleans.
//
//   hybrid      := run*
//   run         := header (ULEB128)  followed by
//     header & 1 == 1: bit-packed run of (header >> 1) groups of 8 values,
//                      bit_width bits each, least-significant bit first;
//     header & 1 == 0: RLE run: the value repeated (header >> 1) times,
//                      stored in ceil(bit_width / 8) little-endian bytes.
//
// The legacy BIT_PACKED level encoding (UnpackBitsMsbFirst) packs values
// most-significant bit first, with no run headers.
//
// The decoder reads untrusted bytes: runs are clamped to the input, and a
// caller that needs exactly n values checks the count it got back.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace quiver::parquet {

class RleBitPackedDecoder {
 public:
  RleBitPackedDecoder() = default;
  // REQUIRES: 0 <= bit_width <= 32.
  RleBitPackedDecoder(const uint8_t* data, int64_t size, int bit_width)
      : data_(data), size_(size), bit_width_(bit_width) {}

  // Decodes up to n values; returns how many (fewer only at the end of the
  // input). Error on malformed runs.
  template <typename T>
  Result<int64_t> GetBatch(T* out, int64_t n);

  // Like GetBatch, failing when a value is >= `bound` (dictionary indices).
  Result<int64_t> GetIndices(int32_t* out, int64_t n, int32_t bound);

  int64_t bytes_consumed() const { return pos_; }

 private:
  Status NextRun();

  const uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  int bit_width_ = 0;
  int64_t pos_ = 0;
  // Current run.
  int64_t repeat_left_ = 0;
  uint32_t repeat_value_ = 0;
  int64_t literal_left_ = 0;
  int64_t literal_bit_ = 0;  // bit position of the next literal value (absolute)
};

// Unpacks n values of `bit_width` (<= 32) bits, LSB first, starting at bit
// `bit_offset` of data[0, size). REQUIRES: the bits are within the input.
void UnpackBits32(const uint8_t* data, int64_t size, int64_t bit_offset, int bit_width,
                  uint32_t* out, int64_t n);
// The same for widths up to 64 (DELTA_BINARY_PACKED miniblocks).
void UnpackBits64(const uint8_t* data, int64_t size, int64_t bit_offset, int bit_width,
                  uint64_t* out, int64_t n);
// Legacy BIT_PACKED levels: MSB first. REQUIRES: size >= ceil(n*bit_width/8).
void UnpackBitsMsbFirst(const uint8_t* data, int bit_width, int16_t* out, int64_t n);

// Bits needed for values up to max_value (0 for 0).
inline int BitWidth(uint64_t max_value) {
  int w = 0;
  while (max_value != 0) {
    ++w;
    max_value >>= 1;
  }
  return w;
}

// Appends the hybrid encoding of values[0, n) to *out: RLE runs for repeats
// of 8 or more, bit-packed groups otherwise (the last group zero-padded).
template <typename T>
void RleBitPackedEncode(const T* values, int64_t n, int bit_width, std::string* out);

// Appends values LSB-first bit-packed (bit_width <= 64) to *out.
void PackBits(const uint64_t* values, int64_t n, int bit_width, std::string* out);

}  // namespace quiver::parquet
