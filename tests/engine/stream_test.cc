// Database::ExecuteStream / Prepare: streamed results, cancellation,
// back-pressure, and the per-statement limits (deadline, read-only, files).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "engine/database.h"
#include "execution/execution_context.h"
#include "execution/sort_util.h"

namespace quiver {
namespace {

std::string RowsOf(const SchemaRef& schema, const std::vector<RecordBatchRef>& batches) {
  (void)schema;
  std::string out;
  for (const auto& b : batches) {
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      for (int c = 0; c < b->num_columns(); ++c) {
        out += (c ? "|" : "") + ValueFromArray(*b->column(c), i).ToString();
      }
      out += "\n";
    }
  }
  return out;
}

std::string Executed(Database& db, const std::string& sql) {
  auto r = db.Execute(sql);
  if (!r.ok()) return "ERROR: " + r.status().message();
  return RowsOf(r->schema, r->batches);
}

std::string Streamed(Database& db, const std::string& sql, const StatementOptions& o = {}) {
  auto s = db.ExecuteStream(sql, {}, o);
  if (!s.ok()) return "ERROR: " + s.status().message();
  std::vector<RecordBatchRef> batches;
  for (;;) {
    RecordBatchRef b;
    Status st = (*s)->Next(&b);
    if (!st.ok()) return "ERROR: " + st.message();
    if (b == nullptr) break;
    batches.push_back(b);
  }
  return RowsOf((*s)->schema(), batches);
}

DatabaseOptions Threads(int n) {
  DatabaseOptions o;
  o.threads = n;
  return o;
}

class StreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(db_.ExecuteScript("CREATE TABLE t AS SELECT x, x % 13 AS g, 'v' || x AS s "
                                  "FROM generate_series(1, 200000) s(x);"
                                  "CREATE TABLE u AS SELECT x AS k FROM generate_series(1, 5000) s(x)")
                    .ok());
  }
  Database db_{Threads(4)};
};

TEST_F(StreamTest, SameRowsAndOrderAsExecute) {
  const char* queries[] = {
      "SELECT x, s FROM t ORDER BY x DESC",
      "SELECT * FROM t",  // scan order, as the collector gives it
      "SELECT x FROM t WHERE x % 7 = 3",
      "SELECT g, count(*), sum(x) FROM t GROUP BY g ORDER BY g",
      "SELECT x FROM t ORDER BY g, x LIMIT 1000 OFFSET 5",
      "SELECT x FROM t WHERE x < 3000 UNION ALL SELECT k FROM u",
      "SELECT * FROM (SELECT x FROM t WHERE x < 3000 UNION ALL SELECT k FROM u) q ORDER BY 1",
      "SELECT t.x, u.k FROM t LEFT JOIN u ON t.x = u.k * 40 ORDER BY t.x",
      "SELECT u.k, t.x FROM t RIGHT JOIN u ON t.x = u.k * 3 ORDER BY u.k",
      "SELECT 1 AS one WHERE false",
      "VALUES (1, 'a'), (2, 'b')",
  };
  for (const char* q : queries) {
    const std::string expected = Executed(db_, q);
    ASSERT_EQ(expected.rfind("ERROR", 0), std::string::npos) << q << ": " << expected;
    // Chunks handed out one by one, merged into small batches (many merges
    // across the four threads' morsels), and into the default 1 MiB ones.
    for (int64_t batch_bytes : {int64_t{0}, int64_t{4096}, int64_t{1} << 20}) {
      StatementOptions options;
      options.result_batch_bytes = batch_bytes;
      EXPECT_EQ(Streamed(db_, q, options), expected) << q << " (batches of " << batch_bytes << " bytes)";
    }
  }
}

TEST_F(StreamTest, CommandsReturnTheirTag) {
  auto s = db_.ExecuteStream("CREATE TABLE c AS SELECT * FROM u");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_FALSE((*s)->has_rows());
  EXPECT_EQ((*s)->schema()->num_fields(), 0);
  RecordBatchRef b;
  ASSERT_TRUE((*s)->Next(&b).ok());
  EXPECT_EQ(b, nullptr);
  EXPECT_EQ((*s)->command_tag(), "SELECT 5000");
  EXPECT_EQ((*s)->rows_affected(), 5000);
  auto e = db_.ExecuteStream("SELECT count(*) FROM c");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(Streamed(db_, "SELECT count(*) FROM c"), "5000\n");
  // Errors found before execution come from ExecuteStream itself.
  auto bad = db_.ExecuteStream("SELECT nope FROM t");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().find("column \"nope\" does not exist"), 0u)
      << bad.status().message();
}

