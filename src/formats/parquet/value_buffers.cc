#include "formats/parquet/value_buffers.h"

#include <algorithm>

namespace quiver::parquet {

Status ByteArrayBuilder::Grow(std::shared_ptr<MutableBuffer>* buf, int64_t needed_bytes) {
  const int64_t old_capacity = *buf ? (*buf)->capacity() : 0;
  if (*buf != nullptr && needed_bytes <= old_capacity) return Status::OK();
  const int64_t target = std::max<int64_t>(needed_bytes, old_capacity + old_capacity / 2);
  QUIVER_RETURN_NOT_OK(budget_->Charge(target - old_capacity, context_));
  if (*buf == nullptr) {
    QUIVER_ASSIGN_OR_RAISE(*buf, MutableBuffer::Allocate(0, pool_));
  }
  const int64_t size = (*buf)->size();
  QUIVER_RETURN_NOT_OK((*buf)->Reserve(target));
  QUIVER_RETURN_NOT_OK((*buf)->Resize(size));
  return Status::OK();
}

Status ByteArrayBuilder::ReserveOffsets(int64_t n) {
  QUIVER_RETURN_NOT_OK(Grow(&offsets_buf_, (n + 1) * 4));
  offsets_ = offsets_buf_->mutable_data_as<int32_t>();
  if (length_ == 0) offsets_[0] = 0;
  return Status::OK();
}

Status ByteArrayBuilder::Reserve(int64_t values, int64_t bytes) {
  if (bytes < 0 || data_size_ + bytes > INT32_MAX) {
    return Status::Unsupported("{}: more than 2 GiB of BYTE_ARRAY data in one column chunk",
                               context_);
  }
  QUIVER_RETURN_NOT_OK(ReserveOffsets(length_ + values));
  QUIVER_RETURN_NOT_OK(Grow(&data_buf_, data_size_ + bytes));
  data_ = data_buf_->mutable_data();
  return Status::OK();
}

std::shared_ptr<MutableBuffer> ByteArrayBuilder::TakeData() {
  if (data_buf_) {
    (void)data_buf_->Resize(data_size_);
    data_buf_->ZeroPadding();
  }
  data_ = nullptr;
  return std::move(data_buf_);
}

}  // namespace quiver::parquet
