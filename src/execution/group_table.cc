#include "execution/group_table.h"

#include <xxhash.h>

#include <cstring>
#include <limits>
#include <type_traits>

namespace quiver::exec {

namespace {

// width: byte width for fixed types, 0 for bool and null, -1 for strings.
int WidthOf(const DataType& t) {
  if (t.id == TypeId::kBool || t.id == TypeId::kNull) return 0;
  if (t.id == TypeId::kString || t.id == TypeId::kBinary) return -1;
  return t.byte_width_of_values();
}

// Floating-point keys that compare equal must have equal bytes: -0.0 -> 0.0,
// every NaN -> the canonical NaN.
template <typename T>
inline T Canonical(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    if (x == 0) return T{0};
    if (x != x) return std::numeric_limits<T>::quiet_NaN();
  }
  return x;
}

inline uint8_t* WriteValue(const VectorRef& v, const kernels::ValidAccess& valid, int width, int64_t i, uint8_t* p) {
  if (!valid(i)) {
    *p++ = 0;
    return p;
  }
  *p++ = 1;
  const int64_t s = v.index(i);
  if (width > 0) {
    const uint8_t* src = v.array->GetRaw<uint8_t>(1) + (v.array->offset + s) * width;
    if (v.array->type->id == TypeId::kDouble) {
      double d;
      std::memcpy(&d, src, 8);
      d = Canonical(d);
      std::memcpy(p, &d, 8);
    } else if (v.array->type->id == TypeId::kFloat) {
      float f;
      std::memcpy(&f, src, 4);
      f = Canonical(f);
      std::memcpy(p, &f, 4);
    } else {
      std::memcpy(p, src, static_cast<size_t>(width));
    }
    return p + width;
  }
  if (width == 0) {
    *p++ = v.array->type->id == TypeId::kNull ? 0 : bit_util::GetBit(v.array->GetRaw<uint8_t>(1), v.array->offset + s);
    return p;
  }
  const int32_t* o = v.array->GetValues<int32_t>(1);
  const uint32_t len = static_cast<uint32_t>(o[s + 1] - o[s]);
  std::memcpy(p, &len, 4);
  p += 4;
  if (len) std::memcpy(p, v.array->buffers[2]->data() + o[s], len);
  return p + len;
}

// Column c of fixed-width keys: presence byte at `off`, value after it.
// T is the value type (floats are canonicalized).
template <typename T>
void WriteFixedColumn(const VectorRef& v, int64_t n, uint8_t* base, int stride, int off) {
  kernels::ValidAccess valid(v);
  kernels::DispatchFixed<T>(v, [&](auto get) {
    if (valid.always_valid()) {
      for (int64_t i = 0; i < n; ++i) {
        uint8_t* row = base + i * stride + off;
        row[0] = 1;
        const T x = Canonical<T>(get(i));
        std::memcpy(row + 1, &x, sizeof(T));
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        uint8_t* row = base + i * stride + off;
        const bool ok = valid(i);
        row[0] = ok;
        // NULL keys must compare equal: zero their value bytes.
        const T x = ok ? Canonical<T>(get(i)) : T{};
        std::memcpy(row + 1, &x, sizeof(T));
      }
    }
  });
}

}  // namespace

KeyLayout::KeyLayout(std::vector<TypeRef> key_types) : types(std::move(key_types)) {
  int w = 0;
  for (const auto& t : types) {
    const int width = WidthOf(*t);
    if (width < 0) {
      fixed_width = -1;
      offsets.clear();
      return;
    }
    offsets.push_back(w);
    w += 1 + (width == 0 ? 1 : width);
  }
  fixed_width = (w + 7) / 8 * 8;
}

