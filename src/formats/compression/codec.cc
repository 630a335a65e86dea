#include "formats/compression/codec.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <lz4.h>
#include <lz4frame.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>

namespace quiver::compression {

Result<Codec> CodecFromName(std::string_view name) {
  std::string n(name);
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  if (n == "none" || n == "uncompressed" || n.empty()) return Codec::kNone;
  if (n == "lz4" || n == "lz4_frame") return Codec::kLz4Frame;
  if (n == "zstd" || n == "zst") return Codec::kZstd;
  if (n == "gzip" || n == "gz") return Codec::kGzip;
  if (n == "snappy") return Codec::kSnappy;
  if (n == "brotli" || n == "br") return Codec::kBrotli;
  if (n == "lz4_raw") return Codec::kLz4Raw;
  return Status::Invalid(
      "unknown compression '{}' (expected none, lz4, zstd, gzip, snappy, brotli or lz4_raw)", name);
}

const char* CodecName(Codec codec) {
  switch (codec) {
    case Codec::kNone: return "none";
    case Codec::kLz4Frame: return "lz4";
    case Codec::kZstd: return "zstd";
    case Codec::kGzip: return "gzip";
    case Codec::kSnappy: return "snappy";
    case Codec::kBrotli: return "brotli";
    case Codec::kLz4Raw: return "lz4_raw";
    case Codec::kLz4Hadoop: return "lz4_hadoop";
  }
  return "?";
}

Codec DetectCodec(const uint8_t* data, int64_t size) {
  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) return Codec::kGzip;
  if (size >= 4 && data[0] == 0x28 && data[1] == 0xb5 && data[2] == 0x2f && data[3] == 0xfd) {
    return Codec::kZstd;
  }
  return Codec::kNone;
}

