// CsvReader end to end: quoting, line breaks, headers, nulls, inference,
// explicit types, errors with line numbers, compression, parallel order.
#include <gtest/gtest.h>

#include <random>

#include "formats/compression/codec.h"
#include "formats/csv/csv_test_util.h"

namespace quiver::csv {
namespace {

using testing::ReadError;
using testing::ReadTable;
using testing::Rows;
using testing::Table;

TEST(CsvReader, BasicInference) {
  ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable("a,b,c\n1,x,2.5\n-3,y,1e3\n"));
  ASSERT_EQ(t.schema->num_fields(), 3);
  EXPECT_EQ(t.name(0), "a");
  EXPECT_EQ(t.type(0), "int64");
  EXPECT_EQ(t.type(1), "string");
  EXPECT_EQ(t.type(2), "double");
  EXPECT_EQ(t.rows, (Rows{{"1", "x", "2.5"}, {"-3", "y", "1000.0"}}));
}

TEST(CsvReader, EveryInferredType) {
  const std::string text =
      "i,b,d,t,ts,tsn,tsz,tsnz,f,s,n\n"
      "1,true,2024-03-01,13:45:07,2024-03-01 13:45:07,2024-03-01T13:45:07.25,"
      "2024-03-01T13:45:07Z,2024-03-01 13:45:07.5+01:00,1.5,abc,\n"
      "2,FALSE,1969-12-31,00:00,2024-03-01,2024-03-01 00:00:00,2024-03-01 00:00:00+0000,"
      "2024-03-01T00:00:00.123456789Z,-2,é,NA\n";
  ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable(text));
  EXPECT_EQ(t.type(0), "int64");
  EXPECT_EQ(t.type(1), "bool");
  EXPECT_EQ(t.type(2), "date32[day]");
  EXPECT_EQ(t.type(3), "time32[s]");
  EXPECT_EQ(t.type(4), "timestamp[s]");
  EXPECT_EQ(t.type(5), "timestamp[ns]");
  EXPECT_EQ(t.type(6), "timestamp[s, tz=UTC]");
  EXPECT_EQ(t.type(7), "timestamp[ns, tz=UTC]");
  EXPECT_EQ(t.type(8), "double");
  EXPECT_EQ(t.type(9), "string");
  EXPECT_EQ(t.type(10), "string");  // null-only column
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0][1], "true");
  EXPECT_EQ(t.rows[1][1], "false");
  EXPECT_EQ(t.rows[1][2], "1969-12-31");
  EXPECT_EQ(t.rows[0][4], "2024-03-01 13:45:07");
  EXPECT_EQ(t.rows[1][4], "2024-03-01 00:00:00");
  EXPECT_EQ(t.rows[0][5], "2024-03-01 13:45:07.25");
  EXPECT_EQ(t.rows[0][7], "2024-03-01 12:45:07.5+00");
  EXPECT_EQ(t.rows[0][10], "NULL");
  EXPECT_EQ(t.rows[1][10], "NULL");
}

TEST(CsvReader, InferenceWidens) {
  ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable("a,b,c,d\n1,1,2024-01-01,true\n2.5,x,2024-01-01 10:00:00,1\n"));
  EXPECT_EQ(t.type(0), "double");
  EXPECT_EQ(t.type(1), "string");
  EXPECT_EQ(t.type(2), "timestamp[s]");
  EXPECT_EQ(t.type(3), "bool");  // 1 is a true value
  EXPECT_EQ(t.rows[0][2], "2024-01-01 00:00:00");
}

TEST(CsvReader, EmptyVersusNull) {
  // Strings keep empty and NULL texts (strings_can_be_null = false); numbers
  // read null texts as null.
  ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable("s,i\n,1\nNULL,\n\"\",NA\nx,\"\"\n"));
  EXPECT_EQ(t.type(0), "string");
  EXPECT_EQ(t.type(1), "int64");
  ASSERT_EQ(t.batches.size(), 1u);
  const ArrayData& s = *t.batches[0]->column(0);
  EXPECT_EQ(s.GetNullCount(), 0);
  EXPECT_EQ(s.GetString(0), "");
  EXPECT_EQ(s.GetString(1), "NULL");
  const ArrayData& i = *t.batches[0]->column(1);
  EXPECT_EQ(i.GetNullCount(), 3);

  ConvertOptions co;
  co.strings_can_be_null = true;
  ASSERT_OK_AND_ASSIGN_CSV(Table t2, ReadTable("s,i\n,1\nNULL,2\nx,3\n", {}, {}, co));
  EXPECT_EQ(t2.rows, (Rows{{"NULL", "1"}, {"NULL", "2"}, {"x", "3"}}));

  co.null_values = {"-"};
  ASSERT_OK_AND_ASSIGN_CSV(Table t3, ReadTable("s,i\n-,-\n,2\n", {}, {}, co));
  EXPECT_EQ(t3.rows, (Rows{{"NULL", "NULL"}, {"", "2"}}));
}

