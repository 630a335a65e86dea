// Group tables: rows keyed by serialized group keys, with a row of
// aggregate states per group. Shared by hash aggregation and set operations.
//
// Key serialization, per column: one byte 0 (NULL) or 1, then the value:
// fixed-width bytes, one byte for booleans, or a 4-byte length and the
// bytes for strings. NULLs compare equal (as GROUP BY and set operations
// want). When every key column is fixed-width, every key has the same width
// (KeyLayout::fixed_width) and is written column by column into a flat
// buffer, with no per-row offsets.
//
// The table: open addressing over 64-bit slots holding (hash tag << 32 |
// group + 1), so most mismatches are rejected without touching the key.
#pragma once

#include <cstdint>
#include <vector>

#include "columnar/builder.h"
#include "execution/operators/physical_hash_aggregate.h"
#include "functions/kernel_util.h"

namespace quiver::exec {

struct KeyLayout {
  std::vector<TypeRef> types;
  int fixed_width = -1;  // bytes per key when all columns are fixed-width; -1 otherwise
  explicit KeyLayout(std::vector<TypeRef> key_types);
};

// Serialized keys of a chunk: key r at data + offsets[r] (or r * width).
struct KeyRows {
  std::vector<uint8_t> data;
  std::vector<uint32_t> offsets;  // variable layout only (n + 1 entries)
  int width = -1;
  const uint8_t* key(int64_t r) const { return width >= 0 ? data.data() + r * width : data.data() + offsets[r]; }
  uint32_t size(int64_t r) const {
    return width >= 0 ? static_cast<uint32_t>(width) : offsets[r + 1] - offsets[r];
  }
};

// Serializes rows of `cols` (typed as `layout`).
void SerializeKeys(const KeyLayout& layout, const std::vector<VectorRef>& cols, int64_t n, KeyRows* out);
// The row format above for arbitrary columns (variable layout).
void SerializeRows(const std::vector<VectorRef>& cols, int64_t n, std::vector<uint8_t>* out,
                   std::vector<uint32_t>* offsets);
// Reads one serialized value of `type` at *p into `builder`, advancing *p.
// `fixed_layout`: the value comes from SerializeKeys with a fixed width.
Status ReadValue(const DataType& type, const uint8_t** p, ArrayBuilder* builder, bool fixed_layout = false);

uint64_t HashKey(const uint8_t* key, uint32_t len);

class GroupTable {
 public:
  // `aggs`/`offsets` describe the state row (null for callers that manage
  // zero-initialized states themselves). `key_width` >= 0: fixed-size keys.
  GroupTable(const std::vector<AggregateSpec>* aggs, const std::vector<int>* offsets, int row_size,
             int key_width = -1);
  ~GroupTable();
  GroupTable(const GroupTable&) = delete;
  GroupTable& operator=(const GroupTable&) = delete;

  int64_t size() const { return static_cast<int64_t>(hashes_.size()); }
  uint8_t* state(int64_t g) { return states_.data() + g * row_size_; }
  const uint8_t* key(int64_t g, uint32_t* len) const {
    if (key_width_ >= 0) {
      *len = static_cast<uint32_t>(key_width_);
      return keys_.data() + g * key_width_;
    }
    *len = key_offsets_[static_cast<size_t>(g + 1)] - key_offsets_[static_cast<size_t>(g)];
    return keys_.data() + key_offsets_[static_cast<size_t>(g)];
  }
  uint64_t hash(int64_t g) const { return hashes_[static_cast<size_t>(g)]; }

  // The group with this key, created (states initialized) when new.
  int64_t FindOrCreate(const uint8_t* key, uint32_t len, uint64_t h);
  void Reserve(int64_t groups);
  int64_t MemoryBytes() const;
  void DestroyStates();

 private:
  void Grow();

  const std::vector<AggregateSpec>* aggs_;
  const std::vector<int>* offsets_;
  int row_size_;
  int key_width_;
  std::vector<uint64_t> slots_;  // (hash >> 32) << 32 | (group + 1); 0 = empty
  uint64_t mask_;
  std::vector<uint64_t> hashes_;
  std::vector<uint8_t> keys_;
  std::vector<uint32_t> key_offsets_;
  std::vector<uint8_t> states_;
  bool destroyed_ = false;
};

}  // namespace quiver::exec
