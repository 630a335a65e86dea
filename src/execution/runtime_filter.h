// Runtime join filters: after a hash join has built its table, it publishes
// what the build keys can be — their [min, max] range, and for integer keys
// over a dense enough range a bitmap of the present values, else a blocked
// Bloom filter (16 bits per key, two bits set per key in one 64-bit word,
// about 1% false positives) — to the scan on
// the probe side. The scan skips units whose statistics miss the range and
// drops rows that cannot find a partner before they travel through the
// pipeline (ENGINE.md: "Getting fewer rows to the join").
//
// Only joins that discard unmatched probe rows (inner, semi) publish one.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "vector/data_chunk.h"
#include "vector/value.h"

namespace quiver::exec {

struct RuntimeFilter {
  int scan_column = -1;  // column of the scan's output it applies to
  TypeRef type;          // the key's type

  // Written once by the join's Finalize, before the probe pipeline starts.
  bool ready = false;
  bool empty = false;  // no build keys at all: nothing can match
  int64_t min = 0;
  int64_t max = 0;
  std::vector<uint64_t> bitmap;  // bit (v - min) set when v is a key; empty = none
  std::vector<uint64_t> bloom;   // blocked Bloom filter (power-of-two words); empty = none

  // Builds bitmap or Bloom filter from the build keys (min/max set first).
  void AddKeys(const std::vector<int64_t>& keys);

  std::atomic<int64_t> rows_in{0};
  std::atomic<int64_t> rows_out{0};

  // Filters integer-typed column values; writes passing positions (of `rows`
  // given as `in`) into `out` and returns how many.
  int64_t Apply(const VectorRef& v, int64_t n, const uint32_t* in, uint32_t* out) const;
  // Whether a unit with these statistics may hold a matching key.
  bool MayMatch(const Value& lo, const Value& hi) const;

  std::string ToString() const;
};

// Integer-like key types a runtime filter can handle.
bool RuntimeFilterSupports(const DataType& t);

}  // namespace quiver::exec
