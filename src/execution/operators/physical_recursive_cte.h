// WITH RECURSIVE (planner/logical_recursive_cte.h): an iterative
// working-table operator. As a source, it runs the anchor's plan to
// completion and hands out its rows, then runs the recursive term's plan
// each time it has handed out a round's rows, with the working table (a
// MemoryTable that the recursive term's scan reads) holding the rows the
// previous round produced, until a round produces none or the consumer
// has enough (a LIMIT above stops it early, as PostgreSQL's lazy
// evaluation does). UNION keeps a hash set of every row produced so far
// (the anchor's included) and passes on only new rows; UNION ALL keeps all.
// The two plans are children (EXPLAIN shows them) but not part of the
// enclosing query's pipelines: each run builds and executes their own
// (pipeline.h ExecutePipelines), after clearing the sink states the last
// run left behind.
//
// Limits (PostgreSQL has none): a query stops with 54000 after
// kMaxRecursiveIterations rounds, and the rows each round collects (and
// what the consumer keeps of them) count against the query's memory limit
// (--memory-limit, 53200).
#pragma once

#include <memory>

#include "catalog/memory_table.h"
#include "execution/physical_operator.h"

namespace quiver::exec {

inline constexpr int64_t kMaxRecursiveIterations = 1000000;

class PhysicalRecursiveCte final : public PhysicalOperator {
 public:
  PhysicalRecursiveCte(std::vector<TypeRef> types, std::string cte_name, bool union_all,
                       std::shared_ptr<MemoryTable> working_table);
  bool IsSource() const override { return true; }
  void BuildPipelines(Pipeline* current, PipelineBuilder* builder) override;
  Result<std::unique_ptr<GlobalSourceState>> GetGlobalSourceState(
      ExecutionContext& ctx) const override;
  Result<SourceResult> GetData(ExecutionContext& ctx, DataChunk* out, GlobalSourceState& gstate,
                               LocalSourceState& lstate) const override;
  void StopNewMorsels(GlobalSourceState& gstate) const override;
  std::string ParamsToString() const override;

 private:
  // Runs `plan` to completion; its rows as dense batches of the working table's schema.
  Result<std::vector<RecordBatchRef>> Run(ExecutionContext& ctx, PhysicalOperator* plan) const;

  std::string cte_name_;
  bool union_all_;
  std::shared_ptr<MemoryTable> working_table_;
  std::unique_ptr<PhysicalOperator> collector_;
};

}  // namespace quiver::exec
