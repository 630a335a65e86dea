#include "execution/runtime_filter.h"

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

template <typename T>
int64_t ApplyTyped(const RuntimeFilter& f, const VectorRef& v, int64_t n, const uint32_t* in, uint32_t* out) {
  const T* values = v.values<T>();
  const uint32_t* sel = v.sel;
  kernels::ValidAccess valid(v);
  const bool nulls = !valid.always_valid();
  const uint64_t range = static_cast<uint64_t>(f.max - f.min);
  const uint64_t* bits = f.bitmap.empty() ? nullptr : f.bitmap.data();
  const int64_t lo = f.min;
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t slot = sel ? sel[i] : i;
    const uint64_t off = static_cast<uint64_t>(static_cast<int64_t>(values[slot]) - lo);
    bool pass = off <= range;
    if (bits != nullptr) pass = pass && ((bits[off >> 6] >> (off & 63)) & 1);
    if (nulls) pass = pass && valid(i);
    out[k] = in ? in[i] : static_cast<uint32_t>(i);
    k += pass;
  }
  return k;
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
  return fmt::format("runtime filter [{}, {}]{}", min, max, bitmap.empty() ? "" : " + bitmap");
}

}  // namespace quiver::exec
