// Aggregate functions: count(*), count, sum, avg, min, max, bool_and/every,
// bool_or, stddev/variance (sample and population), string_agg (also with
// ORDER BY: __string_agg_ordered), and the ordered-set aggregates
// percentile_cont, percentile_disc and mode (WITHIN GROUP).
//
// Result types follow PostgreSQL: sum(smallint|integer) -> bigint,
// sum(bigint|numeric) -> numeric, sum(real) -> real, sum(double) -> double;
// avg(integers|numeric) -> numeric (PostgreSQL's sum / count, pg_numeric.h),
// avg(floats) -> double precision; stddev / variance of integers and numeric
// -> numeric (pg_numeric.h), of floats -> double precision; count -> bigint;
// min/max keep the input type. An aggregate over no rows is NULL, except
// count, which is 0.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "functions/function.h"
#include "functions/kernel_util.h"
#include "functions/pg_numeric.h"
#include "vector/sql_type.h"
#include "vector/value.h"

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
  f.update = [](const std::vector<VectorRef>&, int64_t n, uint8_t** states, MemoryPool*) {
    for (int64_t i = 0; i < n; ++i) ++*reinterpret_cast<int64_t*>(states[i]);
    return Status::OK();
  };
  f.combine = [](const uint8_t* src, uint8_t* dst, MemoryPool*) {
    *reinterpret_cast<int64_t*>(dst) += *reinterpret_cast<const int64_t*>(src);
    return Status::OK();
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
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states, MemoryPool*) {
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

Status SumOutOfRange(const char* name) {
  return Status::NotImplemented(
             "{}: the sum of its numeric inputs exceeds Quiver's numeric (38 digits); "
             "PostgreSQL's numeric would hold it",
             name)
      .WithSqlState(sqlstate::kFeatureNotSupported)
      .WithHint("Cast the argument to double precision.");
}

// The error of a checked sum that overflowed: PostgreSQL's for sum(integer)
// into bigint; Quiver's limit for numeric.
template <typename In, typename Acc>
Status SumOverflow() {
  if constexpr (std::is_same_v<In, int128_t>) {
    return SumOutOfRange("sum");
  } else {
    return Status::Invalid("bigint out of range").WithSqlState(sqlstate::kNumericValueOutOfRange);
  }
}

template <typename In, typename Acc>
AggregateFunction SumOf(const char* name, TypeRef arg, TypeRef ret, bool checked) {
  AggregateFunction f;
  f.name = name;
  f.args = {arg};
  f.return_type = ret;
  f.state_size = sizeof(SumState<Acc>);
  f.init = [](uint8_t* s) { new (s) SumState<Acc>{Acc{}, 0}; };
  f.update = [checked](const std::vector<VectorRef>& args, int64_t n, uint8_t** states,
                       MemoryPool*) -> Status {
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
    if (overflow) return SumOverflow<In, Acc>();
    return Status::OK();
  };
  f.combine = [](const uint8_t* src, uint8_t* dst, MemoryPool*) {
    auto* d = reinterpret_cast<SumState<Acc>*>(dst);
    const auto* s = reinterpret_cast<const SumState<Acc>*>(src);
    if constexpr (std::is_same_v<In, int128_t>) {
      if (__builtin_add_overflow(d->sum, s->sum, &d->sum)) return SumOverflow<In, Acc>();
    } else {
      d->sum += s->sum;
    }
    d->count += s->count;
    return Status::OK();
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

// avg of exact types: sum (int128, at the input's scale) / count, as
// PostgreSQL's numeric_div(sum, count) (pg_numeric.h). The state remembers
// the input's scale.
struct ExactAvgState {
  int128_t sum;
  int64_t count;
  int32_t scale;
  bool overflow;  // the sum left 128 bits (numeric inputs only)
};

int InputScale(const DataType& t) { return t.id == TypeId::kDecimal128 ? t.scale : 0; }

template <typename In>
AggregateFunction ExactAvg(TypeRef arg) {
  AggregateFunction f;
  f.name = "avg";
  f.args = {arg};
  f.bind = [](std::vector<TypeRef>* args, TypeRef* ret) {
    *ret = decimal128(kMaxDecimalPrecision,
                      std::min(std::max(pg_numeric::kResultScale, InputScale(*(*args)[0])),
                               kMaxDecimalPrecision));
    return Status::OK();
  };
  f.state_size = sizeof(ExactAvgState);
  f.init = [](uint8_t* s) { new (s) ExactAvgState{0, 0, 0, false}; };
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states, MemoryPool*) {
    const int32_t scale = InputScale(*args[0].array->type);
    DispatchFixed<In>(args[0], [&](auto get) {
      ForValid(args, n, [&](int64_t i) {
        auto* st = reinterpret_cast<ExactAvgState*>(states[i]);
        if constexpr (std::is_same_v<In, int128_t>) {
          st->overflow |= __builtin_add_overflow(st->sum, get(i), &st->sum);
        } else {
          st->sum += static_cast<int128_t>(get(i));
        }
        ++st->count;
        st->scale = scale;
      });
    });
    return Status::OK();
  };
  f.combine = [](const uint8_t* src, uint8_t* dst, MemoryPool*) {
    const auto* s = reinterpret_cast<const ExactAvgState*>(src);
    auto* d = reinterpret_cast<ExactAvgState*>(dst);
    if (s->count == 0) return Status::OK();
    d->overflow |= s->overflow || __builtin_add_overflow(d->sum, s->sum, &d->sum);
    d->count += s->count;
    d->scale = s->scale;
    return Status::OK();
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
      if (s->overflow) return SumOutOfRange("avg");
      bit_util::SetBit(validity->mutable_data(), i);
      if (pg_numeric::Divide(s->sum, s->scale, s->count, 0, out->scale, &dst[i]) !=
          pg_numeric::kOk) {
        return pg_numeric::DivideError(s->sum, s->scale, s->count, 0, out->scale, "avg");
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
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states, MemoryPool*) {
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
  f.combine = [](const uint8_t* src, uint8_t* dst, MemoryPool*) {
    const auto* s = reinterpret_cast<const MinMaxState<T>*>(src);
    auto* d = reinterpret_cast<MinMaxState<T>*>(dst);
    if (s->has && (!d->has || Better<T, kMax>(s->value, d->value))) *d = *s;
    return Status::OK();
  };
  f.finalize = [](uint8_t** states, int64_t n, const TypeRef& out, MemoryPool* pool) {
    return FinishValues<T>(
        states, n, out, pool,
        [](const uint8_t* s) { return reinterpret_cast<const MinMaxState<T>*>(s)->has; },
        [](const uint8_t* s) { return reinterpret_cast<const MinMaxState<T>*>(s)->value; });
  };
  return f;
}

// --- states on the heap ------------------------------------------------------------
//
// A group table moves its state rows with memcpy as it grows, so a state that
// needs memory of its own holds a pointer to a heap object. What that object
// holds is charged to the query's pool before it grows: a string_agg over a
// big input under a small --memory-limit fails with the out-of-memory error
// instead of growing past the limit. Destroying the state gives it back.

// A string a state owns, and the pool it is charged to (null: not accounted).
// No more than that: 40 bytes take the same malloc chunk as a bare std::string.
struct HeapString {
  std::string text;
  MemoryPool* pool;
};

// Strings: `charged` is what the state holds against the pool (the object and
// the string's capacity); it lives in the state row, whose 16-byte slot had
// room for it.
struct StringState {
  HeapString* value;
  int64_t charged;
};

int64_t HeapStringBytes(size_t capacity) { return static_cast<int64_t>(sizeof(HeapString) + capacity); }

// Reserves from a pool in chunks for one update or combine call, so that the
// many small charges of min/max (one per group) do not each update the pool's
// (and its parents') shared counters; gives back what is left at the end.
class PoolCredit {
 public:
  // `chunk`: 0 for a single charge (combine, per group), which would give
  // most of a chunk back at once.
  explicit PoolCredit(MemoryPool* pool, int64_t chunk = 64 << 10) : pool_(pool), chunk_(chunk) {}
  ~PoolCredit() {
    if (credit_ > 0) pool_->Release(credit_);
  }
  PoolCredit(const PoolCredit&) = delete;
  PoolCredit& operator=(const PoolCredit&) = delete;

  MemoryPool* pool() const { return pool_; }
  Status Take(int64_t bytes) {
    if (pool_ == nullptr || bytes <= credit_) {
      credit_ -= pool_ == nullptr ? 0 : bytes;
      return Status::OK();
    }
    const int64_t need = bytes - credit_;
    // A whole chunk when it fits, else exactly what is needed: near the limit
    // the chunk must not be what fails.
    if (need < chunk_ && pool_->Reserve(chunk_).ok()) {
      credit_ += chunk_ - bytes;
      return Status::OK();
    }
    QUIVER_RETURN_NOT_OK(pool_->Reserve(need));
    credit_ = 0;
    return Status::OK();
  }

 private:
  MemoryPool* pool_;
  int64_t chunk_;
  int64_t credit_ = 0;
};

// Raises the state's charge to `bytes` (never lowers it).
Status Charge(StringState* st, PoolCredit& credit, int64_t bytes) {
  if (bytes <= st->charged) return Status::OK();
  QUIVER_RETURN_NOT_OK(credit.Take(bytes - st->charged));
  st->charged = bytes;
  return Status::OK();
}

// Makes room for `size` bytes in the state's string, charging the growth
// first. It grows geometrically, as append would, so a long string_agg
// charges O(log n) times.
Status ReserveString(StringState* st, size_t size, PoolCredit& credit) {
  std::string& text = st->value->text;
  if (size <= text.capacity()) return Status::OK();
  const size_t capacity = std::max(size, 2 * text.capacity());
  QUIVER_RETURN_NOT_OK(Charge(st, credit, HeapStringBytes(capacity)));
  text.reserve(capacity);
  // Should the library round the capacity up, that is charged as well.
  return Charge(st, credit, HeapStringBytes(text.capacity()));
}

// Gives the state a heap string holding `v`, charged through `credit` (once,
// in the common case: per group of min/max, this is on the hot path).
// REQUIRES: the state has none.
Status NewString(StringState* st, std::string_view v, PoolCredit& credit) {
  auto h = std::make_unique<HeapString>(HeapString{std::string(), credit.pool()});
  // Short strings live inside the object (its capacity); longer ones get
  // exactly their size from reserve.
  QUIVER_RETURN_NOT_OK(Charge(st, credit, HeapStringBytes(std::max(v.size(), h->text.capacity()))));
  st->value = h.release();
  if (v.size() > st->value->text.capacity()) {
    st->value->text.reserve(v.size());
    QUIVER_RETURN_NOT_OK(Charge(st, credit, HeapStringBytes(st->value->text.capacity())));
  }
  st->value->text.assign(v);
  return Status::OK();
}

void InitString(uint8_t* s) { new (s) StringState{nullptr, 0}; }

void DestroyString(uint8_t* s) {
  auto* st = reinterpret_cast<StringState*>(s);
  MemoryPool* pool = st->value ? st->value->pool : nullptr;
  delete st->value;
  if (pool != nullptr && st->charged > 0) pool->Release(st->charged);  // may delete the pool
  *st = StringState{nullptr, 0};
}

// ForValid for updates that can fail: stops at the first error.
template <typename F>
Status ForValidOrError(const std::vector<VectorRef>& args, int64_t n, F f) {
  ValidAccess v(args[0]);
  for (int64_t i = 0; i < n; ++i) {
    if (v(i)) QUIVER_RETURN_NOT_OK(f(i));
  }
  return Status::OK();
}

// Sets min/max's state to `v` (when it is better than the current extreme).
template <bool kMax>
Status KeepExtreme(StringState* st, std::string_view v, PoolCredit& credit) {
  if (st->value == nullptr) return NewString(st, v, credit);
  if (kMax ? v > st->value->text : v < st->value->text) {
    QUIVER_RETURN_NOT_OK(ReserveString(st, v.size(), credit));
    st->value->text.assign(v);
  }
  return Status::OK();
}

Result<ArrayRef> FinishStrings(uint8_t** states, int64_t n, const TypeRef& out, MemoryPool* pool) {
  kernels::StringOutput o(out, n, pool);
  for (int64_t i = 0; i < n; ++i) {
    const auto* st = reinterpret_cast<const StringState*>(states[i]);
    QUIVER_RETURN_NOT_OK(st->value ? o.Append(st->value->text) : o.AppendNull());
  }
  return o.Finish();
}

template <bool kMax>
AggregateFunction MinMaxString(TypeRef arg) {
  AggregateFunction f;
  f.name = kMax ? "max" : "min";
  f.args = {arg};
  f.return_type = arg;
  f.state_size = sizeof(StringState);
  f.init = InitString;
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states, MemoryPool* pool) {
    StringAccess get(args[0]);
    PoolCredit credit(pool);
    return ForValidOrError(args, n, [&](int64_t i) {
      return KeepExtreme<kMax>(reinterpret_cast<StringState*>(states[i]), get(i), credit);
    });
  };
  f.combine = [](const uint8_t* src, uint8_t* dst, MemoryPool* pool) {
    const auto* s = reinterpret_cast<const StringState*>(src);
    if (s->value == nullptr) return Status::OK();
    PoolCredit credit(pool, /*chunk=*/0);
    return KeepExtreme<kMax>(reinterpret_cast<StringState*>(dst), s->value->text, credit);
  };
  f.finalize = FinishStrings;
  f.destroy = DestroyString;
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
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states, MemoryPool*) {
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
  f.combine = [](const uint8_t* s, uint8_t* d, MemoryPool*) {
    if (!s[0]) return Status::OK();
    if (!d[0]) {
      d[0] = 1;
      d[1] = s[1];
    } else {
      d[1] = kMax ? (d[1] | s[1]) : (d[1] & s[1]);
    }
    return Status::OK();
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
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states, MemoryPool*) {
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
  f.combine = [](const uint8_t* src, uint8_t* dst, MemoryPool*) {
    const auto* a = reinterpret_cast<const VarState*>(src);
    auto* b = reinterpret_cast<VarState*>(dst);
    if (a->n == 0) return Status::OK();
    if (b->n == 0) {
      *b = *a;
      return Status::OK();
    }
    const double n = static_cast<double>(a->n + b->n);
    const double d = a->mean - b->mean;
    b->m2 += a->m2 + d * d * static_cast<double>(a->n) * static_cast<double>(b->n) / n;
    b->mean += d * static_cast<double>(a->n) / n;
    b->n += a->n;
    return Status::OK();
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

// var_* / stddev_* of smallint, integer, bigint and numeric: numeric, as
// PostgreSQL's numeric_stddev_internal computes it from exact sums
// (pg_numeric.h); the state remembers the input's scale.
struct ExactVarState {
  pg_numeric::SquareSums sums;
  int32_t scale;
  bool overflow;  // sum(x) left 128 bits (numeric inputs only)
};

pg_numeric::VarianceKind ExactKind(VarKind kind) {
  switch (kind) {
    case VarKind::kVarSamp:
      return pg_numeric::VarianceKind::kVarSamp;
    case VarKind::kVarPop:
      return pg_numeric::VarianceKind::kVarPop;
    case VarKind::kStddevSamp:
      return pg_numeric::VarianceKind::kStddevSamp;
    case VarKind::kStddevPop:
      return pg_numeric::VarianceKind::kStddevPop;
  }
  return pg_numeric::VarianceKind::kVarSamp;
}

template <typename In>
AggregateFunction ExactVariance(const char* name, TypeRef arg, VarKind kind) {
  AggregateFunction f;
  f.name = name;
  f.args = {arg};
  f.bind = [](std::vector<TypeRef>* args, TypeRef* ret) {
    *ret = decimal128(kMaxDecimalPrecision,
                      std::min(std::max(pg_numeric::kResultScale, 2 * InputScale(*(*args)[0])),
                               kMaxDecimalPrecision));
    return Status::OK();
  };
  f.state_size = sizeof(ExactVarState);
  f.init = [](uint8_t* s) { new (s) ExactVarState{{0, 0, {0, 0, 0, 0, 0, 0}}, 0, false}; };
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states, MemoryPool*) {
    const int32_t scale = InputScale(*args[0].array->type);
    DispatchFixed<In>(args[0], [&](auto get) {
      ForValid(args, n, [&](int64_t i) {
        auto* st = reinterpret_cast<ExactVarState*>(states[i]);
        st->overflow |= !pg_numeric::AddToSquareSums(&st->sums, static_cast<int128_t>(get(i)));
        st->scale = scale;
      });
    });
    return Status::OK();
  };
  f.combine = [](const uint8_t* src, uint8_t* dst, MemoryPool*) {
    const auto* s = reinterpret_cast<const ExactVarState*>(src);
    auto* d = reinterpret_cast<ExactVarState*>(dst);
    if (s->sums.n == 0) return Status::OK();
    d->overflow |= s->overflow || !pg_numeric::CombineSquareSums(s->sums, &d->sums);
    d->scale = s->scale;
    return Status::OK();
  };
  f.finalize = [kind, name](uint8_t** states, int64_t n, const TypeRef& out,
                            MemoryPool* pool) -> Result<ArrayRef> {
    QUIVER_ASSIGN_OR_RAISE(auto values, kernels::AllocateValues(n, 16, pool));
    QUIVER_ASSIGN_OR_RAISE(auto validity, kernels::AllocateBitmap(n, pool));
    int128_t* dst = values->mutable_data_as<int128_t>();
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      const auto* s = reinterpret_cast<const ExactVarState*>(states[i]);
      if (s->overflow) return SumOutOfRange(name);
      bool is_null = false;
      QUIVER_RETURN_NOT_OK(
          pg_numeric::Variance(s->sums, s->scale, ExactKind(kind), out->scale, &dst[i], &is_null));
      if (is_null) {
        ++nulls;
      } else {
        bit_util::SetBit(validity->mutable_data(), i);
      }
    }
    return ArrayData::Make(out, n, {nulls ? std::shared_ptr<Buffer>(validity) : nullptr, values},
                           nulls);
  };
  return f;
}

// --- two-variable statistics: corr, covar_*, regr_* ------------------------------

// PostgreSQL's float8_regr_accum state (Youngs-Cramer): the count, the sums
// of X and Y, and the sums of squared / crossed deviations from the means.
struct RegrState {
  double n, sx, sxx, sy, syy, sxy;
};

enum class RegrKind {
  kCount, kSxx, kSyy, kSxy, kAvgX, kAvgY, kCovarPop, kCovarSamp, kCorr, kR2, kSlope, kIntercept
};

// f(Y, X) over the rows where both are non-null, as PostgreSQL's float8
// versions (the other argument types are cast to double precision).
AggregateFunction Regression(const char* name, RegrKind kind) {
  AggregateFunction f;
  f.name = name;
  f.args = {float64(), float64()};
  f.return_type = kind == RegrKind::kCount ? int64() : float64();
  f.state_size = sizeof(RegrState);
  f.init = [](uint8_t* s) { new (s) RegrState{0, 0, 0, 0, 0, 0}; };
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states, MemoryPool*) {
    ValidAccess vy(args[0]), vx(args[1]);
    const VectorRef& y = args[0];
    const VectorRef& x = args[1];
    for (int64_t i = 0; i < n; ++i) {
      if (!vy(i) || !vx(i)) continue;
      auto* st = reinterpret_cast<RegrState*>(states[i]);
      const double yv = y.values<double>()[y.index(i)];
      const double xv = x.values<double>()[x.index(i)];
      st->n += 1;
      st->sx += xv;
      st->sy += yv;
      if (st->n > 1) {
        const double tx = xv * st->n - st->sx;
        const double ty = yv * st->n - st->sy;
        const double scale = 1.0 / (st->n * (st->n - 1));
        st->sxx += tx * tx * scale;
        st->syy += ty * ty * scale;
        st->sxy += tx * ty * scale;
      } else if (std::isnan(xv) || std::isinf(xv) || std::isnan(yv) || std::isinf(yv)) {
        // As PostgreSQL: a first non-finite input makes the sums NaN.
        st->sxx = std::isfinite(xv) ? 0 : std::nan("");
        st->syy = std::isfinite(yv) ? 0 : std::nan("");
        st->sxy = std::isfinite(xv) && std::isfinite(yv) ? 0 : std::nan("");
      }
    }
    return Status::OK();
  };
  f.combine = [](const uint8_t* src, uint8_t* dst, MemoryPool*) {
    const auto* a = reinterpret_cast<const RegrState*>(src);
    auto* b = reinterpret_cast<RegrState*>(dst);
    if (a->n == 0) return Status::OK();
    if (b->n == 0) {
      *b = *a;
      return Status::OK();
    }
    const double n = a->n + b->n;
    const double dx = b->sx / b->n - a->sx / a->n;
    const double dy = b->sy / b->n - a->sy / a->n;
    b->sxx += a->sxx + b->n * a->n * dx * dx / n;
    b->syy += a->syy + b->n * a->n * dy * dy / n;
    b->sxy += a->sxy + b->n * a->n * dx * dy / n;
    b->sx += a->sx;
    b->sy += a->sy;
    b->n = n;
    return Status::OK();
  };
  f.finalize = [kind](uint8_t** states, int64_t n, const TypeRef& out, MemoryPool* pool)
      -> Result<ArrayRef> {
    QUIVER_ASSIGN_OR_RAISE(auto values, kernels::AllocateValues(n, 8, pool));
    QUIVER_ASSIGN_OR_RAISE(auto validity, kernels::AllocateBitmap(n, pool));
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      const auto& st = *reinterpret_cast<const RegrState*>(states[i]);
      if (kind == RegrKind::kCount) {
        values->mutable_data_as<int64_t>()[i] = static_cast<int64_t>(st.n);
        bit_util::SetBit(validity->mutable_data(), i);
        continue;
      }
      std::optional<double> v;
      if (st.n >= 1) {
        switch (kind) {
          case RegrKind::kCount: break;
          case RegrKind::kSxx: v = st.sxx; break;
          case RegrKind::kSyy: v = st.syy; break;
          case RegrKind::kSxy: v = st.sxy; break;
          case RegrKind::kAvgX: v = st.sx / st.n; break;
          case RegrKind::kAvgY: v = st.sy / st.n; break;
          case RegrKind::kCovarPop: v = st.sxy / st.n; break;
          case RegrKind::kCovarSamp:
            if (st.n >= 2) v = st.sxy / (st.n - 1);
            break;
          case RegrKind::kCorr:
            if (st.sxx != 0 && st.syy != 0) v = st.sxy / std::sqrt(st.sxx * st.syy);
            break;
          case RegrKind::kR2:
            if (st.sxx != 0) v = st.syy == 0 ? 1.0 : (st.sxy * st.sxy) / (st.sxx * st.syy);
            break;
          case RegrKind::kSlope:
            if (st.sxx != 0) v = st.sxy / st.sxx;
            break;
          case RegrKind::kIntercept:
            if (st.sxx != 0) v = (st.sy - st.sx * st.sxy / st.sxx) / st.n;
            break;
        }
      }
      if (!v) {
        ++nulls;
        continue;
      }
      values->mutable_data_as<double>()[i] = *v;
      bit_util::SetBit(validity->mutable_data(), i);
    }
    return ArrayData::Make(out, n, {nulls ? std::shared_ptr<Buffer>(validity) : nullptr, values},
                           nulls);
  };
  return f;
}

// string_agg(v, d) is v1 || d2 || v2 || d3 || v3 ...: each value's own
// delimiter goes before it, the first one's is dropped (PostgreSQL). A state
// keeps the first delimiter at the start of its text (`skip` bytes), so that
// joining two threads' partial results puts the right delimiter between them.
struct StringAggState {
  StringState text;
  int64_t skip;
};

void InitStringAgg(uint8_t* s) { new (s) StringAggState{{nullptr, 0}, 0}; }
void DestroyStringAgg(uint8_t* s) { DestroyString(s); }

Result<ArrayRef> FinishStringAgg(uint8_t** states, int64_t n, const TypeRef& out, MemoryPool* pool) {
  kernels::StringOutput o(out, n, pool);
  for (int64_t i = 0; i < n; ++i) {
    const auto* st = reinterpret_cast<const StringAggState*>(states[i]);
    if (st->text.value == nullptr) {
      QUIVER_RETURN_NOT_OK(o.AppendNull());
      continue;
    }
    QUIVER_RETURN_NOT_OK(
        o.Append(std::string_view(st->text.value->text).substr(static_cast<size_t>(st->skip))));
  }
  return o.Finish();
}

AggregateFunction StringAgg() {
  AggregateFunction f;
  f.name = "string_agg";
  f.args = {utf8(), utf8()};
  f.return_type = utf8();
  f.state_size = sizeof(StringAggState);
  f.init = InitStringAgg;
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states, MemoryPool* pool) {
    StringAccess get(args[0]), sep(args[1]);
    ValidAccess vs(args[1]);
    PoolCredit credit(pool);
    return ForValidOrError(args, n, [&](int64_t i) -> Status {
      auto* st = reinterpret_cast<StringAggState*>(states[i]);
      const std::string_view s = vs(i) ? sep(i) : std::string_view();
      const std::string_view v = get(i);
      if (st->text.value == nullptr) {
        st->skip = static_cast<int64_t>(s.size());
        return NewString(&st->text, std::string(s).append(v), credit);
      }
      QUIVER_RETURN_NOT_OK(
          ReserveString(&st->text, st->text.value->text.size() + s.size() + v.size(), credit));
      st->text.value->text.append(s).append(v);
      return Status::OK();
    });
  };
  f.combine = [](const uint8_t* src, uint8_t* dst, MemoryPool* pool) -> Status {
    const auto* s = reinterpret_cast<const StringAggState*>(src);
    auto* d = reinterpret_cast<StringAggState*>(dst);
    if (s->text.value == nullptr) return Status::OK();
    PoolCredit credit(pool, /*chunk=*/0);
    if (d->text.value == nullptr) {
      d->skip = s->skip;
      return NewString(&d->text, s->text.value->text, credit);
    }
    // src's text starts with the delimiter of its first value.
    QUIVER_RETURN_NOT_OK(ReserveString(
        &d->text, d->text.value->text.size() + s->text.value->text.size(), credit));
    d->text.value->text.append(s->text.value->text);
    return Status::OK();
  };
  f.finalize = FinishStringAgg;
  f.destroy = DestroyStringAgg;
  return f;
}
// string_agg(v, d ORDER BY k...), bound as __string_agg_ordered(v, d, spec,
// k...) (planner/bind_expression.cc): the state keeps every row (its keys,
// delimiter and value) and the final step sorts them by the keys, as spec
// says ("AL" = ASC NULLS LAST, "DF" = DESC NULLS FIRST, one pair per key),
// then joins them as string_agg does. Ties keep no particular order, as in
// PostgreSQL.
struct OrderedRow {
  std::vector<Value> keys;
  std::string sep;
  std::string value;
};

struct OrderedRows {
  std::vector<OrderedRow> rows;
  std::string spec;
  MemoryPool* pool;
};

struct OrderedState {
  OrderedRows* rows;
  int64_t charged;  // against rows->pool
};

int64_t RowBytes(const OrderedRow& r) {
  int64_t bytes = static_cast<int64_t>(sizeof(OrderedRow) + r.sep.size() + r.value.size() +
                                       r.keys.size() * sizeof(Value));
  for (const Value& k : r.keys) bytes += static_cast<int64_t>(k.str().size());
  return bytes;
}

Status AddOrderedRow(OrderedState* st, OrderedRow row, const std::string& spec, PoolCredit& credit) {
  int64_t bytes = RowBytes(row);
  if (st->rows == nullptr) bytes += static_cast<int64_t>(sizeof(OrderedRows));
  QUIVER_RETURN_NOT_OK(credit.Take(bytes));
  st->charged += bytes;
  if (st->rows == nullptr) st->rows = new OrderedRows{{}, spec, credit.pool()};
  st->rows->rows.push_back(std::move(row));
  return Status::OK();
}

void InitOrdered(uint8_t* s) { new (s) OrderedState{nullptr, 0}; }

void DestroyOrdered(uint8_t* s) {
  auto* st = reinterpret_cast<OrderedState*>(s);
  MemoryPool* pool = st->rows ? st->rows->pool : nullptr;
  delete st->rows;
  if (pool != nullptr && st->charged > 0) pool->Release(st->charged);
  *st = OrderedState{nullptr, 0};
}

// Orders two rows by their keys as `spec` says.
bool OrderedLess(const OrderedRow& a, const OrderedRow& b, const std::string& spec) {
  for (size_t k = 0; k < a.keys.size(); ++k) {
    const bool desc = spec[2 * k] == 'D';
    const bool nulls_first = spec[2 * k + 1] == 'F';
    const Value& x = a.keys[k];
    const Value& y = b.keys[k];
    if (x.is_null() || y.is_null()) {
      if (x.is_null() && y.is_null()) continue;
      return x.is_null() == nulls_first;
    }
    const int c = x.Compare(y);
    if (c != 0) return desc ? c > 0 : c < 0;
  }
  return false;
}

AggregateFunction StringAggOrdered() {
  AggregateFunction f;
  f.name = "__string_agg_ordered";
  f.args = {utf8(), utf8(), utf8()};
  f.varargs = AnyType();
  f.return_type = utf8();
  f.state_size = sizeof(OrderedState);
  f.init = InitOrdered;
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states, MemoryPool* pool) {
    StringAccess get(args[0]), sep(args[1]), spec(args[2]);
    ValidAccess vs(args[1]);
    PoolCredit credit(pool);
    return ForValidOrError(args, n, [&](int64_t i) -> Status {
      OrderedRow row;
      for (size_t k = 3; k < args.size(); ++k) {
        row.keys.push_back(ValueFromArray(*args[k].array, args[k].index(i)));
      }
      if (vs(i)) row.sep.assign(sep(i));
      row.value.assign(get(i));
      const std::string_view sp = spec(i);
      if (sp.size() != 2 * row.keys.size()) {
        return Status::UnknownError("string_agg: bad ORDER BY spec '{}'", sp);
      }
      return AddOrderedRow(reinterpret_cast<OrderedState*>(states[i]), std::move(row), std::string(sp),
                           credit);
    });
  };
  f.combine = [](const uint8_t* src, uint8_t* dst, MemoryPool* pool) -> Status {
    const auto* s = reinterpret_cast<const OrderedState*>(src);
    auto* d = reinterpret_cast<OrderedState*>(dst);
    if (s->rows == nullptr) return Status::OK();
    PoolCredit credit(pool);
    for (const OrderedRow& r : s->rows->rows) {
      QUIVER_RETURN_NOT_OK(AddOrderedRow(d, r, s->rows->spec, credit));
    }
    return Status::OK();
  };
  f.finalize = [](uint8_t** states, int64_t n, const TypeRef& out, MemoryPool* pool) -> Result<ArrayRef> {
    kernels::StringOutput o(out, n, pool);
    std::string text;
    for (int64_t i = 0; i < n; ++i) {
      auto* st = reinterpret_cast<OrderedState*>(states[i]);
      if (st->rows == nullptr) {
        QUIVER_RETURN_NOT_OK(o.AppendNull());
        continue;
      }
      std::vector<OrderedRow>& rows = st->rows->rows;
      const std::string& spec = st->rows->spec;
      std::stable_sort(rows.begin(), rows.end(),
                       [&](const OrderedRow& a, const OrderedRow& b) { return OrderedLess(a, b, spec); });
      text.clear();
      for (size_t r = 0; r < rows.size(); ++r) {
        if (r > 0) text += rows[r].sep;
        text += rows[r].value;
      }
      QUIVER_RETURN_NOT_OK(o.Append(text));
    }
    return o.Finish();
  };
  f.destroy = DestroyOrdered;
  return f;
}

