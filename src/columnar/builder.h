// Builders: append values one at a time (or in bulk) and Finish() into an
// ArrayData with the Arrow layout. One builder class per physical layout;
// MakeBuilder(type) picks the right one for any supported type.
//
//   Int64Builder b;                       // NumericBuilder<int64_t> for int64()
//   b.Append(1); b.AppendNull(); b.Append(3);
//   QUIVER_ASSIGN_OR_RAISE(ArrayRef arr, b.Finish());
//
// Builders allocate from a MemoryPool; Finish() zero-pads buffers and resets
// the builder for reuse. Not thread-safe: one builder per thread.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "columnar/array.h"

namespace quiver {

// Growable byte buffer with typed append helpers.
class BufferBuilder {
 public:
  explicit BufferBuilder(MemoryPool* pool = DefaultMemoryPool()) : pool_(pool) {}

  Status Reserve(int64_t additional_bytes) {
    if (size_ + additional_bytes <= capacity_) return Status::OK();
    return Grow(size_ + additional_bytes);
  }
  Status Append(const void* data, int64_t n) {
    QUIVER_RETURN_NOT_OK(Reserve(n));
    UnsafeAppend(data, n);
    return Status::OK();
  }
  void UnsafeAppend(const void* data, int64_t n) {
    if (n > 0) std::memcpy(data_ + size_, data, static_cast<size_t>(n));
    size_ += n;
  }
  template <typename T>
  Status Append(T v) {
    return Append(&v, sizeof(T));
  }
  template <typename T>
  void UnsafeAppend(T v) {
    std::memcpy(data_ + size_, &v, sizeof(T));
    size_ += sizeof(T);
  }
  Status AppendZeros(int64_t n);
  Status Resize(int64_t new_size);  // new bytes uninitialised

  uint8_t* mutable_data() { return data_; }
  const uint8_t* data() const { return data_; }
  int64_t size() const { return size_; }
  int64_t capacity() const { return capacity_; }
  // Hands the bytes over as a zero-padded Buffer and resets the builder.
  Result<std::shared_ptr<Buffer>> Finish();
  void Reset();

 private:
  Status Grow(int64_t min_capacity);

  MemoryPool* pool_;
  std::shared_ptr<MutableBuffer> buffer_;
  uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  int64_t capacity_ = 0;
};

// Bit-packed builder for validity bitmaps and boolean values.
class BitmapBuilder {
 public:
  explicit BitmapBuilder(MemoryPool* pool = DefaultMemoryPool()) : bytes_(pool) {}
  Status Reserve(int64_t additional_bits);
  Status Append(bool v) {
    QUIVER_RETURN_NOT_OK(Reserve(1));
    UnsafeAppend(v);
    return Status::OK();
  }
  void UnsafeAppend(bool v) {
    bit_util::SetBitTo(bytes_.mutable_data(), length_, v);
    false_count_ += !v;
    ++length_;
  }
  Status AppendN(int64_t n, bool v);
  int64_t length() const { return length_; }
  int64_t false_count() const { return false_count_; }
  Result<std::shared_ptr<Buffer>> Finish();
  void Reset();

 private:
  BufferBuilder bytes_;
  int64_t length_ = 0;
  int64_t false_count_ = 0;
};

class ArrayBuilder {
 public:
  ArrayBuilder(TypeRef type, MemoryPool* pool) : type_(std::move(type)), pool_(pool), validity_(pool) {}
  virtual ~ArrayBuilder() = default;

  const TypeRef& type() const { return type_; }
  int64_t length() const { return length_; }
  int64_t null_count() const { return null_count_; }

  virtual Status AppendNull() = 0;
  virtual Status AppendNulls(int64_t n);
  // Appends the default ("empty") value as a valid slot; used by struct
  // builders to keep children aligned.
  virtual Status AppendEmptyValue() = 0;
  // Appends slots [offset, offset+length) of `array` (same type).
  virtual Status AppendArraySlice(const ArrayData& array, int64_t offset, int64_t length);
  virtual Status Reserve(int64_t additional) { return validity_.Reserve(additional); }
  virtual Result<ArrayRef> Finish() = 0;

  // Child builders of nested builders (list: 1, struct: n).
  virtual int num_children() const { return 0; }
  virtual ArrayBuilder* child(int /*i*/) { return nullptr; }

 protected:
  // Records validity for one slot. The bitmap is materialised lazily: it
  // stays absent until the first null.
  Status AppendValidity(bool valid);
  Status AppendValidityN(int64_t n, bool valid);
  Result<std::shared_ptr<Buffer>> FinishValidity();  // null if no nulls
  void ResetBase();

