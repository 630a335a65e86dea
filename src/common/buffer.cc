#include "common/buffer.h"

#include <algorithm>

namespace quiver {

std::shared_ptr<Buffer> Buffer::Slice(int64_t offset, int64_t length) const {
  // The slice owns a reference to this buffer, which in turn owns the memory.
  auto self = std::const_pointer_cast<Buffer>(shared_from_this());
  return std::make_shared<Buffer>(data_ + offset, length, std::move(self));
}

Result<std::shared_ptr<Buffer>> Buffer::CopyFrom(std::string_view bytes, MemoryPool* pool) {
  QUIVER_ASSIGN_OR_RAISE(auto buf,
                         MutableBuffer::Allocate(static_cast<int64_t>(bytes.size()), pool));
  if (!bytes.empty()) std::memcpy(buf->mutable_data(), bytes.data(), bytes.size());
  buf->ZeroPadding();
  return std::shared_ptr<Buffer>(std::move(buf));
}

Result<std::shared_ptr<MutableBuffer>> MutableBuffer::Allocate(int64_t size, MemoryPool* pool) {
  std::shared_ptr<MutableBuffer> buf(new MutableBuffer(pool));
  // Always back the buffer with real memory so data() is never null.
  QUIVER_RETURN_NOT_OK(buf->Reserve(std::max<int64_t>(size, kAlignment)));
  QUIVER_RETURN_NOT_OK(buf->Resize(size));
  return buf;
}

MutableBuffer::~MutableBuffer() {
  if (capacity_ > 0) pool_->Free(mutable_data(), capacity_);
}

Status MutableBuffer::Reserve(int64_t new_capacity) {
  if (new_capacity <= capacity_) return Status::OK();
  new_capacity = RoundUpToAlignment(new_capacity);
  uint8_t* ptr = capacity_ > 0 ? mutable_data() : nullptr;
  if (capacity_ == 0) {
    QUIVER_RETURN_NOT_OK(pool_->Allocate(new_capacity, &ptr));
  } else {
    QUIVER_RETURN_NOT_OK(pool_->Reallocate(capacity_, new_capacity, &ptr));
  }
  data_ = ptr;
  capacity_ = new_capacity;
  return Status::OK();
}

Status MutableBuffer::Resize(int64_t new_size) {
  if (new_size < 0) return Status::Invalid("negative buffer size {}", new_size);
  if (new_size > capacity_) {
    QUIVER_RETURN_NOT_OK(Reserve(std::max(new_size, capacity_ * 2)));
  }
  size_ = new_size;
  return Status::OK();
}

void MutableBuffer::ZeroPadding() {
  if (capacity_ > size_)
    std::memset(mutable_data() + size_, 0, static_cast<size_t>(capacity_ - size_));
}

Result<std::shared_ptr<MutableBuffer>> AllocateZeroed(int64_t size, MemoryPool* pool) {
  QUIVER_ASSIGN_OR_RAISE(auto buf, MutableBuffer::Allocate(size, pool));
  if (buf->capacity() > 0)
    std::memset(buf->mutable_data(), 0, static_cast<size_t>(buf->capacity()));
  return buf;
}

}  // namespace quiver
