// The shell's pure parts: statement splitting, backslash parsing, completion
// candidates, pager decisions. The terminal behaviour is tested through a
// pseudo-terminal in tests/python/test_shell.py.
#include <gtest/gtest.h>

#include <map>

#include "tools/shell/backslash.h"
#include "tools/shell/completion.h"
#include "tools/shell/pager.h"
#include "tools/shell/statement_splitter.h"

namespace quiver::cli::shell {
namespace {

std::vector<SplitStatement> SplitAll(std::string_view text, bool finish = true) {
  StatementSplitter s;
  s.Feed(text);
  std::vector<SplitStatement> out;
  while (auto st = s.Next()) out.push_back(*st);
  if (finish) {
    if (auto last = s.Finish()) out.push_back(*last);
  }
  return out;
}

TEST(StatementSplitterTest, SplitsAtSemicolons) {
  auto st = SplitAll("SELECT 1; SELECT 2;\nSELECT\n  3;");
  ASSERT_EQ(st.size(), 3u);
  EXPECT_EQ(st[0].text, "SELECT 1;");
  EXPECT_EQ(st[0].line, 1);
  EXPECT_EQ(st[1].text, "SELECT 2;");
  EXPECT_EQ(st[2].text, "SELECT\n  3;");
  EXPECT_EQ(st[2].line, 2);
}

TEST(StatementSplitterTest, SemicolonsInQuotesAndCommentsDoNotEnd) {
  auto st = SplitAll(
      "SELECT 'a;b', \"c;d\", 'it''s;' -- x;y\n"
      "  /* a; /* nested; */ still; */ , E'\\';', $$x;y$$, $tag$ $$; $tag$;\n"
      "SELECT 2;");
  ASSERT_EQ(st.size(), 2u);
  EXPECT_EQ(st[0].text.back(), ';');
  EXPECT_NE(st[0].text.find("$tag$;"), std::string::npos);
  EXPECT_EQ(st[1].text, "SELECT 2;");
  EXPECT_EQ(st[1].line, 3);
}

TEST(StatementSplitterTest, LinesFedOneByOne) {
  StatementSplitter s;
  s.Feed("SELECT 'open\n");
  EXPECT_EQ(s.state(), StatementSplitter::State::kSingleQuote);
  EXPECT_FALSE(s.Next().has_value());
  s.Feed("quote;'\n");
  EXPECT_EQ(s.state(), StatementSplitter::State::kNone);
  EXPECT_TRUE(s.has_pending());
  s.Feed("FROM (SELECT 1\n");
  EXPECT_EQ(s.paren_depth(), 1);
  s.Feed(") t; SELECT");
  auto first = s.Next();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->text, "SELECT 'open\nquote;'\nFROM (SELECT 1\n) t;");
  EXPECT_EQ(first->line, 1);
  EXPECT_TRUE(s.has_pending());
  EXPECT_EQ(s.paren_depth(), 0);
  s.Feed("\n");
  s.Feed("/* c\n");
  EXPECT_EQ(s.state(), StatementSplitter::State::kBlockComment);
  s.Feed("*/ 2;\n");
  auto second = s.Next();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->line, 4);
  EXPECT_FALSE(s.has_pending());
}

TEST(StatementSplitterTest, CommentsAndEmptyStatementsAreSkipped) {
  auto st = SplitAll("-- only a comment;\n;\n /* x */ ;\n  \n");
  EXPECT_TRUE(st.empty());
  EXPECT_FALSE(HasToken("-- c\n/* d */"));
  EXPECT_TRUE(HasToken("-- c\nSELECT 1"));
}

TEST(StatementSplitterTest, FinishReturnsTheUnterminatedStatement) {
  auto st = SplitAll("SELECT 1;\n\n  SELECT 2  \n");
  ASSERT_EQ(st.size(), 2u);
  EXPECT_EQ(st[1].text, "SELECT 2");
  EXPECT_EQ(st[1].line, 3);
}