  TypeRef type_;
  MemoryPool* pool_;
  BitmapBuilder validity_;
  bool has_bitmap_ = false;  // whether validity_ holds bits yet
  int64_t length_ = 0;
  int64_t null_count_ = 0;
};

class NullBuilder final : public ArrayBuilder {
 public:
  explicit NullBuilder(MemoryPool* pool = DefaultMemoryPool()) : ArrayBuilder(null(), pool) {}
  Status AppendNull() override { return AppendNulls(1); }
  Status AppendNulls(int64_t n) override;
  Status AppendEmptyValue() override { return AppendNull(); }
  Status AppendArraySlice(const ArrayData& array, int64_t offset, int64_t length) override;
  Result<ArrayRef> Finish() override;
};

class BooleanBuilder final : public ArrayBuilder {
 public:
  explicit BooleanBuilder(MemoryPool* pool = DefaultMemoryPool())
      : ArrayBuilder(boolean(), pool), values_(pool) {}
  Status Append(bool v);
  Status AppendNull() override;
  Status AppendEmptyValue() override { return Append(false); }
  Status AppendArraySlice(const ArrayData& array, int64_t offset, int64_t length) override;
  Result<ArrayRef> Finish() override;

 private:
  BitmapBuilder values_;
};

// Fixed-width values of C type T: integers, floats, half floats (uint16_t),
// dates, times, timestamps, durations, month intervals. `type` must have a
// bit width equal to sizeof(T) * 8.
template <typename T>
class NumericBuilder final : public ArrayBuilder {
 public:
  explicit NumericBuilder(TypeRef type, MemoryPool* pool = DefaultMemoryPool())
      : ArrayBuilder(std::move(type), pool), values_(pool) {}

  Status Append(T v) {
    QUIVER_RETURN_NOT_OK(values_.Append(v));
    return AppendValidity(true);
  }
  // Appends n values; `valid` (may be null) is one byte per value, 0 = null.
  Status AppendValues(const T* values, int64_t n, const uint8_t* valid = nullptr);
  Status AppendNull() override {
    QUIVER_RETURN_NOT_OK(values_.Append(T{}));
    return AppendValidity(false);
  }
  Status AppendEmptyValue() override { return Append(T{}); }
  Status Reserve(int64_t additional) override {
    QUIVER_RETURN_NOT_OK(values_.Reserve(additional * static_cast<int64_t>(sizeof(T))));
    return ArrayBuilder::Reserve(additional);
  }
  Status AppendArraySlice(const ArrayData& array, int64_t offset, int64_t length) override;
  Result<ArrayRef> Finish() override;

 private:
  BufferBuilder values_;
};

using Int8Builder = NumericBuilder<int8_t>;
using Int16Builder = NumericBuilder<int16_t>;
using Int32Builder = NumericBuilder<int32_t>;
using Int64Builder = NumericBuilder<int64_t>;
using UInt8Builder = NumericBuilder<uint8_t>;
using UInt16Builder = NumericBuilder<uint16_t>;
using UInt32Builder = NumericBuilder<uint32_t>;
using UInt64Builder = NumericBuilder<uint64_t>;
using FloatBuilder = NumericBuilder<float>;
using DoubleBuilder = NumericBuilder<double>;

// Fixed-size binary, decimals (little-endian two's complement), interval
// day_time and month_day_nano: opaque values of type->byte_width (or the
// interval's size) bytes each.
class FixedSizeBinaryBuilder final : public ArrayBuilder {
 public:
  explicit FixedSizeBinaryBuilder(TypeRef type, MemoryPool* pool = DefaultMemoryPool());
  // REQUIRES: value.size() == byte_width().
  Status Append(std::string_view value);
  Status Append(const uint8_t* value) {
    return Append(std::string_view(reinterpret_cast<const char*>(value), byte_width_));
  }
  Status AppendNull() override;
  Status AppendEmptyValue() override;
  Status AppendArraySlice(const ArrayData& array, int64_t offset, int64_t length) override;
  Result<ArrayRef> Finish() override;
  int32_t byte_width() const { return byte_width_; }

 private:
  int32_t byte_width_;
  BufferBuilder values_;
};

// utf8/binary (OffsetT = int32_t) and large_utf8/large_binary (int64_t).
template <typename OffsetT>
class BaseBinaryBuilder final : public ArrayBuilder {
 public:
  explicit BaseBinaryBuilder(TypeRef type, MemoryPool* pool = DefaultMemoryPool());
  Status Append(std::string_view value);
  Status AppendNull() override;
  Status AppendEmptyValue() override { return Append(std::string_view()); }
  Status ReserveData(int64_t bytes) { return data_.Reserve(bytes); }
  Status Reserve(int64_t additional) override {
    QUIVER_RETURN_NOT_OK(offsets_.Reserve(additional * static_cast<int64_t>(sizeof(OffsetT))));
    return ArrayBuilder::Reserve(additional);
  }
  int64_t value_data_length() const { return data_.size(); }
  Status AppendArraySlice(const ArrayData& array, int64_t offset, int64_t length) override;
  Result<ArrayRef> Finish() override;

