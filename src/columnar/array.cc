#include "columnar/array.h"

#include <algorithm>

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

Result<ArrayRef> Concatenate(const std::vector<ArrayRef>& arrays, MemoryPool* pool) {
  if (arrays.empty()) return Status::Invalid("Concatenate needs at least one array");
  if (arrays.size() == 1) return arrays[0];
  QUIVER_ASSIGN_OR_RAISE(auto builder, MakeBuilder(arrays[0]->type, pool));
  for (const auto& a : arrays) {
    if (!a->type->Equals(*arrays[0]->type)) {
      return Status::TypeError("cannot concatenate {} with {}", arrays[0]->type->ToString(),
                               a->type->ToString());
    }
    QUIVER_RETURN_NOT_OK(builder->AppendArraySlice(*a, 0, a->length));
  }
  return builder->Finish();
}

}  // namespace quiver
