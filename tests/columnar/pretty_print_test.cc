// FormatValue for every type in columnar/type.h, and FormatTable's layout.
#include "columnar/pretty_print.h"

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/builder.h"

namespace quiver {
namespace {

template <typename T>
std::shared_ptr<Buffer> Buf(const std::vector<T>& v) {
  return Buffer::CopyFrom(
             std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)))
      .ValueOrDie();
}

// Validity bitmap from 0/1 flags.
std::shared_ptr<Buffer> Bits(const std::vector<int>& valid) {
  std::vector<uint8_t> bytes((valid.size() + 7) / 8, 0);
  for (size_t i = 0; i < valid.size(); ++i) {
    if (valid[i]) bytes[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  }
  return Buf(bytes);
}

template <typename T>
ArrayRef Prim(TypeRef type, const std::vector<T>& values, const std::vector<int>& valid = {}) {
  return ArrayData::Make(std::move(type), static_cast<int64_t>(values.size()),
                         {valid.empty() ? nullptr : Bits(valid), Buf(values)});
}

ArrayRef Strings(TypeRef type, const std::vector<std::string>& values,
                 const std::vector<int>& valid = {}) {
  std::vector<int32_t> offsets = {0};
  std::string data;
  for (const auto& s : values) {
    data += s;
    offsets.push_back(static_cast<int32_t>(data.size()));
  }
  return ArrayData::Make(
      std::move(type), static_cast<int64_t>(values.size()),
      {valid.empty() ? nullptr : Bits(valid), Buf(offsets), Buffer::CopyFrom(data).ValueOrDie()});
}

std::vector<std::string> All(const ArrayRef& a) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < a->length; ++i) out.push_back(FormatValue(*a, i));
  return out;
}
using S = std::vector<std::string>;

TEST(FormatValueTest, Primitives) {
  EXPECT_EQ(All(Prim<int32_t>(int32(), {1, -2, 3}, {1, 1, 0})), (S{"1", "-2", "NULL"}));
  EXPECT_EQ(All(Prim<uint64_t>(uint64(), {18446744073709551615ULL})), (S{"18446744073709551615"}));
  EXPECT_EQ(All(Prim<int8_t>(int8(), {-128})), (S{"-128"}));
  EXPECT_EQ(All(Prim<double>(float64(), {1.5, 3.0, 0.1, 1e300, -0.0})),
            (S{"1.5", "3.0", "0.1", "1e+300", "-0.0"}));
  EXPECT_EQ(All(Prim<double>(float64(), {NAN, INFINITY, -INFINITY})), (S{"nan", "inf", "-inf"}));
  EXPECT_EQ(All(Prim<float>(float32(), {0.1f, 2.5f})), (S{"0.1", "2.5"}));
  // 0x3C00 = 1.0, 0xC000 = -2.0, 0x3555 ~ 0.3333, 0x0001 = smallest subnormal, 0x7E00 = NaN
  EXPECT_EQ(All(Prim<uint16_t>(float16(), {0x3C00, 0xC000, 0x7C00, 0x7E00})),
            (S{"1.0", "-2.0", "inf", "nan"}));
  EXPECT_EQ(FormatValue(*Prim<uint16_t>(float16(), {0x0001}), 0), "5.9604645e-08");
  auto bools = ArrayData::Make(boolean(), 3, {Bits({1, 1, 0}), Bits({1, 0, 1})});
  EXPECT_EQ(All(bools), (S{"true", "false", "NULL"}));
  auto nulls = ArrayData::Make(null(), 2, {});
  EXPECT_EQ(All(nulls), (S{"NULL", "NULL"}));
}

