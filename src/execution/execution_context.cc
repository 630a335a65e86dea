#include "execution/execution_context.h"

#include "common/thread_pool.h"

namespace quiver::exec {

ExecutionContext::ExecutionContext(int64_t memory_limit, bool profile)
    : pool_(new MemoryPool("query", memory_limit, DefaultMemoryPool())),
      num_threads_(DefaultParallelism()),
      profile_(profile) {}

ExecutionContext::~ExecutionContext() { pool_->ReleaseWhenUnused(); }

OperatorProfile* ExecutionContext::ProfileOf(const PhysicalOperator* op) {
  if (!profile_) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [o, p] : profiles_) {
    if (o == op) return p.get();
  }
  profiles_.emplace_back(op, std::make_unique<OperatorProfile>());
  return profiles_.back().second.get();
}

Status ExecutionContext::CancelStatus() const {
  if (!cancelled()) return Status::OK();
  switch (interrupt_.load()) {
    case kUser:
      return Status::Cancelled("canceling statement due to user request");
    case kDeadline:
      return Status::Cancelled("canceling statement due to statement timeout");
    default:
      return Status::Cancelled("query cancelled");
  }
}

Status ExecutionContext::CheckMemory(const Status& st) const {
  if (st.ok() || st.code() != StatusCode::kOutOfMemory) return st;
  if (pool_->limit() >= 0) {
    return Status::OutOfMemory(
        "out of memory: the query needs more than its memory limit of {} MiB ({}); raise it with "
        "--memory-limit",
        pool_->limit() >> 20, st.message());
  }
  return st;
}

}  // namespace quiver::exec
