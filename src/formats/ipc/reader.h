// Arrow IPC readers: the random-access *file* format and the *streaming* format.
//
// Byte layout (Arrow columnar format, "Serialization and Interprocess Communication"):
//
//   stream  := message* [end-of-stream]
//   message := 0xFFFFFFFF (continuation, absent before Arrow 0.15)
//              int32 metadata_size (little-endian; includes padding to 8 bytes)
//              flatbuffer Message (Message.fbs), zero-padded to metadata_size
//              body (Message.body_length bytes, buffers 8-byte aligned)
//   end-of-stream := 0xFFFFFFFF 0x00000000 (or a bare int32 0 in the old format)
//
//   file    := "ARROW1" 0x00 0x00  stream  footer  int32 footer_size  "ARROW1"
//   footer  := flatbuffer Footer (File.fbs): schema + Blocks {offset, meta_data_length,
//              body_length} pointing at each dictionary / record batch message.
//
// The first message of a stream is the Schema; DictionaryBatch messages carry
// dictionary values (is_delta = append to the current dictionary, otherwise
// replace it) and precede the RecordBatch messages that use them.
//
// Reading is zero-copy: buffers of returned arrays are slices of the mmap'd
// file (or of the input Buffer), except when a body is compressed or a buffer
// is misaligned for its type, in which case it is copied into `pool`.
//
// Input is untrusted: flatbuffers are verified, every buffer range is checked
// against its message body, lengths and nesting depth are bounded and every
// array is validated before it is returned. Errors name the input and the byte
// offset of the offending message.
//
// Thread-safety: a reader is used by one thread at a time, except for
// IpcFileReader::ReadRecordBatch, which may be called concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "columnar/type.h"
#include "common/buffer.h"
#include "common/memory_pool.h"
#include "common/status.h"

namespace quiver::ipc {

struct IpcReadOptions {
  // Map files instead of reading them into memory (ignored for "-" / pipes).
  bool use_mmap = true;
  // Run ArrayData::Validate(full) on every array read (structural checks are
  // always done; this adds offset/utf8 scans).
  bool validate = true;
  MemoryPool* pool = DefaultMemoryPool();
  // Top-level field indices to read, in schema order; empty = all fields.
  std::vector<int> included_fields;
};

// "ARROW1" magic at the start (file format).
bool LooksLikeIpcFile(const uint8_t* data, int64_t size);
// A continuation marker 0xFFFFFFFF or a plausible legacy int32 length
// followed by a flatbuffer (streaming format).
bool LooksLikeIpcStream(const uint8_t* data, int64_t size);

class IpcFileReader : public std::enable_shared_from_this<IpcFileReader> {
 public:
  // Opens an IPC file (mmap'd when options.use_mmap).
  static Result<std::shared_ptr<IpcFileReader>> Open(const std::string& path,
                                                     const IpcReadOptions& options = {});
  // Opens an IPC file held in memory; `name` is used in error messages.
  static Result<std::shared_ptr<IpcFileReader>> Open(std::shared_ptr<Buffer> file,
                                                     const IpcReadOptions& options = {},
                                                     std::string name = "<buffer>");
  ~IpcFileReader();

  // The (projected, if included_fields was set) schema, with its metadata.
  SchemaRef schema() const;
  int num_record_batches() const;
  int num_dictionaries() const;
  // Reads batch i (0 <= i < num_record_batches()). Only the included fields
  // are decoded and validated. Unlike the rest of this class, safe to call
  // from several threads at once (parallel scans).
  Result<RecordBatchRef> ReadRecordBatch(int i);
  // Row count of batch i read from its metadata alone (no body access), or
  // -1 when it cannot be read.
  int64_t num_rows(int i) const;
  // Custom metadata of batch i's message (PG-Strom's min_max_stats.<column>),
  // read from its metadata alone; empty when it has none or cannot be read.
  KeyValueMetadata record_batch_metadata(int i) const;
  // Custom metadata of the footer's schema (same as schema()->metadata).
  const KeyValueMetadata& footer_metadata() const;
  // Metadata version of the footer: 4 (V4) or 5 (V5).
  int metadata_version() const;

  // All batches in order. The returned reader keeps this reader alive.
  std::unique_ptr<RecordBatchReader> ToReader();

  // Progress: bytes of messages read so far / file size.
  int64_t bytes_read() const;
  int64_t total_bytes() const;
  const std::string& name() const;

  struct Impl;

 private:
  explicit IpcFileReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class IpcStreamReader final : public RecordBatchReader {
 public:
  // Opens a stream file; "-" reads stdin fully.
  static Result<std::unique_ptr<IpcStreamReader>> Open(const std::string& path,
                                                       const IpcReadOptions& options = {});
  static Result<std::unique_ptr<IpcStreamReader>> Open(std::shared_ptr<Buffer> stream,
                                                       const IpcReadOptions& options = {},
                                                       std::string name = "<buffer>");
  ~IpcStreamReader() override;

  SchemaRef schema() const override;
  // Sets *out to the next record batch (after applying any dictionary
  // batches before it), or nullptr at end of stream.
  Status ReadNext(RecordBatchRef* out) override;

  int64_t num_record_batches_read() const;
  int64_t bytes_read() const;
  int64_t total_bytes() const;  // size of the input
  const std::string& name() const;

  struct Impl;

 private:
  explicit IpcStreamReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Opens `path` ("-" = stdin) as either format, sniffing the "ARROW1" magic.
Result<std::unique_ptr<RecordBatchReader>> OpenIpcReader(const std::string& path,
                                                         const IpcReadOptions& options = {});
Result<std::unique_ptr<RecordBatchReader>> OpenIpcReader(std::shared_ptr<Buffer> data,
                                                         const IpcReadOptions& options = {},
                                                         std::string name = "<buffer>");

}  // namespace quiver::ipc
