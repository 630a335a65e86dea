// Compressed IPC output is the same bytes whether the writer compresses on
// the calling thread (use_threads = false) or on pools of any size, for files
// and streams, LZ4 and ZSTD, with dictionaries (deltas and replacements),
// sliced, empty and incompressible batches; and it reads back.
#include <atomic>
#include <cstdint>
#include <future>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/builder.h"
#include "common/io.h"
#include "common/thread_pool.h"
#include "formats/ipc/reader.h"
#include "formats/ipc/writer.h"
#include "util/status_util.h"

namespace quiver::ipc {
namespace {

using ::quiver::testing::Unwrap;

uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

SchemaRef TestSchema() {
  return schema({field("seq", int64()), field("noise", int64()), field("maybe", int32()),
                 field("text", utf8()), field("dict", dictionary(int16(), utf8()))});
}

// A dictionary of `n` words; a longer one extends a shorter one (a delta),
// unless `replaced`.
ArrayRef Words(int n, bool replaced) {
  StringBuilder b(utf8());
  for (int i = 0; i < n; ++i) {
    EXPECT_TRUE(b.Append((replaced ? "other" : "word") + std::to_string(i)).ok());
  }
  return Unwrap(b.Finish());
}

// Batch k: compressible, incompressible (stored raw, length -1) and nullable
// columns, strings, and a dictionary that grows every 8 batches (and is
// replaced from batch 30 on when `with_replacement`).
RecordBatchRef MakeBatch(int k, bool with_replacement) {
  const int64_t rows = k == 5 ? 0 : 2000 + 37 * k;
  NumericBuilder<int64_t> seq(int64()), noise(int64());
  NumericBuilder<int32_t> maybe(int32());
  StringBuilder text(utf8());
  std::vector<int16_t> indices;
  const int dict_size = 4 + 3 * (k / 8);
  for (int64_t i = 0; i < rows; ++i) {
    EXPECT_TRUE(seq.Append(k * 100000 + i).ok());
    EXPECT_TRUE(noise.Append(static_cast<int64_t>(SplitMix(k * 1000003 + i))).ok());
    EXPECT_TRUE(
        (i % 7 == 3 ? maybe.AppendNull() : maybe.Append(static_cast<int32_t>(i % 50))).ok());
    EXPECT_TRUE(text.Append("row " + std::to_string(i % 300)).ok());
    indices.push_back(static_cast<int16_t>((i * 5 + k) % dict_size));
  }
  auto dict_type = dictionary(int16(), utf8());
  auto index_buffer = Unwrap(Buffer::CopyFrom(std::string_view(
      reinterpret_cast<const char*>(indices.data()), indices.size() * sizeof(int16_t))));
  auto dict = ArrayData::Make(dict_type, rows, {nullptr, index_buffer}, 0, 0, {},
                              Words(dict_size, with_replacement && k >= 30));
  auto batch = RecordBatch::Make(TestSchema(), rows,
                                 {Unwrap(seq.Finish()), Unwrap(noise.Finish()),
                                  Unwrap(maybe.Finish()), Unwrap(text.Finish()), dict});
  // Odd slices shift bitmaps and re-base offsets.
  if (k % 4 == 1 && rows > 10) return batch->Slice(3, rows - 10);
  return batch;
}

// 40 batches: more than the writer keeps pending, so the window fills.
std::vector<RecordBatchRef> MakeBatches(bool with_replacement) {
  std::vector<RecordBatchRef> out;
  for (int k = 0; k < 40; ++k) out.push_back(MakeBatch(k, with_replacement));
  return out;
}

std::string Write(const std::vector<RecordBatchRef>& batches, bool file,
                  const IpcWriteOptions& options) {
  BufferOutputStream out;
  auto writer = Unwrap(file ? IpcWriter::MakeFileWriter(&out, TestSchema(), options)
                            : IpcWriter::MakeStreamWriter(&out, TestSchema(), options));
  for (const auto& b : batches) EXPECT_TRUE(writer->WriteRecordBatch(*b).ok());
  EXPECT_TRUE(writer->Close().ok());
  EXPECT_EQ(writer->num_record_batches_written(), static_cast<int64_t>(batches.size()));
  // The first dictionary, deltas at batches 8, 16, 24, 32, in streams a
  // replacement at 30.
  EXPECT_EQ(writer->num_dictionary_batches_written(), file ? 5 : 6);
  EXPECT_EQ(writer->bytes_written(), static_cast<int64_t>(out.contents().size()));
  return out.Take();
}

void ExpectReadsBack(const std::string& bytes, const std::vector<RecordBatchRef>& batches) {
  auto reader = Unwrap(OpenIpcReader(Unwrap(Buffer::CopyFrom(bytes))));
  for (const auto& expected : batches) {
    RecordBatchRef got;
    ASSERT_OK(reader->ReadNext(&got));
    ASSERT_NE(got, nullptr);
    ASSERT_EQ(got->num_rows(), expected->num_rows());
    for (int c = 0; c < 4; ++c) {
      EXPECT_TRUE(ArrayEquals(*expected->column(c), *got->column(c))) << "column " << c;
    }
    // Dictionaries compare by value: a file holds the final one up front.
    const ArrayData& e = *expected->column(4);
    const ArrayData& g = *got->column(4);
    for (int64_t r = 0; r < e.length; ++r) {
      ASSERT_EQ(e.dictionary->GetString(e.GetValues<int16_t>(1)[r]),
                g.dictionary->GetString(g.GetValues<int16_t>(1)[r]));
    }
  }
  RecordBatchRef end;
  ASSERT_OK(reader->ReadNext(&end));
  EXPECT_EQ(end, nullptr);
}

struct Case {
  bool file;
  compression::Codec codec;
};

class IpcParallelWrite : public ::testing::TestWithParam<Case> {};

TEST_P(IpcParallelWrite, SameBytesWhateverTheThreads) {
  const bool file = GetParam().file;
  // Files cannot replace dictionaries; streams get both deltas and a replacement.
  const auto batches = MakeBatches(/*with_replacement=*/!file);
  IpcWriteOptions serial;
  serial.codec = GetParam().codec;
  serial.emit_dictionary_deltas = true;
  serial.use_threads = false;
  const std::string expected = Write(batches, file, serial);
  ExpectReadsBack(expected, batches);

  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    IpcWriteOptions parallel = serial;
    parallel.use_threads = true;
    parallel.thread_pool = &pool;
    const std::string got = Write(batches, file, parallel);
    EXPECT_TRUE(got == expected) << threads << " threads: " << got.size() << " bytes vs "
                                 << expected.size();
  }
  IpcWriteOptions global = serial;  // GlobalThreadPool()
  global.use_threads = true;
  EXPECT_TRUE(Write(batches, file, global) == expected);
}

// The writer may itself run on a pool task, even of a one-thread pool that
// it compresses on: it never waits for a task that has not started.
TEST_P(IpcParallelWrite, FromATaskOfItsOwnPool) {
  const auto batches = MakeBatches(!GetParam().file);
  IpcWriteOptions options;
  options.codec = GetParam().codec;
  options.use_threads = false;
  const std::string expected = Write(batches, GetParam().file, options);
  ThreadPool pool(1);
  options.use_threads = true;
  options.thread_pool = &pool;
  std::promise<std::string> result;
  pool.Submit([&] { result.set_value(Write(batches, GetParam().file, options)); });
  EXPECT_TRUE(result.get_future().get() == expected);
}

INSTANTIATE_TEST_SUITE_P(Formats, IpcParallelWrite,
                         ::testing::Values(Case{true, compression::Codec::kLz4Frame},
                                           Case{true, compression::Codec::kZstd},
                                           Case{false, compression::Codec::kLz4Frame},
                                           Case{false, compression::Codec::kZstd}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.file ? "File" : "Stream") +
                                  compression::CodecName(info.param.codec);
                         });

