// Arrow IPC writers for the file and streaming formats (layouts documented in
// formats/ipc/reader.h).
//
// Every buffer starts 8-byte aligned in its message body and is zero-padded
// to a multiple of 8 bytes; metadata is V5. Dictionary batches are emitted
// before the first record batch that needs them. When a dictionary changes
// between batches: in streams it is sent as a delta if
// IpcWriteOptions::emit_dictionary_deltas is set and the old dictionary is a
// prefix of the new one, otherwise replaced; in files (which cannot replace
// dictionaries) a grown dictionary is always sent as a delta and any other
// change is an error.
//
// Sliced arrays (offset != 0) are written with their logical content only:
// bitmaps are shifted, offsets re-based.
//
// With body compression and use_threads, the buffers are compressed on the
// thread pool, in parallel within a batch and across batches: a message is
// queued, and written once its buffers are compressed, in order, while the
// caller goes on with the next batch. At most a bounded window of messages
// (and of their uncompressed bytes) is pending; Close() writes the rest. The
// output is byte-for-byte the same as a serial writer's, whatever the number
// of threads. Pending batches are referenced, not copied, so their buffers
// must not change until Close() (Arrow arrays are immutable).
//
// Thread-safety: one thread at a time. The sink must outlive the writer.
#pragma once

#include <cstdint>
#include <memory>

#include "columnar/array.h"
#include "common/io.h"
#include "common/memory_pool.h"
#include "common/status.h"
#include "formats/compression/codec.h"

namespace quiver {
class ThreadPool;
}  // namespace quiver

namespace quiver::ipc {

struct IpcWriteOptions {
  // Body compression: kNone, kLz4Frame or kZstd (others are rejected).
  compression::Codec codec = compression::Codec::kNone;
  int level = compression::kDefaultLevel;
  bool emit_dictionary_deltas = false;
  MemoryPool* pool = DefaultMemoryPool();
  // Compress on `thread_pool` (GlobalThreadPool() when null) and pipeline
  // batches; false compresses each buffer on the calling thread, in turn.
  // Either way the bytes written are the same.
  bool use_threads = true;
  ThreadPool* thread_pool = nullptr;
};

class IpcWriter {
 public:
  // File format: magic, messages, footer. Close() writes the footer.
  static Result<std::unique_ptr<IpcWriter>> MakeFileWriter(OutputStream* sink, SchemaRef schema,
                                                           const IpcWriteOptions& options = {});
  // Streaming format: schema message first, end-of-stream marker on Close().
  static Result<std::unique_ptr<IpcWriter>> MakeStreamWriter(OutputStream* sink, SchemaRef schema,
                                                             const IpcWriteOptions& options = {});
  ~IpcWriter();

  // REQUIRES: batch.schema() has the same fields as the writer's schema.
  // With compression on threads the message may reach the sink later (see
  // above); a failure to compress or write it is returned by a later call.
  Status WriteRecordBatch(const RecordBatch& batch);
  // With custom metadata on the batch's message (PG-Strom's min_max_stats).
  Status WriteRecordBatch(const RecordBatch& batch, KeyValueMetadata custom_metadata);
  // Writes the pending messages, the end-of-stream marker (and the footer for
  // files). Idempotent. Does not close the sink.
  Status Close();

  // Batches accepted (written or pending).
  int64_t num_record_batches_written() const;
  int64_t num_dictionary_batches_written() const;
  // Bytes handed to the sink so far (pending messages not included).
  int64_t bytes_written() const;

  struct Impl;

 private:
  explicit IpcWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace quiver::ipc
