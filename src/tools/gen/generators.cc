#include "tools/gen/generators.h"

#include "tools/gen/text_pool.h"

namespace quiver::gen {

void AppendVString(StringColumn* col, Rng& rng, int min_len, int max_len) {
  char* out = col->AppendUninitialized(static_cast<size_t>(max_len));
  const int len = RandomVString(rng, min_len, max_len, out);
  col->TrimLast(static_cast<size_t>(max_len - len));
}

Status GenerateRowChunks(const GenOptions& options, const TableDef& def, int64_t total_rows,
                         int64_t rows_per_chunk,
                         const std::function<Result<RecordBatchRef>(int64_t, int64_t)>& make,
                         std::vector<TableReport>* reports) {
  const int64_t chunks = (total_rows + rows_per_chunk - 1) / rows_per_chunk;
  return GenerateTables(
      options, {def}, chunks,
      [&](int64_t chunk) -> Result<std::vector<RecordBatchRef>> {
        const int64_t first = chunk * rows_per_chunk;
        QUIVER_ASSIGN_OR_RAISE(auto batch,
                               make(first, std::min(rows_per_chunk, total_rows - first)));
        return std::vector<RecordBatchRef>{std::move(batch)};
      },
      reports);
}

}  // namespace quiver::gen
