// Avro writer -> reader round trips through memory, hostile bytes
// (truncations and flipped bytes of a valid file), and the shared corpus
// (arrow-testing/data/avro) through the format registry.
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/builder.h"
#include "formats/avro/reader.h"
#include "formats/avro/writer.h"
#include "formats/file_format.h"

namespace quiver::avro {
namespace {

constexpr int64_t kRows = 3000;

// A batch of every written type: ints, strings with nulls, decimals,
// timestamps, a struct, a list of ints and a map of strings to doubles.
RecordBatchRef SampleBatch() {
  Int64Builder ids(int64());
  StringBuilder names(utf8());
  FixedSizeBinaryBuilder dec(decimal128(10, 2));
  Int64Builder ts(timestamp(TimeUnit::kMicro, "UTC"));
  auto st_type = struct_({std::make_shared<Field>(Field{"a", int32(), true, {}}),
                          std::make_shared<Field>(Field{"b", utf8(), true, {}})});
  auto list_type = list(int32());
  auto map_type = map(utf8(), float64());
  auto st = MakeBuilder(st_type).ValueOrDie();
  auto lst = MakeBuilder(list_type).ValueOrDie();
  auto mp = MakeBuilder(map_type).ValueOrDie();
  for (int64_t i = 0; i < kRows; ++i) {
    EXPECT_TRUE(ids.Append(i * 1'000'003 - 5'000'000).ok());
    if (i % 7 == 3) {
      EXPECT_TRUE(names.AppendNull().ok());
    } else {
      EXPECT_TRUE(names.Append("name-" + std::to_string(i)).ok());
    }
    uint8_t le[16] = {};
    const int64_t cents = (i % 2 == 0 ? 1 : -1) * i * 12345;
    std::memcpy(le, &cents, 8);
    std::memset(le + 8, cents < 0 ? 0xff : 0, 8);
    EXPECT_TRUE(dec.Append(le).ok());
    EXPECT_TRUE(ts.Append(1'700'000'000'000'000 + i).ok());
    auto* sb = static_cast<StructBuilder*>(st.get());
    if (i % 5 == 0) {
      EXPECT_TRUE(sb->AppendNull().ok());
    } else {
      EXPECT_TRUE(sb->Append().ok());
      EXPECT_TRUE(static_cast<Int32Builder*>(sb->child(0))->Append(static_cast<int32_t>(i)).ok());
      EXPECT_TRUE(static_cast<StringBuilder*>(sb->child(1))->Append("x").ok());
    }
    auto* lb = static_cast<ListBuilder*>(lst.get());
    EXPECT_TRUE(lb->Append().ok());
    for (int64_t k = 0; k < i % 4; ++k) {
      EXPECT_TRUE(static_cast<Int32Builder*>(lb->value_builder())->Append(static_cast<int32_t>(k)).ok());
    }
    auto* mb = static_cast<ListBuilder*>(mp.get());
    EXPECT_TRUE(mb->Append().ok());
    auto* entry = static_cast<StructBuilder*>(mb->value_builder());
    for (int64_t k = 0; k < i % 3; ++k) {
      EXPECT_TRUE(entry->Append().ok());
      EXPECT_TRUE(static_cast<StringBuilder*>(entry->child(0))->Append("k" + std::to_string(k)).ok());
      EXPECT_TRUE(static_cast<DoubleBuilder*>(entry->child(1))->Append(k * 0.5).ok());
    }
  }
  std::vector<FieldRef> fields = {
      std::make_shared<Field>(Field{"id", int64(), false, {}}),
      std::make_shared<Field>(Field{"name", utf8(), true, {}}),
      std::make_shared<Field>(Field{"amount", decimal128(10, 2), true, {}}),
      std::make_shared<Field>(Field{"ts", timestamp(TimeUnit::kMicro, "UTC"), true, {}}),
      std::make_shared<Field>(Field{"rec", st_type, true, {}}),
      std::make_shared<Field>(Field{"ints", list_type, true, {}}),
      std::make_shared<Field>(Field{"props", map_type, true, {}}),
  };
  std::vector<ArrayRef> columns = {ids.Finish().ValueOrDie(),  names.Finish().ValueOrDie(),
                                   dec.Finish().ValueOrDie(),  ts.Finish().ValueOrDie(),
                                   st->Finish().ValueOrDie(),  lst->Finish().ValueOrDie(),
                                   mp->Finish().ValueOrDie()};
  return RecordBatch::Make(schema(std::move(fields)), kRows, std::move(columns));
}

std::shared_ptr<Buffer> Write(const RecordBatch& batch, BlockCodec codec) {
  BufferOutputStream out;
  auto writer = AvroWriter::Make(&out, batch.schema(), codec, compression::kDefaultLevel).ValueOrDie();
  // Two writes of halves: blocks across batch boundaries.
  const int64_t n = batch.num_rows();
  EXPECT_TRUE(writer->WriteRecordBatch(*batch.Slice(0, n / 2)).ok());
  EXPECT_TRUE(writer->WriteRecordBatch(*batch.Slice(n / 2, n - n / 2)).ok());
  EXPECT_TRUE(writer->Close().ok());
  return Buffer::CopyFrom(out.contents()).ValueOrDie();
}

TEST(AvroRoundTrip, EveryCodecReadsBackEqual) {
  const RecordBatchRef batch = SampleBatch();
  for (BlockCodec codec : {BlockCodec::kNull, BlockCodec::kDeflate, BlockCodec::kSnappy, BlockCodec::kZstd}) {
    SCOPED_TRACE(BlockCodecName(codec));
    auto reader = AvroFileReader::Open(Write(*batch, codec), "t.avro", DefaultMemoryPool()).ValueOrDie();
    EXPECT_EQ(reader->codec(), codec);
    EXPECT_EQ(reader->num_rows(), kRows);
    auto back = reader->ReadBlocks(0, static_cast<int>(reader->blocks().size()), {}).ValueOrDie();
    ASSERT_TRUE(back->Validate(true).ok());
    EXPECT_TRUE(back->schema()->Equals(*batch->schema())) << back->schema()->ToString();
    EXPECT_TRUE(back->Equals(*batch));
    // Projection (skipping the other columns), duplicated and reordered.
    auto some = reader->ReadBlocks(0, static_cast<int>(reader->blocks().size()), {6, 1, 1}).ValueOrDie();
    ASSERT_EQ(some->num_columns(), 3);
    EXPECT_TRUE(ArrayEquals(*some->column(0), *batch->column(6)));
    EXPECT_TRUE(ArrayEquals(*some->column(1), *batch->column(1)));
    EXPECT_TRUE(ArrayEquals(*some->column(2), *batch->column(1)));
  }
}

TEST(AvroRoundTrip, WriterRefusesWhatAvroCannotHold) {
  BufferOutputStream out;
  auto bad_name = schema({std::make_shared<Field>(Field{"count(*)", int64(), true, {}})});
  auto st = AvroWriter::Make(&out, bad_name, BlockCodec::kNull, compression::kDefaultLevel).status();
  EXPECT_NE(st.message().find("not an Avro name"), std::string::npos) << st.ToString();
  auto interval = schema({std::make_shared<Field>(Field{"i", month_day_nano_interval(), true, {}})});
  st = AvroWriter::Make(&out, interval, BlockCodec::kNull, compression::kDefaultLevel).status();
  EXPECT_FALSE(st.ok());
}

// Every truncation and every flipped byte of a small file: an error or
// batches, never a crash (ASan runs this too).
TEST(AvroHostile, TruncatedAndFlippedBytes) {
  const RecordBatchRef batch = SampleBatch()->Slice(0, 40);
  for (BlockCodec codec : {BlockCodec::kNull, BlockCodec::kDeflate, BlockCodec::kSnappy}) {
    const auto good = Write(*batch, codec);
    const std::string bytes(good->view());
    for (size_t n = 0; n < bytes.size(); ++n) {
      auto buf = Buffer::CopyFrom(std::string_view(bytes).substr(0, n)).ValueOrDie();
      auto r = AvroFileReader::Open(buf, "cut.avro", DefaultMemoryPool());
      if (!r.ok()) {
        EXPECT_NE(r.status().message().find("cut.avro"), std::string::npos) << r.status().ToString();
        continue;
      }
      auto b = (*r)->ReadBlocks(0, static_cast<int>((*r)->blocks().size()), {});
      if (b.ok()) {
        EXPECT_LT((*b)->num_rows(), batch->num_rows() + 1);
      }
    }
    for (size_t i = 0; i < bytes.size(); ++i) {
      std::string flipped = bytes;
      flipped[i] = static_cast<char>(flipped[i] ^ (i % 2 == 0 ? 0xff : 0x41));
      auto buf = Buffer::CopyFrom(flipped).ValueOrDie();
      auto r = AvroFileReader::Open(buf, "flip.avro", DefaultMemoryPool());
      if (!r.ok()) continue;
      auto b = (*r)->ReadBlocks(0, static_cast<int>((*r)->blocks().size()), {});
      if (b.ok()) (void)(*b)->Validate(true);
    }
  }
}

TEST(AvroHostile, TruncatedBlockNamesBlockAndOffset) {
  const auto good = Write(*SampleBatch(), BlockCodec::kNull);
  const std::string bytes(good->view());
  auto buf = Buffer::CopyFrom(std::string_view(bytes).substr(0, bytes.size() - 100)).ValueOrDie();
  auto r = AvroFileReader::Open(buf, "short.avro", DefaultMemoryPool());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("short.avro: Avro block"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("at offset"), std::string::npos);
  EXPECT_NE(r.status().message().find("truncated"), std::string::npos);
}

TEST(AvroCorpus, SharedFilesReadOrRefuseByName) {
  const std::filesystem::path dir = std::filesystem::path(QUIVER_SHARED_TESTDATA) / "arrow-testing/data/avro";
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no " << dir;
  int read = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".avro") continue;
    SCOPED_TRACE(e.path().string());
    auto file = formats::OpenFile(e.path().string(), formats::FileFormat::kAuto);
    for (const char* codec : {"xz", "bzip2"}) {
      if (e.path().filename() == std::string("alltypes_plain.") + codec + ".avro") {
        ASSERT_FALSE(file.ok());
        EXPECT_NE(file.status().message().find(std::string("'") + codec + "'"), std::string::npos)
            << file.status().ToString();
      }
    }
    if (!file.ok() && e.path().filename().string().find(".xz.") != std::string::npos) continue;
    if (!file.ok() && e.path().filename().string().find(".bzip2.") != std::string::npos) continue;
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    EXPECT_EQ((*file)->format(), formats::FileFormat::kAvro);
    int64_t rows = 0;
    for (int u = 0; u < (*file)->num_units(); ++u) {
      auto b = (*file)->ReadUnit(u, {});
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      rows += (*b)->num_rows();
    }
    EXPECT_EQ(rows, (*file)->num_rows());
    ++read;
  }
  EXPECT_EQ(read, 29);  // 31 files, 2 of them xz and bzip2
}

}  // namespace
}  // namespace quiver::avro
