// Building blocks of vectorized kernels.
//
// A kernel reads its inputs as VectorRefs (flat, through a selection, or a
// constant) and writes a dense output of n rows. The loops are templates over
// accessors, so each access pattern compiles to its own tight loop:
//
//   DispatchFixed<int32_t>(a, [&](auto get_a) {
//     for (int64_t i = 0; i < n; ++i) out[i] = get_a(i) * 2;
//   });
//
// Null handling of strict functions (NULL in, NULL out): PropagateValidity
// ANDs the inputs' validity into the output bitmap before values are
// computed; values under NULL slots are computed from whatever bytes are
// there and must not raise errors (checks consult the output validity).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "columnar/array.h"
#include "columnar/builder.h"
#include "vector/data_chunk.h"
#include "vector/value.h"

namespace quiver::kernels {

// Row i of a smallint / integer / bigint input, as int64.
inline int64_t ReadInt(const VectorRef& v, int64_t i) {
  const int64_t s = v.index(i);
  switch (v.array->type->id) {
    case TypeId::kInt16:
      return v.values<int16_t>()[s];
    case TypeId::kInt32:
      return v.values<int32_t>()[s];
    default:
      return v.values<int64_t>()[s];
  }
}

template <typename T>
struct FlatAccess {
  const T* p;
  T operator()(int64_t i) const { return LoadValue(p + i); }
};
template <typename T>
struct SelAccess {
  const T* p;
  const uint32_t* sel;
  T operator()(int64_t i) const { return LoadValue(p + sel[i]); }
};
template <typename T>
struct ConstAccess {
  T v;
  T operator()(int64_t) const { return v; }
};

// Calls f(accessor) with the accessor type matching how `v` is read.
template <typename T, typename F>
inline decltype(auto) DispatchFixed(const VectorRef& v, F&& f) {
  const T* p = v.values<T>();
  if (v.constant) return f(ConstAccess<T>{LoadValue(p)});
  if (v.sel != nullptr) return f(SelAccess<T>{p, v.sel});
  return f(FlatAccess<T>{p});
}

// Reads string slot i of a utf8/binary array (32-bit offsets).
struct StringAccess {
  const int32_t* offsets;
  const char* data;
  const uint32_t* sel;
  bool constant;
  explicit StringAccess(const VectorRef& v)
      : offsets(v.array->GetValues<int32_t>(1)),
        data(v.array->buffers[2] ? v.array->buffers[2]->data_as<char>() : ""),
        sel(v.sel),
        constant(v.constant) {}
  std::string_view operator()(int64_t i) const {
    const int64_t s = constant ? 0 : sel ? sel[i] : i;
    return {data + offsets[s], static_cast<size_t>(offsets[s + 1] - offsets[s])};
  }
};

// Reads boolean slot i.
struct BoolAccess {
  const uint8_t* bits;
  int64_t offset;
  const uint32_t* sel;
  bool constant;
  explicit BoolAccess(const VectorRef& v)
      : bits(v.array->GetRaw<uint8_t>(1)), offset(v.array->offset), sel(v.sel), constant(v.constant) {}
  bool operator()(int64_t i) const {
    const int64_t s = constant ? 0 : sel ? sel[i] : i;
    return bit_util::GetBit(bits, offset + s);
  }
};

// Validity of row i of `v` (true when the array has no validity bitmap).
struct ValidAccess {
  const uint8_t* bits;  // null = all valid
  int64_t offset;
  const uint32_t* sel;
  bool constant;
  bool all_null;  // null-type arrays
  explicit ValidAccess(const VectorRef& v)
      : bits(v.array->buffers.empty() || v.array->type->id == TypeId::kNull
                 ? nullptr
                 : v.array->GetRaw<uint8_t>(0)),
        offset(v.array->offset),
        sel(v.sel),
        constant(v.constant),
        all_null(v.array->type->id == TypeId::kNull) {}
  bool operator()(int64_t i) const {
    if (all_null) return false;
    if (bits == nullptr) return true;
    const int64_t s = constant ? 0 : sel ? sel[i] : i;
    return bit_util::GetBit(bits, offset + s);
  }
  bool always_valid() const { return bits == nullptr && !all_null; }
};

// A dense output of n fixed-width values plus its validity.
struct FixedOutput {
  std::shared_ptr<MutableBuffer> values;
  std::shared_ptr<Buffer> validity;  // null = no nulls
  int64_t null_count = 0;
  template <typename T>
  T* data() {
    return values->mutable_data_as<T>();
  }
  bool IsValid(int64_t i) const {
    return validity == nullptr || bit_util::GetBit(validity->data(), i);
  }
};

// Allocates values for n outputs of `width` bytes (zero-padded).
Result<std::shared_ptr<MutableBuffer>> AllocateValues(int64_t n, int width, MemoryPool* pool);
// A bitmap of n bits, all zero.
Result<std::shared_ptr<MutableBuffer>> AllocateBitmap(int64_t n, MemoryPool* pool);

// Output validity = AND over `inputs` of their validity, through their
// selections. Null buffer (and *null_count = 0) when no input has nulls.
Result<std::shared_ptr<Buffer>> PropagateValidity(const std::vector<VectorRef>& inputs, int64_t n,
                                                  MemoryPool* pool, int64_t* null_count);

// Allocates a FixedOutput for `type` with validity propagated from `inputs`.
Result<FixedOutput> MakeFixedOutput(const TypeRef& type, const std::vector<VectorRef>& inputs,
                                    int64_t n, MemoryPool* pool);

ArrayRef FinishFixed(const TypeRef& type, int64_t n, FixedOutput&& out);

// Gathers the rows of `v` into a new dense array (any engine type).
Result<ArrayRef> Materialize(const VectorRef& v, int64_t n, MemoryPool* pool);

// Copies `n` rows of `v` (through its selection) as a dense array; the
// result shares buffers with the input when no copy is needed.
Result<ArrayRef> Gather(const ArrayRef& array, const uint32_t* sel, int64_t n, MemoryPool* pool);

// The inverse of Gather for fixed-width types: an array of `length` slots
// whose slot sel[i] holds dense[i] (i < n); other slots are undefined (NULL
// when `dense` has nulls). Lets a projection add computed columns to a
// chunk that keeps its selection instead of gathering every other column.
bool CanScatter(const DataType& type);
Result<ArrayRef> Scatter(const ArrayRef& dense, const uint32_t* sel, int64_t n, int64_t length, MemoryPool* pool);

// An array of `length` slots whose slot slots[i] holds src[rows[i]] (i < n,
// distinct slots); the other slots are NULL. A hash join whose probe rows
// find one partner each places the build side's values beside the probe
// chunk's own columns, which then pass through untouched.
Result<ArrayRef> GatherTo(const ArrayRef& src, const uint32_t* rows, const uint32_t* slots, int64_t n,
                          int64_t length, MemoryPool* pool);

// Builds a utf8/binary output row by row; the caller appends exactly n values.
class StringOutput {
 public:
  StringOutput(const TypeRef& type, int64_t n, MemoryPool* pool);
  Status Append(std::string_view s) { return builder_.Append(s); }
  Status AppendNull() { return builder_.AppendNull(); }
  Status Reserve(int64_t bytes) { return builder_.ReserveData(bytes); }
  Result<ArrayRef> Finish() { return builder_.Finish(); }

 private:
  StringBuilder builder_;
};

// Row by row fixed-width output of T for a strict function: f(i) ->
// Result<T> runs for the rows where every input is valid (the output
// validity is propagated first); the other rows stay NULL.
template <typename T, typename F>
Result<ArrayRef> StrictFixedRows(MemoryPool* pool, const std::vector<VectorRef>& args, int64_t n,
                                 const TypeRef& out_type, F f) {
  QUIVER_ASSIGN_OR_RAISE(auto out, MakeFixedOutput(out_type, args, n, pool));
  T* dst = out.template data<T>();
  for (int64_t i = 0; i < n; ++i) {
    if (!out.IsValid(i)) continue;
    QUIVER_ASSIGN_OR_RAISE(dst[i], f(i));
  }
  return FinishFixed(out_type, n, std::move(out));
}

}  // namespace quiver::kernels
