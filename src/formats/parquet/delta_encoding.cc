#include "formats/parquet/delta_encoding.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "formats/parquet/rle_encoding.h"

namespace quiver::parquet {
namespace {

// Bounds a hostile header: legitimate writers use 128-value blocks of 4
// miniblocks (parquet-mr, Arrow) or similar.
constexpr uint64_t kMaxValuesPerMiniblock = 1 << 16;
constexpr uint64_t kMaxMiniblocks = 256;

Status ReadUleb(const uint8_t* data, int64_t size, int64_t* pos, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (*pos >= size) return Status::Invalid("DELTA_BINARY_PACKED data ends inside a varint");
    const uint8_t b = data[(*pos)++];
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return Status::OK();
    }
  }
  return Status::Invalid("DELTA_BINARY_PACKED varint longer than 10 bytes");
}

Status ReadZigZag(const uint8_t* data, int64_t size, int64_t* pos, uint64_t* out) {
  uint64_t v;
  QUIVER_RETURN_NOT_OK(ReadUleb(data, size, pos, &v));
  *out = (v >> 1) ^ (~(v & 1) + 1);
  return Status::OK();
}

void PutUleb(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutZigZag(int64_t v, std::string* out) {
  PutUleb((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63), out);
}

}  // namespace

Status DeltaBinaryPackedDecoder::Init(const uint8_t* data, int64_t size) {
  data_ = data;
  size_ = size;
  pos_ = 0;
  uint64_t total, first;
  QUIVER_RETURN_NOT_OK(ReadUleb(data, size, &pos_, &block_size_));
  QUIVER_RETURN_NOT_OK(ReadUleb(data, size, &pos_, &miniblocks_));
  QUIVER_RETURN_NOT_OK(ReadUleb(data, size, &pos_, &total));
  QUIVER_RETURN_NOT_OK(ReadZigZag(data, size, &pos_, &first));
  if (block_size_ == 0 || block_size_ % 128 != 0 || miniblocks_ == 0 ||
      miniblocks_ > kMaxMiniblocks || block_size_ % miniblocks_ != 0 ||
      (block_size_ / miniblocks_) % 32 != 0 || block_size_ / miniblocks_ > kMaxValuesPerMiniblock) {
    return Status::Invalid(
        "corrupt DELTA_BINARY_PACKED header: block size {}, {} miniblocks per block", block_size_,
        miniblocks_);
  }
  if (total > static_cast<uint64_t>(INT64_MAX / 2)) {
    return Status::Invalid("corrupt DELTA_BINARY_PACKED header: {} values", total);
  }
  per_miniblock_ = block_size_ / miniblocks_;
  total_ = static_cast<int64_t>(total);
  last_ = first;
  returned_ = 0;
  first_pending_ = true;
  miniblock_index_ = miniblocks_;  // no block yet
  delta_pos_ = delta_count_ = 0;
  return Status::OK();
}

Status DeltaBinaryPackedDecoder::StartBlock() {
  QUIVER_RETURN_NOT_OK(ReadZigZag(data_, size_, &pos_, &min_delta_));
  if (size_ - pos_ < static_cast<int64_t>(miniblocks_)) {
    return Status::Invalid("DELTA_BINARY_PACKED data ends inside a block header");
  }
  std::memcpy(widths_, data_ + pos_, miniblocks_);
  pos_ += static_cast<int64_t>(miniblocks_);
  miniblock_index_ = 0;
  return Status::OK();
}

Status DeltaBinaryPackedDecoder::LoadMiniblock() {
  if (miniblock_index_ >= miniblocks_) QUIVER_RETURN_NOT_OK(StartBlock());
  const int w = widths_[miniblock_index_++];
  if (w > 64) return Status::Invalid("DELTA_BINARY_PACKED miniblock bit width {} > 64", w);
  // The previous miniblock is used up: what is left is still to come.
  const int64_t left = total_ - returned_;
  const int64_t count = std::min<int64_t>(static_cast<int64_t>(per_miniblock_), left);
  const int64_t bytes = static_cast<int64_t>(per_miniblock_) * w / 8;
  const int64_t avail = std::min(bytes, size_ - pos_);
  if (count * w > avail * 8) {
    return Status::Invalid("DELTA_BINARY_PACKED data ends inside a miniblock");
  }
  if (deltas_.size() < per_miniblock_) deltas_.resize(per_miniblock_);
  UnpackBits64(data_ + pos_, avail, 0, w, deltas_.data(), count);
  pos_ += avail;
  delta_pos_ = 0;
  delta_count_ = count;
  return Status::OK();
}