TEST(CsvReader, NullTextThatParsesAsValue) {
  ConvertOptions co;
  co.null_values = {"-1"};
  co.column_types = {{"a", int64()}};
  ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable("a\n-1\n5\n", {}, {}, co));
  EXPECT_EQ(t.rows, (Rows{{"NULL"}, {"5"}}));
}

TEST(CsvReader, QuotingRfc4180) {
  const std::string text =
      "a,b\n"
      "\"x,y\",\"say \"\"hi\"\"\"\n"
      "\"line1\nline2\",\"cr\r\nlf\"\n"
      "plain,\"\"\n";
  ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable(text));
  ASSERT_EQ(t.batches.size(), 1u);
  const ArrayData& a = *t.batches[0]->column(0);
  const ArrayData& b = *t.batches[0]->column(1);
  EXPECT_EQ(a.GetString(0), "x,y");
  EXPECT_EQ(b.GetString(0), "say \"hi\"");
  EXPECT_EQ(a.GetString(1), "line1\nline2");
  EXPECT_EQ(b.GetString(1), "cr\r\nlf");
  EXPECT_EQ(a.GetString(2), "plain");
  EXPECT_EQ(b.GetString(2), "");
}

TEST(CsvReader, QuoteInsideUnquotedFieldIsLiteral) {
  ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable("a,b\n5\"6,\"ab\"cd\n"));
  const ArrayData& a = *t.batches[0]->column(0);
  const ArrayData& b = *t.batches[0]->column(1);
  EXPECT_EQ(a.GetString(0), "5\"6");
  EXPECT_EQ(b.GetString(0), "abcd");
}

TEST(CsvReader, CrlfAndLoneCr) {
  ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable("a,b\r\n1,2\r\n3,4\r\n"));
  EXPECT_EQ(t.rows, (Rows{{"1", "2"}, {"3", "4"}}));
  ASSERT_OK_AND_ASSIGN_CSV(Table t2, ReadTable("a,b\r1,2\r3,4"));
  EXPECT_EQ(t2.rows, (Rows{{"1", "2"}, {"3", "4"}}));
}

TEST(CsvReader, NoTrailingNewlineAndEmptyLines) {
  ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable("a,b\n\n1,2\n\n\n3,4"));
  EXPECT_EQ(t.rows, (Rows{{"1", "2"}, {"3", "4"}}));
  // A trailing delimiter makes an empty last field.
  ASSERT_OK_AND_ASSIGN_CSV(Table t2, ReadTable("a,b\n1,"));
  EXPECT_EQ(t2.rows, (Rows{{"1", "NULL"}}));
}

TEST(CsvReader, Bom) {
  ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable("\xEF\xBB\xBFid,name\n1,\xC3\xA9t\xC3\xA9\n"));
  EXPECT_EQ(t.name(0), "id");
  EXPECT_EQ(t.rows, (Rows{{"1", "\xC3\xA9t\xC3\xA9"}}));
}

TEST(CsvReader, HeaderOptions) {
  ReadOptions ro;
  ro.header = false;
  ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable("1,2\n3,4\n", ro));
  EXPECT_EQ(t.name(0), "f0");
  EXPECT_EQ(t.name(1), "f1");
  EXPECT_EQ(t.rows.size(), 2u);

  ro.column_names = {"x", "y"};
  ASSERT_OK_AND_ASSIGN_CSV(Table t2, ReadTable("1,2\n3,4\n", ro));
  EXPECT_EQ(t2.name(1), "y");
  EXPECT_EQ(t2.rows.size(), 2u);

  ro.header = true;  // rename: the header row is dropped
  ASSERT_OK_AND_ASSIGN_CSV(Table t3, ReadTable("a,b\n1,2\n", ro));
  EXPECT_EQ(t3.name(0), "x");
  EXPECT_EQ(t3.rows, (Rows{{"1", "2"}}));

  ReadOptions skip;
  skip.skip_rows = 2;
  ASSERT_OK_AND_ASSIGN_CSV(Table t4, ReadTable("junk\n\"more\njunk\"\na\n1\n", skip));
  EXPECT_EQ(t4.name(0), "a");
  EXPECT_EQ(t4.rows, (Rows{{"1"}}));
}

