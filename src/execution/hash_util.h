// Vectorized hashing and key comparison for hash joins and aggregates.
//
// Hashes are 64-bit: integers and other fixed-width values go through a
// multiply-xorshift mix, strings through XXH3. NULL hashes to a constant.
// Multi-column keys combine column hashes (CombineHash).
#pragma once

#include <cstdint>

#include "columnar/array.h"
#include "vector/data_chunk.h"

namespace quiver::exec {

inline uint64_t MixHash(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}
inline uint64_t CombineHash(uint64_t a, uint64_t b) { return a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2)); }
constexpr uint64_t kNullHash = 0xbf58476d1ce4e5b9ULL;

// hashes[i] = hash of row i of v (combine = fold into the existing hashes[i]).
void HashVector(const VectorRef& v, int64_t n, uint64_t* hashes, bool combine);

// equal[k] &= (probe row probe_rows[k] == build slot build_rows[k]) for k < n.
// `probe` rows are read through its selection; `build` slots are absolute
// (relative to build.offset). NULLs are equal to each other only when
// `nulls_equal` (IS NOT DISTINCT FROM), otherwise never.
void CompareRows(const VectorRef& probe, const uint32_t* probe_rows, const ArrayData& build,
                 const uint32_t* build_rows, int64_t n, bool nulls_equal, uint8_t* equal);

// Whether any row of v is NULL.
bool AnyNull(const VectorRef& v, int64_t n);

}  // namespace quiver::exec
