// Unit tests of the CLI's helpers: format names and detection, human-readable
// sizes and the progress line. The commands themselves are tested end to end
// in tests/python/test_cli.py.
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "tools/file_formats.h"
#include "tools/progress.h"

namespace quiver::cli {
namespace {

TEST(FileFormatsTest, ParseNames) {
  EXPECT_EQ(*ParseFileFormat("auto"), FileFormat::kAuto);
  EXPECT_EQ(*ParseFileFormat("arrow"), FileFormat::kIpcFile);
  EXPECT_EQ(*ParseFileFormat("Feather"), FileFormat::kIpcFile);
  EXPECT_EQ(*ParseFileFormat("stream"), FileFormat::kIpcStream);
  EXPECT_EQ(*ParseFileFormat("csv"), FileFormat::kCsv);
  EXPECT_EQ(*ParseFileFormat("parquet"), FileFormat::kParquet);
  EXPECT_FALSE(ParseFileFormat("orc").ok());
}

TEST(FileFormatsTest, Extensions) {
  EXPECT_EQ(FormatFromExtension("a/b.arrow"), FileFormat::kIpcFile);
  EXPECT_EQ(FormatFromExtension("b.FEATHER"), FileFormat::kIpcFile);
  EXPECT_EQ(FormatFromExtension("b.arrows"), FileFormat::kIpcStream);
  EXPECT_EQ(FormatFromExtension("b.stream"), FileFormat::kIpcStream);
  EXPECT_EQ(FormatFromExtension("b.csv.gz"), FileFormat::kCsv);
  EXPECT_EQ(FormatFromExtension("b.tsv.zst"), FileFormat::kCsv);
  EXPECT_EQ(FormatFromExtension("b.txt"), FileFormat::kCsv);
  EXPECT_EQ(FormatFromExtension("b.parquet"), FileFormat::kParquet);
  EXPECT_EQ(FormatFromExtension("b.dat"), FileFormat::kAuto);
  EXPECT_TRUE(IsTsvPath("x.tsv.gz"));
  EXPECT_FALSE(IsTsvPath("x.csv"));
}

TEST(FileFormatsTest, DetectByMagicThenName) {
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir + name, std::ios::binary) << bytes;
    return dir + name;
  };
  EXPECT_EQ(*DetectInputFormat(write("f.bin", std::string("ARROW1\0\0", 8))), FileFormat::kIpcFile);
  EXPECT_EQ(*DetectInputFormat(write("s.bin", std::string("\xff\xff\xff\xff\x10\0\0\0", 8))),
            FileFormat::kIpcStream);
  EXPECT_EQ(*DetectInputFormat(write("c.csv", "a,b\n1,2\n")), FileFormat::kCsv);
  EXPECT_EQ(*DetectInputFormat(write("p.bin", std::string("PAR1\x15\0\0\0", 8))),
            FileFormat::kParquet);
  auto unknown = DetectInputFormat(write("u.dat", "a,b\n"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("cannot tell the format of"), std::string::npos);
  EXPECT_NE(unknown.status().message().find("use --format"), std::string::npos);
  EXPECT_FALSE(DetectInputFormat(dir + "does-not-exist.csv").ok());
}

TEST(CsvFlagsTest, DelimiterAndQuote) {
  CsvFlags flags;
  EXPECT_EQ(*flags.Delimiter("x.csv"), ',');
  EXPECT_EQ(*flags.Delimiter("x.tsv"), '\t');
  flags.delimiter = "\\t";
  EXPECT_EQ(*flags.Delimiter("x.csv"), '\t');
  flags.delimiter = "|";
  EXPECT_EQ(*flags.Delimiter("x.tsv"), '|');
  flags.delimiter = "ab";
  EXPECT_FALSE(flags.Delimiter("x.csv").ok());
  EXPECT_EQ(*flags.Quote(), '"');
}

TEST(HumanTest, BytesCountsSeconds) {
  EXPECT_EQ(HumanBytes(999), "999 B");
  EXPECT_EQ(HumanBytes(1500), "1.5 kB");
  EXPECT_EQ(HumanBytes(2500000), "2.5 MB");
  EXPECT_EQ(HumanBytes(3000000000LL), "3.00 GB");
  EXPECT_EQ(HumanCount(999), "999");
  EXPECT_EQ(HumanCount(850200), "850.2k");
  EXPECT_EQ(HumanSeconds(3), "3s");
  EXPECT_EQ(HumanSeconds(125), "2m05s");
  EXPECT_EQ(HumanSeconds(3720), "1h02m");
}

TEST(ProgressBarTest, Render) {
  const std::string line = ProgressBar::Render(50000000, 100000000, 1000, 2.0, 120);
  EXPECT_NE(line.find("[###############...............]"), std::string::npos) << line;
  EXPECT_NE(line.find(" 50%"), std::string::npos) << line;
  EXPECT_NE(line.find("50.0 MB / 100.0 MB"), std::string::npos) << line;
  EXPECT_NE(line.find("1000 rows"), std::string::npos) << line;
  EXPECT_NE(line.find("500 rows/s"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA 2s"), std::string::npos) << line;
  // Narrow terminals drop the bar; unknown totals drop percentage and ETA.
  EXPECT_EQ(ProgressBar::Render(1, 2, 0, 1.0, 40).find('['), std::string::npos);
  EXPECT_EQ(ProgressBar::Render(1000, 0, 10, 1.0, 120), "1.0 kB  10 rows  10 rows/s");
}

TEST(ProgressBarTest, DisabledWritesNothing) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    ProgressBar bar(false, 100, f);
    bar.Update(50, 5);
    bar.Finish();
  }
  EXPECT_EQ(std::ftell(f), 0);
  std::fclose(f);
}

}  // namespace
}  // namespace quiver::cli
