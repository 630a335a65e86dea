// Aggregate functions: count(*), count, sum, avg, min, max, bool_and/every,
// bool_or, stddev/variance (sample and population), string_agg.
//
// Result types follow PostgreSQL: sum(smallint|integer) -> bigint,
// sum(bigint|numeric) -> numeric, sum(real) -> real, sum(double) -> double;
// avg(integers|numeric) -> numeric (at least 16 fraction digits), avg(floats)
// -> double precision; count -> bigint; min/max keep the input type. An
// aggregate over no rows is NULL, except count, which is 0.
#include <cmath>
#include <cstring>
#include <string>

#include "functions/function.h"
#include "functions/kernel_util.h"
#include "vector/sql_type.h"

namespace quiver {
namespace {

using kernels::BoolAccess;
using kernels::DispatchFixed;
using kernels::StringAccess;
using kernels::ValidAccess;

// Calls f(i) for every row whose arguments are all non-null.
template <typename F>
void ForValid(const std::vector<VectorRef>& args, int64_t n, F f) {
  if (args.empty()) {
    for (int64_t i = 0; i < n; ++i) f(i);
    return;
  }
  ValidAccess v(args[0]);
  if (v.always_valid()) {
    for (int64_t i = 0; i < n; ++i) f(i);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      if (v(i)) f(i);
    }
  }
}

template <typename T>
Result<ArrayRef> FinishValues(uint8_t** states, int64_t n, const TypeRef& out_type, MemoryPool* pool,
                              bool (*has)(const uint8_t*), T (*get)(const uint8_t*)) {
  QUIVER_ASSIGN_OR_RAISE(auto values, kernels::AllocateValues(n, sizeof(T), pool));
  QUIVER_ASSIGN_OR_RAISE(auto validity, kernels::AllocateBitmap(n, pool));
  T* dst = values->mutable_data_as<T>();
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (has(states[i])) {
      dst[i] = get(states[i]);
      bit_util::SetBit(validity->mutable_data(), i);
    } else {
      dst[i] = T{};
      ++nulls;
    }
  }
  return ArrayData::Make(out_type, n, {nulls ? std::shared_ptr<Buffer>(validity) : nullptr, values},
                         nulls);
}

// --- count -------------------------------------------------------------------------

AggregateFunction CountStar() {
  AggregateFunction f;
  f.name = "count_star";
  f.return_type = int64();
  f.state_size = 8;
  f.init = [](uint8_t* s) { std::memset(s, 0, 8); };
  f.update = [](const std::vector<VectorRef>&, int64_t n, uint8_t** states) {
    for (int64_t i = 0; i < n; ++i) ++*reinterpret_cast<int64_t*>(states[i]);
    return Status::OK();
  };
  f.combine = [](const uint8_t* src, uint8_t* dst) {
    *reinterpret_cast<int64_t*>(dst) += *reinterpret_cast<const int64_t*>(src);
  };
  f.finalize = [](uint8_t** states, int64_t n, const TypeRef& out, MemoryPool* pool) {
    return FinishValues<int64_t>(
        states, n, out, pool, [](const uint8_t*) { return true; },
        [](const uint8_t* s) { return *reinterpret_cast<const int64_t*>(s); });
  };
  return f;
}

AggregateFunction Count() {
  AggregateFunction f = CountStar();
  f.name = "count";
  f.args = {AnyType()};
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states) {
    ForValid(args, n, [&](int64_t i) { ++*reinterpret_cast<int64_t*>(states[i]); });
    return Status::OK();
  };
  return f;
}

// --- sum / avg ---------------------------------------------------------------------

// State of sum and avg: accumulator, row count.
template <typename Acc>
struct SumState {
  Acc sum;
  int64_t count;
};