namespace {

Result<std::shared_ptr<Buffer>> CompressZstd(const uint8_t* data, int64_t size, int level,
                                             MemoryPool* pool) {
  if (level == kDefaultLevel) level = 1;
  const size_t bound = ZSTD_compressBound(static_cast<size_t>(size));
  QUIVER_ASSIGN_OR_RAISE(auto out, MutableBuffer::Allocate(static_cast<int64_t>(bound), pool));
  size_t n = ZSTD_compress(out->mutable_data(), bound, data, static_cast<size_t>(size), level);
  if (ZSTD_isError(n)) return Status::IOError("zstd compression failed: {}", ZSTD_getErrorName(n));
  QUIVER_RETURN_NOT_OK(out->Resize(static_cast<int64_t>(n)));
  out->ZeroPadding();
  return std::shared_ptr<Buffer>(std::move(out));
}

Result<std::shared_ptr<Buffer>> CompressLz4(const uint8_t* data, int64_t size, int level,
                                            MemoryPool* pool) {
  LZ4F_preferences_t prefs;
  std::memset(&prefs, 0, sizeof(prefs));
  prefs.compressionLevel = level == kDefaultLevel ? 0 : level;
  const size_t bound = LZ4F_compressFrameBound(static_cast<size_t>(size), &prefs);
  QUIVER_ASSIGN_OR_RAISE(auto out, MutableBuffer::Allocate(static_cast<int64_t>(bound), pool));
  size_t n = LZ4F_compressFrame(out->mutable_data(), bound, data, static_cast<size_t>(size), &prefs);
  if (LZ4F_isError(n)) return Status::IOError("lz4 compression failed: {}", LZ4F_getErrorName(n));
  QUIVER_RETURN_NOT_OK(out->Resize(static_cast<int64_t>(n)));
  out->ZeroPadding();
  return std::shared_ptr<Buffer>(std::move(out));
}

Result<std::shared_ptr<Buffer>> CompressGzip(const uint8_t* data, int64_t size, int level,
                                             MemoryPool* pool) {
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (deflateInit2(&zs, level == kDefaultLevel ? 6 : level, Z_DEFLATED, 15 + 16, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::IOError("gzip: deflateInit failed");
  }
  const uLong bound = deflateBound(&zs, static_cast<uLong>(size)) + 32;
  auto out_r = MutableBuffer::Allocate(static_cast<int64_t>(bound), pool);
  if (!out_r.ok()) {
    deflateEnd(&zs);
    return out_r.status();
  }
  auto out = std::move(out_r).ValueOrDie();
  zs.next_in = const_cast<Bytef*>(data);
  zs.avail_in = static_cast<uInt>(size);
  zs.next_out = out->mutable_data();
  zs.avail_out = static_cast<uInt>(bound);
  int rc = deflate(&zs, Z_FINISH);
  const int64_t produced = static_cast<int64_t>(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Status::IOError("gzip compression failed");
  QUIVER_RETURN_NOT_OK(out->Resize(produced));
  out->ZeroPadding();
  return std::shared_ptr<Buffer>(std::move(out));
}

Result<std::shared_ptr<Buffer>> CompressSnappy(const uint8_t* data, int64_t size,
                                               MemoryPool* pool) {
  const size_t bound = snappy::MaxCompressedLength(static_cast<size_t>(size));
  QUIVER_ASSIGN_OR_RAISE(auto out, MutableBuffer::Allocate(static_cast<int64_t>(bound), pool));
  size_t n = 0;
  snappy::RawCompress(reinterpret_cast<const char*>(data), static_cast<size_t>(size),
                      out->mutable_data_as<char>(), &n);
  QUIVER_RETURN_NOT_OK(out->Resize(static_cast<int64_t>(n)));
  out->ZeroPadding();
  return std::shared_ptr<Buffer>(std::move(out));
}

Result<std::shared_ptr<Buffer>> CompressBrotli(const uint8_t* data, int64_t size, int level,
                                               MemoryPool* pool) {
  if (level == kDefaultLevel) level = 8;
  if (level < BROTLI_MIN_QUALITY || level > BROTLI_MAX_QUALITY) {
    return Status::Invalid("brotli level must be in [{}, {}], got {}", BROTLI_MIN_QUALITY,
                           BROTLI_MAX_QUALITY, level);
  }
  size_t n = BrotliEncoderMaxCompressedSize(static_cast<size_t>(size));
  if (n == 0) return Status::Invalid("brotli: input of {} bytes is too large", size);
  QUIVER_ASSIGN_OR_RAISE(auto out, MutableBuffer::Allocate(static_cast<int64_t>(n), pool));
  if (!BrotliEncoderCompress(level, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC,
                             static_cast<size_t>(size), data, &n, out->mutable_data())) {
    return Status::IOError("brotli compression failed");
  }
  QUIVER_RETURN_NOT_OK(out->Resize(static_cast<int64_t>(n)));
  out->ZeroPadding();
  return std::shared_ptr<Buffer>(std::move(out));
}

Result<std::shared_ptr<Buffer>> CompressLz4Raw(const uint8_t* data, int64_t size, int level,
                                               MemoryPool* pool) {
  if (size > LZ4_MAX_INPUT_SIZE) {
    return Status::Invalid("lz4: input of {} bytes is too large for one block", size);
  }
  const int bound = LZ4_compressBound(static_cast<int>(size));
  QUIVER_ASSIGN_OR_RAISE(auto out, MutableBuffer::Allocate(bound, pool));
  const int acceleration = level == kDefaultLevel || level < 1 ? 1 : level;
  const int n = LZ4_compress_fast(reinterpret_cast<const char*>(data), out->mutable_data_as<char>(),
                                  static_cast<int>(size), bound, acceleration);
  if (n <= 0 && size > 0) return Status::IOError("lz4 compression failed");
  QUIVER_RETURN_NOT_OK(out->Resize(n));
  out->ZeroPadding();
  return std::shared_ptr<Buffer>(std::move(out));
}

}  // namespace

Result<std::shared_ptr<Buffer>> Compress(Codec codec, const uint8_t* data, int64_t size, int level,
                                         MemoryPool* pool) {
  switch (codec) {
    case Codec::kNone: return Buffer::CopyFrom({reinterpret_cast<const char*>(data), static_cast<size_t>(size)}, pool);
    case Codec::kZstd: return CompressZstd(data, size, level, pool);
    case Codec::kLz4Frame: return CompressLz4(data, size, level, pool);
    case Codec::kGzip: return CompressGzip(data, size, level, pool);
    case Codec::kSnappy: return CompressSnappy(data, size, pool);
    case Codec::kBrotli: return CompressBrotli(data, size, level, pool);
    case Codec::kLz4Raw: return CompressLz4Raw(data, size, level, pool);
    case Codec::kLz4Hadoop:
      return Status::Unsupported("writing Hadoop-framed LZ4 (use lz4_raw)");
  }
  return Status::Invalid("unknown codec");
}

namespace {

Status DecompressLz4Frame(const uint8_t* src, int64_t src_size, uint8_t* dst, int64_t dst_size) {
  LZ4F_dctx* ctx = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION))) {
    return Status::OutOfMemory("lz4: cannot create a decompression context");
  }
  size_t in_left = static_cast<size_t>(src_size);
  size_t out_done = 0;
  const uint8_t* in = src;
  Status st;
  for (;;) {
    size_t out_avail = static_cast<size_t>(dst_size) - out_done;
    size_t in_avail = in_left;
    size_t hint = LZ4F_decompress(ctx, dst + out_done, &out_avail, in, &in_avail, nullptr);
    if (LZ4F_isError(hint)) {
      st = Status::Invalid("corrupt lz4 data: {}", LZ4F_getErrorName(hint));
      break;
    }
    in += in_avail;
    in_left -= in_avail;
    out_done += out_avail;
    if (hint == 0) {
      if (in_left == 0) break;
      continue;  // another concatenated frame
    }
    if (in_left == 0 || (in_avail == 0 && out_avail == 0)) {
      st = Status::Invalid("truncated lz4 data");
      break;
    }
  }
  LZ4F_freeDecompressionContext(ctx);
  QUIVER_RETURN_NOT_OK(st);
  if (static_cast<int64_t>(out_done) != dst_size) {
    return Status::Invalid("lz4 data decoded to {} bytes, expected {}", out_done, dst_size);
  }
  return Status::OK();
}

