// Parquet's Thrift metadata as plain structs: each field keeps the name and
// the field id (in the comment) of parquet.thrift, optional fields are
// std::optional. Decode* parse untrusted bytes (bounds-checked, Status on
// anything malformed, unknown fields skipped); Encode* append the compact
// protocol bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "formats/parquet/parquet_format.h"

namespace quiver::parquet {

struct Statistics {
  std::optional<std::string> max;          // 1 (legacy, signed order)
  std::optional<std::string> min;          // 2
  std::optional<int64_t> null_count;       // 3
  std::optional<int64_t> distinct_count;   // 4
  std::optional<std::string> max_value;    // 5
  std::optional<std::string> min_value;    // 6
  std::optional<bool> is_max_value_exact;  // 7
  std::optional<bool> is_min_value_exact;  // 8
  std::optional<int64_t> nan_count;        // 9
};

enum class TimeUnitKind : int8_t { kMillis = 1, kMicros = 2, kNanos = 3 };

// The LogicalType union.
struct LogicalType {
  enum class Kind : int8_t {
    kNone = 0,
    kString = 1,
    kMap = 2,
    kList = 3,
    kEnum = 4,
    kDecimal = 5,
    kDate = 6,
    kTime = 7,
    kTimestamp = 8,
    kInteger = 10,
    kUnknown = 11,  // NullType: only nulls
    kJson = 12,
    kBson = 13,
    kUuid = 14,
    kFloat16 = 15,
    kVariant = 16,
    kGeometry = 17,
    kGeography = 18,
    kVector = 19,
    kUnrecognized = 127,  // a union member this reader does not know
  };
  Kind kind = Kind::kNone;
  int32_t scale = 0;                            // DECIMAL 1
  int32_t precision = 0;                        // DECIMAL 2
  bool is_adjusted_to_utc = false;              // TIME/TIMESTAMP 1
  TimeUnitKind unit = TimeUnitKind::kMillis;    // TIME/TIMESTAMP 2
  int8_t bit_width = 0;                         // INTEGER 1
  bool is_signed = true;                        // INTEGER 2
  std::optional<std::string> crs;               // GEOMETRY/GEOGRAPHY 1
  std::optional<int32_t> algorithm;             // GEOGRAPHY 2
  std::optional<int8_t> specification_version;  // VARIANT 1
  int16_t unrecognized_id = 0;
};

// "STRING", "DECIMAL(10,2)", "TIMESTAMP(MICROS,true)", "INTEGER(8,false)".
std::string LogicalTypeToString(const LogicalType& t);

struct SchemaElement {
  std::optional<Type> type;                     // 1
  std::optional<int32_t> type_length;           // 2
  std::optional<Repetition> repetition_type;    // 3
  std::string name;                             // 4
  std::optional<int32_t> num_children;          // 5
  std::optional<ConvertedType> converted_type;  // 6
  std::optional<int32_t> scale;                 // 7
  std::optional<int32_t> precision;             // 8
  std::optional<int32_t> field_id;              // 9
  LogicalType logical_type;                     // 10 (kind kNone when absent)
  std::optional<int32_t> vector_length;         // 11
};

struct KeyValue {
  std::string key;                   // 1
  std::optional<std::string> value;  // 2
};

struct SortingColumn {
  int32_t column_idx = 0;    // 1
  bool descending = false;   // 2
  bool nulls_first = false;  // 3
};

struct PageEncodingStats {
  PageType page_type = PageType::kDataPage;  // 1
  Encoding encoding = Encoding::kPlain;      // 2
  int32_t count = 0;                         // 3
};

struct SizeStatistics {
  std::optional<int64_t> unencoded_byte_array_data_bytes;  // 1
  std::vector<int64_t> repetition_level_histogram;         // 2
  std::vector<int64_t> definition_level_histogram;         // 3
};

struct ColumnMetaData {
  Type type = Type::kBoolean;                                // 1
  std::vector<Encoding> encodings;                           // 2
  std::vector<std::string> path_in_schema;                   // 3
  CompressionCodec codec = CompressionCodec::kUncompressed;  // 4
  int64_t num_values = 0;                                    // 5
  int64_t total_uncompressed_size = 0;                       // 6
  int64_t total_compressed_size = 0;                         // 7
  std::vector<KeyValue> key_value_metadata;                  // 8
  int64_t data_page_offset = 0;                              // 9
  std::optional<int64_t> index_page_offset;                  // 10
  std::optional<int64_t> dictionary_page_offset;             // 11
  std::optional<Statistics> statistics;                      // 12
  std::vector<PageEncodingStats> encoding_stats;             // 13
  std::optional<int64_t> bloom_filter_offset;                // 14
  std::optional<int32_t> bloom_filter_length;                // 15
  std::optional<SizeStatistics> size_statistics;             // 16
};

struct ColumnChunk {
  std::optional<std::string> file_path;        // 1
  int64_t file_offset = 0;                     // 2
  std::optional<ColumnMetaData> meta_data;     // 3
  std::optional<int64_t> offset_index_offset;  // 4
  std::optional<int32_t> offset_index_length;  // 5
  std::optional<int64_t> column_index_offset;  // 6
  std::optional<int32_t> column_index_length;  // 7
  bool has_crypto_metadata = false;            // 8 (not decoded)
  bool has_encrypted_column_metadata = false;  // 9 (not decoded)
};

struct RowGroup {
  std::vector<ColumnChunk> columns;              // 1
  int64_t total_byte_size = 0;                   // 2
  int64_t num_rows = 0;                          // 3
  std::vector<SortingColumn> sorting_columns;    // 4
  std::optional<int64_t> file_offset;            // 5
  std::optional<int64_t> total_compressed_size;  // 6
  std::optional<int16_t> ordinal;                // 7
};

// ColumnOrder union: 1 TYPE_ORDER, 2 IEEE_754_TOTAL_ORDER, 3 INT96_TIMESTAMP_ORDER.
enum class ColumnOrder : int8_t {
  kUnknown = 0,
  kTypeOrder = 1,
  kIeee754TotalOrder = 2,
  kInt96 = 3
};

struct FileMetaData {
  int32_t version = 0;                       // 1
  std::vector<SchemaElement> schema;         // 2
  int64_t num_rows = 0;                      // 3
  std::vector<RowGroup> row_groups;          // 4
  std::vector<KeyValue> key_value_metadata;  // 5
  std::optional<std::string> created_by;     // 6
  std::vector<ColumnOrder> column_orders;    // 7
  bool has_encryption_algorithm = false;     // 8 (plaintext footer of an encrypted file)
};

struct DataPageHeader {
  int32_t num_values = 0;                               // 1
  Encoding encoding = Encoding::kPlain;                 // 2
  Encoding definition_level_encoding = Encoding::kRle;  // 3
  Encoding repetition_level_encoding = Encoding::kRle;  // 4
  std::optional<Statistics> statistics;                 // 5
};

struct DictionaryPageHeader {
  int32_t num_values = 0;                // 1
  Encoding encoding = Encoding::kPlain;  // 2
  std::optional<bool> is_sorted;         // 3
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;                     // 1
  int32_t num_nulls = 0;                      // 2
  int32_t num_rows = 0;                       // 3
  Encoding encoding = Encoding::kPlain;       // 4
  int32_t definition_levels_byte_length = 0;  // 5
  int32_t repetition_levels_byte_length = 0;  // 6
  bool is_compressed = true;                  // 7
  std::optional<Statistics> statistics;       // 8
};

struct PageHeader {
  PageType type = PageType::kDataPage;             // 1
  int32_t uncompressed_page_size = 0;              // 2
  int32_t compressed_page_size = 0;                // 3
  std::optional<int32_t> crc;                      // 4
  std::optional<DataPageHeader> data_page_header;  // 5
  // 6: IndexPageHeader (empty, skipped)
  std::optional<DictionaryPageHeader> dictionary_page_header;  // 7
  std::optional<DataPageHeaderV2> data_page_header_v2;         // 8
};

struct PageLocation {
  int64_t offset = 0;                // 1
  int32_t compressed_page_size = 0;  // 2
  int64_t first_row_index = 0;       // 3
};

struct OffsetIndex {
  std::vector<PageLocation> page_locations;              // 1
  std::vector<int64_t> unencoded_byte_array_data_bytes;  // 2
};

struct ColumnIndex {
  std::vector<bool> null_pages;                              // 1
  std::vector<std::string> min_values;                       // 2
  std::vector<std::string> max_values;                       // 3
  BoundaryOrder boundary_order = BoundaryOrder::kUnordered;  // 4
  std::vector<int64_t> null_counts;                          // 5
  std::vector<int64_t> repetition_level_histograms;          // 6
  std::vector<int64_t> definition_level_histograms;          // 7
};

// BloomFilterHeader (algorithm, hash and compression are single-member
// unions: BLOCK, XXHASH, UNCOMPRESSED; anything else leaves them false).
struct BloomFilterHeader {
  int32_t num_bytes = 0;         // 1
  bool block_algorithm = false;  // 2
  bool xxhash = false;           // 3
  bool uncompressed = false;     // 4
};

Status DecodeFileMetaData(const uint8_t* data, int64_t size, FileMetaData* out);
// Decodes the header at the start of [data, data+size); *header_size is the
// number of bytes it took.
Status DecodePageHeader(const uint8_t* data, int64_t size, PageHeader* out, int64_t* header_size);
Status DecodeColumnIndex(const uint8_t* data, int64_t size, ColumnIndex* out);
Status DecodeOffsetIndex(const uint8_t* data, int64_t size, OffsetIndex* out);
Status DecodeBloomFilterHeader(const uint8_t* data, int64_t size, BloomFilterHeader* out,
                               int64_t* header_size);

void EncodeFileMetaData(const FileMetaData& md, std::string* out);
void EncodePageHeader(const PageHeader& header, std::string* out);
void EncodeColumnIndex(const ColumnIndex& index, std::string* out);
void EncodeOffsetIndex(const OffsetIndex& index, std::string* out);

}  // namespace quiver::parquet
