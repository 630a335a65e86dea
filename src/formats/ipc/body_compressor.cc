// BodyCompressor: parallel body-buffer compression (see body_compressor_internal.h).
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

#include "formats/ipc/body_compressor_internal.h"

namespace quiver::ipc::internal {

struct BodyCompressor::State {
  explicit State(ThreadPool* p) : pool(p), max_helpers(std::max(1, p->num_threads())) {}

  struct Item {
    std::shared_ptr<CompressionJob> job;
    int buffer;
  };

  ThreadPool* const pool;
  const int max_helpers;
  mutable std::mutex mu;
  std::condition_variable cv;  // signalled whenever an item finishes
  std::deque<Item> queue;      // GUARDED_BY(mu)
  int helpers = 0;             // pool tasks submitted and not yet returned; GUARDED_BY(mu)
  int running = 0;             // items being compressed; GUARDED_BY(mu)

  // Compresses the front item, unlocking meanwhile.
  // REQUIRES: `lock` holds mu and the queue is not empty.
  void RunFront(std::unique_lock<std::mutex>& lock) {
    Item item = std::move(queue.front());
    queue.pop_front();
    ++running;
    // After a failure the job is lost anyway; skip its other buffers.
    const bool skip = !item.job->status.ok();
    lock.unlock();
    Status st = skip ? Status::OK() : item.job->body.CompressBuffer(item.buffer);
    lock.lock();
    --running;
    if (!st.ok() && item.job->status.ok()) item.job->status = std::move(st);
    --item.job->remaining;
    cv.notify_all();
  }

  static void Help(const std::shared_ptr<State>& self) {
    std::unique_lock<std::mutex> lock(self->mu);
    while (!self->queue.empty()) self->RunFront(lock);
    --self->helpers;  // under the same lock that saw the queue empty: Add() spawns anew
  }
};

BodyCompressor::BodyCompressor(ThreadPool* pool) : state_(std::make_shared<State>(pool)) {}

BodyCompressor::~BodyCompressor() { Cancel(); }

void BodyCompressor::Add(const std::shared_ptr<CompressionJob>& job) {
  int spawn = 0;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    const int n = job->body.num_buffers();
    for (int i = 0; i < n; ++i) {
      if (job->body.raw_size(i) == 0) continue;
      state_->queue.push_back({job, i});
      ++job->remaining;
    }
    const int64_t wanted =
        std::min<int64_t>(state_->max_helpers, static_cast<int64_t>(state_->queue.size()));
    spawn = static_cast<int>(std::max<int64_t>(0, wanted - state_->helpers));
    state_->helpers += spawn;
  }
  for (int i = 0; i < spawn; ++i) {
    state_->pool->Submit([s = state_] { State::Help(s); });
  }
}

bool BodyCompressor::IsDone(const CompressionJob& job) const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return job.remaining == 0;
}

Status BodyCompressor::Wait(const CompressionJob& job) {
  std::unique_lock<std::mutex> lock(state_->mu);
  while (job.remaining > 0) {
    if (!state_->queue.empty()) {
      state_->RunFront(lock);
    } else {
      state_->cv.wait(lock);
    }
  }
  return job.status;
}

void BodyCompressor::Cancel() {
  std::unique_lock<std::mutex> lock(state_->mu);
  for (State::Item& item : state_->queue) --item.job->remaining;
  state_->queue.clear();
  state_->cv.wait(lock, [&] { return state_->running == 0; });
}

}  // namespace quiver::ipc::internal
