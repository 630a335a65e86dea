#include "formats/avro/decoder.h"

#include <cstring>

#include "common/utf8.h"

namespace quiver::avro {
namespace {

// Zero-size items (nulls, empty records) one block may hold in arrays and
// maps: their counts cost no bytes, so this bounds what a hostile count can
// make the reader build.
constexpr int64_t kMaxFreeItems = int64_t{1} << 24;

}  // namespace

Status Decoder::Need(int64_t n) const {
  if (n < 0 || n > end_ - p_) {
    return Status::Invalid("value at byte {} of the block runs past its end ({} bytes)", offset(),
                           end_ - begin_);
  }
  return Status::OK();
}

Status Decoder::ReadLong(int64_t* out) {
  uint64_t v = 0;
  int shift = 0;
  const uint8_t* start = p_;
  while (true) {
    if (p_ == end_) {
      p_ = start;
      return Status::Invalid("varint at byte {} of the block runs past its end", offset());
    }
    const uint8_t b = *p_++;
    if (shift == 63 && (b & 0x7e) != 0) {
      p_ = start;
      return Status::Invalid("varint at byte {} of the block is longer than 64 bits", offset());
    }
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) break;
    shift += 7;
    if (shift > 63) {
      p_ = start;
      return Status::Invalid("varint at byte {} of the block is longer than 10 bytes", offset());
    }
  }
  *out = static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  return Status::OK();
}

Status Decoder::ReadInt(int32_t* out) {
  int64_t v;
  const int64_t at = offset();
  QUIVER_RETURN_NOT_OK(ReadLong(&v));
  if (v < INT32_MIN || v > INT32_MAX) {
    return Status::Invalid("int at byte {} of the block is out of range ({})", at, v);
  }
  *out = static_cast<int32_t>(v);
  return Status::OK();
}

Status Decoder::ReadLength(int64_t* out) {
  const int64_t at = offset();
  QUIVER_RETURN_NOT_OK(ReadLong(out));
  if (*out < 0) return Status::Invalid("negative length {} at byte {} of the block", *out, at);
  return Need(*out);
}

