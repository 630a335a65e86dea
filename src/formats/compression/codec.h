// Compression codecs used by file formats: LZ4 frame and ZSTD for Arrow IPC
// body compression, gzip and zstd for compressed CSV input.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "columnar/buffer.h"
#include "common/status.h"

namespace quiver::compression {

enum class Codec : int8_t { kNone, kLz4Frame, kZstd, kGzip };

// Accepts "none"/"uncompressed", "lz4"/"lz4_frame", "zstd", "gzip"/"gz".
Result<Codec> CodecFromName(std::string_view name);
const char* CodecName(Codec codec);

// Sniffs gzip (1f 8b) or zstd (28 b5 2f fd) magic; kNone otherwise.
Codec DetectCodec(const uint8_t* data, int64_t size);

// Default level: zstd 1, gzip 6, lz4 0 (fast).
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
