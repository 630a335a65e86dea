#include "common/bit_util.h"

namespace quiver::bit_util {

int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length) {
  int64_t count = 0;
  int64_t i = offset;
  const int64_t end = offset + length;
  // Leading bits up to a byte boundary.
  for (; i < end && (i & 7) != 0; ++i) count += GetBit(bits, i);
  // Whole 64-bit words.
  for (; i + 64 <= end; i += 64) {
    uint64_t word;
    std::memcpy(&word, bits + (i >> 3), 8);
    count += __builtin_popcountll(word);
  }
  for (; i + 8 <= end; i += 8) count += __builtin_popcount(bits[i >> 3]);
  for (; i < end; ++i) count += GetBit(bits, i);
  return count;
}

void CopyBitmap(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst,
                int64_t dst_offset) {
  if ((src_offset & 7) == 0 && (dst_offset & 7) == 0) {
    const int64_t whole = length >> 3;
    if (whole > 0) std::memcpy(dst + (dst_offset >> 3), src + (src_offset >> 3), static_cast<size_t>(whole));
    for (int64_t i = whole * 8; i < length; ++i) {
      SetBitTo(dst, dst_offset + i, GetBit(src, src_offset + i));
    }
    return;
  }
  for (int64_t i = 0; i < length; ++i) SetBitTo(dst, dst_offset + i, GetBit(src, src_offset + i));
}

void SetBitsTo(uint8_t* bits, int64_t offset, int64_t length, bool value) {
  int64_t i = offset;
  const int64_t end = offset + length;
  for (; i < end && (i & 7) != 0; ++i) SetBitTo(bits, i, value);
  const int64_t whole_bytes = (end - i) >> 3;
  if (whole_bytes > 0) std::memset(bits + (i >> 3), value ? 0xFF : 0x00, static_cast<size_t>(whole_bytes));
  i += whole_bytes * 8;
  for (; i < end; ++i) SetBitTo(bits, i, value);
}

}  // namespace quiver::bit_util
