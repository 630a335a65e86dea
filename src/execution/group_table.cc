#include "execution/group_table.h"

#include <cstring>

namespace quiver::exec {

namespace {
// --- key serialization -----------------------------------------------------------

// Bytes one value of `v` (row i) takes when serialized.
inline size_t ValueBytes(const VectorRef& v, const kernels::ValidAccess& valid, int width, int64_t i) {
  if (!valid(i)) return 1;
  if (width > 0) return 1 + static_cast<size_t>(width);
  if (width == 0) return 2;  // bool
  const int64_t s = v.index(i);
  const int32_t* o = v.array->GetValues<int32_t>(1);
  return 5 + static_cast<size_t>(o[s + 1] - o[s]);
}

// width: byte width for fixed types, 0 for bool, -1 for strings.
int WidthOf(const DataType& t) {
  if (t.id == TypeId::kBool) return 0;
  if (t.id == TypeId::kString || t.id == TypeId::kBinary) return -1;
  if (t.id == TypeId::kNull) return 0;
  return t.byte_width_of_values();
}

inline uint8_t* WriteValue(const VectorRef& v, const kernels::ValidAccess& valid, int width, int64_t i, uint8_t* p) {
  if (!valid(i)) {
    *p++ = 0;
    return p;
  }
  *p++ = 1;
  const int64_t s = v.index(i);
  if (width > 0) {
    std::memcpy(p, v.array->GetRaw<uint8_t>(1) + (v.array->offset + s) * width, static_cast<size_t>(width));
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

}  // namespace

void SerializeRows(const std::vector<VectorRef>& cols, int64_t n, std::vector<uint8_t>* out,
                   std::vector<uint32_t>* offsets) {
  offsets->resize(static_cast<size_t>(n + 1));
  std::vector<kernels::ValidAccess> valid;
  std::vector<int> widths;
  for (const auto& c : cols) {
    valid.emplace_back(c);
    widths.push_back(WidthOf(*c.array->type));
  }
  uint32_t total = 0;
  (*offsets)[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    size_t sz = 0;
    for (size_t c = 0; c < cols.size(); ++c) sz += ValueBytes(cols[c], valid[c], widths[c], i);
    total += static_cast<uint32_t>(sz);
    (*offsets)[static_cast<size_t>(i + 1)] = total;
  }
  out->resize(total);
  for (int64_t i = 0; i < n; ++i) {
    uint8_t* p = out->data() + (*offsets)[static_cast<size_t>(i)];
    for (size_t c = 0; c < cols.size(); ++c) p = WriteValue(cols[c], valid[c], widths[c], i, p);
  }
}

Status ReadValue(const DataType& type, const uint8_t** p, ArrayBuilder* builder) {
  const uint8_t present = *(*p)++;
  if (!present) return builder->AppendNull();
  const int width = WidthOf(type);
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
  // Fixed width: append through a one-value view.
  ArrayRef one = ArrayData::Make(builder->type(), 1, {nullptr, std::make_shared<Buffer>(*p, width)}, 0);
  *p += width;
  return builder->AppendArraySlice(*one, 0, 1);
}

GroupTable::GroupTable(const std::vector<AggregateSpec>* aggs, const std::vector<int>* offsets, int row_size)
    : aggs_(aggs), offsets_(offsets), row_size_(row_size) {
  slots_.assign(1024, 0);
  mask_ = 1023;
}

GroupTable::~GroupTable() { DestroyStates(); }

int64_t GroupTable::FindOrCreate(const uint8_t* key, uint32_t len, uint64_t h) {
  uint64_t pos = h & mask_;
  for (;;) {
    const uint32_t slot = slots_[pos];
    if (slot == 0) break;
    const int64_t g = slot - 1;
    if (hashes_[static_cast<size_t>(g)] == h) {
      uint32_t glen;
      const uint8_t* gkey = this->key(g, &glen);
      if (glen == len && (len == 0 || std::memcmp(gkey, key, len) == 0)) return g;
    }
    pos = (pos + 1) & mask_;
  }
  const int64_t g = size();
  slots_[pos] = static_cast<uint32_t>(g + 1);
  hashes_.push_back(h);
  if (key_offsets_.empty()) key_offsets_.push_back(0);
  if (len) keys_.insert(keys_.end(), key, key + len);
  key_offsets_.push_back(static_cast<uint32_t>(keys_.size()));
  states_.resize(static_cast<size_t>((g + 1) * row_size_), 0);
  uint8_t* st = state(g);
  if (aggs_) {
    for (size_t a = 0; a < aggs_->size(); ++a) (*aggs_)[a].function->init(st + (*offsets_)[a]);
  }
  if (static_cast<uint64_t>(size()) * 2 > mask_) Grow();
  return g;
}

int64_t GroupTable::MemoryBytes() const {
  return static_cast<int64_t>(slots_.capacity() * 4 + hashes_.capacity() * 8 + keys_.capacity() +
                              key_offsets_.capacity() * 4 + states_.capacity());
}

void GroupTable::DestroyStates() {
  if (states_.empty()) return;  // already destroyed (Finalize, then the destructor)
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
  std::vector<uint32_t> fresh(cap, 0);
  const uint64_t m = cap - 1;
  for (int64_t g = 0; g < size(); ++g) {
    uint64_t pos = hashes_[static_cast<size_t>(g)] & m;
    while (fresh[pos] != 0) pos = (pos + 1) & m;
    fresh[pos] = static_cast<uint32_t>(g + 1);
  }
  slots_.swap(fresh);
  mask_ = m;
}

}  // namespace quiver::exec