namespace {

// Adds the serialized size of column `v`'s rows to sizes[0..n).
void AddValueSizes(const VectorRef& v, int64_t n, uint32_t* sizes) {
  kernels::ValidAccess valid(v);
  const int width = WidthOf(*v.array->type);
  if (width >= 0) {
    const uint32_t present = 1 + static_cast<uint32_t>(width == 0 ? 1 : width);
    if (valid.always_valid()) {
      for (int64_t i = 0; i < n; ++i) sizes[i] += present;
    } else {
      for (int64_t i = 0; i < n; ++i) sizes[i] += valid(i) ? present : 1;
    }
    return;
  }
  const int32_t* o = v.array->GetValues<int32_t>(1);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t s = v.index(i);
    sizes[i] += valid(i) ? 5 + static_cast<uint32_t>(o[s + 1] - o[s]) : 1;
  }
}

// Writes column `v`'s value of each row at base + pos[i] and advances pos[i].
void WriteValues(const VectorRef& v, int64_t n, uint8_t* base, uint32_t* pos) {
  kernels::ValidAccess valid(v);
  const int width = WidthOf(*v.array->type);
  const TypeId id = v.array->type->id;
  if (width < 0) {
    const int32_t* o = v.array->GetValues<int32_t>(1);
    const uint8_t* chars = v.array->buffers[2]->data();
    for (int64_t i = 0; i < n; ++i) {
      uint8_t* p = base + pos[i];
      if (!valid(i)) {
        *p = 0;
        pos[i] += 1;
        continue;
      }
      const int64_t s = v.index(i);
      const uint32_t len = static_cast<uint32_t>(o[s + 1] - o[s]);
      p[0] = 1;
      std::memcpy(p + 1, &len, 4);
      std::memcpy(p + 5, chars + o[s], len);
      pos[i] += 5 + len;
    }
    return;
  }
  if (id == TypeId::kDouble || id == TypeId::kFloat || width == 0 || width > 8) {
    for (int64_t i = 0; i < n; ++i) {
      uint8_t* p = base + pos[i];
      pos[i] = static_cast<uint32_t>(WriteValue(v, valid, width, i, p) - base);
    }
    return;
  }
  const uint8_t* values = v.array->GetRaw<uint8_t>(1) + v.array->offset * width;
  for (int64_t i = 0; i < n; ++i) {
    uint8_t* p = base + pos[i];
    if (!valid(i)) {
      *p = 0;
      pos[i] += 1;
      continue;
    }
    p[0] = 1;
    uint64_t x = 0;
    std::memcpy(&x, values + v.index(i) * width, static_cast<size_t>(width));
    std::memcpy(p + 1, &x, static_cast<size_t>(width));
    pos[i] += 1 + static_cast<uint32_t>(width);
  }
}

}  // namespace

// Column at a time: sizes, then offsets, then each column's values at
// every row's write position (the per-value type dispatch stays out of the
// row loop).
void SerializeRows(const std::vector<VectorRef>& cols, int64_t n, std::vector<uint8_t>* out,
                   std::vector<uint32_t>* offsets) {
  offsets->assign(static_cast<size_t>(n + 1), 0);
  uint32_t* off = offsets->data();
  for (const auto& c : cols) AddValueSizes(c, n, off + 1);
  for (int64_t i = 0; i < n; ++i) off[i + 1] += off[i];
  out->resize(std::max<uint32_t>(off[n], 1));
  thread_local std::vector<uint32_t> pos;
  pos.assign(off, off + n);
  for (const auto& c : cols) WriteValues(c, n, out->data(), pos.data());
}

