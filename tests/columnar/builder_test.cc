#include "columnar/builder.h"

#include <gtest/gtest.h>

namespace quiver {
namespace {

template <typename T>
T Unwrap(Result<T> r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).ValueOrDie();
}

TEST(BuilderTest, Int64WithNulls) {
  Int64Builder b(int64());
  ASSERT_TRUE(b.Append(1).ok());
  ASSERT_TRUE(b.AppendNull().ok());
  ASSERT_TRUE(b.Append(3).ok());
  ArrayRef a = Unwrap(b.Finish());
  ASSERT_TRUE(a->Validate(true).ok());
  EXPECT_EQ(a->length, 3);
  EXPECT_EQ(a->GetNullCount(), 1);
  EXPECT_TRUE(a->IsValid(0));
  EXPECT_FALSE(a->IsValid(1));
  EXPECT_EQ(a->GetValues<int64_t>(1)[2], 3);
  // Buffers are 64-byte aligned.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a->buffers[1]->data()) % 64, 0u);
  // The builder is reusable after Finish.
  ASSERT_TRUE(b.Append(7).ok());
  ArrayRef a2 = Unwrap(b.Finish());
  EXPECT_EQ(a2->length, 1);
  EXPECT_EQ(a2->buffers[0], nullptr);  // no nulls: no bitmap
}

TEST(BuilderTest, StringsAndSliceEquality) {
  StringBuilder b(utf8());
  for (const char* s : {"a", "", "hello", "wörld"}) ASSERT_TRUE(b.Append(s).ok());
  ASSERT_TRUE(b.AppendNull().ok());
  ArrayRef a = Unwrap(b.Finish());
  ASSERT_TRUE(a->Validate(true).ok());
  EXPECT_EQ(a->GetString(3), "wörld");
  ArrayRef s = a->Slice(2, 3);
  EXPECT_EQ(s->GetString(0), "hello");
  EXPECT_TRUE(s->IsNull(2));
  EXPECT_EQ(s->GetNullCount(), 1);

  StringBuilder b2(utf8());
  ASSERT_TRUE(b2.Append("hello").ok());
  ASSERT_TRUE(b2.Append("wörld").ok());
  ASSERT_TRUE(b2.AppendNull().ok());
  ArrayRef expect = Unwrap(b2.Finish());
  EXPECT_TRUE(ArrayEquals(*s, *expect));
  EXPECT_FALSE(ArrayEquals(*a, *expect));
}

TEST(BuilderTest, ListOfInt32) {
  auto type = list(int32());
  auto builder = Unwrap(MakeBuilder(type));
  auto* lb = static_cast<ListBuilder*>(builder.get());
  auto* vb = static_cast<Int32Builder*>(lb->value_builder());
  ASSERT_TRUE(lb->Append().ok());
  ASSERT_TRUE(vb->Append(1).ok());
  ASSERT_TRUE(vb->Append(2).ok());
  ASSERT_TRUE(lb->AppendNull().ok());
  ASSERT_TRUE(lb->Append().ok());  // empty list
  ASSERT_TRUE(lb->Append().ok());
  ASSERT_TRUE(vb->Append(3).ok());
  ArrayRef a = Unwrap(lb->Finish());
  ASSERT_TRUE(a->Validate(true).ok()) << a->Validate(true).ToString();
  const int32_t* offs = a->GetValues<int32_t>(1);
  EXPECT_EQ(std::vector<int32_t>(offs, offs + 5), (std::vector<int32_t>{0, 2, 2, 2, 3}));
  EXPECT_EQ(a->children[0]->length, 3);
  // Concatenate a slice with itself and compare slot by slot.
  ArrayRef cat = Unwrap(Concatenate({a->Slice(1, 3), a->Slice(0, 1)}));
  ASSERT_EQ(cat->length, 4);
  EXPECT_TRUE(ArrayRangeEquals(*cat, 0, *a, 1, 3));
  EXPECT_TRUE(ArrayRangeEquals(*cat, 3, *a, 0, 1));
}

TEST(BuilderTest, StructAndDictionary) {
  auto type = struct_({field("x", float64()), field("tag", dictionary(int32(), utf8()))});
  auto builder = Unwrap(MakeBuilder(type));
  auto* sb = static_cast<StructBuilder*>(builder.get());
  auto* xb = static_cast<DoubleBuilder*>(sb->child(0));
  auto* tb = static_cast<DictionaryBuilder*>(sb->child(1));
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(sb->Append().ok());
    ASSERT_TRUE(xb->Append(i * 0.5).ok());
    ASSERT_TRUE(tb->Append(i % 2 ? "odd" : "even").ok());
  }
  ASSERT_TRUE(sb->AppendNull().ok());
  ArrayRef a = Unwrap(sb->Finish());
  ASSERT_TRUE(a->Validate(true).ok()) << a->Validate(true).ToString();
  const ArrayData& tags = *a->children[1];
  EXPECT_EQ(tags.dictionary->length, 2);
  EXPECT_EQ(tags.GetValues<int32_t>(1)[3], 1);
  EXPECT_TRUE(a->IsNull(4));
  ArrayRef copy = Unwrap(Concatenate({a, a->Slice(0, 0)}));
  EXPECT_TRUE(ArrayEquals(*a, *copy));
}

