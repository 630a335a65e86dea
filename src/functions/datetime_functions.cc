// Date and time functions: extract / date_part, date_trunc, make_date,
// current_date, now / current_timestamp, age-free arithmetic lives in
// arithmetic.cc.
//
// extract(field FROM x) returns numeric (PostgreSQL 14+): an integer-valued
// numeric(18,0) for calendar fields, numeric(18,6) for second and epoch;
// date_part('field', x) returns double precision.
#include <cmath>
#include <string>

#include "common/calendar.h"
#include "functions/function.h"
#include "functions/kernel_util.h"
#include "vector/sql_type.h"

namespace quiver {
namespace {

using kernels::StringAccess;

enum class Field {
  kYear, kMonth, kDay, kHour, kMinute, kSecond, kMillisecond, kMicrosecond, kQuarter, kDow,
  kIsoDow, kDoy, kWeek, kIsoYear, kEpoch, kDecade, kCentury, kMillennium, kJulian
};

Result<Field> ParseField(std::string_view raw) {
  std::string f(raw);
  for (char& c : f) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (f == "year" || f == "years" || f == "y" || f == "yr" || f == "yrs") return Field::kYear;
  if (f == "month" || f == "months" || f == "mon" || f == "mons") return Field::kMonth;
  if (f == "day" || f == "days" || f == "d") return Field::kDay;
  if (f == "hour" || f == "hours" || f == "h" || f == "hr") return Field::kHour;
  if (f == "minute" || f == "minutes" || f == "min" || f == "m") return Field::kMinute;
  if (f == "second" || f == "seconds" || f == "sec" || f == "s") return Field::kSecond;
  if (f == "millisecond" || f == "milliseconds" || f == "ms") return Field::kMillisecond;
  if (f == "microsecond" || f == "microseconds" || f == "us") return Field::kMicrosecond;
  if (f == "quarter" || f == "qtr") return Field::kQuarter;
  if (f == "dow") return Field::kDow;
  if (f == "isodow") return Field::kIsoDow;
  if (f == "doy") return Field::kDoy;
  if (f == "week" || f == "weeks" || f == "w") return Field::kWeek;
  if (f == "isoyear") return Field::kIsoYear;
  if (f == "epoch") return Field::kEpoch;
  if (f == "decade" || f == "decades") return Field::kDecade;
  if (f == "century" || f == "centuries") return Field::kCentury;
  if (f == "millennium" || f == "millennia") return Field::kMillennium;
  if (f == "julian") return Field::kJulian;
  return Status::Invalid("unit \"{}\" not recognized", raw)
      .WithSqlState(sqlstate::kInvalidParameterValue);
}

// ISO 8601 week number and week-year of a day.
void IsoWeek(int64_t days, int64_t* week, int64_t* iso_year) {
  int64_t y = CivilFromDays(days).year;
  auto week1_start = [](int64_t year) {
    const int64_t jan4 = DaysFromCivil(year, 1, 4);
    return jan4 - (IsoDayOfWeek(jan4) - 1);
  };
  int64_t start = week1_start(y);
  if (days < start) {
    --y;
    start = week1_start(y);
  } else if (days >= week1_start(y + 1)) {
    ++y;
    start = week1_start(y);
  }
  *week = (days - start) / 7 + 1;
  *iso_year = y;
}

// Field value scaled by 10^6 (so seconds and epoch keep microseconds).
Result<int128_t> FieldMicros(Field field, int64_t micros, bool is_date) {
  const auto [days, tod] = SplitDays(micros, kMicrosPerDay);
  const auto [y, m, d] = CivilFromDays(days);
  const int128_t M = 1000000;
  switch (field) {
    case Field::kYear:
      return (y <= 0 ? y - 1 : y) * M;
    case Field::kMonth:
      return static_cast<int128_t>(m) * M;
    case Field::kDay:
      return static_cast<int128_t>(d) * M;
    case Field::kQuarter:
      return static_cast<int128_t>((m - 1) / 3 + 1) * M;
    case Field::kDow:
      return static_cast<int128_t>(IsoDayOfWeek(days) % 7) * M;
    case Field::kIsoDow:
      return static_cast<int128_t>(IsoDayOfWeek(days)) * M;
    case Field::kDoy:
      return static_cast<int128_t>(days - DaysFromCivil(y, 1, 1) + 1) * M;
    case Field::kWeek: {
      int64_t w, iy;
      IsoWeek(days, &w, &iy);
      return w * M;
    }
    case Field::kIsoYear: {
      int64_t w, iy;
      IsoWeek(days, &w, &iy);
      return iy * M;
    }
    case Field::kDecade:
      return FloorDiv(y, 10) * M;
    case Field::kCentury:
      return (y > 0 ? (y + 99) / 100 : -((99 - (y - 1)) / 100)) * M;
    case Field::kMillennium:
      return (y > 0 ? (y + 999) / 1000 : -((999 - (y - 1)) / 1000)) * M;
    case Field::kJulian:
      return (static_cast<int128_t>(days) + 2440588) * M;
    case Field::kEpoch:
      return static_cast<int128_t>(micros);
    case Field::kHour:
      if (is_date) break;
      return static_cast<int128_t>(tod / 3600000000LL) * M;
    case Field::kMinute:
      if (is_date) break;
      return static_cast<int128_t>(tod / 60000000 % 60) * M;
    case Field::kSecond:
      if (is_date) break;
      return static_cast<int128_t>(tod % 60000000);
    case Field::kMillisecond:
      if (is_date) break;
      return static_cast<int128_t>(tod % 60000000) * 1000;
    case Field::kMicrosecond:
      if (is_date) break;
      return static_cast<int128_t>(tod % 60000000) * M;
  }
  return Status::Invalid("unit is not supported for type date")
      .WithSqlState(sqlstate::kFeatureNotSupported);
}

Result<int128_t> IntervalFieldMicros(Field field, int32_t months, int32_t days, int64_t micros) {
  const int128_t M = 1000000;
  switch (field) {
    case Field::kYear:
      return static_cast<int128_t>(months / 12) * M;
    case Field::kMonth:
      return static_cast<int128_t>(months % 12) * M;
    case Field::kDay:
      return static_cast<int128_t>(days) * M;
    case Field::kHour:
      return static_cast<int128_t>(micros / 3600000000LL) * M;
    case Field::kMinute:
      return static_cast<int128_t>(micros / 60000000 % 60) * M;
    case Field::kSecond:
      return static_cast<int128_t>(micros % 60000000);
    case Field::kEpoch:
      return (static_cast<int128_t>(months) * 30 * 86400 + static_cast<int128_t>(days) * 86400) * M +
             micros;
    default:
      return Status::Invalid("unit is not supported for type interval")
          .WithSqlState(sqlstate::kFeatureNotSupported);
  }
}

// extract/date_part over (field text constant, value).
ScalarKernel ExtractKernel(bool as_double) {
  return [as_double](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                     const TypeRef& out_type) -> Result<ArrayRef> {
    if (!args[0].constant || !args[0].IsValid(0)) {
      return Status::Unsupported("extract/date_part with a non-constant field");
    }
    QUIVER_ASSIGN_OR_RAISE(Field field, ParseField(StringAccess(args[0])(0)));
    QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, {args[1]}, n, ctx.pool));
    const VectorRef& v = args[1];
    const TypeId id = v.array->type->id;
    const int out_scale = as_double ? 6 : out_type->scale;
    for (int64_t i = 0; i < n; ++i) {
      if (!out.IsValid(i)) continue;
      const int64_t s = v.index(i);
      int128_t scaled;
      if (id == TypeId::kDate32) {
        QUIVER_ASSIGN_OR_RAISE(scaled, FieldMicros(field, v.values<int32_t>()[s] * kMicrosPerDay, true));
      } else if (id == TypeId::kTimestamp) {
        QUIVER_ASSIGN_OR_RAISE(scaled, FieldMicros(field, v.values<int64_t>()[s], false));
      } else if (id == TypeId::kTime64) {
        const int64_t t = v.values<int64_t>()[s];
        if (field == Field::kEpoch) {
          scaled = t;
        } else if (field == Field::kHour || field == Field::kMinute || field == Field::kSecond ||
                   field == Field::kMillisecond || field == Field::kMicrosecond) {
          QUIVER_ASSIGN_OR_RAISE(scaled, FieldMicros(field, t, false));
        } else {
          return Status::Invalid("unit is not supported for type time without time zone")
              .WithSqlState(sqlstate::kFeatureNotSupported);
        }
      } else {
        const uint8_t* p = v.array->GetRaw<uint8_t>(1) + (v.array->offset + s) * 16;
        int32_t months, days;
        int64_t nanos;
        std::memcpy(&months, p, 4);
        std::memcpy(&days, p + 4, 4);
        std::memcpy(&nanos, p + 8, 8);
        QUIVER_ASSIGN_OR_RAISE(scaled, IntervalFieldMicros(field, months, days, nanos / 1000));
      }
      if (as_double) {
        out.data<double>()[i] = static_cast<double>(scaled) / 1e6;
      } else {
        // 6 fraction digits -> the output scale.
        int128_t v6 = scaled;
        if (out_scale < 6) v6 /= Pow10Int128(6 - out_scale);
        out.data<int128_t>()[i] = v6;
      }
    }
    (void)out_scale;
    return kernels::FinishFixed(out_type, n, std::move(out));
  };
}