// Fails every write after the first `budget` bytes.
class FailingSink final : public OutputStream {
 public:
  explicit FailingSink(int64_t budget) : budget_(budget) {}
  Status Write(const void*, int64_t size) override {
    if (position_ + size > budget_) return Status::IOError("disk full");
    position_ += size;
    return Status::OK();
  }
  int64_t Tell() const override { return position_; }
  Status Flush() override { return Status::OK(); }

 private:
  int64_t budget_;
  int64_t position_ = 0;
};

TEST(IpcParallelWriteErrors, SinkFailureSticksAndPendingWorkIsDropped) {
  ThreadPool pool(2);
  IpcWriteOptions options;
  options.codec = compression::Codec::kZstd;
  options.thread_pool = &pool;
  const auto batches = MakeBatches(false);
  FailingSink sink(4096);
  auto writer = Unwrap(IpcWriter::MakeFileWriter(&sink, TestSchema(), options));
  Status first;
  for (const auto& b : batches) {
    first = writer->WriteRecordBatch(*b);
    if (!first.ok()) break;
  }
  if (first.ok()) first = writer->Close();  // the failure may surface only here
  EXPECT_EQ(first.code(), StatusCode::kIOError) << first.ToString();
  EXPECT_FALSE(writer->WriteRecordBatch(*batches[0]).ok());
  EXPECT_FALSE(writer->Close().ok());
}

TEST(IpcParallelWriteErrors, DestroyedWithoutClose) {
  ThreadPool pool(2);
  IpcWriteOptions options;
  options.codec = compression::Codec::kLz4Frame;
  options.thread_pool = &pool;
  BufferOutputStream out;
  {
    auto writer = Unwrap(IpcWriter::MakeStreamWriter(&out, TestSchema(), options));
    for (int k = 0; k < 12; ++k) ASSERT_OK(writer->WriteRecordBatch(*MakeBatch(k, false)));
  }  // pending compression is cancelled before the bodies go away
  SUCCEED();
}

}  // namespace
}  // namespace quiver::ipc
