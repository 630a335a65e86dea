// Arrow arrays -> one leaf column's repetition/definition levels and its
// present values in Parquet's physical layout (the write side of the Arrow
// bridge).
//
// Levels follow the Dremel rules: walking from the top-level field down to
// the leaf, a null slot emits the definition level reached so far, an empty
// list emits the list's own level, and every list element after the first
// repeats at the list's repetition level. Values are converted on the way:
// small integers widen to INT32, date64 becomes days, time32[s] and
// timestamp[s] become milliseconds, decimals become big-endian bytes,
// intervals the 12-byte (months, days, millis) layout.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "columnar/array.h"
#include "common/status.h"
#include "formats/parquet/schema_writer.h"

namespace quiver::parquet {

// std::allocator without the zero-filling of resize(): the bytes are
// written right after.
template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  using std::allocator<T>::allocator;
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using ByteVector = std::vector<uint8_t, DefaultInitAllocator<uint8_t>>;

// One leaf of one row group (appended to batch by batch).
struct LeafValues {
  std::vector<int16_t> def;  // empty when the max definition level is 0
  std::vector<int16_t> rep;  // empty when the max repetition level is 0
  int64_t num_levels = 0;
  int64_t num_rows = 0;
  // Present values (definition level == max), dense.
  int64_t num_values = 0;
  ByteVector fixed;              // fixed-width physical values; BOOLEAN: one byte (0/1) each
  std::vector<int64_t> offsets;  // BYTE_ARRAY: num_values + 1 offsets into data
  std::string data;

  int64_t null_count() const { return num_levels - num_values; }
  // Empties the values but keeps the memory, for the next row group.
  void Clear() {
    def.clear();
    rep.clear();
    fixed.clear();
    offsets.clear();
    data.clear();
    num_levels = num_rows = num_values = 0;
  }
  std::string_view value(int64_t i) const {
    return {data.data() + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i])};
  }
};

// Appends the levels and values that `array` (a top-level column, no
// dictionaries inside: see MaterializeDictionaries) gives leaf `leaf`.
Status AppendLeafValues(const WriterSchema& schema, int leaf, const ArrayData& array,
                        LeafValues* out);

// `array` with every dictionary-encoded array inside it replaced by its
// decoded values (Parquet stores values; the writer re-encodes them).
Result<ArrayRef> MaterializeDictionaries(const ArrayRef& array, MemoryPool* pool);

}  // namespace quiver::parquet
