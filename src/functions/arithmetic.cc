// Arithmetic operators: + - * / % and unary minus over integers, floats,
// numeric, dates, timestamps and intervals, with PostgreSQL's result types
// and errors ("integer out of range", "division by zero", "value out of
// range: overflow").
//
// numeric result types (precision capped at 38):
//   a + b, a - b   scale max(s1, s2), precision max(p1-s1, p2-s2) + scale + 1
//   a * b          scale s1 + s2, precision p1 + p2 (past 38: scale
//                  max(s1, s2), exact products only)
//   a / b          scale max(s1, s2, 20), precision 38; each row's value is
//                  PostgreSQL's (pg_numeric.h), refused where it does not fit
//   a % b          scale max(s1, s2)
#include <algorithm>
#include <cmath>
#include <limits>

#include "common/calendar.h"
#include "functions/cast.h"
#include "functions/function.h"
#include "functions/kernel_util.h"
#include "functions/pg_numeric.h"
#include "vector/sql_type.h"

namespace quiver {
namespace {

using kernels::DispatchFixed;

const char* RangeError(TypeId id) {
  switch (id) {
    case TypeId::kInt16:
      return "smallint out of range";
    case TypeId::kInt32:
      return "integer out of range";
    case TypeId::kInt64:
      return "bigint out of range";
    default:
      return "value out of range: overflow";
  }
}

enum class Op { kAdd, kSub, kMul, kDiv, kMod };

// Runs op over every row; op returns 0 when fine, else an error code that is
// reported only if the row is valid (1 = out of range, 2 = division by
// zero, 3 = underflow).
template <typename A, typename B, typename R, typename F>
Result<ArrayRef> BinaryLoop(const std::vector<VectorRef>& args, int64_t n, const TypeRef& out_type,
                            MemoryPool* pool, F op) {
  QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, args, n, pool));
  R* dst = out.data<R>();
  int bad = 0;
  DispatchFixed<A>(args[0], [&](auto ga) {
    DispatchFixed<B>(args[1], [&](auto gb) {
      for (int64_t i = 0; i < n; ++i) bad |= op(ga(i), gb(i), &dst[i]);
    });
  });
  if (bad != 0) {
    // Find the first valid row that failed and report it.
    int code = 0;
    DispatchFixed<A>(args[0], [&](auto ga) {
      DispatchFixed<B>(args[1], [&](auto gb) {
        for (int64_t i = 0; i < n && code == 0; ++i) {
          R tmp;
          const int c = op(ga(i), gb(i), &tmp);
          if (c != 0 && out.IsValid(i)) code = c;
        }
      });
    });
    if (code == 2)
      return Status::Invalid("division by zero").WithSqlState(sqlstate::kDivisionByZero);
    if (code == 3)
      return Status::Invalid("value out of range: underflow")
          .WithSqlState(sqlstate::kNumericValueOutOfRange);
    if (code == 1)
      return Status::Invalid("{}", RangeError(out_type->id))
          .WithSqlState(sqlstate::kNumericValueOutOfRange);
  }
  return kernels::FinishFixed(out_type, n, std::move(out));
}

template <typename T>
ScalarKernel IntegerKernel(Op op) {
  return [op](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
              const TypeRef& out) -> Result<ArrayRef> {
    switch (op) {
      case Op::kAdd:
        return BinaryLoop<T, T, T>(args, n, out, ctx.pool, [](T a, T b, T* r) {
          return __builtin_add_overflow(a, b, r) ? 1 : 0;
        });
      case Op::kSub:
        return BinaryLoop<T, T, T>(args, n, out, ctx.pool, [](T a, T b, T* r) {
          return __builtin_sub_overflow(a, b, r) ? 1 : 0;
        });
      case Op::kMul:
        return BinaryLoop<T, T, T>(args, n, out, ctx.pool, [](T a, T b, T* r) {
          return __builtin_mul_overflow(a, b, r) ? 1 : 0;
        });
      case Op::kDiv:
        return BinaryLoop<T, T, T>(args, n, out, ctx.pool, [](T a, T b, T* r) {
          if (b == 0) {
            *r = 0;
            return 2;
          }
          if (b == -1) {
            if (a == std::numeric_limits<T>::min()) {
              *r = 0;
              return 1;
            }
            *r = static_cast<T>(-a);
            return 0;
          }
          *r = static_cast<T>(a / b);
          return 0;
        });
      case Op::kMod:
        return BinaryLoop<T, T, T>(args, n, out, ctx.pool, [](T a, T b, T* r) {
          if (b == 0) {
            *r = 0;
            return 2;
          }
          *r = b == -1 ? T{0} : static_cast<T>(a % b);
          return 0;
        });
    }
    return Status::Invalid("bad operator");
  };
}

