// Row loops and argument readers shared by the json / jsonb function files
// (json_functions.cc: accessors and predicates; json_modify.cc: jsonb's
// modifiers). Private to functions/.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "functions/function.h"
#include "functions/kernel_util.h"

namespace quiver::json_internal {

using kernels::StringAccess;
using kernels::ValidAccess;

inline bool AllValid(const std::vector<ValidAccess>& valid, int64_t i) {
  for (const auto& v : valid) {
    if (!v(i)) return false;
  }
  return true;
}

// Rows with a NULL argument give NULL; others call fn(i, &value, &scratch),
// which returns false for NULL. `value` may point into the input or into
// `scratch`.
template <typename F>
Result<ArrayRef> StringRows(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                            const TypeRef& out_type, F fn) {
  kernels::StringOutput out(out_type, n, ctx.pool);
  std::vector<ValidAccess> valid(args.begin(), args.end());
  std::string scratch;
  for (int64_t i = 0; i < n; ++i) {
    std::string_view v;
    bool present = false;
    if (AllValid(valid, i)) {
      QUIVER_ASSIGN_OR_RAISE(present, fn(i, &v, &scratch));
    }
    QUIVER_RETURN_NOT_OK(present ? out.Append(v) : out.AppendNull());
  }
  return out.Finish();
}

// As StringRows for functions returning boolean or integer: fn(i) gives
// the value, or nullopt for NULL.
template <typename T, typename F>
Result<ArrayRef> FixedRows(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                           const TypeRef& out_type, F fn) {
  std::vector<ValidAccess> valid(args.begin(), args.end());
  QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, ctx.pool));
  std::shared_ptr<MutableBuffer> values;
  if constexpr (!std::is_same_v<T, bool>) {
    QUIVER_ASSIGN_OR_RAISE(values, kernels::AllocateValues(n, sizeof(T), ctx.pool));
  } else {
    QUIVER_ASSIGN_OR_RAISE(values, kernels::AllocateBitmap(n, ctx.pool));
  }
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    std::optional<T> r;
    if (AllValid(valid, i)) {
      QUIVER_ASSIGN_OR_RAISE(r, fn(i));
    }
    if (!r) {
      ++nulls;
      continue;
    }
    bit_util::SetBit(bits->mutable_data(), i);
    if constexpr (std::is_same_v<T, bool>) {
      if (*r) bit_util::SetBit(values->mutable_data(), i);
    } else {
      values->mutable_data_as<T>()[i] = *r;
    }
  }
  kernels::FixedOutput out;
  out.values = std::move(values);
  out.null_count = nulls;
  if (nulls > 0) out.validity = std::move(bits);
  return kernels::FinishFixed(out_type, n, std::move(out));
}

inline int64_t ReadInt32(const VectorRef& v, int64_t i) { return v.values<int32_t>()[v.index(i)]; }

struct PathArg {
  std::vector<std::string_view> steps;
  std::vector<bool> nulls;
};

// A text[] argument's elements, row by row (NULL elements flagged).
class PathReader {
 public:
  explicit PathReader(const VectorRef& v)
      : ref_(v), off_(v.array->GetValues<int32_t>(1)),
        child_{v.array->children[0].get(), nullptr, false} {}

  const PathArg* Get(int64_t i) {
    const int64_t s = ref_.index(i);
    kernels::StringAccess str(child_);
    kernels::ValidAccess valid(child_);
    path_.steps.clear();
    path_.nulls.clear();
    for (int32_t k = off_[s]; k < off_[s + 1]; ++k) {
      const bool is_null = !valid(k);
      path_.nulls.push_back(is_null);
      path_.steps.push_back(is_null ? std::string_view() : str(k));
    }
    return &path_;
  }

 private:
  VectorRef ref_;
  const int32_t* off_;
  VectorRef child_;
  PathArg path_;
};

}  // namespace quiver::json_internal
