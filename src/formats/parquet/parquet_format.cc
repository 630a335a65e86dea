#include "formats/parquet/parquet_format.h"

#include <fmt/format.h>

#include "formats/parquet/metadata.h"

namespace quiver::parquet {
namespace {

std::string Unknown(int32_t v) { return fmt::format("UNKNOWN({})", v); }

}  // namespace

std::string TypeName(Type type) {
  switch (type) {
    case Type::kBoolean:
      return "BOOLEAN";
    case Type::kInt32:
      return "INT32";
    case Type::kInt64:
      return "INT64";
    case Type::kInt96:
      return "INT96";
    case Type::kFloat:
      return "FLOAT";
    case Type::kDouble:
      return "DOUBLE";
    case Type::kByteArray:
      return "BYTE_ARRAY";
    case Type::kFixedLenByteArray:
      return "FIXED_LEN_BYTE_ARRAY";
  }
  return Unknown(static_cast<int32_t>(type));
}

std::string ConvertedTypeName(ConvertedType type) {
  static const char* const kNames[] = {"UTF8",
                                       "MAP",
                                       "MAP_KEY_VALUE",
                                       "LIST",
                                       "ENUM",
                                       "DECIMAL",
                                       "DATE",
                                       "TIME_MILLIS",
                                       "TIME_MICROS",
                                       "TIMESTAMP_MILLIS",
                                       "TIMESTAMP_MICROS",
                                       "UINT_8",
                                       "UINT_16",
                                       "UINT_32",
                                       "UINT_64",
                                       "INT_8",
                                       "INT_16",
                                       "INT_32",
                                       "INT_64",
                                       "JSON",
                                       "BSON",
                                       "INTERVAL"};
  const int32_t v = static_cast<int32_t>(type);
  if (v >= 0 && v < static_cast<int32_t>(sizeof(kNames) / sizeof(kNames[0]))) return kNames[v];
  return Unknown(v);
}

std::string RepetitionName(Repetition repetition) {
  switch (repetition) {
    case Repetition::kRequired:
      return "REQUIRED";
    case Repetition::kOptional:
      return "OPTIONAL";
    case Repetition::kRepeated:
      return "REPEATED";
    case Repetition::kVector:
      return "VECTOR";
  }
  return Unknown(static_cast<int32_t>(repetition));
}

std::string EncodingName(Encoding encoding) {
  switch (encoding) {
    case Encoding::kPlain:
      return "PLAIN";
    case Encoding::kPlainDictionary:
      return "PLAIN_DICTIONARY";
    case Encoding::kRle:
      return "RLE";
    case Encoding::kBitPacked:
      return "BIT_PACKED";
    case Encoding::kDeltaBinaryPacked:
      return "DELTA_BINARY_PACKED";
    case Encoding::kDeltaLengthByteArray:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::kDeltaByteArray:
      return "DELTA_BYTE_ARRAY";
    case Encoding::kRleDictionary:
      return "RLE_DICTIONARY";
    case Encoding::kByteStreamSplit:
      return "BYTE_STREAM_SPLIT";
  }
  return Unknown(static_cast<int32_t>(encoding));
}

std::string CodecName(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kUncompressed:
      return "UNCOMPRESSED";
    case CompressionCodec::kSnappy:
      return "SNAPPY";
    case CompressionCodec::kGzip:
      return "GZIP";
    case CompressionCodec::kLzo:
      return "LZO";
    case CompressionCodec::kBrotli:
      return "BROTLI";
    case CompressionCodec::kLz4:
      return "LZ4";
    case CompressionCodec::kZstd:
      return "ZSTD";
    case CompressionCodec::kLz4Raw:
      return "LZ4_RAW";
  }
  return Unknown(static_cast<int32_t>(codec));
}

std::string PageTypeName(PageType type) {
  switch (type) {
    case PageType::kDataPage:
      return "DATA_PAGE";
    case PageType::kIndexPage:
      return "INDEX_PAGE";
    case PageType::kDictionaryPage:
      return "DICTIONARY_PAGE";
    case PageType::kDataPageV2:
      return "DATA_PAGE_V2";
  }
  return Unknown(static_cast<int32_t>(type));
}

std::string BoundaryOrderName(BoundaryOrder order) {
  switch (order) {
    case BoundaryOrder::kUnordered:
      return "UNORDERED";
    case BoundaryOrder::kAscending:
      return "ASCENDING";
    case BoundaryOrder::kDescending:
      return "DESCENDING";
  }
  return Unknown(static_cast<int32_t>(order));
}

std::string LogicalTypeToString(const LogicalType& t) {
  using Kind = LogicalType::Kind;
  auto unit = [&] {
    switch (t.unit) {
      case TimeUnitKind::kMillis:
        return "MILLIS";
      case TimeUnitKind::kMicros:
        return "MICROS";
      case TimeUnitKind::kNanos:
        return "NANOS";
    }
    return "?";
  };
  switch (t.kind) {
    case Kind::kNone:
      return "NONE";
    case Kind::kString:
      return "STRING";
    case Kind::kMap:
      return "MAP";
    case Kind::kList:
      return "LIST";
    case Kind::kEnum:
      return "ENUM";
    case Kind::kDecimal:
      return fmt::format("DECIMAL({},{})", t.precision, t.scale);
    case Kind::kDate:
      return "DATE";
    case Kind::kTime:
      return fmt::format("TIME({},{})", unit(), t.is_adjusted_to_utc);
    case Kind::kTimestamp:
      return fmt::format("TIMESTAMP({},{})", unit(), t.is_adjusted_to_utc);
    case Kind::kInteger:
      return fmt::format("INTEGER({},{})", t.bit_width, t.is_signed);
    case Kind::kUnknown:
      return "UNKNOWN";
    case Kind::kJson:
      return "JSON";
    case Kind::kBson:
      return "BSON";
    case Kind::kUuid:
      return "UUID";
    case Kind::kFloat16:
      return "FLOAT16";
    case Kind::kVariant:
      return "VARIANT";
    case Kind::kGeometry:
      return t.crs ? fmt::format("GEOMETRY({})", *t.crs) : "GEOMETRY";
    case Kind::kGeography:
      return t.crs ? fmt::format("GEOGRAPHY({})", *t.crs) : "GEOGRAPHY";
    case Kind::kVector:
      return "VECTOR";
    case Kind::kUnrecognized:
      return fmt::format("UNKNOWN_LOGICAL_TYPE({})", t.unrecognized_id);
  }
  return "?";
}

int PhysicalWidth(Type type, int32_t type_length) {
  switch (type) {
    case Type::kInt32:
    case Type::kFloat:
      return 4;
    case Type::kInt64:
    case Type::kDouble:
      return 8;
    case Type::kInt96:
      return 12;
    case Type::kFixedLenByteArray:
      return type_length;
    case Type::kBoolean:
    case Type::kByteArray:
      return 0;
  }
  return 0;
}

}  // namespace quiver::parquet
