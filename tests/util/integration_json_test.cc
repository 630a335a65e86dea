// Tests of the integration-JSON helper itself: the schema parser, and the
// comparer's ability to *detect* wrong values, validity, offsets, dictionary
// entries, union ids, views and run ends. Without these the golden-file test
// (tests/formats/ipc/integration_test.cc) could pass vacuously.
#include "util/integration_json.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include <gtest/gtest.h>

#include "columnar/builder.h"
#include "util/integration_values.h"
#include "util/array_mutation.h"

namespace quiver::testing {
namespace {

// Message contains `part` (gmock is not linked into quiver_tests).
::testing::AssertionResult Contains(const std::string& message, const std::string& part) {
  if (message.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << message << "' lacks '" << part << "'";
}

template <typename T>
std::shared_ptr<Buffer> Buf(const std::vector<T>& v) {
  return Buffer::CopyFrom(
             std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)))
      .ValueOrDie();
}
std::shared_ptr<Buffer> Bits(const std::vector<int>& bits) {
  std::vector<uint8_t> bytes((bits.size() + 7) / 8, 0);
  for (size_t i = 0; i < bits.size(); ++i) {
    if (bits[i]) bytes[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  }
  return Buf(bytes);
}


std::shared_ptr<RecordBatch> WithColumn(const RecordBatch& batch, int i, ArrayRef column) {
  std::vector<ArrayRef> cols = batch.columns();
  cols[i] = std::move(column);
  return RecordBatch::Make(batch.schema(), batch.num_rows(), std::move(cols));
}

// --- a hand-written golden file and the batch it describes -------------------

constexpr const char* kGolden = R"json({
  "schema": {"fields": [
    {"name": "i32", "type": {"name": "int", "isSigned": true, "bitWidth": 32}, "nullable": true,
     "children": []},
    {"name": "i64", "type": {"name": "int", "isSigned": true, "bitWidth": 64}, "nullable": false,
     "children": [], "metadata": [{"key": "k", "value": "v"}]},
    {"name": "s", "type": {"name": "utf8"}, "nullable": true, "children": []},
    {"name": "l", "type": {"name": "list"}, "nullable": true, "children": [
      {"name": "item", "type": {"name": "int", "isSigned": true, "bitWidth": 32},
       "nullable": true, "children": []}]},
    {"name": "st", "type": {"name": "struct"}, "nullable": true, "children": [
      {"name": "a", "type": {"name": "int", "isSigned": true, "bitWidth": 16}, "nullable": true,
       "children": []},
      {"name": "b", "type": {"name": "bool"}, "nullable": true, "children": []}]},
    {"name": "d", "type": {"name": "utf8"}, "nullable": true, "children": [],
     "dictionary": {"id": 0, "indexType": {"name": "int", "isSigned": true, "bitWidth": 8},
                    "isOrdered": false}},
    {"name": "f", "type": {"name": "floatingpoint", "precision": "SINGLE"}, "nullable": true,
     "children": []},
    {"name": "dec", "type": {"name": "decimal", "precision": 38, "scale": 2}, "nullable": true,
     "children": []},
    {"name": "bin", "type": {"name": "binary"}, "nullable": true, "children": []}
  ], "metadata": [{"key": "schema_key", "value": "schema_value"}]},
  "dictionaries": [{"id": 0, "data": {"count": 2, "columns": [
    {"name": "DICT0", "count": 2, "VALIDITY": [1, 1], "OFFSET": [0, 1, 2], "DATA": ["x", "y"]}]}}],
  "batches": [{"count": 4, "columns": [
    {"name": "i32", "count": 4, "VALIDITY": [1, 0, 1, 1], "DATA": [1, 0, 3, -4]},
    {"name": "i64", "count": 4, "VALIDITY": [1, 1, 1, 1],
     "DATA": ["9007199254740993", "-1", "0", "42"]},
    {"name": "s", "count": 4, "VALIDITY": [1, 0, 1, 1], "OFFSET": [0, 1, 1, 4, 4],
     "DATA": ["a", "", "ccc", ""]},
    {"name": "l", "count": 4, "VALIDITY": [1, 0, 1, 1], "OFFSET": [0, 2, 2, 2, 3], "children": [
      {"name": "item", "count": 3, "VALIDITY": [1, 1, 1], "DATA": [1, 2, 3]}]},
    {"name": "st", "count": 4, "VALIDITY": [1, 1, 0, 1], "children": [
      {"name": "a", "count": 4, "VALIDITY": [1, 0, 1, 1], "DATA": [1, 0, 0, 4]},
      {"name": "b", "count": 4, "VALIDITY": [1, 1, 1, 1], "DATA": [true, false, false, true]}]},
    {"name": "d", "count": 4, "VALIDITY": [1, 1, 0, 1], "DATA": [0, 1, 0, 0]},
    {"name": "f", "count": 4, "VALIDITY": [1, 1, 1, 1], "DATA": [1.5, 0.1, -2.25, 1e38]},
    {"name": "dec", "count": 4, "VALIDITY": [1, 1, 0, 1],
     "DATA": ["12345", "-1", "0", "-170141183460469231731687303715884105728"]},
    {"name": "bin", "count": 4, "VALIDITY": [1, 1, 1, 1], "OFFSET": [0, 2, 2, 6, 7],
     "DATA": ["00FF", "", "deadbeef", "41"]}
  ]}]
})json";

