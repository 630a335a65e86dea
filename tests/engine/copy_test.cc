// COPY: the options (engine/copy_options.h) and COPY ... TO / FROM files end
// to end, Parquet row groups and their statistics pruning included.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "engine/copy_options.h"
#include "engine/database.h"
#include "formats/file_format.h"
#include "formats/ipc/reader.h"
#include "formats/parquet/file_reader.h"

namespace quiver {
namespace {

using compression::Codec;
using formats::FileFormat;

std::vector<sql::CopyOption> Options(
    std::initializer_list<std::pair<std::string, std::string>> pairs) {
  std::vector<sql::CopyOption> out;
  for (const auto& [name, value] : pairs) {
    sql::CopyOption o;
    o.name = name;
    o.value = value;
    out.push_back(o);
  }
  return out;
}

// The message of the error ParseCopyOptions gives, or "ok".
std::string OptionError(std::initializer_list<std::pair<std::string, std::string>> pairs,
                        const std::string& path = "out.parquet", bool is_from = false) {
  auto r = ParseCopyOptions(Options(pairs), path, is_from);
  return r.ok() ? "ok" : r.status().message();
}

TEST(CopyOptions, FormatFromTheExtensionOrTheOption) {
  auto o = ParseCopyOptions({}, "x/out.parquet", false).ValueOrDie();
  EXPECT_EQ(o.format, FileFormat::kParquet);
  EXPECT_FALSE(o.write.codec_chosen);  // the Parquet writer's default (zstd)
  EXPECT_EQ(ParseCopyOptions({}, "out.arrow", false)->format, FileFormat::kIpcFile);
  EXPECT_EQ(ParseCopyOptions({}, "out.arrows", false)->format, FileFormat::kIpcStream);
  // TO a name that says nothing: CSV; FROM: detected later.
  EXPECT_EQ(ParseCopyOptions({}, "out.dat", false)->format, FileFormat::kCsv);
  EXPECT_EQ(ParseCopyOptions({}, "in.dat", true)->format, FileFormat::kAuto);
  EXPECT_EQ(ParseCopyOptions(Options({{"format", "PARQUET"}}), "out.dat", false)->format,
            FileFormat::kParquet);
  EXPECT_EQ(ParseCopyOptions(Options({{"format", "arrow"}}), "out.parquet", false)->format,
            FileFormat::kIpcFile);
  // TSV: tab-delimited by name or by FORMAT.
  EXPECT_EQ(ParseCopyOptions({}, "out.tsv", false)->write.csv.delimiter, '\t');
  EXPECT_EQ(ParseCopyOptions(Options({{"format", "tsv"}}), "out.txt", false)->write.csv.delimiter,
            '\t');
  EXPECT_EQ(ParseCopyOptions({}, "in.tsv", true)->read.parse.delimiter, '\t');
}

TEST(CopyOptions, ParquetWriterOptions) {
  auto o =
      ParseCopyOptions(
          Options({{"format", "parquet"}, {"compression", "snappy"}, {"row_group_size", "5000"}}),
          "out", false)
          .ValueOrDie();
  EXPECT_EQ(o.write.codec, Codec::kSnappy);
  EXPECT_TRUE(o.write.codec_chosen);
  EXPECT_EQ(o.write.row_group_rows, 5000);
  o = ParseCopyOptions(Options({{"compression", "none"}}), "out.parquet", false).ValueOrDie();
  EXPECT_EQ(o.write.codec, Codec::kNone);
  EXPECT_TRUE(o.write.codec_chosen);
  o = ParseCopyOptions(Options({{"compression", "lz4"}}), "out.parquet", false).ValueOrDie();
  EXPECT_EQ(o.write.codec, Codec::kLz4Raw);
  // A level alone applies to Parquet's default codec, zstd.
  o = ParseCopyOptions(Options({{"compression_level", "9"}}), "out.parquet", false).ValueOrDie();
  EXPECT_EQ(o.write.codec, Codec::kZstd);
  EXPECT_EQ(o.write.level, 9);
  o = ParseCopyOptions(Options({{"compression", "gzip"}, {"compression_level", "0"}}),
                       "out.parquet", false)
          .ValueOrDie();
  EXPECT_EQ(o.write.level, 0);
  o = ParseCopyOptions(Options({{"compression", "lz4"}}), "out.arrow", false).ValueOrDie();
  EXPECT_EQ(o.write.codec, Codec::kLz4Frame);
}

TEST(CopyOptions, CsvOptions) {
  auto o = ParseCopyOptions(
               Options({{"header", "false"}, {"delimiter", "|"}, {"quote", "'"}, {"null", "NA"}}),
               "out.csv", false)
               .ValueOrDie();
  EXPECT_FALSE(o.write.csv.header);
  EXPECT_EQ(o.write.csv.delimiter, '|');
  EXPECT_EQ(o.write.csv.quote, '\'');
  EXPECT_EQ(o.write.csv.null_string, "NA");
  o = ParseCopyOptions(Options({{"header", ""}, {"sep", ";"}, {"null", "-"}}), "in.csv", true)
          .ValueOrDie();
  EXPECT_TRUE(o.read.read.header);
  EXPECT_EQ(o.read.parse.delimiter, ';');
  EXPECT_EQ(o.read.convert.null_values, std::vector<std::string>{"-"});
}

TEST(CopyOptions, ErrorsNameTheOption) {
  EXPECT_EQ(OptionError({{"row_group_sise", "1"}}),
            "COPY option \"row_group_sise\" is not recognized (valid options: FORMAT, COMPRESSION, "
            "COMPRESSION_LEVEL, ROW_GROUP_SIZE, BATCH_ROWS, STATS, HEADER, DELIMITER, QUOTE, NULL, "
            "PARTITION_BY, OVERWRITE_OR_IGNORE, APPEND)");
  EXPECT_EQ(OptionError({{"compression", "zstd"}, {"codec", "gzip"}}),
            "COPY option \"compression\" is given more than once");
  EXPECT_EQ(OptionError({{"format", "orc"}}),
            "COPY format 'orc' is not supported (valid: parquet, arrow, stream, csv, tsv, avro)");
  EXPECT_EQ(OptionError({{"row_group_size", "0"}}),
            "COPY option \"row_group_size\" must be a positive integer, not '0'");
  EXPECT_EQ(OptionError({{"row_group_size", "10k"}}),
            "COPY option \"row_group_size\" must be a positive integer, not '10k'");
  EXPECT_EQ(OptionError({{"row_group_size", "10"}}, "out.arrow"),
            "COPY option \"row_group_size\" applies to Parquet, not Arrow IPC file");
  EXPECT_EQ(OptionError({{"compression", "lzo"}}),
            "COPY option \"compression\": Parquet compression is none, snappy, gzip, zstd, lz4 or "
            "brotli, not 'lzo'");
  EXPECT_EQ(
      OptionError({{"compression", "snappy"}}, "out.arrow"),
      "COPY option \"compression\": Arrow IPC compression is none, lz4 or zstd, not 'snappy'");
  EXPECT_EQ(OptionError({{"compression", "zstd"}}, "out.csv"),
            "COPY option \"compression\" applies to Parquet and Arrow output; CSV is written "
            "uncompressed");
  EXPECT_EQ(OptionError({{"compression", "snappy"}, {"compression_level", "3"}}),
            "COPY option \"compression_level\" does not apply to compression snappy");
  EXPECT_EQ(OptionError({{"compression_level", "23"}}),
            "COPY option \"compression_level\" must be an integer in [-7, 22], not '23'");
  EXPECT_EQ(OptionError({{"compression_level", "3"}}, "out.arrow"),
            "COPY option \"compression_level\" does not apply to compression none (name a codec "
            "with COMPRESSION)");
  EXPECT_EQ(OptionError({{"header", "true"}}),
            "COPY option \"header\" applies to CSV, not Parquet");
  EXPECT_EQ(OptionError({{"header", "maybe"}}, "out.csv"),
            "COPY option \"header\" takes true or false, not 'maybe'");
  EXPECT_EQ(OptionError({{"delimiter", "||"}}, "out.csv"),
            "COPY option \"delimiter\" must be a single one-byte character, not '||'");
  EXPECT_EQ(OptionError({{"compression", "zstd"}}, "in.parquet", true),
            "COPY option \"compression\" applies to COPY ... TO, not COPY ... FROM");
  EXPECT_EQ(OptionError({{"format", ""}}), "COPY option \"format\" needs a value");
  EXPECT_EQ(OptionError({{"batch_rows", "100"}}),
            "COPY option \"batch_rows\" applies to Arrow, not Parquet");
  EXPECT_EQ(OptionError({{"batch_rows", "0"}}, "out.arrow"),
            "COPY option \"batch_rows\" must be a positive integer, not '0'");
}

class CopyFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    // One directory per test and process: ctest runs the tests in parallel.
    dir_ = ::testing::TempDir() + "/quiver_copy_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
           std::to_string(::getpid());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Run(const std::string& sql) {
    auto r = db_.ExecuteScript(sql);
    if (!r.ok()) return "ERROR: " + r.status().message();
    const QueryResult& last = r->back();
    if (!last.has_rows) return last.command_tag;
    std::string out;
    for (int64_t i = 0; i < last.num_rows(); ++i) {
      auto row = last.Row(i);
      for (size_t c = 0; c < row.size(); ++c) out += (c ? "|" : "") + row[c].ToString();
      out += "\n";
    }
    return out;
  }

