// MemoryPool: 64-byte-aligned allocations with byte accounting.
//
// Every buffer Quiver allocates comes from a pool so a query (or a conversion)
// can report and cap its memory. Pools nest: a child pool charges its parent,
// so a per-query pool rolls up into the process-wide default pool.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "common/status.h"

namespace quiver {

inline constexpr int64_t kAlignment = 64;

// Rounds n up to a multiple of 64 (Arrow's recommended buffer padding).
inline constexpr int64_t RoundUpToAlignment(int64_t n) { return (n + 63) & ~int64_t{63}; }

class MemoryPool {
 public:
  // `limit` < 0 means unlimited. `parent` (may be null) is charged as well.
  explicit MemoryPool(std::string name, int64_t limit = -1, MemoryPool* parent = nullptr);
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  // Allocates `size` bytes aligned to 64; the memory is NOT zeroed.
  Status Allocate(int64_t size, uint8_t** out);
  // Grows or shrinks an allocation made by this pool, keeping its contents.
  Status Reallocate(int64_t old_size, int64_t new_size, uint8_t** ptr);
  void Free(uint8_t* ptr, int64_t size);

  // Accounts `size` bytes allocated elsewhere (an operator's hash table
  // vectors) against this pool and its limit; Release gives them back.
  Status Reserve(int64_t size);
  void Release(int64_t size);

  // For pools created with `new`: deletes the pool once the last of its
  // allocations is freed (now, if none is left). Buffers may outlive the
  // owner of a pool — a query's result rows, rows copied into a table —
  // without dangling. The caller must not use the pool afterwards.
  void ReleaseWhenUnused();

  int64_t bytes_allocated() const { return bytes_allocated_.load(std::memory_order_relaxed); }
  int64_t peak_bytes() const { return peak_bytes_.load(std::memory_order_relaxed); }
  int64_t limit() const { return limit_; }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  int64_t limit_;
  MemoryPool* parent_;
  std::atomic<int64_t> bytes_allocated_{0};
  std::atomic<int64_t> peak_bytes_{0};
  std::atomic<bool> orphaned_{false};
  std::atomic<bool> deleting_{false};

  void MaybeDelete();
};

// The process-wide pool; unlimited.
MemoryPool* DefaultMemoryPool();

// Keeps a pool's account of memory an object holds outside the pool in step
// with its size: Update(bytes) reserves or releases the difference.
class MemoryReservation {
 public:
  explicit MemoryReservation(MemoryPool* pool) : pool_(pool) {}
  ~MemoryReservation() {
    if (pool_ && reserved_ > 0) pool_->Release(reserved_);
  }
  MemoryReservation(const MemoryReservation&) = delete;
  MemoryReservation& operator=(const MemoryReservation&) = delete;
  Status Update(int64_t bytes) {
    if (pool_ == nullptr || bytes == reserved_) return Status::OK();
    if (bytes > reserved_) {
      QUIVER_RETURN_NOT_OK(pool_->Reserve(bytes - reserved_));
    } else {
      pool_->Release(reserved_ - bytes);
    }
    reserved_ = bytes;
    return Status::OK();
  }

 private:
  MemoryPool* pool_;
  int64_t reserved_ = 0;
};

}  // namespace quiver
