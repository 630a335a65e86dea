// The Parquet file layout, shared by the reader (file_reader.cc,
// page_reader.cc) and the writer (file_writer.cc, column_writer.cc).
//
//   "PAR1"                                     4-byte magic
//   row group 0:
//     column chunk 0: [dictionary page] data page ... data page
//     column chunk 1: ...
//   row group 1: ...
//   [column indexes, offset indexes]           page index (optional)
//   FileMetaData                               Thrift compact protocol
//   uint32 little-endian                       length of FileMetaData
//   "PAR1"                                     ("PARE" when the footer is encrypted)
//
// Every page is a Thrift-encoded PageHeader followed by compressed_page_size
// bytes of body. Bodies:
//   dictionary page: the dictionary's values, PLAIN, compressed as a whole;
//   data page V1: compressed( [rep levels] [def levels] values ), where the
//     levels are RLE/bit-packed hybrid runs each preceded by a uint32 length
//     (or legacy BIT_PACKED, bit width from the max level, no length);
//   data page V2: rep levels, def levels (RLE, no length prefix, never
//     compressed; lengths in the header), then the values, compressed unless
//     is_compressed = false.
// Levels are present only when the column's max level is above 0. Values
// cover only the non-null entries (def level == max definition level).
//
// The metadata structs (metadata.h) mirror parquet.thrift field for field;
// the enums below keep the specification's numbers.
#pragma once

#include <cstdint>
#include <string>

namespace quiver::parquet {

inline constexpr char kMagic[4] = {'P', 'A', 'R', '1'};
inline constexpr char kEncryptedMagic[4] = {'P', 'A', 'R', 'E'};
inline constexpr int64_t kFooterTailSize = 8;  // uint32 length + magic

// Physical types.
enum class Type : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

// Legacy logical annotations (superseded by LogicalType, still written).
enum class ConvertedType : int32_t {
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kEnum = 4,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32 = 17,
  kInt64 = 18,
  kJson = 19,
  kBson = 20,
  kInterval = 21,
};

enum class Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2, kVector = 3 };

enum class Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};

enum class CompressionCodec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,  // Hadoop-framed LZ4 (deprecated)
  kZstd = 6,
  kLz4Raw = 7,
};

enum class PageType : int32_t {
  kDataPage = 0,
  kIndexPage = 1,
  kDictionaryPage = 2,
  kDataPageV2 = 3,
};

enum class BoundaryOrder : int32_t { kUnordered = 0, kAscending = 1, kDescending = 2 };

// Names as parquet-format spells them ("INT32", "RLE_DICTIONARY", "ZSTD");
// numbers outside the enum render as "UNKNOWN(n)".
std::string TypeName(Type type);
std::string ConvertedTypeName(ConvertedType type);
std::string RepetitionName(Repetition repetition);
std::string EncodingName(Encoding encoding);
std::string CodecName(CompressionCodec codec);
std::string PageTypeName(PageType type);
std::string BoundaryOrderName(BoundaryOrder order);

// Bytes of one value of a fixed-width physical type (BOOLEAN: 0, bit-packed;
// BYTE_ARRAY: 0; FIXED_LEN_BYTE_ARRAY: type_length).
int PhysicalWidth(Type type, int32_t type_length);

}  // namespace quiver::parquet
