// Avro object container files: the byte layout shared by the reader
// (reader.h) and the writer (writer.h), and the schema tree both work from.
//
// Container file (Avro 1.11 specification, "Object Container Files"):
//   "Obj" 0x01                      magic
//   map<bytes> metadata             blocks of (count: long, count x (key:
//                                   string, value: bytes)), ended by count 0;
//                                   a negative count is followed by the
//                                   block's byte size. Keys read here:
//                                   avro.schema (JSON), avro.codec
//                                   (null|deflate|snappy|zstandard).
//   16 bytes                        sync marker
//   then blocks, to the end of the file:
//     long  count                   records in the block
//     long  size                    bytes of the (compressed) data
//     size bytes                    the records, compressed by the codec:
//                                     deflate: raw RFC 1951 (no zlib header)
//                                     snappy: a snappy block, then the CRC-32
//                                             of the uncompressed data, 4 bytes
//                                             big-endian
//                                     zstandard: one or more zstd frames
//     16 bytes                      the sync marker again
//
// Binary encoding of values: int and long are zig-zag varints (at most 5 and
// 10 bytes); float/double little-endian IEEE; boolean one byte 0/1; bytes and
// string a long length then the bytes; fixed its size in bytes; enum the
// symbol's index as an int; union the branch index as a long then the
// branch's value; record its fields in order; array and map blocks of (long
// count [, long byte size when count < 0], count items), ended by count 0,
// map items being a string key then the value.
//
// Arrow types read and written (logical types by their "logicalType"):
//   null                     null
//   boolean                  bool
//   int / date / time-millis int32 / date32 / time32[ms]
//   long / time-micros       int64 / time64[us]
//   timestamp-millis|micros|nanos        timestamp[ms|us|ns, tz=UTC]
//   local-timestamp-millis|micros|nanos  timestamp[ms|us|ns] (no time zone)
//   float / double           float / double
//   bytes / string           binary / utf8 (uuid on a string stays utf8)
//   decimal (bytes, fixed)   decimal128 (precision <= 38) or decimal256
//   enum                     utf8 (the symbol)
//   fixed(n)                 fixed_size_binary(n) (uuid: with arrow.uuid)
//   record                   struct
//   array                    list
//   map                      map<utf8, value>
//   union [null, T]          T, nullable (other unions are refused)
// Other logical types are read as their underlying type, as the
// specification asks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/type.h"
#include "common/status.h"

namespace quiver::avro {

inline constexpr char kMagic[4] = {'O', 'b', 'j', 1};
inline constexpr int kSyncSize = 16;

enum class Kind : int8_t {
  kNull, kBoolean, kInt, kLong, kFloat, kDouble, kBytes, kString,
  kRecord, kEnum, kArray, kMap, kFixed,
};

enum class Logical : int8_t {
  kNone, kDate, kTimeMillis, kTimeMicros, kTimestamp, kDecimal, kUuid,
};

// One Avro type, resolved (named references expanded).
struct Node {
  Kind kind = Kind::kNull;
  Logical logical = Logical::kNone;
  // A union ([null, T], [T, null], [T] or [null]): its branch count, and
  // the branch index of null and of the value (-1: none). union_size 0: not
  // a union.
  int union_size = 0;
  int null_branch = -1;
  int value_branch = -1;
  int64_t fixed_size = 0;              // fixed
  int32_t precision = 0, scale = 0;    // decimal
  std::vector<std::string> symbols;    // enum
  std::vector<std::string> names;      // record field names
  std::vector<std::unique_ptr<Node>> children;  // record fields, array items, map values
  TypeRef type;                        // the Arrow type it reads into
  KeyValueMetadata metadata;           // of the Arrow field (arrow.uuid)
  // Fewest bytes one value takes (0 for null): bounds item counts.
  int64_t min_size = 0;

  bool nullable() const { return null_branch >= 0; }
};

// The schema of a file: a record whose fields are the columns. A file whose
// schema is not a record reads as one column named "value".
struct FileSchema {
  std::unique_ptr<Node> root;  // kind kRecord
  SchemaRef arrow;
};

// Parses an Avro schema (JSON text). Refuses recursive types, unions other
// than [null, T], and what is malformed, saying where.
Result<FileSchema> ParseSchema(std::string_view json);


// Codecs by their avro.codec names.
enum class BlockCodec : int8_t { kNull, kDeflate, kSnappy, kZstd };
Result<BlockCodec> BlockCodecFromName(std::string_view name);
const char* BlockCodecName(BlockCodec codec);

// Decompresses one block's data (refusing more than `max_size` bytes out).
Status DecompressBlock(BlockCodec codec, const uint8_t* data, int64_t size, int64_t max_size,
                       std::string* out);
// Compresses one block's data; `level` as compression::kDefaultLevel or a
// codec level (deflate 1-9, zstd).
Status CompressBlock(BlockCodec codec, std::string_view data, int level, std::string* out);

// Zig-zag varint of `v` appended to `out`.
inline void PutLong(int64_t v, std::string* out) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out->push_back(static_cast<char>((z & 0x7f) | 0x80));
    z >>= 7;
  }
  out->push_back(static_cast<char>(z));
}

}  // namespace quiver::avro
