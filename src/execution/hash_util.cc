#include "execution/hash_util.h"

#include <xxhash.h>

#include <cstring>
#include <vector>

#include "functions/kernel_util.h"

namespace quiver::exec {

using kernels::StringAccess;
using kernels::ValidAccess;

namespace {

template <typename T>
void HashFixed(const VectorRef& v, int64_t n, uint64_t* hashes, bool combine) {
  kernels::DispatchFixed<T>(v, [&](auto get) {
    for (int64_t i = 0; i < n; ++i) {
      uint64_t bits = 0;
      const T x = get(i);
      if constexpr (sizeof(T) <= 8) {
        std::memcpy(&bits, &x, sizeof(T));
      } else {
        uint64_t parts[sizeof(T) / 8];
        std::memcpy(parts, &x, sizeof(T));
        bits = parts[0];
        for (size_t k = 1; k < sizeof(T) / 8; ++k) bits = CombineHash(MixHash(bits), parts[k]);
      }
      const uint64_t h = MixHash(bits + 0x9e3779b97f4a7c15ULL);
      hashes[i] = combine ? CombineHash(hashes[i], h) : h;
    }
  });
}

// Floats hash through their value as a double. -0.0 == 0.0 and all NaNs are
// equal: hash them alike.
template <typename T>
void HashFloating(const VectorRef& v, int64_t n, uint64_t* hashes, bool combine) {
  kernels::DispatchFixed<T>(v, [&](auto get) {
    for (int64_t i = 0; i < n; ++i) {
      double d = get(i);
      if (d == 0) d = 0;
      if (d != d) d = __builtin_nan("");
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      const uint64_t h = MixHash(bits);
      hashes[i] = combine ? CombineHash(hashes[i], h) : h;
    }
  });
}

void HashValues(const VectorRef& v, int64_t n, uint64_t* hashes, bool combine) {
  const TypeId id = v.array->type->id;
  switch (id) {
    case TypeId::kNull:
      for (int64_t i = 0; i < n; ++i) hashes[i] = combine ? CombineHash(hashes[i], kNullHash) : kNullHash;
      return;
    case TypeId::kBool: {
      kernels::BoolAccess get(v);
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t h = MixHash(get(i) ? 2 : 1);
        hashes[i] = combine ? CombineHash(hashes[i], h) : h;
      }
      break;
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      StringAccess get(v);
      for (int64_t i = 0; i < n; ++i) {
        const std::string_view s = get(i);
        const uint64_t h = XXH3_64bits(s.data(), s.size());
        hashes[i] = combine ? CombineHash(hashes[i], h) : h;
      }
      break;
    }
    case TypeId::kFloat:
      HashFloating<float>(v, n, hashes, combine);
      break;
    case TypeId::kDouble:
      HashFloating<double>(v, n, hashes, combine);
      break;
    default:
      switch (v.array->type->byte_width_of_values()) {
        case 2:
          HashFixed<int16_t>(v, n, hashes, combine);
          break;
        case 4:
          HashFixed<int32_t>(v, n, hashes, combine);
          break;
        case 8:
          HashFixed<int64_t>(v, n, hashes, combine);
          break;
        case 16:
          HashFixed<int128_t>(v, n, hashes, combine);
          break;
        default:
          break;
      }
      break;
  }
}

}  // namespace

void HashVector(const VectorRef& v, int64_t n, uint64_t* hashes, bool combine) {
  ValidAccess valid(v);
  if (valid.always_valid()) {
    HashValues(v, n, hashes, combine);
    return;
  }
  // Values under NULL slots are arbitrary: hash the column alone, give NULLs
  // one fixed hash, then fold in.
  thread_local std::vector<uint64_t> column;
  column.resize(static_cast<size_t>(n));
  HashValues(v, n, column.data(), false);
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t h = valid(i) ? column[static_cast<size_t>(i)] : kNullHash;
    hashes[i] = combine ? CombineHash(hashes[i], h) : h;
  }
}