void SerializeKeys(const KeyLayout& layout, const std::vector<VectorRef>& cols, int64_t n, KeyRows* out) {
  if (layout.fixed_width < 0) {
    out->width = -1;
    SerializeRows(cols, n, &out->data, &out->offsets);
    return;
  }
  const int stride = layout.fixed_width;
  out->width = stride;
  out->data.resize(static_cast<size_t>(std::max<int64_t>(n * stride, 1)));
  uint8_t* base = out->data.data();
  // Zero the last word of each row first: padding bytes take part in
  // hashing and comparison.
  for (int64_t i = 0; i < n; ++i) std::memset(base + i * stride + stride - 8, 0, 8);
  for (size_t c = 0; c < cols.size(); ++c) {
    const DataType& t = *layout.types[c];
    const int off = layout.offsets[c];
    const int width = WidthOf(t);
    if (width == 0) {  // bool / null: presence byte + one value byte
      uint8_t* rows = base + off;
      if (t.id == TypeId::kNull) {
        for (int64_t i = 0; i < n; ++i) rows[i * stride] = rows[i * stride + 1] = 0;
        continue;
      }
      kernels::ValidAccess valid(cols[c]);
      kernels::BoolAccess get(cols[c]);
      for (int64_t i = 0; i < n; ++i) {
        uint8_t* row = rows + i * stride;
        const bool ok = valid(i);
        row[0] = ok;
        row[1] = ok ? get(i) : 0;
      }
      continue;
    }
    if (t.id == TypeId::kDouble) {
      WriteFixedColumn<double>(cols[c], n, base, stride, off);
      continue;
    }
    if (t.id == TypeId::kFloat) {
      WriteFixedColumn<float>(cols[c], n, base, stride, off);
      continue;
    }
    switch (width) {
      case 1:
        WriteFixedColumn<uint8_t>(cols[c], n, base, stride, off);
        break;
      case 2:
        WriteFixedColumn<uint16_t>(cols[c], n, base, stride, off);
        break;
      case 4:
        WriteFixedColumn<uint32_t>(cols[c], n, base, stride, off);
        break;
      case 8:
        WriteFixedColumn<uint64_t>(cols[c], n, base, stride, off);
        break;
      case 16:
        WriteFixedColumn<unsigned __int128>(cols[c], n, base, stride, off);
        break;
      default: {
        kernels::ValidAccess valid(cols[c]);
        for (int64_t i = 0; i < n; ++i) {
          uint8_t* row = base + i * stride + off;
          const bool ok = valid(i);
          row[0] = ok;
          if (ok) {
            std::memcpy(row + 1, cols[c].array->GetRaw<uint8_t>(1) + (cols[c].array->offset + cols[c].index(i)) * width,
                        static_cast<size_t>(width));
          } else {
            std::memset(row + 1, 0, static_cast<size_t>(width));
          }
        }
      }
    }
  }
}

Status ReadValue(const DataType& type, const uint8_t** p, ArrayBuilder* builder, bool fixed_layout) {
  const uint8_t present = *(*p)++;
  const int width = WidthOf(type);
  if (!present) {
    // Fixed layouts keep (zeroed) value bytes for NULLs; skip them.
    if (fixed_layout) *p += width == 0 ? 1 : width;
    return builder->AppendNull();
  }
  if (width == -1) {
    uint32_t len;
    std::memcpy(&len, *p, 4);
    *p += 4;
    Status st = static_cast<StringBuilder*>(builder)->Append(std::string_view(reinterpret_cast<const char*>(*p), len));
    *p += len;
    return st;
  }
  if (width == 0) {
    const bool b = *(*p)++ != 0;
    if (type.id == TypeId::kNull) return builder->AppendNull();
    return static_cast<BooleanBuilder*>(builder)->Append(b);
  }
  ArrayRef one = ArrayData::Make(builder->type(), 1, {nullptr, std::make_shared<Buffer>(*p, width)}, 0);
  *p += width;
  return builder->AppendArraySlice(*one, 0, 1);
}

