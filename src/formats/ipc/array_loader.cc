// Record batch and dictionary batch loading (buffer layout per type in
// array_loader_internal.h). Every buffer is a bounds-checked slice of the
// message body; it is copied only when decompressed or misaligned.
#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "formats/compression/codec.h"
#include "formats/ipc/array_loader_internal.h"

namespace quiver::ipc::internal {
namespace {

// Decompressed buffers may be at most this many times larger than their
// compressed form (zstd's best case is ~32000x); bounds allocations made on
// behalf of hostile input.
constexpr int64_t kMaxCompressionRatio = 40000;
constexpr int64_t kMaxBufferSize = int64_t{1} << 34;

alignas(64) const uint8_t kZeroBytes[64] = {};

std::shared_ptr<Buffer> EmptyBuffer() {
  static const auto empty = std::make_shared<Buffer>(kZeroBytes, 0);
  return empty;
}

// Zero-filled buffer of n bytes (small ones share static storage).
Result<std::shared_ptr<Buffer>> ZeroBuffer(int64_t n, MemoryPool* pool) {
  if (n <= 64) return std::make_shared<Buffer>(kZeroBytes, n);
  QUIVER_ASSIGN_OR_RAISE(auto b, AllocateZeroed(n, pool));
  return std::shared_ptr<Buffer>(std::move(b));
}

bool MulOverflows(int64_t a, int64_t b) {
  return b != 0 && a > std::numeric_limits<int64_t>::max() / b;
}

class ArrayLoader {
 public:
  ArrayLoader(const fb::RecordBatch* batch, std::shared_ptr<Buffer> body,
              const DictionaryMemo& memo, const LoadOptions& options)
      : batch_(batch), body_(std::move(body)), memo_(memo), options_(options) {}

  Status Init() {
    if (const fb::BodyCompression* c = batch_->compression()) {
      if (c->method() != fb::BodyCompressionMethod::BUFFER) {
        return Status::Unsupported("body compression method {}", static_cast<int>(c->method()));
      }
      switch (c->codec()) {
        case fb::CompressionType::LZ4_FRAME:
          codec_ = compression::Codec::kLz4Frame;
          break;
        case fb::CompressionType::ZSTD:
          codec_ = compression::Codec::kZstd;
          break;
        default:
          return Status::Invalid("unknown body compression codec {}", static_cast<int>(c->codec()));
      }
    }
    return Status::OK();
  }

  Result<ArrayRef> Load(const TypeRef& type, int depth);
  // Advances past a column of `type` without loading it (projection): the
  // field nodes and buffers it would consume, including its children's.
  Status Skip(const TypeRef& type, int depth);

 private:
  struct Node {
    int64_t length;
    int64_t null_count;
  };

  Result<Node> NextNode() {
    const auto* nodes = batch_->nodes();
    if (nodes == nullptr || node_index_ >= static_cast<int64_t>(nodes->size())) {
      return Status::Invalid("record batch has too few field nodes ({})",
                             nodes ? nodes->size() : 0);
    }
    const fb::FieldNode node = LoadElement(nodes, static_cast<size_t>(node_index_++));
    const fb::FieldNode* n = &node;
    if (n->length() < 0 || n->length() > kMaxArrayLength || n->null_count() < 0 ||
        n->null_count() > n->length()) {
      return Status::Invalid("field node {}: bad length {} / null count {}", node_index_ - 1,
                             n->length(), n->null_count());
    }
    return Node{n->length(), n->null_count()};
  }

  Result<std::shared_ptr<Buffer>> NextBuffer();
  Result<std::shared_ptr<Buffer>> Decompress(const std::shared_ptr<Buffer>& raw);

  // Consumes the validity buffer; null when the node has no nulls.
  Result<std::shared_ptr<Buffer>> LoadValidity(const Node& node) {
    QUIVER_ASSIGN_OR_RAISE(auto buf, NextBuffer());
    if (node.null_count == 0) return std::shared_ptr<Buffer>();
    if (buf->size() < bit_util::BytesForBits(node.length)) {
      return Status::Invalid("validity buffer of {} bytes for {} values", buf->size(), node.length);
    }
    return buf;
  }

