// Transactions through the Database API (engine/transaction.h): sessions
// do not see each other's open blocks, a commit racing another session's
// write fails with 40001, and statements over a connection that refuses
// transaction blocks (the Flight SQL server's) get 0A000.
#include <gtest/gtest.h>

#include "engine/database.h"

namespace quiver {
namespace {

// Runs one statement in `session` and renders its rows "a|b\nc|d", its
// command tag, or "ERROR <sqlstate>: message".
std::string RunIn(Database& db, const std::shared_ptr<Session>& session, const std::string& sql,
                bool blocks = true) {
  StatementOptions options;
  options.session = session;
  options.transaction_blocks = blocks;
  auto stream = db.ExecuteStream(sql, {}, options);
  if (!stream.ok()) return "ERROR " + std::string(stream.status().SqlState()) + ": " + stream.status().message();
  std::string out;
  RecordBatchRef b;
  for (;;) {
    Status st = (*stream)->Next(&b);
    if (!st.ok()) return "ERROR " + std::string(st.SqlState()) + ": " + st.message();
    if (b == nullptr) break;
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      if (!out.empty()) out += "\n";
      for (int c = 0; c < b->num_columns(); ++c)
        out += (c ? "|" : "") + ValueFromArray(*b->column(c), r).ToString();
    }
  }
  return (*stream)->has_rows() ? out : (*stream)->command_tag();
}

TEST(EngineTransaction, OpenBlockIsInvisibleToOtherSessions) {
  Database db;
  auto a = db.NewSession();
  auto b = db.NewSession();
  ASSERT_EQ(RunIn(db, a, "CREATE TABLE t (k int PRIMARY KEY)"), "CREATE TABLE");
  ASSERT_EQ(RunIn(db, a, "BEGIN"), "BEGIN");
  ASSERT_EQ(RunIn(db, a, "INSERT INTO t VALUES (1), (2)"), "INSERT 0 2");
  ASSERT_EQ(RunIn(db, a, "CREATE TABLE only_a (x int)"), "CREATE TABLE");
  EXPECT_EQ(RunIn(db, a, "SELECT count(*) FROM t"), "2");
  EXPECT_EQ(RunIn(db, b, "SELECT count(*) FROM t"), "0");
  EXPECT_EQ(RunIn(db, b, "SELECT count(*) FROM only_a"),
            "ERROR 42P01: relation \"only_a\" does not exist");
  // b's own statements commit at once and are not part of a's block.
  EXPECT_EQ(RunIn(db, b, "INSERT INTO t VALUES (5)"), "INSERT 0 1");
  EXPECT_EQ(RunIn(db, b, "ROLLBACK"), "ROLLBACK");
  EXPECT_EQ(RunIn(db, a, "SELECT count(*) FROM t"), "2");  // a wrote t: its own copy
  // a's commit finds t changed since it copied it: 40001, nothing of a's kept.
  EXPECT_EQ(RunIn(db, a, "COMMIT").rfind("ERROR 40001: could not serialize access", 0), 0u);
  EXPECT_EQ(RunIn(db, b, "SELECT k FROM t"), "5");
  EXPECT_EQ(RunIn(db, b, "SELECT count(*) FROM only_a"),
            "ERROR 42P01: relation \"only_a\" does not exist");
  // Without a race the commit publishes everything at once.
  ASSERT_EQ(RunIn(db, a, "BEGIN"), "BEGIN");
  ASSERT_EQ(RunIn(db, a, "INSERT INTO t VALUES (1)"), "INSERT 0 1");
  ASSERT_EQ(RunIn(db, a, "CREATE TABLE only_a (x int)"), "CREATE TABLE");
  EXPECT_EQ(RunIn(db, a, "COMMIT"), "COMMIT");
  EXPECT_EQ(RunIn(db, b, "SELECT k FROM t ORDER BY k"), "1\n5");
  EXPECT_EQ(RunIn(db, b, "SELECT count(*) FROM only_a"), "0");
}

TEST(EngineTransaction, DefaultSessionIsSeparateFromNewOnes) {
  Database db;
  ASSERT_TRUE(db.Execute("CREATE TABLE t (k int)").ok());
  ASSERT_TRUE(db.Execute("BEGIN").ok());
  ASSERT_TRUE(db.Execute("INSERT INTO t VALUES (1)").ok());
  auto other = db.NewSession();
  EXPECT_EQ(RunIn(db, other, "SELECT count(*) FROM t"), "0");
  ASSERT_TRUE(db.Execute("ROLLBACK").ok());
  EXPECT_EQ(RunIn(db, other, "SELECT count(*) FROM t"), "0");
}

TEST(EngineTransaction, AbortedBlockRefusesUntilRollback) {
  Database db;
  auto s = db.NewSession();
  ASSERT_EQ(RunIn(db, s, "CREATE TABLE t (k int CHECK (k > 0))"), "CREATE TABLE");
  ASSERT_EQ(RunIn(db, s, "BEGIN"), "BEGIN");
  ASSERT_EQ(RunIn(db, s, "INSERT INTO t VALUES (1)"), "INSERT 0 1");
  // An error while the query streams (not at planning) aborts the block too.
  EXPECT_EQ(RunIn(db, s, "SELECT 1 / (k - 1) FROM t"), "ERROR 22012: division by zero");
  EXPECT_EQ(RunIn(db, s, "SELECT 1"),
            "ERROR 25P02: current transaction is aborted, commands ignored until end of "
            "transaction block");
  // Text that does not parse is a syntax error still, as in PostgreSQL.
  EXPECT_EQ(RunIn(db, s, "SELEC 1"), "ERROR 42601: syntax error at or near \"SELEC\"");
  EXPECT_EQ(RunIn(db, s, "COMMIT"), "ROLLBACK");
  EXPECT_EQ(RunIn(db, s, "SELECT count(*) FROM t"), "0");
}

TEST(EngineTransaction, ConnectionsWithoutBlocksRefuseThem) {
  Database db;
  auto s = db.NewSession();
  for (const char* sql : {"BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT a", "START TRANSACTION"}) {
    EXPECT_EQ(RunIn(db, s, sql, /*blocks=*/false).rfind("ERROR 0A000: unsupported: transaction "
                                                      "blocks",
                                                      0),
              0u)
        << sql;
  }
  EXPECT_EQ(RunIn(db, s, "SELECT 1", /*blocks=*/false), "1");
}

}  // namespace
}  // namespace quiver
