// Column accumulators for generated chunks: plain vectors while a chunk is
// being filled (no Status per value, no validity bitmap: every generated
// column is NOT NULL), turned into Arrow arrays once at the end.
//
//   Int32Column c;  c.Append(7);  QUIVER_ASSIGN_OR_RAISE(ArrayRef a, c.Finish(int32()));
//
// Not thread-safe: one set of columns per chunk task.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/array.h"
#include "columnar/builder.h"

namespace quiver::gen {

// Copies `bytes` into a new zero-padded pool buffer.
inline Result<std::shared_ptr<Buffer>> CopyToBuffer(const void* data, int64_t bytes) {
  QUIVER_ASSIGN_OR_RAISE(auto buffer, MutableBuffer::Allocate(bytes));
  if (bytes > 0) std::memcpy(buffer->mutable_data(), data, static_cast<size_t>(bytes));
  buffer->ZeroPadding();
  return std::shared_ptr<Buffer>(std::move(buffer));
}

// int32 / int64 / date32 values (T must match the type's width).
template <typename T>
class FixedColumn {
 public:
  void Reserve(int64_t n) { values_.reserve(static_cast<size_t>(n)); }
  void Append(T v) { values_.push_back(v); }
  int64_t size() const { return static_cast<int64_t>(values_.size()); }
  Result<ArrayRef> Finish(const TypeRef& type) {
    const auto n = static_cast<int64_t>(values_.size());
    QUIVER_ASSIGN_OR_RAISE(auto data, CopyToBuffer(values_.data(), n * int64_t{sizeof(T)}));
    values_.clear();
    return ArrayData::Make(type, n, {nullptr, std::move(data)}, 0);
  }

 private:
  std::vector<T> values_;
};
using Int32Column = FixedColumn<int32_t>;
using Int64Column = FixedColumn<int64_t>;

// decimal128 values given as unscaled int64 (cents for scale 2): stored as
// 16-byte little-endian two's complement.
class Decimal128Column {
 public:
  void Reserve(int64_t n) { values_.reserve(static_cast<size_t>(n)); }
  void Append(int64_t unscaled) { values_.push_back(unscaled); }
  Result<ArrayRef> Finish(const TypeRef& type) {
    const auto n = static_cast<int64_t>(values_.size());
    QUIVER_ASSIGN_OR_RAISE(auto buffer, MutableBuffer::Allocate(n * 16));
    auto* out = buffer->mutable_data_as<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      out[2 * i] = values_[static_cast<size_t>(i)];
      out[2 * i + 1] = values_[static_cast<size_t>(i)] < 0 ? -1 : 0;
    }
    buffer->ZeroPadding();
    values_.clear();
    return ArrayData::Make(type, n, {nullptr, std::shared_ptr<Buffer>(std::move(buffer))}, 0);
  }

 private:
  std::vector<int64_t> values_;
};

// utf8 values.
class StringColumn {
 public:
  StringColumn() { offsets_.push_back(0); }
  void Reserve(int64_t n, int64_t bytes) {
    offsets_.reserve(static_cast<size_t>(n) + 1);
    data_.reserve(static_cast<size_t>(bytes));
  }
  void Append(std::string_view s) {
    data_.append(s);
    offsets_.push_back(static_cast<int32_t>(data_.size()));
  }
  // Appends `n` bytes to be filled in by the caller; returns where they go.
  char* AppendUninitialized(size_t n) {
    const size_t old = data_.size();
    data_.resize(old + n);
    offsets_.push_back(static_cast<int32_t>(data_.size()));
    return data_.data() + old;
  }
  // Drops the last `n` bytes of the last value (after AppendUninitialized).
  void TrimLast(size_t n) {
    data_.resize(data_.size() - n);
    offsets_.back() = static_cast<int32_t>(data_.size());
  }
  Result<ArrayRef> Finish(const TypeRef& type) {
    const auto n = static_cast<int64_t>(offsets_.size()) - 1;
    QUIVER_ASSIGN_OR_RAISE(auto offsets, CopyToBuffer(offsets_.data(), (n + 1) * 4));
    QUIVER_ASSIGN_OR_RAISE(auto data,
                           CopyToBuffer(data_.data(), static_cast<int64_t>(data_.size())));
    offsets_.assign(1, 0);
    data_.clear();
    return ArrayData::Make(type, n, {nullptr, std::move(offsets), std::move(data)}, 0);
  }

 private:
  std::vector<int32_t> offsets_;
  std::string data_;
};

}  // namespace quiver::gen