  Status CheckSize(const Buffer& buf, int64_t count, int64_t width, const char* what) {
    if (MulOverflows(count, width) || buf.size() < count * width) {
      return Status::Invalid("{} buffer of {} bytes too small for {} values of {} bytes", what,
                             buf.size(), count, width);
    }
    return Status::OK();
  }

  // Offsets for `length` values: (length + 1) entries; empty arrays may omit them.
  Result<std::shared_ptr<Buffer>> LoadOffsets(int64_t length, int64_t width) {
    QUIVER_ASSIGN_OR_RAISE(auto buf, NextBuffer());
    if (length == 0 && buf->size() < width) return ZeroBuffer(width, options_.pool);
    QUIVER_RETURN_NOT_OK(CheckSize(*buf, length + 1, width, "offsets"));
    return Native(std::move(buf), {static_cast<int>(width)});
  }

  Result<ArrayRef> LoadDictionaryIndices(const TypeRef& type, const Node& node);

  // Big-endian input only: a little-endian copy of `buf`, whose elements are
  // made of integers of the given widths ({4, 4, 8} for month_day_nano; one
  // width covering the element reverses it whole, as decimals need).
  Result<std::shared_ptr<Buffer>> Native(std::shared_ptr<Buffer> buf,
                                         std::initializer_list<int> layout);
  // Views: int32 length, then either inline bytes or prefix, int32 buffer
  // index, int32 offset.
  Result<std::shared_ptr<Buffer>> NativeViews(std::shared_ptr<Buffer> buf);

