// Comparison operators = <> < <= > >= and IS [NOT] DISTINCT FROM over every
// engine type. Each has a value kernel (boolean output) and a select kernel
// (positions of TRUE rows) that filters use to avoid materializing booleans.
//
// Orderings: numbers numerically, NaN equal to itself and above every other
// float (PostgreSQL); text and bytea bytewise (the "C" collation); intervals
// by their length with 30-day months; booleans false < true.
#include <cmath>
#include <cstring>

#include "functions/function.h"
#include "functions/kernel_util.h"
#include "vector/sql_type.h"

namespace quiver {
namespace {

using kernels::BoolAccess;
using kernels::DispatchFixed;
using kernels::StringAccess;
using kernels::ValidAccess;

enum class Cmp { kEq, kNe, kLt, kLe, kGt, kGe };

template <Cmp C, typename T>
inline bool Apply(const T& a, const T& b) {
  if constexpr (C == Cmp::kEq) return a == b;
  if constexpr (C == Cmp::kNe) return !(a == b);
  if constexpr (C == Cmp::kLt) return a < b;
  if constexpr (C == Cmp::kLe) return !(b < a);
  if constexpr (C == Cmp::kGt) return b < a;
  return !(a < b);
}

// Wrappers giving floats and intervals PostgreSQL's total order.
template <typename F>
struct PgFloat {
  F v;
  bool operator==(const PgFloat& o) const {
    return (std::isnan(v) && std::isnan(o.v)) || v == o.v;
  }
  bool operator<(const PgFloat& o) const {
    if (std::isnan(v)) return false;
    if (std::isnan(o.v)) return true;
    return v < o.v;
  }
};

struct Mdn {
  int32_t months;
  int32_t days;
  int64_t nanos;
  int128_t span() const {
    return (static_cast<int128_t>(months) * 30 + days) * 86400000000000LL + nanos;
  }
  bool operator==(const Mdn& o) const { return span() == o.span(); }
  bool operator<(const Mdn& o) const { return span() < o.span(); }
};

template <typename T, typename Storage = T>
struct FixedGetter {
  template <typename F>
  static auto Dispatch(const VectorRef& v, F&& f) {
    if constexpr (std::is_same_v<T, Storage>) {
      return DispatchFixed<Storage>(v, f);
    } else {
      return DispatchFixed<Storage>(v, [&](auto get) { return f([get](int64_t i) { return T{get(i)}; }); });
    }
  }
};

struct StringGetter {
  template <typename F>
  static auto Dispatch(const VectorRef& v, F&& f) {
    return f(StringAccess(v));
  }
};

struct BoolGetter {
  template <typename F>
  static auto Dispatch(const VectorRef& v, F&& f) {
    return f(BoolAccess(v));
  }
};

template <Cmp C, typename Getter>
ScalarKernel CompareKernel() {
  return [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
            const TypeRef& out_type) -> Result<ArrayRef> {
    QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, args, n, ctx.pool));
    uint8_t* bits = out.values->mutable_data();
    Getter::Dispatch(args[0], [&](auto ga) {
      Getter::Dispatch(args[1], [&](auto gb) {
        // Eight results per output byte.
        int64_t i = 0;
        for (; i + 8 <= n; i += 8) {
          uint8_t byte = 0;
          for (int k = 0; k < 8; ++k) byte |= static_cast<uint8_t>(Apply<C>(ga(i + k), gb(i + k))) << k;
          bits[i >> 3] = byte;
        }
        for (; i < n; ++i) {
          if (Apply<C>(ga(i), gb(i))) bit_util::SetBit(bits, i);
        }
        return 0;
      });
      return 0;
    });
    return kernels::FinishFixed(out_type, n, std::move(out));
  };
}

template <Cmp C, typename Getter>
SelectKernel CompareSelect() {
  return [](KernelContext&, const std::vector<VectorRef>& args, int64_t n,
            uint32_t* rows) -> Result<int64_t> {
    ValidAccess va(args[0]), vb(args[1]);
    const bool check_nulls = !va.always_valid() || !vb.always_valid();
    int64_t count = 0;
    Getter::Dispatch(args[0], [&](auto ga) {
      Getter::Dispatch(args[1], [&](auto gb) {
        if (!check_nulls) {
          // Branch-free: always write, advance on match.
          for (int64_t i = 0; i < n; ++i) {
            rows[count] = static_cast<uint32_t>(i);
            count += Apply<C>(ga(i), gb(i));
          }
        } else {
          for (int64_t i = 0; i < n; ++i) {
            rows[count] = static_cast<uint32_t>(i);
            count += va(i) & vb(i) & Apply<C>(ga(i), gb(i));
          }
        }
        return 0;
      });
      return 0;
    });
    return count;
  };
}

