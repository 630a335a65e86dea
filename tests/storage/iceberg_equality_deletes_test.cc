#include "storage/iceberg_equality_deletes.h"

#include <gtest/gtest.h>

#include <optional>

#include "columnar/builder.h"

namespace quiver::iceberg {
namespace {

ArrayRef Ints(const std::vector<std::optional<int64_t>>& values) {
  Int64Builder b(int64());
  for (const auto& v : values) {
    EXPECT_TRUE((v.has_value() ? b.Append(*v) : b.AppendNull()).ok());
  }
  return b.Finish().ValueOrDie();
}

ArrayRef Texts(const std::vector<std::optional<std::string>>& values) {
  StringBuilder b(utf8());
  for (const auto& v : values) {
    EXPECT_TRUE((v.has_value() ? b.Append(*v) : b.AppendNull()).ok());
  }
  return b.Finish().ValueOrDie();
}

// The rows of a data file (`columns`: its table columns) of
// `sequence_number` in `scope` that the index leaves.
std::vector<uint8_t> Kept(const EqualityDeleteIndex& index, int64_t sequence_number,
                          const std::string& scope, const std::vector<ArrayRef>& columns) {
  std::vector<uint8_t> keep(static_cast<size_t>(columns[0]->length), 1);
  for (const auto& probe : index.ProbesFor(sequence_number, scope)) {
    std::vector<ArrayRef> keys;
    for (int c : *probe.columns) keys.push_back(columns[static_cast<size_t>(c)]);
    EXPECT_TRUE(EqualityDeleteIndex::Apply(probe, keys, &keep).ok());
  }
  return keep;
}

TEST(EqualityDeleteKeysTest, NullIsItsOwnValueAndColumnsDoNotRunTogether) {
  // ("ab", "c") and ("a", "bc") differ; NULL differs from "" and from 0.
  std::vector<std::string> keys(4);
  ASSERT_TRUE(AppendKeys(*Texts({"ab", "a", std::nullopt, ""}), &keys).ok());
  ASSERT_TRUE(AppendKeys(*Texts({"c", "bc", "", std::nullopt}), &keys).ok());
  EXPECT_NE(keys[0], keys[1]);
  EXPECT_NE(keys[2], keys[3]);
  std::vector<std::string> ints(2);
  ASSERT_TRUE(AppendKeys(*Ints({0, std::nullopt}), &ints).ok());
  EXPECT_NE(ints[0], ints[1]);
  EXPECT_FALSE(CheckDeleteColumnType("x", *float64(), "f.parquet").ok());
  EXPECT_TRUE(CheckDeleteColumnType("d", *decimal128(10, 2), "f.parquet").ok());
}

TEST(EqualityDeleteIndexTest, SequenceNumbersAndPartitions) {
  EqualityDeleteIndex index(DefaultMemoryPool());
  EqualityDeleteFile global;
  global.columns = {0};
  global.sequence_number = 5;
  ASSERT_TRUE(index.Add(global, {Ints({1, std::nullopt})}).ok());
  EqualityDeleteFile scoped;
  scoped.columns = {0};
  scoped.sequence_number = 9;
  scoped.global = false;
  scoped.scope = "p=b";
  ASSERT_TRUE(index.Add(scoped, {Ints({2})}).ok());
  EqualityDeleteFile pair;  // another column set: a probe of its own
  pair.columns = {0, 1};
  pair.sequence_number = 7;
  ASSERT_TRUE(index.Add(pair, {Ints({3, 4}), Ints({30, std::nullopt})}).ok());
  EXPECT_EQ(index.size(), 5);

  const std::vector<ArrayRef> rows = {Ints({1, 2, std::nullopt, 3, 4, 4}),
                                      Ints({0, 0, 0, 30, std::nullopt, 40})};
  // Older than every delete, in partition b: 1 and NULL (global), 2
  // (scoped), (3, 30) and (4, NULL) go.
  EXPECT_EQ(Kept(index, 4, "p=b", rows), (std::vector<uint8_t>{0, 0, 0, 0, 0, 1}));
  // Another partition: the scoped delete does not reach it.
  EXPECT_EQ(Kept(index, 4, "p=a", rows), (std::vector<uint8_t>{0, 1, 0, 0, 0, 1}));
  // Rows of sequence number 5: the global delete (5) no longer reaches
  // them, the pair (7) and the scoped one (9) still do.
  EXPECT_EQ(Kept(index, 5, "p=b", rows), (std::vector<uint8_t>{1, 0, 1, 0, 0, 1}));
  // Rows as new as the newest delete: none goes.
  EXPECT_EQ(Kept(index, 9, "p=b", rows), (std::vector<uint8_t>{1, 1, 1, 1, 1, 1}));
}

TEST(EqualityDeleteIndexTest, ReservesItsMemory) {
  MemoryPool pool("test", 4096);
  EqualityDeleteIndex index(&pool);
  EqualityDeleteFile f;
  f.columns = {0};
  f.sequence_number = 1;
  ASSERT_TRUE(index.Add(f, {Ints({1, 2, 3})}).ok());
  EXPECT_GT(pool.bytes_allocated(), 0);
  std::vector<std::optional<int64_t>> many;
  for (int64_t i = 0; i < 1000; ++i) many.push_back(i);
  Status st = index.Add(f, {Ints(many)});
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.SqlState(), "53200");
}

}  // namespace
}  // namespace quiver::iceberg
