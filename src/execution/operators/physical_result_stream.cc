#include "execution/operators/physical_result_stream.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include "columnar/batch_util.h"
#include "execution/operators/physical_result_collector.h"

namespace quiver::exec {
namespace {

struct StreamLocal : LocalSinkState {
  StreamLocal(std::shared_ptr<ResultChannel> c, std::mutex* mu,
              std::vector<ResultChannel::Position*>* running)
      : channel(std::move(c)), mu_(mu), running_(running) {}
  // A task that failed never Combines: leave the running set here too.
  ~StreamLocal() override {
    std::lock_guard<std::mutex> lock(*mu_);
    Leave();
  }
  void Leave() {
    auto it = std::find(running_->begin(), running_->end(), &position);
    if (it != running_->end()) running_->erase(it);
  }
  std::shared_ptr<ResultChannel> channel;  // keeps mu_ and running_ alive
  ResultChannel::Position position{std::numeric_limits<int64_t>::min()};
  // Chunks of consecutive positions not yet handed over, to be merged.
  std::vector<RecordBatchRef> pending;
  int64_t pending_bytes = 0;
  int64_t pending_first = 0;  // position of pending's first chunk
  int64_t pending_last = 0;   // and of its last
  std::mutex* mu_;
  std::vector<ResultChannel::Position*>* running_;
};

}  // namespace

Status ResultChannel::Pop(RecordBatchRef* out) {
  bool timed_out;
  return PopImpl(nullptr, out, &timed_out);
}

Status ResultChannel::PopBefore(std::chrono::steady_clock::time_point until,
                                RecordBatchRef* out, bool* timed_out) {
  return PopImpl(&until, out, timed_out);
}

Status ResultChannel::PopImpl(const std::chrono::steady_clock::time_point* until,
                              RecordBatchRef* out, bool* timed_out) {
  *out = nullptr;
  *timed_out = false;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (aborted_) {
      // Report the cancel once the query has stopped.
      if (closed_) return Status::Cancelled("canceling statement due to user request");
    } else if (!ready_.empty()) {
      *out = std::move(ready_.front());
      ready_.pop_front();
      cv_.notify_all();
      return Status::OK();
    } else if (closed_) {
      return final_;
    }
    if (until == nullptr) {
      cv_.wait(lock);
    } else if (cv_.wait_until(lock, *until) == std::cv_status::timeout && ready_.empty() &&
               !closed_) {
      *timed_out = true;
      return Status::OK();
    }
  }
}

void ResultChannel::Abort() {
  std::lock_guard<std::mutex> lock(mu_);
  aborted_ = true;
  ready_.clear();
  while (!held_.empty()) held_.pop();
  cv_.notify_all();
}

void ResultChannel::Close(Status status) {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  final_ = std::move(status);
  // A failed query's rows are not handed out: the error comes next.
  if (!final_.ok()) ready_.clear();
  while (!held_.empty()) held_.pop();
  cv_.notify_all();
}

Status ResultChannel::Drain(ExecutionContext& ctx, std::unique_lock<std::mutex>& lock) {
  for (;;) {
    if (aborted_) {
      ctx.CancelByUser();
      return ctx.CancelStatus();
    }
    if (ctx.cancelled()) return ctx.CancelStatus();
    if (held_.empty()) return Status::OK();
    if (held_.top().position > Low()) return Status::OK();  // an earlier chunk may still come
    if (ready_.size() >= capacity_) {
      // Back-pressure. Woken by Pop and Abort; the timeout lets a deadline
      // that passes meanwhile be noticed.
      cv_.wait_for(lock, std::chrono::milliseconds(50));
      continue;
    }
    ready_.push_back(held_.top().batch);
    held_.pop();
    cv_.notify_all();
  }
}

int64_t ResultChannel::Low() const {
  int64_t low = std::numeric_limits<int64_t>::max();
  for (const Position* p : running_) low = std::min(low, p->value);
  return low;
}

