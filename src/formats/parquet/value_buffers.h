// Where decoded values go, and the budget that bounds how much a read may
// materialise.
//
// A Parquet file can claim far more values than its bytes could hold (an RLE
// run of 2^31 nulls takes six bytes; a DELTA_BYTE_ARRAY value can repeat a
// long prefix a million times). Every allocation whose size comes from the
// file is charged to a DecodeBudget first, so a 42 kB file cannot make the
// reader allocate petabytes: it gets a clear error instead.
//
// Thread-safety: DecodeBudget is thread-safe (shared by the columns of one
// row-group read); ByteArrayBuilder is not.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "common/buffer.h"
#include "common/status.h"

namespace quiver::parquet {

class DecodeBudget {
 public:
  explicit DecodeBudget(int64_t bytes) : limit_(bytes), remaining_(bytes) {}
  // Takes `bytes` from the budget or fails, naming `what`.
  Status Charge(int64_t bytes, const std::string& what) {
    if (bytes <= 0) return Status::OK();
    if (bytes > limit_) bytes = limit_ + 1;  // no overflow below; fails anyway
    if (remaining_.fetch_sub(bytes, std::memory_order_relaxed) - bytes < 0) {
      return Status::Invalid(
          "{}{}decoding needs more than the {} bytes allowed for this read (the larger of 1 GiB "
          "and 1024 times the compressed size): the file claims more data than its size makes "
          "plausible",
          what, what.empty() ? "" : ": ", limit_);
    }
    return Status::OK();
  }
  int64_t limit() const { return limit_; }

 private:
  int64_t limit_;
  std::atomic<int64_t> remaining_;
};

// Variable-length values as Arrow's int32 offsets + data, growing with the
// budget's permission.
class ByteArrayBuilder {
 public:
  ByteArrayBuilder(MemoryPool* pool, DecodeBudget* budget, std::string context)
      : pool_(pool), budget_(budget), context_(std::move(context)) {}

  // Room for `values` more values and `bytes` more data bytes.
  Status Reserve(int64_t values, int64_t bytes);
  // REQUIRES: Reserve() made room.
  void UnsafeAppend(const uint8_t* p, int32_t len) {
    if (len > 0) std::memcpy(data_ + data_size_, p, static_cast<size_t>(len));
    data_size_ += len;
    offsets_[++length_] = static_cast<int32_t>(data_size_);
  }
  // Appends the first `prefix` bytes of the previous value followed by
  // suffix (DELTA_BYTE_ARRAY). REQUIRES: Reserve() made room, prefix <= the
  // previous value's length.
  void UnsafeAppendWithPrefix(int32_t prefix, const uint8_t* suffix, int32_t suffix_len) {
    if (prefix > 0) {
      std::memcpy(data_ + data_size_, data_ + offsets_[length_ - 1], static_cast<size_t>(prefix));
    }
    if (suffix_len > 0) {
      std::memcpy(data_ + data_size_ + prefix, suffix, static_cast<size_t>(suffix_len));
    }
    data_size_ += prefix + suffix_len;
    offsets_[++length_] = static_cast<int32_t>(data_size_);
  }
  Status Append(const uint8_t* p, int64_t len) {
    QUIVER_RETURN_NOT_OK(Reserve(1, len));
    UnsafeAppend(p, static_cast<int32_t>(len));
    return Status::OK();
  }

  int64_t length() const { return length_; }
  int64_t data_size() const { return data_size_; }
  const int32_t* offsets() const { return offsets_; }
  const uint8_t* data() const { return data_; }
  // Value i (REQUIRES: i < length()).
  std::string_view value(int64_t i) const {
    return {reinterpret_cast<const char*>(data_ + offsets_[i]),
            static_cast<size_t>(offsets_[i + 1] - offsets_[i])};
  }

  // Hands over offsets (length()+1 int32, capacity for `offset_capacity`+1)
  // and data; the builder is empty afterwards.
  std::shared_ptr<MutableBuffer> TakeOffsets() { return std::move(offsets_buf_); }
  std::shared_ptr<MutableBuffer> TakeData();
  // Makes sure the offsets buffer can hold `n` values (+1) in total, for
  // spreading nulls in place.
  Status ReserveOffsets(int64_t n);

 private:
  Status Grow(std::shared_ptr<MutableBuffer>* buf, int64_t needed_bytes);

  MemoryPool* pool_;
  DecodeBudget* budget_;
  std::string context_;
  std::shared_ptr<MutableBuffer> offsets_buf_;
  std::shared_ptr<MutableBuffer> data_buf_;
  int32_t* offsets_ = nullptr;
  uint8_t* data_ = nullptr;
  int64_t length_ = 0;
  int64_t data_size_ = 0;
};

}  // namespace quiver::parquet
