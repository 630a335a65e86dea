// Write -> read round trips through the Arrow IPC writer and readers: every
// type, file and stream formats, no / LZ4 / ZSTD body compression, sliced
// arrays, dictionaries (replacement, deltas, nested) and custom metadata.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/builder.h"
#include "common/io.h"
#include "formats/ipc/reader.h"
#include "formats/ipc/writer.h"
#include "util/status_util.h"

namespace quiver::ipc {
namespace {

constexpr int64_t kRows = 13;
bool IsNullRow(int64_t i) { return i % 4 == 3; }

using ::quiver::testing::Unwrap;

template <typename T>
std::shared_ptr<Buffer> Buf(const std::vector<T>& v) {
  return Unwrap(Buffer::CopyFrom(
      std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T))));
}

std::shared_ptr<Buffer> Bits(const std::vector<bool>& v) {
  std::vector<uint8_t> bytes((v.size() + 7) / 8, 0);
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i]) bytes[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  }
  return Buf(bytes);
}

std::shared_ptr<Buffer> RowValidity() {
  std::vector<bool> v;
  for (int64_t i = 0; i < kRows; ++i) v.push_back(!IsNullRow(i));
  return Bits(v);
}

template <typename T>
ArrayRef Numeric(TypeRef type, int64_t scale = 1) {
  NumericBuilder<T> b(type);
  for (int64_t i = 0; i < kRows; ++i) {
    Status st = IsNullRow(i) ? b.AppendNull() : b.Append(static_cast<T>((i * 3 + 7) * scale));
    EXPECT_TRUE(st.ok());
  }
  return Unwrap(b.Finish());
}

ArrayRef FixedBinary(TypeRef type) {
  FixedSizeBinaryBuilder b(type);
  for (int64_t i = 0; i < kRows; ++i) {
    std::string v(static_cast<size_t>(b.byte_width()), static_cast<char>('a' + i));
    if (type->is_decimal()) {  // small positive unscaled values, within any precision
      std::fill(v.begin(), v.end(), '\0');
      v[0] = static_cast<char>(i * 7);
    }
    Status st = IsNullRow(i) ? b.AppendNull() : b.Append(v);
    EXPECT_TRUE(st.ok());
  }
  return Unwrap(b.Finish());
}

std::string Word(int64_t i) {
  static const char* kWords[] = {"",      "a", "quiver", "a string longer than twelve bytes",
                                 "arrow", "zz"};
  return std::string(kWords[i % 6]) + std::to_string(i);
}

ArrayRef Strings(TypeRef type) {
  auto b = Unwrap(MakeBuilder(type));
  for (int64_t i = 0; i < kRows; ++i) {
    if (IsNullRow(i)) {
      EXPECT_TRUE(b->AppendNull().ok());
    } else if (type->id == TypeId::kString || type->id == TypeId::kBinary) {
      EXPECT_TRUE(static_cast<StringBuilder*>(b.get())->Append(Word(i)).ok());
    } else if (type->id == TypeId::kLargeString || type->id == TypeId::kLargeBinary) {
      EXPECT_TRUE(static_cast<LargeStringBuilder*>(b.get())->Append(Word(i)).ok());
    } else {
      EXPECT_TRUE(static_cast<BinaryViewBuilder*>(b.get())->Append(Word(i)).ok());
    }
  }
  return Unwrap(b->Finish());
}

ArrayRef Bools() {
  BooleanBuilder b;
  for (int64_t i = 0; i < kRows; ++i) {
    EXPECT_TRUE((IsNullRow(i) ? b.AppendNull() : b.Append(i % 3 == 0)).ok());
  }
  return Unwrap(b.Finish());
}

// list<int32>: row i holds i % 4 values.
ArrayRef ListOfInt(TypeRef type) {
  std::vector<int32_t> offsets{0};
  std::vector<int64_t> large_offsets{0};
  for (int64_t i = 0; i < kRows; ++i) {
    int32_t n = IsNullRow(i) ? 0 : static_cast<int32_t>(i % 4);
    offsets.push_back(offsets.back() + n);
    large_offsets.push_back(large_offsets.back() + n);
  }
  std::vector<int32_t> values;
  for (int32_t i = 0; i < offsets.back(); ++i) values.push_back(i * 10);
  auto child = ArrayData::Make(int32(), offsets.back(), {nullptr, Buf(values)}, 0);
  auto off = type->id == TypeId::kLargeList ? Buf(large_offsets) : Buf(offsets);
  return ArrayData::Make(type, kRows, {RowValidity(), off}, kUnknownNullCount, 0, {child});
}