// The value of a scalar subquery: its only row, NULL for none, an error
// for more than one.
// The row's value on the heap, and what it is charged to `pool` (null: not
// accounted).
struct HeapValue {
  Value value;
  MemoryPool* pool;
  int64_t charged;
};

struct SingleState {
  int64_t count;
  HeapValue* value;
};

// A heap copy of `v`, charged to `pool`.
Result<HeapValue*> NewValue(MemoryPool* pool, Value v) {
  const int64_t bytes = static_cast<int64_t>(sizeof(HeapValue) + v.str().capacity());
  if (pool != nullptr) QUIVER_RETURN_NOT_OK(pool->Reserve(bytes));
  return new HeapValue{std::move(v), pool, bytes};
}

void DestroyValue(HeapValue* v) {
  if (v == nullptr) return;
  MemoryPool* pool = v->pool;
  const int64_t bytes = v->charged;
  delete v;
  if (pool != nullptr) pool->Release(bytes);  // may delete the pool
}

AggregateFunction SingleValue() {
  AggregateFunction f;
  f.name = "__single_value";
  f.args = {AnyType()};
  f.bind = [](std::vector<TypeRef>* args, TypeRef* ret) {
    if (IsNestedSqlType(*(*args)[0])) {
      return Status::Unsupported("a scalar subquery returning an array, struct or map is not supported yet")
          .WithSqlState(sqlstate::kFeatureNotSupported);
    }
    *ret = (*args)[0];
    return Status::OK();
  };
  f.state_size = sizeof(SingleState);
  f.init = [](uint8_t* s) { new (s) SingleState{0, nullptr}; };
  const char* kTooMany = "more than one row returned by a subquery used as an expression";
  f.update = [kTooMany](const std::vector<VectorRef>& args, int64_t n, uint8_t** states,
                        MemoryPool* pool) -> Status {
    for (int64_t i = 0; i < n; ++i) {
      auto* st = reinterpret_cast<SingleState*>(states[i]);
      if (++st->count > 1)
        return Status::Invalid("{}", kTooMany).WithSqlState(sqlstate::kCardinalityViolation);
      QUIVER_ASSIGN_OR_RAISE(st->value, NewValue(pool, ValueFromArray(*args[0].array, args[0].index(i))));
    }
    return Status::OK();
  };
  f.combine = [](const uint8_t* src, uint8_t* dst, MemoryPool* pool) -> Status {
    const auto* s = reinterpret_cast<const SingleState*>(src);
    auto* d = reinterpret_cast<SingleState*>(dst);
    if (s->count == 0) return Status::OK();
    d->count += s->count;
    if (d->value == nullptr && s->value != nullptr) {
      QUIVER_ASSIGN_OR_RAISE(d->value, NewValue(pool, s->value->value));
    }
    return Status::OK();
  };
  f.finalize = [kTooMany](uint8_t** states, int64_t n, const TypeRef& out, MemoryPool* pool)
      -> Result<ArrayRef> {
    std::vector<Value> values;
    for (int64_t i = 0; i < n; ++i) {
      const auto* st = reinterpret_cast<const SingleState*>(states[i]);
      if (st->count > 1)
        return Status::Invalid("{}", kTooMany).WithSqlState(sqlstate::kCardinalityViolation);
      values.push_back(st->value ? st->value->value : Value::Null(out));
    }
    return ArrayFromValues(values, out, pool);
  };
  f.destroy = [](uint8_t* s) {
    DestroyValue(reinterpret_cast<SingleState*>(s)->value);
    reinterpret_cast<SingleState*>(s)->value = nullptr;
  };
  return f;
}

