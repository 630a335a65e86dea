// Per-query execution state shared by all operators and threads: the
// query's memory pool (with its limit), cancellation, and the profile that
// EXPLAIN ANALYZE prints.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/memory_pool.h"
#include "common/status.h"

namespace quiver::exec {

class PhysicalOperator;

// Counters of one operator, summed over threads.
struct OperatorProfile {
  std::atomic<int64_t> rows_out{0};
  std::atomic<int64_t> chunks_out{0};
  std::atomic<int64_t> nanos{0};  // time spent in the operator's own code
};

class ExecutionContext {
 public:
  // `memory_limit` < 0: unlimited.
  explicit ExecutionContext(int64_t memory_limit, bool profile = false);
  ~ExecutionContext();

  MemoryPool* pool() { return pool_; }
  int num_threads() const { return num_threads_; }
  void set_num_threads(int n) { num_threads_ = n; }

  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }
  void Cancel() { cancelled_ = true; }

  bool profiling() const { return profile_; }
  OperatorProfile* ProfileOf(const PhysicalOperator* op);

  // Wraps allocation failures with what the limit was.
  Status CheckMemory(const Status& st) const;

 private:
  MemoryPool* pool_;  // deleted once its last buffer is freed (ReleaseWhenUnused)
  int num_threads_;
  std::atomic<bool> cancelled_{false};
  bool profile_;
  std::mutex mu_;
  std::vector<std::pair<const PhysicalOperator*, std::unique_ptr<OperatorProfile>>> profiles_;
};

// Times a scope into a profile when profiling.
class ProfileTimer {
 public:
  explicit ProfileTimer(OperatorProfile* p) : p_(p) {
    if (p_) start_ = std::chrono::steady_clock::now();
  }
  ~ProfileTimer() {
    if (p_) {
      p_->nanos += std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::steady_clock::now() - start_)
                       .count();
    }
  }

 private:
  OperatorProfile* p_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace quiver::exec