TEST(CsvReader, EmptyInputs) {
  ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable(""));
  EXPECT_EQ(t.schema->num_fields(), 0);
  EXPECT_TRUE(t.batches.empty());
  ASSERT_OK_AND_ASSIGN_CSV(Table t2, ReadTable("a,b\n"));
  EXPECT_EQ(t2.schema->num_fields(), 2);
  EXPECT_EQ(t2.type(0), "string");
  EXPECT_TRUE(t2.batches.empty());
}

TEST(CsvReader, DelimiterQuoteEscape) {
  ParseOptions po;
  po.delimiter = ';';
  po.quote = '\'';
  ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable("a;b\n'x;y';'it''s'\n", {}, po));
  EXPECT_EQ(t.rows, (Rows{{"x;y", "it's"}}));

  ParseOptions esc;
  esc.escape = '\\';
  esc.double_quote = false;
  ASSERT_OK_AND_ASSIGN_CSV(Table t2, ReadTable("a,b\n\"q\\\"q\",x\\,y\n", {}, esc));
  EXPECT_EQ(t2.rows, (Rows{{"q\"q", "x,y"}}));

  ParseOptions tab;
  tab.delimiter = '\t';
  tab.quoting = false;
  ASSERT_OK_AND_ASSIGN_CSV(Table t3, ReadTable("a\tb\n\"x\t1\n", {}, tab));
  EXPECT_EQ(t3.rows, (Rows{{"\"x", "1"}}));
}

TEST(CsvReader, RaggedRowsNameTheLine) {
  EXPECT_EQ(ReadError("a,b,c\n1,2,3\n4,5,6,7\n"), "data.csv: line 3: expected 3 fields, found 4");
  EXPECT_EQ(ReadError("a,b,c\n1,2\n"), "data.csv: line 2: expected 3 fields, found 2");
  // Embedded line breaks and empty lines count as physical lines.
  EXPECT_EQ(ReadError("a,b\n\"x\ny\",1\n\n2,3\n4\n"), "data.csv: line 6: expected 2 fields, found 1");
  // Also deep in the file with small blocks (parallel path).
  std::string text = "a,b,c\n";
  for (int i = 0; i < 1000; ++i) text += "1,\"2\n2\",3\n";
  text += "1,2\n";
  ReadOptions ro;
  ro.block_size = 64;
  ConvertOptions co;
  co.inference_rows = 1;
  EXPECT_EQ(ReadError(text, ro, {}, co), "data.csv: line 2002: expected 3 fields, found 2");
}

TEST(CsvReader, BadValuesNameLineAndColumn) {
  ConvertOptions co;
  co.column_types = {{"price", float64()}};
  EXPECT_EQ(ReadError("id,price\n1,2.5\n2,abc\n", {}, {}, co),
            "data.csv: line 3, column 'price': cannot parse 'abc' as double");
  // A later block contradicting an inferred type.
  std::string text = "id,v\n";
  for (int i = 0; i < 100; ++i) text += std::to_string(i) + "," + std::to_string(i) + "\n";
  text += "100,oops\n";
  ReadOptions ro;
  ro.block_size = 32;
  ConvertOptions inf;
  inf.inference_rows = 10;
  const std::string err = ReadError(text, ro, {}, inf);
  EXPECT_NE(err.find("data.csv: line 102, column 'v': cannot parse 'oops' as int64"),
            std::string::npos)
      << err;
  EXPECT_EQ(ReadError("a\n\"unterminated\n"), "data.csv: line 2: unterminated quoted field");
}