TEST(StatementSplitterTest, DollarPlaceholdersAreNotQuotes) {
  auto st = SplitAll("SELECT $1; SELECT a$b$ FROM t;");
  ASSERT_EQ(st.size(), 2u);
  EXPECT_EQ(st[0].text, "SELECT $1;");
}

TEST(StatementSplitterTest, ClearPendingDropsTheUnfinishedStatement) {
  StatementSplitter s;
  s.Feed("SELECT 'abc\n");
  s.ClearPending();
  EXPECT_EQ(s.state(), StatementSplitter::State::kNone);
  EXPECT_FALSE(s.has_pending());
  s.Feed("SELECT 1;\n");
  auto st = s.Next();
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->text, "SELECT 1;");
  EXPECT_EQ(st->line, 2);
}

TEST(BackslashTest, ParsesCommandsAndArguments) {
  auto d = ParseBackslash("  \\d lineitem");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->kind, BackslashKind::kDescribe);
  ASSERT_EQ(d->args.size(), 1u);
  EXPECT_EQ(d->args[0], "lineitem");

  auto o = ParseBackslash("\\o 'my file''s.txt'");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->kind, BackslashKind::kOutput);
  EXPECT_EQ(o->args[0], "my file's.txt");

  auto q = ParseBackslash("\\d \"Mixed Case\"");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->args[0], "Mixed Case");

  auto x = ParseBackslash("\\x AUTO");
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(x->kind, BackslashKind::kExpanded);
  EXPECT_EQ(x->args[0], "auto");
  auto t = ParseBackslash("\\timing true");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->args[0], "on");

  for (const char* line : {"\\df", "\\e", "\\q", "\\?", "\\i f.sql", "\\o"}) {
    EXPECT_TRUE(ParseBackslash(line).ok()) << line;
  }
}

TEST(BackslashTest, Errors) {
  auto unknown = ParseBackslash("\\dt");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(), "invalid command \\dt\nTry \\? for help.");
  EXPECT_FALSE(ParseBackslash("\\i").ok());           // missing file
  EXPECT_FALSE(ParseBackslash("\\q now").ok());       // extra argument
  EXPECT_FALSE(ParseBackslash("\\o 'unclosed").ok());
  auto x = ParseBackslash("\\x maybe");
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.status().message(), "unrecognized value \"maybe\" for \"\\x\": Boolean expected");
  EXPECT_TRUE(IsBackslashLine("  \\d"));
  EXPECT_FALSE(IsBackslashLine("SELECT '\\d'"));
}

class CompletionTest : public ::testing::Test {
 protected:
  CompletionTest() {
    catalog_.tables = {"lineitem", "orders", "region"};
    catalog_.functions = {"length", "lower", "sum"};
    catalog_.table_functions = {"read_csv", "read_parquet"};
    catalog_.columns = [](const std::string& t) -> std::vector<std::string> {
      if (t == "lineitem") return {"l_orderkey", "l_returnflag", "l_tax"};
      if (t == "orders") return {"o_orderkey", "o_totalprice"};
      return {};
    };
    files_[""] = {{"data", true}, {"demo.csv", false}, {".hidden", false}};
    files_["data/"] = {{"events.arrow", false}, {"events.parquet", false}, {"sub", true}};
  }
  Completion Run(std::string_view text) {
    return Complete(text, catalog_, [this](const std::string& dir) { return files_[dir]; });
  }
  using V = std::vector<std::string>;
  CompletionCatalog catalog_;
  std::map<std::string, std::vector<DirEntry>> files_;
};

TEST_F(CompletionTest, KeywordsInTheCaseTyped) {
  auto c = Run("sel");
  EXPECT_EQ(c.start, 0u);
  EXPECT_EQ(c.candidates, V({"select"}));
  EXPECT_EQ(Run("SEL").candidates, V({"SELECT"}));
  EXPECT_EQ(Run("SELECT * FROM t WH").candidates, V({"WHEN", "WHERE"}));
  auto lo = Run("SELECT lo");
  EXPECT_EQ(lo.start, 7u);
  EXPECT_EQ(lo.candidates, V({"lower"}));  // function; no keyword starts with "lo"
}

