// Logical equality of arrays: values and nulls, never raw bytes under nulls,
// offsets or padding. Used by tests and by readers that compare dictionaries.
#include <cmath>

#include "columnar/array.h"

namespace quiver {

namespace {

// Logical start/length of list slot i (index relative to the array's offset).
template <typename O>
std::pair<int64_t, int64_t> ListRange(const ArrayData& a, int64_t i) {
  const O* offs = a.GetValues<O>(1);
  return {offs[i], offs[i + 1] - offs[i]};
}
template <typename O>
std::pair<int64_t, int64_t> ListViewRange(const ArrayData& a, int64_t i) {
  return {a.GetValues<O>(1)[i], a.GetValues<O>(2)[i]};
}

std::pair<int64_t, int64_t> AnyListRange(const ArrayData& a, int64_t i) {
  switch (a.type->id) {
    case TypeId::kList:
    case TypeId::kMap: return ListRange<int32_t>(a, i);
    case TypeId::kLargeList: return ListRange<int64_t>(a, i);
    case TypeId::kListView: return ListViewRange<int32_t>(a, i);
    case TypeId::kLargeListView: return ListViewRange<int64_t>(a, i);
    case TypeId::kFixedSizeList: {
      const int64_t n = a.type->list_size;
      return {(a.offset + i) * n, n};
    }
    default: return {0, 0};
  }
}

int64_t ReadInt(const ArrayData& a, int64_t j) {  // j is a physical index
  switch (a.type->id) {
    case TypeId::kInt16: return a.GetRaw<int16_t>(1)[j];
    case TypeId::kInt32: return a.GetRaw<int32_t>(1)[j];
    default: return a.GetRaw<int64_t>(1)[j];
  }
}

// Physical index into the values child of a run-end-encoded array.
int64_t RunEndPhysicalIndex(const ArrayData& a, int64_t i) {
  const ArrayData& ends = *a.children[0];
  const int64_t logical = a.offset + i;
  int64_t lo = 0, hi = ends.length;  // first run whose end > logical
  while (lo < hi) {
    int64_t mid = (lo + hi) / 2;
    if (ReadInt(ends, ends.offset + mid) > logical) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

bool SlotEquals(const ArrayData& a, int64_t i, const ArrayData& b, int64_t j);

bool UnionSlotEquals(const ArrayData& a, int64_t i, const ArrayData& b, int64_t j) {
  const int8_t ca = a.GetValues<int8_t>(0)[i];
  const int8_t cb = b.GetValues<int8_t>(0)[j];
  if (ca != cb) return false;
  const auto& codes = a.type->type_codes;
  int child = -1;
  for (size_t k = 0; k < codes.size(); ++k) {
    if (codes[k] == ca) child = static_cast<int>(k);
  }
  if (child < 0) return false;
  int64_t ia = a.offset + i, ib = b.offset + j;
  if (a.type->id == TypeId::kDenseUnion) {
    ia = a.GetValues<int32_t>(1)[i];
    ib = b.GetValues<int32_t>(1)[j];
  }
  return SlotEquals(*a.children[child], ia, *b.children[child], ib);
}

bool SlotEquals(const ArrayData& a, int64_t i, const ArrayData& b, int64_t j) {
  const TypeId id = a.type->id;
  if (id == TypeId::kSparseUnion || id == TypeId::kDenseUnion) return UnionSlotEquals(a, i, b, j);
  if (id == TypeId::kRunEndEncoded) {
    return SlotEquals(*a.children[1], RunEndPhysicalIndex(a, i), *b.children[1],
                      RunEndPhysicalIndex(b, j));
  }
  const bool va = a.IsValid(i), vb = b.IsValid(j);
  if (va != vb) return false;
  if (!va) return true;
  switch (id) {
    case TypeId::kNull: return true;
    case TypeId::kBool:
      return bit_util::GetBit(a.buffers[1]->data(), a.offset + i) ==
             bit_util::GetBit(b.buffers[1]->data(), b.offset + j);
    case TypeId::kFloat: {
      float x = a.GetValues<float>(1)[i], y = b.GetValues<float>(1)[j];
      return x == y || (std::isnan(x) && std::isnan(y));
    }
    case TypeId::kDouble: {
      double x = a.GetValues<double>(1)[i], y = b.GetValues<double>(1)[j];
      return x == y || (std::isnan(x) && std::isnan(y));
    }
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kLargeString:
    case TypeId::kLargeBinary:
    case TypeId::kStringView:
    case TypeId::kBinaryView:
    case TypeId::kFixedSizeBinary:
      return a.GetString(i) == b.GetString(j);
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kListView:
    case TypeId::kLargeListView:
    case TypeId::kFixedSizeList:
    case TypeId::kMap: {
      auto [sa, la] = AnyListRange(a, i);
      auto [sb, lb] = AnyListRange(b, j);
      if (la != lb) return false;
      // No type check on the children: a map's entry field names may differ.
      for (int64_t k = 0; k < la; ++k) {
        if (!SlotEquals(*a.children[0], sa + k, *b.children[0], sb + k)) return false;
      }
      return true;
    }
    case TypeId::kStruct:
      for (size_t k = 0; k < a.children.size(); ++k) {
        if (!SlotEquals(*a.children[k], a.offset + i, *b.children[k], b.offset + j)) return false;
      }
      return true;
    case TypeId::kDictionary:
      return SlotEquals(*a.dictionary, a.GetDictionaryIndex(i), *b.dictionary, b.GetDictionaryIndex(j));
    default: {
      const int w = a.type->bit_width() / 8;
      return std::memcmp(a.buffers[1]->data() + (a.offset + i) * w,
                         b.buffers[1]->data() + (b.offset + j) * w, static_cast<size_t>(w)) == 0;
    }
  }
}

}  // namespace

bool ArrayRangeEquals(const ArrayData& a, int64_t a_start, const ArrayData& b, int64_t b_start,
                      int64_t length) {
  if (!a.type->Equals(*b.type)) return false;
  for (int64_t k = 0; k < length; ++k) {
    if (!SlotEquals(a, a_start + k, b, b_start + k)) return false;
  }
  return true;
}

bool ArrayEquals(const ArrayData& a, const ArrayData& b) {
  if (a.length != b.length) return false;
  return ArrayRangeEquals(a, 0, b, 0, a.length);
}

}  // namespace quiver
