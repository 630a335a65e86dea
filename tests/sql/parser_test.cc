// The SQL front end: libpg_query wall, AST shapes, error positions, the `?`
// placeholder rewriter and the caret rendering of errors.
#include <gtest/gtest.h>

#include <functional>

#include "sql/parser.h"

namespace quiver::sql {
namespace {

TEST(SqlParser, ParsesSeveralStatementsWithSpans) {
  const std::string text = "SELECT 1; CREATE TABLE t (a int); INSERT INTO t VALUES (1)";
  auto r = Parse(text);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0]->kind, StatementKind::kSelect);
  EXPECT_EQ((*r)[1]->kind, StatementKind::kCreateTable);
  EXPECT_EQ((*r)[2]->kind, StatementKind::kInsert);
  const auto& create = static_cast<const CreateTableStatement&>(*(*r)[1]);
  EXPECT_EQ(create.name, "t");
  ASSERT_EQ(create.columns.size(), 1u);
  EXPECT_EQ(create.columns[0].type.name, "int4");
}

TEST(SqlParser, SyntaxErrorCarriesPostgresMessageAndPosition) {
  const std::string text = "SELECT a FORM t";
  auto r = Parse(text);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("syntax error at or near \"t\""), std::string::npos)
      << r.status().message();
  EXPECT_EQ(r.status().position(), static_cast<int>(text.find("t", 10)));
  const std::string caret = FormatErrorWithCaret(r.status(), text);
  EXPECT_NE(caret.find("LINE 1: SELECT a FORM t\n"), std::string::npos) << caret;
  EXPECT_EQ(caret.substr(caret.rfind('\n') + 1), std::string(8 + 14, ' ') + "^");
}

// FROM 'file' (DuckDB's form) reads as FROM "file"; strings elsewhere,
// valid statements and errors past the file name are left as they were.
TEST(SqlParser, StringInTablePositionIsAFileName) {
  auto from_names = [](const std::string& text) {
    auto r = Parse(text);
    if (!r.ok()) return "ERROR " + r.status().message() + " @" + std::to_string(r.status().position());
    std::string out;
    const auto& select = *static_cast<const SelectStatement&>(*r->back()).select;
    std::function<void(const TableRef&)> walk = [&](const TableRef& t) {
      if (t.kind == TableRef::kJoin) {
        walk(*t.left);
        walk(*t.right);
      } else if (t.kind == TableRef::kTable) {
        out += (out.empty() ? "" : ",") + t.name + "@" + std::to_string(t.location);
      }
    };
    for (const auto& t : select.from) walk(*t);
    return out;
  };
  EXPECT_EQ(from_names("SELECT * FROM 'data.parquet'"), "data.parquet@14");
  EXPECT_EQ(from_names("SELECT * FROM 'a.parquet' x JOIN 'b.csv' y ON x.k = y.k, 'c.arrow' WHERE 'd' = 'e'"),
            "a.parquet@14,b.csv@33,c.arrow@57");
  EXPECT_EQ(from_names("SELECT * FROM t, -- 'x'\n 'f.parquet'"), "t@14,f.parquet@25");
  // Inside a function call FROM is no table's; the literal stays a literal.
  EXPECT_EQ(from_names("SELECT extract(year FROM '2024-01-01'::date), trim(BOTH FROM 'x ') "
                       "FROM 'f.parquet'"),
            "f.parquet@72");
  // Valid SQL is not rewritten: COPY t FROM 'file' keeps its string.
  auto copy = Parse("COPY t FROM 'in.csv'; SELECT 1");
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  // A syntax error after the file name is reported where it is.
  EXPECT_EQ(from_names("SELECT * FROM 'f.parquet' WHERE x = 'a' FORM"),
            "ERROR syntax error at or near \"FORM\" @40");
  // A literal holding a quote is not a plain file name: the original error.
  EXPECT_EQ(from_names("SELECT * FROM 'it''s.parquet'"),
            "ERROR syntax error at or near \"'it''s.parquet'\" @14");
}

TEST(SqlParser, ErrorPositionsCountCharactersAcrossLines) {
  const std::string text = "SELECT 'é',\n  1 +";
  auto r = Parse(text);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("end of input"), std::string::npos);
  const std::string caret = FormatErrorWithCaret(r.status(), text);
  EXPECT_NE(caret.find("LINE 2:   1 +"), std::string::npos) << caret;
}

