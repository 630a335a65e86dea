#include "engine/copy_output.h"

#include <algorithm>

#include "columnar/batch_util.h"

namespace quiver {

Status WriteInBatchesOf(int64_t rows, const SchemaRef& schema,
                        const std::vector<RecordBatchRef>& batches, formats::TableWriter* writer) {
  std::vector<RecordBatchRef> pending;
  int64_t pending_rows = 0;
  auto flush = [&]() -> Status {
    if (pending_rows == 0) return Status::OK();
    QUIVER_ASSIGN_OR_RAISE(RecordBatchRef merged, ConcatenateBatches(schema, pending));
    pending.clear();
    pending_rows = 0;
    return writer->Write(*merged);
  };
  for (const RecordBatchRef& b : batches) {
    const int64_t n = b->num_rows();
    int64_t offset = 0;
    while (offset < n) {
      const int64_t take = std::min(n - offset, rows - pending_rows);
      pending.push_back(offset == 0 && take == n ? b : b->Slice(offset, take));
      pending_rows += take;
      offset += take;
      if (pending_rows == rows) QUIVER_RETURN_NOT_OK(flush());
    }
  }
  return flush();
}

}  // namespace quiver
