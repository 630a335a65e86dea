// The JSON scanner (functions/json_scan.h) on its own: PostgreSQL's error
// texts, jsonb's normal form, navigation, and malformed text handed to the
// navigation functions (which must answer "not found", never read past the
// view). Expected strings are PostgreSQL 15's.
#include "functions/json_scan.h"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace quiver::json {
namespace {

std::string Jsonb(std::string_view text) {
  std::string out;
  Status st = ToJsonb(text, &out);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

std::string ErrorDetail(std::string_view text, bool jsonb = false) {
  Status st = Validate(text, jsonb);
  EXPECT_FALSE(st.ok()) << text;
  return st.detail();
}

TEST(JsonScan, ValidatesLikePostgres) {
  EXPECT_TRUE(Validate(" {\"a\": [1, -2.5e3, true, null, \"x\\u00e9\"]} ").ok());
  EXPECT_TRUE(Validate("\"\\u0000\"").ok());
  EXPECT_EQ(ErrorDetail("abc"), "Token \"abc\" is invalid.\nCONTEXT:  JSON data, line 1: abc");
  EXPECT_EQ(ErrorDetail("{\"a\":}"),
            "Expected JSON value, but found \"}\".\nCONTEXT:  JSON data, line 1: {\"a\":}");
  EXPECT_EQ(ErrorDetail("{\"a\" 1}"),
            "Expected \":\", but found \"1\".\nCONTEXT:  JSON data, line 1: {\"a\" 1...");
  EXPECT_EQ(ErrorDetail("[1,2"),
            "The input string ended unexpectedly.\nCONTEXT:  JSON data, line 1: [1,2");
  EXPECT_EQ(ErrorDetail("01"), "Token \"01\" is invalid.\nCONTEXT:  JSON data, line 1: 01");
  EXPECT_EQ(ErrorDetail("{1:2}"),
            "Expected string or \"}\", but found \"1\".\nCONTEXT:  JSON data, line 1: {1...");
  EXPECT_EQ(ErrorDetail("\"\\u0000\"", true),
            "\\u0000 cannot be converted to text.\nCONTEXT:  JSON data, line 1: \"\\u0000...");
  EXPECT_EQ(Validate("\"\\u0000\"", true).SqlState(), "22P05");
  EXPECT_EQ(Validate("[1,]").SqlState(), "22P02");
  // Nesting deeper than any recursion limit validates without recursion.
  EXPECT_TRUE(Validate(std::string(100000, '[') + std::string(100000, ']')).ok());
}

TEST(JsonScan, JsonbNormalForm) {
  EXPECT_EQ(Jsonb("{\"b\":[1,2],\"a\":1}"), "{\"a\": 1, \"b\": [1, 2]}");
  EXPECT_EQ(Jsonb("{\"aa\":1,\"b\":2,\"a\":3,\"a\":4}"), "{\"a\": 4, \"b\": 2, \"aa\": 1}");
  EXPECT_EQ(Jsonb("\"\\u00e9\\/\\u0001\""), "\"\xc3\xa9/\\u0001\"");
  EXPECT_EQ(Jsonb("[1e2, 1.0e1, 1.00e1, 0.1e-2, -0, -0.0, 5E+3]"),
            "[100, 10, 10.0, 0.001, 0, 0.0, 5000]");
  EXPECT_EQ(Jsonb("{}"), "{}");
  EXPECT_EQ(Jsonb(" [ ] "), "[]");
}

// Validate and ToJsonb take a fast path for text without \u escapes and at
// most 64 deep; it must accept exactly what the lexer accepts and give the
// normaliser's text. Strings long enough to be scanned a word at a time put
// quotes, backslashes and control bytes at every position of a word.
TEST(JsonScan, FastPathsAgreeWithTheLexer) {
  for (int pos = 0; pos < 20; ++pos) {
    const std::string pad(pos, 'x');
    EXPECT_EQ(Jsonb("{\"k\":\"" + pad + "\\\"" + pad + "\"}"), "{\"k\": \"" + pad + "\\\"" + pad + "\"}");
    EXPECT_EQ(Jsonb("[\"" + pad + "\\/" + pad + "\"]"), "[\"" + pad + "/" + pad + "\"]");
    EXPECT_EQ(ErrorDetail("[\"" + pad + "\x01\"]").substr(0, 42), "Character with value 0x01 must be escaped.");
    EXPECT_FALSE(Validate("[\"" + pad).ok());
    EXPECT_FALSE(Validate("[\"" + pad + "\\").ok());
  }
  // Escaped and duplicate keys: sorted by their unescaped text, the last kept.
  EXPECT_EQ(Jsonb("{\"b\\/\":1,\"a\\n\":2,\"b/\":3,\"ab\":{\"z\":[],\"y\":{}}}"),
            "{\"a\\n\": 2, \"ab\": {\"y\": {}, \"z\": []}, \"b/\": 3}");
  EXPECT_EQ(Jsonb(" {\"x\" :\t[ -0 , -0.10 ,0.5E-1, 12 ,-3.25,\n true,false , null ] }\r\n"),
            "{\"x\": [0, -0.10, 0.05, 12, -3.25, true, false, null]}");
  // Past 64 levels, and \u escapes, the lexer's path gives the same.
  const std::string deep = std::string(70, '[') + "{\"b\":1,\"a\":2}" + std::string(70, ']');
  EXPECT_EQ(Jsonb(deep), std::string(70, '[') + "{\"a\": 2, \"b\": 1}" + std::string(70, ']'));
  EXPECT_EQ(Jsonb("{\"\\u0062\":1,\"a\":2}"), "{\"a\": 2, \"b\": 1}");
  // Tokens running into letters or digits are one bad token, as in PostgreSQL.
  for (const char* bad : {"truex", "nul", "-", "1.", ".5", "1e", "1e+", "01", "[1 2]", "{\"a\":1,}",
                          "[1,]", "{\"a\" 1}", "{\"a\":1}}", "", " ", "\"\\x\"", "[true false]",
                          "{\"a\":-}", "-01", "1.5x", "[1]x", "{,}", "{\"a\"}"}) {
    EXPECT_FALSE(Validate(bad).ok()) << bad;
    std::string out;
    EXPECT_FALSE(ToJsonb(bad, &out).ok()) << bad;
  }
  for (const char* good : {"0", "-0.0e-0", "1E5", "\"\"", "[[],{},[{}]]", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
                           " \t\r\n0 \t\r\n", "{\"a\":{\"b\":[1,{\"c\":null}]}}"}) {
    EXPECT_TRUE(Validate(good).ok()) << good;
  }
}

TEST(JsonScan, Navigation) {
  std::string_view v;
  const std::string doc = "{\"a\": 1, \"b\": [10, {\"c\": \"x\"}], \"a\": 2, \"k\\\"q\": 3}";
  ASSERT_TRUE(ObjectField(doc, "a", &v));
  EXPECT_EQ(v, "2");  // the last duplicate, as PostgreSQL's json operators
  ASSERT_TRUE(ObjectField(doc, "k\"q", &v));
  EXPECT_EQ(v, "3");
  ASSERT_TRUE(ObjectField(doc, "b", &v));
  EXPECT_EQ(v, "[10, {\"c\": \"x\"}]");
  std::string_view e;
  ASSERT_TRUE(ArrayElement(v, -1, &e));
  EXPECT_EQ(e, "{\"c\": \"x\"}");
  EXPECT_FALSE(ArrayElement(v, 2, &e));
  EXPECT_FALSE(ArrayElement(v, -3, &e));
  EXPECT_FALSE(ObjectField("[1]", "a", &v));
  EXPECT_EQ(KindOf(" \"s\""), Kind::kString);
  std::string text;
  ASSERT_TRUE(ValueText("\"a\\nb\"", &text).ValueOrDie());
  EXPECT_EQ(text, "a\nb");
  EXPECT_FALSE(ValueText("null", &text).ValueOrDie());
}

// Containers are skipped 64 bytes at a time: brackets, quotes and runs of
// backslashes inside strings at every offset from a block's edge.
TEST(JsonScan, SkipsContainersAcrossBlocks) {
  for (int pad = 0; pad < 140; ++pad) {
    for (const char* tricky : {"\\\"}]{[", "\\\\", "\\\\\\\"]", "]}\\\\"}) {
      const std::string inner = "{\"s\": \"" + std::string(pad, 'a') + tricky +
                                "\", \"t\": [1, {\"u\": \"]\"}, []], \"v\": {}}";
      const std::string doc = "{\"x\": " + inner + ", \"a\": 7, \"x\"  : [" + inner + "]}";
      ASSERT_TRUE(Validate(doc).ok()) << doc;
      std::string_view v;
      ASSERT_TRUE(ObjectField(doc, "a", &v)) << doc;
      EXPECT_EQ(v, "7") << doc;
      ASSERT_TRUE(ObjectField(doc, "x", &v)) << doc;
      EXPECT_EQ(v, "[" + inner + "]") << doc;
      ASSERT_TRUE(ArrayElement(v, 0, &v)) << doc;
      EXPECT_EQ(v, inner);
      // Cut short anywhere, the text is not found, and nothing past the cut is read.
      for (size_t cut = 0; cut < doc.size(); cut += 7) {
        const std::string part = doc.substr(0, cut);
        ObjectField(part, "x", &v);
      }
    }
  }
}

// ObjectField finds keys by the object's own colons, 64 bytes at a time; it
// must agree with a member-by-member reading (ObjectMembers: the last of
// equal keys) whatever the keys' escapes, the blanks and the block edges.
TEST(JsonScan, ObjectFieldAgreesWithMembers) {
  const std::string long_key(70, 'k');
  const std::vector<std::string> keys = {"a", "\\u0061", "b", "a\\\"", "ab", "x:y", long_key};
  const std::vector<std::string> values = {
      "1", "\"s:\\\"}\"", "{\"a\": {\"a\": 2}}", "[1, \"]\", {\"a\":3}]", "true",
      "\"" + std::string(60, 'x') + "\"", "-1.5e3", "{}", "[]", "\"\\\\\""};
  uint64_t state = 12345;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  auto blanks = [&]() {
    const uint64_t r = next(10);
    return std::string(r < 6 ? 0 : r < 9 ? next(4) : next(80), r == 8 ? '\n' : ' ');
  };
  for (int round = 0; round < 3000; ++round) {
    std::string doc = blanks() + "{";
    const uint64_t members = next(9);
    for (uint64_t m = 0; m < members; ++m) {
      if (m > 0) doc += "," + blanks();
      doc += blanks() + "\"" + keys[next(keys.size())] + "\"" + blanks() + ":" + blanks() +
             values[next(values.size())] + blanks();
    }
    doc += "}" + blanks();
    ASSERT_TRUE(Validate(doc).ok()) << doc;
    std::vector<std::string> ks;
    std::vector<std::string_view> vs;
    ASSERT_TRUE(ObjectMembers(doc, &ks, &vs)) << doc;
    for (const std::string want_key : {"a", "b", "ab", "a\"", "x:y", long_key.c_str(), "zz"}) {
      std::optional<std::string_view> want;
      for (size_t i = 0; i < ks.size(); ++i) {
        if (ks[i] == want_key) want = vs[i];
      }
      std::string_view got;
      const bool found = ObjectField(doc, want_key, &got);
      ASSERT_EQ(found, want.has_value()) << doc << " key " << want_key;
      if (found) {
        EXPECT_EQ(got, *want) << doc << " key " << want_key;
      }
    }
  }
}

// Strings are scanned 16 bytes at a time: a quote, an escape or a control
// byte at every offset from a step's edge.
TEST(JsonScan, StringStopsAtEveryOffset) {
  for (int pad = 0; pad < 40; ++pad) {
    const std::string a(static_cast<size_t>(pad), 'a');
    EXPECT_TRUE(Validate("[\"" + a + "\\\"x\\\\\", 1]").ok()) << pad;
    EXPECT_EQ(ErrorDetail("[\"" + a + "\x01\"]").substr(0, 44),
              "Character with value 0x01 must be escaped.\nC") << pad;
    EXPECT_EQ(ErrorDetail("[\"" + a + "\x1f\"]").substr(0, 42),
              "Character with value 0x1f must be escaped.") << pad;
    EXPECT_TRUE(Validate("[\"" + a + "\x20\x7f\xc3\xa9\"]").ok()) << pad;
    std::string_view v;
    const std::string doc = "{\"" + a + "\\\"\": 1, \"k\": [\"" + a + "\\\\\"]}";
    ASSERT_TRUE(ObjectField(doc, a + "\"", &v)) << doc;
    EXPECT_EQ(v, "1");
    ASSERT_TRUE(ObjectField(doc, "k", &v)) << doc;
    EXPECT_EQ(v, "[\"" + a + "\\\\\"]");
  }
}

TEST(JsonScan, MalformedTextIsNotFound) {
  std::string_view v;
  for (std::string_view bad : {"{", "{\"a", "{\"a\":", "{\"a\": [1, 2", "[\"x", "{\"a\" 1}", ""}) {
    EXPECT_FALSE(ObjectField(bad, "a", &v)) << bad;
    EXPECT_FALSE(ArrayElement(bad, 0, &v)) << bad;
  }
}

TEST(JsonScan, Containment) {
  EXPECT_TRUE(Contains("{\"a\": [1, 2], \"b\": 1}", "{\"a\": [2]}"));
  EXPECT_FALSE(Contains("{\"a\": [1, 2]}", "{\"a\": 1}"));
  EXPECT_TRUE(Contains("[1, 2]", "1"));
  EXPECT_FALSE(Contains("[[1, 2]]", "[1]"));
  EXPECT_TRUE(Contains("{\"a\": 1.0}", "{\"a\": 1}"));
  EXPECT_TRUE(Equal("{\"a\": 1, \"b\": 2}", "{\"b\": 2, \"a\": 1.00}"));
  EXPECT_FALSE(Equal("[1, 2]", "[2, 1]"));
  EXPECT_TRUE(HasKey("[\"a\", 1]", "a"));
  EXPECT_FALSE(HasKey("[\"a\", 1]", "1"));
}

}  // namespace
}  // namespace quiver::json