// Ordered-set aggregates: percentile_cont, percentile_disc, mode (WITHIN
// GROUP (ORDER BY x)), bound as name(x, spec) (planner/bind_expression.cc):
// spec is "A" or "D" (the ORDER BY direction), then for the percentiles
// ":" and the fraction (checked to lie in [0, 1] by the binder). The state
// keeps every non-NULL x (NULLs are ignored, as in PostgreSQL); the final
// step sorts them and picks as PostgreSQL's orderedsetaggs.c does.
struct OrderedSetValues {
  std::vector<Value> values;
  std::vector<double> doubles;  // instead of `values` when x is double precision
  std::vector<int64_t> ints;    // instead of `values` when x is an integer or a date
  std::string spec;
  MemoryPool* pool;
};

struct OrderedSetState {
  OrderedSetValues* set;
  int64_t charged;
};

enum class OrderedSetKind { kPercentileCont, kPercentileDisc, kMode };

int64_t ValueBytes(const Value& v) { return static_cast<int64_t>(sizeof(Value) + v.str().size()); }

Status AddOrderedSetValue(OrderedSetState* st, Value v, std::string_view spec, PoolCredit& credit) {
  int64_t bytes = ValueBytes(v);
  if (st->set == nullptr) bytes += static_cast<int64_t>(sizeof(OrderedSetValues));
  QUIVER_RETURN_NOT_OK(credit.Take(bytes));
  st->charged += bytes;
  if (st->set == nullptr) st->set = new OrderedSetValues{{}, {}, {}, std::string(spec), credit.pool()};
  st->set->values.push_back(std::move(v));
  return Status::OK();
}

