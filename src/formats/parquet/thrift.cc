// Thrift compact protocol decoder and encoder (see thrift_internal.h).
#include <cstring>

#include "formats/parquet/thrift_internal.h"

namespace quiver::parquet::thrift {
namespace {

// Deep enough for Parquet's metadata (FileMetaData > RowGroup > ColumnChunk >
// ColumnMetaData > Statistics is 5), shallow enough that a hostile footer
// cannot exhaust the stack through Skip().
constexpr size_t kMaxDepth = 64;

inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

}  // namespace

Status Decoder::Error(std::string_view what) const {
  return Status::Invalid("corrupt Thrift metadata at byte {}: {}", pos_, what);
}

Status Decoder::ReadByte(uint8_t* out) {
  if (pos_ >= size_) return Error("unexpected end");
  *out = data_[pos_++];
  return Status::OK();
}

Status Decoder::ReadVarint(uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (pos_ >= size_) return Error("unexpected end inside a varint");
    const uint8_t b = data_[pos_++];
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return Status::OK();
    }
  }
  return Error("varint longer than 10 bytes");
}

Status Decoder::StructBegin() {
  if (id_stack_.size() >= kMaxDepth) return Error("structs nested too deeply");
  id_stack_.push_back(last_id_);
  last_id_ = 0;
  return Status::OK();
}

void Decoder::StructEnd() {
  if (!id_stack_.empty()) {
    last_id_ = id_stack_.back();
    id_stack_.pop_back();
  }
}

Status Decoder::ReadFieldBegin(CType* type, int16_t* id) {
  uint8_t b = 0;
  QUIVER_RETURN_NOT_OK(ReadByte(&b));
  const uint8_t t = b & 0x0f;
  if (t == 0) {
    *type = CType::kStop;
    *id = 0;
    return Status::OK();
  }
  if (t > static_cast<uint8_t>(CType::kStruct)) return Error("unknown field type");
  *type = static_cast<CType>(t);
  const uint8_t delta = b >> 4;
  if (delta != 0) {
    *id = static_cast<int16_t>(last_id_ + delta);
  } else {
    int16_t v;
    QUIVER_RETURN_NOT_OK(ReadI16(&v));
    *id = v;
  }
  last_id_ = *id;
  return Status::OK();
}

Status Decoder::ReadBool(CType field_type, bool* out) {
  if (field_type == CType::kTrue) {
    *out = true;
  } else if (field_type == CType::kFalse) {
    *out = false;
  } else {
    return Error("expected a bool");
  }
  return Status::OK();
}

Status Decoder::ReadBoolElement(bool* out) {
  uint8_t b = 0;
  QUIVER_RETURN_NOT_OK(ReadByte(&b));
  *out = b == 1;
  return Status::OK();
}

Status Decoder::ReadI8(int8_t* out) {
  uint8_t b = 0;
  QUIVER_RETURN_NOT_OK(ReadByte(&b));
  *out = static_cast<int8_t>(b);
  return Status::OK();
}

Status Decoder::ReadI16(int16_t* out) {
  int64_t v = 0;
  QUIVER_RETURN_NOT_OK(ReadI64(&v));
  if (v < INT16_MIN || v > INT16_MAX) return Error("i16 out of range");
  *out = static_cast<int16_t>(v);
  return Status::OK();
}

Status Decoder::ReadI32(int32_t* out) {
  int64_t v = 0;
  QUIVER_RETURN_NOT_OK(ReadI64(&v));
  if (v < INT32_MIN || v > INT32_MAX) return Error("i32 out of range");
  *out = static_cast<int32_t>(v);
  return Status::OK();
}

Status Decoder::ReadI64(int64_t* out) {
  uint64_t v = 0;
  QUIVER_RETURN_NOT_OK(ReadVarint(&v));
  *out = UnZigZag(v);
  return Status::OK();
}

Status Decoder::ReadDouble(double* out) {
  if (remaining() < 8) return Error("unexpected end inside a double");
  std::memcpy(out, data_ + pos_, 8);
  pos_ += 8;
  return Status::OK();
}

