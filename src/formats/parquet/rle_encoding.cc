#include "formats/parquet/rle_encoding.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace quiver::parquet {
namespace {

inline uint64_t LoadUpTo8(const uint8_t* p, int64_t avail) {
  uint64_t w = 0;
  if (avail >= 8) {
    std::memcpy(&w, p, 8);
  } else if (avail > 0) {
    std::memcpy(&w, p, static_cast<size_t>(avail));
  }
  return w;
}

// Groups of 8 values of BW bits start on a byte boundary (8 * BW bits), so
// with BW a constant every shift and offset below is one too and the loop
// unrolls into straight loads and masks.
template <int BW>
void UnpackGroups(const uint8_t* p, uint32_t* out, int64_t groups) {
  constexpr uint64_t kMask = (uint64_t{1} << BW) - 1;
  for (int64_t g = 0; g < groups; ++g, p += BW, out += 8) {
    for (int j = 0; j < 8; ++j) {
      uint64_t w;
      std::memcpy(&w, p + (j * BW) / 8, 8);
      out[j] = static_cast<uint32_t>((w >> ((j * BW) % 8)) & kMask);
    }
  }
}

using UnpackGroupsFn = void (*)(const uint8_t*, uint32_t*, int64_t);

template <int... BW>
constexpr std::array<UnpackGroupsFn, sizeof...(BW)> MakeUnpackTable(
    std::integer_sequence<int, BW...>) {
  return {&UnpackGroups<BW + 1>...};
}

// kUnpackGroups[w - 1] unpacks groups of width w (1..32).
constexpr auto kUnpackGroups = MakeUnpackTable(std::make_integer_sequence<int, 32>{});

}  // namespace

void UnpackBits32(const uint8_t* data, int64_t size, int64_t bit_offset, int bit_width,
                  uint32_t* out, int64_t n) {
  if (bit_width == 0) {
    std::fill(out, out + n, 0u);
    return;
  }
  const uint64_t mask = (uint64_t{1} << bit_width) - 1;
  int64_t bit = bit_offset;
  int64_t i = 0;
  if ((bit & 7) == 0 && n >= 8) {
    // Whole groups while a group's 8-byte loads stay inside the input.
    const int64_t byte = bit >> 3;
    int64_t groups = std::min<int64_t>(n / 8, (size - byte - 8) / bit_width);
    if (groups > 0) {
      kUnpackGroups[bit_width - 1](data + byte, out, groups);
      i = groups * 8;
      bit += i * bit_width;
    }
  }
  // Fast path while a full 8-byte load stays in bounds.
  const int64_t safe_bits = (size - 8) * 8;
  for (; i < n && bit <= safe_bits; ++i, bit += bit_width) {
    uint64_t w;
    std::memcpy(&w, data + (bit >> 3), 8);
    out[i] = static_cast<uint32_t>((w >> (bit & 7)) & mask);
  }
  for (; i < n; ++i, bit += bit_width) {
    const int64_t byte = bit >> 3;
    const uint64_t w = LoadUpTo8(data + byte, size - byte);
    out[i] = static_cast<uint32_t>((w >> (bit & 7)) & mask);
  }
}

void UnpackBits64(const uint8_t* data, int64_t size, int64_t bit_offset, int bit_width,
                  uint64_t* out, int64_t n) {
  if (bit_width == 0) {
    std::fill(out, out + n, uint64_t{0});
    return;
  }
  if (bit_width <= 32) {
    // Reuse the 32-bit unpacker through a small staging area.
    uint32_t tmp[64];
    for (int64_t i = 0; i < n; i += 64) {
      const int64_t k = std::min<int64_t>(64, n - i);
      UnpackBits32(data, size, bit_offset + i * bit_width, bit_width, tmp, k);
      for (int64_t j = 0; j < k; ++j) out[i + j] = tmp[j];
    }
    return;
  }
  const uint64_t mask = bit_width == 64 ? ~uint64_t{0} : (uint64_t{1} << bit_width) - 1;
  int64_t bit = bit_offset;
  for (int64_t i = 0; i < n; ++i, bit += bit_width) {
    const int64_t byte = bit >> 3;
    const int shift = static_cast<int>(bit & 7);
    uint64_t lo = LoadUpTo8(data + byte, size - byte);
    uint64_t v = lo >> shift;
    if (shift + bit_width > 64) {
      const uint64_t hi = byte + 8 < size ? data[byte + 8] : 0;
      v |= hi << (64 - shift);
    }
    out[i] = v & mask;
  }
}