Status AddOrderedSetDouble(OrderedSetState* st, double v, std::string_view spec, PoolCredit& credit) {
  int64_t bytes = sizeof(double);
  if (st->set == nullptr) bytes += static_cast<int64_t>(sizeof(OrderedSetValues));
  QUIVER_RETURN_NOT_OK(credit.Take(bytes));
  st->charged += bytes;
  if (st->set == nullptr) st->set = new OrderedSetValues{{}, {}, {}, std::string(spec), credit.pool()};
  st->set->doubles.push_back(v);
  return Status::OK();
}

Status AddOrderedSetInt(OrderedSetState* st, int64_t v, std::string_view spec, PoolCredit& credit) {
  int64_t bytes = sizeof(int64_t);
  if (st->set == nullptr) bytes += static_cast<int64_t>(sizeof(OrderedSetValues));
  QUIVER_RETURN_NOT_OK(credit.Take(bytes));
  st->charged += bytes;
  if (st->set == nullptr) st->set = new OrderedSetValues{{}, {}, {}, std::string(spec), credit.pool()};
  st->set->ints.push_back(v);
  return Status::OK();
}

// percentile_disc and mode over integers and dates (no Value per row).
Value FinishOrderedSetInts(OrderedSetKind kind, OrderedSetValues& set, const TypeRef& out) {
  std::vector<int64_t>& v = set.ints;
  const bool desc = !set.spec.empty() && set.spec[0] == 'D';
  if (desc) {
    std::sort(v.begin(), v.end(), std::greater<int64_t>());
  } else {
    std::sort(v.begin(), v.end());
  }
  const int64_t n = static_cast<int64_t>(v.size());
  if (kind == OrderedSetKind::kMode) {
    size_t best = 0;
    int64_t best_count = 0;
    for (size_t i = 0; i < v.size();) {
      size_t j = i + 1;
      while (j < v.size() && v[j] == v[i]) ++j;
      if (static_cast<int64_t>(j - i) > best_count) {
        best_count = static_cast<int64_t>(j - i);
        best = i;
      }
      i = j;
    }
    return Value::Integer(out, v[best]);
  }
  const size_t colon = set.spec.find(':');
  const double fraction = colon == std::string::npos ? 0.5 : std::strtod(set.spec.c_str() + colon + 1, nullptr);
  const auto rownum = static_cast<int64_t>(std::ceil(fraction * static_cast<double>(n)));
  return Value::Integer(out, v[static_cast<size_t>(std::clamp<int64_t>(rownum, 1, n) - 1)]);
}

