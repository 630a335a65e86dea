// Thrift compact decoding of Parquet's metadata structs (metadata.h).
//
// Each struct decoder walks the fields it finds, dispatching on the field id;
// a field whose wire type is not the one parquet.thrift declares is skipped
// like an unknown field. Required fields that never appeared are errors.
#include <functional>
#include <type_traits>

#include "formats/parquet/metadata.h"
#include "formats/parquet/thrift_internal.h"

namespace quiver::parquet {
namespace {

using thrift::CType;
using thrift::Decoder;

template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};

Status Decode(Decoder* d, Statistics* out);
Status Decode(Decoder* d, LogicalType* out);
Status Decode(Decoder* d, SchemaElement* out);
Status Decode(Decoder* d, KeyValue* out);
Status Decode(Decoder* d, SortingColumn* out);
Status Decode(Decoder* d, PageEncodingStats* out);
Status Decode(Decoder* d, SizeStatistics* out);
Status Decode(Decoder* d, ColumnMetaData* out);
Status Decode(Decoder* d, ColumnChunk* out);
Status Decode(Decoder* d, RowGroup* out);
Status Decode(Decoder* d, ColumnOrder* out);
Status Decode(Decoder* d, DataPageHeader* out);
Status Decode(Decoder* d, DictionaryPageHeader* out);
Status Decode(Decoder* d, DataPageHeaderV2* out);
Status Decode(Decoder* d, PageLocation* out);

bool IsInt(CType t) { return t == CType::kI16 || t == CType::kI32 || t == CType::kI64; }

// Whether a value of wire type `t` can be read into T.
template <typename T>
bool Matches(CType t) {
  if constexpr (std::is_same_v<T, bool>) {
    return t == CType::kTrue || t == CType::kFalse;
  } else if constexpr (std::is_same_v<T, int8_t>) {
    return t == CType::kByte;
  } else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
    return IsInt(t);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return t == CType::kBinary;
  } else if constexpr (IsVector<T>::value) {
    return t == CType::kList || t == CType::kSet;
  } else {
    return t == CType::kStruct;
  }
}

template <typename T>
Status Get(Decoder* d, CType t, T* out);

template <typename T>
Status GetElement(Decoder* d, CType t, T* out) {
  if constexpr (std::is_same_v<T, bool>) {
    return d->ReadBoolElement(out);
  } else {
    return Get(d, t, out);
  }
}

template <typename T>
Status Get(Decoder* d, CType t, T* out) {
  if constexpr (std::is_same_v<T, bool>) {
    return d->ReadBool(t, out);
  } else if constexpr (std::is_same_v<T, int8_t>) {
    return d->ReadI8(out);
  } else if constexpr (std::is_same_v<T, int16_t>) {
    return d->ReadI16(out);
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return d->ReadI32(out);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return d->ReadI64(out);
  } else if constexpr (std::is_enum_v<T>) {
    int32_t v;
    QUIVER_RETURN_NOT_OK(d->ReadI32(&v));
    *out = static_cast<T>(v);
    return Status::OK();
  } else if constexpr (std::is_same_v<T, std::string>) {
    return d->ReadBinary(out);
  } else if constexpr (IsVector<T>::value) {
    using E = typename T::value_type;
    CType et;
    int32_t n;
    QUIVER_RETURN_NOT_OK(d->ReadListBegin(&et, &n));
    out->clear();
    out->reserve(static_cast<size_t>(n));
    // Elements are decoded as the declared type whatever the header says,
    // as Thrift's generated code does.
    CType element_type = et;
    if constexpr (std::is_same_v<E, std::string>) element_type = CType::kBinary;
    for (int32_t i = 0; i < n; ++i) {
      E e{};
      QUIVER_RETURN_NOT_OK(GetElement(d, element_type, &e));
      out->push_back(std::move(e));
    }
    return Status::OK();
  } else {
    return Decode(d, out);
  }
}

// Reads a field value into *out when the wire type fits, else skips it.
template <typename T>
Status Field(Decoder* d, CType t, T* out) {
  if (!Matches<T>(t)) return d->Skip(t);
  return Get(d, t, out);
}

template <typename T>
Status Field(Decoder* d, CType t, std::optional<T>* out) {
  if (!Matches<T>(t)) return d->Skip(t);
  T v{};
  QUIVER_RETURN_NOT_OK(Get(d, t, &v));
  *out = std::move(v);
  return Status::OK();
}

// Walks one struct, calling on_field(type, id) for each field; returns the
// set of field ids (below 64) that were seen.
Status ReadStruct(Decoder* d, const std::function<Status(CType, int16_t)>& on_field,
                  uint64_t* seen = nullptr) {
  QUIVER_RETURN_NOT_OK(d->StructBegin());
  uint64_t ids = 0;
  for (;;) {
    CType t;
    int16_t id;
    QUIVER_RETURN_NOT_OK(d->ReadFieldBegin(&t, &id));
    if (t == CType::kStop) break;
    if (id > 0 && id < 64) ids |= uint64_t{1} << id;
    QUIVER_RETURN_NOT_OK(on_field(t, id));
  }
  d->StructEnd();
  if (seen) *seen = ids;
  return Status::OK();
}