template <typename In, typename Acc>
AggregateFunction SumOf(const char* name, TypeRef arg, TypeRef ret, bool checked) {
  AggregateFunction f;
  f.name = name;
  f.args = {arg};
  f.return_type = ret;
  f.state_size = sizeof(SumState<Acc>);
  f.init = [](uint8_t* s) { new (s) SumState<Acc>{Acc{}, 0}; };
  f.update = [checked](const std::vector<VectorRef>& args, int64_t n, uint8_t** states) -> Status {
    bool overflow = false;
    DispatchFixed<In>(args[0], [&](auto get) {
      ForValid(args, n, [&](int64_t i) {
        auto* st = reinterpret_cast<SumState<Acc>*>(states[i]);
        if constexpr (std::is_integral_v<Acc> || std::is_same_v<Acc, int128_t>) {
          if (checked) {
            overflow |= __builtin_add_overflow(st->sum, static_cast<Acc>(get(i)), &st->sum);
          } else {
            st->sum += static_cast<Acc>(get(i));
          }
        } else {
          st->sum += static_cast<Acc>(get(i));
        }
        ++st->count;
      });
    });
    if (overflow) return Status::Invalid("bigint out of range");
    return Status::OK();
  };
  f.combine = [](const uint8_t* src, uint8_t* dst) {
    auto* d = reinterpret_cast<SumState<Acc>*>(dst);
    const auto* s = reinterpret_cast<const SumState<Acc>*>(src);
    d->sum += s->sum;
    d->count += s->count;
  };
  return f;
}

template <typename In, typename Acc, typename Out>
AggregateFunction Sum(TypeRef arg, TypeRef ret, bool checked = false) {
  AggregateFunction f = SumOf<In, Acc>("sum", arg, ret, checked);
  f.finalize = [](uint8_t** states, int64_t n, const TypeRef& out, MemoryPool* pool) {
    return FinishValues<Out>(
        states, n, out, pool,
        [](const uint8_t* s) { return reinterpret_cast<const SumState<Acc>*>(s)->count > 0; },
        [](const uint8_t* s) { return static_cast<Out>(reinterpret_cast<const SumState<Acc>*>(s)->sum); });
  };
  return f;
}

// avg of exact types: sum (int128, at the input's scale) / count, rounded to
// the output scale. The state remembers the input's scale.
struct ExactAvgState {
  int128_t sum;
  int64_t count;
  int32_t scale;
};

template <typename In>
AggregateFunction ExactAvg(TypeRef arg) {
  AggregateFunction f;
  f.name = "avg";
  f.args = {arg};
  f.bind = [](std::vector<TypeRef>* args, TypeRef* ret) {
    const int in_scale = (*args)[0]->id == TypeId::kDecimal128 ? (*args)[0]->scale : 0;
    *ret = decimal128(kMaxDecimalPrecision, std::max(16, in_scale));
    return Status::OK();
  };
  f.state_size = sizeof(ExactAvgState);
  f.init = [](uint8_t* s) { new (s) ExactAvgState{0, 0, 0}; };
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states) {
    const int32_t scale =
        args[0].array->type->id == TypeId::kDecimal128 ? args[0].array->type->scale : 0;
    DispatchFixed<In>(args[0], [&](auto get) {
      ForValid(args, n, [&](int64_t i) {
        auto* st = reinterpret_cast<ExactAvgState*>(states[i]);
        st->sum += static_cast<int128_t>(get(i));
        ++st->count;
        st->scale = scale;
      });
    });
    return Status::OK();
  };
  f.combine = [](const uint8_t* src, uint8_t* dst) {
    const auto* s = reinterpret_cast<const ExactAvgState*>(src);
    auto* d = reinterpret_cast<ExactAvgState*>(dst);
    if (s->count == 0) return;
    d->sum += s->sum;
    d->count += s->count;
    d->scale = s->scale;
  };
  f.finalize = [](uint8_t** states, int64_t n, const TypeRef& out, MemoryPool* pool)
      -> Result<ArrayRef> {
    QUIVER_ASSIGN_OR_RAISE(auto values, kernels::AllocateValues(n, 16, pool));
    QUIVER_ASSIGN_OR_RAISE(auto validity, kernels::AllocateBitmap(n, pool));
    int128_t* dst = values->mutable_data_as<int128_t>();
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      const auto* s = reinterpret_cast<const ExactAvgState*>(states[i]);
      if (s->count == 0) {
        dst[i] = 0;
        ++nulls;
        continue;
      }
      bit_util::SetBit(validity->mutable_data(), i);
      const int k = out->scale - s->scale;
      int128_t scaled;
      if (k >= 0 && !__builtin_mul_overflow(s->sum, Pow10Int128(k), &scaled)) {
        int128_t q = scaled / s->count, r = scaled % s->count;
        if ((r < 0 ? -r : r) * 2 >= s->count) q += scaled < 0 ? -1 : 1;
        dst[i] = q;
      } else {
        const long double v = static_cast<long double>(s->sum) / s->count;
        dst[i] = static_cast<int128_t>(v * std::pow(10.0L, k));
      }
    }
    return ArrayData::Make(out, n, {nulls ? std::shared_ptr<Buffer>(validity) : nullptr, values},
                           nulls);
  };
  return f;
}

