#include "formats/parquet/file_reader.h"

#include <cstdio>
#include <cstring>

#include "common/io.h"
#include "formats/parquet/arrow_hints.h"
#include "formats/parquet/arrow_reader.h"
#include "formats/parquet/column_reader.h"
#include "formats/parquet/parallel_internal.h"

namespace quiver::parquet {
namespace {

// "parquet-mr version 1.2.8 (build ...)": whether the writer predates the
// PARQUET-816 fix (1.2.9); a parquet-mr without a version counts as old.
bool WrittenByOldParquetMr(const std::optional<std::string>& created_by) {
  if (!created_by || created_by->rfind("parquet-mr", 0) != 0) return false;
  int major = 0, minor = 0, patch = 0;
  const size_t v = created_by->find("version ");
  if (v == std::string::npos ||
      std::sscanf(created_by->c_str() + v + 8, "%d.%d.%d", &major, &minor, &patch) < 2) {
    return true;
  }
  if (major != 1) return major < 1;
  if (minor != 2) return minor < 2;
  return patch < 9;
}

}  // namespace

Result<std::shared_ptr<ParquetFileReader>> ParquetFileReader::Open(
    const std::string& path, const ParquetReadOptions& options) {
  QUIVER_ASSIGN_OR_RAISE(auto data, MapFile(path));
  return Open(std::move(data), path, options);
}

Result<std::shared_ptr<ParquetFileReader>> ParquetFileReader::Open(
    std::shared_ptr<Buffer> data, std::string name, const ParquetReadOptions& options) {
  std::shared_ptr<ParquetFileReader> reader(new ParquetFileReader());
  reader->name_ = std::move(name);
  reader->data_ = std::move(data);
  reader->options_ = options;
  Status st = reader->Init();
  if (!st.ok()) {
    if (st.message().find(reader->name_) != std::string::npos) return st;
    return st.WithContext(reader->name_);
  }
  return reader;
}

Status ParquetFileReader::Init() {
  const uint8_t* p = data_->data();
  const int64_t size = data_->size();
  // Like other readers, only the footer's magic is required: the one at
  // the start is never read again.
  if (size < 4 + kFooterTailSize) {
    return Status::Invalid("not a Parquet file (only {} bytes)", size);
  }
  const uint8_t* tail = p + size - 4;
  if (std::memcmp(tail, kEncryptedMagic, 4) == 0) {
    return Status::Unsupported("encrypted Parquet is not supported (encrypted footer)");
  }
  if (std::memcmp(tail, kMagic, 4) != 0) {
    if (std::memcmp(p, kMagic, 4) == 0) {
      return Status::Invalid("no PAR1 magic at the end: the file is truncated");
    }
    return Status::Invalid("not a Parquet file (no PAR1 magic at the end)");
  }
  uint32_t footer_len;
  std::memcpy(&footer_len, p + size - kFooterTailSize, 4);
  if (footer_len > static_cast<uint64_t>(size - 4 - kFooterTailSize)) {
    return Status::Invalid("footer of {} bytes does not fit in a file of {} bytes", footer_len,
                           size);
  }
  const int64_t footer_start = size - kFooterTailSize - footer_len;
  Status st = DecodeFileMetaData(p + footer_start, footer_len, &metadata_);
  if (!st.ok()) return st.WithContext("footer");
  if (metadata_.has_encryption_algorithm) {
    return Status::Unsupported("encrypted Parquet is not supported (encrypted columns)");
  }
  QUIVER_ASSIGN_OR_RAISE(schema_, SchemaDescriptor::Make(metadata_.schema));
  pad_chunk_length_ = WrittenByOldParquetMr(metadata_.created_by);
  for (size_t i = 0; i < metadata_.row_groups.size(); ++i) {
    const RowGroup& rg = metadata_.row_groups[i];
    if (static_cast<int>(rg.columns.size()) != schema_.num_columns()) {
      return Status::Invalid("row group {} has {} column chunks, the schema {} columns", i,
                             rg.columns.size(), schema_.num_columns());
    }
    if (rg.num_rows < 0) return Status::Invalid("row group {} has {} rows", i, rg.num_rows);
  }
  if (metadata_.num_rows < 0) return Status::Invalid("file claims {} rows", metadata_.num_rows);
  QUIVER_ASSIGN_OR_RAISE(arrow_, ParquetToArrowSchema(schema_, metadata_.key_value_metadata,
                                                      options_.use_stored_arrow_schema));
  return Status::OK();
}

namespace {

// The bytes [offset, offset + length) of the file, checked.
Result<const uint8_t*> IndexBytes(const Buffer& data, std::optional<int64_t> offset,
                                  std::optional<int32_t> length, const std::string& context) {
  if (!offset || !length) return nullptr;
  if (*offset < 0 || *length < 0 || *offset > data.size() || *length > data.size() - *offset) {
    return Status::Invalid("{}: page index at byte {} of {} bytes lies outside the file", context,
                           *offset, *length);
  }
  return data.data() + *offset;
}

// The page index structure (column or offset index, `what`) that `decode`
// reads at [offset, offset + length); none when the chunk has none.
template <typename Index>
Result<std::optional<Index>> ReadPageIndex(const Buffer& data, std::optional<int64_t> offset,
                                           std::optional<int32_t> length,
                                           const std::string& context,
                                           Status (*decode)(const uint8_t*, int64_t, Index*),
                                           const char* what) {
  QUIVER_ASSIGN_OR_RAISE(const uint8_t* p, IndexBytes(data, offset, length, context));
  if (p == nullptr) return std::optional<Index>();
  Index index;
  Status st = decode(p, *length, &index);
  if (!st.ok()) return st.WithContext(context + ": " + what);
  return std::optional<Index>(std::move(index));
}

}  // namespace

Result<std::optional<ColumnIndex>> ParquetFileReader::ReadColumnIndex(int row_group,
                                                                      int column) const {
  if (row_group < 0 || row_group >= num_row_groups() || column < 0 ||
      column >= schema_.num_columns()) {
    return Status::IndexError("{}: no column chunk {} in row group {}", name_, column, row_group);
  }
  const ColumnChunk& c = metadata_.row_groups[row_group].columns[column];
  return ReadPageIndex<ColumnIndex>(*data_, c.column_index_offset, c.column_index_length,
                                    ColumnContext(row_group, column), DecodeColumnIndex,
                                    "column index");
}

Result<std::optional<OffsetIndex>> ParquetFileReader::ReadOffsetIndex(int row_group,
                                                                      int column) const {
  if (row_group < 0 || row_group >= num_row_groups() || column < 0 ||
      column >= schema_.num_columns()) {
    return Status::IndexError("{}: no column chunk {} in row group {}", name_, column, row_group);
  }
  const ColumnChunk& c = metadata_.row_groups[row_group].columns[column];
  return ReadPageIndex<OffsetIndex>(*data_, c.offset_index_offset, c.offset_index_length,
                                    ColumnContext(row_group, column), DecodeOffsetIndex,
                                    "offset index");
}

std::string ParquetFileReader::ColumnContext(int row_group, int column) const {
  return fmt::format("{}: row group {}, column '{}'", name_, row_group,
                     schema_.column(column).path);
}

int64_t ParquetFileReader::row_group_bytes(int i, const std::vector<int>& fields) const {
  const RowGroup& rg = metadata_.row_groups[i];
  int64_t total = 0;
  auto add_field = [&](int f) {
    for (int c : arrow_.leaves[f]) {
      const ColumnChunk& chunk = rg.columns[c];
      if (!chunk.meta_data) continue;
      const int64_t size = std::max<int64_t>(chunk.meta_data->total_compressed_size, 0);
      total = size > INT64_MAX - total ? INT64_MAX : total + size;  // hostile sizes saturate
    }
  };
  if (fields.empty()) {
    for (int f = 0; f < schema()->num_fields(); ++f) add_field(f);
  } else {
    for (int f : fields) add_field(f);
  }
  return total;
}

namespace {

// The rows `ranges` (row group positions) of `a`, which holds either the
// whole row group (pages empty) or only the rows of `pages` of `index`, in
// order. Every page overlapping a range was decoded, so each range is one
// run of `a`.
Result<ArrayRef> CutRows(const ArrayRef& a, const std::vector<RowRange>& ranges,
                         const std::vector<int>& pages, const std::optional<OffsetIndex>& index,
                         int64_t num_rows) {
  std::vector<ArrayRef> parts;
  size_t p = 0;
  int64_t page_start = 0;  // position in `a` of pages[p]'s first row
  for (const RowRange& r : ranges) {
    int64_t at = r.begin;
    if (!pages.empty()) {
      // Advance to the page holding r.begin.
      while (p < pages.size()) {
        const int64_t first = index->page_locations[static_cast<size_t>(pages[p])].first_row_index;
        const int64_t rows = PageRows(*index, pages[p], num_rows);
        if (r.begin < first + rows) {
          if (r.begin < first) {
            return Status::Invalid("row {} lies in a page that was not read", r.begin);
          }
          at = page_start + (r.begin - first);
          break;
        }
        page_start += rows;
        ++p;
      }
      if (p == pages.size()) return Status::Invalid("row {} lies past the pages read", r.begin);
    }
    if (at + (r.end - r.begin) > a->length) {
      return Status::Invalid("rows {}..{} lie past the {} rows decoded", r.begin, r.end, a->length);
    }
    parts.push_back(a->Slice(at, r.end - r.begin));
  }
  if (parts.size() == 1) return parts[0];
  if (parts.empty()) return a->Slice(0, 0);
  return Concatenate(parts);
}

}  // namespace

Result<RecordBatchRef> ParquetFileReader::ReadRowGroup(int i,
                                                       const std::vector<int>& fields) const {
  return ReadRowGroupImpl(i, fields, nullptr);
}

Result<RecordBatchRef> ParquetFileReader::ReadRowGroupRows(
    int i, const std::vector<int>& fields, const std::vector<RowRange>& ranges) const {
  return ReadRowGroupImpl(i, fields, &ranges);
}

Result<RecordBatchRef> ParquetFileReader::ReadRowGroupImpl(
    int i, const std::vector<int>& fields_in, const std::vector<RowRange>* ranges) const {
  if (i < 0 || i >= num_row_groups()) {
    return Status::IndexError("{}: row group {} out of range (the file has {})", name_, i,
                              num_row_groups());
  }
  std::vector<int> fields = fields_in;
  if (fields.empty()) {
    for (int f = 0; f < schema()->num_fields(); ++f) fields.push_back(f);
  }
  for (int f : fields) {
    if (f < 0 || f >= schema()->num_fields()) {
      return Status::IndexError("{}: column {} out of range (the file has {})", name_, f,
                                schema()->num_fields());
    }
  }
  const RowGroup& rg = metadata_.row_groups[i];
  std::vector<int> columns;
  for (int f : fields) {
    for (int c : arrow_.leaves[f]) columns.push_back(c);
  }
  const int64_t compressed = row_group_bytes(i, fields);
  const int64_t budget_bytes =
      std::max(options_.min_decode_budget,
               compressed > INT64_MAX / std::max<int64_t>(options_.decode_ratio, 1)
                   ? INT64_MAX
                   : compressed * options_.decode_ratio);
  DecodeBudget budget(budget_bytes);
  PageReaderOptions page_options;
  page_options.verify_crc = options_.verify_crc;
  page_options.pool = options_.pool;
  page_options.pad_chunk_length = pad_chunk_length_;

  // With row ranges: the pages of each flat single-leaf field that hold
  // them (paged[f]; empty: the whole chunk is decoded and cut).
  int64_t out_rows = rg.num_rows;
  std::vector<std::vector<int>> paged(fields.size());
  std::vector<std::optional<OffsetIndex>> offset_index(fields.size());
  if (ranges != nullptr) {
    out_rows = 0;
    for (size_t r = 0; r < ranges->size(); ++r) {
      const RowRange& range = (*ranges)[r];
      if (range.begin < 0 || range.end <= range.begin || range.end > rg.num_rows ||
          (r > 0 && range.begin < (*ranges)[r - 1].end)) {
        return Status::IndexError("{}: row group {}: row range {}..{} is not ascending inside its "
                                  "{} rows", name_, i, range.begin, range.end, rg.num_rows);
      }
      out_rows += range.end - range.begin;
    }
    for (size_t k = 0; k < fields.size(); ++k) {
      const FieldNode& node = arrow_.fields[fields[k]];
      if (node.kind != FieldNode::Kind::kLeaf || schema_.column(node.column).max_rep_level != 0) {
        continue;
      }
      auto index = ReadOffsetIndex(i, node.column);
      if (!index.ok() || !index->has_value() || !ValidOffsetIndex(**index, rg.num_rows)) continue;
      const OffsetIndex& oi = **index;
      std::vector<int> pages;
      size_t r = 0;
      for (int p = 0; p < static_cast<int>(oi.page_locations.size()); ++p) {
        const int64_t first = oi.page_locations[static_cast<size_t>(p)].first_row_index;
        const int64_t end = first + PageRows(oi, p, rg.num_rows);
        while (r < ranges->size() && (*ranges)[r].end <= first) ++r;
        if (r < ranges->size() && (*ranges)[r].begin < end) pages.push_back(p);
      }
      if (pages.size() == oi.page_locations.size()) continue;  // every page: read it whole
      paged[k] = std::move(pages);
      offset_index[k] = std::move(**index);
    }
  }
  std::vector<int> field_of_column(static_cast<size_t>(schema_.num_columns()), -1);
  for (size_t k = 0; k < fields.size(); ++k) {
    for (int c : arrow_.leaves[fields[k]]) field_of_column[static_cast<size_t>(c)] = static_cast<int>(k);
  }

  std::vector<ColumnChunkData> chunks(static_cast<size_t>(schema_.num_columns()));
  auto decode = [&](int64_t k) -> Status {
    const int c = columns[k];
    const size_t f = static_cast<size_t>(field_of_column[static_cast<size_t>(c)]);
    if (!paged[f].empty()) {
      return ReadColumnChunkPages(data_->data(), data_->size(), rg.columns[c], schema_.column(c),
                                  *offset_index[f], paged[f], rg.num_rows, ColumnContext(i, c),
                                  &budget, page_options, &chunks[c]);
    }
    return ReadColumnChunk(data_->data(), data_->size(), rg.columns[c], schema_.column(c),
                           rg.num_rows, ColumnContext(i, c), &budget, page_options, &chunks[c]);
  };
  const int helpers = options_.parallel ? -1 : 0;
  QUIVER_RETURN_NOT_OK(ParallelForInline(static_cast<int64_t>(columns.size()), decode, helpers));

  std::vector<ArrayRef> arrays(fields.size());
  const std::string context = fmt::format("{}: row group {}", name_, i);
  auto assemble = [&](int64_t k) -> Status {
    const int f = fields[k];
    const FieldNode& node = arrow_.fields[f];
    // The rows decoded: the selected pages', or the whole row group's.
    int64_t decoded_rows = rg.num_rows;
    if (!paged[k].empty()) {
      decoded_rows = 0;
      for (int p : paged[k]) decoded_rows += PageRows(*offset_index[k], p, rg.num_rows);
    }
    QUIVER_ASSIGN_OR_RAISE(
        ArrayRef a, AssembleField(node, schema_, &chunks, decoded_rows, context, options_.pool,
                                  options_.validate_full, &budget));
    if (ranges != nullptr) {
      QUIVER_ASSIGN_OR_RAISE(a, CutRows(a, *ranges, paged[k], offset_index[k], rg.num_rows));
    }
    // Structure only: AssembleField checked the UTF-8 of strings itself,
    // much faster than value by value.
    Status st = a->Validate(/*full=*/false);
    if (!st.ok()) {
      return st.WithContext(
          fmt::format("{}, field '{}'", context, PrintableName(node.field->name)));
    }
    const TypeRef& type = schema()->field(f)->type;
    if (!type->Equals(*a->type) || type->ToString() != a->type->ToString()) {
      QUIVER_ASSIGN_OR_RAISE(a, ConvertToType(a, type, options_.pool));
    }
    arrays[k] = std::move(a);
    return Status::OK();
  };
  QUIVER_RETURN_NOT_OK(ParallelForInline(static_cast<int64_t>(fields.size()), assemble, helpers));

  SchemaRef out_schema = schema();
  if (!fields_in.empty()) {
    auto s = std::make_shared<Schema>();
    s->metadata = schema()->metadata;
    for (int f : fields) s->fields.push_back(schema()->field(f));
    out_schema = std::move(s);
  }
  return RecordBatch::Make(std::move(out_schema), out_rows, std::move(arrays));
}

}  // namespace quiver::parquet