Status Require(const Decoder& d, uint64_t seen, std::initializer_list<int> ids, const char* what) {
  for (int id : ids) {
    if ((seen & (uint64_t{1} << id)) == 0) {
      return d.Error(fmt::format("{} lacks its required field {}", what, id));
    }
  }
  return Status::OK();
}

// A field Quiver does not read, between ones it does (ReadFields' gaps).
struct Unread {};
Status Field(Decoder* d, CType t, Unread*) { return d->Skip(t); }
Unread* const kUnread = nullptr;

// Reads a struct whose fields 1, 2, 3, ... go to `fields` in that order (other
// ids are skipped), then checks that the `required` ids appeared (`what`
// names the struct in the error). Most of parquet.thrift's structs number
// their fields so; the others dispatch by hand.
template <typename... T>
Status ReadFields(Decoder* d, const char* what, std::initializer_list<int> required, T*... fields) {
  uint64_t seen;
  QUIVER_RETURN_NOT_OK(ReadStruct(
      d,
      [&](CType t, int16_t id) -> Status {
        int16_t i = 0;
        Status st;
        const bool known = ((++i == id && (st = Field(d, t, fields), true)) || ...);
        return known ? st : d->Skip(t);
      },
      &seen));
  return Require(*d, seen, required, what);
}

Status Decode(Decoder* d, Statistics* out) {
  return ReadFields(d, "Statistics", {}, &out->max, &out->min, &out->null_count,
                    &out->distinct_count, &out->max_value, &out->min_value,
                    &out->is_max_value_exact, &out->is_min_value_exact, &out->nan_count);
}

// TimeUnit union: the id of the (empty struct) member says the unit.
Status DecodeTimeUnit(Decoder* d, TimeUnitKind* out) {
  return ReadStruct(d, [&](CType t, int16_t id) -> Status {
    if (id >= 1 && id <= 3) *out = static_cast<TimeUnitKind>(id);
    return d->Skip(t);
  });
}

Status DecodeTimeLike(Decoder* d, LogicalType* out) {
  return ReadStruct(d, [&](CType t, int16_t id) -> Status {
    switch (id) {
      case 1:
        return Field(d, t, &out->is_adjusted_to_utc);
      case 2:
        if (t != CType::kStruct) return d->Skip(t);
        return DecodeTimeUnit(d, &out->unit);
      default:
        return d->Skip(t);
    }
  });
}

Status Decode(Decoder* d, LogicalType* out) {
  return ReadStruct(d, [&](CType t, int16_t id) -> Status {
    if (t != CType::kStruct) return d->Skip(t);
    switch (id) {
      case 5:
        out->kind = LogicalType::Kind::kDecimal;
        return ReadStruct(d, [&](CType t2, int16_t id2) -> Status {
          if (id2 == 1) return Field(d, t2, &out->scale);
          if (id2 == 2) return Field(d, t2, &out->precision);
          return d->Skip(t2);
        });
      case 7:
        out->kind = LogicalType::Kind::kTime;
        return DecodeTimeLike(d, out);
      case 8:
        out->kind = LogicalType::Kind::kTimestamp;
        return DecodeTimeLike(d, out);
      case 10:
        out->kind = LogicalType::Kind::kInteger;
        return ReadStruct(d, [&](CType t2, int16_t id2) -> Status {
          if (id2 == 1) return Field(d, t2, &out->bit_width);
          if (id2 == 2) return Field(d, t2, &out->is_signed);
          return d->Skip(t2);
        });
      case 16:
        out->kind = LogicalType::Kind::kVariant;
        return ReadStruct(d, [&](CType t2, int16_t id2) -> Status {
          if (id2 == 1) return Field(d, t2, &out->specification_version);
          return d->Skip(t2);
        });
      case 17:
      case 18:
        out->kind = static_cast<LogicalType::Kind>(id);
        return ReadStruct(d, [&](CType t2, int16_t id2) -> Status {
          if (id2 == 1) return Field(d, t2, &out->crs);
          if (id2 == 2) return Field(d, t2, &out->algorithm);
          return d->Skip(t2);
        });
      case 1:
      case 2:
      case 3:
      case 4:
      case 6:
      case 11:
      case 12:
      case 13:
      case 14:
      case 15:
      case 19:
        out->kind = static_cast<LogicalType::Kind>(id);
        return d->Skip(t);
      default:
        out->kind = LogicalType::Kind::kUnrecognized;
        out->unrecognized_id = id;
        return d->Skip(t);
    }
  });
}

