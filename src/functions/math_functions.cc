// Math functions: abs round trunc ceil/ceiling floor sign sqrt cbrt power/pow
// exp ln log log10 mod pi random degrees radians, with PostgreSQL's result
// types (round(numeric, n) keeps numeric; on double precision it stays
// double precision).
#include <cmath>
#include <random>

#include "functions/cast.h"
#include "functions/function.h"
#include "functions/kernel_util.h"
#include "vector/sql_type.h"

namespace quiver {
namespace {

using kernels::ReadInt;

using kernels::DispatchFixed;

template <typename T, typename R, typename F>
Result<ArrayRef> Unary(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                       const TypeRef& out_type, F f) {
  QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, args, n, ctx.pool));
  R* dst = out.data<R>();
  Status st;
  DispatchFixed<T>(args[0], [&](auto get) {
    for (int64_t i = 0; i < n && st.ok(); ++i) {
      Status s = f(get(i), &dst[i]);
      if (!s.ok() && out.IsValid(i)) st = s;
    }
  });
  QUIVER_RETURN_NOT_OK(st);
  return kernels::FinishFixed(out_type, n, std::move(out));
}

template <typename T>
ScalarKernel AbsKernel(const char* range_error) {
  return [range_error](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                       const TypeRef& out) {
    return Unary<T, T>(ctx, args, n, out, [&](T v, T* r) -> Status {
      if constexpr (std::is_integral_v<T> || std::is_same_v<T, int128_t>) {
        if (v == std::numeric_limits<T>::min())
          return Status::Invalid("{}", range_error).WithSqlState(sqlstate::kNumericValueOutOfRange);
      }
      *r = v < 0 ? static_cast<T>(-v) : v;
      return Status::OK();
    });
  };
}

ScalarKernel DoubleFn(double (*fn)(double), const char* domain_error = nullptr,
                      bool (*bad)(double) = nullptr) {
  return [fn, domain_error, bad](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                                 const TypeRef& out) {
    return Unary<double, double>(ctx, args, n, out, [&](double v, double* r) -> Status {
      if (bad != nullptr && bad(v)) {
        // PostgreSQL's codes: 2201E for a logarithm's argument, 2201F otherwise
        // (square root of a negative number).
        const bool log = std::string_view(domain_error).find("logarithm") != std::string_view::npos;
        return Status::Invalid("{}", domain_error)
            .WithSqlState(log ? sqlstate::kInvalidArgumentForLogarithm
                              : sqlstate::kInvalidArgumentForPowerFunction);
      }
      *r = fn(v);
      return Status::OK();
    });
  };
}

int128_t ReadDecimal(const VectorRef& v, int64_t i) { return LoadValue(v.values<int128_t>() + v.index(i)); }

// round/trunc/ceil/floor of numeric to `digits` places: the result keeps
// the input's type with scale max(0, digits) (as PostgreSQL's display scale).
enum class RoundMode { kRound, kTrunc, kCeil, kFloor };

int128_t RoundDecimal(int128_t v, int scale, int digits, RoundMode mode) {
  if (digits >= scale) return v;
  const int drop = scale - digits;
  if (drop > 38) return 0;
  const int128_t f = Pow10Int128(drop);
  int128_t q = v / f, r = v % f;
  switch (mode) {
    case RoundMode::kRound:
      if ((r < 0 ? -r : r) * 2 >= f) q += v < 0 ? -1 : 1;
      break;
    case RoundMode::kTrunc:
      break;
    case RoundMode::kCeil:
      if (r > 0) q += 1;
      break;
    case RoundMode::kFloor:
      if (r < 0) q -= 1;
      break;
  }
  return q * f;
}

ScalarKernel DecimalRound(RoundMode mode, bool with_digits) {
  return [mode, with_digits](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                             const TypeRef& out_type) -> Result<ArrayRef> {
    QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, args, n, ctx.pool));
    const int in_scale = args[0].array->type->scale;
    const int out_scale = out_type->scale;
    int128_t* dst = out.data<int128_t>();
    for (int64_t i = 0; i < n; ++i) {
      const int digits = with_digits ? static_cast<int>(std::clamp<int64_t>(ReadInt(args[1], i), -38, 38)) : 0;
      const int128_t rounded = RoundDecimal(ReadDecimal(args[0], i), in_scale, digits, mode);
      bool overflow;
      dst[i] = RescaleDecimal(rounded, in_scale, out_scale, &overflow);
    }
    return kernels::FinishFixed(out_type, n, std::move(out));
  };
}

