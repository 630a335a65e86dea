// DataChunk: the unit that flows between operators — a handful of columns
// (Arrow-layout ArrayData, usually zero-copy slices of what a file reader
// returned) plus an optional selection vector.
//
// Without a selection, row i of the chunk is slot i of every column and
// every column has `num_rows` slots. With one, row i is slot sel[i] of every
// column: a filter narrows a chunk by writing the surviving slot numbers
// instead of copying the surviving values (DuckDB's SelectionVector, Velox's
// SelectivityVector). Operators read their inputs through the selection
// (VectorRef below) and write dense outputs.
//
// Chunks hold at most kVectorSize rows, so a kernel's working set stays in
// cache; scans cut the (often 100K-row) batches of files into such slices.
//
// `batch_index` orders chunks as the source produced them: sinks that must
// keep the input order (result collection, LIMIT without ORDER BY) sort by
// it, since chunks of one query arrive from several threads.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "columnar/array.h"
#include "common/memory_pool.h"

namespace quiver {

inline constexpr int64_t kVectorSize = 2048;

// Slot numbers of the selected rows, ascending within a chunk.
class SelectionVector {
 public:
  explicit SelectionVector(int64_t capacity = kVectorSize) : sel_(static_cast<size_t>(capacity)) {}
  uint32_t* data() { return sel_.data(); }
  const uint32_t* data() const { return sel_.data(); }
  uint32_t operator[](int64_t i) const { return sel_[static_cast<size_t>(i)]; }
  int64_t capacity() const { return static_cast<int64_t>(sel_.size()); }
  void Resize(int64_t n) { sel_.resize(static_cast<size_t>(n)); }

 private:
  std::vector<uint32_t> sel_;
};
using SelRef = std::shared_ptr<SelectionVector>;

struct DataChunk {
  std::vector<ArrayRef> columns;
  int64_t num_rows = 0;  // rows after selection
  SelRef sel;            // null = all slots, in order
  int64_t batch_index = 0;

  int num_columns() const { return static_cast<int>(columns.size()); }
  const uint32_t* sel_data() const { return sel ? sel->data() : nullptr; }
  void Reset() {
    columns.clear();
    num_rows = 0;
    sel.reset();
    batch_index = 0;
  }
};

// Loads a value that may not be aligned to its size: Arrow guarantees
// 8-byte alignment only, while 16-byte values (decimals, intervals) would
// otherwise be read with aligned SSE loads. memcpy compiles to a plain load.
template <typename T>
inline T LoadValue(const T* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// One input of a kernel: an array read through an optional selection, or a
// constant (a length-1 array whose slot 0 stands for every row).
struct VectorRef {
  const ArrayData* array = nullptr;
  const uint32_t* sel = nullptr;
  bool constant = false;

  // Slot (relative to array->offset) that row i reads.
  int64_t index(int64_t i) const { return constant ? 0 : sel ? sel[i] : i; }
  bool IsValid(int64_t i) const { return array->IsValid(index(i)); }
  bool MayHaveNulls() const { return array->MayHaveNulls(); }
  template <typename T>
  const T* values() const {
    return array->GetValues<T>(1);
  }
};

}  // namespace quiver
