#include "formats/compression/codec.h"

#include <lz4frame.h>
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
  return Status::Invalid("unknown compression '{}' (expected none, lz4, zstd or gzip)", name);
}

const char* CodecName(Codec codec) {
  switch (codec) {
    case Codec::kNone: return "none";
    case Codec::kLz4Frame: return "lz4";
    case Codec::kZstd: return "zstd";
    case Codec::kGzip: return "gzip";
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

}  // namespace

Result<std::shared_ptr<Buffer>> Compress(Codec codec, const uint8_t* data, int64_t size, int level,
                                         MemoryPool* pool) {
  switch (codec) {
    case Codec::kNone: return Buffer::CopyFrom({reinterpret_cast<const char*>(data), static_cast<size_t>(size)}, pool);
    case Codec::kZstd: return CompressZstd(data, size, level, pool);
    case Codec::kLz4Frame: return CompressLz4(data, size, level, pool);
    case Codec::kGzip: return CompressGzip(data, size, level, pool);
  }
  return Status::Invalid("unknown codec");
}

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
    case Codec::kLz4Frame: {
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
    case Codec::kGzip: {
      QUIVER_ASSIGN_OR_RAISE(auto all, DecompressAll(codec, src, src_size, dst_size + 1));
      if (all->size() != dst_size) {
        return Status::Invalid("gzip data decoded to {} bytes, expected {}", all->size(), dst_size);
      }
      if (dst_size > 0) std::memcpy(dst, all->data(), static_cast<size_t>(dst_size));
      return Status::OK();
    }
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