std::string Int128Bytes(__int128 v) {
  std::string out(16, '\0');
  std::memcpy(out.data(), &v, 16);
  return out;
}

class ComparerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto g = ParseGoldenJson(kGolden, "unit.json");
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    golden_ = *g;
    std::vector<ArrayRef> cols;

    Int32Builder i32(int32());
    ASSERT_TRUE(i32.Append(1).ok() && i32.AppendNull().ok() && i32.Append(3).ok() &&
                i32.Append(-4).ok());
    cols.push_back(*i32.Finish());

    Int64Builder i64(int64());
    for (int64_t v : {int64_t{9007199254740993}, int64_t{-1}, int64_t{0}, int64_t{42}}) {
      ASSERT_TRUE(i64.Append(v).ok());
    }
    cols.push_back(*i64.Finish());

    StringBuilder s(utf8());
    ASSERT_TRUE(s.Append("a").ok() && s.AppendNull().ok() && s.Append("ccc").ok() &&
                s.Append("").ok());
    cols.push_back(*s.Finish());

    ListBuilder l(list(field("item", int32())), std::make_unique<Int32Builder>(int32()));
    auto* items = static_cast<Int32Builder*>(l.value_builder());
    ASSERT_TRUE(l.Append().ok() && items->Append(1).ok() && items->Append(2).ok());
    ASSERT_TRUE(l.AppendNull().ok() && l.Append().ok());
    ASSERT_TRUE(l.Append().ok() && items->Append(3).ok());
    cols.push_back(*l.Finish());

    std::vector<std::unique_ptr<ArrayBuilder>> st_children;
    st_children.push_back(std::make_unique<Int16Builder>(int16()));
    st_children.push_back(std::make_unique<BooleanBuilder>());
    StructBuilder st(struct_({field("a", int16()), field("b", boolean())}), std::move(st_children));
    auto* a = static_cast<Int16Builder*>(st.child(0));
    auto* b = static_cast<BooleanBuilder*>(st.child(1));
    ASSERT_TRUE(st.Append().ok() && a->Append(1).ok() && b->Append(true).ok());
    ASSERT_TRUE(st.Append().ok() && a->AppendNull().ok() && b->Append(false).ok());
    ASSERT_TRUE(st.AppendNull().ok());
    ASSERT_TRUE(st.Append().ok() && a->Append(4).ok() && b->Append(true).ok());
    cols.push_back(*st.Finish());

    DictionaryBuilder d(dictionary(int8(), utf8()));
    ASSERT_TRUE(d.Append("x").ok() && d.Append("y").ok() && d.AppendNull().ok() &&
                d.Append("x").ok());
    cols.push_back(*d.Finish());

    FloatBuilder f(float32());
    for (float v : {1.5f, 0.1f, -2.25f, 1e38f}) ASSERT_TRUE(f.Append(v).ok());
    cols.push_back(*f.Finish());

    FixedSizeBinaryBuilder dec(decimal128(38, 2));
    ASSERT_TRUE(dec.Append(Int128Bytes(12345)).ok() && dec.Append(Int128Bytes(-1)).ok() &&
                dec.AppendNull().ok());
    ASSERT_TRUE(dec.Append(Int128Bytes(static_cast<__int128>(1) << 127)).ok());
    cols.push_back(*dec.Finish());

    StringBuilder bin(binary());
    for (std::string v : {std::string("\x00\xff", 2), std::string(),
                          std::string("\xde\xad\xbe\xef"), std::string("A")}) {
      ASSERT_TRUE(bin.Append(v).ok());
    }
    cols.push_back(*bin.Finish());

    for (const auto& c : cols) ASSERT_NE(c, nullptr);
    batch_ = RecordBatch::Make(golden_->schema, 4, std::move(cols));
    ASSERT_TRUE(batch_->Validate(true).ok()) << batch_->Validate(true).ToString();
  }

  // Expects the comparison of `batch` to fail with a message containing `what`.
  void ExpectMismatch(const RecordBatch& batch, const std::string& what) {
    Status st = CompareBatch(*golden_, 0, batch);
    ASSERT_FALSE(st.ok()) << "mutation not detected; wanted: " << what;
    EXPECT_TRUE(Contains(st.message(), "mismatch: unit.json: batch 0: "));
    EXPECT_TRUE(Contains(st.message(), what));
  }

  std::shared_ptr<GoldenFile> golden_;
  std::shared_ptr<RecordBatch> batch_;
};