Status Decoder::ReadBytes(std::string_view* out) {
  int64_t n;
  QUIVER_RETURN_NOT_OK(ReadLength(&n));
  *out = std::string_view(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
  p_ += n;
  return Status::OK();
}

Status Decoder::CheckUtf8(std::string_view s, int64_t at) const {
  if (validate_utf8_ && !ValidateUtf8(s)) {
    return Status::Invalid("string at byte {} of the block is not valid UTF-8", at);
  }
  return Status::OK();
}

Status Decoder::ReadRaw(int64_t n, const uint8_t** out) {
  QUIVER_RETURN_NOT_OK(Need(n));
  *out = p_;
  p_ += n;
  return Status::OK();
}

Status Decoder::ReadBranch(const Node& node, bool* is_null) {
  int64_t branch;
  const int64_t at = offset();
  QUIVER_RETURN_NOT_OK(ReadLong(&branch));
  if (branch == node.null_branch) {
    *is_null = true;
  } else if (branch == node.value_branch) {
    *is_null = false;
  } else {
    return Status::Invalid("union branch {} at byte {} of the block (the union has {})", branch,
                           at, node.union_size);
  }
  return Status::OK();
}

Status Decoder::ReadItemCount(const Node& items, int64_t* count) {
  const int64_t at = offset();
  QUIVER_RETURN_NOT_OK(ReadLong(count));
  if (*count < 0) {
    if (*count == INT64_MIN) return Status::Invalid("bad item count at byte {} of the block", at);
    *count = -*count;
    int64_t bytes;
    QUIVER_RETURN_NOT_OK(ReadLength(&bytes));
  }
  if (items.min_size > 0) {
    if (*count > (end_ - p_) / items.min_size) {
      return Status::Invalid("{} items at byte {} of the block do not fit in its {} bytes", *count,
                             at, end_ - begin_);
    }
  } else {
    free_items_ += *count;
    if (*count > kMaxFreeItems || free_items_ > kMaxFreeItems) {
      return Status::Invalid("{} empty items at byte {} of the block: too many", *count, at);
    }
  }
  return Status::OK();
}

Status Decoder::DecodeDecimal(const Node& node, std::string_view be, ArrayBuilder* builder) {
  const int width = node.type->byte_width;
  uint8_t le[32];
  const bool negative = !be.empty() && (static_cast<uint8_t>(be[0]) & 0x80) != 0;
  std::memset(le, negative ? 0xff : 0, sizeof(le));
  const size_t n = be.size();
  // Leading bytes past the width must be sign extension.
  for (size_t i = 0; i + width < n; ++i) {
    if (static_cast<uint8_t>(be[i]) != (negative ? 0xff : 0)) {
      return Status::Invalid("decimal of {} bytes at byte {} of the block overflows precision {}",
                             n, offset(), node.precision);
    }
  }
  for (size_t i = 0; i < n && i < static_cast<size_t>(width); ++i) {
    le[i] = static_cast<uint8_t>(be[n - 1 - i]);
  }
  return static_cast<FixedSizeBinaryBuilder*>(builder)->Append(le);
}

Status Decoder::Decode(const Node& node, ArrayBuilder* builder) {
  if (node.union_size > 0) {
    bool is_null;
    QUIVER_RETURN_NOT_OK(ReadBranch(node, &is_null));
    if (is_null) return builder->AppendNull();
  }
  switch (node.kind) {
    case Kind::kNull:
      return builder->AppendNull();
    case Kind::kBoolean: {
      QUIVER_RETURN_NOT_OK(Need(1));
      const uint8_t b = *p_;
      if (b > 1) return Status::Invalid("boolean byte {} at byte {} of the block", b, offset());
      ++p_;
      return static_cast<BooleanBuilder*>(builder)->Append(b == 1);
    }
    case Kind::kInt: {
      int32_t v;
      QUIVER_RETURN_NOT_OK(ReadInt(&v));
      return static_cast<Int32Builder*>(builder)->Append(v);
    }
    case Kind::kLong: {
      int64_t v;
      QUIVER_RETURN_NOT_OK(ReadLong(&v));
      return static_cast<Int64Builder*>(builder)->Append(v);
    }
    case Kind::kFloat: {
      QUIVER_RETURN_NOT_OK(Need(4));
      float v;
      std::memcpy(&v, p_, 4);
      p_ += 4;
      return static_cast<FloatBuilder*>(builder)->Append(v);
    }
    case Kind::kDouble: {
      QUIVER_RETURN_NOT_OK(Need(8));
      double v;
      std::memcpy(&v, p_, 8);
      p_ += 8;
      return static_cast<DoubleBuilder*>(builder)->Append(v);
    }
    case Kind::kBytes:
    case Kind::kString: {
      std::string_view v;
      const int64_t at = offset();
      QUIVER_RETURN_NOT_OK(ReadBytes(&v));
      if (node.logical == Logical::kDecimal) return DecodeDecimal(node, v, builder);
      if (node.kind == Kind::kString) QUIVER_RETURN_NOT_OK(CheckUtf8(v, at));
      return static_cast<StringBuilder*>(builder)->Append(v);
    }
    case Kind::kEnum: {
      int32_t i;
      const int64_t at = offset();
      QUIVER_RETURN_NOT_OK(ReadInt(&i));
      if (i < 0 || i >= static_cast<int32_t>(node.symbols.size())) {
        return Status::Invalid("enum index {} at byte {} of the block (the enum has {} symbols)", i,
                               at, node.symbols.size());
      }
      return static_cast<StringBuilder*>(builder)->Append(node.symbols[static_cast<size_t>(i)]);
    }
    case Kind::kFixed: {
      QUIVER_RETURN_NOT_OK(Need(node.fixed_size));
      std::string_view v(reinterpret_cast<const char*>(p_), static_cast<size_t>(node.fixed_size));
      p_ += node.fixed_size;
      if (node.logical == Logical::kDecimal) return DecodeDecimal(node, v, builder);
      return static_cast<FixedSizeBinaryBuilder*>(builder)->Append(v);
    }
    case Kind::kRecord: {
      auto* sb = static_cast<StructBuilder*>(builder);
      QUIVER_RETURN_NOT_OK(sb->Append());
      for (size_t i = 0; i < node.children.size(); ++i) {
        QUIVER_RETURN_NOT_OK(Decode(*node.children[i], sb->child(static_cast<int>(i))));
      }
      return Status::OK();
    }
    case Kind::kArray:
    case Kind::kMap: {
      auto* lb = static_cast<ListBuilder*>(builder);
      QUIVER_RETURN_NOT_OK(lb->Append());
      const Node& items = *node.children[0];
      ArrayBuilder* values = lb->value_builder();
      while (true) {
        int64_t count;
        QUIVER_RETURN_NOT_OK(ReadItemCount(items, &count));
        if (count == 0) break;
        for (int64_t i = 0; i < count; ++i) {
          if (node.kind == Kind::kArray) {
            QUIVER_RETURN_NOT_OK(Decode(items, values));
          } else {
            auto* entry = static_cast<StructBuilder*>(values);
            QUIVER_RETURN_NOT_OK(entry->Append());
            std::string_view key;
            const int64_t at = offset();
            QUIVER_RETURN_NOT_OK(ReadBytes(&key));
            QUIVER_RETURN_NOT_OK(CheckUtf8(key, at));
            QUIVER_RETURN_NOT_OK(static_cast<StringBuilder*>(entry->child(0))->Append(key));
            QUIVER_RETURN_NOT_OK(Decode(items, entry->child(1)));
          }
        }
      }
      return Status::OK();
    }
  }
  return Status::Invalid("unknown Avro type");
}

Status Decoder::Skip(const Node& node) {
  if (node.union_size > 0) {
    bool is_null;
    QUIVER_RETURN_NOT_OK(ReadBranch(node, &is_null));
    if (is_null) return Status::OK();
  }
  switch (node.kind) {
    case Kind::kNull:
      return Status::OK();
    case Kind::kBoolean:
      QUIVER_RETURN_NOT_OK(Need(1));
      ++p_;
      return Status::OK();
    case Kind::kInt:
    case Kind::kEnum: {
      int32_t v;
      return ReadInt(&v);
    }
    case Kind::kLong: {
      int64_t v;
      return ReadLong(&v);
    }
    case Kind::kFloat:
    case Kind::kDouble:
    case Kind::kFixed: {
      const int64_t n = node.kind == Kind::kFloat ? 4 : node.kind == Kind::kDouble ? 8 : node.fixed_size;
      QUIVER_RETURN_NOT_OK(Need(n));
      p_ += n;
      return Status::OK();
    }
    case Kind::kBytes:
    case Kind::kString: {
      std::string_view v;
      return ReadBytes(&v);
    }
    case Kind::kRecord:
      for (const auto& c : node.children) QUIVER_RETURN_NOT_OK(Skip(*c));
      return Status::OK();
    case Kind::kArray:
    case Kind::kMap: {
      const Node& items = *node.children[0];
      while (true) {
        const int64_t at = offset();
        int64_t count;
        QUIVER_RETURN_NOT_OK(ReadLong(&count));
        if (count == 0) break;
        if (count < 0) {
          // A block with its byte size: skipped whole.
          if (count == INT64_MIN) return Status::Invalid("bad item count at byte {} of the block", at);
          int64_t bytes;
          QUIVER_RETURN_NOT_OK(ReadLength(&bytes));
          p_ += bytes;
          continue;
        }
        p_ = begin_ + at;
        QUIVER_RETURN_NOT_OK(ReadItemCount(items, &count));
        for (int64_t i = 0; i < count; ++i) {
          if (node.kind == Kind::kMap) {
            std::string_view key;
            QUIVER_RETURN_NOT_OK(ReadBytes(&key));
          }
          QUIVER_RETURN_NOT_OK(Skip(items));
        }
      }
      return Status::OK();
    }
  }
  return Status::Invalid("unknown Avro type");
}

}  // namespace quiver::avro
