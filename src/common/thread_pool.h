// A fixed-size thread pool: the task scheduler that puts all cores to work.
//
// Work is submitted as closures; TaskGroup waits for a set of tasks and
// collects the first error. ParallelFor splits an index range over the pool.
// The pool is process-wide (GlobalThreadPool()), sized to the hardware
// concurrency unless QUIVER_THREADS is set.
//
// Thread-safety: all methods are thread-safe. Tasks must not block waiting on
// other tasks of the same pool (no nested waits), except through TaskGroup::Wait
// called from outside the pool.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "common/status.h"

namespace quiver {

class ThreadPool {
 public:
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Submit(std::function<void()> task);
  int num_threads() const { return static_cast<int>(threads_.size()); }

 private:
  void WorkerLoop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;  // GUARDED_BY(mu_)
  bool shutdown_ = false;                     // GUARDED_BY(mu_)
  std::vector<std::thread> threads_;
};

ThreadPool* GlobalThreadPool();
int DefaultParallelism();

// A set of tasks whose completion can be awaited; the first failing Status wins.
class TaskGroup {
 public:
  explicit TaskGroup(ThreadPool* pool = GlobalThreadPool()) : pool_(pool) {}
  ~TaskGroup() { (void)Wait(); }
  void Submit(std::function<Status()> task);
  // Blocks until every submitted task has finished; returns the first error.
  Status Wait();
  bool failed() const;

 private:
  ThreadPool* pool_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int64_t pending_ = 0;  // GUARDED_BY(mu_)
  Status status_;        // GUARDED_BY(mu_)
};

// Runs fn(i) for i in [0, n) on the pool, at most `parallelism` at once.
Status ParallelFor(int64_t n, const std::function<Status(int64_t)>& fn,
                   ThreadPool* pool = GlobalThreadPool());

}  // namespace quiver
