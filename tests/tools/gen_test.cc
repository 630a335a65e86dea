// Unit tests of the data generators' building blocks (tools/gen): the Rng,
// calendar arithmetic, the TPC-H text pool, the spec's formulas and the
// column accumulators, and the writer's Parquet row groups. Whole data sets
// are checked end to end against pyarrow and DuckDB in
// tests/python/test_gen.py.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "formats/parquet/file_reader.h"
#include "tools/gen/chunked_writer.h"
#include "tools/gen/columns.h"
#include "tools/gen/dists.h"
#include "tools/gen/generators.h"
#include "tools/gen/random.h"
#include "tools/gen/text_pool.h"

namespace quiver::gen {
namespace {

TEST(GenRngTest, SameSeedSameStream) {
  Rng a = Rng::ForChunk(1, 2, 3);
  Rng b = Rng::ForChunk(1, 2, 3);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.Next(), b.Next());
  // Different chunks, tables or seeds give different streams.
  EXPECT_NE(Rng::ForChunk(1, 2, 3).Next(), Rng::ForChunk(1, 2, 4).Next());
  EXPECT_NE(Rng::ForChunk(1, 2, 3).Next(), Rng::ForChunk(1, 3, 3).Next());
  EXPECT_NE(Rng::ForChunk(1, 2, 3).Next(), Rng::ForChunk(2, 2, 3).Next());
}

TEST(GenRngTest, UniformStaysInRangeAndCoversIt) {
  Rng rng(42);
  int counts[7] = {};
  for (int i = 0; i < 70000; ++i) {
    const int64_t v = rng.Uniform(1, 7);
    ASSERT_GE(v, 1);
    ASSERT_LE(v, 7);
    ++counts[v - 1];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);
  for (int i = 0; i < 1000; ++i) {
    const int64_t v = rng.Uniform(-99999, 999999);
    ASSERT_GE(v, -99999);
    ASSERT_LE(v, 999999);
  }
  EXPECT_EQ(rng.Uniform(5, 5), 5);
}

TEST(GenCalendarTest, RoundTripsAndWeekdays) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(1992, 1, 1), 8035);
  for (int32_t d = kStartDate; d <= kEndDate; ++d) {
    const CivilDate c = CivilFromDays(d);
    ASSERT_EQ(DaysFromCivil(c.year, c.month, c.day), d);
  }
  EXPECT_EQ(DayOfWeek(DaysFromCivil(1992, 1, 1)), 3);  // a Wednesday
  EXPECT_EQ(DayOfWeek(DaysFromCivil(1970, 1, 1)), 4);  // a Thursday
  EXPECT_EQ(kLastOrderDate, DaysFromCivil(1998, 8, 2));
}

TEST(GenTextPoolTest, DeterministicGrammarText) {
  const TextPool a = TextPool::Make(7, 1 << 16);
  const TextPool b = TextPool::Make(7, 1 << 16);
  const TextPool c = TextPool::Make(8, 1 << 16);
  EXPECT_EQ(a.size(), 1 << 16);
  EXPECT_EQ(a.text(), b.text());
  EXPECT_NE(a.text(), c.text());
  // Words of the grammar, and nothing the queries must not find by chance.
  const std::string_view t = a.text();
  for (const char* word : {"special", "requests", "furiously", "the ", "packages"}) {
    EXPECT_NE(t.find(word), std::string_view::npos) << word;
  }
  EXPECT_EQ(t.find("Customer"), std::string_view::npos);
  EXPECT_TRUE(std::all_of(t.begin(), t.end(), [](char ch) { return ch >= ' ' && ch <= '~'; }));
}

TEST(GenTextPoolTest, RandomSubstringLengths) {
  const TextPool pool = TextPool::Make(1, 1 << 16);
  Rng rng(3);
  std::set<size_t> lengths;
  for (int i = 0; i < 2000; ++i) {
    const std::string_view s = pool.Random(rng, 10, 43);
    ASSERT_GE(s.size(), 10u);
    ASSERT_LE(s.size(), 43u);
    ASSERT_NE(pool.text().find(s), std::string_view::npos);
    lengths.insert(s.size());
  }
  EXPECT_EQ(lengths.size(), 34u);
}

TEST(GenTextPoolTest, VStringAlphabet) {
  Rng rng(5);
  char buf[40];
  for (int i = 0; i < 500; ++i) {
    const int n = RandomVString(rng, 10, 40, buf);
    ASSERT_GE(n, 10);
    ASSERT_LE(n, 40);
    for (int j = 0; j < n; ++j) {
      ASSERT_TRUE(std::isalnum(static_cast<unsigned char>(buf[j])) || buf[j] == ',' ||
                  buf[j] == '.');
    }
  }
}