  std::string dir_;
  Database db_;
};

TEST_F(CopyFiles, ParquetRowGroupsAndCodec) {
  const std::string path = dir_ + "/out.parquet";
  EXPECT_EQ(
      Run("COPY (SELECT g AS k, g % 7 AS m, 'v' || g AS s FROM generate_series(1, 10000) t(g) "
          "ORDER BY g) TO '" +
          path + "' (FORMAT parquet, COMPRESSION gzip, ROW_GROUP_SIZE 1500)"),
      "COPY 10000");
  auto opened = parquet::ParquetFileReader::Open(path);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  auto reader = *opened;
  ASSERT_EQ(reader->num_row_groups(), 7);  // 6 x 1500 + 1000
  for (int i = 0; i < 6; ++i) EXPECT_EQ(reader->row_group_rows(i), 1500);
  EXPECT_EQ(reader->row_group_rows(6), 1000);
  for (const auto& rg : reader->metadata().row_groups) {
    for (const auto& chunk : rg.columns) {
      EXPECT_EQ(chunk.meta_data->codec, parquet::CompressionCodec::kGzip);
    }
  }
  EXPECT_EQ(Run("SELECT count(*), sum(k), min(s), max(m) FROM \"" + path + "\""),
            "10000|50005000|v1|6\n");
  // No temporary file is left beside it.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST_F(CopyFiles, StatisticsPruneRowGroups) {
  const std::string path = dir_ + "/sorted.parquet";
  ASSERT_EQ(Run("COPY (SELECT g AS k, g * 2 AS v FROM generate_series(1, 10000) t(g) ORDER BY g) "
                "TO '" +
                path + "' (ROW_GROUP_SIZE 1000)"),
            "COPY 10000");
  EXPECT_EQ(Run("SELECT count(*), sum(v) FROM \"" + path + "\" WHERE k BETWEEN 2500 AND 3400"),
            "901|5315900\n");
  const std::string plan =
      Run("EXPLAIN ANALYZE SELECT sum(v) FROM \"" + path + "\" WHERE k BETWEEN 2500 AND 3400");
  // Row groups 3 and 4 ([2001, 3000], [3001, 4000]) may match; the other
  // eight are pruned by their min/max before they are read.
  EXPECT_NE(plan.find("units=10 pruned=8"), std::string::npos) << plan;
  EXPECT_NE(plan.find("read=2 "), std::string::npos) << plan;
}

TEST_F(CopyFiles, FailedCopyLeavesTheTargetAlone) {
  const std::string path = dir_ + "/keep.parquet";
  ASSERT_EQ(Run("COPY (SELECT 1 AS x) TO '" + path + "'"), "COPY 1");
  const auto size = std::filesystem::file_size(path);
  // A bad option, and a query failing at run time: the old file stays.
  EXPECT_EQ(Run("COPY (SELECT 2 AS x) TO '" + path + "' (ROW_GROUP_SIZE -1)").substr(0, 6),
            "ERROR:");
  EXPECT_EQ(Run("COPY (SELECT 1 / (g - 5) AS x FROM generate_series(1, 9) t(g)) TO '" + path + "'")
                .substr(0, 6),
            "ERROR:");
  EXPECT_EQ(std::filesystem::file_size(path), size);
  EXPECT_EQ(Run("SELECT x FROM \"" + path + "\""), "1\n");
  EXPECT_EQ(Run("COPY (SELECT 1 AS x) TO '" + dir_ + "/missing/dir/x.parquet'").substr(0, 6),
            "ERROR:");
}

TEST_F(CopyFiles, ArrowAndCsvRoundTrips) {
  EXPECT_EQ(Run("CREATE TABLE t (a int, b text);"
                "INSERT INTO t VALUES (1, 'x'), (2, NULL), (3, 'a|b');"
                "COPY t TO '" +
                dir_ + "/t.arrow' (FORMAT arrow, COMPRESSION zstd, COMPRESSION_LEVEL 5);" +
                "COPY t TO '" + dir_ + "/t.csv' (HEADER false, DELIMITER '|', NULL 'NA')"),
            "COPY 3");
  std::ifstream in(dir_ + "/t.csv");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "1|x\n2|NA\n3|\"a|b\"\n");
  EXPECT_EQ(Run("SELECT a, b FROM \"" + dir_ + "/t.arrow\" ORDER BY a"), "1|x\n2|NULL\n3|a|b\n");
  // COPY FROM reads the table's columns by position, with the same options.
  EXPECT_EQ(Run("CREATE TABLE u (n int, s text);"
                "COPY u FROM '" +
                dir_ + "/t.csv' (HEADER false, DELIMITER '|', NULL 'NA');" +
                "SELECT n, s FROM u ORDER BY n"),
            "1|x\n2|NULL\n3|a|b\n");
}

