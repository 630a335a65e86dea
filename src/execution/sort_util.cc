#include "execution/sort_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>

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

Result<std::vector<uint32_t>> SortPermutation(const std::vector<ArrayRef>& columns,
                                              const std::vector<SortKey>& keys, int64_t n,
                                              const ExecutionContext* ctx) {
  // Rows per slice sorted between two cancellation checks (a few ms each).
  constexpr int64_t kSliceRows = int64_t{1} << 16;
  std::vector<uint32_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = static_cast<uint32_t>(i);
  RowComparator cmp(columns, keys);
  auto less = [&](uint32_t a, uint32_t b) {
    const int c = cmp.Compare(a, b);
    return c < 0 || (c == 0 && a < b);
  };
  auto check = [ctx]() -> Status {
    return ctx != nullptr && ctx->cancelled() ? ctx->CancelStatus() : Status::OK();
  };
  if (n < 100000) {
    std::sort(perm.begin(), perm.end(), less);
    return perm;
  }
  // Sort slices in parallel, then merge them pairwise. At least one slice per
  // thread, and slices small enough that a cancel is seen soon.
  const int64_t threads = std::max(1, DefaultParallelism());
  const int64_t slices = std::max(threads, (n + kSliceRows - 1) / kSliceRows);
  std::vector<int64_t> bounds;
  for (int64_t s = 0; s <= slices; ++s) bounds.push_back(n * s / slices);
  QUIVER_RETURN_NOT_OK(ParallelFor(slices, [&](int64_t s) -> Status {
    QUIVER_RETURN_NOT_OK(check());
    std::sort(perm.begin() + bounds[static_cast<size_t>(s)], perm.begin() + bounds[static_cast<size_t>(s + 1)], less);
    return Status::OK();
  }));
  while (bounds.size() > 2) {
    std::vector<int64_t> next{0};
    const size_t pairs = (bounds.size() - 1) / 2;
    QUIVER_RETURN_NOT_OK(ParallelFor(static_cast<int64_t>(pairs), [&](int64_t p) -> Status {
      QUIVER_RETURN_NOT_OK(check());
      const size_t a = static_cast<size_t>(p) * 2;
      std::inplace_merge(perm.begin() + bounds[a], perm.begin() + bounds[a + 1], perm.begin() + bounds[a + 2], less);
      return Status::OK();
    }));
    for (size_t p = 0; p < pairs; ++p) next.push_back(bounds[p * 2 + 2]);
    if ((bounds.size() - 1) % 2 == 1) next.push_back(bounds.back());
    bounds.swap(next);
  }
  return perm;
}

}  // namespace quiver::exec