TEST(GenDistsTest, SpecLists) {
  EXPECT_EQ(Nations().size(), 25u);
  EXPECT_EQ(Regions().size(), 5u);
  EXPECT_EQ(Colors().size(), 92u);
  EXPECT_EQ(TypeSyllable1().size() * TypeSyllable2().size() * TypeSyllable3().size(), 150u);
  EXPECT_EQ(ContainerSyllable1().size() * ContainerSyllable2().size(), 40u);
  EXPECT_EQ(std::set<std::string_view>(Colors().begin(), Colors().end()).size(), 92u);
  EXPECT_EQ(Nations()[24].name, "UNITED STATES");
  EXPECT_EQ(Regions()[static_cast<size_t>(Nations()[24].region)], "AMERICA");
}

TEST(GenDistsTest, RetailPriceAndPartSuppliers) {
  EXPECT_EQ(RetailPriceCents(1), 90100);  // 901.00, as in the spec's examples
  EXPECT_EQ(RetailPriceCents(1000), 90100);
  EXPECT_EQ(RetailPriceCents(199999), 90000 + 19999 + 99900);
  // The four suppliers of a part are distinct and in range, at several SFs.
  for (int64_t suppliers : {4, 10, 37, 100, 1000, 10000}) {
    for (int64_t part = 1; part <= suppliers * 20; part += 7) {
      std::set<int64_t> keys;
      for (int i = 0; i < 4; ++i) {
        const int64_t s = PartSupplier(part, i, suppliers);
        ASSERT_GE(s, 1);
        ASSERT_LE(s, suppliers);
        keys.insert(s);
      }
      ASSERT_EQ(keys.size(), 4u) << "part " << part << " of SF " << suppliers / 10000.0;
    }
  }
}

TEST(GenColumnsTest, FinishMakesValidArrays) {
  StringColumn s;
  s.Append("ab");
  char* p = s.AppendUninitialized(5);
  std::copy_n("xyz..", 5, p);
  s.TrimLast(2);
  auto strings = s.Finish(utf8()).ValueOrDie();
  ASSERT_TRUE(strings->Validate(true).ok());
  EXPECT_EQ(strings->GetString(0), "ab");
  EXPECT_EQ(strings->GetString(1), "xyz");

  Decimal128Column d;
  d.Append(-1);
  d.Append(12345);
  auto decimals = d.Finish(decimal128(15, 2)).ValueOrDie();
  ASSERT_TRUE(decimals->Validate(true).ok());
  const auto* words = decimals->GetValues<int64_t>(1);
  EXPECT_EQ(words[0], -1);
  EXPECT_EQ(words[1], -1);  // sign-extended
  EXPECT_EQ(words[2], 12345);
  EXPECT_EQ(words[3], 0);
}

TEST(GenScaleTest, ScaledRows) {
  EXPECT_EQ(ScaledRows(10000, 0.01), 100);
  EXPECT_EQ(ScaledRows(1500000, 1), 1500000);
  EXPECT_EQ(ScaledRows(5, 0.01), 1);  // at least one
  EXPECT_EQ(ScaledRows(200000, 0.001, 500), 500);
}

// Parquet output: one row group per --batch-rows rows, zstd unless told
// otherwise, the same rows as the generator made.
TEST(GenWriterTest, ParquetRowGroupsOfBatchRows) {
  const std::string dir = ::testing::TempDir() + "/quiver_gen_parquet_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  const TableDef def{"keys", schema({field("k", int32(), false)})};
  auto generate = [&](int64_t chunk) -> Result<std::vector<RecordBatchRef>> {
    Int32Column k;
    for (int i = 0; i < 250; ++i) k.Append(static_cast<int32_t>(chunk * 250 + i));
    QUIVER_ASSIGN_OR_RAISE(auto batch, MakeBatch(def.schema, 250, k));
    return std::vector<RecordBatchRef>{batch};
  };
  for (auto codec : {std::optional<compression::Codec>(),
                     std::optional<compression::Codec>(compression::Codec::kSnappy)}) {
    GenOptions options;
    options.format = OutputFormat::kParquet;
    options.codec = codec;
    options.out_dir = dir;
    options.batch_rows = 400;
    options.quiet = true;
    std::vector<TableReport> reports;
    ASSERT_TRUE(GenerateTables(options, {def}, 5, generate, &reports).ok());
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].rows, 1250);
    auto opened = parquet::ParquetFileReader::Open(dir + "/keys.parquet");
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    auto reader = *opened;
    ASSERT_EQ(reader->num_row_groups(), 4);
    EXPECT_EQ(reader->row_group_rows(0), 400);
    EXPECT_EQ(reader->row_group_rows(2), 400);
    EXPECT_EQ(reader->row_group_rows(3), 50);
    EXPECT_EQ(reader->metadata().row_groups[0].columns[0].meta_data->codec,
              codec ? parquet::CompressionCodec::kSnappy : parquet::CompressionCodec::kZstd);
    auto batch = reader->ReadRowGroup(3, {0});
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    EXPECT_EQ((*batch)->column(0)->GetValues<int32_t>(1)[49], 1249);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace quiver::gen
