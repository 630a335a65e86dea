#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "formats/parquet/parallel_internal.h"

namespace quiver::parquet {
namespace {

struct SharedState {
  explicit SharedState(int64_t n, const std::function<Status(int64_t)>* fn) : n(n), fn(fn) {}
  const int64_t n;
  const std::function<Status(int64_t)>* fn;  // valid while some index is unfinished
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mu;
  std::condition_variable cv;
  int64_t finished = 0;  // GUARDED_BY(mu)
  Status status;         // GUARDED_BY(mu)

  // Claims and runs indices until none are left.
  void Work() {
    for (;;) {
      const int64_t i = next.fetch_add(1);
      if (i >= n) return;
      Status st = failed.load(std::memory_order_relaxed) ? Status::OK() : (*fn)(i);
      std::lock_guard<std::mutex> lock(mu);
      if (!st.ok() && status.ok()) {
        status = st;
        failed = true;
      }
      if (++finished == n) cv.notify_all();
    }
  }
};

}  // namespace

Status ParallelForInline(int64_t n, const std::function<Status(int64_t)>& fn, int max_helpers,
                         ThreadPool* pool) {
  if (n <= 0) return Status::OK();
  int helpers = static_cast<int>(std::min<int64_t>(n - 1, pool->num_threads()));
  if (max_helpers >= 0) helpers = std::min(helpers, max_helpers);
  if (helpers <= 0) {
    for (int64_t i = 0; i < n; ++i) QUIVER_RETURN_NOT_OK(fn(i));
    return Status::OK();
  }
  auto state = std::make_shared<SharedState>(n, &fn);
  for (int h = 0; h < helpers; ++h) {
    pool->Submit([state] { state->Work(); });
  }
  state->Work();
  std::unique_lock<std::mutex> lock(state->mu);
  state->cv.wait(lock, [&] { return state->finished == state->n; });
  return state->status;
}

}  // namespace quiver::parquet