Status DecompressLz4Raw(const uint8_t* src, int64_t src_size, uint8_t* dst, int64_t dst_size) {
  if (src_size > INT32_MAX || dst_size > INT32_MAX) {
    return Status::Invalid("lz4 block of {} bytes is too large", std::max(src_size, dst_size));
  }
  const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(src), reinterpret_cast<char*>(dst),
                                    static_cast<int>(src_size), static_cast<int>(dst_size));
  if (n < 0) return Status::Invalid("corrupt lz4 data");
  if (n != dst_size) return Status::Invalid("lz4 data decoded to {} bytes, expected {}", n, dst_size);
  return Status::OK();
}

uint32_t LoadBigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// Hadoop's block framing (see codec.h); false when the bytes are not framed
// that way, so the caller can try the other LZ4 layouts.
bool DecompressLz4HadoopFramed(const uint8_t* src, int64_t src_size, uint8_t* dst,
                               int64_t dst_size) {
  int64_t in = 0;
  int64_t out = 0;
  while (in < src_size) {
    if (src_size - in < 8) return false;
    const int64_t raw = LoadBigEndian32(src + in);
    const int64_t packed = LoadBigEndian32(src + in + 4);
    in += 8;
    if (packed > src_size - in || raw > dst_size - out) return false;
    if (raw > 0 || packed > 0) {
      const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(src + in),
                                        reinterpret_cast<char*>(dst + out),
                                        static_cast<int>(packed), static_cast<int>(raw));
      if (n != raw) return false;
    }
    in += packed;
    out += raw;
  }
  return out == dst_size;
}

// zlib or gzip data (concatenated gzip members too) straight into dst.
Status InflateInto(const uint8_t* src, int64_t src_size, uint8_t* dst, int64_t dst_size) {
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return Status::IOError("gzip: inflateInit failed");
  int64_t in_pos = 0;
  int64_t out_pos = 0;
  uint8_t overflow = 0;  // one byte to notice data beyond dst_size
  Status st;
  for (;;) {
    const int64_t in_avail = std::min<int64_t>(src_size - in_pos, UINT32_MAX);
    const bool full = out_pos == dst_size;
    const int64_t out_avail = full ? 1 : std::min<int64_t>(dst_size - out_pos, UINT32_MAX);
    zs.next_in = const_cast<Bytef*>(src + in_pos);
    zs.avail_in = static_cast<uInt>(in_avail);
    zs.next_out = full ? &overflow : dst + out_pos;
    zs.avail_out = static_cast<uInt>(out_avail);
    const int rc = inflate(&zs, Z_NO_FLUSH);
    const int64_t consumed = in_avail - zs.avail_in;
    const int64_t produced = out_avail - zs.avail_out;
    in_pos += consumed;
    if (full && produced > 0) {
      st = Status::Invalid("gzip data decodes to more than the {} bytes expected", dst_size);
      break;
    }
    out_pos += full ? 0 : produced;
    if (rc == Z_STREAM_END) {
      if (in_pos == src_size) break;
      if (inflateReset(&zs) != Z_OK) {  // another gzip member follows
        st = Status::Invalid("corrupt gzip data");
        break;
      }
      continue;
    }
    if (rc == Z_OK && (consumed > 0 || produced > 0)) continue;
    if (rc == Z_OK || rc == Z_BUF_ERROR) {
      st = in_pos == src_size ? Status::Invalid("truncated gzip data")
                              : Status::Invalid("gzip data decodes to more than the {} bytes expected",
                                                dst_size);
      break;
    }
    st = Status::Invalid("corrupt gzip data at input byte {}: {}", in_pos,
                         zs.msg ? zs.msg : "inflate failed");
    break;
  }
  inflateEnd(&zs);
  QUIVER_RETURN_NOT_OK(st);
  if (out_pos != dst_size) {
    return Status::Invalid("gzip data decoded to {} bytes, expected {}", out_pos, dst_size);
  }
  return Status::OK();
}

}  // namespace

