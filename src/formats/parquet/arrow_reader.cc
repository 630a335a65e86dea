#include "formats/parquet/arrow_reader.h"

#include <cstring>

#include "common/bit_util.h"
#include "common/utf8.h"

namespace quiver::parquet {
namespace {

// Which level entries are slots of a node: repetition level <= rmax and
// definition level >= dmin.
struct Filter {
  int16_t rmax = 0;
  int16_t dmin = 0;
};

int FirstLeaf(const FieldNode& n) {
  const FieldNode* p = &n;
  while (p->kind != FieldNode::Kind::kLeaf) p = &p->children[0];
  return p->column;
}

// Slots of a node and their validity.
struct Slots {
  int64_t count = 0;
  int64_t nulls = 0;
  std::shared_ptr<MutableBuffer> validity;  // null when no slot is null
  bool IsValid(int64_t i) const {
    return validity == nullptr || bit_util::GetBit(validity->data(), i);
  }
};

Status ComputeSlots(const ColumnChunkData& d, Filter f, int16_t valid_level, MemoryPool* pool,
                    Slots* out) {
  const int64_t n = d.num_levels;
  const int16_t* def = d.def();
  const int16_t* rep = d.rep();
  // Count first so the bitmap is allocated once.
  int64_t count = 0;
  int64_t nulls = 0;
  if (rep == nullptr && (def == nullptr || f.dmin == 0)) {
    count = n;
    if (def != nullptr) {
      for (int64_t i = 0; i < n; ++i) nulls += def[i] < valid_level;
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const bool slot =
          (rep == nullptr || rep[i] <= f.rmax) && (def == nullptr || def[i] >= f.dmin);
      count += slot;
      nulls += slot && def != nullptr && def[i] < valid_level;
    }
  }
  out->count = count;
  out->nulls = nulls;
  out->validity = nullptr;
  if (nulls == 0) return Status::OK();
  QUIVER_ASSIGN_OR_RAISE(out->validity, AllocateZeroed(bit_util::BytesForBits(count), pool));
  uint8_t* bits = out->validity->mutable_data();
  int64_t s = 0;
  for (int64_t i = 0; i < n; ++i) {
    const bool slot = (rep == nullptr || rep[i] <= f.rmax) && (def[i] >= f.dmin);
    if (!slot) continue;
    if (def[i] >= valid_level) bit_util::SetBit(bits, s);
    ++s;
  }
  return Status::OK();
}

// Spreads num_values dense values of `w` bytes at the front of buf over the
// slots (nulls zeroed). REQUIRES: buf holds slots.count * w bytes.
void SpreadFixed(uint8_t* buf, int w, int64_t num_values, const Slots& slots) {
  if (slots.validity == nullptr) return;
  int64_t k = num_values;
  for (int64_t s = slots.count - 1; s >= 0; --s) {
    if (slots.IsValid(s)) {
      --k;
      if (k != s) std::memmove(buf + s * w, buf + k * w, static_cast<size_t>(w));
    } else {
      std::memset(buf + s * w, 0, static_cast<size_t>(w));
    }
  }
}

void SpreadBits(uint8_t* bits, int64_t num_values, const Slots& slots) {
  if (slots.validity == nullptr) return;
  int64_t k = num_values;
  for (int64_t s = slots.count - 1; s >= 0; --s) {
    if (slots.IsValid(s)) {
      --k;
      bit_util::SetBitTo(bits, s, bit_util::GetBit(bits, k));
    } else {
      bit_util::ClearBit(bits, s);
    }
  }
}

void SpreadOffsets(int32_t* offsets, int64_t num_values, const Slots& slots) {
  if (slots.validity == nullptr) return;
  int64_t k = num_values;
  offsets[slots.count] = offsets[num_values];
  for (int64_t s = slots.count - 1; s >= 0; --s) {
    if (slots.IsValid(s)) --k;
    offsets[s] = offsets[k];
  }
}

// Big-endian two's complement bytes -> little-endian `width`-byte integer.
bool BigEndianToDecimal(const uint8_t* src, int64_t len, uint8_t* dst, int width) {
  // Leading bytes beyond the width must be pure sign extension.
  const uint8_t fill = (len > 0 && (src[0] & 0x80)) ? 0xff : 0;
  while (len > width) {
    if (*src != fill) return false;
    ++src;
    --len;
  }
  for (int64_t i = 0; i < len; ++i) dst[i] = src[len - 1 - i];
  if (width > len) std::memset(dst + len, fill, static_cast<size_t>(width - len));
  return true;
}

// UTF-8 of every value, in one pass: the whole data is valid UTF-8 and no
// non-empty value starts inside a character (on a continuation byte), so
// every value is valid on its own.
bool ValidUtf8Values(const int32_t* offsets, int64_t n, const uint8_t* data, int64_t* bad) {
  const int64_t begin = offsets[0];
  const int64_t end = offsets[n];
  const bool whole = ValidateUtf8(std::string_view(reinterpret_cast<const char*>(data) + begin,
                                                   static_cast<size_t>(end - begin)));
  for (int64_t i = 0; i < n; ++i) {
    const bool starts_inside = offsets[i] < offsets[i + 1] && (data[offsets[i]] & 0xc0) == 0x80;
    const bool invalid =
        starts_inside || (!whole && !ValidateUtf8(std::string_view(
                                        reinterpret_cast<const char*>(data) + offsets[i],
                                        static_cast<size_t>(offsets[i + 1] - offsets[i]))));
    if (invalid) {
      *bad = i;
      return false;
    }
  }
  return true;
}

class Assembler {
 public:
  Assembler(const SchemaDescriptor& schema, std::vector<ColumnChunkData>* chunks,
            const std::string& context, MemoryPool* pool, bool validate_utf8,
            DecodeBudget* budget = nullptr)
      : schema_(schema),
        chunks_(*chunks),
        context_(context),
        pool_(pool),
        validate_utf8_(validate_utf8),
        budget_(budget) {}

