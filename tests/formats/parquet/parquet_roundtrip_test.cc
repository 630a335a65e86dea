// Parquet writer -> reader round trips through memory, and the Parquet
// FileReader of the format registry (units, projection, statistics,
// concurrent reads from thread-pool tasks).
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/builder.h"
#include "common/thread_pool.h"
#include "formats/file_format.h"
#include "formats/parquet/file_reader.h"
#include "formats/parquet/file_writer.h"
#include "formats/parquet/statistics.h"

namespace quiver::parquet {
namespace {

constexpr int64_t kRows = 2500;

ArrayRef Ints(int64_t n, bool nulls) {
  Int64Builder b(int64());
  for (int64_t i = 0; i < n; ++i) {
    if (nulls && i % 7 == 3) {
      EXPECT_TRUE(b.AppendNull().ok());
    } else {
      EXPECT_TRUE(b.Append(i * 1000 - 77).ok());
    }
  }
  return b.Finish().ValueOrDie();
}

ArrayRef Strings(int64_t n) {
  StringBuilder b(utf8());
  for (int64_t i = 0; i < n; ++i) {
    if (i % 11 == 5) {
      EXPECT_TRUE(b.AppendNull().ok());
    } else {
      EXPECT_TRUE(b.Append("value-" + std::to_string(i % 37)).ok());
    }
  }
  return b.Finish().ValueOrDie();
}

ArrayRef Doubles(int64_t n) {
  DoubleBuilder b(float64());
  for (int64_t i = 0; i < n; ++i) EXPECT_TRUE(b.Append(i * 0.25).ok());
  return b.Finish().ValueOrDie();
}

ArrayRef Bools(int64_t n) {
  BooleanBuilder b;
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_TRUE((i % 13 == 0 ? b.AppendNull() : b.Append(i % 3 == 0)).ok());
  }
  return b.Finish().ValueOrDie();
}

// Lists read back with Parquet's element name, as pyarrow reads them.
TypeRef IntListType() { return list(field("element", int32())); }

// list<int32> with null lists, empty lists and null elements.
ArrayRef IntLists(int64_t n) {
  auto type = IntListType();
  auto b = MakeBuilder(type).ValueOrDie();
  auto* lb = static_cast<ListBuilder*>(b.get());
  auto* vb = static_cast<Int32Builder*>(lb->value_builder());
  for (int64_t i = 0; i < n; ++i) {
    if (i % 9 == 4) {
      EXPECT_TRUE(lb->AppendNull().ok());
      continue;
    }
    EXPECT_TRUE(lb->Append().ok());
    for (int64_t j = 0; j < i % 4; ++j) {
      EXPECT_TRUE(
          ((i + j) % 5 == 0 ? vb->AppendNull() : vb->Append(static_cast<int32_t>(i + j))).ok());
    }
  }
  return b->Finish().ValueOrDie();
}

// struct<a: int64, s: utf8> with null structs.
ArrayRef Structs(int64_t n) {
  auto type = struct_({field("a", int64()), field("s", utf8())});
  auto b = MakeBuilder(type).ValueOrDie();
  auto* sb = static_cast<StructBuilder*>(b.get());
  for (int64_t i = 0; i < n; ++i) {
    if (i % 6 == 1) {
      EXPECT_TRUE(sb->AppendNull().ok());
      continue;
    }
    EXPECT_TRUE(sb->Append().ok());
    EXPECT_TRUE(static_cast<Int64Builder*>(sb->child(0))->Append(i).ok());
    auto* s = static_cast<StringBuilder*>(sb->child(1));
    EXPECT_TRUE((i % 4 == 0 ? s->AppendNull() : s->Append(std::to_string(i))).ok());
  }
  return b->Finish().ValueOrDie();
}

ArrayRef Months(int64_t n) {
  NumericBuilder<int32_t> b(month_interval());
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_TRUE((i % 10 == 9 ? b.AppendNull() : b.Append(static_cast<int32_t>(i - 100))).ok());
  }
  return b.Finish().ValueOrDie();
}

RecordBatchRef MakeBatch() {
  auto schema = quiver::schema(
      {field("i", int64()), field("s", utf8()), field("d", float64(), false), field("b", boolean()),
       field("l", IntListType()), field("st", struct_({field("a", int64()), field("s", utf8())})),
       field("m", month_interval())},
      {{"origin", "roundtrip"}});
  return RecordBatch::Make(schema, kRows,
                           {Ints(kRows, true), Strings(kRows), Doubles(kRows), Bools(kRows),
                            IntLists(kRows), Structs(kRows), Months(kRows)});
}