Status DecompressInto(Codec codec, const uint8_t* src, int64_t src_size, uint8_t* dst,
                      int64_t dst_size) {
  switch (codec) {
    case Codec::kNone:
      if (src_size != dst_size) return Status::Invalid("uncompressed size mismatch");
      if (dst_size > 0) std::memcpy(dst, src, static_cast<size_t>(dst_size));
      return Status::OK();
    case Codec::kZstd: {
      size_t n = ZSTD_decompress(dst, static_cast<size_t>(dst_size), src, static_cast<size_t>(src_size));
      if (ZSTD_isError(n)) return Status::Invalid("corrupt zstd data: {}", ZSTD_getErrorName(n));
      if (static_cast<int64_t>(n) != dst_size) {
        return Status::Invalid("zstd data decoded to {} bytes, expected {}", n, dst_size);
      }
      return Status::OK();
    }
    case Codec::kLz4Frame:
      return DecompressLz4Frame(src, src_size, dst, dst_size);
    case Codec::kLz4Raw:
      return DecompressLz4Raw(src, src_size, dst, dst_size);
    case Codec::kLz4Hadoop: {
      if (DecompressLz4HadoopFramed(src, src_size, dst, dst_size)) return Status::OK();
      static const uint8_t kFrameMagic[4] = {0x04, 0x22, 0x4d, 0x18};
      if (src_size >= 4 && std::memcmp(src, kFrameMagic, 4) == 0) {
        return DecompressLz4Frame(src, src_size, dst, dst_size);
      }
      return DecompressLz4Raw(src, src_size, dst, dst_size);
    }
    case Codec::kSnappy: {
      size_t n = 0;
      const char* in = reinterpret_cast<const char*>(src);
      if (!snappy::GetUncompressedLength(in, static_cast<size_t>(src_size), &n)) {
        return Status::Invalid("corrupt snappy data");
      }
      if (static_cast<int64_t>(n) != dst_size) {
        return Status::Invalid("snappy data decodes to {} bytes, expected {}", n, dst_size);
      }
      if (!snappy::RawUncompress(in, static_cast<size_t>(src_size), reinterpret_cast<char*>(dst))) {
        return Status::Invalid("corrupt snappy data");
      }
      return Status::OK();
    }
    case Codec::kBrotli: {
      size_t n = static_cast<size_t>(dst_size);
      if (BrotliDecoderDecompress(static_cast<size_t>(src_size), src, &n, dst) !=
          BROTLI_DECODER_RESULT_SUCCESS) {
        return Status::Invalid("corrupt brotli data (or more than the {} bytes expected)", dst_size);
      }
      if (static_cast<int64_t>(n) != dst_size) {
        return Status::Invalid("brotli data decoded to {} bytes, expected {}", n, dst_size);
      }
      return Status::OK();
    }
    case Codec::kGzip:
      return InflateInto(src, src_size, dst, dst_size);
  }
  return Status::Invalid("unknown codec");
}

namespace {

Status GrowFor(MutableBuffer* out, int64_t produced, int64_t max_size) {
  if (produced < out->capacity()) return Status::OK();
  if (produced >= max_size) {
    return Status::Invalid("decompressed data exceeds the limit of {} bytes", max_size);
  }
  return out->Reserve(std::min<int64_t>(max_size, out->capacity() * 2));
}

}  // namespace

