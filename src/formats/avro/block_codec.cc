// Avro block codecs (see avro_format.h): raw deflate through zlib, snappy
// with its trailing CRC-32, zstd frames through the shared codec module.
#include <snappy.h>
#include <zlib.h>

#include <cstring>

#include "formats/avro/avro_format.h"
#include "formats/compression/codec.h"

namespace quiver::avro {

Result<BlockCodec> BlockCodecFromName(std::string_view name) {
  if (name.empty() || name == "null") return BlockCodec::kNull;
  if (name == "deflate") return BlockCodec::kDeflate;
  if (name == "snappy") return BlockCodec::kSnappy;
  if (name == "zstandard") return BlockCodec::kZstd;
  std::string shown(name.substr(0, 40));
  return Status::Unsupported("Avro codec '{}' (Quiver reads null, deflate, snappy and zstandard)",
                             shown);
}

const char* BlockCodecName(BlockCodec codec) {
  switch (codec) {
    case BlockCodec::kNull: return "null";
    case BlockCodec::kDeflate: return "deflate";
    case BlockCodec::kSnappy: return "snappy";
    case BlockCodec::kZstd: return "zstandard";
  }
  return "?";
}

namespace {

Status Inflate(const uint8_t* data, int64_t size, int64_t max_size, std::string* out) {
  z_stream z{};
  if (inflateInit2(&z, -15) != Z_OK) return Status::OutOfMemory("zlib inflateInit2");
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(size);
  out->clear();
  size_t have = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (have == out->size()) {
      if (static_cast<int64_t>(have) > max_size) {
        inflateEnd(&z);
        return Status::Invalid("deflate block inflates past {} bytes", max_size);
      }
      const size_t next = std::min<size_t>(std::max<size_t>(out->size() * 2, static_cast<size_t>(size) * 3 + 1024),
                                           static_cast<size_t>(max_size) + 1);
      out->resize(next);
    }
    z.next_out = reinterpret_cast<Bytef*>(out->data() + have);
    z.avail_out = static_cast<uInt>(std::min<size_t>(out->size() - have, 1u << 30));
    const uInt before = z.avail_out;
    rc = inflate(&z, Z_NO_FLUSH);
    have += before - z.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc == Z_BUF_ERROR && z.avail_in == 0) {
      inflateEnd(&z);
      return Status::Invalid("deflate data is truncated");
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      inflateEnd(&z);
      return Status::Invalid("corrupt deflate data ({})", z.msg != nullptr ? z.msg : "zlib error");
    }
    if (static_cast<int64_t>(have) > max_size) {
      inflateEnd(&z);
      return Status::Invalid("deflate block inflates past {} bytes", max_size);
    }
  }
  inflateEnd(&z);
  out->resize(have);
  return Status::OK();
}

uint32_t BigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

}  // namespace

Status DecompressBlock(BlockCodec codec, const uint8_t* data, int64_t size, int64_t max_size,
                       std::string* out) {
  switch (codec) {
    case BlockCodec::kNull:
      out->assign(reinterpret_cast<const char*>(data), static_cast<size_t>(size));
      return Status::OK();
    case BlockCodec::kDeflate:
      return Inflate(data, size, max_size, out);
    case BlockCodec::kSnappy: {
      if (size < 4) return Status::Invalid("snappy block of {} bytes has no CRC", size);
      size_t n = 0;
      const char* src = reinterpret_cast<const char*>(data);
      if (!snappy::GetUncompressedLength(src, static_cast<size_t>(size - 4), &n)) {
        return Status::Invalid("corrupt snappy data");
      }
      if (static_cast<int64_t>(n) > max_size) {
        return Status::Invalid("snappy block claims {} bytes, more than {}", n, max_size);
      }
      out->resize(n);
      if (!snappy::RawUncompress(src, static_cast<size_t>(size - 4), out->data())) {
        return Status::Invalid("corrupt snappy data");
      }
      const uint32_t crc = static_cast<uint32_t>(
          crc32(0, reinterpret_cast<const Bytef*>(out->data()), static_cast<uInt>(n)));
      if (crc != BigEndian32(data + size - 4)) {
        return Status::Invalid("snappy block CRC mismatch");
      }
      return Status::OK();
    }
    case BlockCodec::kZstd: {
      QUIVER_ASSIGN_OR_RAISE(auto buf, compression::DecompressAll(compression::Codec::kZstd, data,
                                                                  size, max_size));
      out->assign(reinterpret_cast<const char*>(buf->data()), static_cast<size_t>(buf->size()));
      return Status::OK();
    }
  }
  return Status::Invalid("unknown codec");
}

Status CompressBlock(BlockCodec codec, std::string_view data, int level, std::string* out) {
  switch (codec) {
    case BlockCodec::kNull:
      out->assign(data);
      return Status::OK();
    case BlockCodec::kDeflate: {
      z_stream z{};
      const int lvl = level == compression::kDefaultLevel ? Z_DEFAULT_COMPRESSION : level;
      if (deflateInit2(&z, lvl, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        return Status::Invalid("deflate level {} is not valid", level);
      }
      out->resize(deflateBound(&z, static_cast<uLong>(data.size())));
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
      z.avail_in = static_cast<uInt>(data.size());
      z.next_out = reinterpret_cast<Bytef*>(out->data());
      z.avail_out = static_cast<uInt>(out->size());
      const int rc = deflate(&z, Z_FINISH);
      out->resize(z.total_out);
      deflateEnd(&z);
      if (rc != Z_STREAM_END) return Status::IOError("deflate failed");
      return Status::OK();
    }
    case BlockCodec::kSnappy: {
      out->clear();
      snappy::Compress(data.data(), data.size(), out);
      const uint32_t crc = static_cast<uint32_t>(
          crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
      for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(crc >> shift));
      return Status::OK();
    }
    case BlockCodec::kZstd: {
      QUIVER_ASSIGN_OR_RAISE(
          auto buf, compression::Compress(compression::Codec::kZstd,
                                          reinterpret_cast<const uint8_t*>(data.data()),
                                          static_cast<int64_t>(data.size()), level));
      out->assign(reinterpret_cast<const char*>(buf->data()), static_cast<size_t>(buf->size()));
      return Status::OK();
    }
  }
  return Status::Invalid("unknown codec");
}

}  // namespace quiver::avro