template <typename T>
ScalarKernel FloatKernel(Op op) {
  return [op](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
              const TypeRef& out) -> Result<ArrayRef> {
    auto check = [](T a, T b, T r) -> int {
      if (std::isinf(r) && !std::isinf(a) && !std::isinf(b)) return 1;
      return 0;
    };
    switch (op) {
      case Op::kAdd:
        return BinaryLoop<T, T, T>(args, n, out, ctx.pool, [&](T a, T b, T* r) {
          *r = a + b;
          return check(a, b, *r);
        });
      case Op::kSub:
        return BinaryLoop<T, T, T>(args, n, out, ctx.pool, [&](T a, T b, T* r) {
          *r = a - b;
          return check(a, b, *r);
        });
      case Op::kMul:
        return BinaryLoop<T, T, T>(args, n, out, ctx.pool, [&](T a, T b, T* r) {
          *r = a * b;
          if (*r == 0 && a != 0 && b != 0) return 3;
          return check(a, b, *r);
        });
      case Op::kDiv:
        return BinaryLoop<T, T, T>(args, n, out, ctx.pool, [&](T a, T b, T* r) {
          if (b == 0) {
            *r = 0;
            return 2;
          }
          *r = a / b;
          if (*r == 0 && a != 0 && !std::isinf(b)) return 3;
          return check(a, b, *r);
        });
      case Op::kMod:
        return BinaryLoop<T, T, T>(args, n, out, ctx.pool, [&](T a, T b, T* r) {
          if (b == 0) {
            *r = 0;
            return 2;
          }
          *r = std::fmod(a, b);
          return 0;
        });
    }
    return Status::Invalid("bad operator");
  };
}

const int128_t kDecimalLimit = Pow10Int128(kMaxDecimalPrecision);

bool DecimalOutOfRange(int128_t v) { return v >= kDecimalLimit || v <= -kDecimalLimit; }

// numeric / numeric as PostgreSQL's numeric_div: each row's quotient at its
// own select_div_scale, stored at the column's scale (pg_numeric.h).
Result<ArrayRef> DecimalDivide(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                               const TypeRef& out_type) {
  const int s1 = args[0].array->type->scale, s2 = args[1].array->type->scale;
  const int rs = out_type->scale;
  QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, args, n, ctx.pool));
  int128_t* dst = out.data<int128_t>();
  int64_t bad = -1;
  DispatchFixed<int128_t>(args[0], [&](auto ga) {
    DispatchFixed<int128_t>(args[1], [&](auto gb) {
      for (int64_t i = 0; i < n; ++i) {
        if (pg_numeric::Divide(ga(i), s1, gb(i), s2, rs, &dst[i]) != pg_numeric::kOk && bad < 0 &&
            out.IsValid(i)) {
          bad = i;
        }
      }
    });
  });
  if (bad >= 0) {
    Status st;
    DispatchFixed<int128_t>(args[0], [&](auto ga) {
      DispatchFixed<int128_t>(args[1], [&](auto gb) {
        st = pg_numeric::DivideError(ga(bad), s1, gb(bad), s2, rs, "division");
      });
    });
    return st;
  }
  return kernels::FinishFixed(out_type, n, std::move(out));
}

