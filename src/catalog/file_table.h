// FileTable: files as a table (Arrow IPC, CSV, and every format the registry
// in formats/file_format.h knows), opened once and scanned by units with
// pruning by statistics.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "catalog/scan.h"
#include "formats/file_format.h"

namespace quiver {

struct FileTableOptions {
  formats::FileFormat format = formats::FileFormat::kAuto;
  formats::CsvOptions csv;
};

// Files as a table: one path, a directory (its files, sorted) or a glob
// (`logs/2024-*.arrow`, sorted). Every file must have the same columns as
// the first (the error names the file that differs).
class FileTable final : public TableSource {
 public:
  static Result<std::shared_ptr<FileTable>> Open(const std::string& name,
                                                 const std::string& path_or_glob,
                                                 const FileTableOptions& options = {});
  const std::string& name() const override { return name_; }
  SchemaRef schema() const override { return schema_; }
  std::vector<std::pair<std::string, std::string>> UnreadableColumns() const override;
  int64_t EstimatedRows() const override { return rows_; }
  Result<std::unique_ptr<ScanPlan>> Plan(const ScanRequest& request) const override;
  std::string Describe() const override;
  const std::vector<std::string>& paths() const { return paths_; }
  // The first file's schema as stored (with its fields' metadata, such as
  // Parquet's field ids; columns schema() leaves out included).
  const SchemaRef& file_schema() const { return file_schema_; }

 private:
  FileTable() = default;
  std::string name_;
  std::string pattern_;
  FileTableOptions options_;
  std::vector<std::string> paths_;
  std::vector<std::shared_ptr<formats::FileReader>> files_;
  SchemaRef file_schema_;  // as stored
  SchemaRef schema_;       // engine types
  int64_t rows_ = -1;
};

}  // namespace quiver
