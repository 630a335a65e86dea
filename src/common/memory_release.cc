#include "common/memory_release.h"

#include <malloc.h>

#include <cstddef>

namespace quiver {

void ReleaseFreedMemory() {
#ifdef __GLIBC__
  // mallinfo2 sums what the arenas hold free; trimming walks them all, so
  // it is worth it only when much is held.
  if (mallinfo2().fordblks >= (size_t{16} << 20)) malloc_trim(0);
#endif
}

}  // namespace quiver