// numeric * numeric: PostgreSQL's exact product (scale s1 + s2), stored at
// the column's scale (smaller when s1 + s2 passes 38; then the digits
// dropped must be zeros). Factors of up to 18 digits multiply in one
// 64x64->128 step; the rest go through pg_numeric::Multiply.
Result<ArrayRef> DecimalMultiply(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                                 const TypeRef& out_type) {
  const int product_scale = args[0].array->type->scale + args[1].array->type->scale;
  const int rs = out_type->scale;
  QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, args, n, ctx.pool));
  int128_t* dst = out.data<int128_t>();
  int64_t bad = -1;
  DispatchFixed<int128_t>(args[0], [&](auto ga) {
    DispatchFixed<int128_t>(args[1], [&](auto gb) {
      for (int64_t i = 0; i < n; ++i) {
        const int128_t a = ga(i), b = gb(i);
        if (product_scale == rs) {
          if (static_cast<int64_t>(a) == a && static_cast<int64_t>(b) == b) {
            dst[i] = static_cast<int128_t>(static_cast<int64_t>(a)) * static_cast<int64_t>(b);
            if (!DecimalOutOfRange(dst[i])) continue;
          } else if (!__builtin_mul_overflow(a, b, &dst[i]) && !DecimalOutOfRange(dst[i])) {
            continue;
          }
        }
        if (pg_numeric::Multiply(a, b, product_scale, rs, &dst[i]) != pg_numeric::kOk && bad < 0 &&
            out.IsValid(i)) {
          bad = i;
        }
      }
    });
  });
  if (bad >= 0) {
    Status st;
    DispatchFixed<int128_t>(args[0], [&](auto ga) {
      DispatchFixed<int128_t>(args[1], [&](auto gb) {
        st = pg_numeric::MultiplyError(ga(bad), gb(bad), product_scale, rs);
      });
    });
    return st;
  }
  return kernels::FinishFixed(out_type, n, std::move(out));
}

ScalarKernel DecimalKernel(Op op) {
  return [op](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
              const TypeRef& out) -> Result<ArrayRef> {
    Result<ArrayRef> r = Status::Invalid("bad operator");
    switch (op) {
      case Op::kAdd:
        r = BinaryLoop<int128_t, int128_t, int128_t>(args, n, out, ctx.pool,
                                                     [](int128_t a, int128_t b, int128_t* o) {
                                                       return (__builtin_add_overflow(a, b, o) ||
                                                               DecimalOutOfRange(*o))
                                                                  ? 1
                                                                  : 0;
                                                     });
        break;
      case Op::kSub:
        r = BinaryLoop<int128_t, int128_t, int128_t>(args, n, out, ctx.pool,
                                                     [](int128_t a, int128_t b, int128_t* o) {
                                                       return (__builtin_sub_overflow(a, b, o) ||
                                                               DecimalOutOfRange(*o))
                                                                  ? 1
                                                                  : 0;
                                                     });
        break;
      case Op::kMul:
        return DecimalMultiply(ctx, args, n, out);
      case Op::kDiv:
        return DecimalDivide(ctx, args, n, out);
      case Op::kMod:
        r = BinaryLoop<int128_t, int128_t, int128_t>(args, n, out, ctx.pool,
                                                     [](int128_t a, int128_t b, int128_t* o) {
                                                       if (b == 0) {
                                                         *o = 0;
                                                         return 2;
                                                       }
                                                       *o = a % b;
                                                       return 0;
                                                     });
        break;
    }
    if (!r.ok() && r.status().message() == "value out of range: overflow") {
      return Status::Invalid("numeric value out of range")
          .WithSqlState(sqlstate::kNumericValueOutOfRange);
    }
    return r;
  };
}

Status BindDecimal(Op op, std::vector<TypeRef>* args, TypeRef* ret) {
  const int p1 = (*args)[0]->precision, s1 = (*args)[0]->scale;
  const int p2 = (*args)[1]->precision, s2 = (*args)[1]->scale;
  auto cap = [](int p) { return std::min(p, kMaxDecimalPrecision); };
  switch (op) {
    case Op::kAdd:
    case Op::kSub:
    case Op::kMod: {
      const int s = std::max(s1, s2);
      const int int_digits = std::max(p1 - s1, p2 - s2);
      const int p = cap(int_digits + s + (op == Op::kMod ? 0 : 1));
      (*args)[0] = decimal128(cap(p1 - s1 + s), s);
      (*args)[1] = decimal128(cap(p2 - s2 + s), s);
      *ret = decimal128(std::max(p, s), s);
      return Status::OK();
    }
    case Op::kMul: {
      // PostgreSQL's product has scale s1 + s2; past 38 Quiver keeps the
      // larger input scale and requires the digits dropped to be zeros.
      if (s1 + s2 <= kMaxDecimalPrecision) {
        *ret = decimal128(std::max(cap(p1 + p2), s1 + s2), s1 + s2);
      } else {
        *ret = decimal128(kMaxDecimalPrecision, std::max(s1, s2));
      }
      return Status::OK();
    }
    case Op::kDiv: {
      const int s = std::min(std::max({s1, s2, pg_numeric::kResultScale}), kMaxDecimalPrecision);
      *ret = decimal128(kMaxDecimalPrecision, s);
      return Status::OK();
    }
  }
  return Status::OK();
}

