// SortPermutation (normalized-key prefixes, ties settled by RowComparator)
// against a plain stable sort with RowComparator on random columns: every
// key type, NULLs first and last, ascending and descending, NaN / -0.0 /
// infinities, integer extremes, strings sharing long prefixes or holding
// NUL bytes, keys that overflow the prefix, and sizes on both sides of the
// parallel threshold; and the first key on which sorted neighbours differ.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/builder.h"
#include "execution/sort_util.h"
#include "vector/value.h"

namespace quiver::exec {
namespace {

constexpr int kTypes = 9;

// A random column of type `t` (0..kTypes-1), with NULLs when `nulls`.
ArrayRef RandomColumn(int t, int64_t n, bool nulls, std::mt19937_64& rng) {
  auto pick = [&](int64_t k) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(k)); };
  auto null_here = [&] { return nulls && pick(7) == 0; };
  MemoryPool* pool = DefaultMemoryPool();
  std::unique_ptr<ArrayBuilder> b;
  switch (t) {
    case 0: {  // int16, small range
      auto* x = new Int16Builder(int16(), pool);
      b.reset(x);
      for (int64_t i = 0; i < n; ++i) {
        if (null_here()) EXPECT_TRUE(x->AppendNull().ok());
        else EXPECT_TRUE(x->Append(static_cast<int16_t>(pick(9) - 4)).ok());
      }
      break;
    }
    case 1: {  // int32 over its whole range, with duplicates
      auto* x = new Int32Builder(int32(), pool);
      b.reset(x);
      const int32_t special[] = {std::numeric_limits<int32_t>::min(), -1, 0, 1,
                                 std::numeric_limits<int32_t>::max()};
      for (int64_t i = 0; i < n; ++i) {
        if (null_here()) EXPECT_TRUE(x->AppendNull().ok());
        else if (pick(3) == 0) EXPECT_TRUE(x->Append(special[pick(5)]).ok());
        else EXPECT_TRUE(x->Append(static_cast<int32_t>(rng())).ok());
      }
      break;
    }
    case 2: {  // int64 extremes (the range needs all 8 bytes)
      auto* x = new Int64Builder(int64(), pool);
      b.reset(x);
      const int64_t special[] = {std::numeric_limits<int64_t>::min(), -2, 0, 3,
                                 std::numeric_limits<int64_t>::max()};
      for (int64_t i = 0; i < n; ++i) {
        if (null_here()) EXPECT_TRUE(x->AppendNull().ok());
        else EXPECT_TRUE(x->Append(special[pick(5)]).ok());
      }
      break;
    }
    case 3: {  // double: NaN, infinities, -0.0 (equal to 0.0)
      auto* x = new DoubleBuilder(float64(), pool);
      b.reset(x);
      const double special[] = {std::nan(""), -std::nan(""), INFINITY, -INFINITY, -0.0, 0.0, 1.5, -1.5};
      for (int64_t i = 0; i < n; ++i) {
        if (null_here()) EXPECT_TRUE(x->AppendNull().ok());
        else EXPECT_TRUE(x->Append(special[pick(8)]).ok());
      }
      break;
    }
    case 4: {  // float
      auto* x = new FloatBuilder(float32(), pool);
      b.reset(x);
      const float special[] = {std::nanf(""), INFINITY, -INFINITY, -0.0f, 0.0f, 2.5f, -2.5f};
      for (int64_t i = 0; i < n; ++i) {
        if (null_here()) EXPECT_TRUE(x->AppendNull().ok());
        else EXPECT_TRUE(x->Append(special[pick(7)]).ok());
      }
      break;
    }
    case 5: {  // text: long shared prefixes, NUL bytes, empty strings, high bytes
      auto* x = new StringBuilder(utf8(), pool);
      b.reset(x);
      const std::string special[] = {"", std::string("a\0", 2), "a", "ab", "abcdefghijklmnop",
                                     "abcdefghijklmnoq", "abcdefghijklmno", "\xc3\xa9", "B", "b"};
      for (int64_t i = 0; i < n; ++i) {
        if (null_here()) EXPECT_TRUE(x->AppendNull().ok());
        else EXPECT_TRUE(x->Append(special[pick(10)]).ok());
      }
      break;
    }
    case 6: {  // bool
      auto* x = new BooleanBuilder(pool);
      b.reset(x);
      for (int64_t i = 0; i < n; ++i) {
        if (null_here()) EXPECT_TRUE(x->AppendNull().ok());
        else EXPECT_TRUE(x->Append(pick(2) == 1).ok());
      }
      break;
    }
    case 7: {  // numeric (decimal128), negative and beyond 64 bits
      auto* x = new FixedSizeBinaryBuilder(decimal128(38, 2), pool);
      b.reset(x);
      for (int64_t i = 0; i < n; ++i) {
        if (null_here()) {
          EXPECT_TRUE(x->AppendNull().ok());
          continue;
        }
        int128_t v = static_cast<int128_t>(pick(11) - 5);
        if (pick(4) == 0) v *= static_cast<int128_t>(1) << 80;
        uint8_t bytes[16];
        std::memcpy(bytes, &v, 16);
        EXPECT_TRUE(x->Append(bytes).ok());
      }
      break;
    }
    default: {  // date32, a few years of days
      auto* x = new Int32Builder(date32(), pool);
      b.reset(x);
      for (int64_t i = 0; i < n; ++i) {
        if (null_here()) EXPECT_TRUE(x->AppendNull().ok());
        else EXPECT_TRUE(x->Append(static_cast<int32_t>(10000 + pick(1500))).ok());
      }
      break;
    }
  }
  auto r = b->Finish();
  EXPECT_TRUE(r.ok());
  return *r;
}

