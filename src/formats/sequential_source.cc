#include "formats/sequential_source.h"

#include <utility>

namespace quiver::formats {

Status SequentialSource::Init() {
  QUIVER_ASSIGN_OR_RAISE(first_, OpenInput());
  schema_ = first_->schema();
  current_ = first_.get();
  return Status::OK();
}

Result<std::unique_ptr<RecordBatchReader>> SequentialSource::ReadSequential(
    const std::vector<int>& columns) {
  QUIVER_RETURN_NOT_OK(CheckColumns(columns, *schema_, path()));
  std::unique_ptr<RecordBatchReader> input = std::move(first_);
  if (input == nullptr) {
    QUIVER_ASSIGN_OR_RAISE(input, OpenInput());
  }
  current_ = input.get();
  return ProjectColumns(std::move(input), columns);
}

int64_t SequentialSource::bytes_read() const { return current_ ? InputBytesRead(*current_) : 0; }

int64_t SequentialSource::total_bytes() const { return current_ ? InputTotalBytes(*current_) : 0; }

}  // namespace quiver::formats
