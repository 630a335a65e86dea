// Unit tests of the Parquet building blocks: the Thrift compact protocol,
// the RLE/bit-packing hybrid, the DELTA and BYTE_STREAM_SPLIT encodings and
// the page codecs. Encoders and decoders are checked against each other on
// random data and against hand-written bytes from the specifications.
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "formats/compression/codec.h"
#include "formats/parquet/delta_encoding.h"
#include "formats/parquet/metadata.h"
#include "formats/parquet/plain_encoding.h"
#include "formats/parquet/rle_encoding.h"
#include "formats/parquet/thrift_internal.h"

namespace quiver::parquet {
namespace {

const uint8_t* U8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

TEST(ParquetThrift, RoundTripsFieldsAndSkipsUnknownOnes) {
  std::string bytes;
  thrift::Encoder e(&bytes);
  e.StructBegin();
  e.FieldI32(1, -5);
  e.FieldI64(2, int64_t{1} << 40);
  e.FieldBinary(3, "hello");
  e.FieldBool(20, true);  // a jump > 15 uses the long form
  e.FieldListBegin(21, thrift::CType::kI32, 20);
  for (int i = 0; i < 20; ++i) e.WriteI32(i - 10);
  e.FieldStructBegin(22);
  e.FieldI16(1, 7);
  e.StructEnd();
  e.StructEnd();

  thrift::Decoder d(U8(bytes), static_cast<int64_t>(bytes.size()));
  ASSERT_TRUE(d.StructBegin().ok());
  thrift::CType t;
  int16_t id;
  int32_t i32;
  int64_t i64;
  std::string s;
  ASSERT_TRUE(d.ReadFieldBegin(&t, &id).ok());
  EXPECT_EQ(id, 1);
  ASSERT_TRUE(d.ReadI32(&i32).ok());
  EXPECT_EQ(i32, -5);
  ASSERT_TRUE(d.ReadFieldBegin(&t, &id).ok());
  ASSERT_TRUE(d.ReadI64(&i64).ok());
  EXPECT_EQ(i64, int64_t{1} << 40);
  ASSERT_TRUE(d.ReadFieldBegin(&t, &id).ok());
  ASSERT_TRUE(d.ReadBinary(&s).ok());
  EXPECT_EQ(s, "hello");
  ASSERT_TRUE(d.ReadFieldBegin(&t, &id).ok());
  EXPECT_EQ(id, 20);
  bool b = false;
  ASSERT_TRUE(d.ReadBool(t, &b).ok());
  EXPECT_TRUE(b);
  // Skip the list and the struct as if they were unknown.
  for (int k = 0; k < 2; ++k) {
    ASSERT_TRUE(d.ReadFieldBegin(&t, &id).ok());
    ASSERT_TRUE(d.Skip(t).ok());
  }
  ASSERT_TRUE(d.ReadFieldBegin(&t, &id).ok());
  EXPECT_EQ(t, thrift::CType::kStop);
  EXPECT_EQ(d.remaining(), 0);
}

TEST(ParquetThrift, RejectsHostileBytes) {
  // A list claiming more elements than bytes remain.
  const uint8_t long_list[] = {0xf5, 0xff, 0xff, 0xff, 0x7f};
  thrift::Decoder d1(long_list, sizeof(long_list));
  thrift::CType t;
  int32_t n;
  EXPECT_FALSE(d1.ReadListBegin(&t, &n).ok());
  // Deeply nested structs.
  std::string deep(200, '\x0c');  // field delta 0, type struct... nested forever
  for (size_t i = 0; i < deep.size(); ++i) deep[i] = static_cast<char>(0x1c);  // id+1, struct
  thrift::Decoder d2(U8(deep), static_cast<int64_t>(deep.size()));
  EXPECT_FALSE(d2.Skip(thrift::CType::kStruct).ok());
  // Truncated varint.
  const uint8_t varint[] = {0x80, 0x80};
  thrift::Decoder d3(varint, sizeof(varint));
  int64_t v;
  EXPECT_FALSE(d3.ReadI64(&v).ok());
}

TEST(ParquetThrift, PageHeaderRoundTrip) {
  PageHeader h;
  h.type = PageType::kDataPageV2;
  h.uncompressed_page_size = 1234;
  h.compressed_page_size = 567;
  h.crc = -42;
  DataPageHeaderV2 v2;
  v2.num_values = 100;
  v2.num_nulls = 3;
  v2.num_rows = 90;
  v2.encoding = Encoding::kRleDictionary;
  v2.definition_levels_byte_length = 12;
  v2.repetition_levels_byte_length = 8;
  v2.is_compressed = false;
  Statistics s;
  s.min_value = std::string("\x01\x02", 2);
  s.null_count = 3;
  v2.statistics = s;
  h.data_page_header_v2 = v2;
  std::string bytes;
  EncodePageHeader(h, &bytes);
  bytes += "trailing page body";
  PageHeader back;
  int64_t size = 0;
  ASSERT_TRUE(DecodePageHeader(U8(bytes), static_cast<int64_t>(bytes.size()), &back, &size).ok());
  EXPECT_EQ(size, static_cast<int64_t>(bytes.size() - 18));
  EXPECT_EQ(back.type, PageType::kDataPageV2);
  EXPECT_EQ(*back.crc, -42);
  ASSERT_TRUE(back.data_page_header_v2.has_value());
  EXPECT_EQ(back.data_page_header_v2->num_rows, 90);
  EXPECT_FALSE(back.data_page_header_v2->is_compressed);
  EXPECT_EQ(*back.data_page_header_v2->statistics->min_value, std::string("\x01\x02", 2));
  // Every truncation is an error, never a crash.
  for (size_t cut = 0; cut + 18 < bytes.size(); ++cut) {
    EXPECT_FALSE(DecodePageHeader(U8(bytes), static_cast<int64_t>(cut), &back, &size).ok());
  }
}

TEST(ParquetRle, RoundTripsEveryBitWidth) {
  std::mt19937 rng(7);
  for (int bw = 0; bw <= 20; ++bw) {
    std::vector<int32_t> values;
    const uint32_t max = bw == 0 ? 0 : (bw >= 31 ? 0x7fffffff : (1u << bw) - 1);
    while (values.size() < 3000) {
      const int32_t v = static_cast<int32_t>(max == 0 ? 0 : rng() % (max + 1));
      const int run = rng() % 5 == 0 ? 1 + rng() % 40 : 1;  // some long repeats
      values.insert(values.end(), run, v);
    }
    std::string encoded;
    RleBitPackedEncode(values.data(), static_cast<int64_t>(values.size()), bw, &encoded);
    RleBitPackedDecoder dec(U8(encoded), static_cast<int64_t>(encoded.size()), bw);
    std::vector<int32_t> back(values.size());
    auto got = dec.GetBatch(back.data(), static_cast<int64_t>(back.size()));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, static_cast<int64_t>(values.size()));
    EXPECT_EQ(back, values) << "bit width " << bw;
  }
}

TEST(ParquetRle, DecodesSpecExample) {
  // Bit-packing of 0..7 with width 3 (Encodings.md): 10001000 11000110 11111010.
  const uint8_t bits[] = {0x03, 0x88, 0xc6, 0xfa};  // header: 1 group, bit-packed
  RleBitPackedDecoder dec(bits, sizeof(bits), 3);
  int32_t out[8];
  ASSERT_EQ(*dec.GetBatch(out, 8), 8);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], i);
  // Legacy BIT_PACKED (MSB first) of the same values: 00000101 00111001 01110111.
  const uint8_t msb[] = {0x05, 0x39, 0x77};
  int16_t levels[8];
  UnpackBitsMsbFirst(msb, 3, levels, 8);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(levels[i], i);
}

