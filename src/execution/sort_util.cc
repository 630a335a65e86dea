#include "execution/sort_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/thread_pool.h"
#include "execution/execution_context.h"
#include "vector/data_chunk.h"
#include "vector/value.h"

namespace quiver::exec {

namespace {

enum Kind { kI16, kI32, kI64, kI128, kF32, kF64, kStr, kBool, kMdn, kNullType };

Kind KindOf(const DataType& t) {
  switch (t.id) {
    case TypeId::kInt16:
      return kI16;
    case TypeId::kInt32:
    case TypeId::kDate32:
      return kI32;
    case TypeId::kInt64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
      return kI64;
    case TypeId::kDecimal128:
      return kI128;
    case TypeId::kFloat:
      return kF32;
    case TypeId::kDouble:
      return kF64;
    case TypeId::kString:
    case TypeId::kBinary:
      return kStr;
    case TypeId::kBool:
      return kBool;
    case TypeId::kIntervalMonthDayNano:
      return kMdn;
    default:
      return kNullType;
  }
}

template <typename T>
inline int Cmp(T a, T b) {
  return (a > b) - (a < b);
}

inline int CmpDouble(double a, double b) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return Cmp(na, nb);
  return Cmp(a, b);
}

}  // namespace

RowComparator::RowComparator(const std::vector<ArrayRef>& columns, const std::vector<SortKey>& keys) {
  for (const auto& k : keys) {
    const ArrayData* a = columns[static_cast<size_t>(k.column)].get();
    keys_.push_back({a, k.descending, k.nulls_first, KindOf(*a->type)});
  }
}

int RowComparator::Compare(uint32_t i, uint32_t j) const {
  for (const Key& k : keys_) {
    const ArrayData& a = *k.array;
    const bool vi = a.IsValid(i), vj = a.IsValid(j);
    if (!vi || !vj) {
      if (vi == vj) continue;
      // NULLs sort first or last regardless of direction.
      return (!vi) == k.nulls_first ? -1 : 1;
    }
    int c = 0;
    switch (k.kind) {
      case kI16:
        c = Cmp(a.GetValues<int16_t>(1)[i], a.GetValues<int16_t>(1)[j]);
        break;
      case kI32:
        c = Cmp(a.GetValues<int32_t>(1)[i], a.GetValues<int32_t>(1)[j]);
        break;
      case kI64:
        c = Cmp(a.GetValues<int64_t>(1)[i], a.GetValues<int64_t>(1)[j]);
        break;
      case kI128:
        c = Cmp(LoadValue(a.GetValues<int128_t>(1) + i), LoadValue(a.GetValues<int128_t>(1) + j));
        break;
      case kF32:
        c = CmpDouble(a.GetValues<float>(1)[i], a.GetValues<float>(1)[j]);
        break;
      case kF64:
        c = CmpDouble(a.GetValues<double>(1)[i], a.GetValues<double>(1)[j]);
        break;
      case kStr: {
        const std::string_view x = a.GetString(i), y = a.GetString(j);
        const int r = x.compare(y);
        c = (r > 0) - (r < 0);
        break;
      }
      case kBool:
        c = Cmp(bit_util::GetBit(a.GetRaw<uint8_t>(1), a.offset + i), bit_util::GetBit(a.GetRaw<uint8_t>(1), a.offset + j));
        break;
      case kMdn: {
        const Value x = ValueFromArray(a, i), y = ValueFromArray(a, j);
        c = x.Compare(y);
        break;
      }
      default:
        c = 0;
    }
    if (c != 0) return k.descending ? -c : c;
  }
  return 0;
}

namespace {

using u128 = unsigned __int128;

// Normalized keys: each row's sort keys encoded into the top kPrefixBytes
// bytes of a 128-bit integer so that unsigned integer order is the sort
// order (big-endian values with the sign bit flipped, descending keys
// inverted, a NULL byte first where a column has NULLs), the row index in
// the low 32 bits (so ties keep the input order and every value is
// distinct). Sorting these is a sort of plain integers in one array, with
// none of RowComparator's per-key dispatch and random reads. A key that
// does not fit (a string, a long key list) is cut; rows whose prefixes tie
// are then ordered by RowComparator.
constexpr int kPrefixBytes = 12;

// The order-preserving unsigned images of floating-point values.
inline uint64_t FloatBits(double d) {
  if (std::isnan(d)) return ~uint64_t{0};  // NaN sorts above every number, as in PostgreSQL
  if (d == 0) d = 0;                         // -0.0 equals 0.0
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return (b >> 63) ? ~b : b | (uint64_t{1} << 63);
}

inline uint32_t FloatBits(float f) {
  if (std::isnan(f)) return ~uint32_t{0};
  if (f == 0) f = 0;
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return (b >> 31) ? ~b : b | (uint32_t{1} << 31);
}

struct PrefixEncoder {
  std::vector<u128>* rows;
  int64_t n;
  int used = 0;          // bytes of the prefix filled so far
  bool complete = true;  // every key fully encoded
  int key = 0;           // the key being encoded
  int full_keys = 0;     // the leading keys encoded in full
  int owner[kPrefixBytes] = {};  // prefix byte -> the key it encodes

