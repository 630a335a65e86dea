// CSV in the format registry (formats/file_format.h): the FileReader
// (sequential; the reader parses blocks in parallel itself) and the
// TableWriter. The registry's OpenAs() and MakeTableWriter() call these.
#pragma once

#include <memory>
#include <string>

#include "common/io.h"
#include "formats/file_reader.h"
#include "formats/table_writer.h"

namespace quiver::csv {

// `data` is the file's bytes when it was read into memory, else null (the
// file at `path` is read, and decompressed when gzip or zstd).
Result<std::shared_ptr<formats::FileReader>> OpenCsvSource(const std::string& path,
                                                           std::shared_ptr<Buffer> data,
                                                           const formats::ReadOptions& options);

// Fails when options.codec asks for compression (`path` names the output in
// the error).
Result<std::unique_ptr<formats::TableWriter>> MakeCsvTableWriter(
    const std::string& path, OutputStream* sink, const SchemaRef& schema,
    const formats::WriteOptions& options);

}  // namespace quiver::csv
