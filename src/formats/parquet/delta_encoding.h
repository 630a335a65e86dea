// The DELTA encodings.
//
// DELTA_BINARY_PACKED (INT32, INT64):
//   header: block size (ULEB128, multiple of 128), miniblocks per block
//           (ULEB128, block size / miniblocks a multiple of 32), total value
//           count (ULEB128), first value (zigzag ULEB128)
//   blocks: min delta (zigzag ULEB128), one bit-width byte per miniblock,
//           then each miniblock's (delta - min delta) values bit-packed LSB
//           first. Miniblocks after the last value are not stored; the last
//           stored one is padded to full length.
//   Arithmetic wraps in the value type's width.
// DELTA_LENGTH_BYTE_ARRAY: the lengths DELTA_BINARY_PACKED, then all bytes.
// DELTA_BYTE_ARRAY: prefix lengths (DELTA_BINARY_PACKED), then the suffixes
//   as DELTA_LENGTH_BYTE_ARRAY; value i = value i-1's first prefix[i] bytes +
//   suffix i.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "formats/parquet/value_buffers.h"

namespace quiver::parquet {

class DeltaBinaryPackedDecoder {
 public:
  // Parses the header. `max_values` caps what the stream may claim.
  Status Init(const uint8_t* data, int64_t size);
  int64_t total_values() const { return total_; }
  // Decodes the next n values (REQUIRES: n <= total_values() - decoded so far).
  template <typename T>
  Status Decode(T* out, int64_t n);
  // Bytes used by the whole stream; valid once every value was decoded.
  int64_t bytes_consumed() const { return pos_; }

 private:
  Status StartBlock();
  Status LoadMiniblock();

  const uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  int64_t pos_ = 0;
  uint64_t block_size_ = 0;
  uint64_t miniblocks_ = 0;
  uint64_t per_miniblock_ = 0;
  int64_t total_ = 0;
  int64_t returned_ = 0;
  uint64_t last_ = 0;  // last value (wrapping arithmetic)
  bool first_pending_ = true;
  // Current block.
  uint64_t min_delta_ = 0;
  uint8_t widths_[256] = {};
  uint64_t miniblock_index_ = 0;
  // Current miniblock, unpacked.
  std::vector<uint64_t> deltas_;
  int64_t delta_pos_ = 0;
  int64_t delta_count_ = 0;
};

Status DecodeDeltaLengthByteArray(const uint8_t* src, int64_t size, int64_t n,
                                  ByteArrayBuilder* out);
Status DecodeDeltaByteArray(const uint8_t* src, int64_t size, int64_t n, ByteArrayBuilder* out);

// Encoders (values as int64; `is_int32` wraps in 32 bits).
void EncodeDeltaBinaryPacked(const int64_t* values, int64_t n, bool is_int32, std::string* out);
void EncodeDeltaLengthByteArray(const uint8_t* data, const int32_t* offsets, int64_t n,
                                std::string* out);
void EncodeDeltaByteArray(const uint8_t* data, const int32_t* offsets, int64_t n, std::string* out);

}  // namespace quiver::parquet
