// COPY ... TO: a query's batches into a file format's writer, or into a
// directory of files in Hive layout (PARTITION_BY).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "common/status.h"
#include "engine/copy_options.h"
#include "formats/table_writer.h"

namespace quiver {

// Writes the rows of `batches` (all of `schema`) in order as record batches
// of exactly `rows` rows, the last one shorter: consecutive batches are
// merged (zero-copy where they are slices of the same buffers) and long ones
// cut. Empty input writes nothing.
Status WriteInBatchesOf(int64_t rows, const SchemaRef& schema,
                        const std::vector<RecordBatchRef>& batches, formats::TableWriter* writer);

// The text of a Hive directory name's key or value: the characters Hive and
// Spark escape (control characters, " # % ' * / : = ? \ { [ ] ^ and DEL)
// as %XX with upper-case hex digits.
std::string HiveEscape(const std::string& text);

// COPY ... TO 'dir' (PARTITION_BY (a, b)): checks that `dir` may be written
// as `copy.existing` says (a directory that holds anything is refused with
// 58P02 unless OVERWRITE_OR_IGNORE or APPEND), before the query runs.
Status CheckPartitionDirectory(const std::string& dir, const CopyOptions& copy);

// Writes the rows in Hive layout: dir/a=1/b=x/part-0.<ext>, one file per
// partition holding the partition's rows in query order, without the
// partition columns (`partition_columns`: their indexes in `schema`, in
// directory order). NULL is a=__HIVE_DEFAULT_PARTITION__; booleans are
// true / false, other values PostgreSQL's text; keys and values escaped as
// HiveEscape. Each file is written under a hidden name (.part-0.parquet,
// through AtomicFile) and renamed into place when complete (fsynced); with APPEND the file is part-N with the
// first N no file has. Returns the number of files written.
Result<int64_t> WriteHivePartitions(const std::string& dir, const CopyOptions& copy,
                                    const SchemaRef& schema,
                                    const std::vector<RecordBatchRef>& batches,
                                    const std::vector<int>& partition_columns);

}  // namespace quiver