TEST_F(StreamTest, CancelAfterOneBatchStopsTheQuery) {
  const int64_t before = DefaultMemoryPool()->bytes_allocated();
  {
    // Far more rows than the queue holds: the query is still running when
    // the first batch arrives.
    auto s = db_.ExecuteStream("SELECT a.x, b.k FROM t a, u b");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    RecordBatchRef b;
    ASSERT_TRUE((*s)->Next(&b).ok());
    ASSERT_NE(b, nullptr);
    (*s)->Cancel();
    Status st;
    for (int i = 0; i < 1000000 && st.ok(); ++i) {
      RecordBatchRef next;
      st = (*s)->Next(&next);
      if (st.ok() && next == nullptr) break;
    }
    EXPECT_EQ(st.code(), StatusCode::kCancelled) << st.ToString();
    EXPECT_EQ(st.message(), "canceling statement due to user request");
  }
  // The stream is gone: the query's memory is released.
  EXPECT_EQ(DefaultMemoryPool()->bytes_allocated(), before);
}

// A big ORDER BY stops when its query is cancelled, wherever the cancel
// lands (scan, sort, output), and frees what it held.
TEST_F(StreamTest, CancelStopsALargeSort) {
  ASSERT_TRUE(db_.Execute("CREATE TABLE big AS SELECT x, (x::BIGINT * 7919) % 100003 AS y "
                          "FROM generate_series(1, 1000000) s(x)")
                  .ok());
  const int64_t before = DefaultMemoryPool()->bytes_allocated();
  for (int wait_us : {0, 2000, 20000}) {
    auto s = db_.ExecuteStream("SELECT x, y FROM big ORDER BY y DESC, x");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    std::this_thread::sleep_for(std::chrono::microseconds(wait_us));
    (*s)->Cancel();
    Status st;
    for (;;) {
      RecordBatchRef b;
      st = (*s)->Next(&b);
      if (!st.ok() || b == nullptr) break;
    }
    EXPECT_EQ(st.code(), StatusCode::kCancelled) << st.ToString();
  }
  EXPECT_EQ(DefaultMemoryPool()->bytes_allocated(), before);
  // The sort itself checks: a cancelled context stops it before it is done.
  auto r = db_.Execute("SELECT y FROM big");
  ASSERT_TRUE(r.ok());
  std::vector<ArrayRef> pieces;
  for (const auto& b : r->batches) pieces.push_back(b->column(0));
  ArrayRef column = Concatenate(pieces).ValueOrDie();
  exec::ExecutionContext ctx(-1);
  ctx.CancelByUser();
  auto perm = exec::SortPermutation({column}, {exec::SortKey{0, true, false}}, column->length, &ctx);
  ASSERT_FALSE(perm.ok());
  EXPECT_EQ(perm.status().message(), "canceling statement due to user request");
  exec::ExecutionContext running(-1);
  auto sorted = exec::SortPermutation({column}, {exec::SortKey{0, true, false}}, column->length,
                                      &running);
  ASSERT_TRUE(sorted.ok()) << sorted.status().ToString();
  const int64_t* y = column->GetValues<int64_t>(1);
  for (size_t i = 1; i < sorted->size(); ++i) ASSERT_GE(y[(*sorted)[i - 1]], y[(*sorted)[i]]);
}

TEST_F(StreamTest, DestroyingAnUnreadStreamStopsTheQuery) {
  const int64_t before = DefaultMemoryPool()->bytes_allocated();
  for (int i = 0; i < 5; ++i) {
    auto s = db_.ExecuteStream("SELECT a.x, b.k FROM t a, u b");
    ASSERT_TRUE(s.ok());
  }
  EXPECT_EQ(DefaultMemoryPool()->bytes_allocated(), before);
}