  Result<ArrayRef> Build(const FieldNode& node, Filter f) {
    switch (node.kind) {
      case FieldNode::Kind::kLeaf:
        return BuildLeaf(node, f);
      case FieldNode::Kind::kStruct:
        return BuildStruct(node, f);
      case FieldNode::Kind::kList:
      case FieldNode::Kind::kMap:
        return BuildList(node, f);
    }
    return Status::Invalid("unknown node");
  }

 private:
  Status Charge(int64_t bytes, const FieldNode& node) {
    return budget_ ? budget_->Charge(bytes, Where(node)) : Status::OK();
  }

  std::string Where(const FieldNode& node) const {
    return fmt::format("{}, field '{}'", context_, PrintableName(node.field->name));
  }

  Result<ArrayRef> BuildStruct(const FieldNode& node, Filter f) {
    Slots slots;
    QUIVER_RETURN_NOT_OK(ComputeSlots(chunks_[FirstLeaf(node)], f, node.def_level, pool_, &slots));
    std::vector<ArrayRef> children;
    for (const FieldNode& c : node.children) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef child, Build(c, f));
      if (child->length != slots.count) {
        return Status::Invalid("{}: struct fields of different lengths ({} and {})", Where(node),
                               child->length, slots.count);
      }
      children.push_back(std::move(child));
    }
    return ArrayData::Make(node.field->type, slots.count, {slots.validity}, slots.nulls, 0,
                           std::move(children));
  }

