// generate_series as PostgreSQL 15 has it (funcs.sgml, "Set Returning
// Functions"): over integer, bigint and numeric with an optional step (1 by
// default), and over timestamp / timestamp with time zone with an interval
// step (dates resolve to timestamptz, as in PostgreSQL). A zero step is an
// error; the series includes `stop` when a step lands on it and is empty
// when `stop` lies behind `start`. Timestamps advance by adding the step
// to the previous value (months first, the day clamped to the month's
// length), so '2024-01-31' by '1 month' gives 2024-02-29, then 2024-03-29.
#include <algorithm>

#include "common/calendar.h"
#include "functions/kernel_util.h"
#include "functions/table_function.h"

namespace quiver {
namespace {

Status ZeroStep() {
  return Status::Invalid("step size cannot equal zero").WithSqlState(sqlstate::kInvalidParameterValue);
}

// An arithmetic series of T (integers and scaled decimals), stopping
// without error where the next value would overflow T (PostgreSQL stops
// there too rather than wrapping).
template <typename T>
class ArithmeticCursor final : public TableFunctionCursor {
 public:
  ArithmeticCursor(TypeRef type, T start, T stop, T step)
      : type_(std::move(type)), next_(start), stop_(stop), step_(step) {}

  Result<std::vector<ArrayRef>> Next(int64_t max_rows, MemoryPool* pool) override {
    int64_t n = 0;
    QUIVER_ASSIGN_OR_RAISE(kernels::FixedOutput out, kernels::MakeFixedOutput(type_, {}, max_rows, pool));
    T* values = out.template data<T>();
    while (!done_ && n < max_rows && (step_ > 0 ? next_ <= stop_ : next_ >= stop_)) {
      values[n++] = next_;
      if (__builtin_add_overflow(next_, step_, &next_)) done_ = true;
    }
    if (n < max_rows) done_ = true;
    return std::vector<ArrayRef>{kernels::FinishFixed(type_, n, std::move(out))};
  }

 private:
  TypeRef type_;
  T next_, stop_, step_;
  bool done_ = false;
};


class TimestampCursor final : public TableFunctionCursor {
 public:
  TimestampCursor(TypeRef type, int64_t start, int64_t stop, IntervalValue step, bool forward)
      : type_(std::move(type)), next_(start), stop_(stop), step_(step), forward_(forward) {}

  Result<std::vector<ArrayRef>> Next(int64_t max_rows, MemoryPool* pool) override {
    int64_t n = 0;
    QUIVER_ASSIGN_OR_RAISE(kernels::FixedOutput out, kernels::MakeFixedOutput(type_, {}, max_rows, pool));
    int64_t* values = out.data<int64_t>();
    while (!done_ && n < max_rows && (forward_ ? next_ <= stop_ : next_ >= stop_)) {
      values[n++] = next_;
      QUIVER_ASSIGN_OR_RAISE(next_, Advance(next_));
    }
    if (n < max_rows) done_ = true;
    return std::vector<ArrayRef>{kernels::FinishFixed(type_, n, std::move(out))};
  }

 private:
  // next + step as timestamp + interval computes it; past the timestamp
  // range (year 294276) the series ends.
  Result<int64_t> Advance(int64_t ts) {
    if (step_.months != 0) {
      const auto [days, tod] = SplitDays(ts, kMicrosPerDay);
      const CivilDate date = CivilFromDays(days);
      const FloorDivided ym = FloorDivMod(date.year * 12 + (date.month - 1) + step_.months, 12);
      const auto m = static_cast<unsigned>(ym.rem + 1);
      const unsigned d = std::min(date.day, DaysInMonth(ym.quot, m));
      const int64_t day_number = DaysFromCivil(ym.quot, m, d);
      if (day_number > kMaxDays || day_number < -kMaxDays) {
        done_ = true;
        return ts;
      }
      ts = day_number * kMicrosPerDay + tod;
    }
    int64_t r;
    if (__builtin_mul_overflow(static_cast<int64_t>(step_.days), kMicrosPerDay, &r) ||
        __builtin_add_overflow(r, step_.micros, &r) || __builtin_add_overflow(ts, r, &r)) {
      done_ = true;
      return ts;
    }
    return r;
  }

