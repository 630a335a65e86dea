#include "columnar/array.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "columnar/builder.h"

namespace quiver {

ArrayRef ArrayData::Make(TypeRef type, int64_t length, std::vector<std::shared_ptr<Buffer>> buffers,
                         int64_t null_count, int64_t offset, std::vector<ArrayRef> children,
                         ArrayRef dictionary) {
  auto a = std::make_shared<ArrayData>();
  a->type = std::move(type);
  a->length = length;
  a->null_count = null_count;
  a->offset = offset;
  a->buffers = std::move(buffers);
  a->children = std::move(children);
  a->dictionary = std::move(dictionary);
  return a;
}

int64_t ArrayData::GetNullCount() const {
  if (null_count != kUnknownNullCount) return null_count;
  int64_t n = 0;
  if (type->id == TypeId::kNull) {
    n = length;
  } else if (type->id == TypeId::kSparseUnion || type->id == TypeId::kDenseUnion ||
             type->id == TypeId::kRunEndEncoded) {
    n = 0;  // no validity bitmap of their own: nulls live in the children
  } else if (!buffers.empty() && buffers[0] != nullptr) {
    n = length - bit_util::CountSetBits(buffers[0]->data(), offset, length);
  }
  const_cast<ArrayData*>(this)->null_count = n;
  return n;
}

ArrayRef ArrayData::Slice(int64_t off, int64_t len) const {
  auto a = std::make_shared<ArrayData>(*this);
  a->offset = offset + off;
  a->length = len;
  if (type->id == TypeId::kNull) {
    a->null_count = len;
  } else {
    a->null_count = (null_count == 0) ? 0 : kUnknownNullCount;
  }
  return a;
}

int64_t ArrayData::GetDictionaryIndex(int64_t i) const {
  const int64_t j = offset + i;
  const uint8_t* p = buffers[1]->data();
  switch (type->index_type->id) {
    case TypeId::kInt8: return reinterpret_cast<const int8_t*>(p)[j];
    case TypeId::kUInt8: return p[j];
    case TypeId::kInt16: return reinterpret_cast<const int16_t*>(p)[j];
    case TypeId::kUInt16: return reinterpret_cast<const uint16_t*>(p)[j];
    case TypeId::kInt32: return reinterpret_cast<const int32_t*>(p)[j];
    case TypeId::kUInt32: return reinterpret_cast<const uint32_t*>(p)[j];
    case TypeId::kInt64: return reinterpret_cast<const int64_t*>(p)[j];
    case TypeId::kUInt64: {
      const uint64_t v = reinterpret_cast<const uint64_t*>(p)[j];
      return v > static_cast<uint64_t>(INT64_MAX) ? -1 : static_cast<int64_t>(v);
    }
    default: return -1;
  }
}

std::string_view ArrayData::GetString(int64_t i) const {
  switch (type->id) {
    case TypeId::kString:
    case TypeId::kBinary: {
      const int32_t* offs = GetValues<int32_t>(1);
      const char* data = buffers[2] ? buffers[2]->data_as<char>() : "";
      return {data + offs[i], static_cast<size_t>(offs[i + 1] - offs[i])};
    }
    case TypeId::kLargeString:
    case TypeId::kLargeBinary: {
      const int64_t* offs = GetValues<int64_t>(1);
      const char* data = buffers[2] ? buffers[2]->data_as<char>() : "";
      return {data + offs[i], static_cast<size_t>(offs[i + 1] - offs[i])};
    }
    case TypeId::kStringView:
    case TypeId::kBinaryView: {
      // View layout: int32 length, then either 12 inline bytes, or a 4-byte
      // prefix, int32 buffer index and int32 offset into that variadic buffer.
      const uint8_t* view = buffers[1]->data() + (offset + i) * 16;
      int32_t len;
      std::memcpy(&len, view, 4);
      if (len <= 12) return {reinterpret_cast<const char*>(view + 4), static_cast<size_t>(len)};
      int32_t buf_index, buf_offset;
      std::memcpy(&buf_index, view + 8, 4);
      std::memcpy(&buf_offset, view + 12, 4);
      return {buffers[2 + buf_index]->data_as<char>() + buf_offset, static_cast<size_t>(len)};
    }
    case TypeId::kFixedSizeBinary: {
      const int32_t w = type->byte_width;
      return {buffers[1]->data_as<char>() + (offset + i) * w, static_cast<size_t>(w)};
    }
    default:
      return {};
  }
}

std::shared_ptr<RecordBatch> RecordBatch::Slice(int64_t offset, int64_t length) const {
  std::vector<ArrayRef> cols;
  cols.reserve(columns_.size());
  for (const auto& c : columns_) cols.push_back(c->Slice(offset, length));
  return Make(schema_, length, std::move(cols));
}

Status RecordBatch::Validate(bool full) const {
  if (static_cast<int>(columns_.size()) != schema_->num_fields()) {
    return Status::Invalid("record batch has {} columns but its schema has {} fields",
                           columns_.size(), schema_->num_fields());
  }
  for (size_t i = 0; i < columns_.size(); ++i) {
    const auto& c = columns_[i];
    const auto& f = schema_->fields[i];
    if (c->length != num_rows_) {
      return Status::Invalid("column '{}' has {} rows, batch has {}", f->name, c->length, num_rows_);
    }
    if (!c->type->Equals(*f->type)) {
      return Status::Invalid("column '{}' has type {} but the schema says {}", f->name,
                             c->type->ToString(), f->type->ToString());
    }
    QUIVER_RETURN_NOT_OK(c->Validate(full).WithContext("column '" + f->name + "'"));
  }
  return Status::OK();
}

bool RecordBatch::Equals(const RecordBatch& other, bool check_metadata) const {
  if (num_rows_ != other.num_rows_ || columns_.size() != other.columns_.size()) return false;
  if (!schema_->Equals(*other.schema_, check_metadata)) return false;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (!ArrayEquals(*columns_[i], *other.columns_[i])) return false;
  }
  return true;
}

