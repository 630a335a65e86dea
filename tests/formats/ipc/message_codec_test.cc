// MessageEncoder / MessageDecoder: IPC messages without stream framing, as
// Arrow Flight carries them. Round trips through the decoder, the schema
// helpers, and the errors hostile messages get.
#include "formats/ipc/message_codec.h"

#include <gtest/gtest.h>

#include "columnar/builder.h"
#include "formats/ipc/reader.h"
#include "util/status_util.h"

namespace quiver::ipc {
namespace {

using ::quiver::testing::Unwrap;

RecordBatchRef MakeBatch(int64_t first, int64_t n) {
  Int64Builder ints(int64());
  StringBuilder strings(utf8());
  Int8Builder codes(int8());
  for (int64_t i = first; i < first + n; ++i) {
    EXPECT_TRUE((i % 5 == 0 ? ints.AppendNull() : ints.Append(i * 3)).ok());
    EXPECT_TRUE(strings.Append("row " + std::to_string(i)).ok());
    EXPECT_TRUE(codes.Append(static_cast<int8_t>(i % 3)).ok());
  }
  StringBuilder dict(utf8());
  for (const char* s : {"red", "green", "blue"}) EXPECT_TRUE(dict.Append(s).ok());
  ArrayRef indices = Unwrap(codes.Finish());
  const TypeRef dict_type = dictionary(int8(), utf8());
  ArrayRef colors =
      ArrayData::Make(dict_type, n, indices->buffers, 0, 0, {}, Unwrap(dict.Finish()));
  auto s = schema({field("i", int64()), field("s", utf8()), field("c", dict_type)});
  return RecordBatch::Make(s, n, {Unwrap(ints.Finish()), Unwrap(strings.Finish()), colors});
}

// The body as one contiguous buffer, the way a transport delivers it.
std::shared_ptr<Buffer> Flatten(const EncodedMessage& m) {
  std::string bytes;
  for (size_t i = 0; i < m.body.size(); ++i) {
    if (m.body[i]) bytes.append(m.body[i]->view());
    bytes.append(static_cast<size_t>(m.padding_after(i)), '\0');
  }
  EXPECT_EQ(static_cast<int64_t>(bytes.size()), m.body_length);
  return Unwrap(Buffer::CopyFrom(bytes));
}

TEST(IpcMessageCodec, RoundTripsSlicedBatchesAndDictionaries) {
  RecordBatchRef batch = MakeBatch(0, 100);
  MessageEncoder encoder(batch->schema());
  MessageDecoder decoder;
  RecordBatchRef out;
  EncodedMessage schema_message = encoder.EncodeSchema();
  EXPECT_EQ(schema_message.body_length, 0);
  ASSERT_OK(decoder.Consume(schema_message.metadata, nullptr, &out));
  EXPECT_EQ(out, nullptr);
  ASSERT_TRUE(decoder.schema()->Equals(*batch->schema()));
  for (int64_t offset : {0, 7, 50}) {
    RecordBatchRef slice = batch->Slice(offset, 33);
    std::vector<EncodedMessage> messages;
    ASSERT_OK(encoder.EncodeBatch(*slice, &messages));
    // The dictionary goes once, before the first batch.
    ASSERT_EQ(messages.size(), offset == 0 ? 2u : 1u);
    for (const auto& m : messages) {
      ASSERT_OK(decoder.Consume(m.metadata, Flatten(m), &out));
    }
    ASSERT_NE(out, nullptr);
    EXPECT_TRUE(out->Equals(*slice)) << "offset " << offset;
  }
}

TEST(IpcMessageCodec, BodyBuffersAreTheBatchsOwn) {
  RecordBatchRef batch = MakeBatch(0, 1000);
  MessageEncoder encoder(batch->schema());
  std::vector<EncodedMessage> messages;
  ASSERT_OK(encoder.EncodeBatch(*batch, &messages));
  const EncodedMessage& m = messages.back();
  ASSERT_EQ(m.kind, EncodedMessage::kRecordBatch);
  // Int64 values: the column's buffer itself, not a copy.
  bool found = false;
  for (const auto& b : m.body) {
    if (b && b->data() == batch->column(0)->buffers[1]->data()) found = true;
  }
  EXPECT_TRUE(found);
}

TEST(IpcMessageCodec, SchemaSerializationRoundTrips) {
  auto s = schema({field("a", int32(), false), field("b", list(utf8()))}, {{"k", "v"}});
  const std::string bytes = SerializeSchema(*s);
  EXPECT_EQ(bytes.size() % 8, 0u);
  SchemaRef back = Unwrap(DeserializeSchema(bytes));
  EXPECT_TRUE(back->Equals(*s, true));
  // pyarrow's reader reads the same bytes as a stream with no batches.
  auto reader = Unwrap(IpcStreamReader::Open(Unwrap(Buffer::CopyFrom(bytes))));
  EXPECT_TRUE(reader->schema()->Equals(*s));
}

TEST(IpcMessageCodec, HostileMessagesAreRefused) {
  RecordBatchRef batch = MakeBatch(0, 10);
  MessageEncoder encoder(batch->schema());
  std::vector<EncodedMessage> messages;
  ASSERT_OK(encoder.EncodeBatch(*batch, &messages));
  RecordBatchRef out;
  {
    MessageDecoder decoder;  // no schema yet
    Status st = decoder.Consume(messages.back().metadata, Flatten(messages.back()), &out);
    EXPECT_TRUE(st.IsInvalid()) << st.ToString();
  }
  MessageDecoder decoder;
  ASSERT_OK(decoder.Consume(encoder.EncodeSchema().metadata, nullptr, &out));
  // A body shorter than the message says.
  auto body = Flatten(messages.back());
  Status st = decoder.Consume(messages.back().metadata, body->Slice(0, body->size() / 2), &out);
  EXPECT_TRUE(st.IsInvalid()) << st.ToString();
  // Metadata that is not a flatbuffer.
  auto junk = Unwrap(Buffer::CopyFrom(std::string(64, '\x7f')));
  EXPECT_FALSE(decoder.Consume(junk, nullptr, &out).ok());
  EXPECT_FALSE(decoder.Consume(nullptr, nullptr, &out).ok());
  EXPECT_FALSE(DeserializeSchema("").ok());
  EXPECT_FALSE(DeserializeSchema(std::string("\xff\xff\xff\xff\x10\x00\x00\x00", 8)).ok());
}

}  // namespace
}  // namespace quiver::ipc