  Result<ArrayRef> BuildList(const FieldNode& node, Filter f) {
    const ColumnChunkData& d = chunks_[FirstLeaf(node)];
    Slots slots;
    QUIVER_RETURN_NOT_OK(ComputeSlots(d, f, node.def_level, pool_, &slots));
    QUIVER_RETURN_NOT_OK(Charge((slots.count + 1) * 4, node));
    QUIVER_ASSIGN_OR_RAISE(auto offsets, MutableBuffer::Allocate((slots.count + 1) * 4, pool_));
    int32_t* off = offsets->mutable_data_as<int32_t>();
    const int16_t* def = d.def();
    const int16_t* rep = d.rep();
    int64_t elements = 0;
    int64_t s = 0;
    for (int64_t i = 0; i < d.num_levels; ++i) {
      const int16_t r = rep ? rep[i] : 0;
      const int16_t dl = def ? def[i] : 0;
      if (r <= f.rmax && dl >= f.dmin) {
        if (elements > INT32_MAX) {
          return Status::Unsupported("{}: more than 2^31 list elements in one row group",
                                     Where(node));
        }
        off[s++] = static_cast<int32_t>(elements);
      }
      if (r <= node.child_rep_level && dl >= node.child_def_level) ++elements;
    }
    if (elements > INT32_MAX) {
      return Status::Unsupported("{}: more than 2^31 list elements in one row group", Where(node));
    }
    off[s] = static_cast<int32_t>(elements);
    offsets->ZeroPadding();
    QUIVER_ASSIGN_OR_RAISE(ArrayRef child,
                           Build(node.children[0], {node.child_rep_level, node.child_def_level}));
    if (child->length != elements) {
      return Status::Invalid("{}: list levels give {} elements, the values {}", Where(node),
                             elements, child->length);
    }
    return ArrayData::Make(node.field->type, slots.count, {slots.validity, offsets}, slots.nulls, 0,
                           {std::move(child)});
  }

  Result<ArrayRef> BuildLeaf(const FieldNode& node, Filter f) {
    ColumnChunkData& d = chunks_[node.column];
    const ColumnDescriptor& col = schema_.column(node.column);
    Slots slots;
    QUIVER_RETURN_NOT_OK(ComputeSlots(d, f, node.def_level, pool_, &slots));
    const int64_t valid = slots.count - slots.nulls;
    const TypeRef& type = node.field->type;
    if (type->id == TypeId::kNull) {
      return ArrayData::Make(type, slots.count, {}, slots.count);
    }
    if (valid != d.num_values) {
      return Status::Invalid("{}: {} values for {} non-null slots", Where(node), d.num_values,
                             valid);
    }
    std::vector<std::shared_ptr<Buffer>> buffers;
    buffers.push_back(slots.validity);
    switch (col.physical_type) {
      case Type::kBoolean: {
        SpreadBits(d.values->mutable_data(), valid, slots);
        QUIVER_RETURN_NOT_OK(d.values->Resize(bit_util::BytesForBits(slots.count)));
        if (slots.count % 8 != 0) {
          d.values->mutable_data()[slots.count / 8] &=
              static_cast<uint8_t>((1u << (slots.count % 8)) - 1);
        }
        d.values->ZeroPadding();
        buffers.push_back(std::move(d.values));
        break;
      }
      case Type::kByteArray: {
        if (type->is_decimal()) {
          QUIVER_ASSIGN_OR_RAISE(auto values, BytesToDecimal(node, d, type, slots));
          buffers.push_back(std::move(values));
          break;
        }
        int32_t* off = d.offsets->mutable_data_as<int32_t>();
        int64_t bad = 0;
        if (type->id == TypeId::kString && validate_utf8_ &&
            !ValidUtf8Values(off, valid, d.data->data(), &bad)) {
          return Status::Invalid("{}: value {} is not valid UTF-8", Where(node), bad);
        }
        SpreadOffsets(off, valid, slots);
        QUIVER_RETURN_NOT_OK(d.offsets->Resize((slots.count + 1) * 4));
        d.offsets->ZeroPadding();
        buffers.push_back(std::move(d.offsets));
        buffers.push_back(std::move(d.data));
        break;
      }
      default: {
        QUIVER_ASSIGN_OR_RAISE(auto values, FixedValues(node, col, d, type, slots));
        buffers.push_back(std::move(values));
        break;
      }
    }
    return ArrayData::Make(type, slots.count, std::move(buffers), slots.nulls);
  }