TEST(ParquetRle, DictionaryIndicesAreBounded) {
  std::vector<int32_t> idx = {0, 1, 2, 9, 1};
  std::string encoded;
  RleBitPackedEncode(idx.data(), 5, 4, &encoded);
  RleBitPackedDecoder dec(U8(encoded), static_cast<int64_t>(encoded.size()), 4);
  std::vector<int32_t> out(5);
  EXPECT_FALSE(dec.GetIndices(out.data(), 5, 5).ok());
}

TEST(ParquetDelta, BinaryPackedRoundTripsExtremes) {
  std::mt19937_64 rng(3);
  std::vector<int64_t> values = {INT64_MIN, INT64_MAX, 0, -1, 1, INT64_MAX, INT64_MIN};
  for (int i = 0; i < 1000; ++i) values.push_back(static_cast<int64_t>(rng()) >> (rng() % 64));
  for (bool is32 : {false, true}) {
    std::vector<int64_t> in = values;
    if (is32) {
      for (auto& v : in) v = static_cast<int32_t>(v);
    }
    for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{129}, in.size()}) {
      std::string enc;
      EncodeDeltaBinaryPacked(in.data(), static_cast<int64_t>(n), is32, &enc);
      enc += "after";
      DeltaBinaryPackedDecoder dec;
      ASSERT_TRUE(dec.Init(U8(enc), static_cast<int64_t>(enc.size())).ok());
      ASSERT_EQ(dec.total_values(), static_cast<int64_t>(n));
      if (is32) {
        std::vector<int32_t> out(n);
        ASSERT_TRUE(dec.Decode(out.data(), static_cast<int64_t>(n)).ok());
        for (size_t i = 0; i < n; ++i) EXPECT_EQ(out[i], in[i]);
      } else {
        std::vector<int64_t> out(n);
        ASSERT_TRUE(dec.Decode(out.data(), static_cast<int64_t>(n)).ok());
        for (size_t i = 0; i < n; ++i) EXPECT_EQ(out[i], in[i]);
      }
      EXPECT_EQ(enc.substr(static_cast<size_t>(dec.bytes_consumed())), "after");
    }
  }
}

