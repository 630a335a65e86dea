#include "storage/delta_log.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "storage/delta_deletion_vector.h"

namespace quiver::delta {
namespace {

namespace fs = std::filesystem;

const char* kProtocol = R"({"protocol":{"minReaderVersion":1,"minWriterVersion":2}})";
const char* kMetadata =
    R"({"metaData":{"id":"x","format":{"provider":"parquet","options":{}},)"
    R"("schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\",)"
    R"(\"nullable\":true,\"metadata\":{}},{\"name\":\"p\",\"type\":\"date\",\"nullable\":true,)"
    R"(\"metadata\":{}}]}","partitionColumns":["p"],"configuration":{}}})";

std::string Add(const std::string& path, const std::string& p = "\"2024-01-01\"") {
  return R"({"add":{"path":")" + path + R"(","partitionValues":{"p":)" + p +
         R"(},"size":1,"modificationTime":0,"dataChange":true}})";
}
std::string Remove(const std::string& path) {
  return R"({"remove":{"path":")" + path + R"(","dataChange":true}})";
}

class DeltaLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("delta_log_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "_delta_log");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Commit(int64_t v, const std::string& text) {
    char name[32];
    std::snprintf(name, sizeof(name), "%020lld.json", static_cast<long long>(v));
    std::ofstream(dir_ / "_delta_log" / name) << text;
  }
  fs::path dir_;
};

TEST_F(DeltaLogTest, ReplaysAddsAndRemovesToEachVersion) {
  Commit(0,
         std::string(kProtocol) + "\n" + kMetadata + "\n" + Add("p=2024-01-01/a.parquet") + "\n");
  Commit(1, Add("b%20c.parquet", "null") + "\n");
  Commit(2, Remove("p=2024-01-01/a.parquet") + "\n" + Add("d.parquet") + "\n");
  auto latest = ReplayLog(dir_.string(), std::nullopt);
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  EXPECT_EQ(latest->version, 2);
  ASSERT_EQ(latest->files.size(), 2u);
  EXPECT_TRUE(latest->files.count("b c.parquet"));  // paths are percent-decoded
  EXPECT_FALSE(latest->files.at("b c.parquet").partition_values.at("p").has_value());
  EXPECT_TRUE(latest->files.count("d.parquet"));
  auto v1 = ReplayLog(dir_.string(), 1);
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ(v1->files.size(), 2u);
  EXPECT_TRUE(v1->files.count("p=2024-01-01/a.parquet"));
  auto cols = SchemaColumns(*v1, "t");
  ASSERT_TRUE(cols.ok());
  ASSERT_EQ(cols->size(), 2u);
  EXPECT_FALSE((*cols)[0].partition);
  EXPECT_TRUE((*cols)[1].partition);
  EXPECT_EQ((*cols)[1].type->id, TypeId::kDate32);
  EXPECT_TRUE(CheckReadable(*latest, dir_.string()).ok());
  // A version past the newest is refused.
  EXPECT_FALSE(ReplayLog(dir_.string(), 3).ok());
}

TEST_F(DeltaLogTest, AGapOrBadJsonNamesTheFile) {
  Commit(0, std::string(kProtocol) + "\n" + kMetadata + "\n");
  Commit(2, Add("x.parquet") + "\n");
  auto gap = ReplayLog(dir_.string(), std::nullopt);
  ASSERT_FALSE(gap.ok());
  EXPECT_NE(gap.status().message().find("00000000000000000001.json is missing"), std::string::npos)
      << gap.status().message();
  Commit(1, "{\"add\": {\"path\": \n");
  auto bad = ReplayLog(dir_.string(), std::nullopt);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("00000000000000000001.json line 1: not valid JSON"),
            std::string::npos)
      << bad.status().message();
  // Actions of the wrong shape are errors too, never a crash.
  LogState s;
  EXPECT_FALSE(ApplyCommit(R"({"add":{"path":7}})", "c", &s).ok());
  EXPECT_FALSE(ApplyCommit(R"({"add":[1]})", "c", &s).ok());
  EXPECT_FALSE(ApplyCommit(R"({"protocol":{"minReaderVersion":"1"}})", "c", &s).ok());
  EXPECT_FALSE(ApplyCommit(R"([1,2])", "c", &s).ok());
  EXPECT_FALSE(ApplyCommit("", "c", &s).ok());
}

TEST_F(DeltaLogTest, RefusesFeaturesItDoesNotRead) {
  Commit(0, std::string(R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,)") +
                R"("readerFeatures":["typeWidening"],"writerFeatures":["typeWidening"]}})" + "\n" +
                kMetadata + "\n");
  auto s = ReplayLog(dir_.string(), std::nullopt);
  ASSERT_TRUE(s.ok());
  Status st = CheckReadable(*s, dir_.string());
  EXPECT_EQ(st.SqlState(), "0A000");
  EXPECT_NE(st.message().find("typeWidening"), std::string::npos);
  EXPECT_NE(st.message().find(dir_.string()), std::string::npos);
}

std::string Unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

TEST(DeltaDeletionVectorTest, Z85AsTheSpecificationSays) {
  // ZeroMQ RFC 32's test vector.
  auto d = DecodeZ85("HelloWorld");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, Unhex("864fd26fb559f75b"));
  EXPECT_FALSE(DecodeZ85("Hell").ok());  // not a multiple of 5
  EXPECT_FALSE(DecodeZ85("Hell\x01").ok());
}

TEST(DeltaDeletionVectorTest, DecodesPortableRoaringBitmaps) {
  const std::string magic = Unhex("d1d33964");  // 1681511377, little endian
  // {0, 3, 9}: one bucket, an array container (pyroaring's BitMap64).
  const std::string array =
      magic + Unhex("0100000000000000000000003a300000010000000000020010000000000003000900");
  auto v = DecodeRoaringArray(array, 10, "t");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, (std::vector<int64_t>{0, 3, 9}));
  // 2..7: a run container.
  const std::string run = magic + Unhex("0100000000000000000000003b3000000100000500010002000500");
  v = DecodeRoaringArray(run, 100, "t");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, (std::vector<int64_t>{2, 3, 4, 5, 6, 7}));
  // Overlapping runs (20 positions for a file of 15 rows): refused.
  const std::string overlap = magic + Unhex(
                                          "010000000000000000000000"
                                          "3b30000001"
                                          "00001300"
                                          "0200"
                                          "00000900"
                                          "00000900");
  EXPECT_FALSE(DecodeRoaringArray(overlap, 15, "t").ok());
  // A position past the file's rows, a wrong magic number, every truncation.
  EXPECT_FALSE(DecodeRoaringArray(array, 9, "t").ok());
  EXPECT_FALSE(DecodeRoaringArray(Unhex("00000000") + array.substr(4), 10, "t").ok());
  for (size_t n = 0; n < array.size(); ++n) {
    EXPECT_FALSE(DecodeRoaringArray(array.substr(0, n), 10, "t").ok()) << n;
  }
}

}  // namespace
}  // namespace quiver::delta