template <typename In>
AggregateFunction FloatAvg(TypeRef arg) {
  AggregateFunction f = SumOf<In, double>("avg", arg, float64(), false);
  f.finalize = [](uint8_t** states, int64_t n, const TypeRef& out, MemoryPool* pool) {
    return FinishValues<double>(
        states, n, out, pool,
        [](const uint8_t* s) { return reinterpret_cast<const SumState<double>*>(s)->count > 0; },
        [](const uint8_t* s) {
          const auto* st = reinterpret_cast<const SumState<double>*>(s);
          return st->sum / static_cast<double>(st->count);
        });
  };
  return f;
}

// --- min / max ---------------------------------------------------------------------

template <typename T>
struct MinMaxState {
  T value;
  bool has;
};

template <typename T, bool kMax>
bool Better(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    // NaN is the largest value (PostgreSQL).
    if (std::isnan(a)) return kMax && !std::isnan(b);
    if (std::isnan(b)) return !kMax;
  }
  return kMax ? b < a : a < b;
}

template <typename T, bool kMax>
AggregateFunction MinMaxFixed(TypeRef arg) {
  AggregateFunction f;
  f.name = kMax ? "max" : "min";
  f.args = {arg};
  f.return_type = arg;
  if (IsAnyDecimal(*arg)) {
    f.bind = [](std::vector<TypeRef>* args, TypeRef* ret) {
      *ret = (*args)[0];
      return Status::OK();
    };
  }
  f.state_size = sizeof(MinMaxState<T>);
  f.init = [](uint8_t* s) { new (s) MinMaxState<T>{T{}, false}; };
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states) {
    DispatchFixed<T>(args[0], [&](auto get) {
      ForValid(args, n, [&](int64_t i) {
        auto* st = reinterpret_cast<MinMaxState<T>*>(states[i]);
        const T v = get(i);
        if (!st->has || Better<T, kMax>(v, st->value)) {
          st->value = v;
          st->has = true;
        }
      });
    });
    return Status::OK();
  };
  f.combine = [](const uint8_t* src, uint8_t* dst) {
    const auto* s = reinterpret_cast<const MinMaxState<T>*>(src);
    auto* d = reinterpret_cast<MinMaxState<T>*>(dst);
    if (s->has && (!d->has || Better<T, kMax>(s->value, d->value))) *d = *s;
  };
  f.finalize = [](uint8_t** states, int64_t n, const TypeRef& out, MemoryPool* pool) {
    return FinishValues<T>(
        states, n, out, pool,
        [](const uint8_t* s) { return reinterpret_cast<const MinMaxState<T>*>(s)->has; },
        [](const uint8_t* s) { return reinterpret_cast<const MinMaxState<T>*>(s)->value; });
  };
  return f;
}

// Strings: the state owns a heap copy of the current extreme.
struct StringState {
  std::string* value;
};