  const fb::RecordBatch* batch_;
  std::shared_ptr<Buffer> body_;
  const DictionaryMemo& memo_;
  const LoadOptions& options_;
  compression::Codec codec_ = compression::Codec::kNone;
  int64_t node_index_ = 0;
  int64_t buffer_index_ = 0;
  int64_t variadic_index_ = 0;
};

Result<std::shared_ptr<Buffer>> ArrayLoader::NextBuffer() {
  const auto* buffers = batch_->buffers();
  if (buffers == nullptr || buffer_index_ >= static_cast<int64_t>(buffers->size())) {
    return Status::Invalid("record batch has too few buffers ({})", buffers ? buffers->size() : 0);
  }
  const fb::Buffer b = LoadElement(buffers, static_cast<size_t>(buffer_index_++));
  const int64_t offset = b.offset(), length = b.length();
  if (offset < 0 || length < 0 || offset > body_->size() || length > body_->size() - offset) {
    return Status::Invalid("buffer {} at [{}, +{}) lies outside the {}-byte message body",
                           buffer_index_ - 1, offset, length, body_->size());
  }
  if (length == 0) return EmptyBuffer();
  auto slice = body_->Slice(offset, length);
  if (codec_ != compression::Codec::kNone) return Decompress(slice);
  if (reinterpret_cast<uintptr_t>(slice->data()) % 8 != 0) {
    // Misaligned for wide types: copy (the pool returns 64-aligned memory).
    return Buffer::CopyFrom(slice->view(), options_.pool);
  }
  return slice;
}

Result<std::shared_ptr<Buffer>> ArrayLoader::Decompress(const std::shared_ptr<Buffer>& raw) {
  if (raw->size() < 8) {
    return Status::Invalid("compressed buffer {} shorter than its length prefix",
                           buffer_index_ - 1);
  }
  int64_t decoded_size;
  std::memcpy(&decoded_size, raw->data(), sizeof(decoded_size));
  const int64_t payload = raw->size() - 8;
  if (decoded_size == -1) {  // stored uncompressed
    return Buffer::CopyFrom(std::string_view(reinterpret_cast<const char*>(raw->data() + 8),
                                             static_cast<size_t>(payload)),
                            options_.pool);
  }
  if (decoded_size < 0 || decoded_size > kMaxBufferSize ||
      decoded_size > payload * kMaxCompressionRatio + 1024) {
    return Status::Invalid("compressed buffer {} claims implausible size {} ({} bytes compressed)",
                           buffer_index_ - 1, decoded_size, payload);
  }
  if (decoded_size == 0) return EmptyBuffer();
  QUIVER_ASSIGN_OR_RAISE(auto out, MutableBuffer::Allocate(decoded_size, options_.pool));
  out->ZeroPadding();
  Status st = compression::DecompressInto(codec_, raw->data() + 8, payload, out->mutable_data(),
                                          decoded_size);
  if (!st.ok()) return st.WithContext(fmt::format("buffer {}", buffer_index_ - 1));
  return std::shared_ptr<Buffer>(std::move(out));
}

Result<std::shared_ptr<Buffer>> ArrayLoader::Native(std::shared_ptr<Buffer> buf,
                                                    std::initializer_list<int> layout) {
  if (!options_.swap_endian || buf == nullptr || buf->size() == 0) return buf;
  int element = 0;
  for (int w : layout) element += w;
  if (element <= 1) return buf;
  QUIVER_ASSIGN_OR_RAISE(auto out, Buffer::CopyFrom(buf->view(), options_.pool));
  uint8_t* p = const_cast<uint8_t*>(out->data());  // freshly allocated, not yet shared
  const int64_t n = out->size() / element;
  for (int64_t i = 0; i < n; ++i) {
    uint8_t* e = p + i * element;
    for (int w : layout) {
      std::reverse(e, e + w);
      e += w;
    }
  }
  return out;
}

Result<std::shared_ptr<Buffer>> ArrayLoader::NativeViews(std::shared_ptr<Buffer> buf) {
  if (!options_.swap_endian || buf == nullptr || buf->size() == 0) return buf;
  QUIVER_ASSIGN_OR_RAISE(auto out, Buffer::CopyFrom(buf->view(), options_.pool));
  uint8_t* p = const_cast<uint8_t*>(out->data());  // freshly allocated, not yet shared
  for (int64_t i = 0; i + 16 <= out->size(); i += 16) {
    uint8_t* v = p + i;
    std::reverse(v, v + 4);
    int32_t length;
    std::memcpy(&length, v, 4);
    if (length > 12) {
      std::reverse(v + 8, v + 12);
      std::reverse(v + 12, v + 16);
    }
  }
  return out;
}

Result<ArrayRef> ArrayLoader::LoadDictionaryIndices(const TypeRef& type, const Node& node) {
  auto id_it = memo_.types.id_of.find(type.get());
  if (id_it == memo_.types.id_of.end()) return Status::Invalid("dictionary field without an id");
  auto dict_it = memo_.dictionaries.find(id_it->second);
  if (dict_it == memo_.dictionaries.end()) {
    return Status::Invalid("dictionary id {} used before any dictionary batch defined it",
                           id_it->second);
  }
  QUIVER_ASSIGN_OR_RAISE(auto validity, LoadValidity(node));
  QUIVER_ASSIGN_OR_RAISE(auto indices, NextBuffer());
  const int width = type->index_type->bit_width() / 8;
  QUIVER_ASSIGN_OR_RAISE(indices, Native(std::move(indices), {width}));
  QUIVER_RETURN_NOT_OK(CheckSize(*indices, node.length, width, "dictionary indices"));
  return ArrayData::Make(type, node.length, {std::move(validity), std::move(indices)},
                         node.null_count, 0, {}, dict_it->second);
}

Result<ArrayRef> ArrayLoader::Load(const TypeRef& type, int depth) {
  if (depth > kMaxNestingDepth) return Status::Invalid("arrays nested too deeply");
  QUIVER_ASSIGN_OR_RAISE(Node node, NextNode());
  const int64_t n = node.length;
  auto load_children = [&](std::vector<ArrayRef>* out) -> Status {
    for (const FieldRef& child : type->children) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef c, Load(child->type, depth + 1));
      out->push_back(std::move(c));
    }
    return Status::OK();
  };
  std::vector<ArrayRef> children;
  switch (type->id) {
    case TypeId::kNull:
      return ArrayData::Make(type, n, {nullptr}, n);
    case TypeId::kBool: {
      QUIVER_ASSIGN_OR_RAISE(auto validity, LoadValidity(node));
      QUIVER_ASSIGN_OR_RAISE(auto values, NextBuffer());
      QUIVER_RETURN_NOT_OK(CheckSize(*values, bit_util::BytesForBits(n), 1, "boolean values"));
      return ArrayData::Make(type, n, {std::move(validity), std::move(values)}, node.null_count);
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kLargeString:
    case TypeId::kLargeBinary: {
      const int64_t w = (type->id == TypeId::kString || type->id == TypeId::kBinary) ? 4 : 8;
      QUIVER_ASSIGN_OR_RAISE(auto validity, LoadValidity(node));
      QUIVER_ASSIGN_OR_RAISE(auto offsets, LoadOffsets(n, w));
      QUIVER_ASSIGN_OR_RAISE(auto data, NextBuffer());
      return ArrayData::Make(type, n, {std::move(validity), std::move(offsets), std::move(data)},
                             node.null_count);
    }
    case TypeId::kStringView:
    case TypeId::kBinaryView: {
      QUIVER_ASSIGN_OR_RAISE(auto validity, LoadValidity(node));
      QUIVER_ASSIGN_OR_RAISE(auto views, NextBuffer());
      QUIVER_ASSIGN_OR_RAISE(views, NativeViews(std::move(views)));
      QUIVER_RETURN_NOT_OK(CheckSize(*views, n, 16, "views"));
      const auto* counts = batch_->variadic_buffer_counts();
      if (counts == nullptr || variadic_index_ >= static_cast<int64_t>(counts->size())) {
        return Status::Invalid("view array without a variadic buffer count");
      }
      int64_t count = LoadElement(counts, static_cast<size_t>(variadic_index_++));
      const int64_t available =
          batch_->buffers() ? static_cast<int64_t>(batch_->buffers()->size()) - buffer_index_ : 0;
      if (count < 0 || count > available) {
        return Status::Invalid("variadic buffer count {} exceeds the {} buffers left", count,
                               available);
      }
      std::vector<std::shared_ptr<Buffer>> buffers{std::move(validity), std::move(views)};
      for (int64_t i = 0; i < count; ++i) {
        QUIVER_ASSIGN_OR_RAISE(auto b, NextBuffer());
        buffers.push_back(std::move(b));
      }
      return ArrayData::Make(type, n, std::move(buffers), node.null_count);
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap: {
      QUIVER_ASSIGN_OR_RAISE(auto validity, LoadValidity(node));
      QUIVER_ASSIGN_OR_RAISE(auto offsets, LoadOffsets(n, type->id == TypeId::kLargeList ? 8 : 4));
      QUIVER_RETURN_NOT_OK(load_children(&children));
      return ArrayData::Make(type, n, {std::move(validity), std::move(offsets)}, node.null_count, 0,
                             std::move(children));
    }
    case TypeId::kListView:
    case TypeId::kLargeListView: {
      const int64_t w = type->id == TypeId::kListView ? 4 : 8;
      QUIVER_ASSIGN_OR_RAISE(auto validity, LoadValidity(node));
      QUIVER_ASSIGN_OR_RAISE(auto offsets, NextBuffer());
      QUIVER_ASSIGN_OR_RAISE(auto sizes, NextBuffer());
      QUIVER_RETURN_NOT_OK(CheckSize(*offsets, n, w, "list view offsets"));
      QUIVER_RETURN_NOT_OK(CheckSize(*sizes, n, w, "list view sizes"));
      QUIVER_ASSIGN_OR_RAISE(offsets, Native(std::move(offsets), {static_cast<int>(w)}));
      QUIVER_ASSIGN_OR_RAISE(sizes, Native(std::move(sizes), {static_cast<int>(w)}));
      QUIVER_RETURN_NOT_OK(load_children(&children));
      return ArrayData::Make(type, n, {std::move(validity), std::move(offsets), std::move(sizes)},
                             node.null_count, 0, std::move(children));
    }
    case TypeId::kFixedSizeList: {
      QUIVER_ASSIGN_OR_RAISE(auto validity, LoadValidity(node));
      QUIVER_RETURN_NOT_OK(load_children(&children));
      if (MulOverflows(n, type->list_size) || children[0]->length < n * type->list_size) {
        return Status::Invalid("fixed_size_list child has {} values for {} lists of {}",
                               children[0]->length, n, type->list_size);
      }
      return ArrayData::Make(type, n, {std::move(validity)}, node.null_count, 0,
                             std::move(children));
    }
    case TypeId::kStruct: {
      QUIVER_ASSIGN_OR_RAISE(auto validity, LoadValidity(node));
      QUIVER_RETURN_NOT_OK(load_children(&children));
      for (const auto& c : children) {
        if (c->length < n) {
          return Status::Invalid("struct child of length {} shorter than struct {}", c->length, n);
        }
      }
      return ArrayData::Make(type, n, {std::move(validity)}, node.null_count, 0,
                             std::move(children));
    }
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion: {
      if (options_.version < fb::MetadataVersion::V5) {
        QUIVER_ASSIGN_OR_RAISE(auto legacy_validity, NextBuffer());
        if (node.null_count != 0) {
          return Status::Unsupported("union with top-level nulls (pre-1.0 metadata)");
        }
      }
      QUIVER_ASSIGN_OR_RAISE(auto type_ids, NextBuffer());
      QUIVER_RETURN_NOT_OK(CheckSize(*type_ids, n, 1, "union type ids"));
      std::vector<std::shared_ptr<Buffer>> buffers{std::move(type_ids)};
      if (type->id == TypeId::kDenseUnion) {
        QUIVER_ASSIGN_OR_RAISE(auto offsets, NextBuffer());
        QUIVER_RETURN_NOT_OK(CheckSize(*offsets, n, 4, "union offsets"));
        QUIVER_ASSIGN_OR_RAISE(offsets, Native(std::move(offsets), {4}));
        buffers.push_back(std::move(offsets));
      }
      QUIVER_RETURN_NOT_OK(load_children(&children));
      if (type->id == TypeId::kSparseUnion) {
        for (const auto& c : children) {
          if (c->length < n) return Status::Invalid("sparse union child shorter than the union");
        }
      }
      return ArrayData::Make(type, n, std::move(buffers), 0, 0, std::move(children));
    }
    case TypeId::kDictionary:
      return LoadDictionaryIndices(type, node);
    case TypeId::kRunEndEncoded: {
      QUIVER_RETURN_NOT_OK(load_children(&children));
      return ArrayData::Make(type, n, {}, 0, 0, std::move(children));
    }
    default: {
      // Fixed-width primitives, temporal types, decimals, fixed_size_binary, intervals.
      if (!type->is_fixed_width()) {
        return Status::Unsupported("reading {} from Arrow IPC", type->ToString());
      }
      QUIVER_ASSIGN_OR_RAISE(auto validity, LoadValidity(node));
      QUIVER_ASSIGN_OR_RAISE(auto values, NextBuffer());
      QUIVER_RETURN_NOT_OK(CheckSize(*values, n, int64_t{type->byte_width_of_values()}, "values"));
      if (options_.swap_endian && type->id != TypeId::kFixedSizeBinary) {
        const int w = type->byte_width_of_values();
        // Intervals are records of integers; everything else (integers,
        // floats, temporal types, decimals) reverses whole values.
        auto native = type->id == TypeId::kIntervalDayTime        ? Native(values, {4, 4})
                      : type->id == TypeId::kIntervalMonthDayNano ? Native(values, {4, 4, 8})
                                                                  : Native(values, {w});
        QUIVER_ASSIGN_OR_RAISE(values, std::move(native));
      }
      return ArrayData::Make(type, n, {std::move(validity), std::move(values)}, node.null_count);
    }
  }
}

Status ArrayLoader::Skip(const TypeRef& type, int depth) {
  if (depth > kMaxNestingDepth) return Status::Invalid("arrays nested too deeply");
  QUIVER_ASSIGN_OR_RAISE(Node node, NextNode());
  (void)node;
  int64_t buffers = 0;
  switch (type->id) {
    case TypeId::kNull:
    case TypeId::kRunEndEncoded:
      break;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kLargeString:
    case TypeId::kLargeBinary:
    case TypeId::kListView:
    case TypeId::kLargeListView:
      buffers = 3;
      break;
    case TypeId::kStringView:
    case TypeId::kBinaryView: {
      const auto* counts = batch_->variadic_buffer_counts();
      if (counts == nullptr || variadic_index_ >= static_cast<int64_t>(counts->size())) {
        return Status::Invalid("view array without a variadic buffer count");
      }
      const int64_t count = LoadElement(counts, static_cast<size_t>(variadic_index_++));
      if (count < 0 || count > (int64_t{1} << 31)) {
        return Status::Invalid("variadic buffer count {} out of range", count);
      }
      buffers = 2 + count;
      break;
    }
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
      buffers = 1;
      break;
    case TypeId::kSparseUnion:
    case TypeId::kDenseUnion:
      buffers = (options_.version < fb::MetadataVersion::V5 ? 1 : 0) +
                (type->id == TypeId::kDenseUnion ? 2 : 1);
      break;
    default:  // bool, fixed width, dictionary indices, (large) list and map offsets
      buffers = 2;
      break;
  }
  const auto* all = batch_->buffers();
  const int64_t available = all ? static_cast<int64_t>(all->size()) - buffer_index_ : 0;
  if (buffers > available) {
    return Status::Invalid("record batch has too few buffers ({})", all ? all->size() : 0);
  }
  buffer_index_ += buffers;
  for (const FieldRef& child : type->children) {
    QUIVER_RETURN_NOT_OK(Skip(child->type, depth + 1));
  }
  return Status::OK();
}

}  // namespace

Status CheckMetadataVersion(fb::MetadataVersion version) {
  if (version < fb::MetadataVersion::V4) {
    return Status::Unsupported("Arrow IPC metadata version V{} (written before Arrow 0.8)",
                               static_cast<int>(version) + 1);
  }
  if (version > fb::MetadataVersion::V5) {
    return Status::Unsupported("Arrow IPC metadata version V{} (newer than V5)",
                               static_cast<int>(version) + 1);
  }
  return Status::OK();
}

Result<RecordBatchRef> LoadRecordBatch(const fb::RecordBatch* batch, const SchemaRef& schema,
                                       const std::shared_ptr<Buffer>& body,
                                       const DictionaryMemo& memo, const LoadOptions& options,
                                       const std::vector<bool>* needed) {
  if (batch == nullptr) return Status::Invalid("record batch message without a header");
  const int64_t length = batch->length();
  if (length < 0 || length > kMaxArrayLength) {
    return Status::Invalid("record batch length {} out of range", length);
  }
  ArrayLoader loader(batch, body, memo, options);
  QUIVER_RETURN_NOT_OK(loader.Init());
  std::vector<ArrayRef> columns;
  columns.reserve(schema->fields.size());
  for (size_t i = 0; i < schema->fields.size(); ++i) {
    const FieldRef& f = schema->fields[i];
    if (needed != nullptr && i < needed->size() && !(*needed)[i]) {
      QUIVER_RETURN_NOT_OK(loader.Skip(f->type, 0).WithContext("column '" + f->name + "'"));
      columns.push_back(nullptr);
      continue;
    }
    auto col = loader.Load(f->type, 0);
    if (!col.ok()) return col.status().WithContext("column '" + f->name + "'");
    if ((*col)->length != length) {
      return Status::Invalid("column '{}' has {} rows, the batch {}", f->name, (*col)->length,
                             length);
    }
    Status st = (*col)->Validate(options.validate_full);
    if (!st.ok()) return st.WithContext("column '" + f->name + "'");
    columns.push_back(std::move(col).ValueOrDie());
  }
  return RecordBatch::Make(schema, length, std::move(columns));
}

Status LoadDictionaryBatch(const fb::DictionaryBatch* batch, const std::shared_ptr<Buffer>& body,
                           DictionaryMemo* memo, const LoadOptions& options,
                           bool allow_replacement) {
  if (batch == nullptr || batch->data() == nullptr) {
    return Status::Invalid("dictionary batch without data");
  }
  const int64_t id = batch->id();
  auto type_it = memo->types.value_type_of.find(id);
  if (type_it == memo->types.value_type_of.end()) {
    return Status::Invalid("dictionary batch for unknown id {}", id);
  }
  auto values_schema = std::make_shared<Schema>();
  values_schema->fields.push_back(field("dictionary", type_it->second));
  auto loaded = LoadRecordBatch(batch->data(), values_schema, body, *memo, options);
  if (!loaded.ok()) return loaded.status().WithContext(fmt::format("dictionary {}", id));
  ArrayRef values = (*loaded)->column(0);
  auto current = memo->dictionaries.find(id);
  if (current == memo->dictionaries.end()) {
    memo->dictionaries.emplace(id, std::move(values));
  } else if (batch->is_delta()) {
    QUIVER_ASSIGN_OR_RAISE(current->second, Concatenate({current->second, values}, options.pool));
  } else if (!allow_replacement) {
    return Status::Invalid("dictionary {} replaced (not allowed in the IPC file format)", id);
  } else {
    current->second = std::move(values);
  }
  return Status::OK();
}

}  // namespace quiver::ipc::internal
