// Chunker, block parser and value parsing units.
#include <gtest/gtest.h>

#include <random>

#include "formats/csv/chunker.h"
#include "formats/csv/parser.h"
#include "formats/csv/value_parsing.h"

namespace quiver::csv::internal {
namespace {

std::vector<std::string> Fields(const ParsedBlock& b, const ParseOptions& po = {}) {
  std::vector<std::string> out;
  std::string scratch;
  for (const FieldSpan& f : b.fields) {
    if (f.needs_unescape()) {
      UnescapeField(b.FieldText(f), po, &scratch);
      out.push_back(scratch);
    } else {
      out.emplace_back(b.FieldText(f));
    }
  }
  return out;
}

ParsedBlock ParseAll(const std::string& s, int num_cols = -1, const ParseOptions& po = {}) {
  BlockParser parser(po);
  ParsedBlock b;
  const int64_t n = static_cast<int64_t>(s.size());
  parser.Parse(s.data(), n, 0, n, n, num_cols, -1, &b);
  return b;
}

TEST(CsvChunker, CandidateBoundaries) {
  const std::string s = "ab\ncd\r\nef\rgh";
  EXPECT_EQ(NextCandidateBoundary(s.data(), s.size(), 0), 3);
  EXPECT_EQ(NextCandidateBoundary(s.data(), s.size(), 3), 7);
  // No LF left: a lone CR ends the line.
  EXPECT_EQ(NextCandidateBoundary(s.data(), s.size(), 7), 10);
  const std::string cr = "ab\rcd\ref";
  EXPECT_EQ(NextCandidateBoundary(cr.data(), cr.size(), 0), 3);
  EXPECT_EQ(NextCandidateBoundary(cr.data(), cr.size(), 100), static_cast<int64_t>(cr.size()));

  Chunker chunker(s.data(), s.size(), 4);
  int64_t start, limit;
  chunker.Next(&start, &limit);
  EXPECT_EQ(start, 0);
  EXPECT_EQ(limit, 7);  // first line break at or after byte 3
  chunker.Next(&start, &limit);
  EXPECT_EQ(start, 7);
  EXPECT_EQ(limit, static_cast<int64_t>(s.size()));
  EXPECT_TRUE(chunker.done());
  EXPECT_EQ(BomLength("\xEF\xBB\xBFx", 4), 3);
  EXPECT_EQ(BomLength("x", 1), 0);
}

// The eight-bytes-at-a-time scan must find exactly the first special byte,
// including bytes next to 0x00/0x01/0x80 that trip naive SWAR tricks.
TEST(CsvParser, ByteSetFindMatchesNaiveScan) {
  ByteSet set;
  set.Add(',');
  set.Add('\n');
  set.Add('\r');
  std::mt19937 rng(1);
  const unsigned char alphabet[] = {'a', ',', '\n', '\r', 0x00, 0x01, 0x80, 0xFF, 0x2B, 0x2D};
  for (int iter = 0; iter < 20000; ++iter) {
    std::vector<unsigned char> bytes(rng() % 40);
    for (auto& b : bytes) b = rng() % 3 ? 'x' : alphabet[rng() % sizeof(alphabet)];
    const unsigned char* begin = bytes.data();
    const unsigned char* end = begin + bytes.size();
    const unsigned char* naive = begin;
    while (naive < end && *naive != ',' && *naive != '\n' && *naive != '\r') ++naive;
    ASSERT_EQ(set.Find(begin, end), naive) << iter;
  }
}

TEST(CsvParser, Fields) {
  const std::string text = "a,b\n\"x,\"\"y\",\n,\"\"\n";
  ParsedBlock b = ParseAll(text);
  EXPECT_EQ(b.num_rows, 3);
  EXPECT_EQ(b.num_cols, 2);
  EXPECT_EQ(b.lines, 3);
  EXPECT_EQ(Fields(b), (std::vector<std::string>{"a", "b", "x,\"y", "", "", ""}));
  EXPECT_TRUE(b.fields[2].quoted());
  EXPECT_TRUE(b.fields[2].needs_unescape());
  EXPECT_FALSE(b.fields[3].quoted());
  EXPECT_TRUE(b.fields[5].quoted());
  EXPECT_FALSE(b.fields[5].needs_unescape());
}

TEST(CsvParser, LinesAndShifts) {
  const std::string text = "a\n\"x\ny\"\n\nb\r\nc";
  ParsedBlock b = ParseAll(text);
  EXPECT_EQ(b.num_rows, 4);
  EXPECT_EQ(b.lines, 5);
  EXPECT_EQ(b.RowLineOffset(0), 0);
  EXPECT_EQ(b.RowLineOffset(1), 1);
  EXPECT_EQ(b.RowLineOffset(2), 4);
  EXPECT_EQ(b.RowLineOffset(3), 5);
}

TEST(CsvParser, StopsAtFirstRowEndAfterLimit) {
  const std::string s = "1,2\n\"3\n4\",5\n6,7\n";
  BlockParser parser{ParseOptions{}};
  ParsedBlock b;
  // Limit 6 falls inside the quoted value: the row is completed.
  parser.Parse(s.data(), s.size(), 0, 6, s.size(), 2, -1, &b);
  EXPECT_EQ(b.num_rows, 2);
  EXPECT_EQ(b.end, 12);
  // A block starting at or past its limit is empty.
  parser.Parse(s.data(), s.size(), 12, 10, s.size(), 2, -1, &b);
  EXPECT_EQ(b.num_rows, 0);
  EXPECT_EQ(b.end, 12);
  // Speculative start at the closing quote: it looks like an opening quote
  // that never closes; the bounded parse gives up instead of scanning on.
  parser.Parse(s.data(), s.size(), 8, s.size(), 9, 2, -1, &b);
  EXPECT_TRUE(b.aborted);
}

TEST(CsvParser, RaggedRow) {
  const std::string text = "a,b\n1\n";
  ParsedBlock b = ParseAll(text, 2);
  ASSERT_TRUE(b.has_error);
  EXPECT_EQ(b.error.line_offset, 1);
  EXPECT_EQ(b.error.message, "expected 2 fields, found 1");
}

TEST(CsvParser, MaxRows) {
  const std::string s = "h1,h2\n1,2\n";
  BlockParser parser{ParseOptions{}};
  ParsedBlock b;
  parser.Parse(s.data(), s.size(), 0, s.size(), s.size(), -1, 1, &b);
  EXPECT_EQ(b.num_rows, 1);
  EXPECT_EQ(b.end, 6);
}

TEST(CsvValueParsing, Integers) {
  int64_t v;
  EXPECT_TRUE(ParseInt64("0", &v));
  EXPECT_TRUE(ParseInt64("-9223372036854775808", &v));
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_FALSE(ParseInt64("9223372036854775808", &v));
  EXPECT_FALSE(ParseInt64("", &v));
  EXPECT_FALSE(ParseInt64("-", &v));
  EXPECT_TRUE(ParseInt64(" 1\t", &v));
  EXPECT_EQ(v, 1);
  EXPECT_FALSE(ParseInt64("+1", &v));
  EXPECT_TRUE(ParseInt64("0xffffffffffffffff", &v));
  EXPECT_EQ(v, -1);
  EXPECT_FALSE(ParseInt64("0x", &v));
  EXPECT_FALSE(ParseInt64("-0x1", &v));
  EXPECT_FALSE(ParseInt64("1.0", &v));
  uint64_t u = 0;
  EXPECT_TRUE(ParseUInt64("18446744073709551615", &u));
  EXPECT_EQ(u, UINT64_MAX);
  EXPECT_FALSE(ParseUInt64("18446744073709551616", &u));
  EXPECT_FALSE(ParseUInt64("-1", &u));
  EXPECT_TRUE(ParseUInt64("12345678901234567", &u));
  EXPECT_EQ(u, 12345678901234567u);
}

TEST(CsvValueParsing, FloatsDatesTimes) {
  double d;
  EXPECT_TRUE(ParseFloat64("+1.5e3", &d));
  EXPECT_EQ(d, 1500);
  EXPECT_TRUE(ParseFloat64("inf", &d));
  EXPECT_FALSE(ParseFloat64("1.5x", &d));
  EXPECT_FALSE(ParseFloat64("", &d));
  int64_t days;
  EXPECT_TRUE(ParseDate("1970-01-01", &days));
  EXPECT_EQ(days, 0);
  EXPECT_TRUE(ParseDate("2000-02-29", &days));
  EXPECT_EQ(days, 11016);
  EXPECT_FALSE(ParseDate("1900-02-29", &days));
  EXPECT_FALSE(ParseDate("2020-13-01", &days));
  int64_t nanos;
  int digits;
  EXPECT_TRUE(ParseTime("23:59:59.000000001", &nanos, &digits));
  EXPECT_EQ(nanos, 86399000000001);
  EXPECT_EQ(digits, 9);
  EXPECT_FALSE(ParseTime("24:00", &nanos, &digits));
  TimestampValue ts;
  EXPECT_TRUE(ParseTimestamp("1970-01-01T01:00:00+01:00", &ts));
  EXPECT_EQ(ts.seconds, 0);
  EXPECT_TRUE(ts.has_zone);
  EXPECT_TRUE(ParseTimestamp("1969-12-31 23:59:59.5", &ts));
  EXPECT_EQ(ts.seconds, -1);
  EXPECT_EQ(ts.nanos, 500000000);
  EXPECT_FALSE(ParseTimestamp("2020-01-01X", &ts));
  EXPECT_FALSE(ParseTimestamp("2020-01-01 10:00:00+1", &ts));
}

TEST(CsvValueParsing, Decimals) {
  __int128 v;
  EXPECT_TRUE(ParseDecimal("12.3", 5, 2, &v));
  EXPECT_EQ(static_cast<int64_t>(v), 1230);
  EXPECT_TRUE(ParseDecimal("-0.05", 5, 2, &v));
  EXPECT_EQ(static_cast<int64_t>(v), -5);
  EXPECT_TRUE(ParseDecimal("1.200", 5, 2, &v));  // trailing zeros may go
  EXPECT_FALSE(ParseDecimal("1.205", 5, 2, &v));
  EXPECT_FALSE(ParseDecimal("1000", 5, 2, &v));  // 1000.00 has 6 digits
  EXPECT_FALSE(ParseDecimal(".", 5, 2, &v));
  EXPECT_TRUE(ParseDecimal(".5", 5, 2, &v));
  EXPECT_EQ(static_cast<int64_t>(v), 50);
}

TEST(CsvValueParsing, Utf8) {
  EXPECT_TRUE(ValidateUtf8("plain ascii text longer than eight"));
  EXPECT_TRUE(ValidateUtf8("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"));
  EXPECT_FALSE(ValidateUtf8("\xC3"));
  EXPECT_FALSE(ValidateUtf8("\xED\xA0\x80"));  // surrogate
  EXPECT_FALSE(ValidateUtf8("\xC0\x80"));      // overlong
}

}  // namespace
}  // namespace quiver::csv::internal
