// Parquet in the format registry (formats/file_format.h): the FileReader
// (units = row groups, statistics from the footer, projected and parallel
// reads) and the TableWriter. The registry's OpenAs() and MakeTableWriter()
// call these.
#pragma once

#include <memory>
#include <string>

#include "common/io.h"
#include "formats/file_reader.h"
#include "formats/table_writer.h"

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
