#include "columnar/builder.h"

#include <algorithm>

namespace quiver {

// --- BufferBuilder -----------------------------------------------------------

Status BufferBuilder::Grow(int64_t min_capacity) {
  const int64_t new_capacity = std::max<int64_t>(min_capacity, std::max<int64_t>(capacity_ * 2, 64));
  if (buffer_ == nullptr) {
    QUIVER_ASSIGN_OR_RAISE(buffer_, MutableBuffer::Allocate(0, pool_));
  }
  QUIVER_RETURN_NOT_OK(buffer_->Reserve(new_capacity));
  data_ = buffer_->mutable_data();
  capacity_ = buffer_->capacity();
  return Status::OK();
}

Status BufferBuilder::AppendZeros(int64_t n) {
  QUIVER_RETURN_NOT_OK(Reserve(n));
  if (n > 0) std::memset(data_ + size_, 0, static_cast<size_t>(n));
  size_ += n;
  return Status::OK();
}

Status BufferBuilder::Resize(int64_t new_size) {
  if (new_size > capacity_) QUIVER_RETURN_NOT_OK(Grow(new_size));
  size_ = new_size;
  return Status::OK();
}

Result<std::shared_ptr<Buffer>> BufferBuilder::Finish() {
  if (buffer_ == nullptr) QUIVER_RETURN_NOT_OK(Grow(0));
  QUIVER_RETURN_NOT_OK(buffer_->Resize(size_));
  buffer_->ZeroPadding();
  std::shared_ptr<Buffer> out = std::move(buffer_);
  Reset();
  return out;
}

void BufferBuilder::Reset() {
  buffer_.reset();
  data_ = nullptr;
  size_ = 0;
  capacity_ = 0;
}

// --- BitmapBuilder -----------------------------------------------------------

Status BitmapBuilder::Reserve(int64_t additional_bits) {
  const int64_t needed = bit_util::BytesForBits(length_ + additional_bits);
  if (needed > bytes_.size()) {
    const int64_t old = bytes_.size();
    QUIVER_RETURN_NOT_OK(bytes_.Reserve(std::max<int64_t>(needed, old * 2) - old));
    // Keep bytes zeroed so SetBitTo can xor into them.
    QUIVER_RETURN_NOT_OK(bytes_.AppendZeros(bytes_.capacity() - old));
  }
  return Status::OK();
}

Status BitmapBuilder::AppendN(int64_t n, bool v) {
  QUIVER_RETURN_NOT_OK(Reserve(n));
  bit_util::SetBitsTo(bytes_.mutable_data(), length_, n, v);
  length_ += n;
  if (!v) false_count_ += n;
  return Status::OK();
}

Result<std::shared_ptr<Buffer>> BitmapBuilder::Finish() {
  QUIVER_RETURN_NOT_OK(bytes_.Resize(bit_util::BytesForBits(length_)));
  // Clear the unused trailing bits of the last byte.
  if (length_ % 8 != 0) {
    bytes_.mutable_data()[length_ / 8] &= static_cast<uint8_t>((1u << (length_ % 8)) - 1);
  }
  QUIVER_ASSIGN_OR_RAISE(auto out, bytes_.Finish());
  length_ = 0;
  false_count_ = 0;
  return out;
}

void BitmapBuilder::Reset() {
  bytes_.Reset();
  length_ = 0;
  false_count_ = 0;
}

// --- ArrayBuilder ------------------------------------------------------------

Status ArrayBuilder::AppendValidity(bool valid) {
  if (!valid && !has_bitmap_) {
    // First null: materialise the bits for all earlier (valid) slots.
    QUIVER_RETURN_NOT_OK(validity_.AppendN(length_, true));
    has_bitmap_ = true;
  }
  if (has_bitmap_) QUIVER_RETURN_NOT_OK(validity_.Append(valid));
  ++length_;
  null_count_ += !valid;
  return Status::OK();
}

Status ArrayBuilder::AppendValidityN(int64_t n, bool valid) {
  if (!valid && n > 0 && !has_bitmap_) {
    QUIVER_RETURN_NOT_OK(validity_.AppendN(length_, true));
    has_bitmap_ = true;
  }
  if (has_bitmap_) QUIVER_RETURN_NOT_OK(validity_.AppendN(n, valid));
  length_ += n;
  if (!valid) null_count_ += n;
  return Status::OK();
}

Result<std::shared_ptr<Buffer>> ArrayBuilder::FinishValidity() {
  if (!has_bitmap_ || null_count_ == 0) {
    validity_.Reset();
    return std::shared_ptr<Buffer>();
  }
  return validity_.Finish();
}

void ArrayBuilder::ResetBase() {
  validity_.Reset();
  has_bitmap_ = false;
  length_ = 0;
  null_count_ = 0;
}

Status ArrayBuilder::AppendNulls(int64_t n) {
  for (int64_t i = 0; i < n; ++i) QUIVER_RETURN_NOT_OK(AppendNull());
  return Status::OK();
}

Status ArrayBuilder::AppendArraySlice(const ArrayData& array, int64_t offset, int64_t length) {
  return Status::Unsupported("appending slices of {} arrays", array.type->ToString());
}

// --- NullBuilder / BooleanBuilder -------------------------------------------

Status NullBuilder::AppendArraySlice(const ArrayData&, int64_t, int64_t length) {
  return AppendNulls(length);
}

Status NullBuilder::AppendNulls(int64_t n) {
  length_ += n;
  null_count_ += n;
  return Status::OK();
}

Result<ArrayRef> NullBuilder::Finish() {
  auto out = ArrayData::Make(type_, length_, {}, length_);
  ResetBase();
  return out;
}

Status BooleanBuilder::Append(bool v) {
  QUIVER_RETURN_NOT_OK(values_.Append(v));
  return AppendValidity(true);
}

Status BooleanBuilder::AppendNull() {
  QUIVER_RETURN_NOT_OK(values_.Append(false));
  return AppendValidity(false);
}

Status BooleanBuilder::AppendArraySlice(const ArrayData& array, int64_t offset, int64_t length) {
  const uint8_t* bits = array.buffers[1]->data();
  for (int64_t i = offset; i < offset + length; ++i) {
    QUIVER_RETURN_NOT_OK(array.IsValid(i) ? Append(bit_util::GetBit(bits, array.offset + i))
                                          : AppendNull());
  }
  return Status::OK();
}

Result<ArrayRef> BooleanBuilder::Finish() {
  const int64_t len = length_, nulls = null_count_;
  QUIVER_ASSIGN_OR_RAISE(auto validity, FinishValidity());
  QUIVER_ASSIGN_OR_RAISE(auto values, values_.Finish());
  ResetBase();
  return ArrayData::Make(type_, len, {validity, values}, nulls);
}

// --- NumericBuilder ------------------------------------------------------------

template <typename T>
Status NumericBuilder<T>::AppendValues(const T* values, int64_t n, const uint8_t* valid) {
  QUIVER_RETURN_NOT_OK(values_.Append(values, n * static_cast<int64_t>(sizeof(T))));
  if (valid == nullptr) return AppendValidityN(n, true);
  for (int64_t i = 0; i < n; ++i) QUIVER_RETURN_NOT_OK(AppendValidity(valid[i] != 0));
  return Status::OK();
}

template <typename T>
Status NumericBuilder<T>::AppendArraySlice(const ArrayData& array, int64_t offset, int64_t length) {
  QUIVER_RETURN_NOT_OK(
      values_.Append(array.GetValues<T>(1) + offset, length * static_cast<int64_t>(sizeof(T))));
  if (array.buffers[0] == nullptr) return AppendValidityN(length, true);
  for (int64_t i = offset; i < offset + length; ++i) {
    QUIVER_RETURN_NOT_OK(AppendValidity(array.IsValid(i)));
  }
  return Status::OK();
}

template <typename T>
Result<ArrayRef> NumericBuilder<T>::Finish() {
  const int64_t len = length_, nulls = null_count_;
  QUIVER_ASSIGN_OR_RAISE(auto validity, FinishValidity());
  QUIVER_ASSIGN_OR_RAISE(auto values, values_.Finish());
  ResetBase();
  return ArrayData::Make(type_, len, {validity, values}, nulls);
}

template class NumericBuilder<int8_t>;
template class NumericBuilder<int16_t>;
template class NumericBuilder<int32_t>;
template class NumericBuilder<int64_t>;
template class NumericBuilder<uint8_t>;
template class NumericBuilder<uint16_t>;
template class NumericBuilder<uint32_t>;
template class NumericBuilder<uint64_t>;
template class NumericBuilder<float>;
template class NumericBuilder<double>;

// --- FixedSizeBinaryBuilder -------------------------------------------------

FixedSizeBinaryBuilder::FixedSizeBinaryBuilder(TypeRef type, MemoryPool* pool)
    : ArrayBuilder(std::move(type), pool), values_(pool) {
  byte_width_ = type_->byte_width > 0 ? type_->byte_width : type_->bit_width() / 8;
}

Status FixedSizeBinaryBuilder::Append(std::string_view value) {
  if (static_cast<int64_t>(value.size()) != byte_width_) {
    return Status::Invalid("{} value must be {} bytes, got {}", type_->ToString(), byte_width_,
                           value.size());
  }
  QUIVER_RETURN_NOT_OK(values_.Append(value.data(), byte_width_));
  return AppendValidity(true);
}

Status FixedSizeBinaryBuilder::AppendNull() {
  QUIVER_RETURN_NOT_OK(values_.AppendZeros(byte_width_));
  return AppendValidity(false);
}

Status FixedSizeBinaryBuilder::AppendEmptyValue() {
  QUIVER_RETURN_NOT_OK(values_.AppendZeros(byte_width_));
  return AppendValidity(true);
}

Status FixedSizeBinaryBuilder::AppendArraySlice(const ArrayData& array, int64_t offset,
                                                int64_t length) {
  const uint8_t* values = array.buffers[1]->data();
  for (int64_t i = offset; i < offset + length; ++i) {
    if (array.IsValid(i)) {
      QUIVER_RETURN_NOT_OK(Append(values + (array.offset + i) * byte_width_));
    } else {
      QUIVER_RETURN_NOT_OK(AppendNull());
    }
  }
  return Status::OK();
}

Result<ArrayRef> FixedSizeBinaryBuilder::Finish() {
  const int64_t len = length_, nulls = null_count_;
  QUIVER_ASSIGN_OR_RAISE(auto validity, FinishValidity());
  QUIVER_ASSIGN_OR_RAISE(auto values, values_.Finish());
  ResetBase();
  return ArrayData::Make(type_, len, {validity, values}, nulls);
}

// --- BaseBinaryBuilder ---------------------------------------------------------

template <typename OffsetT>
BaseBinaryBuilder<OffsetT>::BaseBinaryBuilder(TypeRef type, MemoryPool* pool)
    : ArrayBuilder(std::move(type), pool), offsets_(pool), data_(pool) {}

template <typename OffsetT>
Status BaseBinaryBuilder<OffsetT>::Append(std::string_view value) {
  if (offsets_.size() == 0) QUIVER_RETURN_NOT_OK(offsets_.Append(OffsetT{0}));
  const int64_t end = data_.size() + static_cast<int64_t>(value.size());
  if (sizeof(OffsetT) == 4 && end > INT32_MAX) {
    return Status::Invalid("{} array would exceed 2 GiB of data; use a large type",
                           type_->ToString());
  }
  QUIVER_RETURN_NOT_OK(data_.Append(value.data(), static_cast<int64_t>(value.size())));
  QUIVER_RETURN_NOT_OK(offsets_.Append(static_cast<OffsetT>(end)));
  return AppendValidity(true);
}

template <typename OffsetT>
Status BaseBinaryBuilder<OffsetT>::AppendNull() {
  if (offsets_.size() == 0) QUIVER_RETURN_NOT_OK(offsets_.Append(OffsetT{0}));
  QUIVER_RETURN_NOT_OK(offsets_.Append(static_cast<OffsetT>(data_.size())));
  return AppendValidity(false);
}

template <typename OffsetT>
Status BaseBinaryBuilder<OffsetT>::AppendArraySlice(const ArrayData& array, int64_t offset,
                                                    int64_t length) {
  for (int64_t i = offset; i < offset + length; ++i) {
    QUIVER_RETURN_NOT_OK(array.IsValid(i) ? Append(array.GetString(i)) : AppendNull());
  }
  return Status::OK();
}

template <typename OffsetT>
Result<ArrayRef> BaseBinaryBuilder<OffsetT>::Finish() {
  if (offsets_.size() == 0) QUIVER_RETURN_NOT_OK(offsets_.Append(OffsetT{0}));
  const int64_t len = length_, nulls = null_count_;
  QUIVER_ASSIGN_OR_RAISE(auto validity, FinishValidity());
  QUIVER_ASSIGN_OR_RAISE(auto offsets, offsets_.Finish());
  QUIVER_ASSIGN_OR_RAISE(auto data, data_.Finish());
  ResetBase();
  return ArrayData::Make(type_, len, {validity, offsets, data}, nulls);
}

template class BaseBinaryBuilder<int32_t>;
template class BaseBinaryBuilder<int64_t>;

// --- BinaryViewBuilder ----------------------------------------------------------

BinaryViewBuilder::BinaryViewBuilder(TypeRef type, MemoryPool* pool)
    : ArrayBuilder(std::move(type), pool), views_(pool), data_(pool) {}

Status BinaryViewBuilder::Append(std::string_view value) {
  uint8_t view[16] = {0};
  const int32_t len = static_cast<int32_t>(value.size());
  std::memcpy(view, &len, 4);
  if (len <= 12) {
    if (len > 0) std::memcpy(view + 4, value.data(), value.size());
  } else {
    if (data_.size() + len > INT32_MAX) return Status::Invalid("view data buffer exceeds 2 GiB");
    std::memcpy(view + 4, value.data(), 4);
    const int32_t index = 0;
    const int32_t off = static_cast<int32_t>(data_.size());
    std::memcpy(view + 8, &index, 4);
    std::memcpy(view + 12, &off, 4);
    QUIVER_RETURN_NOT_OK(data_.Append(value.data(), len));
  }
  QUIVER_RETURN_NOT_OK(views_.Append(view, 16));
  return AppendValidity(true);
}

Status BinaryViewBuilder::AppendNull() {
  QUIVER_RETURN_NOT_OK(views_.AppendZeros(16));
  return AppendValidity(false);
}

Status BinaryViewBuilder::AppendArraySlice(const ArrayData& array, int64_t offset, int64_t length) {
  for (int64_t i = offset; i < offset + length; ++i) {
    QUIVER_RETURN_NOT_OK(array.IsValid(i) ? Append(array.GetString(i)) : AppendNull());
  }
  return Status::OK();
}

Result<ArrayRef> BinaryViewBuilder::Finish() {
  const int64_t len = length_, nulls = null_count_;
  const bool has_data = data_.size() > 0;
  QUIVER_ASSIGN_OR_RAISE(auto validity, FinishValidity());
  QUIVER_ASSIGN_OR_RAISE(auto views, views_.Finish());
  std::vector<std::shared_ptr<Buffer>> buffers = {validity, views};
  if (has_data) {
    QUIVER_ASSIGN_OR_RAISE(auto data, data_.Finish());
    buffers.push_back(std::move(data));
  } else {
    data_.Reset();
  }
  ResetBase();
  return ArrayData::Make(type_, len, std::move(buffers), nulls);
}

// --- Lists ---------------------------------------------------------------------

template <typename OffsetT>
BaseListBuilder<OffsetT>::BaseListBuilder(TypeRef type, std::unique_ptr<ArrayBuilder> value_builder,
                                          MemoryPool* pool)
    : ArrayBuilder(std::move(type), pool), value_builder_(std::move(value_builder)), offsets_(pool) {}

// offsets_ holds the start of every slot appended so far; Finish() appends
// the end of the last one.
template <typename OffsetT>
Status BaseListBuilder<OffsetT>::Append() {
  QUIVER_RETURN_NOT_OK(offsets_.Append(static_cast<OffsetT>(value_builder_->length())));
  return AppendValidity(true);
}

template <typename OffsetT>
Status BaseListBuilder<OffsetT>::AppendNull() {
  QUIVER_RETURN_NOT_OK(offsets_.Append(static_cast<OffsetT>(value_builder_->length())));
  return AppendValidity(false);
}

template <typename OffsetT>
Status BaseListBuilder<OffsetT>::AppendArraySlice(const ArrayData& array, int64_t offset,
                                                  int64_t length) {
  const OffsetT* offs = array.GetValues<OffsetT>(1);
  for (int64_t i = offset; i < offset + length; ++i) {
    QUIVER_RETURN_NOT_OK(array.IsValid(i) ? Append() : AppendNull());
    QUIVER_RETURN_NOT_OK(
        value_builder_->AppendArraySlice(*array.children[0], offs[i], offs[i + 1] - offs[i]));
  }
  return Status::OK();
}

template <typename OffsetT>
Result<ArrayRef> BaseListBuilder<OffsetT>::Finish() {
  if (sizeof(OffsetT) == 4 && value_builder_->length() > INT32_MAX) {
    return Status::Invalid("{} array has more than 2^31 child values; use large_list",
                           type_->ToString());
  }
  QUIVER_RETURN_NOT_OK(offsets_.Append(static_cast<OffsetT>(value_builder_->length())));
  const int64_t len = length_, nulls = null_count_;
  QUIVER_ASSIGN_OR_RAISE(auto validity, FinishValidity());
  QUIVER_ASSIGN_OR_RAISE(auto offsets, offsets_.Finish());
  QUIVER_ASSIGN_OR_RAISE(auto values, value_builder_->Finish());
  ResetBase();
  return ArrayData::Make(type_, len, {validity, offsets}, nulls, 0, {values});
}

template class BaseListBuilder<int32_t>;
template class BaseListBuilder<int64_t>;

FixedSizeListBuilder::FixedSizeListBuilder(TypeRef type, std::unique_ptr<ArrayBuilder> value_builder,
                                           MemoryPool* pool)
    : ArrayBuilder(std::move(type), pool), value_builder_(std::move(value_builder)) {}

Status FixedSizeListBuilder::Append() { return AppendValidity(true); }

Status FixedSizeListBuilder::AppendNull() {
  for (int32_t i = 0; i < type_->list_size; ++i) QUIVER_RETURN_NOT_OK(value_builder_->AppendNull());
  return AppendValidity(false);
}

Status FixedSizeListBuilder::AppendEmptyValue() {
  for (int32_t i = 0; i < type_->list_size; ++i) {
    QUIVER_RETURN_NOT_OK(value_builder_->AppendEmptyValue());
  }
  return AppendValidity(true);
}

Status FixedSizeListBuilder::AppendArraySlice(const ArrayData& array, int64_t offset,
                                              int64_t length) {
  const int64_t n = type_->list_size;
  QUIVER_RETURN_NOT_OK(
      value_builder_->AppendArraySlice(*array.children[0], (array.offset + offset) * n, length * n));
  for (int64_t i = offset; i < offset + length; ++i) {
    QUIVER_RETURN_NOT_OK(AppendValidity(array.IsValid(i)));
  }
  return Status::OK();
}

Result<ArrayRef> FixedSizeListBuilder::Finish() {
  const int64_t len = length_, nulls = null_count_;
  if (value_builder_->length() != len * type_->list_size) {
    return Status::Invalid("fixed_size_list builder: {} values for {} lists of {}",
                           value_builder_->length(), len, type_->list_size);
  }
  QUIVER_ASSIGN_OR_RAISE(auto validity, FinishValidity());
  QUIVER_ASSIGN_OR_RAISE(auto values, value_builder_->Finish());
  ResetBase();
  return ArrayData::Make(type_, len, {validity}, nulls, 0, {values});
}

// --- Struct --------------------------------------------------------------------

StructBuilder::StructBuilder(TypeRef type, std::vector<std::unique_ptr<ArrayBuilder>> children,
                             MemoryPool* pool)
    : ArrayBuilder(std::move(type), pool), children_(std::move(children)) {}

Status StructBuilder::Append() { return AppendValidity(true); }

Status StructBuilder::AppendNull() {
  for (auto& c : children_) QUIVER_RETURN_NOT_OK(c->AppendNull());
  return AppendValidity(false);
}

Status StructBuilder::AppendEmptyValue() {
  for (auto& c : children_) QUIVER_RETURN_NOT_OK(c->AppendEmptyValue());
  return AppendValidity(true);
}

Status StructBuilder::AppendArraySlice(const ArrayData& array, int64_t offset, int64_t length) {
  for (size_t k = 0; k < children_.size(); ++k) {
    QUIVER_RETURN_NOT_OK(children_[k]->AppendArraySlice(*array.children[k], array.offset + offset, length));
  }
  for (int64_t i = offset; i < offset + length; ++i) {
    QUIVER_RETURN_NOT_OK(AppendValidity(array.IsValid(i)));
  }
  return Status::OK();
}

Result<ArrayRef> StructBuilder::Finish() {
  const int64_t len = length_, nulls = null_count_;
  std::vector<ArrayRef> kids;
  for (auto& c : children_) {
    if (c->length() != len) {
      return Status::Invalid("struct builder: child has {} values, struct has {}", c->length(), len);
    }
    QUIVER_ASSIGN_OR_RAISE(auto k, c->Finish());
    kids.push_back(std::move(k));
  }
  QUIVER_ASSIGN_OR_RAISE(auto validity, FinishValidity());
  ResetBase();
  return ArrayData::Make(type_, len, {validity}, nulls, 0, std::move(kids));
}

// --- Dictionary ------------------------------------------------------------------

DictionaryBuilder::DictionaryBuilder(TypeRef type, MemoryPool* pool)
    : ArrayBuilder(std::move(type), pool) {}

Status DictionaryBuilder::Append(std::string_view value) {
  if (!indices_) {
    QUIVER_ASSIGN_OR_RAISE(indices_, MakeBuilder(type_->index_type, pool_));
    QUIVER_ASSIGN_OR_RAISE(values_, MakeBuilder(type_->value_type, pool_));
  }
  auto [it, inserted] = memo_.try_emplace(std::string(value), static_cast<int64_t>(memo_.size()));
  if (inserted) {
    switch (type_->value_type->id) {
      case TypeId::kString:
      case TypeId::kBinary:
        QUIVER_RETURN_NOT_OK(static_cast<StringBuilder*>(values_.get())->Append(value));
        break;
      case TypeId::kLargeString:
      case TypeId::kLargeBinary:
        QUIVER_RETURN_NOT_OK(static_cast<LargeStringBuilder*>(values_.get())->Append(value));
        break;
      default:
        return Status::Unsupported("dictionary builder for {} values",
                                   type_->value_type->ToString());
    }
  }
  const int64_t idx = it->second;
  switch (type_->index_type->id) {
    case TypeId::kInt8:
      if (idx > INT8_MAX) return Status::Invalid("dictionary overflows int8 indices");
      QUIVER_RETURN_NOT_OK(static_cast<Int8Builder*>(indices_.get())->Append(static_cast<int8_t>(idx)));
      break;
    case TypeId::kInt16:
      if (idx > INT16_MAX) return Status::Invalid("dictionary overflows int16 indices");
      QUIVER_RETURN_NOT_OK(static_cast<Int16Builder*>(indices_.get())->Append(static_cast<int16_t>(idx)));
      break;
    case TypeId::kInt32:
      QUIVER_RETURN_NOT_OK(static_cast<Int32Builder*>(indices_.get())->Append(static_cast<int32_t>(idx)));
      break;
    case TypeId::kInt64:
      QUIVER_RETURN_NOT_OK(static_cast<Int64Builder*>(indices_.get())->Append(idx));
      break;
    default:
      return Status::Unsupported("dictionary builder with {} indices", type_->index_type->ToString());
  }
  return AppendValidity(true);
}

Status DictionaryBuilder::AppendNull() {
  if (!indices_) {
    QUIVER_ASSIGN_OR_RAISE(indices_, MakeBuilder(type_->index_type, pool_));
    QUIVER_ASSIGN_OR_RAISE(values_, MakeBuilder(type_->value_type, pool_));
  }
  QUIVER_RETURN_NOT_OK(indices_->AppendNull());
  return AppendValidity(false);
}

Status DictionaryBuilder::AppendArraySlice(const ArrayData& array, int64_t offset, int64_t length) {
  if (array.type->id != TypeId::kDictionary || array.dictionary == nullptr) {
    return Status::Invalid("not a dictionary array");
  }
  for (int64_t i = offset; i < offset + length; ++i) {
    if (!array.IsValid(i)) {
      QUIVER_RETURN_NOT_OK(AppendNull());
      continue;
    }
    const int64_t idx = array.GetDictionaryIndex(i);
    if (idx < 0 || idx >= array.dictionary->length) {
      return Status::Invalid("dictionary index {} out of range at slot {}", idx, i);
    }
    QUIVER_RETURN_NOT_OK(Append(array.dictionary->GetString(idx)));
  }
  return Status::OK();
}

Result<ArrayRef> DictionaryBuilder::Finish() {
  if (!indices_) {
    QUIVER_ASSIGN_OR_RAISE(indices_, MakeBuilder(type_->index_type, pool_));
    QUIVER_ASSIGN_OR_RAISE(values_, MakeBuilder(type_->value_type, pool_));
  }
  QUIVER_ASSIGN_OR_RAISE(auto idx, indices_->Finish());
  QUIVER_ASSIGN_OR_RAISE(auto dict, values_->Finish());
  const int64_t len = length_, nulls = null_count_;
  ResetBase();
  memo_.clear();
  auto out = ArrayData::Make(type_, len, {idx->buffers[0], idx->buffers[1]}, nulls, 0, {}, dict);
  return out;
}

// --- MakeBuilder -------------------------------------------------------------------

Result<std::unique_ptr<ArrayBuilder>> MakeBuilder(const TypeRef& type, MemoryPool* pool) {
  switch (type->id) {
    case TypeId::kNull: return std::unique_ptr<ArrayBuilder>(new NullBuilder(pool));
    case TypeId::kBool: return std::unique_ptr<ArrayBuilder>(new BooleanBuilder(pool));
    case TypeId::kInt8: return std::unique_ptr<ArrayBuilder>(new Int8Builder(type, pool));
    case TypeId::kUInt8: return std::unique_ptr<ArrayBuilder>(new UInt8Builder(type, pool));
    case TypeId::kInt16: return std::unique_ptr<ArrayBuilder>(new Int16Builder(type, pool));
    case TypeId::kUInt16:
    case TypeId::kHalfFloat: return std::unique_ptr<ArrayBuilder>(new UInt16Builder(type, pool));
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32:
    case TypeId::kIntervalMonths: return std::unique_ptr<ArrayBuilder>(new Int32Builder(type, pool));
    case TypeId::kUInt32: return std::unique_ptr<ArrayBuilder>(new UInt32Builder(type, pool));
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDuration: return std::unique_ptr<ArrayBuilder>(new Int64Builder(type, pool));
    case TypeId::kUInt64: return std::unique_ptr<ArrayBuilder>(new UInt64Builder(type, pool));
    case TypeId::kFloat: return std::unique_ptr<ArrayBuilder>(new FloatBuilder(type, pool));
    case TypeId::kDouble: return std::unique_ptr<ArrayBuilder>(new DoubleBuilder(type, pool));
    case TypeId::kFixedSizeBinary:
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
    case TypeId::kIntervalDayTime:
    case TypeId::kIntervalMonthDayNano:
      return std::unique_ptr<ArrayBuilder>(new FixedSizeBinaryBuilder(type, pool));
    case TypeId::kString:
    case TypeId::kBinary: return std::unique_ptr<ArrayBuilder>(new StringBuilder(type, pool));
    case TypeId::kLargeString:
    case TypeId::kLargeBinary:
      return std::unique_ptr<ArrayBuilder>(new LargeStringBuilder(type, pool));
    case TypeId::kStringView:
    case TypeId::kBinaryView:
      return std::unique_ptr<ArrayBuilder>(new BinaryViewBuilder(type, pool));
    case TypeId::kList:
    case TypeId::kMap:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList: {
      QUIVER_ASSIGN_OR_RAISE(auto child, MakeBuilder(type->children[0]->type, pool));
      if (type->id == TypeId::kLargeList) {
        return std::unique_ptr<ArrayBuilder>(new LargeListBuilder(type, std::move(child), pool));
      }
      if (type->id == TypeId::kFixedSizeList) {
        return std::unique_ptr<ArrayBuilder>(new FixedSizeListBuilder(type, std::move(child), pool));
      }
      return std::unique_ptr<ArrayBuilder>(new ListBuilder(type, std::move(child), pool));
    }
    case TypeId::kStruct: {
      std::vector<std::unique_ptr<ArrayBuilder>> kids;
      for (const auto& f : type->children) {
        QUIVER_ASSIGN_OR_RAISE(auto k, MakeBuilder(f->type, pool));
        kids.push_back(std::move(k));
      }
      return std::unique_ptr<ArrayBuilder>(new StructBuilder(type, std::move(kids), pool));
    }
    case TypeId::kDictionary:
      if (!type->value_type->is_binary_like()) {
        return Status::Unsupported("building dictionary arrays of {}", type->value_type->ToString());
      }
      return std::unique_ptr<ArrayBuilder>(new DictionaryBuilder(type, pool));
    default:
      return Status::Unsupported("no builder for {}", type->ToString());
  }
}

}  // namespace quiver
