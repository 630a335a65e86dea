// PRIVATE to formats/ipc.
//
// BodyCompressor: compresses the buffers of message bodies on a thread pool
// while the writer goes on preparing (and writing) other messages, the way
// Arrow C++'s writer with use_threads compresses a batch's buffers in
// parallel, and further pipelined across batches so that the cores do not
// idle at the end of each batch.
//
// Every non-empty buffer of a queued body is one work item; items are claimed
// in queue order, so the oldest body (the one the writer needs next) finishes
// first. Pool helpers claim items until none are left. The writer thread
// claims items too while it waits (Wait), and only blocks on items a helper
// has already started and will finish; so waiting is safe even from a task of
// the same pool (the rule in common/thread_pool.h), and the waiting thread
// works instead of sleeping. Each buffer is compressed on its own
// (BodyWriter::CompressBuffer), so the bytes do not depend on which thread
// compressed what, nor on how many there are.
//
// Thread-safety: all methods are thread-safe; a job's body must not be
// touched outside the compressor between Add() and a successful IsDone() or
// the return of Wait().
#pragma once

#include <memory>

#include "common/status.h"
#include "common/thread_pool.h"
#include "formats/ipc/array_writer_internal.h"

namespace quiver::ipc::internal {

// A body in flight. The writer derives its pending messages from it.
struct CompressionJob {
  explicit CompressionJob(BodyWriter b) : body(std::move(b)) {}
  virtual ~CompressionJob() = default;
  BodyWriter body;
  int remaining = 0;  // items not yet compressed; GUARDED_BY(compressor's mutex)
  Status status;      // the first failure; GUARDED_BY(compressor's mutex)
};

class BodyCompressor {
 public:
  // At most `pool->num_threads()` pool tasks help at any time.
  explicit BodyCompressor(ThreadPool* pool);
  // Cancel()s: queued items are dropped, running ones awaited.
  ~BodyCompressor();
  BodyCompressor(const BodyCompressor&) = delete;
  BodyCompressor& operator=(const BodyCompressor&) = delete;

  // Queues every non-empty buffer of job->body.
  // REQUIRES: no AddArray on the body from now on.
  void Add(const std::shared_ptr<CompressionJob>& job);
  // Whether every buffer of `job` is compressed (or its compression failed).
  bool IsDone(const CompressionJob& job) const;
  // Compresses queued items (oldest first) until `job` is done; returns its
  // status.
  Status Wait(const CompressionJob& job);
  // Drops the queued items and waits for the running ones.
  void Cancel();

  struct State;

 private:
  std::shared_ptr<State> state_;  // shared with the pool helpers
};

}  // namespace quiver::ipc::internal