namespace {

template <typename T>
void CompareFixed(const VectorRef& probe, const uint32_t* probe_rows, const ArrayData& build,
                  const uint32_t* build_rows, int64_t n, uint8_t* equal) {
  const T* p = probe.values<T>();
  const T* b = build.GetValues<T>(1);
  if (probe.constant) {
    const T x = LoadValue(p);
    for (int64_t k = 0; k < n; ++k) equal[k] &= x == LoadValue(b + build_rows[k]);
  } else if (probe.sel) {
    for (int64_t k = 0; k < n; ++k) equal[k] &= LoadValue(p + probe.sel[probe_rows[k]]) == LoadValue(b + build_rows[k]);
  } else {
    for (int64_t k = 0; k < n; ++k) equal[k] &= LoadValue(p + probe_rows[k]) == LoadValue(b + build_rows[k]);
  }
}

}  // namespace

void CompareRows(const VectorRef& probe, const uint32_t* probe_rows, const ArrayData& build,
                 const uint32_t* build_rows, int64_t n, bool nulls_equal, uint8_t* equal) {
  ValidAccess pv(probe);
  const bool probe_nulls = !pv.always_valid();
  const bool build_nulls = build.MayHaveNulls() && build.buffers[0] != nullptr;
  thread_local std::vector<uint8_t> before;
  if (probe_nulls || build_nulls) before.assign(equal, equal + n);
  const TypeId id = probe.array->type->id;
  switch (id) {
    case TypeId::kNull:
      for (int64_t k = 0; k < n; ++k) equal[k] &= nulls_equal;
      return;
    case TypeId::kBool: {
      kernels::BoolAccess get(probe);
      const uint8_t* bits = build.GetRaw<uint8_t>(1);
      for (int64_t k = 0; k < n; ++k) {
        equal[k] &= get(probe_rows[k]) == bit_util::GetBit(bits, build.offset + build_rows[k]);
      }
      break;
    }
    case TypeId::kString:
    case TypeId::kBinary: {
      StringAccess get(probe);
      const int32_t* offs = build.GetValues<int32_t>(1);
      const char* data = build.buffers[2] ? build.buffers[2]->data_as<char>() : "";
      for (int64_t k = 0; k < n; ++k) {
        if (!equal[k]) continue;
        const std::string_view a = get(probe_rows[k]);
        const uint32_t j = build_rows[k];
        const std::string_view b(data + offs[j], static_cast<size_t>(offs[j + 1] - offs[j]));
        equal[k] = a == b;
      }
      break;
    }
    case TypeId::kFloat: {
      const float* b = build.GetValues<float>(1);
      kernels::DispatchFixed<float>(probe, [&](auto get) {
        for (int64_t k = 0; k < n; ++k) {
          const float x = get(probe_rows[k]), y = b[build_rows[k]];
          equal[k] &= (x == y) || (x != x && y != y);
        }
      });
      break;
    }
    case TypeId::kDouble: {
      const double* b = build.GetValues<double>(1);
      kernels::DispatchFixed<double>(probe, [&](auto get) {
        for (int64_t k = 0; k < n; ++k) {
          const double x = get(probe_rows[k]), y = b[build_rows[k]];
          equal[k] &= (x == y) || (x != x && y != y);
        }
      });
      break;
    }
    default:
      switch (probe.array->type->byte_width_of_values()) {
        case 2:
          CompareFixed<int16_t>(probe, probe_rows, build, build_rows, n, equal);
          break;
        case 4:
          CompareFixed<int32_t>(probe, probe_rows, build, build_rows, n, equal);
          break;
        case 8:
          CompareFixed<int64_t>(probe, probe_rows, build, build_rows, n, equal);
          break;
        case 16:
          CompareFixed<int128_t>(probe, probe_rows, build, build_rows, n, equal);
          break;
        default:
          break;
      }
      break;
  }
  // NULLs: unequal to everything, or (nulls_equal) equal only to NULL.
  if (!probe_nulls && !build_nulls) return;
  for (int64_t k = 0; k < n; ++k) {
    const bool a = pv(probe_rows[k]);
    const bool b = !build_nulls || build.IsValid(build_rows[k]);
    if (a && b) continue;
    equal[k] = before[static_cast<size_t>(k)] && nulls_equal && !a && !b;
  }
}

bool AnyNull(const VectorRef& v, int64_t n) {
  ValidAccess valid(v);
  if (valid.always_valid()) return false;
  for (int64_t i = 0; i < n; ++i) {
    if (!valid(i)) return true;
  }
  return false;
}

}  // namespace quiver::exec
