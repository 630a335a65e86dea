#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "common/io.h"
#include "common/memory_pool.h"
#include "common/thread_pool.h"
#include "formats/compression/codec.h"

namespace quiver {
namespace {

TEST(StatusTest, ResultAndMacros) {
  auto f = [](int x) -> Result<int> {
    if (x < 0) return Status::Invalid("negative: {}", x);
    return x * 2;
  };
  auto g = [&](int x) -> Status {
    QUIVER_ASSIGN_OR_RAISE(int y, f(x));
    if (y != 2 * x) return Status::UnknownError("bad");
    return Status::OK();
  };
  EXPECT_TRUE(g(2).ok());
  Status st = g(-1);
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_EQ(st.ToString(), "Invalid: negative: -1");
  EXPECT_EQ(Status::Unsupported("union").message(), "unsupported: union");
}

TEST(StatusTest, SqlStateDetailAndHintSurviveContextAndPosition) {
  Status plain = Status::Invalid("boom");
  EXPECT_EQ(plain.sql_state(), "");
  EXPECT_EQ(plain.SqlState(), "XX000");  // PostgreSQL's code for an error raised without one
  EXPECT_EQ(Status::Unsupported("x").SqlState(), "0A000");
  EXPECT_EQ(Status::Cancelled("x").SqlState(), "57014");
  EXPECT_EQ(Status::OutOfMemory("x").SqlState(), "53200");
  EXPECT_EQ(Status::IOError("x").SqlState(), "58030");
  EXPECT_EQ(Status::OK().SqlState(), "00000");

  Status s = Status::KeyError("column \"x\" does not exist")
                 .WithSqlState(sqlstate::kUndefinedColumn)
                 .WithDetail("d")
                 .WithHint("h")
                 .WithPosition(7);
  Status c = s.WithContext("q.sql").WithPosition(9);
  EXPECT_EQ(c.message(), "q.sql: column \"x\" does not exist");
  EXPECT_EQ(c.SqlState(), "42703");
  EXPECT_EQ(c.detail(), "d");
  EXPECT_EQ(c.hint(), "h");
  EXPECT_EQ(c.position(), 9);
  // The copies do not share state: the original is unchanged.
  EXPECT_EQ(s.position(), 7);
  EXPECT_EQ(s.message(), "column \"x\" does not exist");
  // A source's code wins over a caller's default.
  EXPECT_EQ(s.WithDefaultSqlState("42000").SqlState(), "42703");
  EXPECT_EQ(plain.WithDefaultSqlState("42601").SqlState(), "42601");
  // Result<T> carries it through QUIVER_ASSIGN_OR_RAISE.
  auto f = [&]() -> Result<int> { return s; };
  auto g = [&]() -> Status {
    QUIVER_ASSIGN_OR_RAISE(int v, f());
    (void)v;
    return Status::OK();
  };
  EXPECT_EQ(g().SqlState(), "42703");
  // OK stays OK whatever is attached.
  EXPECT_TRUE(Status::OK().WithSqlState("42703").WithHint("h").ok());
}

TEST(MemoryPoolTest, AccountsAndLimits) {
  MemoryPool parent("parent");
  MemoryPool child("query", 1000, &parent);
  uint8_t* p = nullptr;
  ASSERT_TRUE(child.Allocate(512, &p).ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  EXPECT_EQ(child.bytes_allocated(), 512);
  EXPECT_EQ(parent.bytes_allocated(), 512);
  uint8_t* q = nullptr;
  Status st = child.Allocate(600, &q);
  EXPECT_EQ(st.code(), StatusCode::kOutOfMemory);
  child.Free(p, 512);
  EXPECT_EQ(parent.bytes_allocated(), 0);
  EXPECT_EQ(child.peak_bytes(), 512);
}

TEST(ThreadPoolTest, ParallelForRunsAllAndReportsErrors) {
  std::atomic<int64_t> sum{0};
  ASSERT_TRUE(ParallelFor(1000, [&](int64_t i) {
                sum += i;
                return Status::OK();
              }).ok());
  EXPECT_EQ(sum.load(), 999 * 1000 / 2);
  Status st = ParallelFor(100, [](int64_t i) {
    return i == 42 ? Status::Invalid("task {}", i) : Status::OK();
  });
  EXPECT_EQ(st.message(), "task 42");
}

TEST(IoTest, AtomicFileCommitAndAbort) {
  auto dir = std::filesystem::temp_directory_path() / ("quiver_io_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "out.bin").string();
  {
    auto f = AtomicFile::Create(path);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->Write(std::string_view("partial")).ok());
    // Destroyed without Commit: neither the target nor the temporary remains.
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 0);
  {
    auto f = AtomicFile::Create(path);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->Write(std::string_view("hello")).ok());
    ASSERT_TRUE((*f)->Commit().ok());
  }
  auto mapped = MapFile(path);
  ASSERT_TRUE(mapped.ok());
  EXPECT_EQ((*mapped)->view(), "hello");
  auto missing = MapFile((dir / "nope").string());
  EXPECT_TRUE(missing.status().IsIOError());
  EXPECT_NE(missing.status().message().find("nope"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(IoTest, MappedFilesAreReusedUntilTheFileChanges) {
  const auto dir = std::filesystem::temp_directory_path() / ("quiver_map_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "data.bin").string();
  auto write = [&](std::string_view text) {
    auto f = AtomicFile::Create(path);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->Write(text).ok());
    ASSERT_TRUE((*f)->Commit().ok());
  };
  write("first");
  auto a = MapFile(path);
  auto b = MapFile(path);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->get(), b->get());  // the same mapping, handed out again
  // Replaced by rename (a new inode), same size: mapped afresh.
  write("again");
  auto c = MapFile(path);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->view(), "again");
  EXPECT_EQ((*a)->view(), "first");  // the old mapping stays valid for its holders
  // Rewritten in place with another size: mapped afresh too.
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << "rewritten in place";
  }
  auto d = MapFile(path);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ((*d)->view(), "rewritten in place");
  std::filesystem::remove_all(dir);
}

TEST(CodecTest, RoundTripsAndRejectsCorruption) {
  std::string text;
  for (int i = 0; i < 10000; ++i) text += std::to_string(i * 7919 % 1000) + ",";
  const auto* data = reinterpret_cast<const uint8_t*>(text.data());
  for (auto codec : {compression::Codec::kLz4Frame, compression::Codec::kZstd,
                     compression::Codec::kGzip}) {
    auto c = compression::Compress(codec, data, static_cast<int64_t>(text.size()));
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_LT((*c)->size(), static_cast<int64_t>(text.size()));
    std::string out(text.size(), '\0');
    ASSERT_TRUE(compression::DecompressInto(codec, (*c)->data(), (*c)->size(),
                                            reinterpret_cast<uint8_t*>(out.data()),
                                            static_cast<int64_t>(out.size()))
                    .ok());
    EXPECT_EQ(out, text);
    if (codec != compression::Codec::kLz4Frame) {
      EXPECT_EQ(compression::DetectCodec((*c)->data(), (*c)->size()), codec);
      auto all = compression::DecompressAll(codec, (*c)->data(), (*c)->size());
      ASSERT_TRUE(all.ok()) << all.status().ToString();
      EXPECT_EQ((*all)->view(), text);
      // Truncated input is an error, never a crash.
      auto cut = compression::DecompressAll(codec, (*c)->data(), (*c)->size() / 2);
      EXPECT_FALSE(cut.ok());
      // A decompression bomb is stopped by the size cap.
      auto capped = compression::DecompressAll(codec, (*c)->data(), (*c)->size(), 1000);
      EXPECT_FALSE(capped.ok());
    }
    // Wrong declared size is detected.
    std::string small(10, '\0');
    EXPECT_FALSE(compression::DecompressInto(codec, (*c)->data(), (*c)->size(),
                                             reinterpret_cast<uint8_t*>(small.data()), 10)
                     .ok());
  }
}

}  // namespace
}  // namespace quiver