// double precision as PostgreSQL orders it: NaN after every other value.
bool DoubleLess(double a, double b) { return std::isnan(a) ? false : std::isnan(b) || a < b; }

// FinishOrderedSet over doubles (no Value per row).
Value FinishOrderedSetDoubles(OrderedSetKind kind, OrderedSetValues& set) {
  std::vector<double>& v = set.doubles;
  const bool desc = !set.spec.empty() && set.spec[0] == 'D';
  if (desc) {
    std::sort(v.begin(), v.end(), [](double a, double b) { return DoubleLess(b, a); });
  } else {
    std::sort(v.begin(), v.end(), DoubleLess);
  }
  const int64_t n = static_cast<int64_t>(v.size());
  if (kind == OrderedSetKind::kMode) {
    auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
    size_t best = 0;
    int64_t best_count = 0;
    for (size_t i = 0; i < v.size();) {
      size_t j = i + 1;
      while (j < v.size() && same(v[j], v[i])) ++j;
      if (static_cast<int64_t>(j - i) > best_count) {
        best_count = static_cast<int64_t>(j - i);
        best = i;
      }
      i = j;
    }
    return Value::Double(v[best]);
  }
  const size_t colon = set.spec.find(':');
  const double fraction = colon == std::string::npos ? 0.5 : std::strtod(set.spec.c_str() + colon + 1, nullptr);
  if (kind == OrderedSetKind::kPercentileDisc) {
    const auto rownum = static_cast<int64_t>(std::ceil(fraction * static_cast<double>(n)));
    return Value::Double(v[static_cast<size_t>(std::clamp<int64_t>(rownum, 1, n) - 1)]);
  }
  const double position = fraction * static_cast<double>(n - 1);
  const auto first = static_cast<size_t>(std::floor(position));
  const auto second = static_cast<size_t>(std::ceil(position));
  if (first == second) return Value::Double(v[first]);
  const double proportion = position - static_cast<double>(first);
  return Value::Double(v[first] + (v[second] - v[first]) * proportion);
}