// Concatenate's fast paths (fixed width, strings) and its zero-copy case
// (consecutive slices of one array), checked slot by slot against the input.
TEST(BuilderTest, ConcatenateFastPathsAndSlices) {
  Int64Builder ib(int64());
  StringBuilder sb(utf8());
  LargeStringBuilder lb(large_utf8());
  for (int i = 0; i < 100; ++i) {
    if (i % 7 == 3) {
      ASSERT_TRUE(ib.AppendNull().ok());
      ASSERT_TRUE(sb.AppendNull().ok());
      ASSERT_TRUE(lb.AppendNull().ok());
    } else {
      ASSERT_TRUE(ib.Append(i * 1000003).ok());
      ASSERT_TRUE(sb.Append(std::string(static_cast<size_t>(i % 5), 'a' + i % 26)).ok());
      ASSERT_TRUE(lb.Append(std::string(static_cast<size_t>(i % 3), 'A' + i % 26)).ok());
    }
  }
  for (ArrayRef a : {Unwrap(ib.Finish()), Unwrap(sb.Finish()), Unwrap(lb.Finish())}) {
    SCOPED_TRACE(a->type->ToString());
    // Consecutive slices: the result is a slice of the same buffers.
    ArrayRef run = Unwrap(Concatenate({a->Slice(5, 10), a->Slice(15, 0), a->Slice(15, 30)}));
    ASSERT_TRUE(run->Validate(true).ok()) << run->Validate(true).ToString();
    EXPECT_EQ(run->length, 40);
    EXPECT_EQ(run->offset, a->offset + 5);
    EXPECT_EQ(run->buffers[1].get(), a->buffers[1].get());
    EXPECT_TRUE(ArrayRangeEquals(*run, 0, *a, 5, 40));
    EXPECT_EQ(run->GetNullCount(), a->Slice(5, 40)->GetNullCount());
    // Out of order, at odd bit offsets, with and without nulls: a copy.
    ArrayRef copy = Unwrap(Concatenate({a->Slice(61, 13), a->Slice(3, 1), a->Slice(0, 3), a}));
    ASSERT_TRUE(copy->Validate(true).ok()) << copy->Validate(true).ToString();
    ASSERT_EQ(copy->length, 117);
    EXPECT_NE(copy->buffers[1].get(), a->buffers[1].get());
    EXPECT_TRUE(ArrayRangeEquals(*copy, 0, *a, 61, 13));
    EXPECT_TRUE(ArrayRangeEquals(*copy, 13, *a, 3, 1));
    EXPECT_TRUE(ArrayRangeEquals(*copy, 14, *a, 0, 3));
    EXPECT_TRUE(ArrayRangeEquals(*copy, 17, *a, 0, 100));
    EXPECT_EQ(copy->GetNullCount(), 2 + 1 + 0 + 14);
    // No nulls in the parts: no validity bitmap.
    ArrayRef dense = Unwrap(Concatenate({a->Slice(0, 3), a->Slice(4, 3)}));
    EXPECT_EQ(dense->buffers[0], nullptr);
    EXPECT_TRUE(ArrayRangeEquals(*dense, 3, *a, 4, 3));
  }
}

TEST(BuilderTest, ValidateRejectsBadOffsets) {
  StringBuilder b(utf8());
  ASSERT_TRUE(b.Append("abc").ok());
  ASSERT_TRUE(b.Append("de").ok());
  ArrayRef a = Unwrap(b.Finish());
  // Corrupt the second offset so it points past the data buffer.
  auto bad = std::make_shared<ArrayData>(*a);
  auto offsets = Unwrap(Buffer::CopyFrom(a->buffers[1]->view()));
  const_cast<int32_t*>(offsets->data_as<int32_t>())[2] = 1000;
  bad->buffers[1] = offsets;
  Status st = bad->Validate();
  EXPECT_TRUE(st.IsInvalid());
  EXPECT_NE(st.message().find("offset"), std::string::npos) << st.message();
}

TEST(BuilderTest, MakeArrayOfNullForNestedTypes) {
  for (const TypeRef& t : {int64(), utf8(), list(float32()), struct_({field("a", boolean())}),
                           fixed_size_binary(3), decimal128(10, 2), map(utf8(), int32())}) {
    ArrayRef a = Unwrap(MakeArrayOfNull(t, 5));
    EXPECT_TRUE(a->Validate(true).ok()) << t->ToString();
    EXPECT_EQ(a->GetNullCount(), 5) << t->ToString();
  }
}

}  // namespace
}  // namespace quiver
