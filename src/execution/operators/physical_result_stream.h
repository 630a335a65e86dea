// The sink at the top of a streamed query: hands the result's batches to a
// consumer while the final pipeline runs, through a bounded queue.
//
// Order: chunks leave in batch_index order, as the result collector would
// sort them. Each thread reports where its source stands
// (SourceProgress); a chunk is emitted once no running thread can still
// produce an earlier one (its batch_index is at most the lowest position of
// the threads still running); only chunks that arrive out of order wait.
// Pipelines feeding this sink run one after another in batch_index order
// (ExecutePlan), and each one's chunks are all emitted when it ends.
//
// Batch size: each thread merges the chunks it makes for consecutive source
// positions (a scan's slices of one stored batch) into batches of about
// batch_bytes before they enter the queue, without a copy when they are
// consecutive slices of the same buffers. The consumer then takes a few
// large batches instead of one per vector, and the merge runs on the query's
// threads instead of the consumer's. A thread hands its merged batch over
// before it moves to a position that is not the next one, so the order above
// is kept.
//
// Back-pressure: when the queue holds `capacity` batches, the threads that
// emit block until the consumer takes one, so a slow consumer makes the
// query wait instead of buffering its result. Blocked threads wake on
// cancellation and the deadline (ExecutionContext::cancelled()).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <queue>
#include <vector>

#include "execution/physical_operator.h"

namespace quiver::exec {

// Between the query's threads and the consumer.
class ResultChannel {
 public:
  // `batch_bytes`: the size chunks are merged up to (0: no merging).
  ResultChannel(size_t capacity, int64_t batch_bytes)
      : capacity_(capacity), batch_bytes_(batch_bytes) {}

  // Consumer: the next batch; nullptr after the last. The query's error
  // (or Cancelled after Abort) once it has ended.
  Status Pop(RecordBatchRef* out);
  // Pop that waits no later than `until`: then *timed_out, *out null.
  Status PopBefore(std::chrono::steady_clock::time_point until, RecordBatchRef* out,
                   bool* timed_out);
  // Consumer: stop taking batches; blocked producers wake and fail.
  void Abort();
  // The thread that ran the query: it has ended with `status`.
  void Close(Status status);

  // Where one thread feeding the sink stands in its source's batch_index order.
  struct Position {
    int64_t value;
  };

 private:
  friend class PhysicalResultStream;
  struct Held {
    int64_t position;  // the source position of the thread that produced it
    int64_t seq;       // arrival order, for equal positions
    RecordBatchRef batch;
    bool operator>(const Held& o) const {
      return position > o.position || (position == o.position && seq > o.seq);
    }
  };
  // Pop with an optional deadline.
  Status PopImpl(const std::chrono::steady_clock::time_point* until, RecordBatchRef* out,
                 bool* timed_out);
  // Moves the emittable held batches to the queue, waiting for room.
  // REQUIRES: lock holds mu_.
  Status Drain(ExecutionContext& ctx, std::unique_lock<std::mutex>& lock);
  // The lowest position of the running threads (max when none runs).
  // REQUIRES: mu_ held.
  int64_t Low() const;

  const size_t capacity_;
  const int64_t batch_bytes_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<RecordBatchRef> ready_;  // GUARDED_BY(mu_)
  std::priority_queue<Held, std::vector<Held>, std::greater<Held>> held_;  // GUARDED_BY(mu_)
  std::vector<Position*> running_;  // GUARDED_BY(mu_): threads feeding the sink
  int64_t seq_ = 0;                 // GUARDED_BY(mu_)
  bool aborted_ = false;            // GUARDED_BY(mu_)
  bool closed_ = false;             // GUARDED_BY(mu_)
  Status final_;                    // GUARDED_BY(mu_)
};

class PhysicalResultStream final : public PhysicalOperator {
 public:
  PhysicalResultStream(std::vector<TypeRef> types, SchemaRef schema,
                       std::shared_ptr<ResultChannel> channel)
      : PhysicalOperator("RESULT", std::move(types)),
        schema_(std::move(schema)),
        channel_(std::move(channel)) {}
  bool IsSink() const override { return true; }
  Result<std::unique_ptr<LocalSinkState>> GetLocalSinkState(ExecutionContext& ctx,
                                                            GlobalSinkState& gstate,
                                                            int input_index) const override;
  Status SourceProgress(ExecutionContext& ctx, GlobalSinkState& gstate, LocalSinkState& lstate,
                        int64_t batch_index) const override;
  Status Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState& gstate,
              LocalSinkState& lstate) const override;
  Status Combine(ExecutionContext& ctx, GlobalSinkState& gstate,
                 LocalSinkState& lstate) const override;

 private:
  // Hands the thread's pending chunks to the channel as one batch.
  // REQUIRES: lock holds the channel's mutex (released during the merge).
  Status Flush(ExecutionContext& ctx, LocalSinkState& lstate,
               std::unique_lock<std::mutex>& lock) const;

  SchemaRef schema_;
  std::shared_ptr<ResultChannel> channel_;
};

}  // namespace quiver::exec
