// Sorting rows by several key columns: ASC/DESC, NULLS FIRST/LAST, byte
// order for text (the "C" collation), PostgreSQL's NaN-largest for floats.
#pragma once

#include <cstdint>
#include <vector>

#include "columnar/array.h"
#include "common/status.h"

namespace quiver::exec {

struct SortKey {
  int column = 0;
  bool descending = false;
  bool nulls_first = false;
};

class ExecutionContext;

// A permutation of 0..n-1 ordering the rows of `columns` by `keys`; ties
// keep the input order. Sorts slices on the thread pool and merges them;
// between slices and merges it stops with ctx's CancelStatus once ctx (may
// be null) is cancelled, so a big sort does not outlive its query's cancel.
//
// With `first_difference`, also sets (*first_difference)[i], for i >= 1, to
// the index of the first key on which sorted rows i - 1 and i differ
// (keys.size() when they are equal), read from the sort's own key prefixes
// where it can; element 0 is keys.size(). REQUIRES: keys.size() < 256.
Result<std::vector<uint32_t>> SortPermutation(const std::vector<ArrayRef>& columns,
                                              const std::vector<SortKey>& keys, int64_t n,
                                              const ExecutionContext* ctx = nullptr,
                                              std::vector<uint8_t>* first_difference = nullptr);

// Compares rows i and j: negative, zero or positive.
class RowComparator {
 public:
  RowComparator(const std::vector<ArrayRef>& columns, const std::vector<SortKey>& keys);
  int Compare(uint32_t i, uint32_t j) const;
  bool Less(uint32_t i, uint32_t j) const { return Compare(i, j) < 0; }

 private:
  struct Key {
    const ArrayData* array;
    bool descending;
    bool nulls_first;
    int kind;  // which comparison (see .cc)
  };
  std::vector<Key> keys_;
};

}  // namespace quiver::exec