template <typename T>
Status DeltaBinaryPackedDecoder::Decode(T* out, int64_t n) {
  if (n > total_ - returned_) {
    return Status::Invalid("DELTA_BINARY_PACKED stream holds {} values, {} requested", total_,
                           returned_ + n);
  }
  int64_t i = 0;
  if (first_pending_ && n > 0) {
    out[0] = static_cast<T>(last_);
    first_pending_ = false;
    i = 1;
    ++returned_;
  }
  while (i < n) {
    if (delta_pos_ == delta_count_) {
      QUIVER_RETURN_NOT_OK(LoadMiniblock());
      if (delta_count_ == 0) return Status::Invalid("DELTA_BINARY_PACKED stream ended early");
    }
    const int64_t k = std::min(n - i, delta_count_ - delta_pos_);
    const uint64_t* d = deltas_.data() + delta_pos_;
    uint64_t last = last_;
    for (int64_t j = 0; j < k; ++j) {
      last += min_delta_ + d[j];
      out[i + j] = static_cast<T>(last);
    }
    last_ = last;
    delta_pos_ += k;
    i += k;
    returned_ += k;
  }
  return Status::OK();
}

template Status DeltaBinaryPackedDecoder::Decode<int32_t>(int32_t*, int64_t);
template Status DeltaBinaryPackedDecoder::Decode<int64_t>(int64_t*, int64_t);

Status DecodeDeltaLengthByteArray(const uint8_t* src, int64_t size, int64_t n,
                                  ByteArrayBuilder* out) {
  DeltaBinaryPackedDecoder lengths;
  QUIVER_RETURN_NOT_OK(lengths.Init(src, size));
  if (lengths.total_values() != n) {
    return Status::Invalid("DELTA_LENGTH_BYTE_ARRAY holds {} lengths for {} values",
                           lengths.total_values(), n);
  }
  std::vector<int32_t> lens(static_cast<size_t>(n));
  QUIVER_RETURN_NOT_OK(lengths.Decode(lens.data(), n));
  int64_t pos = lengths.bytes_consumed();
  int64_t total = 0;
  for (int32_t len : lens) {
    if (len < 0) return Status::Invalid("DELTA_LENGTH_BYTE_ARRAY negative length {}", len);
    total += len;
  }
  if (total > size - pos) {
    return Status::Invalid("DELTA_LENGTH_BYTE_ARRAY lengths add up to {} bytes, {} remain", total,
                           size - pos);
  }
  QUIVER_RETURN_NOT_OK(out->Reserve(n, total));
  for (int32_t len : lens) {
    out->UnsafeAppend(src + pos, len);
    pos += len;
  }
  return Status::OK();
}

Status DecodeDeltaByteArray(const uint8_t* src, int64_t size, int64_t n, ByteArrayBuilder* out) {
  DeltaBinaryPackedDecoder prefixes;
  QUIVER_RETURN_NOT_OK(prefixes.Init(src, size));
  if (prefixes.total_values() != n) {
    return Status::Invalid("DELTA_BYTE_ARRAY holds {} prefix lengths for {} values",
                           prefixes.total_values(), n);
  }
  std::vector<int32_t> pre(static_cast<size_t>(n));
  QUIVER_RETURN_NOT_OK(prefixes.Decode(pre.data(), n));
  const int64_t suffix_start = prefixes.bytes_consumed();
  DeltaBinaryPackedDecoder suffix_lengths;
  QUIVER_RETURN_NOT_OK(suffix_lengths.Init(src + suffix_start, size - suffix_start));
  if (suffix_lengths.total_values() != n) {
    return Status::Invalid("DELTA_BYTE_ARRAY holds {} suffix lengths for {} values",
                           suffix_lengths.total_values(), n);
  }
  std::vector<int32_t> suf(static_cast<size_t>(n));
  QUIVER_RETURN_NOT_OK(suffix_lengths.Decode(suf.data(), n));
  int64_t pos = suffix_start + suffix_lengths.bytes_consumed();
  int64_t prev_len = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (pre[i] < 0 || suf[i] < 0) {
      return Status::Invalid("DELTA_BYTE_ARRAY negative length in value {}", i);
    }
    if (pre[i] > prev_len) {
      return Status::Invalid("DELTA_BYTE_ARRAY value {} reuses {} bytes of a {}-byte value", i,
                             pre[i], prev_len);
    }
    if (suf[i] > size - pos) {
      return Status::Invalid("DELTA_BYTE_ARRAY suffix {} of {} bytes overruns the page", i, suf[i]);
    }
    const int64_t len = int64_t{pre[i]} + suf[i];
    // The builder charges its growth to the budget: prefixes can repeat a
    // long value many times.
    QUIVER_RETURN_NOT_OK(out->Reserve(1, len));
    out->UnsafeAppendWithPrefix(pre[i], src + pos, suf[i]);
    pos += suf[i];
    prev_len = len;
  }
  return Status::OK();
}