TEST(CsvReader, ExplicitTypes) {
  ConvertOptions co;
  co.column_types = {{"a", int32()},
                     {"b", decimal128(10, 2)},
                     {"c", timestamp(TimeUnit::kMicro, "UTC")},
                     {"d", utf8()},
                     {"e", boolean()},
                     {"f", uint8()},
                     {"g", time64(TimeUnit::kMicro)},
                     {"h", float32()},
                     {"i", date64()},
                     {"j", decimal256(40, 3)}};
  ASSERT_OK_AND_ASSIGN_CSV(
      Table t, ReadTable("a,b,c,d,e,f,g,h,i,j\n"
                         "7,-12.3,2024-03-01 10:00:00.123456,0042,1,255,12:00:00.5,0.5,2024-03-01,"
                         "-1.5\n"
                         ",0.05,2024-03-01T10:00:00+02:00,,False,0,00:00,,,\n",
                         {}, {}, co));
  EXPECT_EQ(t.type(1), "decimal128(10, 2)");
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"7", "-12.30", "2024-03-01 10:00:00.123456+00",
                                                 "0042", "true", "255", "12:00:00.5", "0.5",
                                                 "2024-03-01", "-1.500"}));
  EXPECT_EQ(t.rows[1], (std::vector<std::string>{"NULL", "0.05", "2024-03-01 08:00:00+00",
                                                 "", "false", "0", "00:00:00", "NULL",
                                                 "NULL", "NULL"}));
  ConvertOptions bad;
  bad.column_types = {{"a", int8()}};
  EXPECT_EQ(ReadError("a\n200\n", {}, {}, bad), "data.csv: line 2, column 'a': cannot parse '200' as int8");
  bad.column_types = {{"a", decimal128(5, 1)}};
  EXPECT_EQ(ReadError("a\n1.25\n", {}, {}, bad),
            "data.csv: line 2, column 'a': cannot parse '1.25' as decimal128(5, 1)");
  bad.column_types = {{"zz", int8()}};
  EXPECT_NE(ReadError("a\n1\n", {}, {}, bad).find("'zz'"), std::string::npos);
}

TEST(CsvReader, Int64Extremes) {
  ASSERT_OK_AND_ASSIGN_CSV(
      Table t, ReadTable("a\n9223372036854775807\n-9223372036854775808\n 5 \n0000000000000000000000012\n"
                         "0x1F\n"));
  EXPECT_EQ(t.type(0), "int64");
  EXPECT_EQ(t.rows,
            (Rows{{"9223372036854775807"}, {"-9223372036854775808"}, {"5"}, {"12"}, {"31"}}));
  // As pyarrow: "+1" is not an integer but is a float.
  ASSERT_OK_AND_ASSIGN_CSV(Table plus, ReadTable("a\n+1\n2\n"));
  EXPECT_EQ(plus.type(0), "double");
  ASSERT_OK_AND_ASSIGN_CSV(Table t2, ReadTable("a\n9223372036854775808\n"));
  EXPECT_EQ(t2.type(0), "double");
}

TEST(CsvReader, InvalidUtf8IsBinary) {
  ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable("a\n\xff\xfe\nok\n"));
  EXPECT_EQ(t.type(0), "binary");
}

std::string Compress(compression::Codec codec, const std::string& text) {
  auto r = compression::Compress(codec, reinterpret_cast<const uint8_t*>(text.data()),
                                 static_cast<int64_t>(text.size()));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::string((*r)->view());
}

TEST(CsvReader, CompressedInput) {
  const std::string text = "a,b\n1,x\n2,\"y\nz\"\n";
  for (auto codec : {compression::Codec::kGzip, compression::Codec::kZstd}) {
    ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable(Compress(codec, text)));
    EXPECT_EQ(t.rows, (Rows{{"1", "x"}, {"2", "y\\nz"}})) << compression::CodecName(codec);
  }
}

// Many tiny blocks, quoted line breaks everywhere (so speculative boundaries
// are often wrong): the result must equal a serial read, in order.
TEST(CsvReader, ParallelOrderManySmallBlocks) {
  std::mt19937 rng(42);
  std::string text = "id,s,v\n";
  const int n = 5000;
  for (int i = 0; i < n; ++i) {
    text += std::to_string(i) + ",";
    switch (rng() % 4) {
      case 0: text += "plain"; break;
      case 1: text += "\"multi\nline,\"\"q\"\"\r\n\"";  break;
      case 2: text += "\"\n\n\""; break;
      default: text += ""; break;
    }
    text += "," + std::to_string(rng() % 1000) + (rng() % 5 == 0 ? "\r\n" : "\n");
  }
  ReadOptions serial;
  serial.use_threads = false;
  serial.block_size = 1 << 20;
  ASSERT_OK_AND_ASSIGN_CSV(Table expected, ReadTable(text, serial));
  ASSERT_EQ(expected.rows.size(), static_cast<size_t>(n));
  for (int64_t block_size : {1, 7, 64, 1000}) {
    ReadOptions ro;
    ro.block_size = block_size;
    ConvertOptions co;
    co.inference_rows = 100;
    ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable(text, ro, {}, co));
    ASSERT_EQ(t.rows.size(), expected.rows.size()) << block_size;
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(t.rows[i], expected.rows[i]) << "row " << i << " block_size " << block_size;
      ASSERT_EQ(t.rows[i][0], std::to_string(i));
    }
  }
}