Result<ArrayRef> MakeArrayOfNull(const TypeRef& type, int64_t length, MemoryPool* pool) {
  QUIVER_ASSIGN_OR_RAISE(auto builder, MakeBuilder(type, pool));
  QUIVER_RETURN_NOT_OK(builder->AppendNulls(length));
  return builder->Finish();
}

namespace {

// Whether `arrays` are consecutive slices of the same buffers (a scan's
// chunks of one stored batch): their concatenation is then a slice too.
bool AreConsecutiveSlices(const std::vector<ArrayRef>& arrays) {
  const ArrayData& first = *arrays[0];
  if (!first.children.empty() || first.dictionary != nullptr) return false;
  int64_t next = first.offset + first.length;
  for (size_t i = 1; i < arrays.size(); ++i) {
    const ArrayData& a = *arrays[i];
    if (a.offset != next || a.buffers.size() != first.buffers.size() || !a.children.empty() ||
        a.dictionary != nullptr) {
      return false;
    }
    for (size_t b = 0; b < a.buffers.size(); ++b) {
      if (a.buffers[b].get() != first.buffers[b].get()) return false;
    }
    next += a.length;
  }
  return true;
}

// The validity of the concatenation: null when no part has nulls.
Result<std::shared_ptr<Buffer>> ConcatenateValidity(const std::vector<ArrayRef>& arrays,
                                                    int64_t length, int64_t* null_count,
                                                    MemoryPool* pool) {
  *null_count = 0;
  for (const auto& a : arrays) *null_count += a->GetNullCount();
  if (*null_count == 0) return std::shared_ptr<Buffer>();
  QUIVER_ASSIGN_OR_RAISE(auto bits, MutableBuffer::Allocate(bit_util::BytesForBits(length), pool));
  bits->ZeroPadding();
  int64_t pos = 0;
  for (const auto& a : arrays) {
    if (a->buffers[0] != nullptr) {
      bit_util::CopyBitmap(a->buffers[0]->data(), a->offset, a->length, bits->mutable_data(), pos);
    } else {
      bit_util::SetBitsTo(bits->mutable_data(), pos, a->length, true);
    }
    pos += a->length;
  }
  return std::shared_ptr<Buffer>(std::move(bits));
}

// Fixed-width values (not bool): one memcpy per part.
Result<ArrayRef> ConcatenateFixed(const std::vector<ArrayRef>& arrays, int64_t length,
                                  MemoryPool* pool) {
  const TypeRef& type = arrays[0]->type;
  const int64_t width = type->byte_width_of_values();
  int64_t null_count;
  QUIVER_ASSIGN_OR_RAISE(auto validity, ConcatenateValidity(arrays, length, &null_count, pool));
  QUIVER_ASSIGN_OR_RAISE(auto values, MutableBuffer::Allocate(length * width, pool));
  uint8_t* out = values->mutable_data();
  for (const auto& a : arrays) {
    const int64_t n = a->length * width;
    if (n > 0) {
      std::memcpy(out, a->buffers[1]->data() + a->offset * width, static_cast<size_t>(n));
    }
    out += n;
  }
  values->ZeroPadding();
  return ArrayData::Make(type, length,
                         {std::move(validity), std::shared_ptr<Buffer>(std::move(values))},
                         null_count);
}

// Strings and binaries: offsets re-based, value bytes copied per part. Null
// (not Invalid) when 32-bit offsets would overflow: the builder reports it.
template <typename OffsetT>
Result<ArrayRef> ConcatenateBinary(const std::vector<ArrayRef>& arrays, int64_t length,
                                   MemoryPool* pool) {
  int64_t bytes = 0;
  for (const auto& a : arrays) {
    if (a->length == 0) continue;  // its offsets buffer may be absent
    const OffsetT* in = a->GetValues<OffsetT>(1);
    bytes += static_cast<int64_t>(in[a->length] - in[0]);
  }
  if (bytes > static_cast<int64_t>(std::numeric_limits<OffsetT>::max())) return ArrayRef();
  int64_t null_count;
  QUIVER_ASSIGN_OR_RAISE(auto validity,
                         ConcatenateValidity(arrays, length, &null_count, pool));
  QUIVER_ASSIGN_OR_RAISE(auto offsets,
                         MutableBuffer::Allocate((length + 1) * int64_t{sizeof(OffsetT)}, pool));
  QUIVER_ASSIGN_OR_RAISE(auto data, MutableBuffer::Allocate(bytes, pool));
  auto* out_offsets = offsets->mutable_data_as<OffsetT>();
  uint8_t* out_data = data->mutable_data();
  OffsetT base = 0;
  int64_t row = 0;
  for (const auto& a : arrays) {
    if (a->length == 0) continue;
    const OffsetT* in = a->GetValues<OffsetT>(1);
    const OffsetT first = in[0];
    for (int64_t i = 0; i < a->length; ++i) out_offsets[row++] = base + (in[i] - first);
    const OffsetT n = in[a->length] - first;
    if (n > 0) {
      std::memcpy(out_data + base, a->buffers[2]->data() + first, static_cast<size_t>(n));
    }
    base += n;
  }
  out_offsets[row] = base;
  offsets->ZeroPadding();
  data->ZeroPadding();
  return ArrayData::Make(arrays[0]->type, length,
                         {std::move(validity), std::shared_ptr<Buffer>(std::move(offsets)),
                          std::shared_ptr<Buffer>(std::move(data))},
                         null_count);
}

}  // namespace