ArrayRef ListViewOfInt(TypeRef type) {
  // Views overlap and run backwards on purpose.
  std::vector<int32_t> values{1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<int32_t> offsets, sizes;
  std::vector<int64_t> loff, lsizes;
  for (int64_t i = 0; i < kRows; ++i) {
    int32_t o = static_cast<int32_t>((kRows - i) % 6), s = static_cast<int32_t>(i % 3);
    offsets.push_back(o);
    sizes.push_back(s);
    loff.push_back(o);
    lsizes.push_back(s);
  }
  auto child = ArrayData::Make(int32(), 8, {nullptr, Buf(values)}, 0);
  bool large = type->id == TypeId::kLargeListView;
  return ArrayData::Make(
      type, kRows,
      {RowValidity(), large ? Buf(loff) : Buf(offsets), large ? Buf(lsizes) : Buf(sizes)},
      kUnknownNullCount, 0, {child});
}

ArrayRef FixedList() {
  std::vector<int16_t> values;
  for (int64_t i = 0; i < kRows * 2; ++i) values.push_back(static_cast<int16_t>(i));
  auto child = ArrayData::Make(int16(), kRows * 2, {nullptr, Buf(values)}, 0);
  return ArrayData::Make(fixed_size_list(field("item", int16()), 2), kRows, {RowValidity()},
                         kUnknownNullCount, 0, {child});
}

ArrayRef Struct() {
  auto a = Numeric<int64_t>(int64());
  auto b = Strings(utf8());
  auto type = struct_({field("a", int64()), field("b", utf8())});
  std::vector<bool> valid;
  for (int64_t i = 0; i < kRows; ++i) valid.push_back(i % 5 != 1);
  return ArrayData::Make(type, kRows, {Bits(valid)}, kUnknownNullCount, 0, {a, b});
}

ArrayRef Map() {
  auto type = map(utf8(), int32());
  std::vector<int32_t> offsets{0};
  for (int64_t i = 0; i < kRows; ++i) offsets.push_back(offsets.back() + (IsNullRow(i) ? 0 : 2));
  const int64_t n = offsets.back();
  StringBuilder keys(utf8());
  Int32Builder items(int32());
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_TRUE(keys.Append("k" + std::to_string(i % 2)).ok());
    EXPECT_TRUE((i % 3 == 0 ? items.AppendNull() : items.Append(static_cast<int32_t>(i))).ok());
  }
  auto entries = ArrayData::Make(type->children[0]->type, n, {nullptr}, 0, 0,
                                 {Unwrap(keys.Finish()), Unwrap(items.Finish())});
  return ArrayData::Make(type, kRows, {RowValidity(), Buf(offsets)}, kUnknownNullCount, 0,
                         {entries});
}

ArrayRef Union(bool dense) {
  std::vector<FieldRef> fields{field("i", int32()), field("s", utf8())};
  std::vector<int8_t> codes{5, 9};
  std::vector<int8_t> ids;
  std::vector<int32_t> offsets;
  int32_t n_int = 0, n_str = 0;
  for (int64_t i = 0; i < kRows; ++i) {
    bool is_int = i % 3 != 2;
    ids.push_back(is_int ? 5 : 9);
    offsets.push_back(is_int ? n_int++ : n_str++);
  }
  if (dense) {
    Int32Builder ib(int32());
    for (int32_t i = 0; i < n_int; ++i)
      EXPECT_TRUE((i % 4 == 1 ? ib.AppendNull() : ib.Append(i)).ok());
    StringBuilder sb(utf8());
    for (int32_t i = 0; i < n_str; ++i) EXPECT_TRUE(sb.Append(Word(i)).ok());
    return ArrayData::Make(dense_union(fields, codes), kRows, {Buf(ids), Buf(offsets)}, 0, 0,
                           {Unwrap(ib.Finish()), Unwrap(sb.Finish())});
  }
  return ArrayData::Make(sparse_union(fields, codes), kRows, {Buf(ids)}, 0, 0,
                         {Numeric<int32_t>(int32()), Strings(utf8())});
}

ArrayRef Dictionary(TypeRef index_type) {
  DictionaryBuilder b(dictionary(index_type, utf8()));
  for (int64_t i = 0; i < kRows; ++i) {
    EXPECT_TRUE((IsNullRow(i) ? b.AppendNull() : b.Append("v" + std::to_string(i % 5))).ok());
  }
  return Unwrap(b.Finish());
}

ArrayRef RunEnd() {
  std::vector<int32_t> ends{2, 5, 6, 10, kRows};
  Int64Builder values(int64());
  for (int i = 0; i < 5; ++i)
    EXPECT_TRUE((i == 1 ? values.AppendNull() : values.Append(i * 100)).ok());
  auto run_ends = ArrayData::Make(int32(), 5, {nullptr, Buf(ends)}, 0);
  return ArrayData::Make(run_end_encoded(int32(), int64()), kRows, {}, 0, 0,
                         {run_ends, Unwrap(values.Finish())});
}