std::shared_ptr<Buffer> Write(const std::vector<RecordBatchRef>& batches,
                              const ParquetWriteOptions& options) {
  BufferOutputStream out;
  auto writer = ParquetFileWriter::Make(&out, batches[0]->schema(), options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  for (const auto& b : batches) EXPECT_TRUE((*writer)->WriteRecordBatch(*b).ok());
  EXPECT_TRUE((*writer)->Close().ok());
  return Buffer::CopyFrom(out.contents()).ValueOrDie();
}

// All row groups concatenated column by column.
RecordBatchRef ReadAll(const ParquetFileReader& r) {
  std::vector<std::vector<ArrayRef>> parts(r.schema()->num_fields());
  for (int g = 0; g < r.num_row_groups(); ++g) {
    auto b = r.ReadRowGroup(g, {});
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    for (int c = 0; c < (*b)->num_columns(); ++c) parts[c].push_back((*b)->column(c));
  }
  std::vector<ArrayRef> cols;
  for (auto& p : parts) cols.push_back(Concatenate(p).ValueOrDie());
  return RecordBatch::Make(r.schema(), r.num_rows(), cols);
}

struct Case {
  const char* name;
  compression::Codec codec;
  int page_version;
  bool dictionary;
  std::optional<Encoding> encoding;
  int64_t row_group_rows;
};

class ParquetRoundTrip : public ::testing::TestWithParam<Case> {};

TEST_P(ParquetRoundTrip, WritesAndReadsBackEqual) {
  const Case& c = GetParam();
  RecordBatchRef batch = MakeBatch();
  ParquetWriteOptions o;
  o.codec = c.codec;
  o.data_page_version = c.page_version;
  o.dictionary = c.dictionary;
  o.encoding = c.encoding;
  o.row_group_rows = c.row_group_rows;
  o.data_page_rows = 300;  // several pages per chunk
  // Several input batches, sliced (non-zero offsets).
  std::vector<RecordBatchRef> batches = {batch->Slice(0, 1000), batch->Slice(1000, 0),
                                         batch->Slice(1000, 1500)};
  auto data = Write(batches, o);
  auto reader = ParquetFileReader::Open(data, "roundtrip.parquet");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->num_rows(), kRows);
  EXPECT_EQ((*reader)->num_row_groups(), (kRows + c.row_group_rows - 1) / c.row_group_rows);
  RecordBatchRef back = ReadAll(**reader);
  ASSERT_TRUE(back->Validate(true).ok());
  EXPECT_TRUE(back->schema()->Equals(*batch->schema(), /*check_metadata=*/true))
      << back->schema()->ToString();
  for (int i = 0; i < batch->num_columns(); ++i) {
    EXPECT_TRUE(ArrayEquals(*back->column(i), *batch->column(i)))
        << c.name << ": column " << batch->schema()->field(i)->name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    ParquetOptions, ParquetRoundTrip,
    ::testing::Values(Case{"zstd_v1_dict", compression::Codec::kZstd, 1, true, {}, 1 << 20},
                      Case{"snappy_v2", compression::Codec::kSnappy, 2, true, {}, 1000},
                      Case{"none_plain", compression::Codec::kNone, 1, false, {}, 777},
                      Case{"gzip_delta", compression::Codec::kGzip, 2, false,
                           Encoding::kDeltaBinaryPacked, 1 << 20},
                      Case{"brotli_dba", compression::Codec::kBrotli, 1, false,
                           Encoding::kDeltaByteArray, 1 << 20},
                      Case{"lz4_dlba", compression::Codec::kLz4Raw, 2, false,
                           Encoding::kDeltaLengthByteArray, 1 << 20},
                      Case{"bss", compression::Codec::kNone, 1, false, Encoding::kByteStreamSplit,
                           1 << 20}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

TEST(ParquetFileReaderTest, RegistryUnitsProjectionStatistics) {
  RecordBatchRef batch = MakeBatch();
  ParquetWriteOptions o;
  o.row_group_rows = 1000;
  auto data = Write({batch}, o);
  auto file = formats::OpenBuffer(data, "reg.parquet", formats::FileFormat::kAuto);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  formats::FileReader& f = **file;
  EXPECT_EQ(f.format(), formats::FileFormat::kParquet);
  ASSERT_EQ(f.num_units(), 3);
  EXPECT_EQ(f.num_rows(), kRows);
  EXPECT_EQ(f.unit_rows(2), 500);
  // Statistics of column "i" in row group 1: rows 1000..1999.
  formats::ColumnStatistics s = f.unit_statistics(1, 0);
  ASSERT_NE(s.min, nullptr);
  EXPECT_EQ(s.min->type->id, TypeId::kInt64);
  EXPECT_EQ(s.min->GetValues<int64_t>(1)[0], 1000 * 1000 - 77);
  EXPECT_EQ(s.max->GetValues<int64_t>(1)[0], 1999 * 1000 - 77);
  int64_t nulls = 0;
  for (int64_t i = 1000; i < 2000; ++i) nulls += i % 7 == 3;
  EXPECT_EQ(s.null_count, nulls);
  formats::ColumnStatistics strs = f.unit_statistics(0, 1);
  ASSERT_NE(strs.min, nullptr);
  EXPECT_EQ(strs.min->GetString(0), "value-0");
  EXPECT_EQ(strs.max->GetString(0), "value-9");
  EXPECT_EQ(f.unit_statistics(0, 4).min, nullptr);  // nested: none
  // Projection in a chosen order.
  auto unit = f.ReadUnit(1, {3, 0});
  ASSERT_TRUE(unit.ok());
  ASSERT_EQ((*unit)->num_columns(), 2);
  EXPECT_EQ((*unit)->schema()->field(0)->name, "b");
  EXPECT_TRUE(ArrayEquals(*(*unit)->column(1), *batch->column(0)->Slice(1000, 1000)));
  EXPECT_FALSE(f.ReadUnit(1, {9}).ok());
  EXPECT_FALSE(f.ReadUnit(7, {}).ok());
  // Sequential read with projection.
  auto seq = f.ReadSequential({1});
  ASSERT_TRUE(seq.ok());
  int64_t rows = 0;
  for (;;) {
    RecordBatchRef b;
    ASSERT_TRUE((*seq)->ReadNext(&b).ok());
    if (!b) break;
    EXPECT_EQ(b->num_columns(), 1);
    rows += b->num_rows();
  }
  EXPECT_EQ(rows, kRows);
}

TEST(ParquetFileReaderTest, PageIndexIsWrittenAndReadable) {
  RecordBatchRef batch = MakeBatch();
  ParquetWriteOptions o;
  o.data_page_rows = 500;
  auto data = Write({batch}, o);
  auto reader = ParquetFileReader::Open(data, "index.parquet").ValueOrDie();
  auto offsets = reader->ReadOffsetIndex(0, 0);
  ASSERT_TRUE(offsets.ok() && offsets->has_value()) << offsets.status().ToString();
  const auto& pages = (*offsets)->page_locations;
  ASSERT_EQ(pages.size(), 5u);  // 2500 rows, 500 per page
  for (size_t p = 0; p < pages.size(); ++p) EXPECT_EQ(pages[p].first_row_index, 500 * p);
  auto index = reader->ReadColumnIndex(0, 0);
  ASSERT_TRUE(index.ok() && index->has_value());
  ASSERT_EQ((*index)->min_values.size(), 5u);
  int64_t lo;
  std::memcpy(&lo, (*index)->min_values[1].data(), 8);
  EXPECT_EQ(lo, 501 * 1000 - 77);  // row 500 is null (i % 7 == 3)
  EXPECT_FALSE(reader->ReadColumnIndex(1, 0).ok());
}

TEST(ParquetFileReaderTest, RowRangesDecodeOnlyTheirPagesAndEqualTheWholeRead) {
  // Pages of 300 rows (not aligned with the ranges); flat columns are read
  // page by page, the list, struct and interval columns whole and cut.
  RecordBatchRef batch = MakeBatch();
  ParquetWriteOptions o;
  o.data_page_rows = 300;
  for (int version : {1, 2}) {
    o.data_page_version = version;
    auto data = Write({batch}, o);
    auto reader = ParquetFileReader::Open(data, "ranges.parquet").ValueOrDie();
    auto whole = reader->ReadRowGroup(0, {}).ValueOrDie();
    std::mt19937 rng(42 + version);
    for (int round = 0; round < 60; ++round) {
      std::vector<RowRange> ranges;
      int64_t at = std::uniform_int_distribution<int64_t>(0, 400)(rng);
      while (at < kRows) {
        const int64_t len = std::uniform_int_distribution<int64_t>(1, 700)(rng);
        ranges.push_back({at, std::min(kRows, at + len)});
        at = ranges.back().end + std::uniform_int_distribution<int64_t>(1, 900)(rng);
      }
      if (round == 0) ranges = {{0, kRows}};
      if (round == 1) ranges = {{299, 301}, {2499, 2500}};
      auto got = reader->ReadRowGroupRows(0, {}, ranges);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      int64_t rows = 0;
      for (const auto& r : ranges) rows += r.end - r.begin;
      ASSERT_EQ((*got)->num_rows(), rows);
      for (int c = 0; c < whole->num_columns(); ++c) {
        std::vector<ArrayRef> parts;
        for (const auto& r : ranges) parts.push_back(whole->column(c)->Slice(r.begin, r.end - r.begin));
        auto expected = Concatenate(parts).ValueOrDie();
        EXPECT_TRUE(ArrayEquals(*(*got)->column(c), *expected))
            << "version " << version << " round " << round << " column " << c;
      }
    }
    // Ranges must be ascending and inside the row group.
    EXPECT_FALSE(reader->ReadRowGroupRows(0, {}, {{10, 20}, {15, 30}}).ok());
    EXPECT_FALSE(reader->ReadRowGroupRows(0, {}, {{0, kRows + 1}}).ok());
    EXPECT_FALSE(reader->ReadRowGroupRows(0, {}, {{5, 5}}).ok());
  }
}

TEST(ParquetFileReaderTest, RowRangesNeverTouchOtherPages) {
  // A damaged page outside the ranges does not matter: it is never read.
  RecordBatchRef batch = MakeBatch();
  ParquetWriteOptions o;
  o.data_page_rows = 500;
  auto data = Write({batch}, o);
  auto reader = ParquetFileReader::Open(data, "damaged.parquet").ValueOrDie();
  const auto offsets = reader->ReadOffsetIndex(0, 0).ValueOrDie();
  ASSERT_TRUE(offsets.has_value());
  const PageLocation& page3 = offsets->page_locations[3];
  std::string bytes(reinterpret_cast<const char*>(data->data()), static_cast<size_t>(data->size()));
  for (int k = 0; k < 16; ++k) bytes[static_cast<size_t>(page3.offset + page3.compressed_page_size - 1 - k)] ^= 0x5a;
  auto damaged = ParquetFileReader::Open(Buffer::CopyFrom(bytes).ValueOrDie(), "damaged.parquet")
                     .ValueOrDie();
  EXPECT_FALSE(damaged->ReadRowGroup(0, {0}).ok());
  auto got = damaged->ReadRowGroupRows(0, {0}, {{10, 20}, {900, 1400}, {2100, 2500}});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(ArrayEquals(*(*got)->column(0),
                          *Concatenate({batch->column(0)->Slice(10, 10), batch->column(0)->Slice(900, 500),
                                        batch->column(0)->Slice(2100, 400)})
                               .ValueOrDie()));
  auto bad = damaged->ReadRowGroupRows(0, {0}, {{1499, 1501}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("page 3"), std::string::npos) << bad.status().ToString();
}

TEST(ParquetStatisticsTest, PageStatisticsFollowThePageIndex) {
  RecordBatchRef batch = MakeBatch();
  ParquetWriteOptions o;
  o.data_page_rows = 500;
  auto data = Write({batch}, o);
  auto reader = ParquetFileReader::Open(data, "pages.parquet").ValueOrDie();
  auto pages = PageFieldStatistics(*reader, 0, 0);  // i: i * 1000 - 77, every 7th null
  ASSERT_EQ(pages.size(), 5u);
  for (size_t p = 0; p < pages.size(); ++p) {
    EXPECT_EQ(pages[p].first_row, static_cast<int64_t>(500 * p));
    EXPECT_EQ(pages[p].rows, 500);
    ASSERT_TRUE(pages[p].min && pages[p].max);
    EXPECT_GT(pages[p].null_count, 0);
  }
  EXPECT_EQ(pages[1].min->GetValues<int64_t>(1)[0], 501 * 1000 - 77);
  EXPECT_EQ(pages[4].max->GetValues<int64_t>(1)[0], 2499 * 1000 - 77);
  // Not one flat leaf: a list and a struct have no page statistics.
  EXPECT_TRUE(PageFieldStatistics(*reader, 0, 4).empty());
  EXPECT_TRUE(PageFieldStatistics(*reader, 0, 5).empty());
  EXPECT_TRUE(PageFieldStatistics(*reader, 3, 0).empty());
  // Without a page index, none.
  o.page_index = false;
  auto plain = ParquetFileReader::Open(Write({batch}, o), "plain.parquet").ValueOrDie();
  EXPECT_TRUE(PageFieldStatistics(*plain, 0, 0).empty());
}

TEST(ParquetFileReaderTest, ConcurrentReadsFromPoolTasks) {
  // Row groups read from inside thread-pool tasks, each fanning its columns
  // out on the same pool: must neither deadlock nor mix results up.
  RecordBatchRef batch = MakeBatch();
  ParquetWriteOptions o;
  o.row_group_rows = 250;
  auto data = Write({batch}, o);
  auto reader = ParquetFileReader::Open(data, "concurrent.parquet").ValueOrDie();
  std::vector<RecordBatchRef> got(reader->num_row_groups());
  ASSERT_TRUE(ParallelFor(reader->num_row_groups(), [&](int64_t g) -> Status {
                QUIVER_ASSIGN_OR_RAISE(got[g], reader->ReadRowGroup(static_cast<int>(g), {}));
                return Status::OK();
              }).ok());
  for (size_t g = 0; g < got.size(); ++g) {
    EXPECT_TRUE(ArrayEquals(*got[g]->column(1), *batch->column(1)->Slice(g * 250, 250)));
  }
}

TEST(ParquetFileReaderTest, FooterErrorsNameTheProblem) {
  auto data = Write({MakeBatch()}, {});
  std::string bytes(data->view());
  auto open = [](const std::string& b) {
    return ParquetFileReader::Open(Buffer::CopyFrom(b).ValueOrDie(), "x.parquet");
  };
  EXPECT_TRUE(open(bytes).ok());
  auto encrypted = bytes;
  std::memcpy(encrypted.data() + encrypted.size() - 4, "PARE", 4);
  EXPECT_NE(open(encrypted).status().message().find("encrypted Parquet is not supported"),
            std::string::npos);
  auto truncated = open(bytes.substr(0, bytes.size() - 10));
  EXPECT_NE(truncated.status().message().find("x.parquet"), std::string::npos);
  EXPECT_FALSE(open("PAR1").ok());
}

TEST(ParquetFileReaderTest, CorruptionNeverCrashes) {
  // Deterministic single-byte corruptions anywhere in a small file, and
  // truncations: each read either succeeds or fails with a Status.
  RecordBatchRef batch = MakeBatch()->Slice(0, 300);
  ParquetWriteOptions o;
  o.row_group_rows = 100;
  o.data_page_rows = 40;
  o.page_checksum = false;  // let corrupted bytes reach the decoders
  auto data = Write({batch}, o);
  std::string bytes(data->view());
  std::mt19937 rng(11);
  int opened = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::string b = bytes;
    const size_t pos = rng() % b.size();
    b[pos] = static_cast<char>(b[pos] ^ (1 << (rng() % 8)));
    if (trial % 10 == 0) b.resize(rng() % b.size());
    auto r = ParquetFileReader::Open(Buffer::CopyFrom(b).ValueOrDie(), "fuzz.parquet");
    if (!r.ok()) continue;
    ++opened;
    for (int g = 0; g < (*r)->num_row_groups(); ++g) {
      auto rg = (*r)->ReadRowGroup(g, {});
      if (rg.ok()) {
        EXPECT_TRUE((*rg)->Validate(true).ok());
      }
    }
    // Statistics from a damaged footer are either absent or one valid value.
    for (int f = 0; f < (*r)->schema()->num_fields(); ++f) {
      const FieldStatistics s = RowGroupFieldStatistics(**r, 0, f);
      for (const ArrayRef& bound : {s.min, s.max}) {
        if (bound == nullptr) continue;
        EXPECT_EQ(bound->length, 1) << "trial " << trial << " field " << f;
        EXPECT_TRUE(bound->Validate(true).ok()) << "trial " << trial << " field " << f;
      }
    }
  }
  EXPECT_GT(opened, 100);
}

}  // namespace
}  // namespace quiver::parquet