TEST(FormatValueTest, StringsAndBinary) {
  EXPECT_EQ(All(Strings(utf8(), {"héllo", "a\nb\tc", "", "x"}, {1, 1, 1, 0})),
            (S{"héllo", "a\\nb\\tc", "", "NULL"}));
  EXPECT_EQ(All(Strings(binary(), {std::string("ab\x00\xff\\", 5)})), (S{"ab\\x00\\xFF\\x5C"}));
  auto fsb =
      ArrayData::Make(fixed_size_binary(2), 2, {nullptr, Buffer::CopyFrom("AB\x01z").ValueOrDie()});
  EXPECT_EQ(All(fsb), (S{"AB", "\\x01z"}));
  LargeStringBuilder large(large_utf8());
  ASSERT_TRUE(large.Append("big").ok());
  EXPECT_EQ(FormatValue(*large.Finish().ValueOrDie(), 0), "big");
  BinaryViewBuilder view(utf8_view());
  ASSERT_TRUE(view.Append("short").ok());
  ASSERT_TRUE(view.Append("a string longer than twelve bytes").ok());
  EXPECT_EQ(All(view.Finish().ValueOrDie()), (S{"short", "a string longer than twelve bytes"}));
}

TEST(FormatValueTest, DatesAndTimes) {
  EXPECT_EQ(All(Prim<int32_t>(date32(), {0, 19723, -1, 11016})),
            (S{"1970-01-01", "2024-01-01", "1969-12-31", "2000-02-29"}));
  EXPECT_EQ(All(Prim<int64_t>(date64(), {86400000LL * 19723, -1})),
            (S{"2024-01-01", "1969-12-31"}));
  EXPECT_EQ(All(Prim<int32_t>(time32(TimeUnit::kSecond), {45296})), (S{"12:34:56"}));
  EXPECT_EQ(All(Prim<int32_t>(time32(TimeUnit::kMilli), {45296789})), (S{"12:34:56.789"}));
  EXPECT_EQ(All(Prim<int64_t>(time64(TimeUnit::kMicro), {1})), (S{"00:00:00.000001"}));
  EXPECT_EQ(All(Prim<int64_t>(time64(TimeUnit::kNano), {86399999999999LL})),
            (S{"23:59:59.999999999"}));
}

TEST(FormatValueTest, Timestamps) {
  EXPECT_EQ(All(Prim<int64_t>(timestamp(TimeUnit::kSecond), {0, -1, 1709300707})),
            (S{"1970-01-01 00:00:00", "1969-12-31 23:59:59", "2024-03-01 13:45:07"}));
  EXPECT_EQ(All(Prim<int64_t>(timestamp(TimeUnit::kMicro, "UTC"), {1709300707250000LL})),
            (S{"2024-03-01 13:45:07.25+00"}));
  EXPECT_EQ(All(Prim<int64_t>(timestamp(TimeUnit::kMilli, "+05:30"), {0})),
            (S{"1970-01-01 05:30:00+05:30"}));
  EXPECT_EQ(All(Prim<int64_t>(timestamp(TimeUnit::kNano, "-0800"), {1})),
            (S{"1969-12-31 16:00:00.000000001-08"}));
  EXPECT_EQ(All(Prim<int64_t>(timestamp(TimeUnit::kNano), {-1})),
            (S{"1969-12-31 23:59:59.999999999"}));
  // Named zones use the system's zoneinfo (summer and winter time in Paris);
  // unknown zones fall back to UTC.
  EXPECT_EQ(
      All(Prim<int64_t>(timestamp(TimeUnit::kSecond, "Europe/Paris"), {1719835200, 1704110400})),
      (S{"2024-07-01 14:00:00+02", "2024-01-01 13:00:00+01"}));
  EXPECT_EQ(All(Prim<int64_t>(timestamp(TimeUnit::kSecond, "No/Such_Zone"), {0})),
            (S{"1970-01-01 00:00:00+00"}));
  // The int64 extremes neither overflow nor crash.
  EXPECT_EQ(All(Prim<int64_t>(timestamp(TimeUnit::kNano), {INT64_MIN, INT64_MAX})),
            (S{"1677-09-21 00:12:43.145224192", "2262-04-11 23:47:16.854775807"}));
  EXPECT_FALSE(
      FormatValue(*Prim<int64_t>(timestamp(TimeUnit::kSecond, "Europe/Paris"), {INT64_MAX}), 0)
          .empty());
  EXPECT_FALSE(FormatValue(*Prim<int64_t>(duration(TimeUnit::kNano), {INT64_MIN}), 0).empty());
  // Years beyond 9999 keep a sign, as ISO 8601's expanded form does.
  EXPECT_EQ(All(Prim<int64_t>(timestamp(TimeUnit::kSecond), {253402300800LL})),
            (S{"+10000-01-01 00:00:00"}));
}