void UnpackBitsMsbFirst(const uint8_t* data, int bit_width, int16_t* out, int64_t n) {
  int64_t bit = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t v = 0;
    for (int b = 0; b < bit_width; ++b, ++bit) {
      v = (v << 1) | ((data[bit >> 3] >> (7 - (bit & 7))) & 1);
    }
    out[i] = static_cast<int16_t>(v);
  }
}

Status RleBitPackedDecoder::NextRun() {
  uint64_t header = 0;
  int shift = 0;
  for (;;) {
    if (pos_ >= size_) return Status::OK();  // end of input: no run
    const uint8_t b = data_[pos_++];
    header |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) break;
    shift += 7;
    if (shift > 35) return Status::Invalid("corrupt RLE run header");
  }
  if (header & 1) {
    const int64_t groups = static_cast<int64_t>(header >> 1);
    int64_t count = groups * 8;
    const int64_t bytes = groups * bit_width_;
    int64_t avail = size_ - pos_;
    if (bytes > avail) {
      // A truncated last run: keep the values that are there.
      count = bit_width_ == 0 ? count : avail * 8 / bit_width_;
    }
    literal_left_ = count;
    literal_bit_ = pos_ * 8;
    pos_ += std::min(bytes, avail);
    if (count == 0 && groups > 0) return Status::Invalid("truncated bit-packed run");
  } else {
    const int64_t count = static_cast<int64_t>(header >> 1);
    const int nbytes = (bit_width_ + 7) / 8;
    if (size_ - pos_ < nbytes) return Status::Invalid("truncated RLE run");
    uint32_t v = 0;
    for (int i = 0; i < nbytes; ++i) v |= static_cast<uint32_t>(data_[pos_ + i]) << (8 * i);
    pos_ += nbytes;
    if (bit_width_ < 32 && (v >> bit_width_) != 0) {
      return Status::Invalid("RLE run value {} does not fit in {} bits", v, bit_width_);
    }
    repeat_left_ = count;
    repeat_value_ = v;
  }
  return Status::OK();
}

template <typename T>
Result<int64_t> RleBitPackedDecoder::GetBatch(T* out, int64_t n) {
  int64_t done = 0;
  uint32_t tmp[256];
  while (done < n) {
    if (repeat_left_ > 0) {
      const int64_t k = std::min(repeat_left_, n - done);
      std::fill(out + done, out + done + k, static_cast<T>(repeat_value_));
      repeat_left_ -= k;
      done += k;
      continue;
    }
    if (literal_left_ > 0) {
      const int64_t k = std::min<int64_t>({literal_left_, n - done, 256});
      if constexpr (sizeof(T) == 4) {
        UnpackBits32(data_, size_, literal_bit_, bit_width_,
                     reinterpret_cast<uint32_t*>(out + done), k);
      } else {
        UnpackBits32(data_, size_, literal_bit_, bit_width_, tmp, k);
        for (int64_t i = 0; i < k; ++i) out[done + i] = static_cast<T>(tmp[i]);
      }
      literal_bit_ += k * bit_width_;
      literal_left_ -= k;
      done += k;
      continue;
    }
    const int64_t before = pos_;
    QUIVER_RETURN_NOT_OK(NextRun());
    if (pos_ == before) break;  // end of input
  }
  return done;
}

Result<int64_t> RleBitPackedDecoder::GetIndices(int32_t* out, int64_t n, int32_t bound) {
  int64_t done = 0;
  while (done < n) {
    if (repeat_left_ > 0) {
      if (repeat_value_ >= static_cast<uint32_t>(bound)) {
        return Status::Invalid("dictionary index {} out of range (dictionary has {} values)",
                               repeat_value_, bound);
      }
      const int64_t k = std::min(repeat_left_, n - done);
      std::fill(out + done, out + done + k, static_cast<int32_t>(repeat_value_));
      repeat_left_ -= k;
      done += k;
      continue;
    }
    if (literal_left_ > 0) {
      const int64_t k = std::min(literal_left_, n - done);
      uint32_t* dst = reinterpret_cast<uint32_t*>(out + done);
      UnpackBits32(data_, size_, literal_bit_, bit_width_, dst, k);
      uint32_t max_seen = 0;
      for (int64_t i = 0; i < k; ++i) max_seen = std::max(max_seen, dst[i]);
      if (max_seen >= static_cast<uint32_t>(bound)) {
        return Status::Invalid("dictionary index {} out of range (dictionary has {} values)",
                               max_seen, bound);
      }
      literal_bit_ += k * bit_width_;
      literal_left_ -= k;
      done += k;
      continue;
    }
    const int64_t before = pos_;
    QUIVER_RETURN_NOT_OK(NextRun());
    if (pos_ == before) break;
  }
  return done;
}

