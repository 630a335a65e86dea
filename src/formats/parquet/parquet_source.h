// Parquet in the format registry (formats/file_format.h): the FileReader
// (units = row groups, statistics from the footer, projected and parallel
// reads) and the TableWriter. file_format.cc's OpenAs() and MakeTableWriter()
// call these.
#pragma once

#include <memory>
#include <string>

#include "formats/file_format.h"

namespace quiver::parquet {

// `data` is the file's bytes when it was read into memory, else null (the
// file at `path` is mapped).
Result<std::shared_ptr<formats::FileReader>> OpenParquetSource(const std::string& path,
                                                               std::shared_ptr<Buffer> data,
                                                               const formats::ReadOptions& options);

Result<std::unique_ptr<formats::TableWriter>> MakeParquetTableWriter(
    const std::string& path, OutputStream* sink, const SchemaRef& schema,
    const formats::WriteOptions& options);

}  // namespace quiver::parquet