  // Fixed-width physical values converted to `type` and spread over the slots.
  Result<std::shared_ptr<MutableBuffer>> FixedValues(const FieldNode& node,
                                                     const ColumnDescriptor& col,
                                                     ColumnChunkData& d, const TypeRef& type,
                                                     const Slots& slots) {
    const int in_w = PhysicalWidth(col.physical_type, col.type_length);
    const int out_w = type->byte_width_of_values();
    const int64_t n = d.num_values;
    const uint8_t* src = d.values->data();
    std::shared_ptr<MutableBuffer> out;
    auto allocate = [&]() -> Status {
      QUIVER_RETURN_NOT_OK(Charge(slots.count * out_w, node));
      QUIVER_ASSIGN_OR_RAISE(out, MutableBuffer::Allocate(slots.count * out_w, pool_));
      return Status::OK();
    };
    if (col.physical_type == Type::kInt96) {
      QUIVER_RETURN_NOT_OK(allocate());
      int64_t* dst = out->mutable_data_as<int64_t>();
      for (int64_t i = 0; i < n; ++i) {
        uint64_t nanos;
        uint32_t julian_day;
        std::memcpy(&nanos, src + 12 * i, 8);
        std::memcpy(&julian_day, src + 12 * i + 8, 4);
        constexpr int64_t kUnixEpochJulianDay = 2440588;
        constexpr int64_t kNanosPerDay = int64_t{86400} * 1000 * 1000 * 1000;
        // Wraps like other readers for dates far outside timestamp[ns].
        dst[i] = static_cast<int64_t>((julian_day - static_cast<uint64_t>(kUnixEpochJulianDay)) *
                                          static_cast<uint64_t>(kNanosPerDay) +
                                      nanos);
      }
    } else if (type->is_decimal()) {
      QUIVER_RETURN_NOT_OK(allocate());
      uint8_t* dst = out->mutable_data();
      if (col.physical_type == Type::kFixedLenByteArray) {
        for (int64_t i = 0; i < n; ++i) {
          if (!BigEndianToDecimal(src + i * in_w, in_w, dst + i * out_w, out_w)) {
            return Status::Invalid("{}: decimal value {} does not fit {}", Where(node), i,
                                   type->ToString());
          }
        }
      } else if (in_w == 4) {
        for (int64_t i = 0; i < n; ++i) {
          int32_t v;
          std::memcpy(&v, src + 4 * i, 4);
          const int64_t w = v;
          std::memcpy(dst + i * out_w, &w, 8);
          std::memset(dst + i * out_w + 8, w < 0 ? 0xff : 0, static_cast<size_t>(out_w - 8));
        }
      } else {
        for (int64_t i = 0; i < n; ++i) {
          int64_t w;
          std::memcpy(&w, src + 8 * i, 8);
          std::memcpy(dst + i * out_w, &w, 8);
          std::memset(dst + i * out_w + 8, w < 0 ? 0xff : 0, static_cast<size_t>(out_w - 8));
        }
      }
    } else if (out_w < in_w && col.physical_type == Type::kInt32) {
      QUIVER_RETURN_NOT_OK(allocate());
      const int32_t* s = reinterpret_cast<const int32_t*>(src);
      if (out_w == 1) {
        uint8_t* dst = out->mutable_data();
        for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<uint8_t>(s[i]);
      } else {
        uint16_t* dst = out->mutable_data_as<uint16_t>();
        for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<uint16_t>(s[i]);
      }
    } else if (out_w == in_w) {
      out = std::move(d.values);  // capacity covers every level
    } else {
      return Status::Invalid("{}: cannot read {} as {}", Where(node), TypeName(col.physical_type),
                             type->ToString());
    }
    SpreadFixed(out->mutable_data(), out_w, n, slots);
    QUIVER_RETURN_NOT_OK(out->Resize(slots.count * out_w));
    out->ZeroPadding();
    return out;
  }

