// Thrift compact encoding of the metadata the writer produces (metadata.h).
// Fields are written in increasing id order, optional ones only when set.
#include "formats/parquet/metadata.h"
#include "formats/parquet/thrift_internal.h"

namespace quiver::parquet {
namespace {

using thrift::CType;
using thrift::Encoder;

template <typename T>
int32_t I32(T v) {
  return static_cast<int32_t>(v);
}

void Encode(Encoder* e, const Statistics& s) {
  e->StructBegin();
  if (s.max) e->FieldBinary(1, *s.max);
  if (s.min) e->FieldBinary(2, *s.min);
  if (s.null_count) e->FieldI64(3, *s.null_count);
  if (s.distinct_count) e->FieldI64(4, *s.distinct_count);
  if (s.max_value) e->FieldBinary(5, *s.max_value);
  if (s.min_value) e->FieldBinary(6, *s.min_value);
  if (s.is_max_value_exact) e->FieldBool(7, *s.is_max_value_exact);
  if (s.is_min_value_exact) e->FieldBool(8, *s.is_min_value_exact);
  if (s.nan_count) e->FieldI64(9, *s.nan_count);
  e->StructEnd();
}

void EncodeTimeUnit(Encoder* e, int16_t id, TimeUnitKind unit) {
  e->FieldStructBegin(id);
  e->FieldEmptyStruct(static_cast<int16_t>(unit));
  e->StructEnd();
}

void Encode(Encoder* e, const LogicalType& t) {
  using Kind = LogicalType::Kind;
  e->StructBegin();
  const int16_t id = static_cast<int16_t>(t.kind);
  switch (t.kind) {
    case Kind::kDecimal:
      e->FieldStructBegin(id);
      e->FieldI32(1, t.scale);
      e->FieldI32(2, t.precision);
      e->StructEnd();
      break;
    case Kind::kTime:
    case Kind::kTimestamp:
      e->FieldStructBegin(id);
      e->FieldBool(1, t.is_adjusted_to_utc);
      EncodeTimeUnit(e, 2, t.unit);
      e->StructEnd();
      break;
    case Kind::kInteger:
      e->FieldStructBegin(id);
      e->FieldI8(1, t.bit_width);
      e->FieldBool(2, t.is_signed);
      e->StructEnd();
      break;
    case Kind::kNone:
    case Kind::kUnrecognized:
      break;
    default:
      e->FieldEmptyStruct(id);
      break;
  }
  e->StructEnd();
}

void Encode(Encoder* e, const SchemaElement& s) {
  e->StructBegin();
  if (s.type) e->FieldI32(1, I32(*s.type));
  if (s.type_length) e->FieldI32(2, *s.type_length);
  if (s.repetition_type) e->FieldI32(3, I32(*s.repetition_type));
  e->FieldBinary(4, s.name);
  if (s.num_children) e->FieldI32(5, *s.num_children);
  if (s.converted_type) e->FieldI32(6, I32(*s.converted_type));
  if (s.scale) e->FieldI32(7, *s.scale);
  if (s.precision) e->FieldI32(8, *s.precision);
  if (s.field_id) e->FieldI32(9, *s.field_id);
  if (s.logical_type.kind != LogicalType::Kind::kNone &&
      s.logical_type.kind != LogicalType::Kind::kUnrecognized) {
    e->FieldBegin(CType::kStruct, 10);
    Encode(e, s.logical_type);
  }
  e->StructEnd();
}

void EncodeKeyValues(Encoder* e, int16_t id, const std::vector<KeyValue>& kvs) {
  e->FieldListBegin(id, CType::kStruct, static_cast<int32_t>(kvs.size()));
  for (const KeyValue& kv : kvs) {
    e->StructBegin();
    e->FieldBinary(1, kv.key);
    if (kv.value) e->FieldBinary(2, *kv.value);
    e->StructEnd();
  }
}

void Encode(Encoder* e, const ColumnMetaData& m) {
  e->StructBegin();
  e->FieldI32(1, I32(m.type));
  e->FieldListBegin(2, CType::kI32, static_cast<int32_t>(m.encodings.size()));
  for (Encoding enc : m.encodings) e->WriteI32(I32(enc));
  e->FieldListBegin(3, CType::kBinary, static_cast<int32_t>(m.path_in_schema.size()));
  for (const std::string& p : m.path_in_schema) e->WriteBinary(p);
  e->FieldI32(4, I32(m.codec));
  e->FieldI64(5, m.num_values);
  e->FieldI64(6, m.total_uncompressed_size);
  e->FieldI64(7, m.total_compressed_size);
  if (!m.key_value_metadata.empty()) EncodeKeyValues(e, 8, m.key_value_metadata);
  e->FieldI64(9, m.data_page_offset);
  if (m.index_page_offset) e->FieldI64(10, *m.index_page_offset);
  if (m.dictionary_page_offset) e->FieldI64(11, *m.dictionary_page_offset);
  if (m.statistics) {
    e->FieldBegin(CType::kStruct, 12);
    Encode(e, *m.statistics);
  }
  if (!m.encoding_stats.empty()) {
    e->FieldListBegin(13, CType::kStruct, static_cast<int32_t>(m.encoding_stats.size()));
    for (const PageEncodingStats& s : m.encoding_stats) {
      e->StructBegin();
      e->FieldI32(1, I32(s.page_type));
      e->FieldI32(2, I32(s.encoding));
      e->FieldI32(3, s.count);
      e->StructEnd();
    }
  }
  if (m.bloom_filter_offset) e->FieldI64(14, *m.bloom_filter_offset);
  if (m.bloom_filter_length) e->FieldI32(15, *m.bloom_filter_length);
  if (m.size_statistics) {
    const SizeStatistics& s = *m.size_statistics;
    e->FieldStructBegin(16);
    if (s.unencoded_byte_array_data_bytes) e->FieldI64(1, *s.unencoded_byte_array_data_bytes);
    if (!s.repetition_level_histogram.empty()) {
      e->FieldListBegin(2, CType::kI64, static_cast<int32_t>(s.repetition_level_histogram.size()));
      for (int64_t v : s.repetition_level_histogram) e->WriteI64(v);
    }
    if (!s.definition_level_histogram.empty()) {
      e->FieldListBegin(3, CType::kI64, static_cast<int32_t>(s.definition_level_histogram.size()));
      for (int64_t v : s.definition_level_histogram) e->WriteI64(v);
    }
    e->StructEnd();
  }
  e->StructEnd();
}

void Encode(Encoder* e, const ColumnChunk& c) {
  e->StructBegin();
  if (c.file_path) e->FieldBinary(1, *c.file_path);
  e->FieldI64(2, c.file_offset);
  if (c.meta_data) {
    e->FieldBegin(CType::kStruct, 3);
    Encode(e, *c.meta_data);
  }
  if (c.offset_index_offset) e->FieldI64(4, *c.offset_index_offset);
  if (c.offset_index_length) e->FieldI32(5, *c.offset_index_length);
  if (c.column_index_offset) e->FieldI64(6, *c.column_index_offset);
  if (c.column_index_length) e->FieldI32(7, *c.column_index_length);
  e->StructEnd();
}

void Encode(Encoder* e, const RowGroup& rg) {
  e->StructBegin();
  e->FieldListBegin(1, CType::kStruct, static_cast<int32_t>(rg.columns.size()));
  for (const ColumnChunk& c : rg.columns) Encode(e, c);
  e->FieldI64(2, rg.total_byte_size);
  e->FieldI64(3, rg.num_rows);
  if (!rg.sorting_columns.empty()) {
    e->FieldListBegin(4, CType::kStruct, static_cast<int32_t>(rg.sorting_columns.size()));
    for (const SortingColumn& s : rg.sorting_columns) {
      e->StructBegin();
      e->FieldI32(1, s.column_idx);
      e->FieldBool(2, s.descending);
      e->FieldBool(3, s.nulls_first);
      e->StructEnd();
    }
  }
  if (rg.file_offset) e->FieldI64(5, *rg.file_offset);
  if (rg.total_compressed_size) e->FieldI64(6, *rg.total_compressed_size);
  if (rg.ordinal) e->FieldI16(7, *rg.ordinal);
  e->StructEnd();
}

}  // namespace

void EncodeFileMetaData(const FileMetaData& md, std::string* out) {
  Encoder e(out);
  e.StructBegin();
  e.FieldI32(1, md.version);
  e.FieldListBegin(2, CType::kStruct, static_cast<int32_t>(md.schema.size()));
  for (const SchemaElement& s : md.schema) Encode(&e, s);
  e.FieldI64(3, md.num_rows);
  e.FieldListBegin(4, CType::kStruct, static_cast<int32_t>(md.row_groups.size()));
  for (const RowGroup& rg : md.row_groups) Encode(&e, rg);
  if (!md.key_value_metadata.empty()) EncodeKeyValues(&e, 5, md.key_value_metadata);
  if (md.created_by) e.FieldBinary(6, *md.created_by);
  if (!md.column_orders.empty()) {
    e.FieldListBegin(7, CType::kStruct, static_cast<int32_t>(md.column_orders.size()));
    for (ColumnOrder order : md.column_orders) {
      e.StructBegin();
      e.FieldEmptyStruct(static_cast<int16_t>(order));
      e.StructEnd();
    }
  }
  e.StructEnd();
}

void EncodePageHeader(const PageHeader& h, std::string* out) {
  Encoder e(out);
  e.StructBegin();
  e.FieldI32(1, I32(h.type));
  e.FieldI32(2, h.uncompressed_page_size);
  e.FieldI32(3, h.compressed_page_size);
  if (h.crc) e.FieldI32(4, *h.crc);
  if (h.data_page_header) {
    const DataPageHeader& d = *h.data_page_header;
    e.FieldStructBegin(5);
    e.FieldI32(1, d.num_values);
    e.FieldI32(2, I32(d.encoding));
    e.FieldI32(3, I32(d.definition_level_encoding));
    e.FieldI32(4, I32(d.repetition_level_encoding));
    if (d.statistics) {
      e.FieldBegin(CType::kStruct, 5);
      Encode(&e, *d.statistics);
    }
    e.StructEnd();
  }
  if (h.dictionary_page_header) {
    const DictionaryPageHeader& d = *h.dictionary_page_header;
    e.FieldStructBegin(7);
    e.FieldI32(1, d.num_values);
    e.FieldI32(2, I32(d.encoding));
    if (d.is_sorted) e.FieldBool(3, *d.is_sorted);
    e.StructEnd();
  }
  if (h.data_page_header_v2) {
    const DataPageHeaderV2& d = *h.data_page_header_v2;
    e.FieldStructBegin(8);
    e.FieldI32(1, d.num_values);
    e.FieldI32(2, d.num_nulls);
    e.FieldI32(3, d.num_rows);
    e.FieldI32(4, I32(d.encoding));
    e.FieldI32(5, d.definition_levels_byte_length);
    e.FieldI32(6, d.repetition_levels_byte_length);
    e.FieldBool(7, d.is_compressed);
    if (d.statistics) {
      e.FieldBegin(CType::kStruct, 8);
      Encode(&e, *d.statistics);
    }
    e.StructEnd();
  }
  e.StructEnd();
}

void EncodeColumnIndex(const ColumnIndex& index, std::string* out) {
  Encoder e(out);
  e.StructBegin();
  e.FieldListBegin(1, CType::kTrue, static_cast<int32_t>(index.null_pages.size()));
  for (bool b : index.null_pages) e.WriteBoolElement(b);
  e.FieldListBegin(2, CType::kBinary, static_cast<int32_t>(index.min_values.size()));
  for (const std::string& v : index.min_values) e.WriteBinary(v);
  e.FieldListBegin(3, CType::kBinary, static_cast<int32_t>(index.max_values.size()));
  for (const std::string& v : index.max_values) e.WriteBinary(v);
  e.FieldI32(4, I32(index.boundary_order));
  if (!index.null_counts.empty()) {
    e.FieldListBegin(5, CType::kI64, static_cast<int32_t>(index.null_counts.size()));
    for (int64_t v : index.null_counts) e.WriteI64(v);
  }
  e.StructEnd();
}

void EncodeOffsetIndex(const OffsetIndex& index, std::string* out) {
  Encoder e(out);
  e.StructBegin();
  e.FieldListBegin(1, CType::kStruct, static_cast<int32_t>(index.page_locations.size()));
  for (const PageLocation& p : index.page_locations) {
    e.StructBegin();
    e.FieldI64(1, p.offset);
    e.FieldI32(2, p.compressed_page_size);
    e.FieldI64(3, p.first_row_index);
    e.StructEnd();
  }
  if (!index.unencoded_byte_array_data_bytes.empty()) {
    e.FieldListBegin(2, CType::kI64,
                     static_cast<int32_t>(index.unencoded_byte_array_data_bytes.size()));
    for (int64_t v : index.unencoded_byte_array_data_bytes) e.WriteI64(v);
  }
  e.StructEnd();
}

}  // namespace quiver::parquet