// One column of every type Quiver supports.
RecordBatchRef AllTypesBatch() {
  std::vector<FieldRef> fields;
  std::vector<ArrayRef> cols;
  auto add = [&](const std::string& name, ArrayRef a) {
    fields.push_back(field(name, a->type, true, {{"field_key", name}}));
    cols.push_back(std::move(a));
  };
  add("null", ArrayData::Make(null(), kRows, {nullptr}, kRows));
  add("bool", Bools());
  add("i8", Numeric<int8_t>(int8()));
  add("i16", Numeric<int16_t>(int16()));
  add("i32", Numeric<int32_t>(int32()));
  add("i64", Numeric<int64_t>(int64()));
  add("u8", Numeric<uint8_t>(uint8()));
  add("u16", Numeric<uint16_t>(uint16()));
  add("u32", Numeric<uint32_t>(uint32()));
  add("u64", Numeric<uint64_t>(uint64()));
  add("f16", Numeric<uint16_t>(float16()));
  add("f32", Numeric<float>(float32()));
  add("f64", Numeric<double>(float64()));
  add("dec32", FixedBinary(decimal(TypeId::kDecimal32, 9, 2)));
  add("dec64", FixedBinary(decimal(TypeId::kDecimal64, 18, 3)));
  add("dec128", FixedBinary(decimal128(38, 10)));
  add("dec256", FixedBinary(decimal256(76, 20)));
  add("utf8", Strings(utf8()));
  add("binary", Strings(binary()));
  add("large_utf8", Strings(large_utf8()));
  add("large_binary", Strings(large_binary()));
  add("utf8_view", Strings(utf8_view()));
  add("binary_view", Strings(binary_view()));
  add("fsb", FixedBinary(fixed_size_binary(3)));
  add("date32", Numeric<int32_t>(date32()));
  add("date64", Numeric<int64_t>(date64(), 86400000));
  add("time32", Numeric<int32_t>(time32(TimeUnit::kMilli)));
  add("time64", Numeric<int64_t>(time64(TimeUnit::kNano)));
  add("ts", Numeric<int64_t>(timestamp(TimeUnit::kMicro)));
  add("ts_tz", Numeric<int64_t>(timestamp(TimeUnit::kSecond, "Europe/Paris")));
  add("duration", Numeric<int64_t>(duration(TimeUnit::kMilli)));
  add("interval_m", Numeric<int32_t>(month_interval()));
  add("interval_dt", FixedBinary(day_time_interval()));
  add("interval_mdn", FixedBinary(month_day_nano_interval()));
  add("list", ListOfInt(list(int32())));
  add("large_list", ListOfInt(large_list(field("item", int32()))));
  add("list_view", ListViewOfInt(list_view(field("item", int32()))));
  add("large_list_view", ListViewOfInt(large_list_view(field("item", int32()))));
  add("fsl", FixedList());
  add("struct", Struct());
  add("map", Map());
  add("sparse_union", Union(false));
  add("dense_union", Union(true));
  add("dict8", Dictionary(int8()));
  add("dict32", Dictionary(int32()));
  add("ree", RunEnd());
  auto s = schema(std::move(fields), {{"origin", "quiver test"}, {"empty", ""}});
  return RecordBatch::Make(s, kRows, std::move(cols));
}

std::string WriteBatches(const std::vector<RecordBatchRef>& batches, bool file,
                         const IpcWriteOptions& options = {}) {
  BufferOutputStream out;
  auto writer = file ? Unwrap(IpcWriter::MakeFileWriter(&out, batches[0]->schema(), options))
                     : Unwrap(IpcWriter::MakeStreamWriter(&out, batches[0]->schema(), options));
  for (const auto& b : batches) EXPECT_TRUE(writer->WriteRecordBatch(*b).ok());
  EXPECT_TRUE(writer->Close().ok());
  EXPECT_EQ(writer->num_record_batches_written(), static_cast<int64_t>(batches.size()));
  return out.Take();
}

std::vector<RecordBatchRef> ReadAll(const std::string& bytes, const IpcReadOptions& options = {}) {
  auto buffer = Unwrap(Buffer::CopyFrom(bytes));
  auto reader = OpenIpcReader(buffer, options, "roundtrip");
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<RecordBatchRef> out;
  if (!reader.ok()) return out;
  while (true) {
    RecordBatchRef b;
    Status st = (*reader)->ReadNext(&b);
    EXPECT_TRUE(st.ok()) << st.ToString();
    if (!st.ok() || b == nullptr) break;
    out.push_back(b);
  }
  return out;
}

void ExpectBatchesEqual(const RecordBatch& expected, const RecordBatch& actual) {
  ASSERT_EQ(expected.num_rows(), actual.num_rows());
  ASSERT_EQ(expected.num_columns(), actual.num_columns());
  EXPECT_TRUE(expected.schema()->Equals(*actual.schema(), /*check_metadata=*/true))
      << expected.schema()->ToString() << "\nvs\n"
      << actual.schema()->ToString();
  for (int i = 0; i < expected.num_columns(); ++i) {
    EXPECT_TRUE(ArrayEquals(*expected.column(i), *actual.column(i)))
        << "column " << expected.schema()->field(i)->name;
    EXPECT_TRUE(actual.column(i)->Validate(true).ok()) << expected.schema()->field(i)->name;
  }
}