Status Decode(Decoder* d, SchemaElement* out) {
  return ReadFields(d, "SchemaElement", {4}, &out->type, &out->type_length, &out->repetition_type,
                    &out->name, &out->num_children, &out->converted_type, &out->scale,
                    &out->precision, &out->field_id, &out->logical_type, &out->vector_length);
}

Status Decode(Decoder* d, KeyValue* out) {
  return ReadFields(d, "KeyValue", {1}, &out->key, &out->value);
}

Status Decode(Decoder* d, SortingColumn* out) {
  return ReadFields(d, "SortingColumn", {}, &out->column_idx, &out->descending, &out->nulls_first);
}

Status Decode(Decoder* d, PageEncodingStats* out) {
  return ReadFields(d, "PageEncodingStats", {}, &out->page_type, &out->encoding, &out->count);
}

Status Decode(Decoder* d, SizeStatistics* out) {
  return ReadFields(d, "SizeStatistics", {}, &out->unencoded_byte_array_data_bytes,
                    &out->repetition_level_histogram, &out->definition_level_histogram);
}

Status Decode(Decoder* d, ColumnMetaData* out) {
  return ReadFields(d, "ColumnMetaData", {1, 4, 5, 7, 9}, &out->type, &out->encodings,
                    &out->path_in_schema, &out->codec, &out->num_values,
                    &out->total_uncompressed_size, &out->total_compressed_size,
                    &out->key_value_metadata, &out->data_page_offset, &out->index_page_offset,
                    &out->dictionary_page_offset, &out->statistics, &out->encoding_stats,
                    &out->bloom_filter_offset, &out->bloom_filter_length, &out->size_statistics);
}

Status Decode(Decoder* d, ColumnChunk* out) {
  return ReadStruct(d, [&](CType t, int16_t id) -> Status {
    switch (id) {
      case 1:
        return Field(d, t, &out->file_path);
      case 2:
        return Field(d, t, &out->file_offset);
      case 3:
        return Field(d, t, &out->meta_data);
      case 4:
        return Field(d, t, &out->offset_index_offset);
      case 5:
        return Field(d, t, &out->offset_index_length);
      case 6:
        return Field(d, t, &out->column_index_offset);
      case 7:
        return Field(d, t, &out->column_index_length);
      case 8:
        out->has_crypto_metadata = true;
        return d->Skip(t);
      case 9:
        out->has_encrypted_column_metadata = true;
        return d->Skip(t);
      default:
        return d->Skip(t);
    }
  });
}

Status Decode(Decoder* d, RowGroup* out) {
  return ReadFields(d, "RowGroup", {1, 3}, &out->columns, &out->total_byte_size, &out->num_rows,
                    &out->sorting_columns, &out->file_offset, &out->total_compressed_size,
                    &out->ordinal);
}

Status Decode(Decoder* d, ColumnOrder* out) {
  *out = ColumnOrder::kUnknown;
  return ReadStruct(d, [&](CType t, int16_t id) -> Status {
    if (id >= 1 && id <= 3) *out = static_cast<ColumnOrder>(id);
    return d->Skip(t);
  });
}

Status Decode(Decoder* d, DataPageHeader* out) {
  return ReadFields(d, "DataPageHeader", {1, 2}, &out->num_values, &out->encoding,
                    &out->definition_level_encoding, &out->repetition_level_encoding,
                    &out->statistics);
}

Status Decode(Decoder* d, DictionaryPageHeader* out) {
  return ReadFields(d, "DictionaryPageHeader", {1}, &out->num_values, &out->encoding,
                    &out->is_sorted);
}

Status Decode(Decoder* d, DataPageHeaderV2* out) {
  return ReadFields(d, "DataPageHeaderV2", {1, 2, 3, 4, 5, 6}, &out->num_values, &out->num_nulls,
                    &out->num_rows, &out->encoding, &out->definition_levels_byte_length,
                    &out->repetition_levels_byte_length, &out->is_compressed, &out->statistics);
}

Status Decode(Decoder* d, PageLocation* out) {
  return ReadFields(d, "PageLocation", {}, &out->offset, &out->compressed_page_size,
                    &out->first_row_index);
}

Status DecodePageHeaderImpl(Decoder* d, PageHeader* out) {
  return ReadFields(d, "PageHeader", {1, 2, 3}, &out->type, &out->uncompressed_page_size,
                    &out->compressed_page_size, &out->crc, &out->data_page_header, kUnread,
                    &out->dictionary_page_header, &out->data_page_header_v2);
}

}  // namespace

