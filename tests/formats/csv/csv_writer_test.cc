// CsvWriter: value formatting, RFC 4180 escaping, reader <-> writer round trip.
#include <gtest/gtest.h>

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
            "0.1,1970-01-01,1970-01-01 00:00:01.500,1970-01-02 00:00:00Z,00:00:00.000001\n"
            "1e+300,1969-12-31,1969-12-31 23:59:59.999,1970-01-01 00:00:00Z,23:59:59.999999\n");
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
  auto writer = CsvWriter::Make(&out, schema({field("l", list(int32()))}));
  ASSERT_FALSE(writer.ok());
  EXPECT_NE(writer.status().message().find("unsupported"), std::string::npos);
}

}  // namespace
}  // namespace quiver::csv
