// PRIVATE to formats/ipc (includes generated flatbuffers headers).
//
// Serialises arrays into the field nodes, buffer descriptors and body bytes of
// a RecordBatch message (the inverse of array_loader_internal.h, same buffer
// order). Sliced arrays are normalised on the way: validity and boolean
// bitmaps are shifted to bit 0, offsets re-based to start at 0, children and
// run ends cut to the slice, so the body holds only the logical content.
// Each buffer starts 8-byte aligned in the body.
//
// With body compression each non-empty buffer is compressed on its own and
// framed as
//   int64 little-endian  uncompressed length, or -1: stored uncompressed
//   bytes                the codec's frame (or the raw bytes after -1)
// Compression is a separate step (CompressBuffer) so that the writer can run
// it for many buffers at once on the thread pool: each buffer's frame depends
// on that buffer alone, and the offsets are laid out only afterwards, in
// buffer order, so the body is the same bytes whoever compressed what.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "columnar/array.h"
#include "common/io.h"
#include "common/status.h"
#include "formats/compression/codec.h"
#include "formats/ipc/metadata_internal.h"

namespace quiver::ipc::internal {

// Thread-safety: AddArray, Finish and WriteBody from one thread at a time;
// CompressBuffer(i) may run concurrently for distinct i once AddArray calls
// are over.
class BodyWriter {
 public:
  BodyWriter(compression::Codec codec, int level, MemoryPool* pool)
      : codec_(codec), level_(level), pool_(pool) {}

  // Appends one column (pre-order walk of its nodes and buffers).
  Status AddArray(const ArrayData& array);

  // Buffers appended so far (empty ones included; they compress to nothing).
  int num_buffers() const { return static_cast<int>(contents_.size()); }
  // Bytes of buffer i before compression.
  int64_t raw_size(int i) const;
  // Replaces buffer i by its framed, compressed form. No-op without a codec.
  Status CompressBuffer(int i);
  // Compresses every buffer, one after the other.
  Status CompressAll();

  // Lays the buffers out and builds the RecordBatch table for `length` rows.
  // REQUIRES: every buffer compressed (when there is a codec).
  flatbuffers::Offset<fb::RecordBatch> Finish(flatbuffers::FlatBufferBuilder& fbb, int64_t length);
  // REQUIRES: Finish() called.
  int64_t body_length() const { return body_length_; }
  // Writes the body bytes (with padding).
  Status WriteBody(OutputStream* sink) const;
  // The body's buffers in order (null: empty), each to be followed by zero
  // padding to a multiple of 8 bytes. REQUIRES: Finish() called.
  const std::vector<std::shared_ptr<Buffer>>& buffers() const { return contents_; }

 private:
  Status AddBuffer(std::shared_ptr<Buffer> buffer);
  Result<std::shared_ptr<Buffer>> Bitmap(const ArrayData& a, int index);
  Result<std::shared_ptr<Buffer>> Validity(const ArrayData& a, int64_t null_count);
  Result<std::shared_ptr<Buffer>> FixedSlice(const ArrayData& a, int index, int64_t width);
  // Writes re-based offsets; returns the [start, end) range they covered.
  Status RebasedOffsets(const ArrayData& a, int64_t width, int64_t* start, int64_t* end);
  Status AddRunEndEncoded(const ArrayData& a);

  compression::Codec codec_;
  int level_;
  MemoryPool* pool_;
  std::vector<fb::FieldNode> nodes_;
  // One entry per buffer in body order; null for an empty buffer.
  std::vector<std::shared_ptr<Buffer>> contents_;
  std::vector<int64_t> variadic_counts_;
  int64_t body_length_ = 0;
};

// Collects the (id, dictionary) pairs of `array` in post-order, numbering
// ids in pre-order exactly as SchemaToFlatbuffer does; *next_id starts at 0
// for the first column of a batch and runs on across its columns.
void CollectDictionaries(const ArrayData& array, int64_t* next_id,
                         std::vector<std::pair<int64_t, ArrayRef>>* out);

}  // namespace quiver::ipc::internal