TEST_F(ComparerTest, MatchingBatchPasses) {
  Status st = CompareBatch(*golden_, 0, *batch_);
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST_F(ComparerTest, DetectsWrongValue) {
  auto col =
      MutateBuffer(*batch_->column(0), 1, [](uint8_t* p) { reinterpret_cast<int32_t*>(p)[2] = 7; });
  ExpectMismatch(*WithColumn(*batch_, 0, col), "i32[2]: value: expected 3, got 7");
  // 64-bit values are compared exactly (2^53 + 1 is not a double).
  col = MutateBuffer(*batch_->column(1), 1,
                     [](uint8_t* p) { reinterpret_cast<int64_t*>(p)[0] -= 1; });
  ExpectMismatch(*WithColumn(*batch_, 1, col),
                 "i64[0]: value: expected 9007199254740993, got 9007199254740992");
  col = MutateBuffer(*batch_->column(6), 1,
                     [](uint8_t* p) { reinterpret_cast<float*>(p)[1] = 0.1000001f; });
  ExpectMismatch(*WithColumn(*batch_, 6, col), "f[1]: value: expected 0.100000001, got");
  col = MutateBuffer(*batch_->column(7), 1, [](uint8_t* p) { p[16] = 0xfe; });
  ExpectMismatch(*WithColumn(*batch_, 7, col), "dec[1]: unscaled decimal: expected -1, got -2");
  col = MutateBuffer(*batch_->column(8), 2, [](uint8_t* p) { p[1] = 0xfe; });
  ExpectMismatch(*WithColumn(*batch_, 8, col), "bin[0]: bytes: expected 00FF, got 00FE");
  col = MutateBuffer(*batch_->column(2), 2, [](uint8_t* p) { p[2] = 'x'; });
  ExpectMismatch(*WithColumn(*batch_, 2, col), "s[2]: string: expected 'ccc', got 'cxc'");
}

TEST_F(ComparerTest, DetectsWrongValidity) {
  // One bit flipped: the null count already differs.
  auto col = MutateBuffer(*batch_->column(0), 0, [](uint8_t* p) { p[0] ^= 1; });
  ExpectMismatch(*WithColumn(*batch_, 0, col), "i32: null count: expected 1, got 2");
  // Two bits flipped (same null count): the slot is named.
  col = MutateBuffer(*batch_->column(0), 0, [](uint8_t* p) { p[0] ^= 3; });
  ExpectMismatch(*WithColumn(*batch_, 0, col), "i32[0]: validity: expected 1, got 0");
  // Nested: a struct child's validity.
  auto st = std::make_shared<ArrayData>(*batch_->column(4));
  st->children[0] = MutateBuffer(*st->children[0], 0, [](uint8_t* p) { p[0] ^= 2; });
  ExpectMismatch(*WithColumn(*batch_, 4, st), "st[1]/a[1]: validity: expected 0, got 1");
  // A stored null count that disagrees with the bitmap (consumers trust it).
  st = std::make_shared<ArrayData>(*batch_->column(4));
  auto child = std::make_shared<ArrayData>(*st->children[0]);
  child->null_count = 0;
  st->children[0] = child;
  ExpectMismatch(*WithColumn(*batch_, 4, st),
                 "st[0]/a[0]: stored null_count vs bitmap: expected 2, got 0");
}

TEST_F(ComparerTest, DetectsWrongOffsets) {
  // List slot lengths 2,0,0,1 -> 1,1,0,1.
  auto col =
      MutateBuffer(*batch_->column(3), 1, [](uint8_t* p) { reinterpret_cast<int32_t*>(p)[1] = 1; });
  ExpectMismatch(*WithColumn(*batch_, 3, col), "l[0]: list length: expected 2, got 1");
  // String lengths.
  col =
      MutateBuffer(*batch_->column(2), 1, [](uint8_t* p) { reinterpret_cast<int32_t*>(p)[3] = 3; });
  ExpectMismatch(*WithColumn(*batch_, 2, col), "s[2]: length: expected 3, got 2");
  // A list child value.
  auto l = std::make_shared<ArrayData>(*batch_->column(3));
  l->children[0] =
      MutateBuffer(*l->children[0], 1, [](uint8_t* p) { reinterpret_cast<int32_t*>(p)[2] = 9; });
  ExpectMismatch(*WithColumn(*batch_, 3, l), "l[3]/item[2]: value: expected 3, got 9");
}

TEST_F(ComparerTest, OffsetsAreComparedAsLengthsNotAbsolutePositions) {
  // Same logical lists, child values shifted by one dummy element.
  auto l = std::make_shared<ArrayData>(*batch_->column(3));
  l->buffers[1] = Buf(std::vector<int32_t>{1, 3, 3, 3, 4});
  l->children[0] =
      ArrayData::Make(int32(), 4, {nullptr, Buf(std::vector<int32_t>{99, 1, 2, 3})}, 0);
  Status st = CompareBatch(*golden_, 0, *WithColumn(*batch_, 3, l));
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST_F(ComparerTest, DetectsWrongDictionary) {
  auto d = std::make_shared<ArrayData>(*batch_->column(5));
  d->dictionary = MutateBuffer(*d->dictionary, 2, [](uint8_t* p) { p[1] = 'z'; });
  ExpectMismatch(*WithColumn(*batch_, 5, d), "d[0]/<dict 0>[1]: string: expected 'y', got 'z'");
  auto idx = MutateBuffer(*batch_->column(5), 1, [](uint8_t* p) { p[3] = 1; });
  ExpectMismatch(*WithColumn(*batch_, 5, idx), "d[3]: dictionary index: expected 0, got 1");
}

TEST_F(ComparerTest, DetectsSchemaDifferences) {
  auto fields = golden_->schema->fields;
  auto md = golden_->schema->metadata;
  auto with_field = [&](int i, FieldRef f) {
    auto fs = fields;
    fs[i] = std::move(f);
    return RecordBatch::Make(schema(fs, md), batch_->num_rows(), batch_->columns());
  };
  ExpectMismatch(*with_field(1, field("i64", int64(), true, {{"k", "v"}})), "i64: nullable");
  ExpectMismatch(*with_field(1, field("i64", int64(), false, {{"k", "w"}})), "i64: field metadata");
  ExpectMismatch(*with_field(0, field("i32", uint32())), "i32: type id");
  auto no_md = RecordBatch::Make(schema(fields, {}), batch_->num_rows(), batch_->columns());
  ExpectMismatch(*no_md, "schema metadata");
  // Row count.
  ExpectMismatch(*RecordBatch::Make(golden_->schema, 3, batch_->columns()),
                 "row count: expected 4, got 3");
}

// --- layouts without builders: unions, run-end encoding, views, list views -----

constexpr const char* kGoldenLayouts = R"json({
  "schema": {"fields": [
    {"name": "su", "type": {"name": "union", "mode": "SPARSE", "typeIds": [5, 7]},
     "nullable": true, "children": [
       {"name": "f1", "type": {"name": "int", "isSigned": true, "bitWidth": 32},
        "nullable": true, "children": []},
       {"name": "f2", "type": {"name": "utf8"}, "nullable": true, "children": []}]},
    {"name": "du", "type": {"name": "union", "mode": "DENSE", "typeIds": [0, 1]},
     "nullable": true, "children": [
       {"name": "a", "type": {"name": "int", "isSigned": true, "bitWidth": 8},
        "nullable": true, "children": []},
       {"name": "b", "type": {"name": "bool"}, "nullable": true, "children": []}]},
    {"name": "ree", "type": {"name": "runendencoded"}, "nullable": true, "children": [
       {"name": "run_ends", "type": {"name": "int", "isSigned": true, "bitWidth": 32},
        "nullable": false, "children": []},
       {"name": "values", "type": {"name": "int", "isSigned": true, "bitWidth": 64},
        "nullable": true, "children": []}]},
    {"name": "sv", "type": {"name": "utf8view"}, "nullable": true, "children": []},
    {"name": "lv", "type": {"name": "listview"}, "nullable": true, "children": [
       {"name": "item", "type": {"name": "int", "isSigned": true, "bitWidth": 16},
        "nullable": true, "children": []}]},
    {"name": "mdn", "type": {"name": "interval", "unit": "MONTH_DAY_NANO"}, "nullable": true,
     "children": []},
    {"name": "fsl", "type": {"name": "fixedsizelist", "listSize": 2}, "nullable": true,
     "children": [
       {"name": "item", "type": {"name": "int", "isSigned": true, "bitWidth": 8},
        "nullable": true, "children": []}]}
  ]},
  "batches": [{"count": 3, "columns": [
    {"name": "su", "count": 3, "TYPE_ID": [5, 7, 5], "children": [
      {"name": "f1", "count": 3, "VALIDITY": [1, 0, 1], "DATA": [10, 0, 30]},
      {"name": "f2", "count": 3, "VALIDITY": [0, 1, 0], "OFFSET": [0, 0, 2, 2],
       "DATA": ["", "hi", ""]}]},
    {"name": "du", "count": 3, "TYPE_ID": [1, 0, 1], "OFFSET": [0, 0, 1], "children": [
      {"name": "a", "count": 1, "VALIDITY": [1], "DATA": [-5]},
      {"name": "b", "count": 2, "VALIDITY": [1, 0], "DATA": [true, false]}]},
    {"name": "ree", "count": 3, "children": [
      {"name": "run_ends", "count": 2, "VALIDITY": [1, 1], "DATA": [2, 3]},
      {"name": "values", "count": 2, "VALIDITY": [1, 1], "DATA": ["7", "8"]}]},
    {"name": "sv", "count": 3, "VALIDITY": [1, 0, 1], "VIEWS": [
      {"SIZE": 5, "INLINED": "short"}, {"SIZE": 0, "INLINED": ""},
      {"SIZE": 23, "PREFIX_HEX": "6120737472", "BUFFER_INDEX": 0, "OFFSET": 0}],
     "VARIADIC_DATA_BUFFERS": ["6120737472696E67206C6F6E676572207468616E203132"]},
    {"name": "lv", "count": 3, "VALIDITY": [1, 1, 0], "OFFSET": [2, 0, 0], "SIZE": [1, 2, 0],
     "children": [{"name": "item", "count": 3, "VALIDITY": [1, 1, 1], "DATA": [1, 2, 3]}]},
    {"name": "mdn", "count": 3, "VALIDITY": [1, 1, 0], "DATA": [
      {"months": 1, "days": -2, "nanoseconds": 9000000000000000000},
      {"months": 0, "days": 0, "nanoseconds": -1}, {"months": 0, "days": 0, "nanoseconds": 0}]},
    {"name": "fsl", "count": 3, "VALIDITY": [1, 0, 1], "children": [
      {"name": "item", "count": 6, "VALIDITY": [1, 1, 1, 1, 1, 1], "DATA": [1, 2, 0, 0, 5, 6]}]}
  ]}]
})json";

