// Avro in the format registry (formats/file_format.h): the FileReader
// (units = runs of consecutive blocks, read in parallel) and the
// TableWriter. The registry's OpenAs() and MakeTableWriter() call these.
#pragma once

#include <memory>
#include <string>

#include "common/io.h"
#include "formats/file_reader.h"
#include "formats/table_writer.h"

namespace quiver::avro {

// `data` is the file's bytes when it was read into memory, else null (the
// file at `path` is mapped).
Result<std::shared_ptr<formats::FileReader>> OpenAvroSource(const std::string& path,
                                                            std::shared_ptr<Buffer> data,
                                                            const formats::ReadOptions& options);

// options.codec: kNone, kGzip (Avro's deflate), kSnappy or kZstd.
Result<std::unique_ptr<formats::TableWriter>> MakeAvroTableWriter(
    const std::string& path, OutputStream* sink, const SchemaRef& schema,
    const formats::WriteOptions& options);

}  // namespace quiver::avro
