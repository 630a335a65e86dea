// Encodes one leaf column of one row group into its column chunk: pages
// (levels + values, dictionary page first when dictionary encoding is used),
// compressed, with CRCs, statistics and the page index entries.
//
// Pages end at row boundaries (repetition level 0) once they reach
// data_page_rows rows or data_page_size bytes of values. With dictionary
// encoding the dictionary grows until dictionary_page_size_limit bytes; the
// pages after that point fall back to the plain (or chosen) encoding.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "formats/compression/codec.h"
#include "formats/parquet/level_builder.h"
#include "formats/parquet/metadata.h"
#include "formats/parquet/schema_writer.h"

namespace quiver::parquet {

struct ColumnWriterOptions {
  compression::Codec codec = compression::Codec::kZstd;
  int compression_level = compression::kDefaultLevel;
  int data_page_version = 1;  // 1 or 2
  int64_t data_page_size = 1 << 20;
  int64_t data_page_rows = 20000;
  bool dictionary = true;
  int64_t dictionary_page_size_limit = 1 << 20;
  // Encoding of values that are not dictionary-encoded, for the columns
  // whose type it fits (others, and the default: PLAIN; RLE for booleans in
  // V2 pages).
  std::optional<Encoding> encoding;
  bool statistics = true;
  bool page_index = true;
  bool page_checksum = true;
  MemoryPool* pool = DefaultMemoryPool();
};

struct EncodedColumnChunk {
  // The pages of the chunk (header + body each, the dictionary page first),
  // ready to be written in this order.
  std::vector<std::string> pages;
  // Offsets in here (data_page_offset, dictionary_page_offset, the offset
  // index's page offsets) are relative to the chunk's start; the file writer
  // adds where the chunk lands.
  ColumnMetaData meta;
  std::optional<ColumnIndex> column_index;
  OffsetIndex offset_index;
  // The dictionary did not hold every value (or was given up on).
  bool dictionary_overflowed = false;
};

// `indices` is scratch space for dictionary indices, reused between calls.
Status EncodeColumnChunk(const WriterSchema::Leaf& leaf, const LeafValues& values,
                         const ColumnWriterOptions& options, EncodedColumnChunk* out,
                         std::vector<int32_t>* indices = nullptr);

}  // namespace quiver::parquet
