// Reading Parquet files into Arrow record batches.
//
//   ParquetFileReader: footer -> SchemaDescriptor + Arrow schema (arrow_schema.h)
//     ReadRowGroup(i, fields)
//       for each leaf column of the fields, in parallel:  ReadColumnChunk
//         (page_reader.h -> levels + values, encodings in their own files)
//       for each field, in parallel: AssembleField (arrow_reader.h), then the
//         ARROW:schema types (arrow_hints.h) and validation
//
// The file is memory-mapped; uncompressed pages are decoded straight from
// the mapping. Only the requested fields' column chunks are touched.
//
// Thread-safety: after Open() every method is const and thread-safe;
// several row groups can be read at once from any threads, including
// thread-pool tasks (the per-column fan-out never waits on queued tasks).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "common/status.h"
#include "formats/parquet/arrow_schema.h"
#include "formats/parquet/metadata.h"
#include "formats/parquet/schema.h"

namespace quiver::parquet {

struct ParquetReadOptions {
  // Check page CRCs where the writer stored them.
  bool verify_crc = true;
  // Restore Arrow types from the ARROW:schema footer entry.
  bool use_stored_arrow_schema = true;
  // Validate every array fully (UTF-8 of strings, every offset); structural
  // checks are always made.
  bool validate_full = true;
  // Decode the columns of a row group on several threads.
  bool parallel = true;
  // What one row-group read may materialise: the larger of
  // min_decode_budget and decode_ratio times the compressed bytes it reads.
  // Protects against files that claim far more values than they hold.
  int64_t min_decode_budget = int64_t{1} << 30;
  int64_t decode_ratio = 1024;
  MemoryPool* pool = DefaultMemoryPool();
};

// Rows [begin, end) of a row group.
struct RowRange {
  int64_t begin = 0;
  int64_t end = 0;
};

class ParquetFileReader {
 public:
  // Maps `path` and parses its footer.
  static Result<std::shared_ptr<ParquetFileReader>> Open(const std::string& path,
                                                         const ParquetReadOptions& options = {});
  // A file held in memory; `name` is used in errors.
  static Result<std::shared_ptr<ParquetFileReader>> Open(std::shared_ptr<Buffer> data,
                                                         std::string name,
                                                         const ParquetReadOptions& options = {});

  const std::string& name() const { return name_; }
  int64_t file_size() const { return data_->size(); }
  const FileMetaData& metadata() const { return metadata_; }
  const SchemaDescriptor& parquet_schema() const { return schema_; }
  // The Arrow schema (one field per top-level Parquet field).
  const SchemaRef& schema() const { return arrow_.schema; }
  const ArrowSchemaInfo& arrow_schema_info() const { return arrow_; }

  int num_row_groups() const { return static_cast<int>(metadata_.row_groups.size()); }
  int64_t num_rows() const { return metadata_.num_rows; }
  int64_t row_group_rows(int i) const { return metadata_.row_groups[i].num_rows; }
  // Compressed bytes of the given fields' column chunks in row group i.
  int64_t row_group_bytes(int i, const std::vector<int>& fields) const;

  // Row group i with only `fields` (indices into schema(), in that order;
  // empty = all). Errors name the file, row group, column and page.
  Result<RecordBatchRef> ReadRowGroup(int i, const std::vector<int>& fields) const;

  // Only rows `ranges` of row group i (ascending, disjoint, inside it).
  // Columns that are one flat leaf with an offset index decode only the
  // pages holding those rows; others are decoded whole and cut.
  Result<RecordBatchRef> ReadRowGroupRows(int i, const std::vector<int>& fields,
                                          const std::vector<RowRange>& ranges) const;

  // The page index of leaf column `column` in row group `row_group` (per
  // page: bounds, null counts; offsets and first rows), or nullopt when the
  // writer stored none. For pruning pages of pushed-down filters.
  Result<std::optional<ColumnIndex>> ReadColumnIndex(int row_group, int column) const;
  Result<std::optional<OffsetIndex>> ReadOffsetIndex(int row_group, int column) const;

  // "FILE: row group I, column 'a.b'"
  std::string ColumnContext(int row_group, int column) const;

 private:
  ParquetFileReader() = default;
  Status Init();
  // ReadRowGroup (ranges null) and ReadRowGroupRows.
  Result<RecordBatchRef> ReadRowGroupImpl(int i, const std::vector<int>& fields,
                                          const std::vector<RowRange>* ranges) const;

  std::string name_;
  std::shared_ptr<Buffer> data_;
  ParquetReadOptions options_;
  FileMetaData metadata_;
  bool pad_chunk_length_ = false;  // written by parquet-mr <= 1.2.8 (PARQUET-816)
  SchemaDescriptor schema_;
  ArrowSchemaInfo arrow_;
};

}  // namespace quiver::parquet