TEST_F(CompletionTest, TablesAfterFromAndJoin) {
  auto c = Run("SELECT * FROM li");
  EXPECT_EQ(c.start, 14u);
  EXPECT_EQ(c.candidates, V({"lineitem"}));
  EXPECT_EQ(Run("select * from lineitem join o").candidates, V({"orders"}));
  EXPECT_EQ(Run("SELECT * FROM re").candidates, V({"read_csv", "read_parquet", "region"}));
  EXPECT_EQ(Run("INSERT INTO re").candidates, V({"region"}));
  EXPECT_EQ(Run("SELECT * FROM LI").candidates, V({"lineitem"}));
}

TEST_F(CompletionTest, ColumnsOfTheTablesNamed) {
  // Multi-line: the FROM is on an earlier line.
  EXPECT_EQ(Run("SELECT * FROM lineitem\nWHERE l_re").candidates, V({"l_returnflag"}));
  EXPECT_EQ(Run("SELECT l_").candidates, V{});  // no table named yet
  EXPECT_EQ(Run("SELECT o_t").candidates, V{});               // orders is not named
  EXPECT_EQ(Run("SELECT orders.o_t").candidates, V({"orders.o_totalprice"}));
  EXPECT_EQ(Run("SELECT count(*) FROM orders WHERE o_").candidates,
            V({"o_orderkey", "o_totalprice"}));
}

TEST_F(CompletionTest, FilePathsInsideQuotes) {
  auto c = Run("SELECT * FROM 'data/ev");
  EXPECT_EQ(c.start, 15u);
  EXPECT_TRUE(c.paths);
  EXPECT_EQ(c.suffix, "'");
  EXPECT_EQ(c.candidates, V({"data/events.arrow", "data/events.parquet"}));
  EXPECT_EQ(CommonPrefix(c.candidates), "data/events.");
  EXPECT_EQ(Run("SELECT * FROM read_csv('d").candidates, V({"data/", "demo.csv"}));
  EXPECT_EQ(Run("SELECT * FROM 'data/s").candidates, V({"data/sub/"}));
  EXPECT_EQ(Run("SELECT * FROM '.h").candidates, V({".hidden"}));
  auto dq = Run("SELECT * FROM \"data/events.p");
  EXPECT_EQ(dq.suffix, "\"");
  EXPECT_EQ(dq.candidates, V({"data/events.parquet"}));
  // Not in comments.
  EXPECT_TRUE(Run("SELECT 1 -- sel").candidates.empty());
}

TEST_F(CompletionTest, BackslashCommands) {
  EXPECT_EQ(Run("\\ti").candidates, V({"\\timing"}));
  EXPECT_EQ(Run("\\d").candidates, V({"\\d", "\\df"}));
  auto d = Run("\\d or");
  EXPECT_EQ(d.start, 3u);
  EXPECT_EQ(d.candidates, V({"orders"}));
  EXPECT_EQ(Run("\\i data/e").candidates, V({"data/events.arrow", "data/events.parquet"}));
  EXPECT_EQ(Run("\\x a").candidates, V({"auto"}));
}

TEST(PagerTest, NeedsPagerWhenTooLongOrTooWide) {
  const TerminalSize size{5, 10};
  EXPECT_FALSE(NeedsPager("a\nb\nc\nd\n", size));
  EXPECT_TRUE(NeedsPager("a\nb\nc\nd\ne\n", size));
  EXPECT_FALSE(NeedsPager("┌────────┐\n", size));  // 10 columns, 30 bytes
  EXPECT_TRUE(NeedsPager("12345678901\n", size));
  EXPECT_FALSE(NeedsPager("12345678901\n", TerminalSize{0, 0}));  // not a terminal
}

}  // namespace
}  // namespace quiver::cli::shell