struct Mdn {
  int32_t months, days;
  int64_t nanos;
};

TEST(ComparerLayoutTest, UnionsRunEndsViewsListViews) {
  auto g = ParseGoldenJson(kGoldenLayouts, "unit.json");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const Schema& sc = *(*g)->schema;
  auto type = [&](int i) { return sc.field(i)->type; };
  std::vector<ArrayRef> cols;
  {
    StringBuilder f2(utf8());
    ASSERT_TRUE(f2.AppendNull().ok() && f2.Append("hi").ok() && f2.AppendNull().ok());
    auto f1 = ArrayData::Make(int32(), 3, {Bits({1, 0, 1}), Buf(std::vector<int32_t>{10, 0, 30})});
    cols.push_back(
        ArrayData::Make(type(0), 3, {Buf(std::vector<int8_t>{5, 7, 5})}, 0, 0, {f1, *f2.Finish()}));
  }
  {
    auto a = ArrayData::Make(int8(), 1, {nullptr, Buf(std::vector<int8_t>{-5})}, 0);
    auto b = ArrayData::Make(boolean(), 2, {Bits({1, 0}), Bits({1, 0})});
    cols.push_back(ArrayData::Make(
        type(1), 3, {Buf(std::vector<int8_t>{1, 0, 1}), Buf(std::vector<int32_t>{0, 0, 1})}, 0, 0,
        {a, b}));
  }
  {
    auto ends = ArrayData::Make(int32(), 2, {nullptr, Buf(std::vector<int32_t>{2, 3})}, 0);
    auto values = ArrayData::Make(int64(), 2, {nullptr, Buf(std::vector<int64_t>{7, 8})}, 0);
    cols.push_back(ArrayData::Make(type(2), 3, {}, 0, 0, {ends, values}));
  }
  {
    BinaryViewBuilder sv(utf8_view());
    ASSERT_TRUE(sv.Append("short").ok() && sv.AppendNull().ok() &&
                sv.Append("a string longer than 12").ok());
    cols.push_back(*sv.Finish());
  }
  {
    auto items = ArrayData::Make(int16(), 3, {nullptr, Buf(std::vector<int16_t>{1, 2, 3})}, 0);
    cols.push_back(ArrayData::Make(
        type(4), 3,
        {Bits({1, 1, 0}), Buf(std::vector<int32_t>{2, 0, 0}), Buf(std::vector<int32_t>{1, 2, 0})},
        kUnknownNullCount, 0, {items}));
  }
  cols.push_back(ArrayData::Make(
      type(5), 3,
      {Bits({1, 1, 0}),
       Buf(std::vector<Mdn>{{1, -2, 9000000000000000000}, {0, 0, -1}, {0, 0, 0}})}));
  {
    auto items =
        ArrayData::Make(int8(), 6, {nullptr, Buf(std::vector<int8_t>{1, 2, 0, 0, 5, 6})}, 0);
    cols.push_back(ArrayData::Make(type(6), 3, {Bits({1, 0, 1})}, kUnknownNullCount, 0, {items}));
  }
  auto batch = RecordBatch::Make((*g)->schema, 3, cols);
  Status st = CompareBatch(**g, 0, *batch);
  ASSERT_TRUE(st.ok()) << st.ToString();

  auto expect = [&](int i, ArrayRef col, const std::string& what) {
    Status s = CompareBatch(**g, 0, *WithColumn(*batch, i, std::move(col)));
    ASSERT_FALSE(s.ok()) << "mutation not detected; wanted: " << what;
    EXPECT_TRUE(Contains(s.message(), what));
  };
  expect(0, MutateBuffer(*cols[0], 0, [](uint8_t* p) { p[1] = 5; }),
         "su[1]: union type id: expected 7, got 5");
  {
    auto su = std::make_shared<ArrayData>(*cols[0]);
    su->children[0] = MutateBuffer(*su->children[0], 1, [](uint8_t* p) { p[8] = 31; });
    expect(0, su, "su[2]/f1[2]: value: expected 30, got 31");
  }
  expect(1, MutateBuffer(*cols[1], 1, [](uint8_t* p) { reinterpret_cast<int32_t*>(p)[2] = 0; }),
         "du[2]/b[1](actual slot 0): validity: expected 0, got 1");
  {
    auto ree = std::make_shared<ArrayData>(*cols[2]);
    ree->children[0] = MutateBuffer(*ree->children[0], 1, [](uint8_t* p) { p[0] = 1; });
    expect(2, ree, "ree[1]/values[0](actual slot 1): value: expected 7, got 8");
  }
  expect(3, MutateBuffer(*cols[3], 2, [](uint8_t* p) { p[22] = '3'; }),
         "sv[2]: string: expected 'a string longer than 12', got 'a string longer than 13'");
  expect(3, MutateBuffer(*cols[3], 1, [](uint8_t* p) { p[5] = 'X'; }),
         "sv[0]: string: expected 'short', got 'sXort'");
  expect(4, MutateBuffer(*cols[4], 2, [](uint8_t* p) { reinterpret_cast<int32_t*>(p)[1] = 1; }),
         "lv[1]: list view size: expected 2, got 1");
  expect(4, MutateBuffer(*cols[4], 1, [](uint8_t* p) { reinterpret_cast<int32_t*>(p)[0] = 1; }),
         "lv[0]/item[2](actual slot 1): value: expected 3, got 2");
  expect(5, MutateBuffer(*cols[5], 1, [](uint8_t* p) { p[8] ^= 1; }),
         "mdn[0]: month_day_nano interval");
  {
    auto fsl = std::make_shared<ArrayData>(*cols[6]);
    fsl->children[0] = MutateBuffer(*fsl->children[0], 1, [](uint8_t* p) { p[5] = 7; });
    expect(6, fsl, "fsl[2]/item[5]: value: expected 6, got 7");
  }
}

