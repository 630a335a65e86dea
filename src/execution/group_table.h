// Group tables: rows keyed by serialized group keys, with a row of
// aggregate states per group. Shared by hash aggregation and set operations.
//
// Key serialization, per column: one byte 0 (NULL) or 1, then the value:
// fixed-width bytes, one byte for booleans, or a 4-byte length and the
// bytes for strings. NULLs compare equal (as GROUP BY and set operations
// want).
#pragma once

#include <cstdint>
#include <vector>

#include "columnar/builder.h"
#include "execution/operators/physical_hash_aggregate.h"
#include "functions/kernel_util.h"

namespace quiver::exec {

// Serializes rows of `cols` into `out` (row r at offsets[r]..offsets[r+1]).
void SerializeRows(const std::vector<VectorRef>& cols, int64_t n, std::vector<uint8_t>* out,
                   std::vector<uint32_t>* offsets);
// Reads one serialized value of `type` at *p into `builder`, advancing *p.
Status ReadValue(const DataType& type, const uint8_t** p, ArrayBuilder* builder);

class GroupTable {
 public:
  // `aggs`/`offsets` describe the state row (may be empty with row_size > 0
  // for callers that manage states themselves).
  GroupTable(const std::vector<AggregateSpec>* aggs, const std::vector<int>* offsets, int row_size);
  ~GroupTable();

  int64_t size() const { return static_cast<int64_t>(hashes_.size()); }
  uint8_t* state(int64_t g) { return states_.data() + g * row_size_; }
  const uint8_t* key(int64_t g, uint32_t* len) const {
    *len = key_offsets_[static_cast<size_t>(g + 1)] - key_offsets_[static_cast<size_t>(g)];
    return keys_.data() + key_offsets_[static_cast<size_t>(g)];
  }
  uint64_t hash(int64_t g) const { return hashes_[static_cast<size_t>(g)]; }

  // The group with this key, created (states initialized, zeroed for
  // callers without aggregates) when new.
  int64_t FindOrCreate(const uint8_t* key, uint32_t len, uint64_t h);
  int64_t MemoryBytes() const;
  void DestroyStates();

 private:
  void Grow();

  const std::vector<AggregateSpec>* aggs_;
  const std::vector<int>* offsets_;
  int row_size_;
  std::vector<uint32_t> slots_;
  uint64_t mask_;
  std::vector<uint64_t> hashes_;
  std::vector<uint8_t> keys_;
  std::vector<uint32_t> key_offsets_;
  std::vector<uint8_t> states_;
};

}  // namespace quiver::exec