std::vector<uint32_t> Reference(const std::vector<ArrayRef>& cols, const std::vector<SortKey>& keys,
                                int64_t n) {
  std::vector<uint32_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = static_cast<uint32_t>(i);
  RowComparator cmp(cols, keys);
  std::stable_sort(perm.begin(), perm.end(), [&](uint32_t a, uint32_t b) { return cmp.Less(a, b); });
  return perm;
}

TEST(SortPermutation, EqualsAStableSortByRowComparator) {
  std::mt19937_64 rng(42);
  const int64_t sizes[] = {0, 1, 2, 17, 3000, 150000};
  for (int round = 0; round < 120; ++round) {
    const int64_t n = sizes[round % 6];
    const int nkeys = 1 + static_cast<int>(rng() % 4);
    std::vector<ArrayRef> cols;
    std::vector<SortKey> keys;
    std::string what;
    for (int k = 0; k < nkeys; ++k) {
      const int t = static_cast<int>(rng() % kTypes);
      const bool nulls = rng() % 2 == 0;
      cols.push_back(RandomColumn(t, n, nulls, rng));
      SortKey key{k, rng() % 2 == 0, rng() % 2 == 0};
      keys.push_back(key);
      what += "type " + std::to_string(t) + (nulls ? " nulls" : "") + (key.descending ? " desc" : "") +
              (key.nulls_first ? " nulls-first" : "") + "; ";
    }
    std::vector<uint8_t> diff;
    auto got = SortPermutation(cols, keys, n, nullptr, &diff);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const std::vector<uint32_t> want = Reference(cols, keys, n);
    ASSERT_EQ(*got, want) << "round " << round << " n=" << n << ": " << what;
    // The first key on which neighbours differ, by RowComparator key by key.
    ASSERT_EQ(diff.size(), static_cast<size_t>(n));
    std::vector<RowComparator> one_key;
    for (const SortKey& k : keys) one_key.emplace_back(cols, std::vector<SortKey>{k});
    for (int64_t i = 1; i < n; ++i) {
      size_t d = keys.size();
      for (size_t k = 0; k < keys.size() && d == keys.size(); ++k) {
        if (one_key[k].Compare(want[static_cast<size_t>(i - 1)], want[static_cast<size_t>(i)]) != 0) d = k;
      }
      ASSERT_EQ(diff[static_cast<size_t>(i)], d) << "round " << round << " row " << i << ": " << what;
    }
  }
}

TEST(SortPermutation, SlicedInputsUseTheirOffsets) {
  std::mt19937_64 rng(7);
  ArrayRef a = RandomColumn(1, 5000, true, rng)->Slice(1234, 3000);
  ArrayRef s = RandomColumn(5, 5000, true, rng)->Slice(99, 3000);
  const std::vector<ArrayRef> cols{s, a};
  const std::vector<SortKey> keys{{0, true, false}, {1, false, true}};
  auto got = SortPermutation(cols, keys, 3000);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, Reference(cols, keys, 3000));
}

}  // namespace
}  // namespace quiver::exec
