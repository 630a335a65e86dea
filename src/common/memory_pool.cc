#include "common/memory_pool.h"

#include <cstdlib>
#include <cstring>

namespace quiver {

namespace {
// Zero-size allocations return this so callers always get a valid aligned pointer.
alignas(kAlignment) uint8_t zero_size_area[1];
}  // namespace

MemoryPool::MemoryPool(std::string name, int64_t limit, MemoryPool* parent)
    : name_(std::move(name)), limit_(limit), parent_(parent) {}

Status MemoryPool::Reserve(int64_t size) {
  int64_t now = bytes_allocated_.fetch_add(size, std::memory_order_relaxed) + size;
  if (limit_ >= 0 && now > limit_) {
    bytes_allocated_.fetch_sub(size, std::memory_order_relaxed);
    return Status::OutOfMemory("memory pool '{}': allocating {} bytes would exceed the limit of {} bytes",
                               name_, size, limit_);
  }
  if (parent_ != nullptr) {
    Status st = parent_->Reserve(size);
    if (!st.ok()) {
      bytes_allocated_.fetch_sub(size, std::memory_order_relaxed);
      return st;
    }
  }
  int64_t peak = peak_bytes_.load(std::memory_order_relaxed);
  while (now > peak && !peak_bytes_.compare_exchange_weak(peak, now)) {
  }
  return Status::OK();
}

void MemoryPool::Release(int64_t size) {
  bytes_allocated_.fetch_sub(size, std::memory_order_acq_rel);
  if (parent_ != nullptr) parent_->Release(size);
  // May delete this pool: nothing may follow.
  if (orphaned_.load(std::memory_order_acquire)) MaybeDelete();
}

Status MemoryPool::Allocate(int64_t size, uint8_t** out) {
  if (size < 0) return Status::Invalid("negative allocation size {}", size);
  if (size == 0) {
    *out = zero_size_area;
    return Status::OK();
  }
  QUIVER_RETURN_NOT_OK(Reserve(size));
  void* p = nullptr;
  if (posix_memalign(&p, kAlignment, static_cast<size_t>(size)) != 0 || p == nullptr) {
    Release(size);
    return Status::OutOfMemory("failed to allocate {} bytes", size);
  }
  *out = static_cast<uint8_t*>(p);
  return Status::OK();
}

Status MemoryPool::Reallocate(int64_t old_size, int64_t new_size, uint8_t** ptr) {
  uint8_t* fresh = nullptr;
  QUIVER_RETURN_NOT_OK(Allocate(new_size, &fresh));
  if (old_size > 0 && new_size > 0) {
    std::memcpy(fresh, *ptr, static_cast<size_t>(std::min(old_size, new_size)));
  }
  Free(*ptr, old_size);
  *ptr = fresh;
  return Status::OK();
}

void MemoryPool::Free(uint8_t* ptr, int64_t size) {
  if (ptr == zero_size_area || ptr == nullptr) return;
  std::free(ptr);
  Release(size);  // may delete this pool
}

void MemoryPool::ReleaseWhenUnused() {
  orphaned_.store(true, std::memory_order_release);
  MaybeDelete();
}

void MemoryPool::MaybeDelete() {
  if (bytes_allocated_.load(std::memory_order_acquire) != 0) return;
  bool expected = false;
  // Exactly one caller gets to delete.
  if (deleting_.compare_exchange_strong(expected, true)) delete this;
}

MemoryPool* DefaultMemoryPool() {
  static MemoryPool pool("default");
  return &pool;
}

}  // namespace quiver
