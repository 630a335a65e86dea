// The server's hand-written FlightData wire format, LIKE patterns of the
// metadata commands, and passwords and tokens.
#include "server/flight_data.h"

#include <gtest/gtest.h>

#include "columnar/builder.h"
#include "server/auth.h"
#include "server/like.h"
#include "util/status_util.h"

namespace quiver::server {
namespace {

using ::quiver::testing::Unwrap;

std::shared_ptr<Buffer> Join(const std::vector<WirePiece>& pieces) {
  std::string bytes;
  for (const auto& p : pieces) bytes += p.buffer ? std::string(p.buffer->view()) : p.bytes;
  return Unwrap(Buffer::CopyFrom(bytes));
}

TEST(FlightData, EncodesWhatTheParserReadsBack) {
  Int64Builder big(int64());
  for (int i = 0; i < 10000; ++i) ASSERT_OK(big.Append(i));
  StringBuilder small(utf8());
  ASSERT_OK(small.Append("a"));
  ASSERT_OK(small.AppendNull());
  auto s = schema({field("big", int64()), field("small", utf8())});
  ArrayRef bigs = Unwrap(big.Finish());
  ArrayRef smalls = Unwrap(small.Finish());
  auto batch = RecordBatch::Make(s, 2, {bigs->Slice(0, 2), smalls});
  auto whole = RecordBatch::Make(schema({field("big", int64())}), 10000, {bigs});
  for (const auto& b : {batch, whole}) {
    ipc::MessageEncoder encoder(b->schema());
    std::vector<ipc::EncodedMessage> messages;
    ASSERT_OK(encoder.EncodeBatch(*b, &messages));
    const ipc::EncodedMessage& m = messages.back();
    std::vector<WirePiece> pieces;
    const int64_t size = EncodeFlightData(m, "meta", &pieces);
    auto wire = Join(pieces);
    EXPECT_EQ(wire->size(), size);
    FlightDataView view = Unwrap(ParseFlightData(wire));
    EXPECT_FALSE(view.has_descriptor);
    EXPECT_EQ(view.app_metadata, "meta");
    ASSERT_NE(view.header, nullptr);
    EXPECT_EQ(view.header->view(), m.metadata->view());
    ASSERT_NE(view.body, nullptr);
    EXPECT_EQ(view.body->size(), m.body_length);
    ipc::MessageDecoder decoder;
    RecordBatchRef out;
    ASSERT_OK(decoder.Consume(encoder.EncodeSchema().metadata, nullptr, &out));
    ASSERT_OK(decoder.Consume(view.header, view.body, &out));
    ASSERT_NE(out, nullptr);
    EXPECT_TRUE(out->Equals(*b));
  }
}

TEST(FlightData, LargeBuffersTravelAsTheirOwnPieces) {
  Int64Builder big(int64());
  for (int i = 0; i < 100000; ++i) ASSERT_OK(big.Append(i));
  ArrayRef col = Unwrap(big.Finish());
  auto batch = RecordBatch::Make(schema({field("x", int64())}), col->length, {col});
  ipc::MessageEncoder encoder(batch->schema());
  std::vector<ipc::EncodedMessage> messages;
  ASSERT_OK(encoder.EncodeBatch(*batch, &messages));
  std::vector<WirePiece> pieces;
  EncodeFlightData(messages.back(), {}, &pieces);
  int shared = 0;
  for (const auto& p : pieces)
    shared += p.buffer != nullptr && p.buffer->data() == col->buffers[1]->data();
  EXPECT_EQ(shared, 1);
}

TEST(FlightData, HostileBytesGetErrors) {
  auto parse = [](const std::string& bytes) {
    return ParseFlightData(Unwrap(Buffer::CopyFrom(bytes))).status();
  };
  EXPECT_TRUE(parse("").ok());
  EXPECT_FALSE(parse("\x12").ok());  // length missing
  EXPECT_FALSE(parse(std::string("\x12\x05"
                                 "abc"))
                   .ok());           // length past the end
  EXPECT_FALSE(parse("\x13").ok());  // wire type 3 (group)
  EXPECT_FALSE(parse(std::string("\x12\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12)).ok());
  EXPECT_TRUE(parse(std::string("\x08\x96\x01", 3)).ok());   // unknown varint field: skipped
  EXPECT_FALSE(parse(std::string("\x09\x01\x02", 3)).ok());  // truncated fixed64
}

TEST(FlightLike, PercentUnderscoreAndEscapes) {
  EXPECT_TRUE(LikeMatch("%", ""));
  EXPECT_TRUE(LikeMatch("read%", "readings"));
  EXPECT_TRUE(LikeMatch("r_adings", "readings"));
  EXPECT_FALSE(LikeMatch("r_adings", "radings"));
  EXPECT_TRUE(LikeMatch("%ing%", "readings"));
  EXPECT_TRUE(LikeMatch("a\\_b", "a_b"));
  EXPECT_FALSE(LikeMatch("a\\_b", "axb"));
  EXPECT_TRUE(LikeMatch("100\\%", "100%"));
  EXPECT_FALSE(LikeMatch("100\\%", "1000"));
  EXPECT_FALSE(LikeMatch("Readings", "readings"));
  EXPECT_TRUE(LikeMatch("%a%b%c", "xxaxxbxxc"));
  EXPECT_FALSE(LikeMatch("%a%b%c", "xxaxxcxxb"));
}

TEST(FlightAuth, PasswordsAreHashedAndChecked) {
  const std::string hash = Unwrap(HashPassword("correct horse"));
  EXPECT_EQ(hash.rfind("$argon2id$", 0), 0u);
  EXPECT_EQ(hash.find("correct horse"), std::string::npos);
  EXPECT_TRUE(VerifyPassword(hash, "correct horse"));
  EXPECT_FALSE(VerifyPassword(hash, "correct horsE"));
  EXPECT_FALSE(VerifyPassword("not a hash", "x"));
  EXPECT_NE(Unwrap(HashPassword("correct horse")), hash);  // salted
}

TEST(FlightAuth, BasicLoginGivesTokensThatAuthenticate) {
  Authenticator auth({{"alice", Unwrap(HashPassword("pw"))}}, std::chrono::seconds(60));
  EXPECT_FALSE(auth.Authenticate("").ok());
  EXPECT_FALSE(auth.Authenticate("Basic " + Base64Encode("alice:nope")).ok());
  EXPECT_FALSE(auth.Authenticate("Basic " + Base64Encode("bob:pw")).ok());
  EXPECT_FALSE(auth.Authenticate("Basic !!!").ok());
  EXPECT_FALSE(auth.Authenticate("Digest abc").ok());
  auto id = Unwrap(auth.Authenticate("Basic " + Base64Encode("alice:pw")));
  EXPECT_EQ(id.user, "alice");
  EXPECT_FALSE(id.token.empty());
  auto again = Unwrap(auth.Authenticate("Bearer " + id.token));
  EXPECT_EQ(again.user, "alice");
  EXPECT_EQ(again.session, id.session);
  auth.RevokeSession(id.session);
  EXPECT_FALSE(auth.Authenticate("Bearer " + id.token).ok());
}

TEST(FlightAuth, Base64BothPaddings) {
  for (std::string s : {"", "a", "ab", "abc", "abcd", "alice:pw"}) {
    const std::string padded = Base64Encode(s);
    EXPECT_EQ(Base64Decode(padded), s);
    std::string unpadded = padded;
    while (!unpadded.empty() && unpadded.back() == '=') unpadded.pop_back();
    EXPECT_EQ(Base64Decode(unpadded), s);  // Go's client sends RawStdEncoding
  }
  EXPECT_FALSE(Base64Decode("a").has_value());
  EXPECT_FALSE(Base64Decode("ab$d").has_value());
}

}  // namespace
}  // namespace quiver::server