template <bool kMax>
AggregateFunction MinMaxString(TypeRef arg) {
  AggregateFunction f;
  f.name = kMax ? "max" : "min";
  f.args = {arg};
  f.return_type = arg;
  f.state_size = sizeof(StringState);
  f.init = [](uint8_t* s) { reinterpret_cast<StringState*>(s)->value = nullptr; };
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states) {
    StringAccess get(args[0]);
    ForValid(args, n, [&](int64_t i) {
      auto* st = reinterpret_cast<StringState*>(states[i]);
      const std::string_view v = get(i);
      if (st->value == nullptr) {
        st->value = new std::string(v);
      } else if (kMax ? v > *st->value : v < *st->value) {
        st->value->assign(v);
      }
    });
    return Status::OK();
  };
  f.combine = [](const uint8_t* src, uint8_t* dst) {
    const auto* s = reinterpret_cast<const StringState*>(src);
    auto* d = reinterpret_cast<StringState*>(dst);
    if (s->value == nullptr) return;
    if (d->value == nullptr) {
      d->value = new std::string(*s->value);
    } else if (kMax ? *s->value > *d->value : *s->value < *d->value) {
      *d->value = *s->value;
    }
  };
  f.finalize = [](uint8_t** states, int64_t n, const TypeRef& out, MemoryPool* pool)
      -> Result<ArrayRef> {
    kernels::StringOutput o(out, n, pool);
    for (int64_t i = 0; i < n; ++i) {
      const auto* st = reinterpret_cast<const StringState*>(states[i]);
      QUIVER_RETURN_NOT_OK(st->value ? o.Append(*st->value) : o.AppendNull());
    }
    return o.Finish();
  };
  f.destroy = [](uint8_t* s) {
    delete reinterpret_cast<StringState*>(s)->value;
    reinterpret_cast<StringState*>(s)->value = nullptr;
  };
  return f;
}

template <bool kMax>
AggregateFunction MinMaxBool() {
  AggregateFunction f;
  f.name = kMax ? "max" : "min";
  f.args = {boolean()};
  f.return_type = boolean();
  f.state_size = 2;
  f.init = [](uint8_t* s) { s[0] = s[1] = 0; };  // [has, value]
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states) {
    BoolAccess get(args[0]);
    ForValid(args, n, [&](int64_t i) {
      uint8_t* st = states[i];
      const bool v = get(i);
      if (!st[0]) {
        st[0] = 1;
        st[1] = v;
      } else {
        st[1] = kMax ? (st[1] | v) : (st[1] & v);
      }
    });
    return Status::OK();
  };
  f.combine = [](const uint8_t* s, uint8_t* d) {
    if (!s[0]) return;
    if (!d[0]) {
      d[0] = 1;
      d[1] = s[1];
    } else {
      d[1] = kMax ? (d[1] | s[1]) : (d[1] & s[1]);
    }
  };
  f.finalize = [](uint8_t** states, int64_t n, const TypeRef& out, MemoryPool* pool)
      -> Result<ArrayRef> {
    QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, pool));
    QUIVER_ASSIGN_OR_RAISE(auto validity, kernels::AllocateBitmap(n, pool));
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (!states[i][0]) {
        ++nulls;
        continue;
      }
      bit_util::SetBit(validity->mutable_data(), i);
      if (states[i][1]) bit_util::SetBit(bits->mutable_data(), i);
    }
    return ArrayData::Make(out, n, {nulls ? std::shared_ptr<Buffer>(validity) : nullptr, bits}, nulls);
  };
  return f;
}

// --- variance family -------------------------------------------------------------

struct VarState {
  int64_t n;
  double mean;
  double m2;
};

enum class VarKind { kVarSamp, kVarPop, kStddevSamp, kStddevPop };

