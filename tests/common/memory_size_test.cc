#include "common/memory_size.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace quiver {
namespace {

int64_t Parsed(std::string_view text) {
  auto r = ParseMemorySize(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? *r : -1;
}

std::string ErrorOf(std::string_view text) {
  auto r = ParseMemorySize(text);
  EXPECT_FALSE(r.ok()) << text << " parsed as " << (r.ok() ? *r : 0);
  if (r.ok()) return "";
  EXPECT_TRUE(r.status().IsInvalid()) << r.status().ToString();
  return r.status().message();
}

TEST(MemorySizeTest, UnitsAreBinaryAndCaseInsensitive) {
  EXPECT_EQ(Parsed("0"), 0);
  EXPECT_EQ(Parsed("123"), 123);
  EXPECT_EQ(Parsed("123b"), 123);
  EXPECT_EQ(Parsed("2k"), 2048);
  EXPECT_EQ(Parsed("2KB"), 2048);
  EXPECT_EQ(Parsed("2KiB"), 2048);
  EXPECT_EQ(Parsed("512MB"), int64_t{512} << 20);
  EXPECT_EQ(Parsed("4gb"), int64_t{4} << 30);
  EXPECT_EQ(Parsed("4G"), int64_t{4} << 30);
  EXPECT_EQ(Parsed("3TiB"), int64_t{3} << 40);
  EXPECT_EQ(Parsed("1.5 GiB"), int64_t{3} << 29);
  EXPECT_EQ(Parsed("  64 MB  "), int64_t{64} << 20);
  EXPECT_EQ(Parsed("+1KB"), 1024);
  EXPECT_EQ(Parsed(".5KB"), 512);
  EXPECT_EQ(Parsed("1.KB"), 1024);
  EXPECT_EQ(Parsed("1.9"), 1);  // a fraction of a byte is dropped
}

TEST(MemorySizeTest, PercentOfPhysicalMemory) {
  EXPECT_EQ(Parsed("100%"), PhysicalMemory());
  EXPECT_EQ(Parsed("0%"), 0);
  const int64_t half = Parsed("50 %");
  EXPECT_NEAR(static_cast<double>(half), PhysicalMemory() / 2.0, 1.0);
  EXPECT_GT(DefaultMemoryLimit(), 0);
  EXPECT_LT(DefaultMemoryLimit(), PhysicalMemory());
}

TEST(MemorySizeTest, LargestSizeFitsInt64) {
  // 8 EiB - 1 KiB: still below 2^63 after the double round trip.
  EXPECT_EQ(Parsed("9223372036854774784"), int64_t{9223372036854774784});
  EXPECT_EQ(Parsed("8388607TB"), int64_t{8388607} << 40);
}

TEST(MemorySizeTest, RejectsOverflow) {
  EXPECT_NE(ErrorOf("9223372036854775808").find("too large"), std::string::npos);
  EXPECT_NE(ErrorOf("8388608TB").find("too large"), std::string::npos);
  EXPECT_NE(ErrorOf("99999999999999999999999TB").find("too large"), std::string::npos);
  EXPECT_NE(ErrorOf(std::string(400, '9')).find("too large"), std::string::npos);
  EXPECT_NE(ErrorOf("1" + std::string(400, '0') + "%").find("too large"), std::string::npos);
}

TEST(MemorySizeTest, RejectsNegativeAndNonFinite) {
  EXPECT_NE(ErrorOf("-1").find("negative"), std::string::npos);
  EXPECT_NE(ErrorOf("-0.5GB").find("negative"), std::string::npos);
  EXPECT_NE(ErrorOf(" -4GB").find("negative"), std::string::npos);
  EXPECT_NE(ErrorOf("nan").find("not a finite number"), std::string::npos);
  EXPECT_NE(ErrorOf("NaNMB").find("not a finite number"), std::string::npos);
  EXPECT_NE(ErrorOf("inf").find("not a finite number"), std::string::npos);
  EXPECT_NE(ErrorOf("Infinity GB").find("not a finite number"), std::string::npos);
}

TEST(MemorySizeTest, RejectsGarbage) {
  EXPECT_NE(ErrorOf("").find("empty"), std::string::npos);
  EXPECT_NE(ErrorOf("   ").find("empty"), std::string::npos);
  EXPECT_NE(ErrorOf("GB").find("expected a number"), std::string::npos);
  EXPECT_NE(ErrorOf(".").find("malformed"), std::string::npos);
  EXPECT_NE(ErrorOf("1.2.3GB").find("malformed"), std::string::npos);
  EXPECT_NE(ErrorOf("1e9").find("unknown unit 'e9'"), std::string::npos);
  EXPECT_NE(ErrorOf("0x10").find("unknown unit"), std::string::npos);
  EXPECT_NE(ErrorOf("4GBs").find("unknown unit 'GBs'"), std::string::npos);
  EXPECT_NE(ErrorOf("4 GB x").find("unknown unit"), std::string::npos);
  EXPECT_NE(ErrorOf("4%%").find("unknown unit"), std::string::npos);
  EXPECT_NE(ErrorOf("4PB").find("unknown unit"), std::string::npos);
  EXPECT_NE(ErrorOf("1 024MB").find("unknown unit"), std::string::npos);
  // The message names the input and shows what is accepted.
  const std::string msg = ErrorOf("lots");
  EXPECT_NE(msg.find("'lots'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("4GB"), std::string::npos) << msg;
}

}  // namespace
}  // namespace quiver