struct Case {
  bool file;
  compression::Codec codec;
};

class IpcRoundTrip : public ::testing::TestWithParam<Case> {};

TEST_P(IpcRoundTrip, AllTypes) {
  auto batch = AllTypesBatch();
  ASSERT_OK(batch->Validate(true));
  IpcWriteOptions options;
  options.codec = GetParam().codec;
  auto bytes = WriteBatches({batch, batch}, GetParam().file, options);
  EXPECT_EQ(LooksLikeIpcFile(reinterpret_cast<const uint8_t*>(bytes.data()),
                             static_cast<int64_t>(bytes.size())),
            GetParam().file);
  auto read = ReadAll(bytes);
  ASSERT_EQ(read.size(), 2u);
  for (const auto& b : read) ExpectBatchesEqual(*batch, *b);
}

TEST_P(IpcRoundTrip, SlicedArrays) {
  auto batch = AllTypesBatch();
  for (int64_t offset : {1, 3, 8, 9}) {
    auto slice = batch->Slice(offset, kRows - offset - 1);
    ASSERT_OK(slice->Validate(true));
    IpcWriteOptions options;
    options.codec = GetParam().codec;
    auto read = ReadAll(WriteBatches({slice}, GetParam().file, options));
    ASSERT_EQ(read.size(), 1u);
    ExpectBatchesEqual(*slice, *read[0]);
  }
}

TEST_P(IpcRoundTrip, EmptyBatchAndNoBatches) {
  auto batch = AllTypesBatch()->Slice(2, 0);
  auto read = ReadAll(WriteBatches({batch}, GetParam().file));
  ASSERT_EQ(read.size(), 1u);
  ExpectBatchesEqual(*batch, *read[0]);

  BufferOutputStream out;
  auto writer = Unwrap(GetParam().file ? IpcWriter::MakeFileWriter(&out, batch->schema())
                                       : IpcWriter::MakeStreamWriter(&out, batch->schema()));
  ASSERT_OK(writer->Close());
  auto reader = Unwrap(OpenIpcReader(Unwrap(Buffer::CopyFrom(out.contents()))));
  EXPECT_TRUE(reader->schema()->Equals(*batch->schema(), true));
  RecordBatchRef next;
  ASSERT_OK(reader->ReadNext(&next));
  EXPECT_EQ(next, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Formats, IpcRoundTrip,
                         ::testing::Values(Case{true, compression::Codec::kNone},
                                           Case{true, compression::Codec::kLz4Frame},
                                           Case{true, compression::Codec::kZstd},
                                           Case{false, compression::Codec::kNone},
                                           Case{false, compression::Codec::kLz4Frame},
                                           Case{false, compression::Codec::kZstd}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.file ? "File" : "Stream") +
                                  compression::CodecName(info.param.codec);
                         });

RecordBatchRef DictBatch(const std::vector<std::string>& dict_values,
                         const std::vector<int8_t>& indices) {
  StringBuilder sb(utf8());
  for (const auto& v : dict_values) EXPECT_TRUE(sb.Append(v).ok());
  auto type = dictionary(int8(), utf8());
  auto arr = ArrayData::Make(type, static_cast<int64_t>(indices.size()), {nullptr, Buf(indices)}, 0,
                             0, {}, Unwrap(sb.Finish()));
  return RecordBatch::Make(schema({field("d", type)}), arr->length, {arr});
}

TEST(IpcDictionaries, StreamReplacesDictionary) {
  auto b1 = DictBatch({"a", "b"}, {0, 1, 1});
  auto b2 = DictBatch({"x", "y", "z"}, {2, 0});
  BufferOutputStream out;
  auto writer = Unwrap(IpcWriter::MakeStreamWriter(&out, b1->schema()));
  ASSERT_OK(writer->WriteRecordBatch(*b1));
  ASSERT_OK(writer->WriteRecordBatch(*b1));  // unchanged: not written again
  ASSERT_OK(writer->WriteRecordBatch(*b2));
  ASSERT_OK(writer->Close());
  EXPECT_EQ(writer->num_dictionary_batches_written(), 2);
  auto read = ReadAll(out.contents());
  ASSERT_EQ(read.size(), 3u);
  ExpectBatchesEqual(*b1, *read[0]);
  ExpectBatchesEqual(*b1, *read[1]);
  ExpectBatchesEqual(*b2, *read[2]);
}

TEST(IpcDictionaries, FileRefusesReplacement) {
  auto b1 = DictBatch({"a", "b"}, {0, 1});
  auto b2 = DictBatch({"x", "y"}, {1, 0});
  BufferOutputStream out;
  auto writer = Unwrap(IpcWriter::MakeFileWriter(&out, b1->schema()));
  ASSERT_OK(writer->WriteRecordBatch(*b1));
  Status st = writer->WriteRecordBatch(*b2);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("dictionar"), std::string::npos) << st.ToString();
}