template <typename In>
AggregateFunction Variance(const char* name, TypeRef arg, VarKind kind) {
  AggregateFunction f;
  f.name = name;
  f.args = {arg};
  f.return_type = float64();
  f.state_size = sizeof(VarState);
  f.init = [](uint8_t* s) { new (s) VarState{0, 0, 0}; };
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states) {
    DispatchFixed<In>(args[0], [&](auto get) {
      ForValid(args, n, [&](int64_t i) {
        auto* st = reinterpret_cast<VarState*>(states[i]);
        const double x = static_cast<double>(get(i));
        ++st->n;
        const double d = x - st->mean;
        st->mean += d / static_cast<double>(st->n);
        st->m2 += d * (x - st->mean);
      });
    });
    return Status::OK();
  };
  f.combine = [](const uint8_t* src, uint8_t* dst) {
    const auto* a = reinterpret_cast<const VarState*>(src);
    auto* b = reinterpret_cast<VarState*>(dst);
    if (a->n == 0) return;
    if (b->n == 0) {
      *b = *a;
      return;
    }
    const double n = static_cast<double>(a->n + b->n);
    const double d = a->mean - b->mean;
    b->m2 += a->m2 + d * d * static_cast<double>(a->n) * static_cast<double>(b->n) / n;
    b->mean += d * static_cast<double>(a->n) / n;
    b->n += a->n;
  };
  f.finalize = [kind](uint8_t** states, int64_t n, const TypeRef& out, MemoryPool* pool)
      -> Result<ArrayRef> {
    QUIVER_ASSIGN_OR_RAISE(auto values, kernels::AllocateValues(n, 8, pool));
    QUIVER_ASSIGN_OR_RAISE(auto validity, kernels::AllocateBitmap(n, pool));
    int64_t nulls = 0;
    const bool sample = kind == VarKind::kVarSamp || kind == VarKind::kStddevSamp;
    const bool root = kind == VarKind::kStddevSamp || kind == VarKind::kStddevPop;
    for (int64_t i = 0; i < n; ++i) {
      const auto* st = reinterpret_cast<const VarState*>(states[i]);
      const int64_t denom = sample ? st->n - 1 : st->n;
      if (denom <= 0) {
        ++nulls;
        continue;
      }
      double v = std::max(0.0, st->m2 / static_cast<double>(denom));
      if (root) v = std::sqrt(v);
      values->mutable_data_as<double>()[i] = v;
      bit_util::SetBit(validity->mutable_data(), i);
    }
    return ArrayData::Make(out, n, {nulls ? std::shared_ptr<Buffer>(validity) : nullptr, values},
                           nulls);
  };
  return f;
}

AggregateFunction StringAgg() {
  AggregateFunction f;
  f.name = "string_agg";
  f.args = {utf8(), utf8()};
  f.return_type = utf8();
  f.state_size = sizeof(StringState);
  f.init = [](uint8_t* s) { reinterpret_cast<StringState*>(s)->value = nullptr; };
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states) {
    StringAccess get(args[0]), sep(args[1]);
    ValidAccess vs(args[1]);
    ForValid(args, n, [&](int64_t i) {
      auto* st = reinterpret_cast<StringState*>(states[i]);
      if (st->value == nullptr) {
        st->value = new std::string(get(i));
      } else {
        if (vs(i)) st->value->append(sep(i));
        st->value->append(get(i));
      }
    });
    return Status::OK();
  };
  f.combine = [](const uint8_t* src, uint8_t* dst) {
    const auto* s = reinterpret_cast<const StringState*>(src);
    auto* d = reinterpret_cast<StringState*>(dst);
    if (s->value == nullptr) return;
    if (d->value == nullptr) {
      d->value = new std::string(*s->value);
    } else {
      d->value->append(",");
      d->value->append(*s->value);
    }
  };
  f.finalize = MinMaxString<true>(utf8()).finalize;
  f.destroy = MinMaxString<true>(utf8()).destroy;
  return f;
}

// The value of a scalar subquery: its only row, NULL for none, an error
// for more than one.
struct SingleState {
  int64_t count;
  Value* value;
};

AggregateFunction SingleValue() {
  AggregateFunction f;
  f.name = "__single_value";
  f.args = {AnyType()};
  f.bind = [](std::vector<TypeRef>* args, TypeRef* ret) {
    *ret = (*args)[0];
    return Status::OK();
  };
  f.state_size = sizeof(SingleState);
  f.init = [](uint8_t* s) { new (s) SingleState{0, nullptr}; };
  const char* kTooMany = "more than one row returned by a subquery used as an expression";
  f.update = [kTooMany](const std::vector<VectorRef>& args, int64_t n, uint8_t** states) -> Status {
    for (int64_t i = 0; i < n; ++i) {
      auto* st = reinterpret_cast<SingleState*>(states[i]);
      if (++st->count > 1) return Status::Invalid("{}", kTooMany);
      st->value = new Value(ValueFromArray(*args[0].array, args[0].index(i)));
    }
    return Status::OK();
  };
  f.combine = [](const uint8_t* src, uint8_t* dst) {
    const auto* s = reinterpret_cast<const SingleState*>(src);
    auto* d = reinterpret_cast<SingleState*>(dst);
    if (s->count == 0) return;
    d->count += s->count;
    if (d->value == nullptr && s->value != nullptr) d->value = new Value(*s->value);
  };
  f.finalize = [kTooMany](uint8_t** states, int64_t n, const TypeRef& out, MemoryPool* pool)
      -> Result<ArrayRef> {
    std::vector<Value> values;
    for (int64_t i = 0; i < n; ++i) {
      const auto* st = reinterpret_cast<const SingleState*>(states[i]);
      if (st->count > 1) return Status::Invalid("{}", kTooMany);
      values.push_back(st->value ? *st->value : Value::Null(out));
    }
    return ArrayFromValues(values, out, pool);
  };
  f.destroy = [](uint8_t* s) {
    delete reinterpret_cast<SingleState*>(s)->value;
    reinterpret_cast<SingleState*>(s)->value = nullptr;
  };
  return f;
}