Status Decoder::ReadBinaryView(std::string_view* out) {
  uint64_t n;
  QUIVER_RETURN_NOT_OK(ReadVarint(&n));
  if (n > static_cast<uint64_t>(remaining())) return Error("binary longer than the input");
  *out = std::string_view(reinterpret_cast<const char*>(data_ + pos_), static_cast<size_t>(n));
  pos_ += static_cast<int64_t>(n);
  return Status::OK();
}

Status Decoder::ReadBinary(std::string* out) {
  std::string_view v;
  QUIVER_RETURN_NOT_OK(ReadBinaryView(&v));
  out->assign(v.data(), v.size());
  return Status::OK();
}

Status Decoder::ReadListBegin(CType* element_type, int32_t* size) {
  uint8_t b = 0;
  QUIVER_RETURN_NOT_OK(ReadByte(&b));
  uint64_t n = b >> 4;
  if (n == 15) QUIVER_RETURN_NOT_OK(ReadVarint(&n));
  // The element type is not checked here: like Thrift's generated code,
  // callers that know the list's type decode elements as that type; Skip()
  // rejects types it cannot skip.
  const uint8_t t = b & 0x0f;
  // Every element takes at least one byte (bools in lists, empty structs).
  if (n > static_cast<uint64_t>(remaining())) return Error("list longer than the input");
  *element_type = static_cast<CType>(t);
  *size = static_cast<int32_t>(n);
  return Status::OK();
}

Status Decoder::ReadMapBegin(CType* key_type, CType* value_type, int32_t* size) {
  uint64_t n;
  QUIVER_RETURN_NOT_OK(ReadVarint(&n));
  if (n > static_cast<uint64_t>(remaining()) / 2) return Error("map longer than the input");
  *size = static_cast<int32_t>(n);
  *key_type = *value_type = CType::kStop;
  if (n > 0) {
    uint8_t b = 0;
    QUIVER_RETURN_NOT_OK(ReadByte(&b));
    *key_type = static_cast<CType>(b >> 4);
    *value_type = static_cast<CType>(b & 0x0f);
    if ((b >> 4) > static_cast<uint8_t>(CType::kStruct) || (b >> 4) == 0 ||
        (b & 0x0f) > static_cast<uint8_t>(CType::kStruct) || (b & 0x0f) == 0) {
      return Error("unknown map element type");
    }
  }
  return Status::OK();
}

Status Decoder::Skip(CType type) {
  switch (type) {
    case CType::kStop:
      return Error("unexpected STOP");
    case CType::kTrue:
    case CType::kFalse:
      return Status::OK();
    case CType::kByte: {
      uint8_t b = 0;
      return ReadByte(&b);
    }
    case CType::kI16:
    case CType::kI32:
    case CType::kI64: {
      uint64_t v = 0;
      return ReadVarint(&v);
    }
    case CType::kDouble: {
      double d;
      return ReadDouble(&d);
    }
    case CType::kBinary: {
      std::string_view v;
      return ReadBinaryView(&v);
    }
    case CType::kList:
    case CType::kSet: {
      CType t;
      int32_t n;
      QUIVER_RETURN_NOT_OK(ReadListBegin(&t, &n));
      if (n > 0 && (t == CType::kStop || static_cast<uint8_t>(t) > 12)) {
        return Error("unknown list element type");
      }
      if (id_stack_.size() >= kMaxDepth) return Error("containers nested too deeply");
      id_stack_.push_back(last_id_);
      for (int32_t i = 0; i < n; ++i) {
        Status st = (t == CType::kTrue || t == CType::kFalse) ? Skip(CType::kByte) : Skip(t);
        if (!st.ok()) return st;
      }
      StructEnd();
      return Status::OK();
    }
    case CType::kMap: {
      CType k, v;
      int32_t n;
      QUIVER_RETURN_NOT_OK(ReadMapBegin(&k, &v, &n));
      if (id_stack_.size() >= kMaxDepth) return Error("containers nested too deeply");
      id_stack_.push_back(last_id_);
      for (int32_t i = 0; i < n; ++i) {
        QUIVER_RETURN_NOT_OK((k == CType::kTrue || k == CType::kFalse) ? Skip(CType::kByte)
                                                                       : Skip(k));
        QUIVER_RETURN_NOT_OK((v == CType::kTrue || v == CType::kFalse) ? Skip(CType::kByte)
                                                                       : Skip(v));
      }
      StructEnd();
      return Status::OK();
    }
    case CType::kStruct: {
      QUIVER_RETURN_NOT_OK(StructBegin());
      for (;;) {
        CType t;
        int16_t id;
        QUIVER_RETURN_NOT_OK(ReadFieldBegin(&t, &id));
        if (t == CType::kStop) break;
        QUIVER_RETURN_NOT_OK(Skip(t));
      }
      StructEnd();
      return Status::OK();
    }
  }
  return Error("unknown type");
}