// PostgreSQL's interval_mul (fractions of months and days cascade down).
IntervalValue ScaleInterval(const IntervalValue& a, double f) {
  auto ts_round = [](double x) { return std::rint(x * 1e6) / 1e6; };
  IntervalValue r;
  r.months = static_cast<int32_t>(a.months * f);
  r.days = static_cast<int32_t>(a.days * f);
  const double month_remainder_days = ts_round((a.months * f - r.months) * 30);
  double sec_remainder =
      ts_round((a.days * f - r.days + month_remainder_days - static_cast<int>(month_remainder_days)) *
               86400);
  if (std::fabs(sec_remainder) >= 86400) {
    const int whole = static_cast<int>(sec_remainder / 86400);
    r.days += whole;
    sec_remainder -= whole * 86400.0;
  }
  r.days += static_cast<int32_t>(month_remainder_days);
  r.micros = static_cast<int64_t>(std::rint(static_cast<double>(a.micros) * f + sec_remainder * 1e6));
  return r;
}

Result<Value> FinishOrderedSet(OrderedSetKind kind, OrderedSetValues& set, const TypeRef& out) {
  std::vector<Value>& v = set.values;
  const bool desc = !set.spec.empty() && set.spec[0] == 'D';
  std::stable_sort(v.begin(), v.end(), [desc](const Value& a, const Value& b) {
    const int c = a.Compare(b);
    return desc ? c > 0 : c < 0;
  });
  const int64_t n = static_cast<int64_t>(v.size());
  if (kind == OrderedSetKind::kMode) {
    size_t best = 0;
    int64_t best_count = 0;
    for (size_t i = 0; i < v.size();) {
      size_t j = i + 1;
      while (j < v.size() && v[j].Compare(v[i]) == 0) ++j;
      if (static_cast<int64_t>(j - i) > best_count) {
        best_count = static_cast<int64_t>(j - i);
        best = i;
      }
      i = j;
    }
    return v[best];
  }
  const size_t colon = set.spec.find(':');
  const double fraction = colon == std::string::npos ? 0.5 : std::strtod(set.spec.c_str() + colon + 1, nullptr);
  if (kind == OrderedSetKind::kPercentileDisc) {
    const auto rownum = static_cast<int64_t>(std::ceil(fraction * static_cast<double>(n)));
    return v[static_cast<size_t>(std::clamp<int64_t>(rownum, 1, n) - 1)];
  }
  const double position = fraction * static_cast<double>(n - 1);
  const auto first = static_cast<size_t>(std::floor(position));
  const auto second = static_cast<size_t>(std::ceil(position));
  if (first == second) return v[first];
  const double proportion = position - static_cast<double>(first);
  if (out->id == TypeId::kDouble) {
    const double lo = v[first].floating(), hi = v[second].floating();
    return Value::Double(lo + (hi - lo) * proportion);
  }
  // interval: lo + (hi - lo) * proportion
  const IntervalValue& lo = v[first].interval();
  const IntervalValue& hi = v[second].interval();
  const IntervalValue diff{hi.months - lo.months, hi.days - lo.days, hi.micros - lo.micros};
  const IntervalValue scaled = ScaleInterval(diff, proportion);
  return Value::Interval({lo.months + scaled.months, lo.days + scaled.days, lo.micros + scaled.micros});
}

