// The Thrift compact protocol, as much of it as Parquet's metadata uses.
//
// Encoding (https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md):
//   struct   = field* STOP(0x00)
//   field    = header value; header byte = (id delta << 4) | type when the
//              delta from the previous field id is 1..15, else type byte
//              followed by the id as a zigzag varint i16
//   bool     = the field type itself (1 true, 2 false); inside lists one
//              byte (1 true, anything else false)
//   i8       = one byte; i16/i32/i64 = zigzag ULEB128 varints
//   double   = 8 bytes little-endian
//   binary   = varint length, bytes
//   list/set = byte (size << 4 | elem type) when size < 15, else
//              (0xf0 | elem type) and a varint size
//   map      = varint size, then (key type << 4 | value type) when size > 0
//
// The decoder works on untrusted bytes: every read is bounds-checked, nesting
// is limited, and a container may not claim more elements than bytes remain
// (every element takes at least one byte), so sizes can be trusted for
// reserve(). Errors are Status::Invalid naming the byte offset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace quiver::parquet::thrift {

enum class CType : uint8_t {
  kStop = 0,
  kTrue = 1,
  kFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

class Decoder {
 public:
  Decoder(const uint8_t* data, int64_t size) : data_(data), size_(size) {}

  int64_t position() const { return pos_; }
  int64_t remaining() const { return size_ - pos_; }

  // Enter/leave a struct (tracks the previous field id for delta headers).
  Status StructBegin();
  void StructEnd();
  // Next field of the current struct; *type == kStop at its end.
  Status ReadFieldBegin(CType* type, int16_t* id);

  // Field values. ReadBool takes the field's type (the value lives there);
  // inside lists use ReadBoolElement.
  Status ReadBool(CType field_type, bool* out);
  Status ReadBoolElement(bool* out);
  Status ReadI8(int8_t* out);
  Status ReadI16(int16_t* out);
  Status ReadI32(int32_t* out);
  Status ReadI64(int64_t* out);
  Status ReadDouble(double* out);
  Status ReadBinary(std::string* out);
  // A view into the decoded bytes (valid while they are).
  Status ReadBinaryView(std::string_view* out);
  Status ReadListBegin(CType* element_type, int32_t* size);
  Status ReadMapBegin(CType* key_type, CType* value_type, int32_t* size);

  // Skips one value of `type` (structs and containers recursively).
  Status Skip(CType type);

  Status Error(std::string_view what) const;

 private:
  Status ReadVarint(uint64_t* out);
  Status ReadByte(uint8_t* out);

  const uint8_t* data_;
  int64_t size_;
  int64_t pos_ = 0;
  int16_t last_id_ = 0;
  std::vector<int16_t> id_stack_;
};

// Appends compact-protocol bytes to a string.
class Encoder {
 public:
  explicit Encoder(std::string* out) : out_(out) {}

  void StructBegin();
  void StructEnd();  // writes STOP
  void FieldBegin(CType type, int16_t id);
  void FieldBool(int16_t id, bool v);
  void FieldI8(int16_t id, int8_t v);
  void FieldI16(int16_t id, int16_t v);
  void FieldI32(int16_t id, int32_t v);
  void FieldI64(int16_t id, int64_t v);
  void FieldBinary(int16_t id, std::string_view v);
  // Opens a struct-valued field; close it with StructEnd().
  void FieldStructBegin(int16_t id);
  // An empty struct value (union members like TimeUnit.MILLIS).
  void FieldEmptyStruct(int16_t id);
  void FieldListBegin(int16_t id, CType element_type, int32_t size);

  void ListBegin(CType element_type, int32_t size);
  void WriteBoolElement(bool v);
  void WriteI32(int32_t v);
  void WriteI64(int64_t v);
  void WriteBinary(std::string_view v);

 private:
  void WriteVarint(uint64_t v);
  void WriteByte(uint8_t b) { out_->push_back(static_cast<char>(b)); }

  std::string* out_;
  int16_t last_id_ = 0;
  std::vector<int16_t> id_stack_;
};

}  // namespace quiver::parquet::thrift
