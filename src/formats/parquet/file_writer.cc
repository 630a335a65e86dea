#include "formats/parquet/file_writer.h"

#include <cstring>
#include <mutex>

#include "formats/parquet/arrow_schema.h"
#include "formats/parquet/level_builder.h"
#include "formats/parquet/parallel_internal.h"
#include "formats/parquet/schema_writer.h"

#ifndef QUIVER_VERSION
#define QUIVER_VERSION "0.1.0"
#endif

namespace quiver::parquet {

struct ParquetFileWriter::Impl {
  OutputStream* sink = nullptr;
  SchemaRef schema;
  ParquetWriteOptions options;
  WriterSchema writer_schema;
  std::vector<ColumnWriterOptions> column_options;  // per leaf
  // Per leaf: row groups in a row whose dictionary overflowed. After one,
  // the next three try no dictionary (the data rarely changes its mind and
  // building a doomed dictionary costs a hash per value).
  std::vector<int> dictionary_misses;
  FileMetaData metadata;
  // Batches waiting for their row group (slices share the caller's buffers).
  std::vector<RecordBatchRef> pending;
  int64_t pending_rows = 0;
  int64_t rows_written = 0;
  bool started = false;
  bool closed = false;
  // Page index entries, written before the footer.
  struct ChunkIndex {
    std::optional<ColumnIndex> column_index;
    OffsetIndex offset_index;
  };
  std::vector<std::vector<ChunkIndex>> indexes;  // [row group][leaf]
  // Per-task buffers reused from row group to row group: fresh memory costs
  // a page fault per 4 kB, and growing buffers copy what they hold.
  struct Scratch {
    LeafValues values;
    std::vector<int32_t> indices;
  };
  std::mutex scratch_mu;
  std::vector<std::unique_ptr<Scratch>> scratch;  // GUARDED_BY(scratch_mu)

  std::unique_ptr<Scratch> TakeScratch() {
    std::lock_guard<std::mutex> lock(scratch_mu);
    if (scratch.empty()) return std::make_unique<Scratch>();
    auto s = std::move(scratch.back());
    scratch.pop_back();
    return s;
  }
  void GiveScratch(std::unique_ptr<Scratch> s) {
    std::lock_guard<std::mutex> lock(scratch_mu);
    scratch.push_back(std::move(s));
  }

  Status Start() {
    if (started) return Status::OK();
    QUIVER_RETURN_NOT_OK(sink->Write(kMagic, 4));
    started = true;
    return Status::OK();
  }

