// TimeZone: fixed offsets, IANA zones from the system zoneinfo, bad input.
#include "common/time_zone.h"

#include <gtest/gtest.h>

namespace quiver {
namespace {

TEST(TimeZoneTest, FixedOffsets) {
  int32_t s = 0;
  EXPECT_TRUE(ParseUtcOffset("+05:30", &s));
  EXPECT_EQ(s, 19800);
  EXPECT_TRUE(ParseUtcOffset("-0800", &s));
  EXPECT_EQ(s, -28800);
  EXPECT_TRUE(ParseUtcOffset("+01", &s));
  EXPECT_EQ(s, 3600);
  EXPECT_FALSE(ParseUtcOffset("+5", &s));
  EXPECT_FALSE(ParseUtcOffset("+24:00", &s));
  EXPECT_FALSE(ParseUtcOffset("UTC", &s));
  auto zone = TimeZone::Find("-03:00");
  ASSERT_TRUE(zone.ok());
  EXPECT_EQ((*zone)->OffsetAt(0), -10800);
  EXPECT_EQ((*TimeZone::Find("UTC"))->OffsetAt(1700000000), 0);
}

TEST(TimeZoneTest, IanaZone) {
  auto zone = TimeZone::Find("America/New_York");
  // tzdata is a build dependency (scripts/lib/common.sh): without it, fail.
  ASSERT_TRUE(zone.ok()) << "no zoneinfo on this system (apt-get install tzdata): "
                         << zone.status().ToString();
  EXPECT_EQ((*zone)->OffsetAt(1704067200), -5 * 3600);  // 2024-01-01: EST
  EXPECT_EQ((*zone)->OffsetAt(1719792000), -4 * 3600);  // 2024-07-01: EDT
  // The 2024-03-10 07:00 UTC switch to summer time, to the second.
  EXPECT_EQ((*zone)->OffsetAt(1710054000 - 1), -5 * 3600);
  EXPECT_EQ((*zone)->OffsetAt(1710054000), -4 * 3600);
}

TEST(TimeZoneTest, RejectsBadNamesAndData) {
  EXPECT_FALSE(TimeZone::Find("../../etc/passwd").ok());
  EXPECT_FALSE(TimeZone::Find("/etc/passwd").ok());
  EXPECT_FALSE(TimeZone::Find("Not/A_Zone").ok());
  EXPECT_FALSE(TimeZone::FromTzif("x", "TZif2").ok());
  EXPECT_FALSE(TimeZone::FromTzif("x", std::string(100, 'a')).ok());
  std::string header(44, '\0');
  header.replace(0, 4, "TZif");
  header[4] = '2';
  header[39] = 1;  // typecnt = 1, nothing else: data missing
  EXPECT_FALSE(TimeZone::FromTzif("x", header).ok());
}

}  // namespace
}  // namespace quiver