TEST(IpcDictionaries, DeltasInStreamAndFile) {
  auto b1 = DictBatch({"a", "b"}, {0, 1});
  auto b2 = DictBatch({"a", "b", "c", "d"}, {3, 2, 0});
  for (bool file : {false, true}) {
    IpcWriteOptions options;
    options.emit_dictionary_deltas = true;
    BufferOutputStream out;
    auto writer = Unwrap(file ? IpcWriter::MakeFileWriter(&out, b1->schema(), options)
                              : IpcWriter::MakeStreamWriter(&out, b1->schema(), options));
    ASSERT_OK(writer->WriteRecordBatch(*b1));
    ASSERT_OK(writer->WriteRecordBatch(*b2));
    ASSERT_OK(writer->Close());
    EXPECT_EQ(writer->num_dictionary_batches_written(), 2);
    auto read = ReadAll(out.contents());
    ASSERT_EQ(read.size(), 2u);
    // Logical values are what matters: in files all deltas apply up front.
    for (int i = 0; i < 2; ++i) {
      const auto& expected = i == 0 ? b1 : b2;
      for (int64_t r = 0; r < expected->num_rows(); ++r) {
        const ArrayData& e = *expected->column(0);
        const ArrayData& a = *read[i]->column(0);
        int64_t ei = e.GetValues<int8_t>(1)[r], ai = a.GetValues<int8_t>(1)[r];
        EXPECT_EQ(e.dictionary->GetString(ei), a.dictionary->GetString(ai));
      }
    }
    EXPECT_EQ(read[1]->column(0)->dictionary->length, 4);
  }
}

TEST(IpcDictionaries, NestedDictionary) {
  // list<dictionary<int16, struct<s: dictionary<int8, utf8>>>>
  auto inner_type = dictionary(int8(), utf8());
  StringBuilder sb(utf8());
  for (const char* v : {"p", "q"}) ASSERT_OK(sb.Append(v));
  auto inner = ArrayData::Make(inner_type, 3, {nullptr, Buf(std::vector<int8_t>{1, 0, 1})}, 0, 0,
                               {}, Unwrap(sb.Finish()));
  auto struct_type = struct_({field("s", inner_type)});
  auto outer_values = ArrayData::Make(struct_type, 3, {nullptr}, 0, 0, {inner});
  auto outer_type = dictionary(int16(), struct_type);
  auto outer = ArrayData::Make(outer_type, 4, {nullptr, Buf(std::vector<int16_t>{2, 2, 0, 1})}, 0,
                               0, {}, outer_values);
  auto list_type = list(field("item", outer_type));
  auto lists =
      ArrayData::Make(list_type, 2, {nullptr, Buf(std::vector<int32_t>{0, 1, 4})}, 0, 0, {outer});
  auto batch = RecordBatch::Make(schema({field("nested", list_type)}), 2, {lists});
  ASSERT_OK(batch->Validate(true));
  for (bool file : {false, true}) {
    auto read = ReadAll(WriteBatches({batch, batch}, file));
    ASSERT_EQ(read.size(), 2u);
    for (const auto& b : read) ExpectBatchesEqual(*batch, *b);
  }
}

TEST(IpcReader, ProjectionAndRandomAccess) {
  auto batch = AllTypesBatch();
  auto bytes = WriteBatches({batch, batch->Slice(0, 4)}, true);
  IpcReadOptions options;
  options.included_fields = {5, 1};
  auto file = Unwrap(IpcFileReader::Open(Unwrap(Buffer::CopyFrom(bytes)), options, "mem"));
  ASSERT_EQ(file->num_record_batches(), 2);
  EXPECT_EQ(file->schema()->num_fields(), 2);
  EXPECT_EQ(file->schema()->field(0)->name, "i64");
  EXPECT_EQ(file->metadata_version(), 5);
  auto second = Unwrap(file->ReadRecordBatch(1));
  EXPECT_EQ(second->num_rows(), 4);
  EXPECT_TRUE(ArrayEquals(*second->column(1), *batch->column(1)->Slice(0, 4)));
  EXPECT_FALSE(file->ReadRecordBatch(2).ok());
  EXPECT_GT(file->bytes_read(), 0);
  EXPECT_EQ(file->total_bytes(), static_cast<int64_t>(bytes.size()));
}

TEST(IpcReader, FilesOnDiskMmapAndStreamSniffing) {
  auto batch = AllTypesBatch();
  std::string dir = ::testing::TempDir();
  for (bool file : {true, false}) {
    std::string path = dir + (file ? "/quiver_ipc_rt.arrow" : "/quiver_ipc_rt.arrows");
    auto out = Unwrap(FileOutputStream::Open(path));
    auto writer = Unwrap(file ? IpcWriter::MakeFileWriter(out.get(), batch->schema())
                              : IpcWriter::MakeStreamWriter(out.get(), batch->schema()));
    ASSERT_OK(writer->WriteRecordBatch(*batch));
    ASSERT_OK(writer->Close());
    ASSERT_OK(out->Close());
    auto reader = Unwrap(OpenIpcReader(path));
    RecordBatchRef b;
    ASSERT_OK(reader->ReadNext(&b));
    ASSERT_NE(b, nullptr);
    ExpectBatchesEqual(*batch, *b);
    if (!file) {
      auto stream = Unwrap(IpcStreamReader::Open(path));
      ASSERT_OK(stream->ReadNext(&b));
      EXPECT_EQ(stream->bytes_read(), stream->total_bytes() - 8);  // all but end-of-stream
    }
  }
}

