// ArrayData and RecordBatch: Quiver's one currency for columnar data.
//
// ArrayData is the Arrow columnar layout made concrete: a type, a logical
// length, an offset into the buffers (so slicing never copies), the buffers in
// the order the format defines for that type (see columnar/type.h), child
// arrays for nested types, and the dictionary for dictionary-encoded arrays.
//
// buffers[0] is the validity bitmap for every type that has one; it may be
// null, which means "no nulls". null_count may be kUnknownNullCount and is
// then computed on demand by GetNullCount().
//
// ArrayData is treated as immutable once built and shared by shared_ptr;
// readers, operators and writers pass the same buffers along without copying.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "columnar/type.h"
#include "common/bit_util.h"
#include "common/buffer.h"

namespace quiver {

inline constexpr int64_t kUnknownNullCount = -1;

struct ArrayData;
using ArrayRef = std::shared_ptr<ArrayData>;

struct ArrayData {
  TypeRef type;
  int64_t length = 0;
  int64_t null_count = kUnknownNullCount;
  int64_t offset = 0;
  std::vector<std::shared_ptr<Buffer>> buffers;
  std::vector<ArrayRef> children;
  ArrayRef dictionary;  // kDictionary only: the value array

  static ArrayRef Make(TypeRef type, int64_t length, std::vector<std::shared_ptr<Buffer>> buffers,
                       int64_t null_count = kUnknownNullCount, int64_t offset = 0,
                       std::vector<ArrayRef> children = {}, ArrayRef dictionary = nullptr);

  // Whether slot i (relative to offset) is non-null. Null-type arrays are all
  // null; unions and run-end-encoded arrays have no validity of their own and
  // report true here.
  bool IsValid(int64_t i) const {
    switch (type->id) {
      case TypeId::kNull: return false;
      case TypeId::kSparseUnion:  // buffers[0] holds type ids, not validity
      case TypeId::kDenseUnion:
      case TypeId::kRunEndEncoded: return true;
      default: break;
    }
    const Buffer* v = buffers.empty() ? nullptr : buffers[0].get();
    return v == nullptr || bit_util::GetBit(v->data(), offset + i);
  }
  bool IsNull(int64_t i) const { return !IsValid(i); }
  int64_t GetNullCount() const;  // computes and caches if unknown
  bool MayHaveNulls() const { return null_count != 0; }

  // Typed pointer to buffer `i`, already advanced by `offset` elements of T.
  template <typename T>
  const T* GetValues(int i) const {
    return buffers[i] ? buffers[i]->data_as<T>() + offset : nullptr;
  }
  // Raw (unadjusted) pointer to buffer i.
  template <typename T>
  const T* GetRaw(int i) const {
    return buffers[i] ? buffers[i]->data_as<T>() : nullptr;
  }

  // Zero-copy slice sharing all buffers.
  ArrayRef Slice(int64_t offset, int64_t length) const;

  // Index stored in slot i of a dictionary array (any integer index type);
  // -1 for a uint64 index beyond int64's range.
  int64_t GetDictionaryIndex(int64_t i) const;

  // Value i of a utf8/binary/large variant/view array.
  std::string_view GetString(int64_t i) const;

  // Structural checks (buffer counts and sizes, offsets monotonic and in
  // bounds, children lengths...). Readers of untrusted input call this before
  // handing an array on. `full` also checks every offset and utf8 validity.
  Status Validate(bool full = false) const;
};

// Logical equality: same type, same length, same nulls, same valid values
// (regardless of offsets, padding or the bytes under null slots).
bool ArrayEquals(const ArrayData& a, const ArrayData& b);
// Equality of single slots.
bool ArrayRangeEquals(const ArrayData& a, int64_t a_start, const ArrayData& b, int64_t b_start,
                      int64_t length);

// Concatenates arrays of one type into a new array (copies).
Result<ArrayRef> Concatenate(const std::vector<ArrayRef>& arrays,
                             MemoryPool* pool = DefaultMemoryPool());

// An all-null array of `type` and `length`.
Result<ArrayRef> MakeArrayOfNull(const TypeRef& type, int64_t length,
                                 MemoryPool* pool = DefaultMemoryPool());

class RecordBatch {
 public:
  RecordBatch(SchemaRef schema, int64_t num_rows, std::vector<ArrayRef> columns)
      : schema_(std::move(schema)), num_rows_(num_rows), columns_(std::move(columns)) {}
  static std::shared_ptr<RecordBatch> Make(SchemaRef schema, int64_t num_rows,
                                           std::vector<ArrayRef> columns) {
    return std::make_shared<RecordBatch>(std::move(schema), num_rows, std::move(columns));
  }

  const SchemaRef& schema() const { return schema_; }
  int64_t num_rows() const { return num_rows_; }
  int num_columns() const { return static_cast<int>(columns_.size()); }
  const ArrayRef& column(int i) const { return columns_[i]; }
  const std::vector<ArrayRef>& columns() const { return columns_; }

  std::shared_ptr<RecordBatch> Slice(int64_t offset, int64_t length) const;
  Status Validate(bool full = false) const;
  bool Equals(const RecordBatch& other, bool check_metadata = false) const;

 private:
  SchemaRef schema_;
  int64_t num_rows_;
  std::vector<ArrayRef> columns_;
};
using RecordBatchRef = std::shared_ptr<RecordBatch>;

// Pull-based stream of batches: readers implement it, sinks drain it.
class RecordBatchReader {
 public:
  virtual ~RecordBatchReader() = default;
  virtual SchemaRef schema() const = 0;
  // Sets *out to the next batch, or to nullptr at end of stream.
  virtual Status ReadNext(RecordBatchRef* out) = 0;
};

}  // namespace quiver