// extract's numeric scale: fields with fractions keep 6 digits.
Status BindExtract(std::vector<TypeRef>* args, TypeRef* ret) {
  *ret = decimal128(18, 0);
  return Status::OK();
}

Result<int64_t> TruncMicros(Field field, int64_t micros) {
  const auto [days, tod] = SplitDays(micros, kMicrosPerDay);
  const auto [y, m, d] = CivilFromDays(days);
  auto at_day = [](int64_t dd) { return dd * kMicrosPerDay; };
  switch (field) {
    case Field::kMillennium:
      return at_day(DaysFromCivil(((y - 1) / 1000) * 1000 + 1, 1, 1));
    case Field::kCentury:
      return at_day(DaysFromCivil(((y - 1) / 100) * 100 + 1, 1, 1));
    case Field::kDecade:
      return at_day(DaysFromCivil(FloorDiv(y, 10) * 10, 1, 1));
    case Field::kYear:
      return at_day(DaysFromCivil(y, 1, 1));
    case Field::kQuarter:
      return at_day(DaysFromCivil(y, ((m - 1) / 3) * 3 + 1, 1));
    case Field::kMonth:
      return at_day(DaysFromCivil(y, m, 1));
    case Field::kWeek:
      return at_day(days - (IsoDayOfWeek(days) - 1));
    case Field::kDay:
      return at_day(days);
    case Field::kHour:
      return at_day(days) + tod / 3600000000LL * 3600000000LL;
    case Field::kMinute:
      return at_day(days) + tod / 60000000 * 60000000;
    case Field::kSecond:
      return at_day(days) + tod / 1000000 * 1000000;
    case Field::kMillisecond:
      return at_day(days) + tod / 1000 * 1000;
    case Field::kMicrosecond:
      return micros;
    default:
      return Status::Invalid("unit not supported by date_trunc")
          .WithSqlState(sqlstate::kFeatureNotSupported);
  }
}

