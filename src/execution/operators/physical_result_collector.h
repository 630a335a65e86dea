// The sink at the top of every query: collects the result's chunks (dense,
// in the order their batch_index gives) into record batches.
#pragma once

#include "execution/physical_operator.h"

namespace quiver::exec {

class PhysicalResultCollector final : public PhysicalOperator {
 public:
  PhysicalResultCollector(std::vector<TypeRef> types, SchemaRef schema)
      : PhysicalOperator("RESULT", std::move(types)), schema_(std::move(schema)) {}
  bool IsSink() const override { return true; }
  Result<std::unique_ptr<GlobalSinkState>> GetGlobalSinkState(ExecutionContext& ctx) const override;
  Result<std::unique_ptr<LocalSinkState>> GetLocalSinkState(ExecutionContext& ctx, GlobalSinkState& gstate,
                                                            int input_index) const override;
  Status Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState& gstate,
              LocalSinkState& lstate) const override;
  Status Combine(ExecutionContext& ctx, GlobalSinkState& gstate, LocalSinkState& lstate) const override;
  Status Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const override;

  // After execution: the result.
  std::vector<RecordBatchRef> TakeBatches() const;
  const SchemaRef& schema() const { return schema_; }

 private:
  SchemaRef schema_;
};

// Dense copy of a chunk's selected rows (shares buffers when unselected).
Result<std::vector<ArrayRef>> FlattenChunk(const DataChunk& chunk, MemoryPool* pool);

}  // namespace quiver::exec
