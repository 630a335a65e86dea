// COPY ... TO: a query's batches into a file format's writer.
#pragma once

#include <cstdint>
#include <vector>

#include "columnar/array.h"
#include "common/status.h"
#include "formats/table_writer.h"

namespace quiver {

// Writes the rows of `batches` (all of `schema`) in order as record batches
// of exactly `rows` rows, the last one shorter: consecutive batches are
// merged (zero-copy where they are slices of the same buffers) and long ones
// cut. Empty input writes nothing.
Status WriteInBatchesOf(int64_t rows, const SchemaRef& schema,
                        const std::vector<RecordBatchRef>& batches, formats::TableWriter* writer);

}  // namespace quiver