ScalarKernel DateTruncKernel(bool date_input) {
  return [date_input](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                      const TypeRef& out_type) -> Result<ArrayRef> {
    if (!args[0].constant || !args[0].IsValid(0)) {
      return Status::Unsupported("date_trunc with a non-constant unit");
    }
    QUIVER_ASSIGN_OR_RAISE(Field field, ParseField(StringAccess(args[0])(0)));
    QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, {args[1]}, n, ctx.pool));
    for (int64_t i = 0; i < n; ++i) {
      if (!out.IsValid(i)) continue;
      const int64_t s = args[1].index(i);
      const int64_t micros =
          date_input ? args[1].values<int32_t>()[s] * kMicrosPerDay : args[1].values<int64_t>()[s];
      QUIVER_ASSIGN_OR_RAISE(out.data<int64_t>()[i], TruncMicros(field, micros));
    }
    return kernels::FinishFixed(out_type, n, std::move(out));
  };
}

}  // namespace

void RegisterDateTimeFunctions(FunctionRegistry* r) {
  const TypeRef text = utf8();
  const TypeRef ts = timestamp(TimeUnit::kMicro);
  const TypeRef tstz = timestamp(TimeUnit::kMicro, "UTC");
  for (const TypeRef& t : {date32(), ts, tstz, time64(TimeUnit::kMicro), month_day_nano_interval()}) {
    r->Add({"extract", {text, t}, nullptr, decimal128(18, 0), BindExtract, ExtractKernel(false)});
    r->Add({"date_part", {text, t}, nullptr, float64(), nullptr, ExtractKernel(true)});
  }
  r->Add({"date_trunc", {text, ts}, nullptr, ts, nullptr, DateTruncKernel(false)});
  r->Add({"date_trunc", {text, tstz}, nullptr, tstz, nullptr, DateTruncKernel(false)});
  r->Add({"date_trunc", {text, date32()}, nullptr, ts, nullptr, DateTruncKernel(true)});
  r->Add({"make_date", {int32(), int32(), int32()}, nullptr, date32(), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out)
              -> Result<ArrayRef> {
            QUIVER_ASSIGN_OR_RAISE(auto o, kernels::MakeFixedOutput(out, args, n, ctx.pool));
            for (int64_t i = 0; i < n; ++i) {
              if (!o.IsValid(i)) continue;
              const int32_t y = args[0].values<int32_t>()[args[0].index(i)];
              const int32_t m = args[1].values<int32_t>()[args[1].index(i)];
              const int32_t d = args[2].values<int32_t>()[args[2].index(i)];
              if (m < 1 || m > 12 || d < 1 || d > 31 || y == 0) {
                return Status::Invalid("date field value out of range: {}-{:02d}-{:02d}", y, m, d)
                    .WithSqlState(sqlstate::kDatetimeFieldOverflow);
              }
              const auto days = static_cast<int32_t>(DaysFromCivil(y < 0 ? y + 1 : y, m, d));
              if (static_cast<int32_t>(CivilFromDays(days).day) != d) {
                return Status::Invalid("date field value out of range: {}-{:02d}-{:02d}", y, m, d)
                    .WithSqlState(sqlstate::kDatetimeFieldOverflow);
              }
              o.data<int32_t>()[i] = days;
            }
            return kernels::FinishFixed(out, n, std::move(o));
          }});
  ScalarFunction current_date{"current_date", {}, nullptr, date32(), nullptr,
                              [](KernelContext& ctx, const std::vector<VectorRef>&, int64_t n,
                                 const TypeRef&) {
                                return MakeArrayFromValue(
                                    Value::Date(static_cast<int32_t>(FloorDiv(NowMicros(), kMicrosPerDay))), n,
                                    ctx.pool);
                              }};
  current_date.is_volatile = true;
  r->Add(current_date);
  for (const char* name : {"now", "current_timestamp", "transaction_timestamp", "statement_timestamp"}) {
    ScalarFunction now{name, {}, nullptr, tstz, nullptr,
                       [](KernelContext& ctx, const std::vector<VectorRef>&, int64_t n, const TypeRef&) {
                         return MakeArrayFromValue(Value::Timestamp(NowMicros(), true), n, ctx.pool);
                       }};
    now.is_volatile = true;
    r->Add(now);
  }
}

}  // namespace quiver