TEST(ParquetDelta, ByteArraysRoundTrip) {
  std::vector<std::string> strs = {"", "apple", "applesauce",          "apply", "banana",
                                   "", "band",  std::string(300, 'z'), "zebra"};
  std::string data;
  std::vector<int32_t> offsets = {0};
  for (const auto& s : strs) {
    data += s;
    offsets.push_back(static_cast<int32_t>(data.size()));
  }
  const int64_t n = static_cast<int64_t>(strs.size());
  for (int which = 0; which < 3; ++which) {
    std::string enc;
    if (which == 0) EncodePlainByteArray(U8(data), offsets.data(), n, &enc);
    if (which == 1) EncodeDeltaLengthByteArray(U8(data), offsets.data(), n, &enc);
    if (which == 2) EncodeDeltaByteArray(U8(data), offsets.data(), n, &enc);
    DecodeBudget budget(1 << 20);
    ByteArrayBuilder out(DefaultMemoryPool(), &budget, "test");
    int64_t consumed = 0;
    Status st = which == 0 ? DecodePlainByteArray(U8(enc), static_cast<int64_t>(enc.size()), n,
                                                  &out, &consumed)
                : which == 1
                    ? DecodeDeltaLengthByteArray(U8(enc), static_cast<int64_t>(enc.size()), n, &out)
                    : DecodeDeltaByteArray(U8(enc), static_cast<int64_t>(enc.size()), n, &out);
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_EQ(out.length(), n);
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(out.value(i), strs[i]) << which;
  }
}

TEST(ParquetPlain, ByteArrayValueCannotTakeTheOtherValuesLengths) {
  // Found by parquet_fuzz: 3 values in 16 bytes, the first claiming 10 of
  // the 12 bytes after its length. The data fits the page but leaves no room
  // for the other values' lengths; it must be rejected, not written past the
  // 16 - 4 * 3 = 4 data bytes reserved.
  std::string enc(16, 'x');
  const uint32_t len = 10;
  std::memcpy(enc.data(), &len, 4);
  DecodeBudget budget(1 << 20);
  ByteArrayBuilder out(DefaultMemoryPool(), &budget, "test");
  int64_t consumed = 0;
  Status st = DecodePlainByteArray(U8(enc), static_cast<int64_t>(enc.size()), 3, &out, &consumed);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("claims 10 bytes"), std::string::npos) << st.ToString();
}

TEST(ParquetDelta, PrefixBlowUpIsBounded) {
  // DELTA_BYTE_ARRAY: a long first value repeated through prefixes. The
  // budget stops it long before it could exhaust memory.
  const int64_t n = 100000;
  std::vector<int64_t> prefix(n, 5000), suffix(n, 0);
  prefix[0] = 0;
  suffix[0] = 5000;
  std::string enc;
  EncodeDeltaBinaryPacked(prefix.data(), n, true, &enc);
  EncodeDeltaBinaryPacked(suffix.data(), n, true, &enc);
  enc += std::string(5000, 'x');
  DecodeBudget budget(64 << 20);
  ByteArrayBuilder out(DefaultMemoryPool(), &budget, "test");
  Status st = DecodeDeltaByteArray(U8(enc), static_cast<int64_t>(enc.size()), n, &out);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("decoding needs more than"), std::string::npos) << st.ToString();
}