// Hands the thread's pending chunks over as one batch, at the position of
// the first.
Status PhysicalResultStream::Flush(ExecutionContext& ctx, LocalSinkState& lstate,
                                   std::unique_lock<std::mutex>& lock) const {
  auto& l = static_cast<StreamLocal&>(lstate);
  ResultChannel& c = *channel_;
  if (l.pending.empty()) return Status::OK();
  RecordBatchRef batch;
  {
    // The merge (a copy unless the chunks are slices of one stored batch)
    // runs outside the lock.
    lock.unlock();
    auto merged = ConcatenateBatches(schema_, l.pending, ctx.pool());
    lock.lock();
    if (!merged.ok()) return merged.status();
    batch = std::move(*merged);
  }
  l.pending.clear();
  l.pending_bytes = 0;
  // Chunks ahead of a thread that is behind wait for it, but only so many:
  // then their threads wait too (the one that is behind never does), so
  // out-of-order chunks stay bounded as well.
  while (c.held_.size() >= c.capacity_ * 4 && l.pending_first > c.Low()) {
    if (c.aborted_) ctx.CancelByUser();
    if (ctx.cancelled()) return ctx.CancelStatus();
    c.cv_.wait_for(lock, std::chrono::milliseconds(50));
  }
  c.held_.push({l.pending_first, c.seq_++, std::move(batch)});
  return Status::OK();
}

Result<std::unique_ptr<LocalSinkState>> PhysicalResultStream::GetLocalSinkState(
    ExecutionContext&, GlobalSinkState&, int) const {
  ResultChannel& c = *channel_;
  auto local = std::make_unique<StreamLocal>(channel_, &c.mu_, &c.running_);
  std::lock_guard<std::mutex> lock(c.mu_);
  c.running_.push_back(&local->position);
  return std::unique_ptr<LocalSinkState>(std::move(local));
}

Status PhysicalResultStream::SourceProgress(ExecutionContext& ctx, GlobalSinkState&,
                                            LocalSinkState& lstate, int64_t batch_index) const {
  auto& l = static_cast<StreamLocal&>(lstate);
  std::unique_lock<std::mutex> lock(channel_->mu_);
  // Moving on to a position that is not the next one: what is pending goes
  // first, before another thread's chunks can come after it.
  if (!l.pending.empty() && batch_index != l.pending_last && batch_index != l.pending_last + 1) {
    QUIVER_RETURN_NOT_OK(Flush(ctx, l, lock));
  }
  l.position.value = std::max(l.position.value, batch_index);
  channel_->cv_.notify_all();  // threads waiting for this one to advance
  return channel_->Drain(ctx, lock);
}

Status PhysicalResultStream::Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState&,
                                  LocalSinkState& lstate) const {
  auto& l = static_cast<StreamLocal&>(lstate);
  // Dense copies in the query's pool: its limit and peak count what the
  // result holds in flight.
  QUIVER_ASSIGN_OR_RAISE(auto cols, FlattenChunk(input, ctx.pool()));
  auto batch = RecordBatch::Make(schema_, input.num_rows, std::move(cols));
  ResultChannel& c = *channel_;
  // l.position is this thread's: read without the lock.
  if (l.pending.empty()) l.pending_first = l.position.value;
  l.pending_last = l.position.value;
  l.pending_bytes += SliceBytes(*batch);
  l.pending.push_back(std::move(batch));
  if (l.pending_bytes < c.batch_bytes_) return Status::OK();
  std::unique_lock<std::mutex> lock(c.mu_);
  QUIVER_RETURN_NOT_OK(Flush(ctx, l, lock));
  return c.Drain(ctx, lock);
}

Status PhysicalResultStream::Combine(ExecutionContext& ctx, GlobalSinkState&,
                                     LocalSinkState& lstate) const {
  auto& l = static_cast<StreamLocal&>(lstate);
  std::unique_lock<std::mutex> lock(channel_->mu_);
  QUIVER_RETURN_NOT_OK(Flush(ctx, l, lock));
  l.Leave();
  channel_->cv_.notify_all();  // threads waiting for this one to advance
  return channel_->Drain(ctx, lock);
}

}  // namespace quiver::exec