  static constexpr int64_t kMaxDays = 106'000'000;  // far beyond PostgreSQL's year 294276
  TypeRef type_;
  int64_t next_, stop_;
  IntervalValue step_;
  bool forward_;
  bool done_ = false;
};

int DecimalScale(const TypeRef& t) { return t->id == TypeId::kDecimal128 ? t->scale : 0; }

int128_t Rescale(int128_t v, int from, int to) {
  for (int i = from; i < to; ++i) v *= 10;
  return v;
}

void AddIntegerSeries(TableFunctionRegistry* r, const TypeRef& t) {
  auto start = [](const std::vector<Value>& a,
                  const std::vector<TypeRef>& types) -> Result<std::unique_ptr<TableFunctionCursor>> {
    const int64_t step = a.size() == 3 ? a[2].integer() : 1;
    if (step == 0) return ZeroStep();
    if (types[0]->id == TypeId::kInt32) {
      return std::unique_ptr<TableFunctionCursor>(std::make_unique<ArithmeticCursor<int32_t>>(
          types[0], static_cast<int32_t>(a[0].integer()), static_cast<int32_t>(a[1].integer()),
          static_cast<int32_t>(step)));
    }
    return std::unique_ptr<TableFunctionCursor>(std::make_unique<ArithmeticCursor<int64_t>>(
        types[0], a[0].integer(), a[1].integer(), step));
  };
  r->Add({"generate_series", {t, t}, {"generate_series"}, nullptr, start});
  r->Add({"generate_series", {t, t, t}, {"generate_series"}, nullptr, start});
}

void AddNumericSeries(TableFunctionRegistry* r) {
  auto bind = [](const std::vector<TypeRef>& args, std::vector<TypeRef>* out) -> Status {
    int scale = 0;
    for (const auto& a : args) scale = std::max(scale, DecimalScale(a));
    *out = {decimal128(kMaxDecimalPrecision, scale)};
    return Status::OK();
  };
  auto start = [](const std::vector<Value>& a,
                  const std::vector<TypeRef>& types) -> Result<std::unique_ptr<TableFunctionCursor>> {
    const int scale = types[0]->scale;
    auto scaled = [&](const Value& v) { return Rescale(v.decimal(), DecimalScale(v.type()), scale); };
    const int128_t step = a.size() == 3 ? scaled(a[2]) : Rescale(1, 0, scale);
    if (step == 0) return ZeroStep();
    return std::unique_ptr<TableFunctionCursor>(std::make_unique<ArithmeticCursor<int128_t>>(
        types[0], scaled(a[0]), scaled(a[1]), step));
  };
  r->Add({"generate_series", {AnyDecimal(), AnyDecimal()}, {"generate_series"}, bind, start});
  r->Add({"generate_series",
          {AnyDecimal(), AnyDecimal(), AnyDecimal()},
          {"generate_series"},
          bind,
          start});
}

void AddTimestampSeries(TableFunctionRegistry* r, const TypeRef& t) {
  auto start = [](const std::vector<Value>& a,
                  const std::vector<TypeRef>& types) -> Result<std::unique_ptr<TableFunctionCursor>> {
    const IntervalValue step = a[2].interval();
    // PostgreSQL orders intervals by months * 30 days + days + time.
    const __int128 span = static_cast<__int128>(step.months) * 30 * kMicrosPerDay +
                          static_cast<__int128>(step.days) * kMicrosPerDay + step.micros;
    if (span == 0) return ZeroStep();
    return std::unique_ptr<TableFunctionCursor>(std::make_unique<TimestampCursor>(
        types[0], a[0].integer(), a[1].integer(), step, span > 0));
  };
  r->Add({"generate_series", {t, t, month_day_nano_interval()}, {"generate_series"}, nullptr, start});
}

}  // namespace

void RegisterGenerateSeries(TableFunctionRegistry* r) {
  AddIntegerSeries(r, int32());
  AddIntegerSeries(r, int64());
  AddNumericSeries(r);
  // timestamptz first: a date (or an untyped literal) resolves to it, as
  // timestamptz is PostgreSQL's preferred type of the date/time category.
  AddTimestampSeries(r, timestamp(TimeUnit::kMicro, "UTC"));
  AddTimestampSeries(r, timestamp(TimeUnit::kMicro));
}

}  // namespace quiver