TEST(IpcReader, LegacyStreamWithoutContinuation) {
  // Values chosen so that no 0xFFFFFFFF word occurs outside message prefixes.
  Int32Builder ib(int32());
  StringBuilder sb(utf8());
  for (int32_t i = 1; i <= 9; ++i) {
    ASSERT_OK(ib.Append(i));
    ASSERT_OK(i == 4 ? sb.AppendNull() : sb.Append(Word(i)));
  }
  auto s = schema({field("i", int32()), field("s", utf8())});
  auto batch = RecordBatch::Make(s, 9, {Unwrap(ib.Finish()), Unwrap(sb.Finish())});
  const std::string modern = WriteBatches({batch}, false);
  // Rewrite every "FFFFFFFF len" prefix as a bare "len" (pre-0.15 framing).
  std::string legacy;
  size_t pos = 0;
  const std::string marker(4, '\xff');
  while (pos != std::string::npos && pos + 8 <= modern.size()) {
    size_t next = modern.find(marker, pos + 8);
    legacy.append(modern, pos + 4, next == std::string::npos ? std::string::npos : next - pos - 4);
    pos = next;
  }
  // Legacy framing leaves metadata and bodies 4 bytes off 8-alignment; the
  // reader copies what is misaligned, so the data must still come back intact.
  auto read = ReadAll(legacy);
  ASSERT_EQ(read.size(), 1u);
  ExpectBatchesEqual(*batch, *read[0]);
}

TEST(IpcWriter, RejectsMismatchedBatchAndGzip) {
  auto batch = AllTypesBatch();
  BufferOutputStream out;
  IpcWriteOptions gz;
  gz.codec = compression::Codec::kGzip;
  EXPECT_FALSE(IpcWriter::MakeStreamWriter(&out, batch->schema(), gz).ok());
  auto writer = Unwrap(IpcWriter::MakeStreamWriter(&out, schema({field("x", int32())})));
  EXPECT_FALSE(writer->WriteRecordBatch(*batch).ok());
}

}  // namespace
}  // namespace quiver::ipc

