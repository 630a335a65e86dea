// Bit-level helpers for Arrow validity bitmaps and boolean arrays
// (least-significant bit first within each byte).
#pragma once

#include <cstdint>
#include <cstring>

namespace quiver::bit_util {

inline bool GetBit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline void SetBit(uint8_t* bits, int64_t i) { bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7)); }
inline void ClearBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] &= static_cast<uint8_t>(~(1u << (i & 7)));
}
inline void SetBitTo(uint8_t* bits, int64_t i, bool v) {
  bits[i >> 3] ^= static_cast<uint8_t>((-static_cast<uint8_t>(v) ^ bits[i >> 3]) & (1u << (i & 7)));
}
inline constexpr int64_t BytesForBits(int64_t bits) { return (bits + 7) >> 3; }

// Number of set bits in [offset, offset+length).
int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length);

// Copies `length` bits from src at src_offset into dst at dst_offset.
void CopyBitmap(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst,
                int64_t dst_offset);

// Sets `length` bits starting at `offset` to `value`.
void SetBitsTo(uint8_t* bits, int64_t offset, int64_t length, bool value);

}  // namespace quiver::bit_util
