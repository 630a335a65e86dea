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
#include <functional>
#include <vector>

#include "columnar/builder.h"
#include "execution/aggregate_spec.h"
#include "functions/kernel_util.h"

namespace quiver::exec {

struct KeyLayout {
  std::vector<TypeRef> types;
  int fixed_width =
      -1;  // bytes per key (a multiple of 8) when all columns are fixed-width; -1 otherwise
  std::vector<int> offsets;  // fixed layout: where column c's presence byte is
  explicit KeyLayout(std::vector<TypeRef> key_types);
};

// Serialized keys of a chunk: key r at data + offsets[r] (or r * width).
struct KeyRows {
  std::vector<uint8_t> data;
  std::vector<uint32_t> offsets;  // variable layout only (n + 1 entries)
  int width = -1;
  const uint8_t* key(int64_t r) const {
    return width >= 0 ? data.data() + r * width : data.data() + offsets[r];
  }
  uint32_t size(int64_t r) const {
    return width >= 0 ? static_cast<uint32_t>(width) : offsets[r + 1] - offsets[r];
  }
};

// Serializes rows of `cols` (typed as `layout`).
void SerializeKeys(const KeyLayout& layout, const std::vector<VectorRef>& cols, int64_t n,
                   KeyRows* out);
// The row format above for arbitrary columns (variable layout).
void SerializeRows(const std::vector<VectorRef>& cols, int64_t n, std::vector<uint8_t>* out,
                   std::vector<uint32_t>* offsets);
// Reads one serialized value of `type` at *p into `builder`, advancing *p.
// `fixed_layout`: the value comes from SerializeKeys with a fixed width.
Status ReadValue(const DataType& type, const uint8_t** p, ArrayBuilder* builder,
                 bool fixed_layout = false);
// Column `c` of `n` fixed-layout keys (key(i) gives key i), as an array.
Result<ArrayRef> ExtractKeyColumn(const KeyLayout& layout, size_t c, int64_t n,
                                  const std::function<const uint8_t*(int64_t)>& key,
                                  MemoryPool* pool);

// A pure function of the key bytes: 64-bit words through a multiply-mix when
// the length is a multiple of 8 (fixed layouts), XXH3 otherwise.
uint64_t HashKey(const uint8_t* key, uint32_t len);

class GroupTable {
 public:
  // `aggs`/`offsets` describe the state row (null for callers that manage
  // zero-initialized states themselves). `key_width` >= 0: fixed-size keys.
  GroupTable(const std::vector<AggregateSpec>* aggs, const std::vector<int>* offsets, int row_size,
             int key_width = -1, int initial_slots = 1024);
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
  int64_t FindOrCreate(const uint8_t* key, uint32_t len, uint64_t h) {
    if (key_width_ > 0) return FindOrCreateFixed(key, h);
    return FindOrCreateVariable(key, len, h);
  }
  // Group ids of n keys (fixed or variable, as KeyRows holds them).
  void FindOrCreateAll(const KeyRows& keys, const uint64_t* hashes, int64_t n, int64_t* gids);
  void Prefetch(uint64_t h) const { __builtin_prefetch(&slots_[h & mask_]); }
  void Reserve(int64_t groups);
  int64_t MemoryBytes() const;
  void DestroyStates();

 private:
  void Grow();
  int64_t FindOrCreateFixed(const uint8_t* key, uint64_t h);
  int64_t FindOrCreateVariable(const uint8_t* key, uint32_t len, uint64_t h);
  int64_t Insert(uint64_t pos, uint64_t tag, const uint8_t* key, uint32_t len, uint64_t h);
  template <typename Same>
  int64_t FindOrInsert(const uint8_t* key, uint32_t len, uint64_t h, Same&& same);

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