TEST(FormatValueTest, DurationsAndIntervals) {
  EXPECT_EQ(All(Prim<int64_t>(duration(TimeUnit::kSecond), {90061, 0, 172800})),
            (S{"1 day 01:01:01", "00:00:00", "2 days"}));
  EXPECT_EQ(All(Prim<int64_t>(duration(TimeUnit::kMilli), {-1500})), (S{"-00:00:01.5"}));
  EXPECT_EQ(All(Prim<int64_t>(duration(TimeUnit::kNano), {1})), (S{"00:00:00.000000001"}));
  EXPECT_EQ(All(Prim<int32_t>(month_interval(), {14, 1, 0, -12})),
            (S{"1 year 2 mons", "1 mon", "00:00:00", "-1 years"}));
  auto day_time = ArrayData::Make(day_time_interval(), 1, {nullptr, Buf<int32_t>({3, 1500})});
  EXPECT_EQ(All(day_time), (S{"3 days 00:00:01.5"}));
  std::vector<uint8_t> mdn(16);
  const int32_t md[2] = {13, 2};
  const int64_t ns = 3600LL * 1000000000;
  std::memcpy(mdn.data(), md, 8);
  std::memcpy(mdn.data() + 8, &ns, 8);
  auto a = ArrayData::Make(month_day_nano_interval(), 1, {nullptr, Buf(mdn)});
  EXPECT_EQ(FormatValue(*a, 0), "1 year 1 mon 2 days 01:00:00");
}

TEST(FormatValueTest, Decimals) {
  EXPECT_EQ(All(Prim<int32_t>(decimal(TypeId::kDecimal32, 9, 3), {5, -1234, 0})),
            (S{"0.005", "-1.234", "0.000"}));
  EXPECT_EQ(All(Prim<int64_t>(decimal(TypeId::kDecimal64, 18, 0), {-42})), (S{"-42"}));
  // decimal128: -12345 (scale 2) and 2^64 (two words)
  std::vector<int64_t> d128 = {-12345, -1, 0, 1};
  auto a = ArrayData::Make(decimal128(38, 2), 2, {nullptr, Buf(d128)});
  EXPECT_EQ(All(a), (S{"-123.45", "184467440737095516.16"}));
  // decimal256: 10^40, and the most negative value with scale 4
  std::vector<uint64_t> d256 = {0xb9f5610000000000ULL, 0x6329f1c35ca4bfabULL, 0x1d, 0, 0, 0, 0,
                                0x8000000000000000ULL};
  auto b = ArrayData::Make(decimal256(76, 0), 2, {nullptr, Buf(d256)});
  EXPECT_EQ(FormatValue(*b, 0), "1" + std::string(40, '0'));
  auto c = ArrayData::Make(decimal256(76, 4), 2, {nullptr, Buf(d256)});
  EXPECT_EQ(FormatValue(*c, 1),
            "-5789604461865809771178549250434395392663499233282028201972879200395656481.9968");
  // Negative scale multiplies: 12 with scale -3 is 12000.
  EXPECT_EQ(FormatValue(*Prim<int32_t>(decimal(TypeId::kDecimal32, 9, -3), {12}), 0), "12000");
}

