// PRIVATE to formats/ipc (includes generated flatbuffers headers).
//
// Serialises arrays into the field nodes, buffer descriptors and body bytes of
// a RecordBatch message (the inverse of array_loader_internal.h, same buffer
// order). Sliced arrays are normalised on the way: validity and boolean
// bitmaps are shifted to bit 0, offsets re-based to start at 0, children and
// run ends cut to the slice, so the body holds only the logical content.
// Each buffer starts 8-byte aligned in the body.
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

class BodyWriter {
 public:
  BodyWriter(compression::Codec codec, int level, MemoryPool* pool)
      : codec_(codec), level_(level), pool_(pool) {}

  // Appends one column (pre-order walk of its nodes and buffers).
  Status AddArray(const ArrayData& array);

  // Builds the RecordBatch table for `length` rows.
  flatbuffers::Offset<fb::RecordBatch> Finish(flatbuffers::FlatBufferBuilder& fbb, int64_t length);
  int64_t body_length() const { return body_length_; }
  // Writes the body bytes (with padding).
  Status WriteBody(OutputStream* sink) const;

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
  std::vector<fb::Buffer> buffers_;
  std::vector<std::shared_ptr<Buffer>> contents_;
  std::vector<int64_t> variadic_counts_;
  int64_t body_length_ = 0;
};

}  // namespace quiver::ipc::internal