Result<std::shared_ptr<Buffer>> DecompressAll(Codec codec, const uint8_t* src, int64_t size,
                                              int64_t max_size, MemoryPool* pool) {
  if (codec == Codec::kNone) {
    return Buffer::CopyFrom({reinterpret_cast<const char*>(src), static_cast<size_t>(size)}, pool);
  }
  QUIVER_ASSIGN_OR_RAISE(auto out, MutableBuffer::Allocate(0, pool));
  QUIVER_RETURN_NOT_OK(out->Reserve(std::min<int64_t>(std::max<int64_t>(size * 4, 1 << 16), max_size)));
  int64_t produced = 0;
  if (codec == Codec::kZstd) {
    ZSTD_DStream* ds = ZSTD_createDStream();
    if (ds == nullptr) return Status::OutOfMemory("zstd: cannot create a stream");
    ZSTD_inBuffer in{src, static_cast<size_t>(size), 0};
    size_t last = 0;
    Status st;
    while (in.pos < in.size) {
      st = GrowFor(out.get(), produced, max_size);
      if (!st.ok()) break;
      ZSTD_outBuffer ob{out->mutable_data() + produced, static_cast<size_t>(out->capacity() - produced), 0};
      last = ZSTD_decompressStream(ds, &ob, &in);
      if (ZSTD_isError(last)) {
        st = Status::Invalid("corrupt zstd data at input byte {}: {}", in.pos, ZSTD_getErrorName(last));
        break;
      }
      produced += static_cast<int64_t>(ob.pos);
      if (ob.pos == 0 && in.pos < in.size && last != 0 && produced < out->capacity()) continue;
    }
    // Flush whatever the decoder still holds.
    while (st.ok() && last != 0) {
      st = GrowFor(out.get(), produced, max_size);
      if (!st.ok()) break;
      ZSTD_outBuffer ob{out->mutable_data() + produced, static_cast<size_t>(out->capacity() - produced), 0};
      last = ZSTD_decompressStream(ds, &ob, &in);
      if (ZSTD_isError(last)) {
        st = Status::Invalid("corrupt zstd data: {}", ZSTD_getErrorName(last));
        break;
      }
      produced += static_cast<int64_t>(ob.pos);
      if (ob.pos == 0) {
        st = Status::Invalid("truncated zstd data");
        break;
      }
    }
    ZSTD_freeDStream(ds);
    QUIVER_RETURN_NOT_OK(st);
  } else if (codec == Codec::kGzip) {
    z_stream zs;
    std::memset(&zs, 0, sizeof(zs));
    if (inflateInit2(&zs, 15 + 32) != Z_OK) return Status::IOError("gzip: inflateInit failed");
    zs.next_in = const_cast<Bytef*>(src);
    zs.avail_in = static_cast<uInt>(std::min<int64_t>(size, UINT32_MAX));
    int64_t in_left = size - zs.avail_in;
    Status st;
    for (;;) {
      st = GrowFor(out.get(), produced, max_size);
      if (!st.ok()) break;
      const int64_t room = std::min<int64_t>(out->capacity() - produced, UINT32_MAX);
      zs.next_out = out->mutable_data() + produced;
      zs.avail_out = static_cast<uInt>(room);
      int rc = inflate(&zs, Z_NO_FLUSH);
      produced += room - zs.avail_out;
      if (zs.avail_in == 0 && in_left > 0) {
        const int64_t chunk = std::min<int64_t>(in_left, UINT32_MAX);
        zs.avail_in = static_cast<uInt>(chunk);
        in_left -= chunk;
      }
      if (rc == Z_STREAM_END) {
        if (zs.avail_in == 0 && in_left == 0) break;
        // Concatenated gzip members (e.g. `cat a.gz b.gz`).
        if (inflateReset(&zs) != Z_OK) {
          st = Status::Invalid("corrupt gzip data");
          break;
        }
        continue;
      }
      if (rc == Z_BUF_ERROR && zs.avail_in == 0 && in_left == 0) {
        st = Status::Invalid("truncated gzip data");
        break;
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        st = Status::Invalid("corrupt gzip data at input byte {}: {}", zs.total_in,
                             zs.msg ? zs.msg : "inflate failed");
        break;
      }
    }
    inflateEnd(&zs);
    QUIVER_RETURN_NOT_OK(st);
  } else {
    return Status::Unsupported("streaming decompression of {}", CodecName(codec));
  }
  QUIVER_RETURN_NOT_OK(out->Resize(produced));
  out->ZeroPadding();
  return std::shared_ptr<Buffer>(std::move(out));
}

}  // namespace quiver::compression