const char* OpName(Op op) {
  switch (op) {
    case Op::kAdd:
      return "+";
    case Op::kSub:
      return "-";
    case Op::kMul:
      return "*";
    case Op::kDiv:
      return "/";
    case Op::kMod:
      return "%";
  }
  return "?";
}

// --- unary minus -------------------------------------------------------------

template <typename T>
ScalarKernel NegateKernel() {
  return [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
            const TypeRef& out_type) -> Result<ArrayRef> {
    QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, args, n, ctx.pool));
    T* dst = out.data<T>();
    bool bad = false;
    DispatchFixed<T>(args[0], [&](auto get) {
      for (int64_t i = 0; i < n; ++i) {
        const T v = get(i);
        if constexpr (std::is_integral_v<T> || std::is_same_v<T, int128_t>) {
          if (v == std::numeric_limits<T>::min() && out.IsValid(i)) bad = true;
          dst[i] = static_cast<T>(-v);
        } else {
          dst[i] = -v;
        }
      }
    });
    if (bad)
      return Status::Invalid("{}", RangeError(out_type->id))
          .WithSqlState(sqlstate::kNumericValueOutOfRange);
    return kernels::FinishFixed(out_type, n, std::move(out));
  };
}

// --- dates, timestamps, intervals --------------------------------------------

struct Mdn {
  int32_t months;
  int32_t days;
  int64_t nanos;
};
static_assert(sizeof(Mdn) == 16);

// timestamp + interval as PostgreSQL does it: months (clamping the day to
// the month's length), then days, then the time part.
int64_t AddInterval(int64_t ts, const Mdn& iv, int sign) {
  if (iv.months != 0) {
    const auto [days, tod] = SplitDays(ts, kMicrosPerDay);
    const CivilDate date = CivilFromDays(days);
    const FloorDivided year_month =
        FloorDivMod(date.year * 12 + (date.month - 1) + static_cast<int64_t>(sign) * iv.months, 12);
    const int64_t y = year_month.quot;
    const auto m = static_cast<unsigned>(year_month.rem + 1);
    const unsigned d = std::min(date.day, DaysInMonth(y, m));
    ts = DaysFromCivil(y, m, d) * kMicrosPerDay + tod;
  }
  return ts + sign * (static_cast<int64_t>(iv.days) * kMicrosPerDay + iv.nanos / 1000);
}

ScalarKernel DatePlusInt(int sign) {
  return [sign](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                const TypeRef& out) -> Result<ArrayRef> {
    return BinaryLoop<int32_t, int32_t, int32_t>(args, n, out, ctx.pool,
                                                 [sign](int32_t d, int32_t k, int32_t* r) {
                                                   return __builtin_add_overflow(d, sign * k, r)
                                                              ? 1
                                                              : 0;
                                                 });
  };
}

ScalarKernel TemporalPlusInterval(int sign, bool date_input) {
  return [sign, date_input](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                            const TypeRef& out) -> Result<ArrayRef> {
    if (date_input) {
      return BinaryLoop<int32_t, Mdn, int64_t>(args, n, out, ctx.pool,
                                               [sign](int32_t d, Mdn iv, int64_t* r) {
                                                 *r = AddInterval(d * kMicrosPerDay, iv, sign);
                                                 return 0;
                                               });
    }
    return BinaryLoop<int64_t, Mdn, int64_t>(args, n, out, ctx.pool,
                                             [sign](int64_t ts, Mdn iv, int64_t* r) {
                                               *r = AddInterval(ts, iv, sign);
                                               return 0;
                                             });
  };
}

// Swaps arguments: interval + timestamp.
ScalarKernel Swapped(ScalarKernel k) {
  return [k](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
             const TypeRef& out) { return k(ctx, {args[1], args[0]}, n, out); };
}

Mdn JustifyMicros(int64_t micros) {
  // timestamp - timestamp gives days and a time of day, as PostgreSQL's
  // justify_hours does.
  Mdn r{0, static_cast<int32_t>(micros / kMicrosPerDay), (micros % kMicrosPerDay) * 1000};
  return r;
}

