// BodyWriter: arrays -> RecordBatch nodes, buffers and body bytes.
#include <algorithm>
#include <cstring>
#include <utility>

#include "formats/ipc/array_writer_internal.h"

namespace quiver::ipc::internal {
namespace {

int64_t PaddedTo8(int64_t n) { return (n + 7) & ~int64_t{7}; }

template <typename T>
int64_t LoadAs(const uint8_t* p, int64_t i) {
  T v;
  std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return static_cast<int64_t>(v);
}

int64_t LoadInt(const uint8_t* p, int64_t width, int64_t i) {
  switch (width) {
    case 2:
      return LoadAs<int16_t>(p, i);
    case 4:
      return LoadAs<int32_t>(p, i);
    default:
      return LoadAs<int64_t>(p, i);
  }
}

void StoreInt(uint8_t* p, int64_t width, int64_t i, int64_t v) {
  switch (width) {
    case 2: {
      int16_t x = static_cast<int16_t>(v);
      std::memcpy(p + i * 2, &x, 2);
      break;
    }
    case 4: {
      int32_t x = static_cast<int32_t>(v);
      std::memcpy(p + i * 4, &x, 4);
      break;
    }
    default:
      std::memcpy(p + i * 8, &v, 8);
      break;
  }
}

}  // namespace

Status BodyWriter::AddBuffer(std::shared_ptr<Buffer> buffer) {
  if (buffer != nullptr && buffer->size() == 0) buffer = nullptr;
  contents_.push_back(std::move(buffer));
  return Status::OK();
}

int64_t BodyWriter::raw_size(int i) const {
  const auto& b = contents_[static_cast<size_t>(i)];
  return b ? b->size() : 0;
}

Status BodyWriter::CompressBuffer(int i) {
  std::shared_ptr<Buffer>& buffer = contents_[static_cast<size_t>(i)];
  if (codec_ == compression::Codec::kNone || buffer == nullptr) return Status::OK();
  // int64 uncompressed length, then the frame; -1 + raw bytes when
  // compression does not pay off.
  QUIVER_ASSIGN_OR_RAISE(
      auto packed, compression::Compress(codec_, buffer->data(), buffer->size(), level_, pool_));
  const bool raw = packed->size() >= buffer->size();
  const Buffer& payload = raw ? *buffer : *packed;
  QUIVER_ASSIGN_OR_RAISE(auto framed, MutableBuffer::Allocate(8 + payload.size(), pool_));
  int64_t prefix = raw ? -1 : buffer->size();
  std::memcpy(framed->mutable_data(), &prefix, 8);
  std::memcpy(framed->mutable_data() + 8, payload.data(), static_cast<size_t>(payload.size()));
  framed->ZeroPadding();
  buffer = std::move(framed);
  return Status::OK();
}

Status BodyWriter::CompressAll() {
  for (int i = 0; i < num_buffers(); ++i) QUIVER_RETURN_NOT_OK(CompressBuffer(i));
  return Status::OK();
}

Result<std::shared_ptr<Buffer>> BodyWriter::Bitmap(const ArrayData& a, int index) {
  const auto& src = a.buffers[index];
  if (src == nullptr) return std::shared_ptr<Buffer>();
  const int64_t bytes = bit_util::BytesForBits(a.length);
  if (a.offset % 8 == 0) return src->Slice(a.offset / 8, bytes);
  QUIVER_ASSIGN_OR_RAISE(auto out, AllocateZeroed(bytes, pool_));
  bit_util::CopyBitmap(src->data(), a.offset, a.length, out->mutable_data(), 0);
  return std::shared_ptr<Buffer>(std::move(out));
}

Result<std::shared_ptr<Buffer>> BodyWriter::Validity(const ArrayData& a, int64_t null_count) {
  if (null_count == 0 || a.buffers.empty()) return std::shared_ptr<Buffer>();
  return Bitmap(a, 0);
}

Result<std::shared_ptr<Buffer>> BodyWriter::FixedSlice(const ArrayData& a, int index,
                                                       int64_t width) {
  const auto& src = a.buffers[index];
  if (src == nullptr || a.length == 0) return std::shared_ptr<Buffer>();
  return src->Slice(a.offset * width, a.length * width);
}

Status BodyWriter::RebasedOffsets(const ArrayData& a, int64_t width, int64_t* start, int64_t* end) {
  const auto& src = a.buffers[1];
  if (src == nullptr || src->size() < (a.offset + a.length + 1) * width) {
    // Empty arrays may come without offsets.
    *start = *end = 0;
    QUIVER_ASSIGN_OR_RAISE(auto zero, AllocateZeroed(width * (a.length + 1), pool_));
    return AddBuffer(std::move(zero));
  }
  const uint8_t* p = src->data();
  *start = LoadInt(p, width, a.offset);
  *end = LoadInt(p, width, a.offset + a.length);
  if (*start == 0) return AddBuffer(src->Slice(a.offset * width, (a.length + 1) * width));
  QUIVER_ASSIGN_OR_RAISE(auto out, MutableBuffer::Allocate((a.length + 1) * width, pool_));
  // Typed loops the compiler vectorizes: every message of slices after a
  // stored batch's first rebases all its string columns' offsets.
  if (width == 4) {
    const auto* in = reinterpret_cast<const int32_t*>(p) + a.offset;
    auto* dst = out->mutable_data_as<int32_t>();
    const auto base = static_cast<int32_t>(*start);
    for (int64_t i = 0; i <= a.length; ++i) dst[i] = in[i] - base;
  } else {
    for (int64_t i = 0; i <= a.length; ++i) {
      StoreInt(out->mutable_data(), width, i, LoadInt(p, width, a.offset + i) - *start);
    }
  }
  out->ZeroPadding();
  return AddBuffer(std::move(out));
}

Status BodyWriter::AddRunEndEncoded(const ArrayData& a) {
  const ArrayData& run_ends = *a.children[0];
  const ArrayData& values = *a.children[1];
  const int64_t width = run_ends.type->bit_width() / 8;
  const uint8_t* ends =
      run_ends.buffers[1] ? run_ends.buffers[1]->data() + run_ends.offset * width : nullptr;
  const int64_t n = run_ends.length;
  if (a.offset == 0 &&
      (a.length == 0 ? n == 0 : n > 0 && LoadInt(ends, width, n - 1) == a.length)) {
    QUIVER_RETURN_NOT_OK(AddArray(run_ends));
    return AddArray(values);
  }
  // Cut the runs to [offset, offset + length).
  int64_t first = 0, last = -1;
  if (a.length > 0) {
    // Physical runs covering the slice (linear scan; slices are rare here).
    first = 0;
    while (first < n && LoadInt(ends, width, first) <= a.offset) ++first;
    last = first;
    while (last < n && LoadInt(ends, width, last) < a.offset + a.length) ++last;
    if (last >= n) return Status::Invalid("run_end_encoded array shorter than its length");
  }
  const int64_t runs = last - first + 1;
  QUIVER_ASSIGN_OR_RAISE(auto new_ends,
                         MutableBuffer::Allocate(std::max<int64_t>(runs, 0) * width, pool_));
  for (int64_t i = 0; i < runs; ++i) {
    int64_t e = std::min(LoadInt(ends, width, first + i), a.offset + a.length) - a.offset;
    StoreInt(new_ends->mutable_data(), width, i, e);
  }
  new_ends->ZeroPadding();
  auto ends_array = ArrayData::Make(run_ends.type, runs, {nullptr, std::move(new_ends)}, 0);
  QUIVER_RETURN_NOT_OK(AddArray(*ends_array));
  return AddArray(*values.Slice(first, runs));
}

Status BodyWriter::AddArray(const ArrayData& a) {
  const DataType& t = *a.type;
  const bool has_validity = t.id != TypeId::kNull && t.id != TypeId::kSparseUnion &&
                            t.id != TypeId::kDenseUnion && t.id != TypeId::kRunEndEncoded;
  const int64_t null_count = t.id == TypeId::kNull ? a.length : has_validity ? a.GetNullCount() : 0;
  nodes_.emplace_back(a.length, null_count);
  if (has_validity) {
    QUIVER_ASSIGN_OR_RAISE(auto validity, Validity(a, null_count));
    QUIVER_RETURN_NOT_OK(AddBuffer(std::move(validity)));
  }
  switch (t.id) {
    case TypeId::kNull:
      return Status::OK();
    case TypeId::kBool: {
      QUIVER_ASSIGN_OR_RAISE(auto bits, Bitmap(a, 1));
      return AddBuffer(std::move(bits));
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kLargeString:
    case TypeId::kLargeBinary: {
      const int64_t w = (t.id == TypeId::kString || t.id == TypeId::kBinary) ? 4 : 8;
      int64_t start, end;
      QUIVER_RETURN_NOT_OK(RebasedOffsets(a, w, &start, &end));
      if (end == start || a.buffers[2] == nullptr) return AddBuffer(nullptr);
      return AddBuffer(a.buffers[2]->Slice(start, end - start));
    }
    case TypeId::kStringView:
    case TypeId::kBinaryView: {
      QUIVER_ASSIGN_OR_RAISE(auto views, FixedSlice(a, 1, 16));
      QUIVER_RETURN_NOT_OK(AddBuffer(std::move(views)));
      variadic_counts_.push_back(static_cast<int64_t>(a.buffers.size()) - 2);
      for (size_t i = 2; i < a.buffers.size(); ++i) QUIVER_RETURN_NOT_OK(AddBuffer(a.buffers[i]));
      return Status::OK();
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      int64_t start, end;
      QUIVER_RETURN_NOT_OK(RebasedOffsets(a, t.id == TypeId::kLargeList ? 8 : 4, &start, &end));
      return AddArray(*a.children[0]->Slice(start, end - start));
    }
    case TypeId::kListView:
    case TypeId::kLargeListView: {
      const int64_t w = t.id == TypeId::kListView ? 4 : 8;
      QUIVER_ASSIGN_OR_RAISE(auto offsets, FixedSlice(a, 1, w));
      QUIVER_RETURN_NOT_OK(AddBuffer(std::move(offsets)));
      QUIVER_ASSIGN_OR_RAISE(auto sizes, FixedSlice(a, 2, w));
      QUIVER_RETURN_NOT_OK(AddBuffer(std::move(sizes)));
      return AddArray(*a.children[0]);
    }
    case TypeId::kFixedSizeList:
      return AddArray(*a.children[0]->Slice(a.offset * t.list_size, a.length * t.list_size));
    case TypeId::kStruct:
      for (const auto& c : a.children)
        QUIVER_RETURN_NOT_OK(AddArray(*c->Slice(a.offset, a.length)));
      return Status::OK();
    case TypeId::kSparseUnion: {
      QUIVER_ASSIGN_OR_RAISE(auto ids, FixedSlice(a, 0, 1));
      QUIVER_RETURN_NOT_OK(AddBuffer(std::move(ids)));
      for (const auto& c : a.children)
        QUIVER_RETURN_NOT_OK(AddArray(*c->Slice(a.offset, a.length)));
      return Status::OK();
    }
    case TypeId::kDenseUnion: {
      QUIVER_ASSIGN_OR_RAISE(auto ids, FixedSlice(a, 0, 1));
      QUIVER_RETURN_NOT_OK(AddBuffer(std::move(ids)));
      QUIVER_ASSIGN_OR_RAISE(auto offsets, FixedSlice(a, 1, 4));
      QUIVER_RETURN_NOT_OK(AddBuffer(std::move(offsets)));
      for (const auto& c : a.children) QUIVER_RETURN_NOT_OK(AddArray(*c));
      return Status::OK();
    }
    case TypeId::kDictionary: {
      QUIVER_ASSIGN_OR_RAISE(auto indices, FixedSlice(a, 1, t.index_type->bit_width() / 8));
      return AddBuffer(std::move(indices));
    }
    case TypeId::kRunEndEncoded:
      return AddRunEndEncoded(a);
    default: {
      if (!t.is_fixed_width()) return Status::Unsupported("writing {} to Arrow IPC", t.ToString());
      QUIVER_ASSIGN_OR_RAISE(auto values, FixedSlice(a, 1, int64_t{t.byte_width_of_values()}));
      return AddBuffer(std::move(values));
    }
  }
}

flatbuffers::Offset<fb::RecordBatch> BodyWriter::Finish(flatbuffers::FlatBufferBuilder& fbb,
                                                        int64_t length) {
  std::vector<fb::Buffer> buffers;
  buffers.reserve(contents_.size());
  body_length_ = 0;
  for (const auto& b : contents_) {
    const int64_t size = b ? b->size() : 0;
    buffers.emplace_back(body_length_, size);
    body_length_ += PaddedTo8(size);
  }
  auto nodes = fbb.CreateVectorOfStructs(nodes_);
  auto buffer_vector = fbb.CreateVectorOfStructs(buffers);
  flatbuffers::Offset<fb::BodyCompression> compression = 0;
  if (codec_ == compression::Codec::kLz4Frame) {
    compression = fb::CreateBodyCompression(fbb, fb::CompressionType::LZ4_FRAME);
  } else if (codec_ == compression::Codec::kZstd) {
    compression = fb::CreateBodyCompression(fbb, fb::CompressionType::ZSTD);
  }
  auto variadic = variadic_counts_.empty() ? 0 : fbb.CreateVector(variadic_counts_);
  return fb::CreateRecordBatch(fbb, length, nodes, buffer_vector, compression, variadic);
}

void CollectDictionaries(const ArrayData& array, int64_t* next_id,
                         std::vector<std::pair<int64_t, ArrayRef>>* out) {
  const DataType& type = *array.type;
  if (type.id == TypeId::kDictionary) {
    const int64_t id = (*next_id)++;
    const ArrayRef& dict = array.dictionary;
    if (dict != nullptr) {
      for (const auto& child : dict->children) CollectDictionaries(*child, next_id, out);
    }
    out->emplace_back(id, dict);
    return;
  }
  for (const auto& child : array.children) CollectDictionaries(*child, next_id, out);
}

Status BodyWriter::WriteBody(OutputStream* sink) const {
  static const uint8_t kZeros[8] = {};
  for (const auto& b : contents_) {
    if (b == nullptr) continue;
    QUIVER_RETURN_NOT_OK(sink->Write(b->data(), b->size()));
    QUIVER_RETURN_NOT_OK(sink->Write(kZeros, PaddedTo8(b->size()) - b->size()));
  }
  return Status::OK();
}

}  // namespace quiver::ipc::internal