  Result<std::shared_ptr<MutableBuffer>> BytesToDecimal(const FieldNode& node, ColumnChunkData& d,
                                                        const TypeRef& type, const Slots& slots) {
    const int w = type->byte_width;
    QUIVER_RETURN_NOT_OK(Charge(slots.count * w, node));
    QUIVER_ASSIGN_OR_RAISE(auto out, MutableBuffer::Allocate(slots.count * w, pool_));
    const int32_t* off = d.offsets->data_as<int32_t>();
    const uint8_t* data = d.data->data();
    uint8_t* dst = out->mutable_data();
    for (int64_t i = 0; i < d.num_values; ++i) {
      if (!BigEndianToDecimal(data + off[i], off[i + 1] - off[i], dst + i * w, w)) {
        return Status::Invalid("{}: decimal value {} does not fit {}", Where(node), i,
                               type->ToString());
      }
    }
    SpreadFixed(dst, w, d.num_values, slots);
    out->ZeroPadding();
    return out;
  }

  const SchemaDescriptor& schema_;
  std::vector<ColumnChunkData>& chunks_;
  std::string context_;
  MemoryPool* pool_;
  bool validate_utf8_;
  DecodeBudget* budget_;
};

}  // namespace

Result<ArrayRef> AssembleField(const FieldNode& node, const SchemaDescriptor& schema,
                               std::vector<ColumnChunkData>* chunks, int64_t num_rows,
                               const std::string& context, MemoryPool* pool, bool validate_utf8,
                               DecodeBudget* budget) {
  Assembler assembler(schema, chunks, context, pool, validate_utf8, budget);
  QUIVER_ASSIGN_OR_RAISE(ArrayRef array, assembler.Build(node, Filter{}));
  if (array->length != num_rows) {
    return Status::Invalid("{}, field '{}': {} rows, the row group has {}", context,
                           PrintableName(node.field->name), array->length, num_rows);
  }
  return array;
}

Result<ArrayRef> DecodeSingleValue(const FieldNode& node, const SchemaDescriptor& schema,
                                   std::string_view bytes, MemoryPool* pool) {
  if (node.kind != FieldNode::Kind::kLeaf) return Status::Invalid("not a leaf");
  const ColumnDescriptor& col = schema.column(node.column);
  std::vector<ColumnChunkData> chunks(static_cast<size_t>(schema.num_columns()));
  ColumnChunkData& d = chunks[node.column];
  d.num_levels = 1;
  d.num_values = 1;
  const int64_t size = static_cast<int64_t>(bytes.size());
  switch (col.physical_type) {
    case Type::kByteArray: {
      QUIVER_ASSIGN_OR_RAISE(d.offsets, MutableBuffer::Allocate(8, pool));
      d.offsets->mutable_data_as<int32_t>()[0] = 0;
      d.offsets->mutable_data_as<int32_t>()[1] = static_cast<int32_t>(size);
      QUIVER_ASSIGN_OR_RAISE(d.data, MutableBuffer::Allocate(size, pool));
      if (size > 0) std::memcpy(d.data->mutable_data(), bytes.data(), bytes.size());
      break;
    }
    case Type::kBoolean: {
      if (size < 1) return Status::Invalid("empty BOOLEAN statistic");
      QUIVER_ASSIGN_OR_RAISE(d.values, AllocateZeroed(1, pool));
      d.values->mutable_data()[0] = bytes[0] & 1;
      break;
    }
    default: {
      const int w = PhysicalWidth(col.physical_type, col.type_length);
      if (size != w) return Status::Invalid("statistic of {} bytes for a {}-byte type", size, w);
      QUIVER_ASSIGN_OR_RAISE(d.values, MutableBuffer::Allocate(w, pool));
      if (w > 0) std::memcpy(d.values->mutable_data(), bytes.data(), bytes.size());
      break;
    }
  }
  Assembler assembler(schema, &chunks, "statistics", pool, /*validate_utf8=*/false);
  return assembler.Build(node, Filter{});
}

}  // namespace quiver::parquet