TEST(ParquetPlain, ByteStreamSplitRoundTrip) {
  std::vector<double> v = {1.5, -2.25, 1e300, 0.0, -0.0};
  std::string enc;
  EncodeByteStreamSplit(reinterpret_cast<const uint8_t*>(v.data()), 8, 5, &enc);
  std::vector<double> back(5);
  ASSERT_TRUE(DecodeByteStreamSplit(U8(enc), static_cast<int64_t>(enc.size()), 8, 5, 5,
                                    reinterpret_cast<uint8_t*>(back.data()))
                  .ok());
  EXPECT_EQ(std::memcmp(back.data(), v.data(), 40), 0);
  EXPECT_FALSE(
      DecodeByteStreamSplit(U8(enc), 39, 8, 5, 5, reinterpret_cast<uint8_t*>(back.data())).ok());
}

TEST(ParquetCodec, EveryPageCodecRoundTrips) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "row " + std::to_string(i % 97) + ";";
  const auto* data = U8(text);
  const int64_t size = static_cast<int64_t>(text.size());
  for (auto codec :
       {compression::Codec::kSnappy, compression::Codec::kBrotli, compression::Codec::kLz4Raw,
        compression::Codec::kGzip, compression::Codec::kZstd}) {
    auto c = compression::Compress(codec, data, size);
    ASSERT_TRUE(c.ok()) << compression::CodecName(codec);
    std::string back(text.size(), '\0');
    ASSERT_TRUE(compression::DecompressInto(codec, (*c)->data(), (*c)->size(),
                                            reinterpret_cast<uint8_t*>(back.data()), size)
                    .ok())
        << compression::CodecName(codec);
    EXPECT_EQ(back, text);
    // Wrong sizes and corruption are errors.
    EXPECT_FALSE(compression::DecompressInto(codec, (*c)->data(), (*c)->size(),
                                             reinterpret_cast<uint8_t*>(back.data()), size - 1)
                     .ok());
    EXPECT_FALSE(compression::DecompressInto(codec, (*c)->data(), (*c)->size() / 2,
                                             reinterpret_cast<uint8_t*>(back.data()), size)
                     .ok());
  }
}

TEST(ParquetCodec, HadoopLz4AndConcatenatedGzip) {
  const std::string a(1000, 'a'), b = "tail of the data";
  // Hadoop framing: [BE raw size][BE compressed size][raw LZ4 block] per block.
  std::string framed;
  for (const std::string* part : {&a, &b}) {
    auto c = compression::Compress(compression::Codec::kLz4Raw, U8(*part),
                                   static_cast<int64_t>(part->size()));
    ASSERT_TRUE(c.ok());
    for (uint32_t v : {static_cast<uint32_t>(part->size()), static_cast<uint32_t>((*c)->size())}) {
      for (int s = 24; s >= 0; s -= 8) framed.push_back(static_cast<char>(v >> s));
    }
    framed.append((*c)->view());
  }
  std::string out(a.size() + b.size(), '\0');
  ASSERT_TRUE(compression::DecompressInto(
                  compression::Codec::kLz4Hadoop, U8(framed), static_cast<int64_t>(framed.size()),
                  reinterpret_cast<uint8_t*>(out.data()), static_cast<int64_t>(out.size()))
                  .ok());
  EXPECT_EQ(out, a + b);
  // A raw block under the Hadoop codec id is accepted too.
  auto raw = compression::Compress(compression::Codec::kLz4Raw, U8(a), 1000);
  std::string out2(1000, '\0');
  EXPECT_TRUE(compression::DecompressInto(compression::Codec::kLz4Hadoop, (*raw)->data(),
                                          (*raw)->size(), reinterpret_cast<uint8_t*>(out2.data()),
                                          1000)
                  .ok());
  // Two gzip members back to back decode as one stream.
  auto g1 = compression::Compress(compression::Codec::kGzip, U8(a), 1000);
  auto g2 = compression::Compress(compression::Codec::kGzip, U8(b), static_cast<int64_t>(b.size()));
  std::string both = std::string((*g1)->view()) + std::string((*g2)->view());
  std::string out3(a.size() + b.size(), '\0');
  ASSERT_TRUE(compression::DecompressInto(
                  compression::Codec::kGzip, U8(both), static_cast<int64_t>(both.size()),
                  reinterpret_cast<uint8_t*>(out3.data()), static_cast<int64_t>(out3.size()))
                  .ok());
  EXPECT_EQ(out3, a + b);
}

}  // namespace
}  // namespace quiver::parquet