void RegisterIntervalOps(FunctionRegistry* r) {
  const TypeRef iv = month_day_nano_interval();
  r->Add({"+", {iv, iv}, nullptr, iv, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            return BinaryLoop<Mdn, Mdn, Mdn>(args, n, out, ctx.pool, [](Mdn a, Mdn b, Mdn* o) {
              *o = {a.months + b.months, a.days + b.days, a.nanos + b.nanos};
              return 0;
            });
          }});
  r->Add({"-", {iv, iv}, nullptr, iv, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            return BinaryLoop<Mdn, Mdn, Mdn>(args, n, out, ctx.pool, [](Mdn a, Mdn b, Mdn* o) {
              *o = {a.months - b.months, a.days - b.days, a.nanos - b.nanos};
              return 0;
            });
          }});
  r->Add({"-", {iv}, nullptr, iv, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out)
              -> Result<ArrayRef> {
            QUIVER_ASSIGN_OR_RAISE(auto o, kernels::MakeFixedOutput(out, args, n, ctx.pool));
            DispatchFixed<Mdn>(args[0], [&](auto get) {
              for (int64_t i = 0; i < n; ++i) {
                const Mdn v = get(i);
                o.data<Mdn>()[i] = {-v.months, -v.days, -v.nanos};
              }
            });
            return kernels::FinishFixed(out, n, std::move(o));
          }});
  auto scale = [](bool divide) {
    return [divide](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                    const TypeRef& out) {
      return BinaryLoop<Mdn, double, Mdn>(args, n, out, ctx.pool, [divide](Mdn a, double f, Mdn* o) {
        if (divide) {
          if (f == 0) return 2;
          f = 1 / f;
        }
        // Fractional months and days cascade down, as in PostgreSQL.
        const double months = a.months * f;
        const double whole_months = std::trunc(months);
        const double days = a.days * f + (months - whole_months) * 30;
        const double whole_days = std::trunc(days);
        const double nanos = static_cast<double>(a.nanos) * f + (days - whole_days) * 86400e9;
        *o = {static_cast<int32_t>(whole_months), static_cast<int32_t>(whole_days),
              static_cast<int64_t>(std::llround(nanos / 1000)) * 1000};
        return 0;
      });
    };
  };
  r->Add({"*", {iv, float64()}, nullptr, iv, nullptr, scale(false)});
  r->Add({"*", {float64(), iv}, nullptr, iv, nullptr, Swapped(scale(false))});
  r->Add({"/", {iv, float64()}, nullptr, iv, nullptr, scale(true)});
}