TEST(IntegrationJsonSchemaTest, ParsesEveryTypeFamily) {
  const char* text = R"json({"fields": [
    {"name": "ts",
     "type": {"name": "timestamp", "unit": "MICROSECOND", "timezone": "Europe/Paris"}},
    {"name": "t32", "type": {"name": "time", "unit": "MILLISECOND", "bitWidth": 32}},
    {"name": "d256", "type": {"name": "decimal", "precision": 40, "scale": 5, "bitWidth": 256}},
    {"name": "d32", "type": {"name": "decimal", "precision": 7, "scale": 2, "bitWidth": 32}},
    {"name": "iv", "type": {"name": "interval", "unit": "MONTH_DAY_NANO"}},
    {"name": "du", "type": {"name": "duration", "unit": "NANOSECOND"}},
    {"name": "m", "type": {"name": "map", "keysSorted": true}, "nullable": true, "children": [
      {"name": "entries", "type": {"name": "struct"}, "nullable": false, "children": [
        {"name": "key", "type": {"name": "utf8"}, "nullable": false, "children": []},
        {"name": "value", "type": {"name": "int", "isSigned": true, "bitWidth": 32},
         "nullable": true, "children": []}]}]},
    {"name": "u", "type": {"name": "union", "mode": "DENSE", "typeIds": [42, 43]}, "children": [
      {"name": "a", "type": {"name": "null"}, "children": []},
      {"name": "b", "type": {"name": "utf8view"}, "children": []}]},
    {"name": "r", "type": {"name": "runendencoded"}, "children": [
      {"name": "run_ends", "type": {"name": "int", "isSigned": true, "bitWidth": 16},
       "nullable": false, "children": []},
      {"name": "values", "type": {"name": "floatingpoint", "precision": "HALF"}, "children": []}]},
    {"name": "lv", "type": {"name": "largelistview"}, "children": [
      {"name": "item", "type": {"name": "binaryview"}, "children": []}]},
    {"name": "fsl", "type": {"name": "fixedsizelist", "listSize": 3}, "children": [
      {"name": "item", "type": {"name": "fixedsizebinary", "byteWidth": 5}, "children": []}]},
    {"name": "dict", "type": {"name": "largeutf8"}, "dictionary":
      {"id": 7, "indexType": {"name": "int", "isSigned": false, "bitWidth": 16},
       "isOrdered": true}},
    {"name": "date", "type": {"name": "date", "unit": "MILLISECOND"}}
  ]})json";
  auto s = SchemaFromJson(nlohmann::json::parse(text));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const Schema& sc = **s;
  ASSERT_EQ(sc.num_fields(), 13);
  EXPECT_EQ(sc.field(0)->type->id, TypeId::kTimestamp);
  EXPECT_EQ(sc.field(0)->type->unit, TimeUnit::kMicro);
  EXPECT_EQ(sc.field(0)->type->timezone, "Europe/Paris");
  EXPECT_EQ(sc.field(1)->type->id, TypeId::kTime32);
  EXPECT_EQ(sc.field(2)->type->id, TypeId::kDecimal256);
  EXPECT_EQ(sc.field(2)->type->byte_width, 32);
  EXPECT_EQ(sc.field(2)->type->precision, 40);
  EXPECT_EQ(sc.field(3)->type->id, TypeId::kDecimal32);
  EXPECT_EQ(sc.field(4)->type->id, TypeId::kIntervalMonthDayNano);
  EXPECT_EQ(sc.field(5)->type->id, TypeId::kDuration);
  EXPECT_EQ(sc.field(6)->type->id, TypeId::kMap);
  EXPECT_TRUE(sc.field(6)->type->keys_sorted);
  EXPECT_EQ(sc.field(7)->type->id, TypeId::kDenseUnion);
  EXPECT_EQ(sc.field(7)->type->type_codes, (std::vector<int8_t>{42, 43}));
  EXPECT_EQ(sc.field(7)->type->children[1]->type->id, TypeId::kStringView);
  EXPECT_EQ(sc.field(8)->type->id, TypeId::kRunEndEncoded);
  EXPECT_EQ(sc.field(8)->type->children[0]->type->id, TypeId::kInt16);
  EXPECT_EQ(sc.field(8)->type->children[1]->type->id, TypeId::kHalfFloat);
  EXPECT_EQ(sc.field(9)->type->id, TypeId::kLargeListView);
  EXPECT_EQ(sc.field(10)->type->list_size, 3);
  EXPECT_EQ(sc.field(10)->type->children[0]->type->byte_width, 5);
  EXPECT_EQ(sc.field(11)->type->id, TypeId::kDictionary);
  EXPECT_EQ(sc.field(11)->type->index_type->id, TypeId::kUInt16);
  EXPECT_EQ(sc.field(11)->type->value_type->id, TypeId::kLargeString);
  EXPECT_TRUE(sc.field(11)->type->ordered);
  EXPECT_EQ(sc.field(12)->type->id, TypeId::kDate64);
}