template Result<int64_t> RleBitPackedDecoder::GetBatch<int16_t>(int16_t*, int64_t);
template Result<int64_t> RleBitPackedDecoder::GetBatch<int32_t>(int32_t*, int64_t);
template Result<int64_t> RleBitPackedDecoder::GetBatch<uint8_t>(uint8_t*, int64_t);

// --- encoding ----------------------------------------------------------------

namespace {

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

template <typename T>
void EmitLiteral(const T* values, int64_t n, int bit_width, std::string* out) {
  if (n == 0) return;
  const int64_t groups = (n + 7) / 8;
  PutVarint((static_cast<uint64_t>(groups) << 1) | 1, out);
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>(groups * bit_width), '\0');
  uint8_t* dst = reinterpret_cast<uint8_t*>(out->data() + start);
  // 8 values fill exactly bit_width bytes, so each group starts on a byte:
  // accumulate and store 32 bits at a time.
  const int64_t full = n / 8;
  for (int64_t g = 0; g < groups; ++g) {
    uint64_t acc = 0;
    int bits = 0;
    uint8_t* out = dst + g * bit_width;
    for (int j = 0; j < 8; ++j) {
      const int64_t i = g * 8 + j;
      const uint64_t v = (g < full || i < n) ? static_cast<uint64_t>(values[i]) : 0;
      acc |= v << bits;
      bits += bit_width;
      if (bits >= 32) {
        const uint32_t word = static_cast<uint32_t>(acc);
        std::memcpy(out, &word, 4);
        out += 4;
        acc >>= 32;
        bits -= 32;
      }
    }
    while (bits > 0) {
      *out++ = static_cast<uint8_t>(acc);
      acc >>= 8;
      bits -= 8;
    }
  }
}

}  // namespace

template <typename T>
void RleBitPackedEncode(const T* values, int64_t n, int bit_width, std::string* out) {
  const int value_bytes = (bit_width + 7) / 8;
  int64_t literal_start = 0;
  int64_t i = 0;
  while (i < n) {
    int64_t run = 1;
    while (i + run < n && values[i + run] == values[i]) ++run;
    if (run >= 8) {
      // Literal runs hold whole groups of 8: borrow from the repeat to fill
      // the last group.
      const int64_t pending = i - literal_start;
      const int64_t pad = (8 - pending % 8) % 8;
      if (run - pad >= 8) {
        EmitLiteral(values + literal_start, pending + pad, bit_width, out);
        const int64_t count = run - pad;
        PutVarint(static_cast<uint64_t>(count) << 1, out);
        const uint64_t v = static_cast<uint64_t>(values[i]);
        for (int b = 0; b < value_bytes; ++b) out->push_back(static_cast<char>(v >> (8 * b)));
        i += run;
        literal_start = i;
        continue;
      }
    }
    i += run;
  }
  EmitLiteral(values + literal_start, n - literal_start, bit_width, out);
}

template void RleBitPackedEncode<int16_t>(const int16_t*, int64_t, int, std::string*);
template void RleBitPackedEncode<int32_t>(const int32_t*, int64_t, int, std::string*);
template void RleBitPackedEncode<uint8_t>(const uint8_t*, int64_t, int, std::string*);

void PackBits(const uint64_t* values, int64_t n, int bit_width, std::string* out) {
  const int64_t total_bits = n * bit_width;
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>((total_bits + 7) / 8), '\0');
  uint8_t* dst = reinterpret_cast<uint8_t*>(out->data() + start);
  int64_t bit = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t v = values[i];
    int left = bit_width;
    while (left > 0) {
      const int64_t byte = bit >> 3;
      const int shift = static_cast<int>(bit & 7);
      const int take = std::min(left, 8 - shift);
      dst[byte] |= static_cast<uint8_t>((v & ((1u << take) - 1)) << shift);
      v >>= take;
      left -= take;
      bit += take;
    }
  }
}

}  // namespace quiver::parquet