void RegisterTemporalOps(FunctionRegistry* r) {
  const TypeRef date = date32();
  const TypeRef ts = timestamp(TimeUnit::kMicro);
  const TypeRef tstz = timestamp(TimeUnit::kMicro, "UTC");
  const TypeRef iv = month_day_nano_interval();
  const TypeRef time = time64(TimeUnit::kMicro);
  r->Add({"+", {date, int32()}, nullptr, date, nullptr, DatePlusInt(1)});
  r->Add({"+", {int32(), date}, nullptr, date, nullptr, Swapped(DatePlusInt(1))});
  r->Add({"-", {date, int32()}, nullptr, date, nullptr, DatePlusInt(-1)});
  r->Add({"-", {date, date}, nullptr, int32(), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            return BinaryLoop<int32_t, int32_t, int32_t>(
                args, n, out, ctx.pool, [](int32_t a, int32_t b, int32_t* o) {
                  return __builtin_sub_overflow(a, b, o) ? 1 : 0;
                });
          }});
  r->Add({"+", {date, iv}, nullptr, ts, nullptr, TemporalPlusInterval(1, true)});
  r->Add({"+", {iv, date}, nullptr, ts, nullptr, Swapped(TemporalPlusInterval(1, true))});
  r->Add({"-", {date, iv}, nullptr, ts, nullptr, TemporalPlusInterval(-1, true)});
  for (const TypeRef& t : {ts, tstz}) {
    r->Add({"+", {t, iv}, nullptr, t, nullptr, TemporalPlusInterval(1, false)});
    r->Add({"+", {iv, t}, nullptr, t, nullptr, Swapped(TemporalPlusInterval(1, false))});
    r->Add({"-", {t, iv}, nullptr, t, nullptr, TemporalPlusInterval(-1, false)});
    r->Add({"-", {t, t}, nullptr, iv, nullptr,
            [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
               const TypeRef& out) {
              return BinaryLoop<int64_t, int64_t, Mdn>(args, n, out, ctx.pool,
                                                       [](int64_t a, int64_t b, Mdn* o) {
                                                         *o = JustifyMicros(a - b);
                                                         return 0;
                                                       });
            }});
  }
  r->Add({"+", {date, time}, nullptr, ts, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            return BinaryLoop<int32_t, int64_t, int64_t>(args, n, out, ctx.pool,
                                                         [](int32_t d, int64_t t, int64_t* o) {
                                                           *o = d * kMicrosPerDay + t;
                                                           return 0;
                                                         });
          }});
  auto time_plus = [](int sign) {
    return [sign](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                  const TypeRef& out) {
      return BinaryLoop<int64_t, Mdn, int64_t>(
          args, n, out, ctx.pool, [sign](int64_t t, Mdn iv, int64_t* o) {
            *o = FloorMod(t + sign * iv.nanos / 1000, kMicrosPerDay);
            return 0;
          });
    };
  };
  r->Add({"+", {time, iv}, nullptr, time, nullptr, time_plus(1)});
  r->Add({"-", {time, iv}, nullptr, time, nullptr, time_plus(-1)});
  r->Add({"-", {time, time}, nullptr, iv, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            return BinaryLoop<int64_t, int64_t, Mdn>(args, n, out, ctx.pool,
                                                     [](int64_t a, int64_t b, Mdn* o) {
                                                       *o = {0, 0, (a - b) * 1000};
                                                       return 0;
                                                     });
          }});
}

}  // namespace

void RegisterArithmeticFunctions(FunctionRegistry* r) {
  for (Op op : {Op::kAdd, Op::kSub, Op::kMul, Op::kDiv, Op::kMod}) {
    const char* name = OpName(op);
    // Registration order is the preference order for ties.
    r->Add({name, {int32(), int32()}, nullptr, int32(), nullptr, IntegerKernel<int32_t>(op)});
    r->Add({name, {int64(), int64()}, nullptr, int64(), nullptr, IntegerKernel<int64_t>(op)});
    r->Add({name, {int16(), int16()}, nullptr, int16(), nullptr, IntegerKernel<int16_t>(op)});
    r->Add({name, {AnyDecimal(), AnyDecimal()}, nullptr, nullptr,
            [op](std::vector<TypeRef>* a, TypeRef* ret) { return BindDecimal(op, a, ret); },
            DecimalKernel(op)});
    r->Add({name, {float64(), float64()}, nullptr, float64(), nullptr, FloatKernel<double>(op)});
    r->Add({name, {float32(), float32()}, nullptr, float32(), nullptr, FloatKernel<float>(op)});
  }
  r->Add({"-", {int32()}, nullptr, int32(), nullptr, NegateKernel<int32_t>()});
  r->Add({"-", {int64()}, nullptr, int64(), nullptr, NegateKernel<int64_t>()});
  r->Add({"-", {int16()}, nullptr, int16(), nullptr, NegateKernel<int16_t>()});
  r->Add({"-", {AnyDecimal()}, nullptr, nullptr,
          [](std::vector<TypeRef>* a, TypeRef* ret) {
            *ret = (*a)[0];
            return Status::OK();
          },
          NegateKernel<int128_t>()});
  r->Add({"-", {float64()}, nullptr, float64(), nullptr, NegateKernel<double>()});
  r->Add({"-", {float32()}, nullptr, float32(), nullptr, NegateKernel<float>()});
  // Unary plus is the identity.
  for (const TypeRef& t : {int32(), int64(), int16(), AnyDecimal(), float64(), float32()}) {
    r->Add({"+", {t}, nullptr, IsAnyDecimal(*t) ? nullptr : t,
            [](std::vector<TypeRef>* a, TypeRef* ret) {
              *ret = (*a)[0];
              return Status::OK();
            },
            [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
               const TypeRef&) { return kernels::Materialize(args[0], n, ctx.pool); }});
  }
  RegisterTemporalOps(r);
  RegisterIntervalOps(r);
}

}  // namespace quiver
