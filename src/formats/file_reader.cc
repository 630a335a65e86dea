// Names of the formats and the projection helpers the adapters share (see
// file_reader.h).
#include "formats/file_reader.h"

#include <utility>

namespace quiver::formats {
namespace {

// Picks `columns` out of each batch of `in`.
class ProjectingReader final : public RecordBatchReader {
 public:
  ProjectingReader(std::unique_ptr<RecordBatchReader> in, std::vector<int> columns)
      : in_(std::move(in)),
        columns_(std::move(columns)),
        schema_(ProjectSchema(in_->schema(), columns_)) {}
  SchemaRef schema() const override { return schema_; }
  Status ReadNext(RecordBatchRef* out) override {
    RecordBatchRef batch;
    QUIVER_RETURN_NOT_OK(in_->ReadNext(&batch));
    if (batch == nullptr) {
      *out = nullptr;
      return Status::OK();
    }
    std::vector<ArrayRef> cols;
    cols.reserve(columns_.size());
    for (int c : columns_) cols.push_back(batch->column(c));
    *out = RecordBatch::Make(schema_, batch->num_rows(), std::move(cols));
    return Status::OK();
  }

 private:
  std::unique_ptr<RecordBatchReader> in_;
  std::vector<int> columns_;
  SchemaRef schema_;
};

}  // namespace

const char* FileFormatName(FileFormat format) {
  switch (format) {
    case FileFormat::kAuto:
      return "auto";
    case FileFormat::kIpcFile:
      return "Arrow IPC file";
    case FileFormat::kIpcStream:
      return "Arrow IPC stream";
    case FileFormat::kCsv:
      return "CSV";
    case FileFormat::kParquet:
      return "Parquet";
    case FileFormat::kAvro:
      return "Avro";
  }
  return "?";
}

Status CheckColumns(const std::vector<int>& columns, const Schema& schema,
                    const std::string& path) {
  for (int c : columns) {
    if (c < 0 || c >= schema.num_fields()) {
      return Status::IndexError("{}: column {} out of range (the file has {})", path, c,
                                schema.num_fields());
    }
  }
  return Status::OK();
}

SchemaRef ProjectSchema(const SchemaRef& schema, const std::vector<int>& columns) {
  auto s = std::make_shared<Schema>();
  s->metadata = schema->metadata;
  for (int c : columns) s->fields.push_back(schema->field(c));
  return s;
}

std::unique_ptr<RecordBatchReader> ProjectColumns(std::unique_ptr<RecordBatchReader> in,
                                                  const std::vector<int>& columns) {
  if (columns.empty()) return in;
  return std::make_unique<ProjectingReader>(std::move(in), columns);
}

Result<RecordBatchRef> FileReader::ReadUnitRows(int unit, const std::vector<int>& columns,
                                                const std::vector<RowRange>& ranges) {
  QUIVER_ASSIGN_OR_RAISE(auto batch, ReadUnit(unit, columns));
  return CutRanges(batch, ranges, DefaultMemoryPool());
}

Result<RecordBatchRef> CutRanges(const RecordBatchRef& batch, const std::vector<RowRange>& ranges,
                                 MemoryPool* pool) {
  int64_t rows = 0;
  for (const RowRange& r : ranges) {
    if (r.begin < 0 || r.end < r.begin || r.end > batch->num_rows()) {
      return Status::Invalid("rows {}..{} outside a batch of {} rows", r.begin, r.end,
                             batch->num_rows());
    }
    rows += r.end - r.begin;
  }
  if (ranges.size() == 1) return batch->Slice(ranges[0].begin, rows);
  std::vector<ArrayRef> columns;
  for (const ArrayRef& column : batch->columns()) {
    std::vector<ArrayRef> parts;
    for (const RowRange& r : ranges) {
      if (r.end > r.begin) parts.push_back(column->Slice(r.begin, r.end - r.begin));
    }
    if (parts.empty()) parts.push_back(column->Slice(0, 0));
    QUIVER_ASSIGN_OR_RAISE(auto joined, Concatenate(parts, pool));
    columns.push_back(std::move(joined));
  }
  return RecordBatch::Make(batch->schema(), rows, std::move(columns));
}

Status WithPath(const Status& st, const std::string& path) {
  if (st.ok() || st.message().find(path) != std::string::npos) return st;
  return st.WithContext(path);
}

}  // namespace quiver::formats