TEST(CsvReader, BatchRows) {
  std::string text = "a\n";
  for (int i = 0; i < 100; ++i) text += std::to_string(i) + "\n";
  ReadOptions ro;
  ro.block_size = 16;
  ro.batch_rows = 30;
  ASSERT_OK_AND_ASSIGN_CSV(Table t, ReadTable(text, ro));
  ASSERT_EQ(t.batches.size(), 4u);
  EXPECT_EQ(t.batches[0]->num_rows(), 30);
  EXPECT_EQ(t.batches[3]->num_rows(), 10);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(t.rows[i][0], std::to_string(i));

  ro.block_size = 1 << 20;
  ro.batch_rows = 7;
  ASSERT_OK_AND_ASSIGN_CSV(Table t2, ReadTable(text, ro));
  EXPECT_EQ(t2.batches.size(), 15u);
  EXPECT_EQ(t2.rows.size(), 100u);
}

TEST(CsvReader, Progress) {
  ASSERT_OK_AND_ASSIGN_CSV(auto reader, testing::MakeReader("a\n1\n2\n"));
  EXPECT_EQ(reader->total_bytes(), 6);
  ASSERT_OK_AND_ASSIGN_CSV(auto batches, ReadAll(reader.get()));
  EXPECT_EQ(reader->bytes_processed(), 6);
}

TEST(CsvReader, NewlinesInValuesOff) {
  ParseOptions po;
  po.newlines_in_values = false;
  EXPECT_EQ(ReadError("a\n\"x\ny\"\n", {}, po),
            "data.csv: line 2: line break inside a quoted value (newlines_in_values is off)");
}

TEST(CsvReader, OpenFileMissing) {
  auto r = CsvReader::Open("/nonexistent/file.csv");
  ASSERT_FALSE(r.ok());
}

TEST(ParseColumnTypes, Spec) {
  ASSERT_OK_AND_ASSIGN_CSV(
      auto types,
      ParseColumnTypes("a:int64, b:utf8,c:timestamp[us, tz=UTC],d:decimal128(10,2),e:BIGINT,"
                       "f:time32[ms],g:timestamp[ns]"));
  ASSERT_EQ(types.size(), 7u);
  EXPECT_EQ(types[0].first, "a");
  EXPECT_EQ(types[0].second->ToString(), "int64");
  EXPECT_EQ(types[1].first, "b");
  EXPECT_EQ(types[2].second->ToString(), "timestamp[us, tz=UTC]");
  EXPECT_EQ(types[3].second->ToString(), "decimal128(10, 2)");
  EXPECT_EQ(types[4].second->ToString(), "int64");
  EXPECT_EQ(types[5].second->ToString(), "time32[ms]");
  EXPECT_EQ(types[6].second->ToString(), "timestamp[ns]");
  EXPECT_FALSE(ParseColumnTypes("a").ok());
  EXPECT_FALSE(ParseColumnTypes("a:nosuch").ok());
  EXPECT_FALSE(ParseColumnTypes("a:decimal128(50,2)").ok());
  EXPECT_FALSE(ParseColumnTypes("a:timestamp[xs]").ok());
}

}  // namespace
}  // namespace quiver::csv

namespace quiver::csv {
namespace {

// Random bytes from the CSV alphabet (quotes, delimiters, CR, LF): whatever
// the input, a parallel read with tiny blocks must give exactly what a serial
// read gives -- the same rows or the same error.
TEST(CsvReader, RandomInputParallelEqualsSerial) {
  std::mt19937 rng(7);
  const char alphabet[] = {'a', '1', ',', '"', '\n', '\r', ' '};
  for (int iter = 0; iter < 300; ++iter) {
    std::string text = "x,y\n";
    const int len = static_cast<int>(rng() % 400);
    for (int i = 0; i < len; ++i) text.push_back(alphabet[rng() % sizeof(alphabet)]);
    ReadOptions serial;
    serial.use_threads = false;
    auto expected = ReadTable(text, serial);
    for (int64_t block_size : {1, 5, 33}) {
      ReadOptions ro;
      ro.block_size = block_size;
      ConvertOptions co;
      co.inference_rows = 1 << 20;
      auto got = ReadTable(text, ro, {}, co);
      ASSERT_EQ(got.ok(), expected.ok()) << iter << " " << block_size;
      if (got.ok()) {
        ASSERT_EQ(got->rows, expected->rows) << iter;
      } else {
        ASSERT_EQ(got.status().message(), expected.status().message()) << iter;
      }
    }
  }
}

}  // namespace
}  // namespace quiver::csv
