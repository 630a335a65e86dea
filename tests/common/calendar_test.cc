// common/calendar.h against dates known from elsewhere (Python's proleptic
// Gregorian ordinals shifted by whole 400-year cycles, the Julian day number
// epoch, PostgreSQL's and Arrow's date32 limits) and against a naive calendar
// that walks day by day.
#include "common/calendar.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "common/half_float.h"
#include "common/status.h"

namespace quiver {
namespace {

void ExpectDate(int64_t days, int64_t y, unsigned m, unsigned d) {
  SCOPED_TRACE(testing::Message() << "day " << days << " = " << y << "-" << m << "-" << d);
  const CivilDate c = CivilFromDays(days);
  EXPECT_EQ(c.year, y);
  EXPECT_EQ(c.month, m);
  EXPECT_EQ(c.day, d);
  EXPECT_EQ(DaysFromCivil(y, m, d), days);
}

TEST(Calendar, KnownDates) {
  ExpectDate(0, 1970, 1, 1);
  ExpectDate(-1, 1969, 12, 31);
  ExpectDate(11016, 2000, 2, 29);  // leap day of a year divisible by 400
  ExpectDate(-25508, 1900, 3, 1);  // 1900 is not a leap year: Feb 28 is the day before
  ExpectDate(-25509, 1900, 2, 28);
  ExpectDate(2932896, 9999, 12, 31);  // the last date with four year digits
  ExpectDate(-719528, 0, 1, 1);       // year 0 = 1 BC, a leap year
  ExpectDate(-719469, 0, 2, 29);
  ExpectDate(-719529, -1, 12, 31);      // 2 BC
  ExpectDate(-2440588, -4713, 11, 24);  // Julian day 0
}

TEST(Calendar, Int32DayLimits) {
  // date32's range, as PostgreSQL and Arrow print it: 5881580-07-11 and
  // 5877642-06-23 BC (= astronomical year -5877641).
  ExpectDate(std::numeric_limits<int32_t>::max(), 5881580, 7, 11);
  ExpectDate(std::numeric_limits<int32_t>::min(), -5877641, 6, 23);
}

TEST(Calendar, FarDaysRoundTrip) {
  // Days a timestamp[s] can reach (int64 seconds / 86400), both ends.
  for (int64_t days :
       {int64_t{1} << 46, -(int64_t{1} << 46), int64_t{106751991167}, int64_t{-106751991168}}) {
    const CivilDate c = CivilFromDays(days);
    EXPECT_EQ(DaysFromCivil(c.year, c.month, c.day), days) << days;
  }
}

TEST(Calendar, MatchesADayByDayWalk) {
  // From 1 Jan of year -801 forward, one day at a time, across Julian-style
  // century years, 400-year leap years and the epoch.
  int64_t y = -801;
  unsigned m = 1, d = 1;
  const int64_t first = DaysFromCivil(y, m, d);
  for (int64_t days = first; days < first + 2000 * 366; ++days) {
    const CivilDate c = CivilFromDays(days);
    ASSERT_EQ(c.year, y) << days;
    ASSERT_EQ(c.month, m) << days;
    ASSERT_EQ(c.day, d) << days;
    ASSERT_EQ(DaysFromCivil(y, m, d), days);
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    const unsigned month_days[] = {31, leap ? 29u : 28u, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    ASSERT_EQ(DaysInMonth(y, m), month_days[m - 1]);
    if (++d > month_days[m - 1]) {
      d = 1;
      if (++m > 12) {
        m = 1;
        ++y;
      }
    }
  }
  EXPECT_GT(y, 1190);
}

TEST(Calendar, LeapYears) {
  EXPECT_TRUE(IsLeapYear(2000));
  EXPECT_TRUE(IsLeapYear(0));
  EXPECT_TRUE(IsLeapYear(-4));
  EXPECT_TRUE(IsLeapYear(-400));
  EXPECT_FALSE(IsLeapYear(1900));
  EXPECT_FALSE(IsLeapYear(-100));
  EXPECT_FALSE(IsLeapYear(2023));
  EXPECT_EQ(DaysInMonth(2024, 2), 29u);
  EXPECT_EQ(DaysInMonth(2023, 2), 28u);
  EXPECT_EQ(DaysInMonth(2023, 12), 31u);
  // Past the month's end counts on: February 30 of a leap year is March 1.
  EXPECT_EQ(DaysFromCivil(2000, 2, 30), DaysFromCivil(2000, 3, 1));
}

TEST(Calendar, DayOfWeek) {
  EXPECT_EQ(DayOfWeek(0), 4);  // 1970-01-01, a Thursday
  EXPECT_EQ(DayOfWeek(-1), 3);
  EXPECT_EQ(DayOfWeek(-4), 0);  // 1969-12-28, a Sunday
  EXPECT_EQ(DayOfWeek(DaysFromCivil(2024, 2, 29)), 4);
  EXPECT_EQ(DayOfWeek(DaysFromCivil(1582, 10, 15)), 5);  // first Gregorian day, a Friday
  EXPECT_EQ(IsoDayOfWeek(-4), 7);
  EXPECT_EQ(IsoDayOfWeek(-3), 1);
  EXPECT_EQ(DayOfWeek(std::numeric_limits<int64_t>::min() / 2),
            DayOfWeek(std::numeric_limits<int64_t>::min() / 2 + 7 * 1000));
}

TEST(Calendar, FloorDivision) {
  EXPECT_EQ(FloorDiv(7, 2), 3);
  EXPECT_EQ(FloorDiv(-7, 2), -4);
  EXPECT_EQ(FloorDiv(-8, 2), -4);
  EXPECT_EQ(FloorDiv(7, -2), -4);
  EXPECT_EQ(FloorDiv(-7, -2), 3);
  EXPECT_EQ(FloorMod(-7, 2), 1);
  EXPECT_EQ(FloorMod(7, -2), -1);
  EXPECT_EQ(FloorMod(-1, kMicrosPerDay), kMicrosPerDay - 1);
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  // No overflow at the ends: the remainder is never recomputed from quot * b.
  const FloorDivided lo = FloorDivMod(kMin, 1000);
  EXPECT_EQ(lo.quot, -9223372036854776);
  EXPECT_EQ(lo.rem, 192);
  EXPECT_EQ(FloorDiv(kMin, 1000), -9223372036854776);
  const FloorDivided hi = FloorDivMod(kMax, 1000);
  EXPECT_EQ(hi.quot, 9223372036854775);
  EXPECT_EQ(hi.rem, 807);
}

TEST(Calendar, SplitDays) {
  const DayAndTime a = SplitDays(-1, kMicrosPerDay);  // 1969-12-31 23:59:59.999999
  EXPECT_EQ(a.days, -1);
  EXPECT_EQ(a.time_of_day, kMicrosPerDay - 1);
  const DayAndTime b = SplitDays(3 * kSecondsPerDay + 5, kSecondsPerDay);
  EXPECT_EQ(b.days, 3);
  EXPECT_EQ(b.time_of_day, 5);
  const DayAndTime c = SplitDays(-kMillisPerDay, kMillisPerDay);
  EXPECT_EQ(c.days, -1);
  EXPECT_EQ(c.time_of_day, 0);
  const DayAndTime d = SplitDays(std::numeric_limits<int64_t>::min(), kNanosPerDay);
  EXPECT_EQ(d.days, -106752);              // 1677-09-21
  EXPECT_EQ(d.time_of_day, 763145224192);  // 00:12:43.145224192
  EXPECT_EQ(CivilFromDays(d.days).year, 1677);
}

static_assert(DaysFromCivil(1970, 1, 1) == 0, "usable in constant expressions");
static_assert(CivilFromDays(-1).day == 31);

TEST(HalfFloat, Decodes) {
  EXPECT_EQ(HalfToFloat(0x0000), 0.0f);
  EXPECT_TRUE(std::signbit(HalfToFloat(0x8000)));
  EXPECT_EQ(HalfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(HalfToFloat(0xc000), -2.0f);
  EXPECT_EQ(HalfToFloat(0x7bff), 65504.0f);                 // largest finite
  EXPECT_EQ(HalfToFloat(0x0001), 5.9604644775390625e-08f);  // smallest subnormal, 2^-24
  EXPECT_EQ(HalfToFloat(0x0400), 6.103515625e-05f);         // smallest normal, 2^-14
  EXPECT_EQ(HalfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(HalfToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(HalfToFloat(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7e00)));
  EXPECT_TRUE(std::isnan(HalfToFloat(0xfc01)));
}

TEST(ResultDeathTest, ValueOrDieAbortsWithTheStatusInEveryBuild) {
  Result<int> r = Status::Invalid("no such column: x");
  EXPECT_DEATH((void)r.ValueOrDie(), "ValueOrDie on an error result: Invalid: no such column: x");
  EXPECT_DEATH((void)std::move(r).ValueOrDie(), "no such column: x");
  const Result<int>& cr = r;
  EXPECT_DEATH((void)cr.ValueOrDie(), "no such column: x");
  Result<int> ok = 3;
  EXPECT_EQ(ok.ValueOrDie(), 3);
}

}  // namespace
}  // namespace quiver