TEST(FormatValueTest, Lists) {
  auto values = Prim<int32_t>(int32(), {1, 2, 3, 4, 5}, {1, 1, 0, 1, 1});
  auto list_arr =
      ArrayData::Make(list(int32()), 4, {Bits({1, 1, 0, 1}), Buf<int32_t>({0, 2, 3, 3, 5})},
                      kUnknownNullCount, 0, {values});
  EXPECT_EQ(All(list_arr), (S{"[1, 2]", "[NULL]", "NULL", "[4, 5]"}));
  // Slicing shifts the list slots, not the values.
  EXPECT_EQ(FormatValue(*list_arr->Slice(3, 1), 0), "[4, 5]");
  auto large = ArrayData::Make(large_list(field("item", int32())), 1,
                               {nullptr, Buf<int64_t>({1, 4})}, 0, 0, {values});
  EXPECT_EQ(FormatValue(*large, 0), "[2, NULL, 4]");
  auto view =
      ArrayData::Make(list_view(field("item", int32())), 2,
                      {nullptr, Buf<int32_t>({3, 0}), Buf<int32_t>({2, 1})}, 0, 0, {values});
  EXPECT_EQ(All(view), (S{"[4, 5]", "[1]"}));
  auto fixed = ArrayData::Make(fixed_size_list(field("item", int32()), 2), 2, {nullptr}, 0, 0,
                               {values->Slice(1, 4)});
  EXPECT_EQ(All(fixed), (S{"[2, NULL]", "[4, 5]"}));
  auto strs = Strings(utf8(), {"a", "it's"});
  auto str_list = ArrayData::Make(list(utf8()), 1, {nullptr, Buf<int32_t>({0, 2})}, 0, 0, {strs});
  EXPECT_EQ(FormatValue(*str_list, 0), "['a', 'it\\'s']");
  ValueFormatOptions short_lists;
  short_lists.max_elements = 2;
  EXPECT_EQ(FormatValue(*large, 0, short_lists), "[2, NULL, …]");
}

TEST(FormatValueTest, StructsAndMaps) {
  auto a = Prim<int64_t>(int64(), {1, 2, 3});
  auto b = Strings(utf8(), {"x", "y", "z"}, {1, 0, 1});
  auto type = struct_({field("a", int64()), field("b", utf8())});
  auto st = ArrayData::Make(type, 3, {Bits({1, 1, 0})}, kUnknownNullCount, 0, {a, b});
  EXPECT_EQ(All(st), (S{"{a: 1, b: 'x'}", "{a: 2, b: NULL}", "NULL"}));
  EXPECT_EQ(FormatValue(*st->Slice(1, 2), 0), "{a: 2, b: NULL}");

  auto keys = Strings(utf8(), {"k", "j", "q"});
  auto items = Prim<int32_t>(int32(), {1, 2, 3}, {1, 1, 0});
  auto map_type = map(utf8(), int32());
  auto entries = ArrayData::Make(map_type->children[0]->type, 3, {nullptr}, 0, 0, {keys, items});
  auto m = ArrayData::Make(map_type, 2, {nullptr, Buf<int32_t>({0, 2, 3})}, 0, 0, {entries});
  EXPECT_EQ(All(m), (S{"{'k': 1, 'j': 2}", "{'q': NULL}"}));
}

TEST(FormatValueTest, DictionaryUnionRunEnd) {
  auto dict = Strings(utf8(), {"ok", "warn"});
  auto d = ArrayData::Make(dictionary(int8(), utf8()), 3, {Bits({1, 0, 1}), Buf<int8_t>({1, 0, 0})},
                           kUnknownNullCount, 0, {}, dict);
  EXPECT_EQ(All(d), (S{"warn", "NULL", "ok"}));
  auto du = ArrayData::Make(dictionary(uint16(), utf8()), 1, {nullptr, Buf<uint16_t>({1})}, 0, 0,
                            {}, dict);
  EXPECT_EQ(FormatValue(*du, 0), "warn");

  // sparse union<i: int32 = code 5, s: utf8 = code 7>
  auto ints = Prim<int32_t>(int32(), {10, 11, 12});
  auto strs = Strings(utf8(), {"a", "b", "c"}, {1, 1, 0});
  auto sparse = ArrayData::Make(sparse_union({field("i", int32()), field("s", utf8())}, {5, 7}), 3,
                                {Buf<int8_t>({5, 7, 7})}, 0, 0, {ints, strs});
  EXPECT_EQ(All(sparse), (S{"10", "b", "NULL"}));
  auto dense =
      ArrayData::Make(dense_union({field("i", int32()), field("s", utf8())}, {0, 1}), 3,
                      {Buf<int8_t>({1, 0, 0}), Buf<int32_t>({2, 0, 1})}, 0, 0, {ints, strs});
  EXPECT_EQ(All(dense), (S{"NULL", "10", "11"}));

  // run ends [2, 5, 6] over values [x, NULL, z]
  auto ends = Prim<int32_t>(int32(), {2, 5, 6});
  auto vals = Strings(utf8(), {"x", "y", "z"}, {1, 0, 1});
  auto ree = ArrayData::Make(run_end_encoded(int32(), utf8()), 6, {}, 0, 0, {ends, vals});
  EXPECT_EQ(All(ree), (S{"x", "x", "NULL", "NULL", "NULL", "z"}));
  EXPECT_EQ(FormatValue(*ree->Slice(4, 2), 1), "z");
}