// --- Encoder -----------------------------------------------------------------

void Encoder::WriteVarint(uint64_t v) {
  while (v >= 0x80) {
    WriteByte(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  WriteByte(static_cast<uint8_t>(v));
}

void Encoder::StructBegin() {
  id_stack_.push_back(last_id_);
  last_id_ = 0;
}

void Encoder::StructEnd() {
  WriteByte(0);
  if (!id_stack_.empty()) {
    last_id_ = id_stack_.back();
    id_stack_.pop_back();
  }
}

void Encoder::FieldBegin(CType type, int16_t id) {
  const int delta = id - last_id_;
  if (delta > 0 && delta <= 15) {
    WriteByte(static_cast<uint8_t>((delta << 4) | static_cast<uint8_t>(type)));
  } else {
    WriteByte(static_cast<uint8_t>(type));
    WriteVarint(ZigZag(id));
  }
  last_id_ = id;
}

void Encoder::FieldBool(int16_t id, bool v) { FieldBegin(v ? CType::kTrue : CType::kFalse, id); }

void Encoder::FieldI8(int16_t id, int8_t v) {
  FieldBegin(CType::kByte, id);
  WriteByte(static_cast<uint8_t>(v));
}

void Encoder::FieldI16(int16_t id, int16_t v) {
  FieldBegin(CType::kI16, id);
  WriteVarint(ZigZag(v));
}

void Encoder::FieldI32(int16_t id, int32_t v) {
  FieldBegin(CType::kI32, id);
  WriteVarint(ZigZag(v));
}

void Encoder::FieldI64(int16_t id, int64_t v) {
  FieldBegin(CType::kI64, id);
  WriteVarint(ZigZag(v));
}

void Encoder::FieldBinary(int16_t id, std::string_view v) {
  FieldBegin(CType::kBinary, id);
  WriteBinary(v);
}

void Encoder::FieldStructBegin(int16_t id) {
  FieldBegin(CType::kStruct, id);
  StructBegin();
}

void Encoder::FieldEmptyStruct(int16_t id) {
  FieldStructBegin(id);
  StructEnd();
}

void Encoder::FieldListBegin(int16_t id, CType element_type, int32_t size) {
  FieldBegin(CType::kList, id);
  ListBegin(element_type, size);
}

void Encoder::ListBegin(CType element_type, int32_t size) {
  if (size < 15) {
    WriteByte(static_cast<uint8_t>((size << 4) | static_cast<uint8_t>(element_type)));
  } else {
    WriteByte(static_cast<uint8_t>(0xf0 | static_cast<uint8_t>(element_type)));
    WriteVarint(static_cast<uint64_t>(size));
  }
}

void Encoder::WriteBoolElement(bool v) { WriteByte(v ? 1 : 2); }
void Encoder::WriteI32(int32_t v) { WriteVarint(ZigZag(v)); }
void Encoder::WriteI64(int64_t v) { WriteVarint(ZigZag(v)); }

void Encoder::WriteBinary(std::string_view v) {
  WriteVarint(v.size());
  out_->append(v.data(), v.size());
}

}  // namespace quiver::parquet::thrift