  Status FlushRowGroup(int64_t rows);
  Status WriteFooter();
};

namespace {

// Codec of a leaf from the per-column overrides (field name or dotted path).
void ApplyColumnCodec(const ParquetWriteOptions& o, const WriterSchema& ws, int leaf,
                      const Schema& schema, ColumnWriterOptions* c) {
  const WriterSchema::Leaf& l = ws.leaves[leaf];
  std::string dotted;
  for (const std::string& p : l.path_in_schema) {
    if (!dotted.empty()) dotted += '.';
    dotted += p;
  }
  for (const auto& cc : o.column_codecs) {
    if (cc.column == dotted || cc.column == schema.field(l.field)->name) {
      c->codec = cc.codec;
      c->compression_level = cc.level;
    }
  }
}

}  // namespace

Status ParquetFileWriter::Impl::FlushRowGroup(int64_t rows) {
  // Take `rows` rows off the pending batches.
  std::vector<RecordBatchRef> batches;
  int64_t taken = 0;
  while (taken < rows) {
    RecordBatchRef& b = pending.front();
    const int64_t want = rows - taken;
    if (b->num_rows() <= want) {
      taken += b->num_rows();
      batches.push_back(std::move(b));
      pending.erase(pending.begin());
    } else {
      batches.push_back(b->Slice(0, want));
      b = b->Slice(want, b->num_rows() - want);
      taken += want;
    }
  }
  pending_rows -= rows;

  const int num_leaves = static_cast<int>(writer_schema.leaves.size());
  std::vector<EncodedColumnChunk> chunks(static_cast<size_t>(num_leaves));
  auto encode = [&](int64_t leaf) -> Status {
    const WriterSchema::Leaf& l = writer_schema.leaves[leaf];
    std::unique_ptr<Scratch> s = TakeScratch();
    struct Return {
      Impl* impl;
      std::unique_ptr<Scratch>* s;
      ~Return() { impl->GiveScratch(std::move(*s)); }
    } give_back{this, &s};
    LeafValues& values = s->values;
    values.Clear();
    if (writer_schema.fields[l.field].kind == WriterNode::Kind::kLeaf) {
      // Flat column: the sizes are known up front.
      const int w =
          l.physical_type == Type::kBoolean ? 1 : PhysicalWidth(l.physical_type, l.type_length);
      values.fixed.reserve(static_cast<size_t>(rows * w));
      values.def.reserve(l.max_def_level > 0 ? static_cast<size_t>(rows) : 0);
      if (l.physical_type == Type::kByteArray) {
        int64_t bytes = 0;
        for (const RecordBatchRef& b : batches) {
          const ArrayData& a = *b->column(l.field);
          if (a.type->id == TypeId::kString || a.type->id == TypeId::kBinary) {
            const int32_t* o = a.GetValues<int32_t>(1);
            bytes += o[a.length] - o[0];
          }
        }
        values.data.reserve(static_cast<size_t>(bytes));
        values.offsets.reserve(static_cast<size_t>(rows + 1));
      }
    }
    for (const RecordBatchRef& b : batches) {
      QUIVER_RETURN_NOT_OK(
          AppendLeafValues(writer_schema, static_cast<int>(leaf), *b->column(l.field), &values));
    }
    ColumnWriterOptions copts = column_options[leaf];
    const int misses = dictionary_misses[leaf];
    if (misses > 0 && misses % 4 != 0) copts.dictionary = false;
    Status st = EncodeColumnChunk(l, values, copts, &chunks[leaf], &s->indices);
    if (copts.dictionary) {
      dictionary_misses[leaf] = chunks[leaf].dictionary_overflowed ? misses + 1 : 0;
    } else {
      ++dictionary_misses[leaf];
    }
    if (!st.ok()) return st.WithContext(fmt::format("column '{}'", schema->field(l.field)->name));
    return Status::OK();
  };
  QUIVER_RETURN_NOT_OK(ParallelForInline(num_leaves, encode, options.parallel ? -1 : 0));

  RowGroup rg;
  rg.num_rows = rows;
  rg.file_offset = sink->Tell();
  rg.ordinal = static_cast<int16_t>(metadata.row_groups.size());
  int64_t total_uncompressed = 0;
  int64_t total_compressed = 0;
  std::vector<ChunkIndex> chunk_indexes;
  for (int leaf = 0; leaf < num_leaves; ++leaf) {
    EncodedColumnChunk& c = chunks[leaf];
    const int64_t start = sink->Tell();
    for (const std::string& page : c.pages) QUIVER_RETURN_NOT_OK(sink->Write(page));
    ColumnChunk cc;
    cc.file_offset = 0;  // deprecated; 0 says "no metadata outside the footer"
    ColumnMetaData md = std::move(c.meta);
    md.data_page_offset += start;
    if (md.dictionary_page_offset) *md.dictionary_page_offset += start;
    total_uncompressed += md.total_uncompressed_size;
    total_compressed += md.total_compressed_size;
    cc.meta_data = std::move(md);
    for (PageLocation& loc : c.offset_index.page_locations) loc.offset += start;
    chunk_indexes.push_back({std::move(c.column_index), std::move(c.offset_index)});
    rg.columns.push_back(std::move(cc));
    c.pages = {};
  }
  rg.total_byte_size = total_uncompressed;
  rg.total_compressed_size = total_compressed;
  metadata.row_groups.push_back(std::move(rg));
  indexes.push_back(std::move(chunk_indexes));
  rows_written += rows;
  return Status::OK();
}

Status ParquetFileWriter::Impl::WriteFooter() {
  // Page index: every column index, then every offset index.
  if (options.page_index) {
    for (size_t r = 0; r < indexes.size(); ++r) {
      for (size_t c = 0; c < indexes[r].size(); ++c) {
        if (!indexes[r][c].column_index) continue;
        std::string bytes;
        EncodeColumnIndex(*indexes[r][c].column_index, &bytes);
        ColumnChunk& cc = metadata.row_groups[r].columns[c];
        cc.column_index_offset = sink->Tell();
        cc.column_index_length = static_cast<int32_t>(bytes.size());
        QUIVER_RETURN_NOT_OK(sink->Write(bytes));
      }
    }
    for (size_t r = 0; r < indexes.size(); ++r) {
      for (size_t c = 0; c < indexes[r].size(); ++c) {
        std::string bytes;
        EncodeOffsetIndex(indexes[r][c].offset_index, &bytes);
        ColumnChunk& cc = metadata.row_groups[r].columns[c];
        cc.offset_index_offset = sink->Tell();
        cc.offset_index_length = static_cast<int32_t>(bytes.size());
        QUIVER_RETURN_NOT_OK(sink->Write(bytes));
      }
    }
  }
  metadata.num_rows = rows_written;
  std::string footer;
  EncodeFileMetaData(metadata, &footer);
  QUIVER_RETURN_NOT_OK(sink->Write(footer));
  const uint32_t len = static_cast<uint32_t>(footer.size());
  QUIVER_RETURN_NOT_OK(sink->Write(&len, 4));
  return sink->Write(kMagic, 4);
}

ParquetFileWriter::ParquetFileWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ParquetFileWriter::~ParquetFileWriter() = default;

Result<std::unique_ptr<ParquetFileWriter>> ParquetFileWriter::Make(
    OutputStream* sink, SchemaRef schema, const ParquetWriteOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->sink = sink;
  impl->schema = schema;
  impl->options = options;
  if (options.row_group_rows <= 0) {
    return Status::Invalid("row group size must be positive, got {}", options.row_group_rows);
  }
  if (options.data_page_version != 1 && options.data_page_version != 2) {
    return Status::Invalid("data page version must be 1 or 2, got {}", options.data_page_version);
  }
  QUIVER_ASSIGN_OR_RAISE(impl->writer_schema, ArrowToParquetSchema(*schema));
  for (size_t leaf = 0; leaf < impl->writer_schema.leaves.size(); ++leaf) {
    ColumnWriterOptions c;
    c.codec = options.codec;
    c.compression_level = options.compression_level;
    c.data_page_version = options.data_page_version;
    c.data_page_size = options.data_page_size;
    c.data_page_rows = options.data_page_rows;
    c.dictionary = options.dictionary;
    c.dictionary_page_size_limit = options.dictionary_page_size_limit;
    c.encoding = options.encoding;
    c.statistics = options.statistics;
    c.page_index = options.page_index;
    c.page_checksum = options.page_checksum;
    c.pool = options.pool;
    ApplyColumnCodec(options, impl->writer_schema, static_cast<int>(leaf), *schema, &c);
    impl->column_options.push_back(c);
  }
  impl->dictionary_misses.assign(impl->writer_schema.leaves.size(), 0);
  FileMetaData& md = impl->metadata;
  md.version = 2;
  md.schema = impl->writer_schema.elements;
  md.created_by = "quiver version " QUIVER_VERSION;
  for (const auto& [k, v] : schema->metadata) md.key_value_metadata.push_back({k, v});
  for (const auto& [k, v] : options.key_value_metadata) md.key_value_metadata.push_back({k, v});
  if (options.store_arrow_schema) {
    QUIVER_ASSIGN_OR_RAISE(std::string encoded, EncodeStoredArrowSchema(*schema));
    md.key_value_metadata.push_back({"ARROW:schema", std::move(encoded)});
  }
  md.column_orders.assign(impl->writer_schema.leaves.size(), ColumnOrder::kTypeOrder);
  return std::unique_ptr<ParquetFileWriter>(new ParquetFileWriter(std::move(impl)));
}

Status ParquetFileWriter::WriteRecordBatch(const RecordBatch& batch) {
  Impl& s = *impl_;
  if (s.closed) return Status::Invalid("Parquet writer already closed");
  if (batch.num_columns() != s.schema->num_fields()) {
    return Status::Invalid("batch has {} columns, the Parquet schema {}", batch.num_columns(),
                           s.schema->num_fields());
  }
  QUIVER_RETURN_NOT_OK(s.Start());
  if (batch.num_rows() == 0) return Status::OK();
  // Dictionaries are written as values (and re-encoded); decode them now.
  std::vector<ArrayRef> columns;
  bool changed = false;
  for (const ArrayRef& c : batch.columns()) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef m, MaterializeDictionaries(c, s.options.pool));
    changed |= m != c;
    columns.push_back(std::move(m));
  }
  RecordBatchRef b = changed
                         ? RecordBatch::Make(batch.schema(), batch.num_rows(), std::move(columns))
                         : RecordBatch::Make(batch.schema(), batch.num_rows(), batch.columns());
  s.pending.push_back(std::move(b));
  s.pending_rows += batch.num_rows();
  while (s.pending_rows >= s.options.row_group_rows) {
    QUIVER_RETURN_NOT_OK(s.FlushRowGroup(s.options.row_group_rows));
  }
  return Status::OK();
}

Status ParquetFileWriter::Close() {
  Impl& s = *impl_;
  if (s.closed) return Status::OK();
  QUIVER_RETURN_NOT_OK(s.Start());
  if (s.pending_rows > 0) QUIVER_RETURN_NOT_OK(s.FlushRowGroup(s.pending_rows));
  QUIVER_RETURN_NOT_OK(s.WriteFooter());
  s.closed = true;
  return Status::OK();
}

int64_t ParquetFileWriter::rows_written() const { return impl_->rows_written; }
int ParquetFileWriter::num_row_groups() const {
  return static_cast<int>(impl_->metadata.row_groups.size());
}

}  // namespace quiver::parquet
