#include "formats/parquet/level_builder.h"

#include <cstring>

#include "columnar/builder.h"
#include "common/calendar.h"

namespace quiver::parquet {
namespace {

template <typename F>
void ForEach(const int64_t* idx, int64_t n, F&& f) {
  if (idx != nullptr) {
    for (int64_t k = 0; k < n; ++k) f(idx[k]);
  } else {
    for (int64_t i = 0; i < n; ++i) f(i);
  }
}

template <typename T>
T Load(const ArrayData& a, int64_t i) {
  T v;
  std::memcpy(&v, a.buffers[1]->data() + (a.offset + i) * static_cast<int64_t>(sizeof(T)),
              sizeof(T));
  return v;
}

template <typename Out, typename F>
void AppendConverted(const int64_t* idx, int64_t n, ByteVector* out, F&& f) {
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>(n) * sizeof(Out));
  uint8_t* dst = out->data() + start;
  ForEach(idx, n, [&](int64_t i) {
    const Out v = f(i);
    std::memcpy(dst, &v, sizeof(Out));
    dst += sizeof(Out);
  });
}

// Values of `a` at the given positions (relative to a's offset; all of
// [0, n) when idx is null) in the leaf's physical layout.
Status GatherValues(const ArrayData& a, const WriterSchema::Leaf& leaf, const int64_t* idx,
                    int64_t n, LeafValues* out) {
  out->num_values += n;
  ByteVector* f = &out->fixed;
  const DataType& t = *a.type;
  if (t.is_binary_like() || t.id == TypeId::kStringView || t.id == TypeId::kBinaryView) {
    if (out->offsets.empty()) out->offsets.push_back(0);
  }
  if (n == 0) return Status::OK();  // (buffers of empty arrays may be absent)
  switch (t.id) {
    case TypeId::kNull:
      return n == 0 ? Status::OK() : Status::Invalid("non-null value in a null column");
    case TypeId::kBool: {
      const uint8_t* bits = a.buffers[1]->data();
      const size_t start = f->size();
      f->resize(start + static_cast<size_t>(n));
      uint8_t* dst = f->data() + start;
      ForEach(idx, n, [&](int64_t i) { *dst++ = bit_util::GetBit(bits, a.offset + i); });
      return Status::OK();
    }
    case TypeId::kInt8:
      AppendConverted<int32_t>(idx, n, f, [&](int64_t i) { return int32_t{Load<int8_t>(a, i)}; });
      return Status::OK();
    case TypeId::kUInt8:
      AppendConverted<int32_t>(idx, n, f, [&](int64_t i) { return int32_t{Load<uint8_t>(a, i)}; });
      return Status::OK();
    case TypeId::kInt16:
      AppendConverted<int32_t>(idx, n, f, [&](int64_t i) { return int32_t{Load<int16_t>(a, i)}; });
      return Status::OK();
    case TypeId::kUInt16:
      AppendConverted<int32_t>(idx, n, f, [&](int64_t i) { return int32_t{Load<uint16_t>(a, i)}; });
      return Status::OK();
    case TypeId::kTime32:
      if (t.unit == TimeUnit::kSecond) {
        AppendConverted<int32_t>(idx, n, f, [&](int64_t i) { return Load<int32_t>(a, i) * 1000; });
        return Status::OK();
      }
      break;
    case TypeId::kTimestamp:
      if (t.unit == TimeUnit::kSecond) {
        AppendConverted<int64_t>(idx, n, f, [&](int64_t i) { return Load<int64_t>(a, i) * 1000; });
        return Status::OK();
      }
      break;
    case TypeId::kDate64:
      AppendConverted<int32_t>(idx, n, f, [&](int64_t i) {
        return static_cast<int32_t>(FloorDiv(Load<int64_t>(a, i), kMillisPerDay));
      });
      return Status::OK();
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256: {
      const int w = t.byte_width;
      const int len = leaf.type_length;
      const size_t start = f->size();
      f->resize(start + static_cast<size_t>(n) * len);
      uint8_t* dst = f->data() + start;
      const uint8_t* src = a.buffers[1]->data();
      ForEach(idx, n, [&](int64_t i) {
        const uint8_t* v = src + (a.offset + i) * w;
        for (int b = 0; b < len; ++b) dst[b] = v[len - 1 - b];
        dst += len;
      });
      return Status::OK();
    }
    case TypeId::kIntervalMonths:
    case TypeId::kIntervalDayTime: {
      const size_t start = f->size();
      f->resize(start + static_cast<size_t>(n) * 12, 0);
      uint8_t* dst = f->data() + start;
      const uint8_t* src = a.buffers[1]->data();
      const bool months = t.id == TypeId::kIntervalMonths;
      ForEach(idx, n, [&](int64_t i) {
        if (months) {
          std::memcpy(dst, src + (a.offset + i) * 4, 4);
        } else {
          std::memcpy(dst + 4, src + (a.offset + i) * 8, 8);
        }
        dst += 12;
      });
      return Status::OK();
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kLargeString:
    case TypeId::kLargeBinary:
    case TypeId::kStringView:
    case TypeId::kBinaryView: {
      if (out->offsets.empty()) out->offsets.push_back(0);
      if (t.id == TypeId::kString || t.id == TypeId::kBinary) {
        // The common case without GetString's dispatch per value.
        const int32_t* offs = a.GetValues<int32_t>(1);
        const char* data = a.buffers[2] ? a.buffers[2]->data_as<char>() : "";
        out->offsets.reserve(out->offsets.size() + static_cast<size_t>(n));
        ForEach(idx, n, [&](int64_t i) {
          out->data.append(data + offs[i], static_cast<size_t>(offs[i + 1] - offs[i]));
          out->offsets.push_back(static_cast<int64_t>(out->data.size()));
        });
        return Status::OK();
      }
      ForEach(idx, n, [&](int64_t i) {
        const std::string_view v = a.GetString(i);
        out->data.append(v.data(), v.size());
        out->offsets.push_back(static_cast<int64_t>(out->data.size()));
      });
      return Status::OK();
    }
    default:
      break;
  }
  // Same bytes in Parquet as in Arrow.
  const int w = t.byte_width_of_values();
  if (w <= 0) return Status::Unsupported("writing {} to Parquet", t.ToString());
  const uint8_t* src = a.buffers[1]->data() + a.offset * w;
  const size_t start = f->size();
  f->resize(start + static_cast<size_t>(n) * w);
  uint8_t* dst = f->data() + start;
  if (idx == nullptr) {
    std::memcpy(dst, src, static_cast<size_t>(n) * w);
  } else if (w == 4) {
    for (int64_t k = 0; k < n; ++k) std::memcpy(dst + 4 * k, src + 4 * idx[k], 4);
  } else if (w == 8) {
    for (int64_t k = 0; k < n; ++k) std::memcpy(dst + 8 * k, src + 8 * idx[k], 8);
  } else {
    for (int64_t k = 0; k < n; ++k) std::memcpy(dst + w * k, src + w * idx[k], w);
  }
  return Status::OK();
}

// The [start, end) child range of list-like slot i.
void ListRange(const ArrayData& a, int64_t i, int64_t* start, int64_t* end) {
  switch (a.type->id) {
    case TypeId::kList:
    case TypeId::kMap: {
      const int32_t* o = a.GetValues<int32_t>(1);
      *start = o[i];
      *end = o[i + 1];
      return;
    }
    case TypeId::kLargeList: {
      const int64_t* o = a.GetValues<int64_t>(1);
      *start = o[i];
      *end = o[i + 1];
      return;
    }
    case TypeId::kListView: {
      *start = a.GetValues<int32_t>(1)[i];
      *end = *start + a.GetValues<int32_t>(2)[i];
      return;
    }
    case TypeId::kLargeListView: {
      *start = a.GetValues<int64_t>(1)[i];
      *end = *start + a.GetValues<int64_t>(2)[i];
      return;
    }
    case TypeId::kFixedSizeList: {
      *start = (a.offset + i) * a.type->list_size;
      *end = *start + a.type->list_size;
      return;
    }
    default:
      *start = *end = 0;
  }
}

class LevelWalker {
 public:
  LevelWalker(const WriterSchema::Leaf& leaf, LeafValues* out) : leaf_(leaf), out_(out) {}

  // Walks slot i of `a` at depth k (node n).
  void Element(const WriterNode& n, size_t k, const ArrayData& a, int64_t i, int16_t d, int16_t r) {
    if (n.nullable && a.IsNull(i)) {
      Emit(d, r);
      return;
    }
    const int16_t dd = n.def_level;
    switch (n.kind) {
      case WriterNode::Kind::kLeaf:
        Emit(dd, r);
        if (leaf_array_ == nullptr) leaf_array_ = &a;
        indices_.push_back(i);
        return;
      case WriterNode::Kind::kStruct: {
        const int c = leaf_.path[k];
        Element(n.children[c], k + 1, *a.children[c], a.offset + i, dd, r);
        return;
      }
      case WriterNode::Kind::kList: {
        int64_t s, e;
        ListRange(a, i, &s, &e);
        if (s == e) {
          Emit(dd, r);
          return;
        }
        const ArrayData& child = *a.children[0];
        for (int64_t j = s; j < e; ++j) {
          Element(n.children[0], k + 1, child, j, static_cast<int16_t>(dd + 1),
                  j == s ? r : n.rep_level);
        }
        return;
      }
    }
  }

  void Emit(int16_t d, int16_t r) {
    if (leaf_.max_def_level > 0) out_->def.push_back(d);
    if (leaf_.max_rep_level > 0) out_->rep.push_back(r);
    ++out_->num_levels;
  }

  const ArrayData* leaf_array_ = nullptr;
  std::vector<int64_t> indices_;

 private:
  const WriterSchema::Leaf& leaf_;
  LeafValues* out_;
};

// The leaf array reached from `a` along the path (struct/list children).
const ArrayData* LeafArray(const WriterNode& node, const WriterSchema::Leaf& leaf, size_t k,
                           const ArrayData& a) {
  if (node.kind == WriterNode::Kind::kLeaf) return &a;
  const int c = node.kind == WriterNode::Kind::kStruct ? leaf.path[k] : 0;
  return LeafArray(node.children[c], leaf, k + 1, *a.children[c]);
}

}  // namespace

Status AppendLeafValues(const WriterSchema& schema, int leaf_index, const ArrayData& array,
                        LeafValues* out) {
  const WriterSchema::Leaf& leaf = schema.leaves[leaf_index];
  const WriterNode& top = schema.fields[leaf.field];
  const int64_t n = array.length;
  out->num_rows += n;
  if (top.kind == WriterNode::Kind::kLeaf) {
    // Flat column: one level per row, the definition level is the validity.
    out->num_levels += n;
    if (!top.nullable || array.GetNullCount() == 0 || array.type->id == TypeId::kNull) {
      if (leaf.max_def_level > 0) {
        const int16_t d = array.type->id == TypeId::kNull ? 0 : 1;
        out->def.insert(out->def.end(), static_cast<size_t>(n), d);
      }
      if (array.type->id == TypeId::kNull) return Status::OK();
      return GatherValues(array, leaf, nullptr, n, out);
    }
    std::vector<int64_t> valid;
    valid.reserve(static_cast<size_t>(n - array.GetNullCount()));
    const size_t start = out->def.size();
    out->def.resize(start + static_cast<size_t>(n));
    int16_t* def = out->def.data() + start;
    for (int64_t i = 0; i < n; ++i) {
      const bool v = array.IsValid(i);
      def[i] = v;
      if (v) valid.push_back(i);
    }
    return GatherValues(array, leaf, valid.data(), static_cast<int64_t>(valid.size()), out);
  }
  LevelWalker walker(leaf, out);
  for (int64_t i = 0; i < n; ++i) walker.Element(top, 0, array, i, 0, 0);
  const ArrayData* leaf_array = walker.leaf_array_;
  if (leaf_array == nullptr) leaf_array = LeafArray(top, leaf, 0, array);
  if (leaf_array->type->id == TypeId::kNull) return Status::OK();
  return GatherValues(*leaf_array, leaf, walker.indices_.data(),
                      static_cast<int64_t>(walker.indices_.size()), out);
}

namespace {

bool HasDictionary(const DataType& t) {
  if (t.id == TypeId::kDictionary) return true;
  for (const auto& c : t.children) {
    if (HasDictionary(*c->type)) return true;
  }
  return false;
}

Result<ArrayRef> DecodeDictionary(const ArrayData& a, MemoryPool* pool) {
  QUIVER_ASSIGN_OR_RAISE(ArrayRef values, MaterializeDictionaries(a.dictionary, pool));
  QUIVER_ASSIGN_OR_RAISE(auto builder, MakeBuilder(values->type, pool));
  QUIVER_RETURN_NOT_OK(builder->Reserve(a.length));
  for (int64_t i = 0; i < a.length; ++i) {
    if (a.IsNull(i)) {
      QUIVER_RETURN_NOT_OK(builder->AppendNull());
      continue;
    }
    const int64_t k = a.GetDictionaryIndex(i);
    if (k < 0 || k >= values->length) {
      return Status::Invalid("dictionary index {} out of range", k);
    }
    QUIVER_RETURN_NOT_OK(builder->AppendArraySlice(*values, k, 1));
  }
  return builder->Finish();
}

}  // namespace

Result<ArrayRef> MaterializeDictionaries(const ArrayRef& array, MemoryPool* pool) {
  if (!HasDictionary(*array->type)) return array;
  if (array->type->id == TypeId::kDictionary) return DecodeDictionary(*array, pool);
  auto out = std::make_shared<ArrayData>(*array);
  std::vector<FieldRef> fields;
  for (size_t i = 0; i < array->children.size(); ++i) {
    QUIVER_ASSIGN_OR_RAISE(out->children[i], MaterializeDictionaries(array->children[i], pool));
  }
  auto type = std::make_shared<DataType>(*array->type);
  for (size_t i = 0; i < type->children.size(); ++i) {
    auto f = std::make_shared<Field>(*type->children[i]);
    f->type = out->children[i]->type;
    type->children[i] = f;
  }
  out->type = type;
  return out;
}

}  // namespace quiver::parquet