// Consecutive slices of the same buffers concatenate into a slice (no copy).
Result<ArrayRef> Concatenate(const std::vector<ArrayRef>& arrays, MemoryPool* pool) {
  if (arrays.empty()) return Status::Invalid("Concatenate needs at least one array");
  if (arrays.size() == 1) return arrays[0];
  const TypeRef& type = arrays[0]->type;
  int64_t length = 0;
  for (const auto& a : arrays) {
    if (!a->type->Equals(*type)) {
      return Status::TypeError("cannot concatenate {} with {}", type->ToString(),
                               a->type->ToString());
    }
    length += a->length;
  }
  if (AreConsecutiveSlices(arrays)) {
    ArrayRef out = arrays[0]->Slice(0, length);
    int64_t nulls = 0;
    for (const auto& a : arrays) {
      if (a->null_count == kUnknownNullCount) {
        nulls = kUnknownNullCount;
        break;
      }
      nulls += a->null_count;
    }
    out->null_count = type->id == TypeId::kNull ? length : nulls;
    return out;
  }
  // Fast paths for flat layouts; nested, dictionary, view and other types
  // go through a builder.
  const bool flat = arrays[0]->children.empty() && arrays[0]->dictionary == nullptr;
  if (flat && type->id != TypeId::kBool && type->id != TypeId::kDictionary &&
      type->is_fixed_width() && type->byte_width_of_values() > 0) {
    return ConcatenateFixed(arrays, length, pool);
  }
  if (flat && (type->id == TypeId::kString || type->id == TypeId::kBinary)) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef out, ConcatenateBinary<int32_t>(arrays, length, pool));
    if (out != nullptr) return out;
  }
  if (flat && (type->id == TypeId::kLargeString || type->id == TypeId::kLargeBinary)) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef out, ConcatenateBinary<int64_t>(arrays, length, pool));
    if (out != nullptr) return out;
  }
  QUIVER_ASSIGN_OR_RAISE(auto builder, MakeBuilder(type, pool));
  for (const auto& a : arrays) QUIVER_RETURN_NOT_OK(builder->AppendArraySlice(*a, 0, a->length));
  return builder->Finish();
}

}  // namespace quiver
