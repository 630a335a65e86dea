#include "columnar/batch_util.h"

#include "common/bit_util.h"

namespace quiver {

int64_t SliceBytes(const ArrayData& a) {
  const DataType& t = *a.type;
  int64_t n = a.buffers.empty() || a.buffers[0] == nullptr ? 0 : bit_util::BytesForBits(a.length);
  if (a.children.empty() && a.dictionary == nullptr && t.id != TypeId::kBool &&
      t.is_fixed_width() && t.byte_width_of_values() > 0) {
    return n + a.length * t.byte_width_of_values();
  }
  if (a.length > 0 && (t.id == TypeId::kString || t.id == TypeId::kBinary)) {
    const int32_t* offsets = a.GetValues<int32_t>(1);
    return n + (a.length + 1) * 4 + (offsets[a.length] - offsets[0]);
  }
  if (a.length > 0 && (t.id == TypeId::kLargeString || t.id == TypeId::kLargeBinary)) {
    const int64_t* offsets = a.GetValues<int64_t>(1);
    return n + (a.length + 1) * 8 + (offsets[a.length] - offsets[0]);
  }
  // Other layouts: the whole buffers (an overestimate for slices).
  for (size_t i = 1; i < a.buffers.size(); ++i) n += a.buffers[i] ? a.buffers[i]->size() : 0;
  for (const auto& c : a.children) n += SliceBytes(*c);
  return n;
}

int64_t SliceBytes(const RecordBatch& batch) {
  int64_t n = 0;
  for (const auto& c : batch.columns()) n += SliceBytes(*c);
  return n;
}

Result<RecordBatchRef> ConcatenateBatches(const SchemaRef& schema,
                                          const std::vector<RecordBatchRef>& batches,
                                          MemoryPool* pool) {
  if (batches.size() == 1) {
    return RecordBatch::Make(schema, batches[0]->num_rows(), batches[0]->columns());
  }
  int64_t rows = 0;
  for (const auto& b : batches) rows += b->num_rows();
  std::vector<ArrayRef> columns;
  columns.reserve(static_cast<size_t>(schema->num_fields()));
  std::vector<ArrayRef> pieces(batches.size());
  for (int c = 0; c < schema->num_fields(); ++c) {
    for (size_t i = 0; i < batches.size(); ++i) pieces[i] = batches[i]->column(c);
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, Concatenate(pieces, pool));
    columns.push_back(std::move(a));
  }
  return RecordBatch::Make(schema, rows, std::move(columns));
}

}  // namespace quiver
