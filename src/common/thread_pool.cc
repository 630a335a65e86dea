#include "common/thread_pool.h"

#include <cstdlib>
#include <memory>

namespace quiver {

ThreadPool::ThreadPool(int num_threads) {
  if (num_threads < 1) num_threads = 1;
  threads_.reserve(static_cast<size_t>(num_threads));
  for (int i = 0; i < num_threads; ++i) threads_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutdown_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadPool::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return shutdown_ || !queue_.empty(); });
      if (queue_.empty()) return;  // shutdown with nothing left
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

int DefaultParallelism() {
  if (const char* env = std::getenv("QUIVER_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

ThreadPool* GlobalThreadPool() {
  static ThreadPool* pool = new ThreadPool(DefaultParallelism());  // never destroyed: workers may outlive main's statics
  return pool;
}

void TaskGroup::Submit(std::function<Status()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++pending_;
  }
  pool_->Submit([this, task = std::move(task)] {
    Status st;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!status_.ok()) st = Status::Cancelled("skipped after an earlier failure");
    }
    if (st.ok()) st = task();
    std::lock_guard<std::mutex> lock(mu_);
    if (!st.ok() && status_.ok() && st.code() != StatusCode::kCancelled) status_ = st;
    if (--pending_ == 0) cv_.notify_all();
  });
}

Status TaskGroup::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return pending_ == 0; });
  return status_;
}

bool TaskGroup::failed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !status_.ok();
}

Status ParallelFor(int64_t n, const std::function<Status(int64_t)>& fn, ThreadPool* pool) {
  if (n <= 0) return Status::OK();
  if (n == 1 || pool->num_threads() == 1) {
    for (int64_t i = 0; i < n; ++i) QUIVER_RETURN_NOT_OK(fn(i));
    return Status::OK();
  }
  TaskGroup group(pool);
  for (int64_t i = 0; i < n; ++i) {
    group.Submit([&fn, i] { return fn(i); });
  }
  return group.Wait();
}

}  // namespace quiver