namespace quiver::ipc {
namespace {

// The Python that has the peer (pyarrow): $QUIVER_PYTHON, else the project's .venv.
std::string PeerPython() {
  if (const char* env = std::getenv("QUIVER_PYTHON")) return env;
  return std::string(QUIVER_SOURCE_DIR) + "/.venv/bin/python";
}

// pyarrow must read what we write. Needs a Python with pyarrow
// (QUIVER_PYTHON, or the development venv); without one the test fails.
TEST(IpcInterop, PyarrowReadsOurFiles) {
  std::string python = PeerPython();
  if (std::system((python + " -c 'import pyarrow' >/dev/null 2>&1").c_str()) != 0) {
    // The peer is part of the test set-up, in CI and locally alike: a
    // missing pyarrow fails (it never skips, which would pass unseen).
    FAIL() << "no pyarrow at " << python
           << " (run scripts/test to create .venv, or set QUIVER_PYTHON)";
  }
  auto batch = AllTypesBatch();
  std::string dir = ::testing::TempDir() + "/quiver_ipc_interop";
  std::system(("mkdir -p " + dir).c_str());
  std::vector<std::string> paths;
  for (bool file : {true, false}) {
    for (auto codec :
         {compression::Codec::kNone, compression::Codec::kLz4Frame, compression::Codec::kZstd}) {
      IpcWriteOptions options;
      options.codec = codec;
      std::string path = dir + "/" + (file ? "file_" : "stream_") + compression::CodecName(codec);
      auto out = Unwrap(FileOutputStream::Open(path));
      auto writer = Unwrap(file ? IpcWriter::MakeFileWriter(out.get(), batch->schema(), options)
                                : IpcWriter::MakeStreamWriter(out.get(), batch->schema(), options));
      ASSERT_OK(writer->WriteRecordBatch(*batch));
      ASSERT_OK(writer->WriteRecordBatch(*batch->Slice(3, 7)));
      ASSERT_OK(writer->Close());
      ASSERT_OK(out->Close());
      paths.push_back(path);
    }
  }
  std::string script = dir + "/check.py";
  FILE* f = std::fopen(script.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(R"PY(
import sys, pyarrow as pa, pyarrow.ipc as ipc
tables = []
for p in sys.argv[1:]:
    with open(p, 'rb') as fh:
        head = fh.read(6)
    t = (ipc.open_file(p).read_all() if head == b'ARROW1' else ipc.open_stream(p).read_all())
    t.validate(full=True)
    assert t.num_rows == 20, (p, t.num_rows)
    assert t.schema.metadata[b'origin'] == b'quiver test', t.schema.metadata
    assert t.schema.field('i64').metadata[b'field_key'] == b'i64'
    assert t.column('utf8')[2].as_py() == 'quiver2', t.column('utf8')[2]
    assert t.column('i32')[3].as_py() is None
    assert t.column('i32')[13 + 1].as_py() == 4 * 3 + 7
    assert t.column('ree').type == pa.run_end_encoded(pa.int32(), pa.int64())
    tables.append(t)
for t in tables[1:]:
    assert t.equals(tables[0]), 'tables differ'
print('pyarrow ok', pa.__version__, len(tables))
)PY",
             f);
  std::fclose(f);
  std::string cmd = python + " " + script;
  for (const auto& p : paths) cmd += " " + p;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

}  // namespace
}  // namespace quiver::ipc

namespace quiver::ipc {
namespace {

bool Within(const Buffer& inner, const Buffer& outer) {
  return inner.data() >= outer.data() && inner.data() + inner.size() <= outer.data() + outer.size();
}

TEST(IpcReader, ZeroCopyUnlessCompressed) {
  auto batch = AllTypesBatch();
  for (auto codec : {compression::Codec::kNone, compression::Codec::kZstd}) {
    IpcWriteOptions options;
    options.codec = codec;
    auto bytes = Unwrap(Buffer::CopyFrom(WriteBatches({batch}, true, options)));
    auto file = Unwrap(IpcFileReader::Open(bytes));
    auto read = Unwrap(file->ReadRecordBatch(0));
    const int i64 = batch->schema()->GetFieldIndex("i64");
    const int utf8 = batch->schema()->GetFieldIndex("utf8");
    const bool zero_copy = codec == compression::Codec::kNone;
    EXPECT_EQ(Within(*read->column(i64)->buffers[1], *bytes), zero_copy);
    EXPECT_EQ(Within(*read->column(utf8)->buffers[2], *bytes), zero_copy);
  }
}

TEST(IpcReader, ErrorsNameInputAndOffset) {
  auto batch = AllTypesBatch();
  std::string bytes = WriteBatches({batch}, false);
  bytes.resize(bytes.size() - 100);  // cut into the record batch body
  auto reader = Unwrap(IpcStreamReader::Open(Unwrap(Buffer::CopyFrom(bytes)), {}, "cut.arrows"));
  RecordBatchRef b;
  Status st = reader->ReadNext(&b);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cut.arrows: message at byte "), std::string::npos) << st.ToString();

  auto file = IpcFileReader::Open(Unwrap(Buffer::CopyFrom(std::string("ARROW1\0\0junk", 12))), {},
                                  "junk.arrow");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find("junk.arrow"), std::string::npos);
}

}  // namespace
}  // namespace quiver::ipc