// Arrow output comes in record batches of BATCH_ROWS rows (default 65536),
// whatever sizes the query's batches had: a filter leaves vectors of a few
// rows, which would otherwise each become a record batch.
TEST_F(CopyFiles, ArrowRecordBatchesHaveBatchRowsRows) {
  auto batch_sizes = [](const std::string& path) {
    std::vector<int64_t> sizes;
    auto reader = ipc::IpcFileReader::Open(path);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return sizes;
    for (int i = 0; i < (*reader)->num_record_batches(); ++i) {
      auto b = (*reader)->ReadRecordBatch(i);
      EXPECT_TRUE(b.ok()) << b.status().ToString();
      if (b.ok()) sizes.push_back((*b)->num_rows());
    }
    return sizes;
  };
  const std::string sparse = "SELECT g AS k, 'v' || g AS s FROM generate_series(1, 400000) t(g) WHERE g % 97 = 0";
  ASSERT_EQ(Run("COPY (" + sparse + ") TO '" + dir_ + "/default.arrow'"), "COPY 4123");
  EXPECT_EQ(batch_sizes(dir_ + "/default.arrow"), std::vector<int64_t>{4123});
  ASSERT_EQ(Run("COPY (SELECT g AS k FROM generate_series(1, 150000) t(g)) TO '" + dir_ + "/big.arrow'"),
            "COPY 150000");
  EXPECT_EQ(batch_sizes(dir_ + "/big.arrow"), (std::vector<int64_t>{65536, 65536, 18928}));
  ASSERT_EQ(Run("COPY (" + sparse + " ORDER BY g) TO '" + dir_ + "/small.arrow' (BATCH_ROWS 1000, STATS 'k')"),
            "COPY 4123");
  EXPECT_EQ(batch_sizes(dir_ + "/small.arrow"), (std::vector<int64_t>{1000, 1000, 1000, 1000, 123}));
  // Rows and their order survive the merging and cutting.
  EXPECT_EQ(Run("SELECT count(*), sum(k), min(s), max(k) FROM \"" + dir_ + "/small.arrow\""),
            "4123|824657722|v100007|399931\n");
  EXPECT_EQ(Run("SELECT k FROM \"" + dir_ + "/small.arrow\" LIMIT 3"), "97\n194\n291\n");
  const std::string plan = Run("EXPLAIN ANALYZE SELECT count(*) FROM \"" + dir_ + "/small.arrow\" WHERE k < 500");
  EXPECT_NE(plan.find("units=5 pruned=4"), std::string::npos) << plan;
}

