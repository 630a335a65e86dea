#include "formats/parquet/arrow_hints.h"

#include <cstring>

#include "columnar/builder.h"

namespace quiver::parquet {
namespace {

bool IsSmallBinary(TypeId id) { return id == TypeId::kString || id == TypeId::kBinary; }

bool IsListLike(TypeId id) {
  return id == TypeId::kLargeList || id == TypeId::kFixedSizeList || id == TypeId::kListView ||
         id == TypeId::kLargeListView;
}

TypeRef WithChildren(const DataType& base, std::vector<FieldRef> children) {
  auto t = std::make_shared<DataType>(base);
  t->children = std::move(children);
  return t;
}

FieldRef WithType(const FieldRef& f, TypeRef type) {
  auto out = std::make_shared<Field>(*f);
  out->type = std::move(type);
  return out;
}

TypeRef MergeType(const TypeRef& decoded, const TypeRef& stored) {
  const DataType& d = *decoded;
  const DataType& s = *stored;
  switch (d.id) {
    case TypeId::kTimestamp:
      if (s.id == TypeId::kTimestamp && d.timezone == "UTC" && !s.timezone.empty()) {
        return timestamp(d.unit, s.timezone);
      }
      return decoded;
    case TypeId::kInt64:
      if (s.id == TypeId::kDuration) return stored;
      return decoded;
    case TypeId::kString:
    case TypeId::kBinary:
      if (s.id == TypeId::kDictionary && s.index_type->is_integer() &&
          (IsSmallBinary(s.value_type->id) || s.value_type->id == TypeId::kLargeString ||
           s.value_type->id == TypeId::kLargeBinary)) {
        const TypeRef value = MergeType(decoded, s.value_type);
        if (IsSmallBinary(value->id)) return dictionary(s.index_type, value, s.ordered);
        return decoded;
      }
      if ((d.id == TypeId::kString &&
           (s.id == TypeId::kLargeString || s.id == TypeId::kStringView)) ||
          (d.id == TypeId::kBinary &&
           (s.id == TypeId::kLargeBinary || s.id == TypeId::kBinaryView))) {
        return stored;
      }
      return decoded;
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      if (s.is_decimal() && s.precision == d.precision && s.scale == d.scale) return stored;
      return decoded;
    case TypeId::kFixedSizeBinary:
      // INTERVAL's 12 bytes (months, days, millis) back into Arrow intervals.
      if (d.byte_width == 12 &&
          (s.id == TypeId::kIntervalMonths || s.id == TypeId::kIntervalDayTime)) {
        return stored;
      }
      return decoded;
    case TypeId::kStruct: {
      if (s.id != TypeId::kStruct || s.children.size() != d.children.size()) return decoded;
      std::vector<FieldRef> kids;
      for (size_t i = 0; i < d.children.size(); ++i) {
        kids.push_back(MergeStoredField(d.children[i], s.children[i]));
      }
      return WithChildren(d, std::move(kids));
    }
    case TypeId::kList: {
      if (s.id != TypeId::kList && !IsListLike(s.id)) return decoded;
      FieldRef child = MergeStoredField(d.children[0], s.children[0]);
      switch (s.id) {
        case TypeId::kLargeList:
          return large_list(child);
        case TypeId::kListView:
          return list_view(child);
        case TypeId::kLargeListView:
          return large_list_view(child);
        case TypeId::kFixedSizeList:
          return fixed_size_list(child, s.list_size);
        default:
          return list(child);
      }
    }
    case TypeId::kMap: {
      if (s.id != TypeId::kMap) return decoded;
      const FieldRef& de = d.children[0];
      const FieldRef& se = s.children[0];
      if (se->type->children.size() != 2) return decoded;
      std::vector<FieldRef> kv = {MergeStoredField(de->type->children[0], se->type->children[0]),
                                  MergeStoredField(de->type->children[1], se->type->children[1])};
      // Keys must stay non-null and the entries keep their Parquet names.
      if (kv[0]->nullable || kv[0]->type->id == TypeId::kDictionary) return decoded;
      auto entries = WithType(de, WithChildren(*de->type, std::move(kv)));
      return map(entries, s.keys_sorted);
    }
    default:
      return decoded;
  }
}

// Offsets of `a` (int32) as int64, from the buffer's start (a's offset stays valid).
Result<std::shared_ptr<Buffer>> WidenOffsets(const ArrayData& a, MemoryPool* pool) {
  const int32_t* src = a.GetRaw<int32_t>(1);
  const int64_t n = a.offset + a.length + 1;
  QUIVER_ASSIGN_OR_RAISE(auto out, MutableBuffer::Allocate(n * 8, pool));
  int64_t* dst = out->mutable_data_as<int64_t>();
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
  out->ZeroPadding();
  return std::shared_ptr<Buffer>(std::move(out));
}

std::shared_ptr<Buffer> Validity(const ArrayData& a) {
  return a.buffers.empty() ? nullptr : a.buffers[0];
}

Result<ArrayRef> ToDictionary(const ArrayRef& a, const TypeRef& type, MemoryPool* pool) {
  DictionaryBuilder b(type, pool);
  for (int64_t i = 0; i < a->length; ++i) {
    if (a->IsNull(i)) {
      QUIVER_RETURN_NOT_OK(b.AppendNull());
    } else {
      QUIVER_RETURN_NOT_OK(b.Append(a->GetString(i)));
    }
  }
  return b.Finish();
}

Result<ArrayRef> ToViews(const ArrayRef& a, const TypeRef& type, MemoryPool* pool) {
  BinaryViewBuilder b(type, pool);
  for (int64_t i = 0; i < a->length; ++i) {
    if (a->IsNull(i)) {
      QUIVER_RETURN_NOT_OK(b.AppendNull());
    } else {
      QUIVER_RETURN_NOT_OK(b.Append(a->GetString(i)));
    }
  }
  return b.Finish();
}

// decimal128/256 -> another decimal width (same value range: the precision
// is unchanged).
Result<ArrayRef> ResizeDecimals(const ArrayRef& a, const TypeRef& type, MemoryPool* pool) {
  const int from = a->type->byte_width;
  const int to = type->byte_width;
  QUIVER_ASSIGN_OR_RAISE(auto out, MutableBuffer::Allocate(a->length * to, pool));
  const uint8_t* src = a->buffers[1]->data() + a->offset * from;
  uint8_t* dst = out->mutable_data();
  for (int64_t i = 0; i < a->length; ++i) {
    const uint8_t* s = src + i * from;
    uint8_t* d = dst + i * to;
    const int n = std::min(from, to);
    std::memcpy(d, s, static_cast<size_t>(n));
    const uint8_t fill = (s[from - 1] & 0x80) ? 0xff : 0;
    if (to > n) std::memset(d + n, fill, static_cast<size_t>(to - n));
  }
  out->ZeroPadding();
  auto r = std::make_shared<ArrayData>(*a);
  r->type = type;
  r->offset = 0;
  r->buffers = {a->offset == 0 ? Validity(*a) : nullptr, out};
  if (a->offset != 0 && Validity(*a)) {
    QUIVER_ASSIGN_OR_RAISE(auto bits, MutableBuffer::Allocate((a->length + 7) / 8, pool));
    bit_util::CopyBitmap(Validity(*a)->data(), a->offset, a->length, bits->mutable_data(), 0);
    bits->ZeroPadding();
    r->buffers[0] = bits;
  }
  return r;
}

Result<ArrayRef> ListToFixedSize(const ArrayRef& a, const TypeRef& type, const ArrayRef& child,
                                 MemoryPool* pool) {
  const int32_t n = type->list_size;
  const int32_t* off = a->GetValues<int32_t>(1);
  std::vector<ArrayRef> pieces;
  int64_t run_start = -1;  // first child index of a run of valid slots
  int64_t run_end = -1;
  auto flush = [&]() {
    if (run_start >= 0 && run_end > run_start)
      pieces.push_back(child->Slice(run_start, run_end - run_start));
    run_start = run_end = -1;
  };
  for (int64_t i = 0; i < a->length; ++i) {
    const int64_t len = off[i + 1] - off[i];
    if (a->IsNull(i)) {
      if (len != 0 && len != n) {
        return Status::Invalid("fixed_size_list<{}>: a null list holds {} values", n, len);
      }
      flush();
      if (len == n && n > 0) {
        pieces.push_back(child->Slice(off[i], n));
      } else if (n > 0) {
        QUIVER_ASSIGN_OR_RAISE(auto nulls, MakeArrayOfNull(child->type, n, pool));
        pieces.push_back(nulls);
      }
      continue;
    }
    if (len != n) return Status::Invalid("fixed_size_list<{}>: a list of {} values", n, len);
    if (run_start < 0) run_start = off[i];
    run_end = off[i + 1];
  }
  flush();
  ArrayRef values;
  if (pieces.empty()) {
    QUIVER_ASSIGN_OR_RAISE(values, MakeArrayOfNull(child->type, 0, pool));
    if (child->type->id != TypeId::kNull) values = child->Slice(0, 0);
  } else if (pieces.size() == 1) {
    values = pieces[0];
  } else {
    QUIVER_ASSIGN_OR_RAISE(values, Concatenate(pieces, pool));
  }
  return ArrayData::Make(type, a->length, {Validity(*a)}, a->null_count, a->offset, {values});
}

}  // namespace

FieldRef MergeStoredField(const FieldRef& decoded, const FieldRef& stored) {
  auto out = std::make_shared<Field>(*decoded);
  out->type = MergeType(decoded->type, stored->type);
  KeyValueMetadata md = stored->metadata;
  for (const auto& kv : decoded->metadata) {
    bool present = false;
    for (const auto& e : md) present |= e.first == kv.first;
    if (!present) md.push_back(kv);
  }
  out->metadata = std::move(md);
  return out;
}

Result<ArrayRef> ConvertToType(const ArrayRef& a, const TypeRef& type, MemoryPool* pool) {
  const DataType& from = *a->type;
  if (from.Equals(*type) && from.ToString() == type->ToString()) return a;
  auto retyped = [&](std::vector<ArrayRef> children) {
    auto r = std::make_shared<ArrayData>(*a);
    r->type = type;
    r->children = std::move(children);
    return r;
  };
  switch (type->id) {
    case TypeId::kTimestamp:
    case TypeId::kDuration:
      return retyped(a->children);
    case TypeId::kDictionary:
      return ToDictionary(a, type, pool);
    case TypeId::kLargeString:
    case TypeId::kLargeBinary: {
      QUIVER_ASSIGN_OR_RAISE(auto offsets, WidenOffsets(*a, pool));
      auto r = retyped({});
      r->buffers = {Validity(*a), offsets, a->buffers[2]};
      return r;
    }
    case TypeId::kStringView:
    case TypeId::kBinaryView:
      return ToViews(a, type, pool);
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      return ResizeDecimals(a, type, pool);
    case TypeId::kIntervalMonths:
    case TypeId::kIntervalDayTime: {
      // Months are bytes 0-3 of the INTERVAL, {days, millis} bytes 4-11.
      const bool months = type->id == TypeId::kIntervalMonths;
      const int w = months ? 4 : 8;
      QUIVER_ASSIGN_OR_RAISE(auto out, MutableBuffer::Allocate(a->length * w, pool));
      const uint8_t* src = a->buffers[1]->data() + a->offset * 12;
      for (int64_t i = 0; i < a->length; ++i) {
        std::memcpy(out->mutable_data() + i * w, src + i * 12 + (months ? 0 : 4), w);
      }
      out->ZeroPadding();
      auto r = retyped({});
      r->offset = 0;
      std::shared_ptr<Buffer> validity = Validity(*a);
      if (validity && a->offset != 0) {
        QUIVER_ASSIGN_OR_RAISE(auto bits, AllocateZeroed((a->length + 7) / 8, pool));
        bit_util::CopyBitmap(validity->data(), a->offset, a->length, bits->mutable_data(), 0);
        validity = bits;
      }
      r->buffers = {validity, out};
      return r;
    }
    case TypeId::kStruct: {
      std::vector<ArrayRef> kids;
      for (size_t i = 0; i < type->children.size(); ++i) {
        QUIVER_ASSIGN_OR_RAISE(auto k,
                               ConvertToType(a->children[i], type->children[i]->type, pool));
        kids.push_back(std::move(k));
      }
      return retyped(std::move(kids));
    }
    case TypeId::kMap: {
      QUIVER_ASSIGN_OR_RAISE(auto entries,
                             ConvertToType(a->children[0], type->children[0]->type, pool));
      return retyped({entries});
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kListView:
    case TypeId::kLargeListView:
    case TypeId::kFixedSizeList: {
      QUIVER_ASSIGN_OR_RAISE(auto child,
                             ConvertToType(a->children[0], type->children[0]->type, pool));
      if (type->id == TypeId::kList) return retyped({child});
      if (type->id == TypeId::kFixedSizeList) return ListToFixedSize(a, type, child, pool);
      if (type->id == TypeId::kLargeList) {
        QUIVER_ASSIGN_OR_RAISE(auto offsets, WidenOffsets(*a, pool));
        auto r = retyped({child});
        r->buffers = {Validity(*a), offsets};
        return r;
      }
      // List views: offsets and sizes.
      const bool large = type->id == TypeId::kLargeListView;
      const int w = large ? 8 : 4;
      QUIVER_ASSIGN_OR_RAISE(auto offs, MutableBuffer::Allocate((a->length + a->offset) * w, pool));
      QUIVER_ASSIGN_OR_RAISE(auto sizes,
                             MutableBuffer::Allocate((a->length + a->offset) * w, pool));
      const int32_t* src = a->GetRaw<int32_t>(1);
      for (int64_t i = 0; i < a->length + a->offset; ++i) {
        const int64_t o = src[i];
        const int64_t s = src[i + 1] - src[i];
        if (large) {
          offs->mutable_data_as<int64_t>()[i] = o;
          sizes->mutable_data_as<int64_t>()[i] = s;
        } else {
          offs->mutable_data_as<int32_t>()[i] = static_cast<int32_t>(o);
          sizes->mutable_data_as<int32_t>()[i] = static_cast<int32_t>(s);
        }
      }
      offs->ZeroPadding();
      sizes->ZeroPadding();
      auto r = retyped({child});
      r->buffers = {Validity(*a), offs, sizes};
      return r;
    }
    default:
      return retyped(a->children);
  }
}

}  // namespace quiver::parquet
