// Arrow IPC in the format registry (formats/file_format.h): FileReaders over
// IPC files (units = record batches, projected reads decode only the
// requested columns) and IPC streams (sequential), and the TableWriter of
// both. The registry's OpenAs() and MakeTableWriter() call these.
#pragma once

#include <memory>
#include <string>

#include "common/io.h"
#include "formats/file_reader.h"
#include "formats/table_writer.h"

namespace quiver::ipc {

// `data` is the file's bytes when it was read into memory, else null (the
// file at `path` is mapped).
Result<std::shared_ptr<formats::FileReader>> OpenIpcFileSource(const std::string& path,
                                                               std::shared_ptr<Buffer> data,
                                                               const formats::ReadOptions& options);
Result<std::shared_ptr<formats::FileReader>> OpenIpcStreamSource(
    const std::string& path, std::shared_ptr<Buffer> data, const formats::ReadOptions& options);

// An IPC file writer (`stream` false) or stream writer into `sink`.
Result<std::unique_ptr<formats::TableWriter>> MakeIpcTableWriter(
    bool stream, OutputStream* sink, const SchemaRef& schema, const formats::WriteOptions& options);

}  // namespace quiver::ipc
