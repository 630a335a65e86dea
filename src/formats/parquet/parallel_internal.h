// A parallel-for that is safe to call from a thread-pool task.
//
// common/thread_pool.h forbids tasks that wait on other tasks of the same
// pool: with every worker waiting, queued work never runs. ParallelForInline
// avoids the wait: the calling thread claims and runs indices itself, pool
// helpers claim the rest as they get a worker, and the caller only ever
// waits for indices a helper has already started (and will finish). A
// helper that starts after the work is gone returns at once. So the engine
// can read row groups from pool tasks and each read still fans its columns
// out over idle workers.
#pragma once

#include <cstdint>
#include <functional>

#include "common/status.h"
#include "common/thread_pool.h"

namespace quiver::parquet {

// Runs fn(i) for i in [0, n); returns the first error (later indices are
// skipped once one failed). `max_helpers` caps the pool tasks submitted.
Status ParallelForInline(int64_t n, const std::function<Status(int64_t)>& fn, int max_helpers = -1,
                         ThreadPool* pool = GlobalThreadPool());

}  // namespace quiver::parquet