TEST(IntegrationJsonSchemaTest, MapEntryNamesAreNotSignificant) {
  auto canonical = map(utf8(), int32());
  auto renamed =
      map(field("some_entries",
                struct_({field("some_key", utf8(), false), field("some_value", int32())}), false));
  EXPECT_TRUE(CompareTypes(*renamed, *canonical, "m").ok());
  auto other_value = map(utf8(), int64());
  Status st = CompareTypes(*renamed, *other_value, "m");
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(Contains(st.message(), "m/some_entries/some_value: type id"));
  auto nullable_key =
      map(field("entries", struct_({field("key", utf8(), true), field("value", int32())}), false));
  st = CompareTypes(*canonical, *nullable_key, "m");
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(Contains(st.message(), "m/entries/key: nullable"));
}

TEST(IntegrationValuesTest, DecimalsHalfFloatsHexAndInts) {
  auto dec = [](auto v) {
    return DecimalToString(reinterpret_cast<const uint8_t*>(&v), static_cast<int>(sizeof(v)));
  };
  EXPECT_EQ(dec(int32_t{-12345}), "-12345");
  EXPECT_EQ(dec(int64_t{0}), "0");
  EXPECT_EQ(dec(std::numeric_limits<int64_t>::min()), "-9223372036854775808");
  EXPECT_EQ(dec(static_cast<__int128>(1) << 127), "-170141183460469231731687303715884105728");
  EXPECT_EQ(dec(~(static_cast<__int128>(1) << 127)), "170141183460469231731687303715884105727");
  struct Int256 {
    uint64_t w[4];
  };
  EXPECT_EQ(dec(Int256{{~0ull, ~0ull, ~0ull, ~0ull}}), "-1");
  EXPECT_EQ(dec(Int256{{0, 0, 0, 1}}),  // 2^192
            "6277101735386680763835789423207666416102355444464034512896");
  EXPECT_EQ(NormalizeDecimalString("+007"), "7");
  EXPECT_EQ(NormalizeDecimalString("-000"), "0");
  EXPECT_EQ(DoubleToHalf(1.0), 0x3c00);
  EXPECT_EQ(DoubleToHalf(-2.5), 0xc100);
  EXPECT_EQ(DoubleToHalf(65504.0), 0x7bff);
  EXPECT_EQ(DoubleToHalf(1e6), 0x7c00);
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(DoubleToHalf(1.0 + std::ldexp(1.0, -11)), 0x3c00);  // tie -> even
  EXPECT_EQ(HalfToDouble(0x3555), 0.333251953125);
  EXPECT_EQ(ToHex(std::string("\x00\xab", 2)), "00AB");
  EXPECT_EQ(*FromHex("00aBff"), std::string("\x00\xab\xff", 3));
  EXPECT_FALSE(FromHex("0").ok());
  EXPECT_FALSE(FromHex("zz").ok());
  EXPECT_EQ(*JsonInt(nlohmann::json("-9223372036854775808")), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(*JsonUInt(nlohmann::json("18446744073709551615")), ~0ull);
  EXPECT_EQ(*JsonInt(nlohmann::json(-3)), -3);
  EXPECT_FALSE(JsonInt(nlohmann::json("12x")).ok());
}

TEST(IntegrationJsonSchemaTest, RejectsUnknownTypes) {
  auto s = SchemaFromJson(nlohmann::json::parse(
      R"({"fields": [{"name": "x", "type": {"name": "quaternion"}, "children": []}]})"));
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Contains(s.status().message(), "unknown type name 'quaternion'"));
}

}  // namespace
}  // namespace quiver::testing
