// Per-query execution state shared by all operators and threads: the
// query's memory pool (with its limit), cancellation (by the user, by the
// statement's deadline, or after a sibling task failed), and the profile that
// EXPLAIN ANALYZE prints.
//
// Pipelines poll cancelled() at morsel and chunk boundaries (pipeline.cc), so
// a cancelled query stops within one chunk's work per thread.
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

  // True once the query must stop: Cancel(), CancelByUser() or the deadline
  // passed. Cheap enough to call per chunk.
  bool cancelled() const {
    if (interrupt_.load(std::memory_order_relaxed) != kNone) return true;
    if (cancel_flag_ != nullptr && cancel_flag_->load(std::memory_order_relaxed)) {
      int expected = kNone;
      interrupt_.compare_exchange_strong(expected, kUser);
      return true;
    }
    if (!has_deadline_ || std::chrono::steady_clock::now() < deadline_) return false;
    int expected = kNone;
    interrupt_.compare_exchange_strong(expected, kDeadline);
    return true;
  }
  // Stops the other tasks after one failed (its error is the query's).
  void Cancel() { Interrupt(kFailed); }
  // Thread-safe; the query fails with "canceling statement due to user request".
  void CancelByUser() { Interrupt(kUser); }
  // Past `deadline` the query fails with "canceling statement due to
  // statement timeout". Set before execution starts.
  void set_deadline(std::chrono::steady_clock::time_point deadline) {
    deadline_ = deadline;
    has_deadline_ = true;
  }
  // A flag set from outside (StatementOptions::cancel): once true, the
  // query stops as after CancelByUser(). Set before execution starts.
  void set_cancel_flag(std::shared_ptr<const std::atomic<bool>> flag) {
    cancel_flag_ = std::move(flag);
  }
  // Why the query stopped (Cancelled, PostgreSQL's wording), or OK if it
  // was not cancelled.
  Status CancelStatus() const;

  bool profiling() const { return profile_; }
  OperatorProfile* ProfileOf(const PhysicalOperator* op);

  // Wraps allocation failures with what the limit was.
  Status CheckMemory(const Status& st) const;

 private:
  MemoryPool* pool_;  // deleted once its last buffer is freed (ReleaseWhenUnused)
  int num_threads_;
  enum : int { kNone = 0, kFailed, kUser, kDeadline };
  void Interrupt(int why) {
    int expected = kNone;  // the first reason wins
    interrupt_.compare_exchange_strong(expected, why);
  }
  mutable std::atomic<int> interrupt_{kNone};
  bool has_deadline_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::shared_ptr<const std::atomic<bool>> cancel_flag_;
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