// The scale of round(numeric, k) depends on k: known only for constants.
Status BindRoundDigits(std::vector<TypeRef>* args, TypeRef* ret) {
  const TypeRef& t = (*args)[0];
  *ret = t;  // refined by the binder when the digit count is a constant
  return Status::OK();
}

double RoundHalfEven(double v) { return std::nearbyint(v); }

}  // namespace

void RegisterMathFunctions(FunctionRegistry* r) {
  r->Add({"abs", {int32()}, nullptr, int32(), nullptr, AbsKernel<int32_t>("integer out of range")});
  r->Add({"abs", {int64()}, nullptr, int64(), nullptr, AbsKernel<int64_t>("bigint out of range")});
  r->Add({"abs", {int16()}, nullptr, int16(), nullptr, AbsKernel<int16_t>("smallint out of range")});
  r->Add({"abs", {AnyDecimal()}, nullptr, nullptr,
          [](std::vector<TypeRef>* a, TypeRef* ret) {
            *ret = (*a)[0];
            return Status::OK();
          },
          AbsKernel<int128_t>("numeric out of range")});
  r->Add({"abs", {float64()}, nullptr, float64(), nullptr, AbsKernel<double>("")});
  r->Add({"abs", {float32()}, nullptr, float32(), nullptr, AbsKernel<float>("")});

  struct RoundFn {
    const char* name;
    RoundMode mode;
    double (*fn)(double);
  };
  for (const RoundFn& f : {RoundFn{"round", RoundMode::kRound, &std::round},
                           RoundFn{"trunc", RoundMode::kTrunc, &std::trunc},
                           RoundFn{"ceil", RoundMode::kCeil, &std::ceil},
                           RoundFn{"ceiling", RoundMode::kCeil, &std::ceil},
                           RoundFn{"floor", RoundMode::kFloor, &std::floor}}) {
    r->Add({f.name, {AnyDecimal()}, nullptr, nullptr,
            [](std::vector<TypeRef>* a, TypeRef* ret) {
              *ret = decimal128((*a)[0]->precision, 0);
              return Status::OK();
            },
            DecimalRound(f.mode, false)});
    // round(double precision) rounds half to even (rint), as PostgreSQL.
    r->Add({f.name, {float64()}, nullptr, float64(), nullptr,
            DoubleFn(f.mode == RoundMode::kRound ? &RoundHalfEven : f.fn)});
    if (f.mode == RoundMode::kRound || f.mode == RoundMode::kTrunc) {
      r->Add({f.name, {AnyDecimal(), int32()}, nullptr, nullptr, BindRoundDigits,
              DecimalRound(f.mode, true)});
    }
  }
  r->Add({"sign", {float64()}, nullptr, float64(), nullptr, DoubleFn([](double v) {
            return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0;
          })});
  r->Add({"sign", {AnyDecimal()}, nullptr, nullptr,
          [](std::vector<TypeRef>* a, TypeRef* ret) {
            *ret = decimal128(1, 0);
            return Status::OK();
          },
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            return Unary<int128_t, int128_t>(ctx, args, n, out, [](int128_t v, int128_t* o) {
              *o = v > 0 ? 1 : v < 0 ? -1 : 0;
              return Status::OK();
            });
          }});
  r->Add({"sqrt", {float64()}, nullptr, float64(), nullptr,
          DoubleFn([](double v) { return std::sqrt(v); },
                   "cannot take square root of a negative number", [](double v) { return v < 0; })});
  r->Add({"cbrt", {float64()}, nullptr, float64(), nullptr, DoubleFn([](double v) { return std::cbrt(v); })});
  r->Add({"exp", {float64()}, nullptr, float64(), nullptr, DoubleFn([](double v) { return std::exp(v); })});
  r->Add({"ln", {float64()}, nullptr, float64(), nullptr,
          DoubleFn([](double v) { return std::log(v); }, "cannot take logarithm of zero or a negative number",
                   [](double v) { return v <= 0; })});
  for (const char* name : {"log", "log10"}) {
    r->Add({name, {float64()}, nullptr, float64(), nullptr,
            DoubleFn([](double v) { return std::log10(v); },
                     "cannot take logarithm of zero or a negative number", [](double v) { return v <= 0; })});
  }
  // log(b, x): the logarithm of x to base b (PostgreSQL has it for numeric;
  // here in double precision like the one-argument forms).
  r->Add({"log", {float64(), float64()}, nullptr, float64(), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out)
              -> Result<ArrayRef> {
            return kernels::StrictFixedRows<double>(ctx.pool, args, n, out, [&](int64_t i) -> Result<double> {
              const double b = args[0].values<double>()[args[0].index(i)];
              const double x = args[1].values<double>()[args[1].index(i)];
              if (b <= 0 || x <= 0) {
                return Status::Invalid("cannot take logarithm of zero or a negative number")
                    .WithSqlState(sqlstate::kInvalidArgumentForLogarithm);
              }
              if (b == 1) return Status::Invalid("division by zero").WithSqlState(sqlstate::kDivisionByZero);
              const double r = std::log(x) / std::log(b);
              // An exact power (log(10, 1000)) answers the exact integer, as
              // PostgreSQL's numeric log does, not 2.9999999999999996.
              const double k = std::nearbyint(r);
              return std::abs(k) < 1024 && std::pow(b, k) == x ? k : r;
            });
          }});
  r->Add({"degrees", {float64()}, nullptr, float64(), nullptr, DoubleFn([](double v) { return v * 180 / M_PI; })});
  r->Add({"radians", {float64()}, nullptr, float64(), nullptr, DoubleFn([](double v) { return v * M_PI / 180; })});
  for (const char* name : {"power", "pow"}) {
    r->Add({name, {float64(), float64()}, nullptr, float64(), nullptr,
            [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out)
                -> Result<ArrayRef> {
              QUIVER_ASSIGN_OR_RAISE(auto o, kernels::MakeFixedOutput(out, args, n, ctx.pool));
              double* dst = o.data<double>();
              for (int64_t i = 0; i < n; ++i) {
                const double a = args[0].values<double>()[args[0].index(i)];
                const double b = args[1].values<double>()[args[1].index(i)];
                if (o.IsValid(i) && a == 0 && b < 0) {
                  return Status::Invalid("zero raised to a negative power is undefined")
                      .WithSqlState(sqlstate::kInvalidArgumentForPowerFunction);
                }
                if (o.IsValid(i) && a < 0 && std::floor(b) != b) {
                  return Status::Invalid(
                             "a negative number raised to a non-integer power yields a complex "
                             "result")
                      .WithSqlState(sqlstate::kInvalidArgumentForPowerFunction);
                }
                dst[i] = std::pow(a, b);
              }
              return kernels::FinishFixed(out, n, std::move(o));
            }});
  }
  // mod(a, b) is the % operator.
  for (const TypeRef& t : {int32(), int64(), int16()}) {
    r->Add({"mod", {t, t}, nullptr, t, nullptr,
            [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out)
                -> Result<ArrayRef> {
              QUIVER_ASSIGN_OR_RAISE(auto bound, FunctionRegistry::Get().ResolveScalar(
                                                     "%", {{out, false}, {out, false}}, true));
              return bound.function->kernel(ctx, args, n, out);
            }});
  }
  r->Add({"pi", {}, nullptr, float64(), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>&, int64_t n, const TypeRef& out) {
            return MakeArrayFromValue(Value::Double(M_PI), n, ctx.pool);
          }});
  ScalarFunction random{"random", {}, nullptr, float64(), nullptr,
                        [](KernelContext& ctx, const std::vector<VectorRef>&, int64_t n,
                           const TypeRef& out) -> Result<ArrayRef> {
                          thread_local std::mt19937_64 gen(std::random_device{}());
                          std::uniform_real_distribution<double> dist(0.0, 1.0);
                          QUIVER_ASSIGN_OR_RAISE(auto o, kernels::MakeFixedOutput(out, {}, n, ctx.pool));
                          for (int64_t i = 0; i < n; ++i) o.data<double>()[i] = dist(gen);
                          return kernels::FinishFixed(out, n, std::move(o));
                        }};
  random.is_volatile = true;
  r->Add(random);
}

}  // namespace quiver
