// The format registry: the one place that tells file formats apart and
// picks the adapter that opens or writes each (see file_reader.h for the
// layers of formats/). The CLI (cat, convert), the SQL engine's scans and
// COPY all go through here; a new format adds its folder, an adapter
// (FileReader, TableWriter) and a case here.
//
// Detection (DetectFormat) looks at the bytes first, then the name:
//   "ARROW1" at offset 0                        -> Arrow IPC file
//   0xFFFFFFFF continuation marker at offset 0  -> Arrow IPC stream
//   "PAR1" at offset 0                          -> Parquet
//   "Obj" 0x01 at offset 0                      -> Avro object container
//   *.csv *.tsv *.txt (optionally .gz/.zst)     -> CSV (.tsv: tab-delimited)
//   *.arrow *.feather *.ipc / *.arrows *.stream -> IPC file / stream
//   *.parquet                                   -> Parquet
//   *.avro                                      -> Avro
//   anything else                               -> error naming the file
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "common/io.h"
#include "common/status.h"
#include "formats/file_reader.h"
#include "formats/table_writer.h"

namespace quiver::formats {

// auto, arrow|file|ipc|feather, stream|arrows, csv|tsv, parquet, avro.
Result<FileFormat> ParseFileFormat(const std::string& name);
// Magic bytes first, then the file name (see the table above).
Result<FileFormat> DetectFormat(const std::string& path);
// The format of in-memory bytes by their magic; kAuto when they say nothing.
FileFormat FormatFromMagic(const uint8_t* data, int64_t size);
// From the name only (output files); kAuto when the extension says nothing.
FileFormat FormatFromExtension(const std::string& path);
// *.tsv, *.tsv.gz, *.tsv.zst
bool IsTsvPath(const std::string& path);

// Opens `path` ("-" = standard input, read whole) as `format` (kAuto:
// detect). Errors name the file.
Result<std::shared_ptr<FileReader>> OpenFile(const std::string& path, FileFormat format,
                                             const ReadOptions& options = {});
// Opens bytes held in memory; `name` is used in errors. kAuto goes by the
// magic bytes and takes anything else as CSV.
Result<std::shared_ptr<FileReader>> OpenBuffer(std::shared_ptr<Buffer> data, std::string name,
                                               FileFormat format, const ReadOptions& options = {});

// A writer of `format` into `sink` (which must outlive it). `path` is only
// used in errors.
Result<std::unique_ptr<TableWriter>> MakeTableWriter(FileFormat format, const std::string& path,
                                                     OutputStream* sink, const SchemaRef& schema,
                                                     const WriteOptions& options = {});

}  // namespace quiver::formats