 private:
  BufferBuilder offsets_;
  BufferBuilder data_;
};
using StringBuilder = BaseBinaryBuilder<int32_t>;      // utf8() or binary()
using LargeStringBuilder = BaseBinaryBuilder<int64_t>;  // large_utf8() or large_binary()

// utf8_view / binary_view: 16-byte views, strings > 12 bytes go to one
// variadic data buffer.
class BinaryViewBuilder final : public ArrayBuilder {
 public:
  explicit BinaryViewBuilder(TypeRef type, MemoryPool* pool = DefaultMemoryPool());
  Status Append(std::string_view value);
  Status AppendNull() override;
  Status AppendEmptyValue() override { return Append(std::string_view()); }
  Status AppendArraySlice(const ArrayData& array, int64_t offset, int64_t length) override;
  Result<ArrayRef> Finish() override;

 private:
  BufferBuilder views_;
  BufferBuilder data_;
};

// list / large_list (OffsetT int32_t / int64_t) and map (a list of entries
// structs). Append(true) opens a list slot; then append its elements to
// value_builder().
template <typename OffsetT>
class BaseListBuilder final : public ArrayBuilder {
 public:
  BaseListBuilder(TypeRef type, std::unique_ptr<ArrayBuilder> value_builder,
                  MemoryPool* pool = DefaultMemoryPool());
  // Starts a new valid list slot; its elements are whatever is appended to
  // value_builder() until the next Append/AppendNull/Finish.
  Status Append();
  Status AppendNull() override;
  Status AppendEmptyValue() override { return Append(); }
  ArrayBuilder* value_builder() { return value_builder_.get(); }
  int num_children() const override { return 1; }
  ArrayBuilder* child(int) override { return value_builder_.get(); }
  Status AppendArraySlice(const ArrayData& array, int64_t offset, int64_t length) override;
  Result<ArrayRef> Finish() override;

 private:
  std::unique_ptr<ArrayBuilder> value_builder_;
  BufferBuilder offsets_;
};
using ListBuilder = BaseListBuilder<int32_t>;
using LargeListBuilder = BaseListBuilder<int64_t>;
using MapBuilder = BaseListBuilder<int32_t>;  // type = map(...), value builder = struct builder

class FixedSizeListBuilder final : public ArrayBuilder {
 public:
  FixedSizeListBuilder(TypeRef type, std::unique_ptr<ArrayBuilder> value_builder,
                       MemoryPool* pool = DefaultMemoryPool());
  // Opens a valid slot; the caller appends exactly list_size values.
  Status Append();
  // Appends a null slot and list_size empty child values.
  Status AppendNull() override;
  Status AppendEmptyValue() override;
  ArrayBuilder* value_builder() { return value_builder_.get(); }
  int num_children() const override { return 1; }
  ArrayBuilder* child(int) override { return value_builder_.get(); }
  Status AppendArraySlice(const ArrayData& array, int64_t offset, int64_t length) override;
  Result<ArrayRef> Finish() override;

 private:
  std::unique_ptr<ArrayBuilder> value_builder_;
};

// struct: Append(true) marks a valid slot; the caller appends one value to
// every child builder. AppendNull() appends an empty value to every child.
class StructBuilder final : public ArrayBuilder {
 public:
  StructBuilder(TypeRef type, std::vector<std::unique_ptr<ArrayBuilder>> children,
                MemoryPool* pool = DefaultMemoryPool());
  Status Append();
  Status AppendNull() override;
  Status AppendEmptyValue() override;
  int num_children() const override { return static_cast<int>(children_.size()); }
  ArrayBuilder* child(int i) override { return children_[i].get(); }
  Status AppendArraySlice(const ArrayData& array, int64_t offset, int64_t length) override;
  Result<ArrayRef> Finish() override;

 private:
  std::vector<std::unique_ptr<ArrayBuilder>> children_;
};

// Dictionary-encoded strings/binary: hashes values into a dictionary and
// appends indices. `type` must be dictionary(int8..int64, utf8/binary...).
class DictionaryBuilder final : public ArrayBuilder {
 public:
  explicit DictionaryBuilder(TypeRef type, MemoryPool* pool = DefaultMemoryPool());
  Status Append(std::string_view value);
  Status AppendNull() override;
  Status AppendEmptyValue() override { return Append(std::string_view()); }
  Status AppendArraySlice(const ArrayData& array, int64_t offset, int64_t length) override;
  Result<ArrayRef> Finish() override;

 private:
  std::unique_ptr<ArrayBuilder> indices_;
  std::unique_ptr<ArrayBuilder> values_;
  std::unordered_map<std::string, int64_t> memo_;
};

// Makes a builder for any type that has one (nested types recursively).
Result<std::unique_ptr<ArrayBuilder>> MakeBuilder(const TypeRef& type,
                                                  MemoryPool* pool = DefaultMemoryPool());

}  // namespace quiver
