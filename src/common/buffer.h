// Buffer: an immutable, reference-counted span of bytes.
//
// A Buffer either owns memory allocated from a MemoryPool (64-byte aligned and
// zero-padded to a multiple of 64 bytes, as the Arrow format recommends), or
// views memory owned by something else: another Buffer (a zero-copy slice) or
// an mmap'd file region. The `owner_` shared_ptr keeps that memory alive, so a
// record batch read from an mmap'd IPC file keeps the mapping open for as long
// as any of its arrays is referenced.
//
// MutableBuffer is the growable, owning form used by builders and readers; it
// is frozen into a Buffer by sharing it (MutableBuffer derives from Buffer).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "common/memory_pool.h"
#include "common/status.h"

namespace quiver {

class Buffer : public std::enable_shared_from_this<Buffer> {
 public:
  // Views [data, data+size) kept alive by `owner` (may be null for static data).
  Buffer(const uint8_t* data, int64_t size, std::shared_ptr<const void> owner = nullptr)
      : data_(data), size_(size), owner_(std::move(owner)) {}
  virtual ~Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  const uint8_t* data() const { return data_; }
  int64_t size() const { return size_; }
  template <typename T>
  const T* data_as() const {
    return reinterpret_cast<const T*>(data_);
  }
  std::string_view view() const {
    return {reinterpret_cast<const char*>(data_), static_cast<size_t>(size_)};
  }

  // Zero-copy view of [offset, offset+length) that keeps this buffer alive.
  // REQUIRES: 0 <= offset, offset + length <= size().
  std::shared_ptr<Buffer> Slice(int64_t offset, int64_t length) const;

  bool Equals(const Buffer& other) const {
    return size_ == other.size_ && (size_ == 0 || std::memcmp(data_, other.data_, size_) == 0);
  }

  // Copies `bytes` into a new pool-allocated buffer.
  static Result<std::shared_ptr<Buffer>> CopyFrom(std::string_view bytes,
                                                  MemoryPool* pool = DefaultMemoryPool());

 protected:
  const uint8_t* data_;
  int64_t size_;
  std::shared_ptr<const void> owner_;
};

// An owning, resizable buffer. Capacity is always a multiple of 64 and the
// bytes between size() and capacity() are zeroed when the buffer is frozen
// (ZeroPadding), so written files never leak uninitialised memory.
class MutableBuffer final : public Buffer {
 public:
  static Result<std::shared_ptr<MutableBuffer>> Allocate(int64_t size,
                                                         MemoryPool* pool = DefaultMemoryPool());
  ~MutableBuffer() override;

  uint8_t* mutable_data() { return const_cast<uint8_t*>(data_); }
  template <typename T>
  T* mutable_data_as() {
    return reinterpret_cast<T*>(mutable_data());
  }
  int64_t capacity() const { return capacity_; }

  // Changes size, growing capacity geometrically when needed. Contents up to
  // min(old, new) size are kept; new bytes are uninitialised.
  Status Resize(int64_t new_size);
  Status Reserve(int64_t new_capacity);
  // Zeroes [size, capacity).
  void ZeroPadding();

 private:
  explicit MutableBuffer(MemoryPool* pool) : Buffer(nullptr, 0), pool_(pool) {}
  MemoryPool* pool_;
  int64_t capacity_ = 0;
};

// Allocates a zero-filled buffer of `size` bytes.
Result<std::shared_ptr<MutableBuffer>> AllocateZeroed(int64_t size,
                                                      MemoryPool* pool = DefaultMemoryPool());

}  // namespace quiver
