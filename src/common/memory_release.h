// Giving freed memory back to the operating system.
#pragma once

namespace quiver {

// Hands memory that was freed back to the operating system when much is
// held: glibc's malloc keeps freed heap pages in its per-thread arenas for
// reuse, so a server that ran one big query would otherwise stay that big.
// Call it after a query ends (not every query's memory is counted by a
// pool, so this asks the allocator).
void ReleaseFreedMemory();

}  // namespace quiver