TEST(FormatTableTest, Layout) {
  auto s = schema({field("id", int64()), field("name", utf8())});
  auto batch = RecordBatch::Make(s, 3,
                                 {Prim<int64_t>(int64(), {1, 200, 3}, {1, 1, 0}),
                                  Strings(utf8(), {"short", std::string(50, 'x'), "日本"})});
  TableFormatOptions options;
  options.max_column_width = 10;
  options.max_rows = 2;
  const std::string t = FormatTable(s, {batch}, options);
  EXPECT_EQ(t,
            "┌───────┬────────────┐\n"
            "│  id   │    name    │\n"
            "│ int64 │   string   │\n"
            "├───────┼────────────┤\n"
            "│     1 │ short      │\n"
            "│   200 │ xxxxxxxxx… │\n"
            "└───────┴────────────┘\n"
            "3 rows (showing 2)\n");
  const std::string all = FormatTable(s, {batch, batch->Slice(2, 1)}, 10);
  EXPECT_NE(all.find("│  NULL │ 日本"), std::string::npos) << all;
  EXPECT_NE(all.find("4 rows\n"), std::string::npos) << all;
  EXPECT_EQ(all.find("showing"), std::string::npos) << all;
}

TEST(FormatTableTest, ElidesMiddleColumnsWhenTooWide) {
  std::vector<FieldRef> fields;
  std::vector<ArrayRef> columns;
  for (int c = 0; c < 6; ++c) {
    fields.push_back(field("col" + std::to_string(c), int32()));
    columns.push_back(Prim<int32_t>(int32(), {c}));
  }
  auto s = schema(fields);
  TableFormatOptions options;
  options.max_total_width = 40;  // room for 4 columns ("int32" wide) and the "…" column
  const std::string t = FormatTable(s, {RecordBatch::Make(s, 1, columns)}, options);
  EXPECT_NE(t.find("│ col0  │ col1  │ … │ col4  │ col5  │"), std::string::npos) << t;
  EXPECT_NE(t.find("│     0 │     1 │ … │     4 │     5 │"), std::string::npos) << t;
  EXPECT_NE(t.find("1 row, 6 columns (showing 4)"), std::string::npos) << t;
  for (const auto& line : {t.substr(0, t.find('\n'))}) EXPECT_LE(DisplayWidth(line), 40);
}

TEST(FormatTableTest, EmptyAndMetadata) {
  auto s = schema({field("a", int32(), false, {{"unit", "m"}})}, {{"origin", "test"}});
  const std::string t = FormatTable(s, {}, 10);
  EXPECT_NE(t.find("0 rows"), std::string::npos) << t;
  EXPECT_EQ(FormatSchema(*s),
            "a: int32 not null\n  -- unit: m\n-- schema metadata --\n-- origin: test\n");
}

TEST(DisplayWidthTest, WideAndCombining) {
  EXPECT_EQ(DisplayWidth("abc"), 3);
  EXPECT_EQ(DisplayWidth("日本"), 4);
  EXPECT_EQ(DisplayWidth("e\xcc\x81"), 1);  // e + combining acute
  EXPECT_EQ(DisplayWidth("\xff"), 1);       // invalid byte
}

}  // namespace
}  // namespace quiver