  int Remaining() const { return kPrefixBytes - used; }

  // Puts `width` bytes (the low bytes of `v`) of every row at the next
  // position, cut to the bytes that remain.
  template <typename F>
  void Put(int width, bool descending, F value_of) {
    const int take = std::min(width, Remaining());
    if (take < width) complete = false;
    for (int b = used; b < used + take; ++b) owner[b] = key;
    const int shift = 8 * (16 - used - take);
    const u128 mask = take >= 16 ? ~u128{0} : (u128{1} << (8 * take)) - 1;
    u128* out = rows->data();
    for (int64_t i = 0; i < n; ++i) {
      u128 v = value_of(i);
      if (take < width) v >>= 8 * (width - take);
      if (descending) v = ~v;
      out[i] |= (v & mask) << shift;
    }
    used += take;
  }

  // Integers as their distance from the column's minimum, in as few bytes
  // as its range needs (a key of dates, ids and line numbers fits the
  // prefix whole, so ties need no second look).
  template <typename T>
  void PutInteger(const T* v, const ArrayData& a, bool nulls, bool descending) {
    int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
    for (int64_t i = 0; i < n; ++i) {
      if (nulls && !a.IsValid(i)) continue;
      lo = std::min<int64_t>(lo, v[i]);
      hi = std::max<int64_t>(hi, v[i]);
    }
    if (lo > hi) lo = hi = 0;  // all NULL
    const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    int width = 1;
    while (width < 8 && (range >> (8 * width)) != 0) ++width;
    Put(width, descending, [&](int64_t i) -> u128 {
      return nulls && !a.IsValid(i) ? 0 : static_cast<uint64_t>(v[i]) - static_cast<uint64_t>(lo);
    });
  }