TEST(SqlParser, ExpressionShapes) {
  auto r = Parse(
      "SELECT -5, 3000000000, 1.50, 'x'::text, date '1998-12-01' - interval '90' day, "
      "a NOT IN (1, 2), b NOT LIKE 'a%' ESCAPE '!', c BETWEEN 1 AND 2, d IS NOT NULL, "
      "count(DISTINCT e), count(*) FILTER (WHERE f > 1) FROM t");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& s = static_cast<const SelectStatement&>(*(*r)[0]);
  const auto& t = s.select->targets;
  ASSERT_EQ(t.size(), 11u);
  EXPECT_EQ(t[0]->kind, ExprKind::kConstant);
  EXPECT_EQ(t[0]->ival, -5);  // folded negative literal
  EXPECT_EQ(t[1]->ival, 3000000000LL);
  EXPECT_EQ(t[2]->literal, LiteralKind::kNumeric);
  EXPECT_EQ(t[2]->text, "1.50");
  EXPECT_EQ(t[3]->kind, ExprKind::kCast);
  EXPECT_EQ(t[4]->kind, ExprKind::kOperator);
  EXPECT_EQ(t[4]->children[1]->children[0]->text, "90 days");  // interval field applied
  EXPECT_EQ(t[5]->kind, ExprKind::kIn);
  EXPECT_TRUE(t[5]->negated);
  EXPECT_EQ(t[6]->kind, ExprKind::kLike);
  EXPECT_TRUE(t[6]->negated);
  EXPECT_EQ(t[6]->children.size(), 3u);  // with ESCAPE
  EXPECT_EQ(t[7]->kind, ExprKind::kBetween);
  EXPECT_EQ(t[8]->kind, ExprKind::kIsNull);
  EXPECT_TRUE(t[8]->negated);
  EXPECT_TRUE(t[9]->distinct);
  EXPECT_TRUE(t[10]->star);
  EXPECT_NE(t[10]->filter, nullptr);
}

TEST(SqlParser, FilesInFromAreQuotedIdentifiersOrFunctions) {
  auto r = Parse("SELECT * FROM \"data/x.arrow\" a, read_csv('y.csv', header => true) b(k, v)");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& from = static_cast<const SelectStatement&>(*(*r)[0]).select->from;
  ASSERT_EQ(from.size(), 2u);
  EXPECT_EQ(from[0]->name, "data/x.arrow");
  EXPECT_EQ(from[0]->alias.name, "a");
  EXPECT_EQ(from[1]->kind, TableRef::kFunction);
  EXPECT_EQ(from[1]->function->arg_names[1], "header");
  EXPECT_EQ(from[1]->alias.columns.size(), 2u);
  // A string literal in FROM is not PostgreSQL, but DuckDB's way to name a
  // file: read as the quoted name (StringInTablePositionIsAFileName).
  auto s = Parse("SELECT * FROM 'x.arrow'");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(static_cast<const SelectStatement&>(*(*s)[0]).select->from[0]->name, "x.arrow");
}

TEST(SqlParser, WindowClauses) {
  auto r = Parse(
      "SELECT sum(a) OVER (PARTITION BY b ORDER BY c DESC ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), "
      "rank() OVER w, lag(a) OVER (w ORDER BY a) FROM t WINDOW w AS (PARTITION BY b)");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& select = *static_cast<const SelectStatement&>(*(*r)[0]).select;
  const auto& t = select.targets;
  ASSERT_EQ(t.size(), 3u);
  ASSERT_TRUE(t[0]->has_window && t[0]->window);
  const WindowSpec& w0 = *t[0]->window;
  EXPECT_EQ(w0.partition_by.size(), 1u);
  ASSERT_EQ(w0.order_by.size(), 1u);
  EXPECT_TRUE(w0.order_by[0].descending);
  // PostgreSQL's FRAMEOPTION_* bits, as libpg_query reports them.
  EXPECT_EQ(w0.frame_options, kFrameNonDefault | kFrameRows | kFrameBetween | kFrameStartOffsetPreceding |
                                  kFrameEndCurrentRow);
  ASSERT_NE(w0.start_offset, nullptr);
  EXPECT_EQ(w0.start_offset->ival, 2);
  EXPECT_EQ(t[1]->window->name, "w");  // OVER w
  EXPECT_EQ(t[1]->window->frame_options, kFrameDefaults);
  EXPECT_EQ(t[2]->window->refname, "w");  // OVER (w ORDER BY a)
  ASSERT_EQ(select.windows.size(), 1u);
  EXPECT_EQ(select.windows[0]->name, "w");
  EXPECT_EQ(select.windows[0]->partition_by.size(), 1u);

  r = Parse("SELECT sum(a) OVER (ORDER BY a RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING "
            "EXCLUDE TIES), count(*) OVER (GROUPS 1 PRECEDING EXCLUDE GROUP) FROM t");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& t2 = static_cast<const SelectStatement&>(*(*r)[0]).select->targets;
  EXPECT_EQ(t2[0]->window->frame_options, kFrameNonDefault | kFrameRange | kFrameBetween |
                                              kFrameStartUnboundedPreceding | kFrameEndUnboundedFollowing |
                                              kFrameExcludeTies);
  // A frame without BETWEEN ends at the current row.
  EXPECT_EQ(t2[1]->window->frame_options, kFrameNonDefault | kFrameGroups | kFrameStartOffsetPreceding |
                                              kFrameEndCurrentRow | kFrameExcludeGroup);
}

