// Page iteration over one column chunk: decodes each PageHeader, checks the
// page's bounds and CRC, and decompresses its body (see parquet_format.h for
// the page layouts). Uncompressed bodies are views of the file's bytes.
//
// Not thread-safe; one PageReader per column chunk being read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/buffer.h"
#include "common/status.h"
#include "formats/compression/codec.h"
#include "formats/parquet/metadata.h"
#include "formats/parquet/value_buffers.h"

namespace quiver::parquet {

struct Page {
  PageType type = PageType::kDataPage;
  int64_t index = 0;       // 0-based position in the chunk (for messages)
  int32_t num_values = 0;  // levels (data pages) or dictionary entries
  Encoding encoding = Encoding::kPlain;
  // V1: levels are at the front of `data`, with these encodings.
  Encoding def_level_encoding = Encoding::kRle;
  Encoding rep_level_encoding = Encoding::kRle;
  // V2: levels apart from the values (never compressed), num_nulls / num_rows.
  bool v2 = false;
  const uint8_t* rep_levels = nullptr;
  int64_t rep_levels_size = 0;
  const uint8_t* def_levels = nullptr;
  int64_t def_levels_size = 0;
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  // The (decompressed) body; for V2 the values section only. Valid until the
  // next call to Next().
  const uint8_t* data = nullptr;
  int64_t size = 0;
};

struct PageReaderOptions {
  bool verify_crc = true;
  // parquet-mr up to 1.2.8 left the dictionary page header out of
  // total_compressed_size (PARQUET-816): read up to 100 bytes further.
  bool pad_chunk_length = false;
  MemoryPool* pool = DefaultMemoryPool();
};

// Maps a Parquet codec id to Quiver's codec, or an error naming it.
Result<compression::Codec> CodecFromParquet(CompressionCodec codec);

class PageReader {
 public:
  // `chunk` holds the column chunk's pages; `context` prefixes errors
  // ("FILE: row group 1, column 'a.b'"). Decompression scratch is charged
  // to `budget` as it grows.
  PageReader(const uint8_t* chunk, int64_t chunk_size, compression::Codec codec,
             std::string context, DecodeBudget* budget, PageReaderOptions options)
      : chunk_(chunk),
        size_(chunk_size),
        codec_(codec),
        context_(std::move(context)),
        budget_(budget),
        options_(options) {}

  // The next dictionary or data page; *done at the end of the chunk. Index
  // pages and unknown page types are skipped.
  Status Next(Page* page, bool* done);

  // Moves to byte `offset` of the chunk, where page number `index` starts
  // (an OffsetIndex location), so that Next() reads that page.
  Status Seek(int64_t offset, int64_t index);
  // Byte offset in the chunk of the next page header.
  int64_t position() const { return pos_; }

  const std::string& context() const { return context_; }
  // "<context>, page N"
  std::string PageContext(int64_t index) const;

 private:
  Status Decompress(const uint8_t* src, int64_t src_size, int64_t dst_size, const uint8_t** out);

  const uint8_t* chunk_;
  int64_t size_;
  compression::Codec codec_;
  std::string context_;
  DecodeBudget* budget_;
  PageReaderOptions options_;
  int64_t pos_ = 0;
  int64_t page_index_ = 0;
  std::shared_ptr<MutableBuffer> scratch_;
};

}  // namespace quiver::parquet