  // Returns false once nothing more can be encoded.
  bool Add(const ArrayData& a, const SortKey& k) {
    if (Remaining() <= 0) {
      complete = false;
      return false;
    }
    const bool nulls = a.MayHaveNulls() && a.GetNullCount() > 0;
    if (nulls) {
      // NULLs first or last whatever the direction.
      Put(1, false, [&](int64_t i) -> u128 { return a.IsValid(i) == k.nulls_first ? 1 : 0; });
      if (Remaining() <= 0) {
        complete = false;
        return false;
      }
    }
    auto put = [&](int width, auto get) {
      Put(width, k.descending, [&](int64_t i) -> u128 { return nulls && !a.IsValid(i) ? 0 : get(i); });
    };
    switch (KindOf(*a.type)) {
      case kI16:
        PutInteger(a.GetValues<int16_t>(1), a, nulls, k.descending);
        break;
      case kI32:
        PutInteger(a.GetValues<int32_t>(1), a, nulls, k.descending);
        break;
      case kI64:
        PutInteger(a.GetValues<int64_t>(1), a, nulls, k.descending);
        break;
      case kI128: {
        const int128_t* v = a.GetValues<int128_t>(1);
        put(16, [v](int64_t i) {
          return static_cast<u128>(LoadValue(v + i)) ^ (u128{1} << 127);
        });
        break;
      }
      case kF32: {
        const float* v = a.GetValues<float>(1);
        put(4, [v](int64_t i) { return FloatBits(v[i]); });
        break;
      }
      case kF64: {
        const double* v = a.GetValues<double>(1);
        put(8, [v](int64_t i) { return FloatBits(v[i]); });
        break;
      }
      case kBool: {
        const uint8_t* bits = a.GetRaw<uint8_t>(1);
        const int64_t off = a.offset;
        put(1, [bits, off](int64_t i) { return bit_util::GetBit(bits, off + i) ? 1 : 0; });
        break;
      }
      case kStr: {
        // The first bytes, zero-padded: a prefix order consistent with byte
        // order; equal prefixes are settled by the full comparison.
        const int width = Remaining();
        put(width, [&a, width](int64_t i) {
          const std::string_view s = a.GetString(i);
          u128 v = 0;
          for (int b = 0; b < width; ++b) {
            v = (v << 8) | (b < static_cast<int>(s.size()) ? static_cast<uint8_t>(s[b]) : 0);
          }
          return v;
        });
        complete = false;
        return false;
      }
      default:  // intervals and the rest: compared in full
        complete = false;
        return false;
    }
    return true;
  }
};

// Sorts [first, last) by `less`: slices on the thread pool, then pairwise
// merges, checking for a cancel between them.
template <typename T, typename Less>
Status ParallelSort(T* first, T* last, Less less, const ExecutionContext* ctx) {
  // Rows per slice sorted between two cancellation checks (a few ms each).
  constexpr int64_t kSliceRows = int64_t{1} << 16;
  const int64_t n = last - first;
  auto check = [ctx]() -> Status {
    return ctx != nullptr && ctx->cancelled() ? ctx->CancelStatus() : Status::OK();
  };
  if (n < 100000) {
    std::sort(first, last, less);
    return Status::OK();
  }
  // At least one slice per thread, and slices small enough that a cancel is seen soon.
  const int64_t threads = std::max(1, DefaultParallelism());
  const int64_t slices = std::max(threads, (n + kSliceRows - 1) / kSliceRows);
  std::vector<int64_t> bounds;
  for (int64_t s = 0; s <= slices; ++s) bounds.push_back(n * s / slices);
  QUIVER_RETURN_NOT_OK(ParallelFor(slices, [&](int64_t s) -> Status {
    QUIVER_RETURN_NOT_OK(check());
    std::sort(first + bounds[static_cast<size_t>(s)], first + bounds[static_cast<size_t>(s + 1)], less);
    return Status::OK();
  }));
  while (bounds.size() > 2) {
    std::vector<int64_t> next{0};
    const size_t pairs = (bounds.size() - 1) / 2;
    QUIVER_RETURN_NOT_OK(ParallelFor(static_cast<int64_t>(pairs), [&](int64_t p) -> Status {
      QUIVER_RETURN_NOT_OK(check());
      const size_t a = static_cast<size_t>(p) * 2;
      std::inplace_merge(first + bounds[a], first + bounds[a + 1], first + bounds[a + 2], less);
      return Status::OK();
    }));
    for (size_t p = 0; p < pairs; ++p) next.push_back(bounds[p * 2 + 2]);
    if ((bounds.size() - 1) % 2 == 1) next.push_back(bounds.back());
    bounds.swap(next);
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<uint32_t>> SortPermutation(const std::vector<ArrayRef>& columns,
                                              const std::vector<SortKey>& keys, int64_t n,
                                              const ExecutionContext* ctx,
                                              std::vector<uint8_t>* first_difference) {
  std::vector<uint32_t> perm(static_cast<size_t>(n));
  RowComparator cmp(columns, keys);
  auto less = [&](uint32_t a, uint32_t b) {
    const int c = cmp.Compare(a, b);
    return c < 0 || (c == 0 && a < b);
  };
  // Normalized prefixes, encoded column by column.
  std::vector<u128> rows(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) rows[static_cast<size_t>(i)] = static_cast<uint32_t>(i);
  PrefixEncoder enc{&rows, n};
  for (const SortKey& k : keys) {
    const bool whole = enc.Add(*columns[static_cast<size_t>(k.column)], k);
    if (whole && enc.complete) enc.full_keys = enc.key + 1;
    if (!whole) break;
    ++enc.key;
  }
  QUIVER_RETURN_NOT_OK(ParallelSort(rows.data(), rows.data() + n, std::less<u128>(), ctx));
  for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = static_cast<uint32_t>(rows[static_cast<size_t>(i)]);
  if (!enc.complete) {
    // Runs of rows whose prefixes tie: ordered by the full comparison.
    int64_t start = 0;
    for (int64_t i = 1; i <= n; ++i) {
      if (i < n && (rows[static_cast<size_t>(i)] >> 32) == (rows[static_cast<size_t>(start)] >> 32)) continue;
      if (i - start > 1) {
        QUIVER_RETURN_NOT_OK(ParallelSort(perm.data() + start, perm.data() + i, less, ctx));
      }
      start = i;
    }
  }
  if (first_difference != nullptr) {
    // Where neighbours' prefixes differ, the first differing byte names the
    // key; where they tie, the keys encoded in full are equal and the rest
    // are compared one by one.
    const auto nkeys = static_cast<uint8_t>(keys.size());
    std::vector<RowComparator> one_key;
    for (const SortKey& k : keys) one_key.emplace_back(columns, std::vector<SortKey>{k});
    first_difference->assign(static_cast<size_t>(n), nkeys);
    for (int64_t i = 1; i < n; ++i) {
      const u128 x = (rows[static_cast<size_t>(i)] ^ rows[static_cast<size_t>(i - 1)]) >> 32;
      uint8_t d = nkeys;
      if (x != 0) {
        const auto hi = static_cast<uint64_t>(x >> 64), lo = static_cast<uint64_t>(x);
        // The prefix is the top 12 bytes: x holds them in its low 96 bits.
        const int lead = hi != 0 ? __builtin_clzll(hi) - 32 : 32 + __builtin_clzll(lo);
        d = static_cast<uint8_t>(enc.owner[lead / 8]);
      } else {
        const uint32_t a = perm[static_cast<size_t>(i - 1)], b = perm[static_cast<size_t>(i)];
        for (size_t k = static_cast<size_t>(enc.full_keys); k < keys.size(); ++k) {
          if (one_key[k].Compare(a, b) != 0) {
            d = static_cast<uint8_t>(k);
            break;
          }
        }
      }
      (*first_difference)[static_cast<size_t>(i)] = d;
    }
  }
  return perm;
}

}  // namespace quiver::exec