AggregateFunction OrderedSetAggregate(const char* name, OrderedSetKind kind, TypeRef x) {
  AggregateFunction f;
  f.name = name;
  f.args = {x ? x : AnyType(), utf8()};
  f.return_type = x;
  if (!x) {
    f.bind = [](std::vector<TypeRef>* args, TypeRef* ret) {
      *ret = (*args)[0];
      return Status::OK();
    };
  }
  f.state_size = sizeof(OrderedSetState);
  f.init = [](uint8_t* s) { new (s) OrderedSetState{nullptr, 0}; };
  f.update = [](const std::vector<VectorRef>& args, int64_t n, uint8_t** states, MemoryPool* pool) {
    StringAccess spec(args[1]);
    PoolCredit credit(pool);
    if (args[0].array->type->id == TypeId::kDouble) {
      Status status;
      DispatchFixed<double>(args[0], [&](auto get) {
        ValidAccess valid(args[0]);
        for (int64_t i = 0; i < n && status.ok(); ++i) {
          if (!valid(i)) continue;
          status = AddOrderedSetDouble(reinterpret_cast<OrderedSetState*>(states[i]), get(i), spec(i),
                                       credit);
        }
      });
      return status;
    }
    auto add_ints = [&](auto tag) {
      using T = decltype(tag);
      Status status;
      DispatchFixed<T>(args[0], [&](auto get) {
        ValidAccess valid(args[0]);
        for (int64_t i = 0; i < n && status.ok(); ++i) {
          if (!valid(i)) continue;
          status = AddOrderedSetInt(reinterpret_cast<OrderedSetState*>(states[i]),
                                    static_cast<int64_t>(get(i)), spec(i), credit);
        }
      });
      return status;
    };
    switch (args[0].array->type->id) {
      case TypeId::kInt16:
        return add_ints(int16_t{});
      case TypeId::kInt32:
      case TypeId::kDate32:
        return add_ints(int32_t{});
      case TypeId::kInt64:
        return add_ints(int64_t{});
      default:
        break;
    }
    return ForValidOrError(args, n, [&](int64_t i) -> Status {
      return AddOrderedSetValue(reinterpret_cast<OrderedSetState*>(states[i]),
                                ValueFromArray(*args[0].array, args[0].index(i)), spec(i), credit);
    });
  };
  f.combine = [](const uint8_t* src, uint8_t* dst, MemoryPool* pool) -> Status {
    const auto* s = reinterpret_cast<const OrderedSetState*>(src);
    auto* d = reinterpret_cast<OrderedSetState*>(dst);
    if (s->set == nullptr) return Status::OK();
    PoolCredit credit(pool);
    for (const Value& v : s->set->values) {
      QUIVER_RETURN_NOT_OK(AddOrderedSetValue(d, v, s->set->spec, credit));
    }
    for (double v : s->set->doubles) {
      QUIVER_RETURN_NOT_OK(AddOrderedSetDouble(d, v, s->set->spec, credit));
    }
    for (int64_t v : s->set->ints) {
      QUIVER_RETURN_NOT_OK(AddOrderedSetInt(d, v, s->set->spec, credit));
    }
    return Status::OK();
  };
  f.finalize = [kind](uint8_t** states, int64_t n, const TypeRef& out, MemoryPool* pool)
      -> Result<ArrayRef> {
    std::vector<Value> values;
    for (int64_t i = 0; i < n; ++i) {
      auto* st = reinterpret_cast<OrderedSetState*>(states[i]);
      if (st->set == nullptr ||
          (st->set->values.empty() && st->set->doubles.empty() && st->set->ints.empty())) {
        values.push_back(Value::Null(out));
        continue;
      }
      if (!st->set->doubles.empty()) {
        values.push_back(FinishOrderedSetDoubles(kind, *st->set));
        continue;
      }
      if (!st->set->ints.empty()) {
        values.push_back(FinishOrderedSetInts(kind, *st->set, out));
        continue;
      }
      QUIVER_ASSIGN_OR_RAISE(Value v, FinishOrderedSet(kind, *st->set, out));
      values.push_back(std::move(v));
    }
    return ArrayFromValues(values, out, pool);
  };
  f.destroy = [](uint8_t* s) {
    auto* st = reinterpret_cast<OrderedSetState*>(s);
    MemoryPool* pool = st->set ? st->set->pool : nullptr;
    delete st->set;
    if (pool != nullptr && st->charged > 0) pool->Release(st->charged);
    *st = OrderedSetState{nullptr, 0};
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
    // Checked: a sum past 128 bits or 38 digits is refused, not wrapped.
    AggregateFunction f = Sum<int128_t, int128_t, int128_t>(AnyDecimal(), nullptr, true);
    f.bind = [](std::vector<TypeRef>* args, TypeRef* ret) {
      *ret = decimal128(kMaxDecimalPrecision, (*args)[0]->scale);
      return Status::OK();
    };
    f.finalize = [finish = f.finalize](uint8_t** states, int64_t n, const TypeRef& out,
                                       MemoryPool* pool) -> Result<ArrayRef> {
      const int128_t limit = Pow10Int128(kMaxDecimalPrecision);
      for (int64_t i = 0; i < n; ++i) {
        const int128_t v = reinterpret_cast<const SumState<int128_t>*>(states[i])->sum;
        if (v >= limit || v <= -limit) return SumOutOfRange("sum");
      }
      return finish(states, n, out, pool);
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
    r->Add(ExactVariance<int32_t>(v.name, int32(), v.kind));
    r->Add(ExactVariance<int64_t>(v.name, int64(), v.kind));
    r->Add(ExactVariance<int16_t>(v.name, int16(), v.kind));
    r->Add(ExactVariance<int128_t>(v.name, AnyDecimal(), v.kind));
    r->Add(Variance<double>(v.name, float64(), v.kind));
  }
  struct R {
    const char* name;
    RegrKind kind;
  };
  for (const R& g : {R{"regr_count", RegrKind::kCount}, R{"regr_sxx", RegrKind::kSxx},
                     R{"regr_syy", RegrKind::kSyy}, R{"regr_sxy", RegrKind::kSxy},
                     R{"regr_avgx", RegrKind::kAvgX}, R{"regr_avgy", RegrKind::kAvgY},
                     R{"covar_pop", RegrKind::kCovarPop}, R{"covar_samp", RegrKind::kCovarSamp},
                     R{"corr", RegrKind::kCorr}, R{"regr_r2", RegrKind::kR2},
                     R{"regr_slope", RegrKind::kSlope}, R{"regr_intercept", RegrKind::kIntercept}}) {
    r->Add(Regression(g.name, g.kind));
  }
  r->Add(StringAgg());
  r->Add(OrderedSetAggregate("percentile_cont", OrderedSetKind::kPercentileCont, float64()));
  r->Add(OrderedSetAggregate("percentile_cont", OrderedSetKind::kPercentileCont,
                             month_day_nano_interval()));
  r->Add(OrderedSetAggregate("percentile_disc", OrderedSetKind::kPercentileDisc, nullptr));
  r->Add(OrderedSetAggregate("mode", OrderedSetKind::kMode, nullptr));
  r->Add(StringAggOrdered());
  r->Add(SingleValue());
}

}  // namespace quiver
