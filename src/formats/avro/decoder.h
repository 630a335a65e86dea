// Decoding Avro's binary encoding (avro_format.h) straight into Arrow
// builders, every read bounds-checked: a corrupt block yields an error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "columnar/builder.h"
#include "formats/avro/avro_format.h"

namespace quiver::avro {

// Reads values out of one block's decompressed bytes.
class Decoder {
 public:
  // Reads [data, data + size) from byte `start`.
  Decoder(const uint8_t* data, int64_t size, int64_t start = 0)
      : p_(data + start), begin_(data), end_(data + size) {}

  // Strings (and map keys) are checked to be UTF-8 (the default).
  void set_validate_utf8(bool v) { validate_utf8_ = v; }

  // Appends one value of `node` to `builder` (made by MakeBuilder(node.type)).
  Status Decode(const Node& node, ArrayBuilder* builder);
  // Reads past one value of `node`.
  Status Skip(const Node& node);

  int64_t offset() const { return p_ - begin_; }
  bool at_end() const { return p_ == end_; }

  Status ReadLong(int64_t* out);
  Status ReadBytes(std::string_view* out);
  // The next `n` bytes.
  Status ReadRaw(int64_t n, const uint8_t** out);

 private:
  Status ReadInt(int32_t* out);
  Status ReadLength(int64_t* out);
  Status Need(int64_t n) const;
  Status ReadBranch(const Node& node, bool* is_null);
  // The count of the next block of an array or map (0 at the end).
  Status ReadItemCount(const Node& items, int64_t* count);
  Status CheckUtf8(std::string_view s, int64_t at) const;
  Status DecodeDecimal(const Node& node, std::string_view big_endian, ArrayBuilder* builder);

  const uint8_t* p_;
  const uint8_t* begin_;
  const uint8_t* end_;
  // Items of zero size (nulls, empty records) read in this block: bounded,
  // since their count costs no bytes.
  int64_t free_items_ = 0;
  bool validate_utf8_ = true;
};

}  // namespace quiver::avro
