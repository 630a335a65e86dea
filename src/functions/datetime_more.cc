// More of PostgreSQL's date and time functions: make_timestamp,
// make_timestamptz, make_interval (positional or named arguments; the binder
// fills the missing ones with 0), justify_days / justify_hours /
// justify_interval, date_bin, age, and timezone(zone, ts) = `ts AT TIME ZONE
// zone` with IANA zone names (common/time_zone.h reads the system's TZif
// files).
//
// Intervals are Arrow's month_day_nano ({int32 months, int32 days, int64
// ns}) holding whole microseconds, PostgreSQL's {month, day, time}.
#include <chrono>
#include <cmath>
#include <memory>
#include <string>

#include "common/calendar.h"
#include "common/time_zone.h"
#include "functions/families.h"
#include "functions/function.h"
#include "functions/kernel_util.h"

namespace quiver {
namespace {

using kernels::ReadInt;

using kernels::StringAccess;

struct Mdn {
  int32_t months;
  int32_t days;
  int64_t nanos;
};
static_assert(sizeof(Mdn) == 16);

double ReadDouble(const VectorRef& v, int64_t i) { return v.values<double>()[v.index(i)]; }
int64_t ReadTs(const VectorRef& v, int64_t i) { return v.values<int64_t>()[v.index(i)]; }
Mdn ReadInterval(const VectorRef& v, int64_t i) {
  Mdn m;
  std::memcpy(&m, v.array->GetValues<uint8_t>(1) + 16 * v.index(i), 16);
  return m;
}

Status IntervalOutOfRange() {
  return Status::Invalid("interval out of range").WithSqlState(sqlstate::kDatetimeFieldOverflow);
}


// PostgreSQL's make_timestamp: negative years are BC, year 0 does not exist.
Result<int64_t> MakeTimestamp(int64_t y, int64_t mo, int64_t d, int64_t h, int64_t mi, double sec) {
  if (y == 0 || mo < 1 || mo > 12 || d < 1 || y > 294276 || y < -4713 ||
      d > static_cast<int64_t>(DaysInMonth(y < 0 ? y + 1 : y, static_cast<unsigned>(mo)))) {
    return Status::Invalid("date field value out of range: {}-{:02d}-{:02d}", y, mo, d)
        .WithSqlState(sqlstate::kDatetimeFieldOverflow);
  }
  if (h < 0 || mi < 0 || mi > 59 || !(sec >= 0) || sec > 60 || h > 24 ||
      (h == 24 && (mi > 0 || sec > 0))) {
    return Status::Invalid("time field value out of range: {}:{:02d}:{:02}", h, mi, sec)
        .WithSqlState(sqlstate::kDatetimeFieldOverflow);
  }
  const int64_t days = DaysFromCivil(y < 0 ? y + 1 : y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return days * kMicrosPerDay + (h * 60 + mi) * 60 * 1000000 +
         static_cast<int64_t>(std::nearbyint(sec * 1000000.0));
}

void Justify(Mdn* v, bool days, bool hours) {
  int64_t time = v->nanos / 1000;
  int64_t day = v->days, month = v->months;
  if (hours) {
    const int64_t whole = time / kMicrosPerDay;
    time -= whole * kMicrosPerDay;
    day += whole;
  }
  if (days) {
    const int64_t whole = day / 30;
    day -= whole * 30;
    month += whole;
    if (month > 0 && (day < 0 || (hours && day == 0 && time < 0))) {
      day += 30;
      --month;
    } else if (month < 0 && (day > 0 || (hours && day == 0 && time > 0))) {
      day -= 30;
      ++month;
    }
  }
  if (hours) {
    if (day > 0 && time < 0) {
      time += kMicrosPerDay;
      --day;
    } else if (day < 0 && time > 0) {
      time -= kMicrosPerDay;
      ++day;
    }
  }
  v->months = static_cast<int32_t>(month);
  v->days = static_cast<int32_t>(day);
  v->nanos = time * 1000;
}

// PostgreSQL's timestamp_age: field-by-field difference with borrows, the
// days of a borrowed month taken from the earlier timestamp's month.
Mdn Age(int64_t t1, int64_t t2) {
  auto fields = [](int64_t t, int64_t f[7]) {
    const DayAndTime dt = SplitDays(t, kMicrosPerDay);
    const CivilDate c = CivilFromDays(dt.days);
    f[0] = c.year;
    f[1] = c.month;
    f[2] = c.day;
    f[3] = dt.time_of_day / 3600000000;
    f[4] = dt.time_of_day / 60000000 % 60;
    f[5] = dt.time_of_day / 1000000 % 60;
    f[6] = dt.time_of_day % 1000000;
  };
  int64_t a[7], b[7], r[7];
  fields(t1, a);
  fields(t2, b);
  for (int k = 0; k < 7; ++k) r[k] = a[k] - b[k];
  const bool flip = t1 < t2;
  if (flip) {
    for (int64_t& x : r) x = -x;
  }
  while (r[6] < 0) { r[6] += 1000000; --r[5]; }
  while (r[5] < 0) { r[5] += 60; --r[4]; }
  while (r[4] < 0) { r[4] += 60; --r[3]; }
  while (r[3] < 0) { r[3] += 24; --r[2]; }
  while (r[2] < 0) {
    const int64_t* m = flip ? a : b;
    r[2] += DaysInMonth(m[0], static_cast<unsigned>(m[1]));
    --r[1];
  }
  while (r[1] < 0) { r[1] += 12; --r[0]; }
  if (flip) {
    for (int64_t& x : r) x = -x;
  }
  Mdn out;
  out.months = static_cast<int32_t>(r[0] * 12 + r[1]);
  out.days = static_cast<int32_t>(r[2]);
  out.nanos = (((r[3] * 60 + r[4]) * 60 + r[5]) * 1000000 + r[6]) * 1000;
  return out;
}

Result<int64_t> DateBin(const Mdn& stride, int64_t source, int64_t origin) {
  if (stride.months != 0) {
    return Status::Unsupported("timestamps cannot be binned into intervals containing months or years")
        .WithSqlState(sqlstate::kFeatureNotSupported);
  }
  const int64_t step = static_cast<int64_t>(stride.days) * kMicrosPerDay + stride.nanos / 1000;
  if (step <= 0) {
    return Status::Invalid("stride must be greater than zero").WithSqlState(sqlstate::kDatetimeFieldOverflow);
  }
  int64_t diff;
  if (__builtin_sub_overflow(source, origin, &diff)) {
    return Status::Invalid("interval out of range").WithSqlState(sqlstate::kDatetimeFieldOverflow);
  }
  int64_t delta = diff - diff % step;
  // Sources before the origin bin downwards, as PostgreSQL 15.
  if (diff < 0 && diff % step != 0) delta -= step;
  return origin + delta;
}

// The zone of AT TIME ZONE / timezone(): an IANA name (or one of the zone
// files' own names, such as UTC or EST). PostgreSQL reads a bare number there
// as a POSIX offset (west positive), which Quiver does not: refused.
Result<std::shared_ptr<const TimeZone>> ZoneNamed(std::string_view name) {
  if (name.empty() || name[0] == '+' || name[0] == '-' || (name[0] >= '0' && name[0] <= '9')) {
    return Status::Unsupported("numeric time zone offsets in AT TIME ZONE (use a zone name such as 'Etc/GMT-5')")
        .WithSqlState(sqlstate::kFeatureNotSupported);
  }
  auto z = TimeZone::Find(std::string(name));
  if (!z.ok()) {
    return Status::Invalid("time zone \"{}\" not recognized", std::string(name))
        .WithSqlState(sqlstate::kInvalidParameterValue);
  }
  return z;
}

// The UTC instant of a local time in `zone`, as PostgreSQL's
// DetermineTimeZoneOffset: a time skipped by a spring-forward transition
// takes the offset before it, a time repeated by a fall-back transition the
// offset after it.
int64_t LocalToUtc(const TimeZone& zone, int64_t local_micros) {
  const int64_t local = FloorDiv(local_micros, 1000000);
  const int64_t before = zone.OffsetAt(local - 2 * 86400);
  const int64_t after = zone.OffsetAt(local + 2 * 86400);
  int64_t offset;
  if (before == after && zone.OffsetAt(local - before) == before) {
    offset = before;
  } else {
    // The transition instant between the two, by bisection over UTC seconds.
    int64_t lo = local - 3 * 86400, hi = local + 3 * 86400;  // OffsetAt(lo) = before
    while (hi - lo > 1) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (zone.OffsetAt(mid) == before) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    const int64_t boundary = hi;
    const int64_t after_offset = zone.OffsetAt(boundary);
    const int64_t before_time = local - before, after_time = local - after_offset;
    if (before_time < boundary && after_time < boundary) {
      offset = before;
    } else if (before_time >= boundary && after_time >= boundary) {
      offset = after_offset;
    } else if (before_time > after_time) {
      offset = before;
    } else {
      offset = after_offset;
    }
  }
  return local_micros - offset * 1000000;
}

// Looks the zone up once per run of equal names.
class ZoneSource {
 public:
  explicit ZoneSource(const VectorRef& names) : names_(names) {}
  Result<const TimeZone*> Get(int64_t i) {
    const std::string_view name = names_(i);
    if (zone_ == nullptr || name != last_) {
      QUIVER_ASSIGN_OR_RAISE(zone_, ZoneNamed(name));
      last_.assign(name);
    }
    return zone_.get();
  }

 private:
  StringAccess names_;
  std::string last_;
  std::shared_ptr<const TimeZone> zone_;
};

}  // namespace

void RegisterDateTimeMoreFunctions(FunctionRegistry* r) {
  const TypeRef ts = timestamp(TimeUnit::kMicro);
  const TypeRef tstz = timestamp(TimeUnit::kMicro, "UTC");
  const TypeRef iv = month_day_nano_interval();
  const TypeRef i64 = int64();
  for (const TypeRef& t : {ts, tstz}) {
    r->Add({t->timezone.empty() ? "make_timestamp" : "make_timestamptz", {i64, i64, i64, i64, i64, float64()},
            nullptr, t, nullptr,
            [](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n, const TypeRef& out) {
              return kernels::StrictFixedRows<int64_t>(ctx.pool, a, n, out, [&](int64_t i) {
                return MakeTimestamp(ReadInt(a[0], i), ReadInt(a[1], i), ReadInt(a[2], i),
                                     ReadInt(a[3], i), ReadInt(a[4], i), ReadDouble(a[5], i));
              });
            }});
  }
  // make_interval(years, months, weeks, days, hours, mins, secs): the binder
  // passes all seven (named or positional, missing ones 0).
  r->Add({"make_interval", {i64, i64, i64, i64, i64, i64, float64()}, nullptr, iv, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n, const TypeRef& out) {
            return kernels::StrictFixedRows<Mdn>(ctx.pool, a, n, out, [&](int64_t i) -> Result<Mdn> {
              const int64_t months = ReadInt(a[0], i) * 12 + ReadInt(a[1], i);
              const int64_t days = ReadInt(a[2], i) * 7 + ReadInt(a[3], i);
              const double secs = ReadDouble(a[6], i);
              const double micros = std::nearbyint(
                  (static_cast<double>(ReadInt(a[4], i)) * 3600 + static_cast<double>(ReadInt(a[5], i)) * 60) *
                      1e6 + secs * 1e6);
              if (months > INT32_MAX || months < INT32_MIN || days > INT32_MAX || days < INT32_MIN ||
                  !std::isfinite(micros) || std::fabs(micros) > 9.2e18) {
                return IntervalOutOfRange();
              }
              return Mdn{static_cast<int32_t>(months), static_cast<int32_t>(days),
                         static_cast<int64_t>(micros) * 1000};
            });
          }});
  const std::pair<const char*, std::pair<bool, bool>> justify[] = {
      {"justify_days", {true, false}}, {"justify_hours", {false, true}}, {"justify_interval", {true, true}}};
  for (const auto& [name, which] : justify) {
    r->Add({name, {iv}, nullptr, iv, nullptr,
            [which = which](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n,
                            const TypeRef& out) {
              return kernels::StrictFixedRows<Mdn>(ctx.pool, a, n, out, [&](int64_t i) -> Result<Mdn> {
                Mdn v = ReadInterval(a[0], i);
                Justify(&v, which.first, which.second);
                return v;
              });
            }});
  }
  for (const TypeRef& t : {ts, tstz}) {
    r->Add({"date_bin", {iv, t, t}, nullptr, t, nullptr,
            [](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n, const TypeRef& out) {
              return kernels::StrictFixedRows<int64_t>(ctx.pool, a, n, out, [&](int64_t i) {
                return DateBin(ReadInterval(a[0], i), ReadTs(a[1], i), ReadTs(a[2], i));
              });
            }});
    r->Add({"age", {t, t}, nullptr, iv, nullptr,
            [](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n, const TypeRef& out) {
              return kernels::StrictFixedRows<Mdn>(ctx.pool, a, n, out, [&](int64_t i) -> Result<Mdn> {
                return Age(ReadTs(a[0], i), ReadTs(a[1], i));
              });
            }});
    // age(ts): from ts to today's midnight (current_date; the session time
    // zone is UTC, so the same instant for timestamp and timestamptz).
    ScalarFunction age_today{
        "age", {t}, nullptr, iv, nullptr,
        [](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n, const TypeRef& out) {
          const int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
          const int64_t midnight = FloorDiv(now, kMicrosPerDay) * kMicrosPerDay;
          return kernels::StrictFixedRows<Mdn>(ctx.pool, a, n, out,
                                [&](int64_t i) -> Result<Mdn> { return Age(midnight, ReadTs(a[0], i)); });
        }};
    age_today.is_volatile = true;
    r->Add(age_today);
  }
  // timestamptz AT TIME ZONE zone: the local time there; timestamp AT TIME
  // ZONE zone: the instant at which the zone's clocks show it.
  r->Add({"timezone", {utf8(), tstz}, nullptr, ts, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n, const TypeRef& out) {
            ZoneSource zones(a[0]);
            return kernels::StrictFixedRows<int64_t>(ctx.pool, a, n, out, [&](int64_t i) -> Result<int64_t> {
              QUIVER_ASSIGN_OR_RAISE(const TimeZone* z, zones.Get(i));
              const int64_t utc = ReadTs(a[1], i);
              return utc + int64_t{z->OffsetAt(FloorDiv(utc, 1000000))} * 1000000;
            });
          }});
  r->Add({"timezone", {utf8(), ts}, nullptr, tstz, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n, const TypeRef& out) {
            ZoneSource zones(a[0]);
            return kernels::StrictFixedRows<int64_t>(ctx.pool, a, n, out, [&](int64_t i) -> Result<int64_t> {
              QUIVER_ASSIGN_OR_RAISE(const TimeZone* z, zones.Get(i));
              return LocalToUtc(*z, ReadTs(a[1], i));
            });
          }});
}

}  // namespace quiver
