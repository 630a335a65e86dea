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

Status WithPath(const Status& st, const std::string& path) {
  if (st.ok() || st.message().find(path) != std::string::npos) return st;
  return st.WithContext(path);
}

}  // namespace quiver::formats