TEST(SqlParser, UnsupportedFeaturesSayUnsupported) {
  auto r = Parse("SELECT string_agg(a, ',' ORDER BY a) OVER () FROM t");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsNotImplemented()) << r.status().ToString();
  EXPECT_EQ(r.status().message().rfind("unsupported: ", 0), 0u);
}

TEST(SqlPlaceholders, RewritesOutsideLiteralsIdentifiersAndComments) {
  int n = 0;
  EXPECT_EQ(RewritePlaceholders("SELECT ?, ? FROM t WHERE a = ?", &n), "SELECT $1, $2 FROM t WHERE a = $3");
  EXPECT_EQ(n, 3);
  EXPECT_EQ(RewritePlaceholders("SELECT '?', \"?\", ? -- ?\n, ?", &n), "SELECT '?', \"?\", $1 -- ?\n, $2");
  EXPECT_EQ(n, 2);
  EXPECT_EQ(RewritePlaceholders("SELECT 'it''s ?', E'\\' ?', ?", &n), "SELECT 'it''s ?', E'\\' ?', $1");
  EXPECT_EQ(n, 1);
  EXPECT_EQ(RewritePlaceholders("SELECT /* ? /* ? */ ? */ ?, $tag$ ? $tag$, $$?$$", &n),
            "SELECT /* ? /* ? */ ? */ $1, $tag$ ? $tag$, $$?$$");
  EXPECT_EQ(n, 1);
  // The rewritten text parses.
  EXPECT_TRUE(Parse(RewritePlaceholders("SELECT a FROM t WHERE b = ? AND c = ?", &n)).ok());
}

TEST(SqlParser, DefaultAndCheckKeepPostgresDeparsedText) {
  auto r = Parse(
      "CREATE TABLE t (a int DEFAULT 1 + 2 CHECK (a > 0), b text DEFAULT 'it''s' NOT NULL, "
      "c timestamptz DEFAULT now(), CONSTRAINT k CHECK (b <> 'x' AND a BETWEEN 1 AND 9))");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& create = static_cast<const CreateTableStatement&>(*(*r)[0]);
  ASSERT_EQ(create.columns.size(), 3u);
  EXPECT_EQ(create.columns[0].default_text, "1 + 2");
  EXPECT_EQ(create.columns[1].default_text, "'it''s'");
  EXPECT_EQ(create.columns[2].default_text, "now()");
  ASSERT_EQ(create.constraints.size(), 2u);
  EXPECT_EQ(create.constraints[0].check_text, "a > 0");
  EXPECT_EQ(create.constraints[1].check_text, "b <> 'x' AND a BETWEEN 1 AND 9");
  // Each text reads back as one expression of the same shape.
  for (const std::string text : {"1 + 2", "'it''s'", "now()", "b <> 'x' AND a BETWEEN 1 AND 9"}) {
    auto e = ParseExpression(text);
    ASSERT_TRUE(e.ok()) << text << ": " << e.status().ToString();
  }
  auto sum = ParseExpression("1 + 2");
  ASSERT_TRUE(sum.ok());
  EXPECT_EQ((*sum)->kind, ExprKind::kOperator) << "1 + 2";
  EXPECT_FALSE(ParseExpression("1 +").ok());
  EXPECT_FALSE(ParseExpression("1, 2").ok());
  EXPECT_FALSE(ParseExpression("a FROM t").ok());
  EXPECT_FALSE(ParseExpression("1; DROP TABLE t").ok());
}

}  // namespace
}  // namespace quiver::sql
