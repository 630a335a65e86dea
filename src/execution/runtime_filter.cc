#include "execution/runtime_filter.h"

#include "execution/hash_util.h"
#include "functions/kernel_util.h"

namespace quiver::exec {

bool RuntimeFilterSupports(const DataType& t) {
  switch (t.id) {
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDate32:
      return true;
    default:
      return false;
  }
}

namespace {

// Word index from the high bits, two bit positions from the low 12.
inline uint64_t BloomHash(int64_t v) { return MixHash(static_cast<uint64_t>(v) + 0x9e3779b97f4a7c15ULL); }
inline uint64_t BloomBits(uint64_t h) { return (uint64_t{1} << (h & 63)) | (uint64_t{1} << ((h >> 6) & 63)); }

}  // namespace

void RuntimeFilter::AddKeys(const std::vector<int64_t>& keys) {
  if (keys.empty()) return;
  const uint64_t range = static_cast<uint64_t>(max - min) + 1;
  // A bitmap when the range is at most 64x the key count (and 256 Mbit).
  if (range <= static_cast<uint64_t>(keys.size()) * 64 && range <= (uint64_t{1} << 28)) {
    bitmap.assign((range + 63) / 64, 0);
    for (int64_t v : keys) {
      const uint64_t off = static_cast<uint64_t>(v - min);
      bitmap[off >> 6] |= uint64_t{1} << (off & 63);
    }
    return;
  }
  // A Bloom filter: only worth it when it rejects most rows cheaply and
  // fits the caches reasonably (up to 16 MiB).
  if (keys.size() > (size_t{1} << 23)) return;
  uint64_t words = 1024;  // at least 8 KiB: small key sets get few false positives
  while (words * 64 < keys.size() * 16) words <<= 1;
  bloom.assign(words, 0);
  const int shift = 64 - __builtin_ctzll(words);
  for (int64_t v : keys) {
    const uint64_t h = BloomHash(v);
    bloom[h >> shift] |= BloomBits(h);
  }
}

namespace {

// The filter loop without branches on the data (a filter passing a random
// fifth of the rows would mispredict every few rows): `kSel` reads through
// the selection, `kBits` / `kBloom` test the bitmap / Bloom filter.
template <typename T, bool kSel, bool kBits, bool kBloom>
int64_t FilterLoop(const RuntimeFilter& f, const T* values, int64_t n, const uint32_t* in, uint32_t* out) {
  const uint64_t range = static_cast<uint64_t>(f.max - f.min);
  const uint64_t* bits = f.bitmap.data();
  const uint64_t* bloom = f.bloom.data();
  const int shift = kBloom ? 64 - __builtin_ctzll(f.bloom.size()) : 0;
  const int64_t lo = f.min;
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t slot = kSel ? in[i] : static_cast<uint32_t>(i);
    const int64_t x = static_cast<int64_t>(values[slot]);
    const uint64_t off = static_cast<uint64_t>(x - lo);
    const uint64_t in_range = off <= range ? 1 : 0;
    uint64_t pass = in_range;
    if constexpr (kBits) {
      const uint64_t o = in_range ? off : 0;  // a conditional move: no read out of the bitmap
      pass &= bits[o >> 6] >> (o & 63);
    }
    if constexpr (kBloom) {
      const uint64_t h = BloomHash(x);
      const uint64_t want = BloomBits(h);
      pass &= (bloom[h >> shift] & want) == want ? 1 : 0;
    }
    out[k] = slot;
    k += static_cast<int64_t>(pass & 1);
  }
  return k;
}

template <typename T, bool kSel>
int64_t FilterDispatch(const RuntimeFilter& f, const T* values, int64_t n, const uint32_t* in, uint32_t* out) {
  if (!f.bitmap.empty()) return FilterLoop<T, kSel, true, false>(f, values, n, in, out);
  if (!f.bloom.empty()) return FilterLoop<T, kSel, false, true>(f, values, n, in, out);
  return FilterLoop<T, kSel, false, false>(f, values, n, in, out);
}

// `v` is the column read through `in` (v.sel == in, or both null).
template <typename T>
int64_t ApplyTyped(const RuntimeFilter& f, const VectorRef& v, int64_t n, const uint32_t* in, uint32_t* out) {
  const T* values = v.values<T>();
  const int64_t k = in != nullptr ? FilterDispatch<T, true>(f, values, n, in, out)
                                  : FilterDispatch<T, false>(f, values, n, in, out);
  kernels::ValidAccess valid(v);
  if (valid.always_valid()) return k;
  // NULL keys never match: drop the survivors whose slot is NULL.
  VectorRef dense{v.array, nullptr, false};
  kernels::ValidAccess by_slot(dense);
  int64_t kept = 0;
  for (int64_t i = 0; i < k; ++i) {
    out[kept] = out[i];
    kept += by_slot(out[i]) ? 1 : 0;
  }
  return kept;
}

}  // namespace

int64_t RuntimeFilter::Apply(const VectorRef& v, int64_t n, const uint32_t* in, uint32_t* out) const {
  if (empty) return 0;
  switch (v.array->type->id) {
    case TypeId::kInt16:
      return ApplyTyped<int16_t>(*this, v, n, in, out);
    case TypeId::kInt32:
    case TypeId::kDate32:
      return ApplyTyped<int32_t>(*this, v, n, in, out);
    default:
      return ApplyTyped<int64_t>(*this, v, n, in, out);
  }
}

bool RuntimeFilter::MayMatch(const Value& lo, const Value& hi) const {
  if (empty) return false;
  if (lo.is_null() || hi.is_null()) return true;
  return !(hi.integer() < min || lo.integer() > max);
}

std::string RuntimeFilter::ToString() const {
  if (!ready) return "runtime filter (not built)";
  if (empty) return "runtime filter: empty";
  return fmt::format("runtime filter [{}, {}]{}", min, max,
                     !bitmap.empty() ? " + bitmap" : !bloom.empty() ? " + bloom" : "");
}

}  // namespace quiver::exec