namespace quiver::ipc {
namespace {

// pyarrow writes files (views, list views, run-end encoding, nested and delta
// dictionaries, compression, sliced batches); we read each and write it back
// in both formats; pyarrow checks that the copies equal its originals.
TEST(IpcInterop, PyarrowFilesSurviveOurReadAndWrite) {
  std::string python = PeerPython();
  if (std::system((python + " -c 'import pyarrow' >/dev/null 2>&1").c_str()) != 0) {
    // The peer is part of the test set-up, in CI and locally alike: a
    // missing pyarrow fails (it never skips, which would pass unseen).
    FAIL() << "no pyarrow at " << python
           << " (run scripts/test to create .venv, or set QUIVER_PYTHON)";
  }
  std::string dir = ::testing::TempDir() + "/quiver_ipc_from_pyarrow";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  std::string script = dir + "/interop.py";
  FILE* f = std::fopen(script.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(R"PY(
import glob, os, sys, pyarrow as pa, pyarrow.ipc as ipc
mode, d = sys.argv[1], sys.argv[2]
def table():
    n = 40
    return pa.table({
        'i': pa.array([None if i % 7 == 3 else i for i in range(n)], pa.int64()),
        'sv': pa.array([None if i % 5 == 0 else 'x' * (i % 20) for i in range(n)],
                       pa.string_view()),
        'bv': pa.array([b'y' * (i % 17) for i in range(n)], pa.binary_view()),
        'lv': pa.array([[1, 2, None][: i % 4] for i in range(n)], pa.list_view(pa.int32())),
        'ree': pa.RunEndEncodedArray.from_arrays(pa.array([10, 20, 30, 40], pa.int16()),
                                                 pa.array([1, None, 3, 4], pa.int32())),
        'dict': pa.array(['a', 'b', None, 'c'] * 10).dictionary_encode(),
        'nested_dict': pa.array([['p', 'q'][: i % 3] for i in range(n)],
                                pa.list_(pa.dictionary(pa.int8(), pa.string()))),
        'map': pa.array([[('k', i)] if i % 3 else None for i in range(n)],
                        pa.map_(pa.string(), pa.int64())),
        'ts': pa.array(range(n), pa.timestamp('ns', tz='UTC')),
        'dec': pa.array([None] + list(range(n - 1)), pa.decimal128(10, 2)),
    }, metadata={'k': 'v'})
def read(p):
    with open(p, 'rb') as fh:
        file = fh.read(6) == b'ARROW1'
    return (ipc.open_file(p) if file else ipc.open_stream(p)).read_all()
if mode == 'write':
    t = table()
    for fmt in ['file', 'stream']:
        for codec in [None, 'lz4', 'zstd']:
            opts = ipc.IpcWriteOptions(compression=codec)
            with (ipc.new_file if fmt == 'file' else ipc.new_stream)(
                    f'{d}/{fmt}_{codec}.src', t.schema, options=opts) as w:
                w.write_table(t.slice(3, 30), max_chunksize=11)
                w.write_table(t.slice(0, 5))
    s = pa.schema([('d', pa.dictionary(pa.int8(), pa.string()))])
    with ipc.new_stream(f'{d}/deltas.src', s,
                        options=ipc.IpcWriteOptions(emit_dictionary_deltas=True)) as w:
        for idx, vals in [([0, 1, None], ['a', 'b']), ([2, 0], ['a', 'b', 'c']), ([0], ['z'])]:
            w.write_batch(pa.record_batch([pa.DictionaryArray.from_arrays(
                pa.array(idx, pa.int8()), pa.array(vals))], schema=s))
else:
    copies = 0
    for src in sorted(glob.glob(f'{d}/*.src')):
        want = read(src)
        for copy in sorted(glob.glob(src + '.*')):
            got = read(copy)
            got.validate(full=True)
            assert got.schema.equals(want.schema, check_metadata=True), (copy, got.schema)
            assert got.to_pylist() == want.to_pylist(), copy
            copies += 1
    assert copies == 13, copies
    print('pyarrow interop ok:', copies, 'copies')
)PY",
             f);
  std::fclose(f);
  ASSERT_EQ(std::system((python + " " + script + " write " + dir).c_str()), 0);
  int sources = 0;
  for (const char* name : {"file_None", "file_lz4", "file_zstd", "stream_None", "stream_lz4",
                           "stream_zstd", "deltas"}) {
    std::string src = dir + "/" + name + ".src";
    for (bool file : {true, false}) {
      if (file && std::string(name) == "deltas") continue;  // replaced dictionaries: streams only
      auto reader = Unwrap(OpenIpcReader(src));
      auto out = Unwrap(FileOutputStream::Open(src + (file ? ".file" : ".stream")));
      IpcWriteOptions options;
      options.codec = compression::Codec::kZstd;
      options.emit_dictionary_deltas = true;
      auto writer =
          Unwrap(file ? IpcWriter::MakeFileWriter(out.get(), reader->schema(), options)
                      : IpcWriter::MakeStreamWriter(out.get(), reader->schema(), options));
      while (true) {
        RecordBatchRef b;
        ASSERT_OK(reader->ReadNext(&b));
        if (b == nullptr) break;
        ASSERT_OK(writer->WriteRecordBatch(*b));
      }
      ASSERT_OK(writer->Close());
      ASSERT_OK(out->Close());
    }
    ++sources;
  }
  EXPECT_EQ(sources, 7);
  EXPECT_EQ(std::system((python + " " + script + " compare " + dir).c_str()), 0);
}

}  // namespace
}  // namespace quiver::ipc

namespace quiver::ipc {
namespace {

TEST(IpcSniff, FileAndStreamMagic) {
  auto batch = AllTypesBatch();
  auto bytes = [](const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); };
  const std::string file = WriteBatches({batch}, true);
  const std::string stream = WriteBatches({batch}, false);
  EXPECT_TRUE(LooksLikeIpcFile(bytes(file), static_cast<int64_t>(file.size())));
  EXPECT_FALSE(LooksLikeIpcStream(bytes(file), static_cast<int64_t>(file.size())));
  EXPECT_TRUE(LooksLikeIpcStream(bytes(stream), static_cast<int64_t>(stream.size())));
  EXPECT_FALSE(LooksLikeIpcFile(bytes(stream), static_cast<int64_t>(stream.size())));
  // Legacy (pre-0.15) framing: drop the continuation word.
  const std::string legacy = stream.substr(4);
  EXPECT_TRUE(LooksLikeIpcStream(bytes(legacy), static_cast<int64_t>(legacy.size())));
  for (std::string other : {std::string("PAR1\x15\x04\x15\x10", 8), std::string("a,b,c\n1,2,3\n"),
                            std::string("ARROW")}) {
    EXPECT_FALSE(LooksLikeIpcFile(bytes(other), static_cast<int64_t>(other.size()))) << other;
    EXPECT_FALSE(LooksLikeIpcStream(bytes(other), static_cast<int64_t>(other.size()))) << other;
  }
}

}  // namespace
}  // namespace quiver::ipc