TEST_F(CopyFiles, CopyFromIsAnInsert) {
  // COPY FROM runs the insert path: the count in the tag, casts by position,
  // NOT NULL checked, and a failing COPY leaves the table as it was.
  ASSERT_EQ(Run("COPY (SELECT g AS a, 'v' || g AS b FROM generate_series(1, 5000) t(g)) TO '" +
                dir_ + "/big.arrow' (FORMAT arrow)"),
            "COPY 5000");
  EXPECT_EQ(Run("CREATE TABLE w (a bigint NOT NULL, b text);"
                "COPY w FROM '" +
                dir_ + "/big.arrow';" + "SELECT count(*), sum(a), min(b) FROM w"),
            "5000|12502500|v1\n");
  // The rows keep the file's order.
  EXPECT_EQ(Run("SELECT a FROM w LIMIT 3"), "1\n2\n3\n");
  ASSERT_EQ(
      Run("COPY (SELECT NULL::int AS a, 'x' AS b) TO '" + dir_ + "/null.arrow' (FORMAT arrow)"),
      "COPY 1");
  EXPECT_EQ(Run("COPY w FROM '" + dir_ + "/null.arrow'"),
            "ERROR: null value in column \"a\" of relation \"w\" violates not-null constraint");
  EXPECT_EQ(Run("CREATE TABLE one (a int); COPY one FROM '" + dir_ + "/big.arrow'"),
            "ERROR: " + dir_ + "/big.arrow: has 2 columns, table \"one\" has 1");
  EXPECT_EQ(Run("SELECT count(*) FROM w"), "5000\n");
}

}  // namespace
}  // namespace quiver