template <typename T>
void AddMinMax(FunctionRegistry* r, TypeRef t) {
  r->Add(MinMaxFixed<T, false>(t));
  r->Add(MinMaxFixed<T, true>(t));
}

}  // namespace

void RegisterAggregateFunctions(FunctionRegistry* r) {
  r->Add(CountStar());
  r->Add(Count());

  r->Add(Sum<int32_t, int64_t, int64_t>(int32(), int64(), true));
  r->Add(Sum<int64_t, int128_t, int128_t>(int64(), decimal128(kMaxDecimalPrecision, 0)));
  r->Add(Sum<int16_t, int64_t, int64_t>(int16(), int64(), true));
  {
    AggregateFunction f = Sum<int128_t, int128_t, int128_t>(AnyDecimal(), nullptr);
    f.bind = [](std::vector<TypeRef>* args, TypeRef* ret) {
      *ret = decimal128(kMaxDecimalPrecision, (*args)[0]->scale);
      return Status::OK();
    };
    r->Add(f);
  }
  r->Add(Sum<double, double, double>(float64(), float64()));
  r->Add(Sum<float, double, float>(float32(), float32()));

  r->Add(ExactAvg<int32_t>(int32()));
  r->Add(ExactAvg<int64_t>(int64()));
  r->Add(ExactAvg<int16_t>(int16()));
  r->Add(ExactAvg<int128_t>(AnyDecimal()));
  r->Add(FloatAvg<double>(float64()));
  r->Add(FloatAvg<float>(float32()));

  AddMinMax<int32_t>(r, int32());
  AddMinMax<int64_t>(r, int64());
  AddMinMax<int16_t>(r, int16());
  AddMinMax<int128_t>(r, AnyDecimal());
  AddMinMax<double>(r, float64());
  AddMinMax<float>(r, float32());
  AddMinMax<int32_t>(r, date32());
  AddMinMax<int64_t>(r, time64(TimeUnit::kMicro));
  AddMinMax<int64_t>(r, timestamp(TimeUnit::kMicro));
  AddMinMax<int64_t>(r, timestamp(TimeUnit::kMicro, "UTC"));
  r->Add(MinMaxString<false>(utf8()));
  r->Add(MinMaxString<true>(utf8()));
  r->Add(MinMaxString<false>(binary()));
  r->Add(MinMaxString<true>(binary()));
  r->Add(MinMaxBool<false>());
  r->Add(MinMaxBool<true>());
  {
    AggregateFunction a = MinMaxBool<false>();
    a.name = "bool_and";
    r->Add(a);
    a.name = "every";
    r->Add(a);
    AggregateFunction o = MinMaxBool<true>();
    o.name = "bool_or";
    r->Add(o);
  }
  struct V {
    const char* name;
    VarKind kind;
  };
  for (const V& v : {V{"variance", VarKind::kVarSamp}, V{"var_samp", VarKind::kVarSamp},
                     V{"var_pop", VarKind::kVarPop}, V{"stddev", VarKind::kStddevSamp},
                     V{"stddev_samp", VarKind::kStddevSamp}, V{"stddev_pop", VarKind::kStddevPop}}) {
    r->Add(Variance<double>(v.name, float64(), v.kind));
  }
  r->Add(StringAgg());
  r->Add(SingleValue());
}

}  // namespace quiver