TEST_F(StreamTest, StreamsReadInAnyOrder) {
  // The first query fills its queue and waits for its reader; the second
  // must still run to the end (its threads are not stuck behind the first's).
  auto first = db_.ExecuteStream("SELECT a.x, b.k FROM t a, u b");
  ASSERT_TRUE(first.ok());
  RecordBatchRef b;
  ASSERT_TRUE((*first)->Next(&b).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let it fill its queue
  EXPECT_EQ(Streamed(db_, "SELECT count(*) FROM t WHERE x % 2 = 0"), "100000\n");
  EXPECT_EQ(Streamed(db_, "SELECT x FROM t ORDER BY x DESC LIMIT 2"), "200000\n199999\n");
}

TEST_F(StreamTest, BackPressureBoundsTheQueryMemory) {
  // 2M rows of two BIGINT columns: 32 MB of results.
  ASSERT_TRUE(
      db_.Execute("CREATE TABLE big AS SELECT x FROM generate_series(1, 2000000) s(x)").ok());
  // Batches of about 128 KiB (8K rows), merged by the query's threads.
  StatementOptions options;
  options.result_batch_bytes = 128 << 10;
  auto s = db_.ExecuteStream("SELECT x * 3 AS a, x + 1 AS b FROM big", {}, options);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  int64_t rows = 0, bytes = 0, batches = 0;
  for (;;) {
    RecordBatchRef b;
    ASSERT_TRUE((*s)->Next(&b).ok());
    if (b == nullptr) break;
    ++batches;
    rows += b->num_rows();
    bytes += b->num_rows() * 16;
    // A slow reader: the query runs ahead until the queue is full, then waits.
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  EXPECT_EQ(rows, 2000000);
  EXPECT_LT(batches, rows / 4096);  // merged: not one per 2048-row chunk
  EXPECT_GT(bytes, int64_t{30} << 20);
  // In flight at most: the queue (8 batches), the out-of-order ones (32),
  // and per thread one being built and one being merged: about 6 MB here,
  // whatever the result's size.
  EXPECT_LT((*s)->memory_peak(), bytes / 4) << "peak " << (*s)->memory_peak();
  std::printf("result %lld bytes, query pool peak %lld bytes\n", static_cast<long long>(bytes),
              static_cast<long long>((*s)->memory_peak()));
}

TEST_F(StreamTest, DeadlineStopsTheQuery) {
  StatementOptions past;
  past.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  EXPECT_EQ(Streamed(db_, "SELECT count(*) FROM t", past),
            "ERROR: canceling statement due to statement timeout");
  auto ctas = db_.ExecuteStream("CREATE TABLE d AS SELECT * FROM t", {}, past);
  ASSERT_FALSE(ctas.ok());
  EXPECT_EQ(ctas.status().message(), "canceling statement due to statement timeout");
  // A near deadline stops a query that would run for ages (10^9 pairs).
  StatementOptions soon;
  soon.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
  auto s = db_.ExecuteStream("SELECT count(*) FROM t a, u b WHERE a.x + b.k = 7", {}, soon);
  ASSERT_TRUE(s.ok());
  RecordBatchRef b;
  Status st = (*s)->Next(&b);
  EXPECT_EQ(st.code(), StatusCode::kCancelled) << st.ToString();
  EXPECT_EQ(st.message(), "canceling statement due to statement timeout");
}

TEST_F(StreamTest, MemoryLimitPerStatement) {
  StatementOptions o;
  o.memory_limit = 1 << 20;
  const std::string r = Streamed(db_, "SELECT x, count(*) FROM t GROUP BY x ORDER BY 2, 1", o);
  EXPECT_EQ(r.rfind("ERROR: out of memory", 0), 0u) << r.substr(0, 200);
}

TEST_F(StreamTest, ReadOnlyRefusesEveryWrite) {
  StatementOptions o;
  o.read_only = true;
  const std::pair<const char*, const char*> cases[] = {
      {"INSERT INTO u VALUES (1)", "INSERT"},
      {"UPDATE u SET k = 1", "UPDATE"},
      {"DELETE FROM u", "DELETE"},
      {"CREATE TABLE n (a int)", "CREATE TABLE"},
      {"CREATE TABLE n AS SELECT 1", "CREATE TABLE AS"},
      {"CREATE VIEW v AS SELECT 1", "CREATE VIEW"},
      {"CREATE INDEX i ON u (k)", "CREATE INDEX"},
      {"DROP TABLE u", "DROP TABLE"},
      {"DROP VIEW IF EXISTS v", "DROP VIEW"},
      {"COPY u FROM '/tmp/x.csv'", "COPY FROM"},
      {"COPY u TO '/tmp/x.csv'", "COPY TO"},
  };
  for (const auto& [sql, kind] : cases) {
    auto s = db_.ExecuteStream(sql, {}, o);
    ASSERT_FALSE(s.ok()) << sql;
    EXPECT_EQ(s.status().message(),
              std::string("cannot execute ") + kind + " in a read-only transaction");
  }
  EXPECT_EQ(Streamed(db_, "SELECT count(*) FROM u", o), "5000\n");
  EXPECT_EQ(Streamed(db_, "SELECT count(*) FROM u"), "5000\n");  // nothing changed
}

TEST_F(StreamTest, FilePolicyConfinesFilesToTheDataDirectories) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("quiver_policy_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "data" / "sub");
  fs::create_directories(root / "outside");
  std::ofstream(root / "data" / "in.csv") << "a,b\n1,x\n2,y\n";
  std::ofstream(root / "data" / "sub" / "deep.csv") << "a,b\n3,z\n";
  std::ofstream(root / "outside" / "secret.csv") << "a,b\n9,secret\n";
  fs::create_symlink(root / "outside" / "secret.csv", root / "data" / "sub" / "link.csv");
  fs::create_symlink(root / "outside", root / "data" / "outdir");
  const std::string data = (root / "data").string();
  auto policy = FileAccessPolicy::Make({data});
  ASSERT_TRUE(policy.ok()) << policy.status().ToString();
  StatementOptions o;
  o.file_policy = std::make_shared<FileAccessPolicy>(*policy);

  auto denied = [&](const std::string& sql) {
    auto s = db_.ExecuteStream(sql, {}, o);
    if (s.ok()) return std::string("allowed");
    return s.status().message().rfind("permission denied for file", 0) == 0
               ? std::string("denied")
               : s.status().message();
  };
  EXPECT_EQ(denied("SELECT * FROM read_csv('/etc/passwd')"), "denied");
  EXPECT_EQ(denied("SELECT * FROM read_csv('" + data + "/../outside/secret.csv')"), "denied");
  EXPECT_EQ(denied("SELECT * FROM read_csv('" + data + "/sub/link.csv')"), "denied");
  EXPECT_EQ(denied("SELECT * FROM read_csv('" + data + "/outdir/secret.csv')"), "denied");
  EXPECT_EQ(denied("SELECT * FROM read_csv('" + data + "/sub/*.csv')"), "denied");  // link.csv
  EXPECT_EQ(denied("SELECT * FROM read_csv('" + data + "/*/../../outside/*.csv')"), "denied");
  EXPECT_EQ(denied("SELECT * FROM \"" + root.string() + "/outside/secret.csv\""), "denied");
  EXPECT_EQ(denied("COPY u TO '" + root.string() + "/outside/out.csv'"), "denied");
  EXPECT_EQ(denied("COPY u TO '" + data + "/../out.csv'"), "denied");
  EXPECT_EQ(denied("COPY u TO '" + data + "/nodir/../../out.csv'"), "denied");
  EXPECT_EQ(denied("COPY u FROM '/etc/passwd'"), "denied");
  EXPECT_EQ(denied("CREATE TABLE leak AS SELECT * FROM read_csv('/etc/passwd')"), "denied");
  // Every statement kind that binds a query (keep these when moving statements).
  EXPECT_EQ(denied("INSERT INTO u SELECT 1 FROM read_csv('/etc/passwd')"), "denied");
  EXPECT_EQ(denied("CREATE VIEW leak AS SELECT * FROM read_csv('/etc/passwd')"), "denied");
  EXPECT_EQ(denied("DELETE FROM u WHERE k IN (SELECT 1 FROM read_csv('/etc/passwd'))"), "denied");
  EXPECT_EQ(denied("UPDATE u SET k = 1 WHERE k IN (SELECT 1 FROM read_csv('/etc/passwd'))"),
            "denied");
  EXPECT_EQ(denied("EXPLAIN SELECT * FROM read_csv('/etc/passwd')"), "denied");
  EXPECT_EQ(denied("COPY (SELECT * FROM read_csv('/etc/passwd')) TO '" + data + "/x.csv'"),
            "denied");
  // Preparing binds, which reads a file's columns: confined too.
  auto prepared = db_.Prepare("SELECT * FROM read_csv('/etc/passwd')", o);
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.status().message().rfind("permission denied for file", 0), 0u);

  EXPECT_EQ(Streamed(db_, "SELECT a, b FROM read_csv('" + data + "/in.csv') ORDER BY a", o),
            "1|x\n2|y\n");
  EXPECT_EQ(Streamed(db_, "SELECT count(*) FROM \"" + data + "/sub/deep.csv\"", o), "1\n");
  EXPECT_EQ(denied("COPY u TO '" + data + "/out.csv'"), "allowed");
  EXPECT_TRUE(fs::exists(root / "data" / "out.csv"));
  // Without a policy every path is allowed.
  EXPECT_EQ(Streamed(db_, "SELECT count(*) FROM read_csv('" + root.string() +
                              "/outside/secret.csv')"),
            "1\n");
  fs::remove_all(root);
}

TEST_F(StreamTest, PreparedStatementRunsWithParameters) {
  auto p = db_.Prepare("SELECT x, s FROM t WHERE x > $1 AND x <= $2 ORDER BY x");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE((*p)->returns_rows());
  EXPECT_EQ((*p)->num_parameters(), 2);
  ASSERT_EQ((*p)->result_schema()->num_fields(), 2);
  EXPECT_EQ((*p)->result_schema()->field(1)->name, "s");
  for (int64_t lo : {10, 100}) {
    auto s = (*p)->Execute({Value::Int64(lo), Value::Int64(lo + 2)});
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    std::vector<RecordBatchRef> batches;
    RecordBatchRef b;
    while ((*s)->Next(&b).ok() && b != nullptr) batches.push_back(b);
    EXPECT_EQ(RowsOf((*s)->schema(), batches),
              std::to_string(lo + 1) + "|v" + std::to_string(lo + 1) + "\n" +
                  std::to_string(lo + 2) + "|v" + std::to_string(lo + 2) + "\n");
  }
  auto ddl = db_.Prepare("CREATE TABLE p (a int)");
  ASSERT_TRUE(ddl.ok());
  EXPECT_FALSE((*ddl)->returns_rows());
  EXPECT_EQ((*ddl)->result_schema()->num_fields(), 0);
  EXPECT_EQ(MaxParameterIndex("SELECT '$9', $2 -- $7\n + $10"), 10);
}

// StatementOptions::partition: the parts of a scan together are the query's
// rows, each once; other queries run whole in part 0.
TEST_F(StreamTest, PartsOfAScanTogetherAreTheResult) {
  auto rows_of = [&](const std::string& sql, int count, std::vector<int64_t>* sizes) {
    auto group = std::make_shared<ScanPartition::Group>();
    std::vector<std::string> lines;
    for (int i = 0; i < count; ++i) {
      StatementOptions o;
      o.partition.index = i;
      o.partition.count = count;
      o.partition.group = group;
      std::string part = Streamed(db_, sql, o);
      int64_t n = 0;
      for (size_t pos = 0; (pos = part.find('\n', pos)) != std::string::npos; ++pos) ++n;
      sizes->push_back(n);
      size_t start = 0;
      for (size_t end; (end = part.find('\n', start)) != std::string::npos; start = end + 1) {
        lines.push_back(part.substr(start, end - start));
      }
    }
    std::sort(lines.begin(), lines.end());
    return lines;
  };
  auto sorted = [&](const std::string& sql) {
    std::string all = Executed(db_, sql);
    std::vector<std::string> lines;
    size_t start = 0;
    for (size_t end; (end = all.find('\n', start)) != std::string::npos; start = end + 1) {
      lines.push_back(all.substr(start, end - start));
    }
    std::sort(lines.begin(), lines.end());
    return lines;
  };
  for (const char* sql : {"SELECT * FROM t", "SELECT x * 2, s FROM t WHERE g = 3 OR x < 10"}) {
    auto p = db_.Prepare(sql);
    ASSERT_TRUE(p.ok());
    EXPECT_TRUE((*p)->partitionable()) << sql;
    std::vector<int64_t> sizes;
    EXPECT_EQ(rows_of(sql, 3, &sizes), sorted(sql)) << sql;
    ASSERT_EQ(sizes.size(), 3u);
    for (int64_t n : sizes) EXPECT_GT(n, 0) << sql;
  }
  std::vector<int64_t> sizes;
  EXPECT_EQ(rows_of("SELECT * FROM t", 3, &sizes), sorted("SELECT * FROM t"));
  EXPECT_EQ(sizes, (std::vector<int64_t>{66666, 66667, 66667}));
  for (const char* sql : {"SELECT g, count(*) FROM t GROUP BY g", "SELECT * FROM t ORDER BY x LIMIT 5",
                          "SELECT x FROM t JOIN u ON x = k", "SELECT DISTINCT g FROM t"}) {
    auto p = db_.Prepare(sql);
    ASSERT_TRUE(p.ok());
    EXPECT_FALSE((*p)->partitionable()) << sql;
    std::vector<int64_t> parts;
    EXPECT_EQ(rows_of(sql, 3, &parts), sorted(sql)) << sql;
    EXPECT_EQ(parts[1], 0) << sql;
    EXPECT_EQ(parts[2], 0) << sql;
  }
}

}  // namespace
}  // namespace quiver