// --- encoders ----------------------------------------------------------------

namespace {

template <typename U>
void EncodeDbp(const int64_t* values, int64_t n, std::string* out) {
  using S = std::make_signed_t<U>;
  constexpr int kBlock = 128;
  constexpr int kMiniblocks = 4;
  constexpr int kPerMiniblock = kBlock / kMiniblocks;
  PutUleb(kBlock, out);
  PutUleb(kMiniblocks, out);
  PutUleb(static_cast<uint64_t>(n), out);
  PutZigZag(n > 0 ? static_cast<int64_t>(static_cast<S>(static_cast<U>(values[0]))) : 0, out);
  S deltas[kBlock];
  uint64_t packed[kPerMiniblock];
  for (int64_t start = 1; start < n; start += kBlock) {
    const int64_t count = std::min<int64_t>(kBlock, n - start);
    S min_delta = 0;
    for (int64_t i = 0; i < count; ++i) {
      const U d = static_cast<U>(values[start + i]) - static_cast<U>(values[start + i - 1]);
      deltas[i] = static_cast<S>(d);
      if (i == 0 || deltas[i] < min_delta) min_delta = deltas[i];
    }
    PutZigZag(min_delta, out);
    uint8_t widths[kMiniblocks] = {};
    const int used = static_cast<int>((count + kPerMiniblock - 1) / kPerMiniblock);
    for (int m = 0; m < used; ++m) {
      U max = 0;
      for (int64_t i = m * kPerMiniblock; i < std::min<int64_t>(count, (m + 1) * kPerMiniblock);
           ++i) {
        max =
            std::max<U>(max, static_cast<U>(static_cast<U>(deltas[i]) - static_cast<U>(min_delta)));
      }
      widths[m] = static_cast<uint8_t>(BitWidth(max));
    }
    out->append(reinterpret_cast<const char*>(widths), kMiniblocks);
    for (int m = 0; m < used; ++m) {
      for (int j = 0; j < kPerMiniblock; ++j) {
        const int64_t i = m * kPerMiniblock + j;
        packed[j] =
            i < count ? static_cast<U>(static_cast<U>(deltas[i]) - static_cast<U>(min_delta)) : 0;
      }
      PackBits(packed, kPerMiniblock, widths[m], out);
    }
  }
}

}  // namespace

void EncodeDeltaBinaryPacked(const int64_t* values, int64_t n, bool is_int32, std::string* out) {
  if (is_int32) {
    EncodeDbp<uint32_t>(values, n, out);
  } else {
    EncodeDbp<uint64_t>(values, n, out);
  }
}

void EncodeDeltaLengthByteArray(const uint8_t* data, const int32_t* offsets, int64_t n,
                                std::string* out) {
  std::vector<int64_t> lens(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) lens[i] = offsets[i + 1] - offsets[i];
  EncodeDeltaBinaryPacked(lens.data(), n, true, out);
  if (n > 0) out->append(reinterpret_cast<const char*>(data + offsets[0]), offsets[n] - offsets[0]);
}

void EncodeDeltaByteArray(const uint8_t* data, const int32_t* offsets, int64_t n,
                          std::string* out) {
  std::vector<int64_t> prefix(static_cast<size_t>(n));
  std::vector<int64_t> suffix(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t len = offsets[i + 1] - offsets[i];
    int64_t p = 0;
    if (i > 0) {
      const int64_t prev_len = offsets[i] - offsets[i - 1];
      const uint8_t* a = data + offsets[i - 1];
      const uint8_t* b = data + offsets[i];
      const int64_t m = std::min(prev_len, len);
      while (p < m && a[p] == b[p]) ++p;
    }
    prefix[i] = p;
    suffix[i] = len - p;
  }
  EncodeDeltaBinaryPacked(prefix.data(), n, true, out);
  EncodeDeltaBinaryPacked(suffix.data(), n, true, out);
  for (int64_t i = 0; i < n; ++i) {
    out->append(reinterpret_cast<const char*>(data + offsets[i] + prefix[i]),
                static_cast<size_t>(suffix[i]));
  }
}

}  // namespace quiver::parquet