Status DecodeFileMetaData(const uint8_t* data, int64_t size, FileMetaData* out) {
  Decoder d(data, size);
  *out = FileMetaData();
  uint64_t seen;
  QUIVER_RETURN_NOT_OK(ReadStruct(
      &d,
      [&](CType t, int16_t id) -> Status {
        switch (id) {
          case 1:
            return Field(&d, t, &out->version);
          case 2:
            return Field(&d, t, &out->schema);
          case 3:
            return Field(&d, t, &out->num_rows);
          case 4:
            return Field(&d, t, &out->row_groups);
          case 5:
            return Field(&d, t, &out->key_value_metadata);
          case 6:
            return Field(&d, t, &out->created_by);
          case 7: {
            // A list of ColumnOrder unions (structs), not of enum values.
            if (t != CType::kList) return d.Skip(t);
            CType et;
            int32_t n;
            QUIVER_RETURN_NOT_OK(d.ReadListBegin(&et, &n));
            for (int32_t k = 0; k < n; ++k) {
              if (et != CType::kStruct) {
                QUIVER_RETURN_NOT_OK(d.Skip(et));
                continue;
              }
              ColumnOrder order;
              QUIVER_RETURN_NOT_OK(Decode(&d, &order));
              out->column_orders.push_back(order);
            }
            return Status::OK();
          }
          case 8:
            out->has_encryption_algorithm = true;
            return d.Skip(t);
          default:
            return d.Skip(t);
        }
      },
      &seen));
  return Require(d, seen, {2, 3, 4}, "FileMetaData");
}

Status DecodePageHeader(const uint8_t* data, int64_t size, PageHeader* out, int64_t* header_size) {
  Decoder d(data, size);
  *out = PageHeader();
  QUIVER_RETURN_NOT_OK(DecodePageHeaderImpl(&d, out));
  *header_size = d.position();
  return Status::OK();
}

Status DecodeColumnIndex(const uint8_t* data, int64_t size, ColumnIndex* out) {
  Decoder d(data, size);
  *out = ColumnIndex();
  uint64_t seen;
  QUIVER_RETURN_NOT_OK(ReadStruct(
      &d,
      [&](CType t, int16_t id) -> Status {
        switch (id) {
          case 1: {
            if (t != CType::kList) return d.Skip(t);
            CType et;
            int32_t n;
            QUIVER_RETURN_NOT_OK(d.ReadListBegin(&et, &n));
            out->null_pages.assign(static_cast<size_t>(n), false);
            for (int32_t i = 0; i < n; ++i) {
              bool b;
              QUIVER_RETURN_NOT_OK(d.ReadBoolElement(&b));
              out->null_pages[i] = b;
            }
            return Status::OK();
          }
          case 2:
            return Field(&d, t, &out->min_values);
          case 3:
            return Field(&d, t, &out->max_values);
          case 4:
            return Field(&d, t, &out->boundary_order);
          case 5:
            return Field(&d, t, &out->null_counts);
          case 6:
            return Field(&d, t, &out->repetition_level_histograms);
          case 7:
            return Field(&d, t, &out->definition_level_histograms);
          default:
            return d.Skip(t);
        }
      },
      &seen));
  QUIVER_RETURN_NOT_OK(Require(d, seen, {1, 2, 3, 4}, "ColumnIndex"));
  if (out->min_values.size() != out->null_pages.size() ||
      out->max_values.size() != out->null_pages.size() ||
      (!out->null_counts.empty() && out->null_counts.size() != out->null_pages.size())) {
    return Status::Invalid("corrupt column index: lists of different lengths");
  }
  return Status::OK();
}

Status DecodeOffsetIndex(const uint8_t* data, int64_t size, OffsetIndex* out) {
  Decoder d(data, size);
  *out = OffsetIndex();
  return ReadFields(&d, "OffsetIndex", {1}, &out->page_locations,
                    &out->unencoded_byte_array_data_bytes);
}

Status DecodeBloomFilterHeader(const uint8_t* data, int64_t size, BloomFilterHeader* out,
                               int64_t* header_size) {
  Decoder d(data, size);
  *out = BloomFilterHeader();
  auto member = [&](CType t, bool* flag) -> Status {
    if (t != CType::kStruct) return d.Skip(t);
    return ReadStruct(&d, [&](CType t2, int16_t id2) -> Status {
      if (id2 == 1) *flag = true;
      return d.Skip(t2);
    });
  };
  uint64_t seen;
  QUIVER_RETURN_NOT_OK(ReadStruct(
      &d,
      [&](CType t, int16_t id) -> Status {
        switch (id) {
          case 1:
            return Field(&d, t, &out->num_bytes);
          case 2:
            return member(t, &out->block_algorithm);
          case 3:
            return member(t, &out->xxhash);
          case 4:
            return member(t, &out->uncompressed);
          default:
            return d.Skip(t);
        }
      },
      &seen));
  *header_size = d.position();
  return Require(d, seen, {1}, "BloomFilterHeader");
}

}  // namespace quiver::parquet
