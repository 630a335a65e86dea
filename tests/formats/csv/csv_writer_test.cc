// CsvWriter: value formatting, RFC 4180 escaping, reader <-> writer round trip.
#include <gtest/gtest.h>

#include <cstring>

#include "columnar/builder.h"
#include "common/io.h"
#include "formats/csv/csv_test_util.h"
#include "formats/csv/writer.h"

namespace quiver::csv {
namespace {

using testing::ReadTable;
using testing::Table;

std::string Write(const RecordBatch& batch, const WriteOptions& options = {}) {
  BufferOutputStream out;
  auto writer = CsvWriter::Make(&out, batch.schema(), options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  EXPECT_TRUE((*writer)->WriteRecordBatch(batch).ok());
  EXPECT_TRUE((*writer)->Close().ok());
  return out.contents();
}

ArrayRef Strings(const std::vector<std::optional<std::string>>& values) {
  StringBuilder b(utf8());
  for (const auto& v : values) {
    EXPECT_TRUE((v ? b.Append(*v) : b.AppendNull()).ok());
  }
  return *b.Finish();
}

template <typename T>
ArrayRef Numbers(TypeRef type, const std::vector<std::optional<T>>& values) {
  NumericBuilder<T> b(std::move(type));
  for (const auto& v : values) {
    EXPECT_TRUE((v ? b.Append(*v) : b.AppendNull()).ok());
  }
  return *b.Finish();
}

TEST(CsvWriter, EscapingRfc4180) {
  auto s = schema({field("text", utf8()), field("n, \"x\"", int64())});
  auto batch = RecordBatch::Make(
      s, 6,
      {Strings({"plain", "a,b", "say \"hi\"", "two\nlines", "", std::nullopt}),
       Numbers<int64_t>(int64(), {1, -2, std::nullopt, 4, 5, 6})});
  EXPECT_EQ(Write(*batch),
            "text,\"n, \"\"x\"\"\"\n"
            "plain,1\n"
            "\"a,b\",-2\n"
            "\"say \"\"hi\"\"\",\n"
            "\"two\nlines\",4\n"
            "\"\",5\n"
            ",6\n");
  WriteOptions o;
  o.delimiter = ';';
  o.null_string = "NULL";
  o.header = false;
  o.quoting = QuotingStyle::kAllStrings;
  EXPECT_EQ(Write(*batch->Slice(0, 3), o), "\"plain\";1\n\"a,b\";-2\n\"say \"\"hi\"\"\";NULL\n");
  o.quoting = QuotingStyle::kNone;
  BufferOutputStream out;
  auto writer = CsvWriter::Make(&out, s, o).ValueOrDie();
  EXPECT_FALSE(writer->WriteRecordBatch(*batch->Slice(2, 1)).ok());
}

TEST(CsvWriter, FormatsTypes) {
  auto s = schema({field("f", float64()), field("d", date32()), field("ts", timestamp(TimeUnit::kMilli)),
                   field("tz", timestamp(TimeUnit::kSecond, "UTC")), field("t", time64(TimeUnit::kMicro))});
  auto batch = RecordBatch::Make(
      s, 2,
      {Numbers<double>(float64(), {0.1, 1e300}), Numbers<int32_t>(date32(), {0, -1}),
       Numbers<int64_t>(timestamp(TimeUnit::kMilli), {1500, -1}),
       Numbers<int64_t>(timestamp(TimeUnit::kSecond, "UTC"), {86400, 0}),
       Numbers<int64_t>(time64(TimeUnit::kMicro), {1, 86399999999})});
  EXPECT_EQ(Write(*batch),
            "f,d,ts,tz,t\n"
            "0.1,1970-01-01,1970-01-01 00:00:01.5,1970-01-02 00:00:00+00,00:00:00.000001\n"
            "1e+300,1969-12-31,1969-12-31 23:59:59.999,1970-01-01 00:00:00+00,23:59:59.999999\n");
}

// Intervals as PostgreSQL writes them (IntervalStyle postgres); times and
// timestamps with a fraction only when it is not zero.
TEST(CsvWriter, IntervalsAndTrimmedFractions) {
  auto s = schema({field("i", month_day_nano_interval()), field("m", month_interval()),
                   field("ts", timestamp(TimeUnit::kMicro)), field("t", time64(TimeUnit::kNano))});
  auto interval = [](int32_t months, int32_t days, int64_t nanos) {
    std::vector<uint8_t> v(16);
    std::memcpy(v.data(), &months, 4);
    std::memcpy(v.data() + 4, &days, 4);
    std::memcpy(v.data() + 8, &nanos, 8);
    return v;
  };
  std::vector<uint8_t> mdn;
  for (const auto& v : {interval(14, 3, 14706500000000LL), interval(0, -1, 7200000000000LL),
                        interval(0, 0, 0), interval(-1, 0, -1500000000LL)}) {
    mdn.insert(mdn.end(), v.begin(), v.end());
  }
  auto batch = RecordBatch::Make(
      s, 4,
      {ArrayData::Make(month_day_nano_interval(), 4,
                       {nullptr, Buffer::CopyFrom(std::string_view(reinterpret_cast<const char*>(mdn.data()),
                                                                   mdn.size()))
                                     .ValueOrDie()}),
       Numbers<int32_t>(month_interval(), {1, 25, 0, -12}),
       Numbers<int64_t>(timestamp(TimeUnit::kMicro), {1709164800000000LL, 1709208000500000LL, 0, 1}),
       Numbers<int64_t>(time64(TimeUnit::kNano), {43200000000000LL, 43200500000000LL, 0, 1})});
  EXPECT_EQ(Write(*batch),
            "i,m,ts,t\n"
            "1 year 2 mons 3 days 04:05:06.5,1 mon,2024-02-29 00:00:00,12:00:00\n"
            "-1 days +02:00:00,2 years 1 mon,2024-02-29 12:00:00.5,12:00:00.5\n"
            "00:00:00,00:00:00,1970-01-01 00:00:00,00:00:00\n"
            "-1 mons -00:00:01.5,-1 years,1970-01-01 00:00:00.000001,00:00:00.000000001\n");
}

TEST(CsvWriter, Decimals) {
  struct Case {
    TypeRef type;
    std::string input, output;
  };
  for (const Case& c : std::vector<Case>{
           {decimal128(10, 2), "d\n-12.3\n0.05\n\"\"\n", "d\n-12.30\n0.05\n\"\"\n"},
           {decimal256(40, 3), "d\n-12.3\n0.05\n\"\"\n", "d\n-12.300\n0.050\n\"\"\n"},
           {decimal(TypeId::kDecimal32, 5, 0), "d\n-1230\n5\nNA\n", "d\n-1230\n5\n\"\"\n"},
           {decimal(TypeId::kDecimal64, 18, 18), "d\n-0.1\n.000000000000000001\n",
            "d\n-0.100000000000000000\n0.000000000000000001\n"}}) {
    ConvertOptions co;
    co.column_types = {{"d", c.type}};
    ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable(c.input, {}, {}, co));
    ASSERT_EQ(t.batches.size(), 1u);
    EXPECT_EQ(Write(*t.batches[0]), c.output) << c.type->ToString();
  }
}

TEST(CsvWriter, RoundTrip) {
  const std::string text =
      "i,f,b,s,d,ts,n\n"
      "1,0.25,true,\"a,b\",2024-03-01,2024-03-01 10:00:00,\n"
      "-7,1e+20,false,\"multi\nline \"\"q\"\"\",1999-12-31,1970-01-01 00:00:00,\n"
      ",,,,,,\n";
  ASSERT_OK_AND_ASSIGN_CSV(Table first, ReadTable(text));
  ASSERT_EQ(first.batches.size(), 1u);
  const std::string written = Write(*first.batches[0]);
  ASSERT_OK_AND_ASSIGN_CSV(Table second, ReadTable(written));
  EXPECT_TRUE(first.schema->Equals(*second.schema)) << first.schema->ToString() << "\n"
                                                    << second.schema->ToString();
  EXPECT_EQ(first.rows, second.rows) << written;
  EXPECT_TRUE(first.batches[0]->Equals(*second.batches[0]));
}

TEST(CsvWriter, HeaderOnlyOnClose) {
  BufferOutputStream out;
  auto writer = CsvWriter::Make(&out, schema({field("a", int64())})).ValueOrDie();
  ASSERT_TRUE(writer->Close().ok());
  EXPECT_EQ(out.contents(), "a\n");
}

TEST(CsvWriter, UnsupportedType) {
  BufferOutputStream out;
  auto writer = CsvWriter::Make(&out, schema({field("u", sparse_union({field("a", int32())}, {0}))}));
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.status().message().find("unsupported"), std::string::npos);
}

}  // namespace
}  // namespace quiver::csv