Result<ArrayRef> ExtractKeyColumn(const KeyLayout& layout, size_t c, int64_t n,
                                  const std::function<const uint8_t*(int64_t)>& key, MemoryPool* pool) {
  const TypeRef& type = layout.types[c];
  const int off = layout.offsets[c];
  if (type->id == TypeId::kNull) return MakeArrayOfNull(type, n, pool);
  QUIVER_ASSIGN_OR_RAISE(auto validity, kernels::AllocateBitmap(n, pool));
  uint8_t* vbits = validity->mutable_data();
  int64_t nulls = 0;
  std::shared_ptr<MutableBuffer> values;
  const int width = WidthOf(*type);
  if (width == 0) {  // bool
    QUIVER_ASSIGN_OR_RAISE(values, kernels::AllocateBitmap(n, pool));
    uint8_t* bits = values->mutable_data();
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t* k = key(i) + off;
      if (k[0]) {
        bit_util::SetBit(vbits, i);
        if (k[1]) bit_util::SetBit(bits, i);
      } else {
        ++nulls;
      }
    }
  } else {
    QUIVER_ASSIGN_OR_RAISE(values, kernels::AllocateValues(n, width, pool));
    uint8_t* dst = values->mutable_data();
    const size_t w = static_cast<size_t>(width);
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t* k = key(i) + off;
      // NULL keys hold zero value bytes: copy them as they are.
      std::memcpy(dst + static_cast<size_t>(i) * w, k + 1, w);
      if (k[0]) {
        bit_util::SetBit(vbits, i);
      } else {
        ++nulls;
      }
    }
  }
  return ArrayData::Make(type, n, {nulls ? std::shared_ptr<Buffer>(validity) : nullptr, values}, nulls);
}

