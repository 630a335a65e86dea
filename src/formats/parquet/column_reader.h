// Reads one column chunk (one leaf column of one row group) into its levels
// and its non-null values, in Parquet's physical types. The Arrow bridge
// (arrow_reader.h) turns that into arrays.
//
// Values of every page are appended densely: page by page, dictionary pages
// decoded once per chunk, PLAIN fixed-width values copied with memcpy. Every
// allocation sized by the file is charged to the read's DecodeBudget.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/status.h"
#include "formats/parquet/metadata.h"
#include "formats/parquet/page_reader.h"
#include "formats/parquet/schema.h"
#include "formats/parquet/value_buffers.h"

namespace quiver::parquet {

struct ColumnChunkData {
  int64_t num_levels = 0;
  // int16 per level; null when the column's max level is 0.
  std::shared_ptr<MutableBuffer> def_levels;
  std::shared_ptr<MutableBuffer> rep_levels;
  // Entries whose definition level is the maximum: the values present.
  int64_t num_values = 0;
  // BOOLEAN: bit-packed; fixed-width types: num_values * width bytes. The
  // capacity holds num_levels values, so nulls can be spread in place.
  std::shared_ptr<MutableBuffer> values;
  // BYTE_ARRAY: int32 offsets (num_values + 1, capacity num_levels + 1) and
  // the bytes.
  std::shared_ptr<MutableBuffer> offsets;
  std::shared_ptr<MutableBuffer> data;
  // Data pages with a dictionary page before them (the column was dictionary
  // encoded).
  bool dictionary_encoded = false;

  const int16_t* def() const { return def_levels ? def_levels->data_as<int16_t>() : nullptr; }
  const int16_t* rep() const { return rep_levels ? rep_levels->data_as<int16_t>() : nullptr; }
};

// The bytes [start, start+length) of the file that hold the chunk's pages
// (from the dictionary page when there is one), checked against file_size.
Status ColumnChunkRange(const ColumnChunk& chunk, int64_t file_size, int64_t* start,
                        int64_t* length, bool pad_chunk_length = false);

// Decodes the chunk found in `file` (the whole file's bytes). `num_rows` is
// the row group's row count; `context` prefixes errors.
Status ReadColumnChunk(const uint8_t* file, int64_t file_size, const ColumnChunk& chunk,
                       const ColumnDescriptor& descr, int64_t num_rows, const std::string& context,
                       DecodeBudget* budget, const PageReaderOptions& options,
                       ColumnChunkData* out);

// Decodes, of a flat column's chunk (max repetition level 0), only the data
// pages `pages` (ascending positions in `index`, the chunk's OffsetIndex)
// and the dictionary page: out holds the rows of those pages, in order.
// `num_rows` is the row group's row count. Errors name the page when the
// index does not match the pages.
Status ReadColumnChunkPages(const uint8_t* file, int64_t file_size, const ColumnChunk& chunk,
                            const ColumnDescriptor& descr, const OffsetIndex& index,
                            const std::vector<int>& pages, int64_t num_rows,
                            const std::string& context, DecodeBudget* budget,
                            const PageReaderOptions& options, ColumnChunkData* out);

// Rows of page `page` of a flat column by its OffsetIndex.
int64_t PageRows(const OffsetIndex& index, int page, int64_t num_rows);

// Whether `index` describes pages of a chunk of `num_rows` rows: first rows
// ascending from 0, below num_rows, every page at least one byte.
bool ValidOffsetIndex(const OffsetIndex& index, int64_t num_rows);

}  // namespace quiver::parquet