// IS [NOT] DISTINCT FROM: NULLs compare equal to each other; never NULL.
template <bool kDistinct, typename Getter>
ScalarKernel DistinctKernel() {
  return [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
            const TypeRef& out_type) -> Result<ArrayRef> {
    QUIVER_ASSIGN_OR_RAISE(auto bits_buf, kernels::AllocateBitmap(n, ctx.pool));
    uint8_t* bits = bits_buf->mutable_data();
    ValidAccess va(args[0]), vb(args[1]);
    Getter::Dispatch(args[0], [&](auto ga) {
      Getter::Dispatch(args[1], [&](auto gb) {
        for (int64_t i = 0; i < n; ++i) {
          const bool a_ok = va(i), b_ok = vb(i);
          bool same;
          if (!a_ok || !b_ok) {
            same = a_ok == b_ok;
          } else {
            same = Apply<Cmp::kEq>(ga(i), gb(i));
          }
          if (same != kDistinct) bit_util::SetBit(bits, i);
        }
        return 0;
      });
      return 0;
    });
    return ArrayData::Make(out_type, n, {nullptr, std::move(bits_buf)}, 0);
  };
}

const char* CmpName(Cmp c) {
  switch (c) {
    case Cmp::kEq:
      return "=";
    case Cmp::kNe:
      return "<>";
    case Cmp::kLt:
      return "<";
    case Cmp::kLe:
      return "<=";
    case Cmp::kGt:
      return ">";
    case Cmp::kGe:
      return ">=";
  }
  return "?";
}

template <Cmp C, typename Getter>
void AddComparison(FunctionRegistry* r, const TypeRef& t, const BindFunction& bind) {
  ScalarFunction f{CmpName(C), {t, t}, nullptr, boolean(), bind, CompareKernel<C, Getter>()};
  f.select = CompareSelect<C, Getter>();
  r->Add(std::move(f));
}

template <typename Getter>
void AddAll(FunctionRegistry* r, const TypeRef& t, const BindFunction& bind = nullptr) {
  AddComparison<Cmp::kEq, Getter>(r, t, bind);
  AddComparison<Cmp::kNe, Getter>(r, t, bind);
  AddComparison<Cmp::kLt, Getter>(r, t, bind);
  AddComparison<Cmp::kLe, Getter>(r, t, bind);
  AddComparison<Cmp::kGt, Getter>(r, t, bind);
  AddComparison<Cmp::kGe, Getter>(r, t, bind);
  ScalarFunction d{"is distinct from", {t, t}, nullptr, boolean(), bind,
                   DistinctKernel<true, Getter>()};
  d.strict = false;
  r->Add(d);
  ScalarFunction nd{"is not distinct from", {t, t}, nullptr, boolean(), bind,
                    DistinctKernel<false, Getter>()};
  nd.strict = false;
  r->Add(nd);
}

// numeric = numeric: both sides to a common scale.
Status BindDecimalCompare(std::vector<TypeRef>* args, TypeRef*) {
  const TypeRef& a = (*args)[0];
  const TypeRef& b = (*args)[1];
  const int s = std::max(a->scale, b->scale);
  const int digits = std::max(a->precision - a->scale, b->precision - b->scale);
  const TypeRef common = decimal128(std::min(kMaxDecimalPrecision, digits + s), s);
  (*args)[0] = common;
  (*args)[1] = common;
  return Status::OK();
}

// timestamp vs timestamptz compare as instants (sessions are UTC).
Status BindTimestampCompare(std::vector<TypeRef>* args, TypeRef*) {
  if (!(*args)[0]->timezone.empty() || !(*args)[1]->timezone.empty()) {
    (*args)[0] = timestamp(TimeUnit::kMicro, "UTC");
    (*args)[1] = (*args)[0];
  }
  return Status::OK();
}

}  // namespace

void RegisterComparisonFunctions(FunctionRegistry* r) {
  AddAll<FixedGetter<int32_t>>(r, int32());
  AddAll<FixedGetter<int64_t>>(r, int64());
  AddAll<FixedGetter<int16_t>>(r, int16());
  AddAll<FixedGetter<int128_t>>(r, AnyDecimal(), BindDecimalCompare);
  AddAll<FixedGetter<PgFloat<double>, double>>(r, float64());
  AddAll<FixedGetter<PgFloat<float>, float>>(r, float32());
  AddAll<StringGetter>(r, utf8());
  AddAll<StringGetter>(r, binary());
  AddAll<BoolGetter>(r, boolean());
  AddAll<FixedGetter<int32_t>>(r, date32());
  AddAll<FixedGetter<int64_t>>(r, time64(TimeUnit::kMicro));
  AddAll<FixedGetter<int64_t>>(r, timestamp(TimeUnit::kMicro), BindTimestampCompare);
  AddAll<FixedGetter<Mdn>>(r, month_day_nano_interval());
}

}  // namespace quiver
