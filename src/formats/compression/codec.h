// Compression codecs used by file formats: LZ4 frame and ZSTD for Arrow IPC
// body compression, gzip and zstd for compressed CSV input, and the Parquet
// page codecs: snappy, gzip (zlib or gzip framing, concatenated members),
// brotli, zstd, raw LZ4 blocks (LZ4_RAW) and the legacy Hadoop-framed LZ4.
//
// Hadoop LZ4 framing (Parquet's deprecated "LZ4" codec), repeated until the
// input ends:
//   uint32 big-endian  decompressed size of the block
//   uint32 big-endian  compressed size of the block
//   raw LZ4 block      (compressed size bytes)
// Some writers stored plain raw LZ4 (or an LZ4 frame) under that codec id, so
// kLz4Hadoop falls back to those when the framing does not add up.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "common/buffer.h"
#include "common/status.h"

namespace quiver::compression {

enum class Codec : int8_t {
  kNone,
  kLz4Frame,
  kZstd,
  kGzip,
  kSnappy,
  kBrotli,
  kLz4Raw,     // one raw LZ4 block (Parquet LZ4_RAW)
  kLz4Hadoop,  // Hadoop block framing (Parquet's deprecated LZ4); decompression only
};

// Accepts "none"/"uncompressed", "lz4"/"lz4_frame", "zstd", "gzip"/"gz",
// "snappy", "brotli", "lz4_raw".
Result<Codec> CodecFromName(std::string_view name);
const char* CodecName(Codec codec);

// Sniffs gzip (1f 8b) or zstd (28 b5 2f fd) magic; kNone otherwise.
Codec DetectCodec(const uint8_t* data, int64_t size);

// Default level: zstd 1, gzip 6, lz4 0 (fast), brotli 8.
inline constexpr int kDefaultLevel = -1000;

// One-shot compression into a new buffer.
Result<std::shared_ptr<Buffer>> Compress(Codec codec, const uint8_t* data, int64_t size,
                                         int level = kDefaultLevel,
                                         MemoryPool* pool = DefaultMemoryPool());

// Decompresses exactly `dst_size` bytes (IPC stores the uncompressed length).
// Fails if the input is corrupt or decodes to a different length.
Status DecompressInto(Codec codec, const uint8_t* src, int64_t src_size, uint8_t* dst,
                      int64_t dst_size);

// Decompresses a whole stream of unknown decoded size (a .gz or .zst file;
// concatenated gzip members and zstd frames are all decoded). `max_size` caps
// the output to defend against decompression bombs.
Result<std::shared_ptr<Buffer>> DecompressAll(Codec codec, const uint8_t* src, int64_t size,
                                              int64_t max_size = int64_t{1} << 40,
                                              MemoryPool* pool = DefaultMemoryPool());

}  // namespace quiver::compression
