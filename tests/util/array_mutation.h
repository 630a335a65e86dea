// Test helper: copies of arrays with one buffer deliberately corrupted, used
// to prove that comparisons and validation notice a wrong byte.
#pragma once

#include <cstdint>
#include <functional>

#include "columnar/array.h"

namespace quiver::testing {

// A copy of `a` whose buffer `index` is a copy mutated by `f`; the null count
// is reset so it is recomputed from a possibly changed bitmap.
inline ArrayRef MutateBuffer(const ArrayData& a, size_t index,
                             const std::function<void(uint8_t*)>& f) {
  auto copy = std::make_shared<ArrayData>(a);
  auto b = Buffer::CopyFrom(a.buffers[index]->view()).ValueOrDie();
  f(const_cast<uint8_t*>(b->data()));
  copy->buffers[index] = b;
  copy->null_count = kUnknownNullCount;
  return copy;
}

}  // namespace quiver::testing