uint64_t HashKey(const uint8_t* key, uint32_t len) {
  if (len == 0) return 0x9e3779b97f4a7c15ULL;
  if (len % 8 != 0) return XXH3_64bits(key, len);
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ len;
  for (uint32_t i = 0; i < len; i += 8) {
    uint64_t w;
    std::memcpy(&w, key + i, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 29;
  }
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ULL;
  h ^= h >> 32;
  return h;
}

GroupTable::GroupTable(const std::vector<AggregateSpec>* aggs, const std::vector<int>* offsets, int row_size,
                       int key_width, int initial_slots)
    : aggs_(aggs), offsets_(offsets), row_size_(row_size), key_width_(key_width) {
  uint64_t cap = 16;
  while (cap < static_cast<uint64_t>(initial_slots)) cap <<= 1;
  slots_.assign(cap, 0);
  mask_ = cap - 1;
}

GroupTable::~GroupTable() { DestroyStates(); }

void GroupTable::Reserve(int64_t groups) {
  while (static_cast<uint64_t>(groups) * 2 > mask_) Grow();
  hashes_.reserve(static_cast<size_t>(groups));
  states_.reserve(static_cast<size_t>(groups * row_size_));
  if (key_width_ >= 0) keys_.reserve(static_cast<size_t>(groups * key_width_));
}

// Linear probing from h's slot: a slot with h's tag (high 32 bits) is a
// candidate, `same(g)` compares its key; an empty slot ends the search and
// takes the new group.
template <typename Same>
int64_t GroupTable::FindOrInsert(const uint8_t* key, uint32_t len, uint64_t h, Same&& same) {
  const uint64_t tag = h & 0xffffffff00000000ULL;
  uint64_t pos = h & mask_;
  for (;;) {
    const uint64_t slot = slots_[pos];
    if (slot == 0) break;
    if ((slot & 0xffffffff00000000ULL) == tag) {
      const int64_t g = static_cast<int64_t>(slot & 0xffffffffULL) - 1;
      if (same(g)) return g;
    }
    pos = (pos + 1) & mask_;
  }
  return Insert(pos, tag, key, len, h);
}

int64_t GroupTable::FindOrCreateFixed(const uint8_t* key, uint64_t h) {
  const size_t words = static_cast<size_t>(key_width_) / 8;
  return FindOrInsert(key, static_cast<uint32_t>(key_width_), h, [&](int64_t g) {
    const uint8_t* gkey = keys_.data() + g * key_width_;
    uint64_t diff = 0;
    for (size_t w = 0; w < words; ++w) {
      uint64_t a, b;
      std::memcpy(&a, gkey + w * 8, 8);
      std::memcpy(&b, key + w * 8, 8);
      diff |= a ^ b;
    }
    return diff == 0;
  });
}

int64_t GroupTable::FindOrCreateVariable(const uint8_t* key, uint32_t len, uint64_t h) {
  return FindOrInsert(key, len, h, [&](int64_t g) {
    uint32_t glen;
    const uint8_t* gkey = this->key(g, &glen);
    return glen == len && (len == 0 || std::memcmp(gkey, key, len) == 0);
  });
}

int64_t GroupTable::Insert(uint64_t pos, uint64_t tag, const uint8_t* key, uint32_t len, uint64_t h) {
  const int64_t g = size();
  slots_[pos] = tag | static_cast<uint64_t>(g + 1);
  hashes_.push_back(h);
  if (key_width_ < 0 && key_offsets_.empty()) key_offsets_.push_back(0);
  if (len) {
    const size_t at = keys_.size();
    keys_.resize(at + len);
    uint8_t* dst = keys_.data() + at;
    if (key_width_ > 0) {
      for (uint32_t w = 0; w < len; w += 8) std::memcpy(dst + w, key + w, 8);
    } else {
      std::memcpy(dst, key, len);
    }
  }
  if (key_width_ < 0) key_offsets_.push_back(static_cast<uint32_t>(keys_.size()));
  states_.resize(static_cast<size_t>((g + 1) * row_size_), 0);
  uint8_t* st = state(g);
  if (aggs_) {
    for (size_t a = 0; a < aggs_->size(); ++a) (*aggs_)[a].function->init(st + (*offsets_)[a]);
  }
  if (static_cast<uint64_t>(size()) * 2 > mask_) Grow();
  return g;
}

void GroupTable::FindOrCreateAll(const KeyRows& keys, const uint64_t* hashes, int64_t n, int64_t* gids) {
  // Prefetch a window of slots ahead of the probes: the table is usually
  // larger than the caches.
  constexpr int64_t kAhead = 16;
  for (int64_t i = 0; i < std::min(n, kAhead); ++i) Prefetch(hashes[i]);
  if (key_width_ > 0) {
    for (int64_t i = 0; i < n; ++i) {
      if (i + kAhead < n) Prefetch(hashes[i + kAhead]);
      gids[i] = FindOrCreateFixed(keys.key(i), hashes[i]);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      if (i + kAhead < n) Prefetch(hashes[i + kAhead]);
      gids[i] = FindOrCreateVariable(keys.key(i), keys.size(i), hashes[i]);
    }
  }
}

int64_t GroupTable::MemoryBytes() const {
  return static_cast<int64_t>(slots_.capacity() * 8 + hashes_.capacity() * 8 + keys_.capacity() +
                              key_offsets_.capacity() * 4 + states_.capacity());
}

void GroupTable::DestroyStates() {
  if (destroyed_) return;  // Finalize, then the destructor
  destroyed_ = true;
  if (aggs_) {
    for (size_t a = 0; a < aggs_->size(); ++a) {
      const auto& destroy = (*aggs_)[a].function->destroy;
      if (!destroy) continue;
      for (int64_t g = 0; g < size(); ++g) destroy(state(g) + (*offsets_)[a]);
    }
  }
  states_.clear();
  states_.shrink_to_fit();
}

void GroupTable::Grow() {
  const uint64_t cap = (mask_ + 1) * 2;
  std::vector<uint64_t> fresh(cap, 0);
  const uint64_t m = cap - 1;
  for (int64_t g = 0; g < size(); ++g) {
    const uint64_t h = hashes_[static_cast<size_t>(g)];
    uint64_t pos = h & m;
    while (fresh[pos] != 0) pos = (pos + 1) & m;
    fresh[pos] = (h & 0xffffffff00000000ULL) | static_cast<uint64_t>(g + 1);
  }
  slots_.swap(fresh);
  mask_ = m;
}

}  // namespace quiver::exec
