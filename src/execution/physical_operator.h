// Physical operators and the push-based, morsel-driven pipeline model
// (HyPer's morsels, DuckDB's pipelines).
//
// A query's physical plan is cut into pipelines at pipeline breakers: hash
// join builds, aggregates, sorts, top-N, LIMIT, set operations and the final
// result collection are *sinks*. A pipeline is
//
//   source -> operator -> operator -> ... -> sink
//
// and runs on every worker thread at once: each thread pulls morsels from the
// source's shared state (GetData), pushes them through the operators
// (Execute, per-thread OperatorState), and folds them into its own
// LocalSinkState (Sink). When the source runs dry each thread Combines its
// local state into the GlobalSinkState, and the last one Finalizes it (build
// the hash table, sort, ...). A sink then becomes the source of the next
// pipeline, or — for a hash join — is probed by the pipeline of its left
// child.
//
// Operators are immutable after planning (const methods); all mutable state
// lives in the state objects, so threads never share anything they write
// without a lock (DuckDB's design). The one exception is `sink_state`: the
// global state a sink built, kept on the operator so that the pipelines
// reading it later can reach it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "execution/execution_context.h"
#include "vector/data_chunk.h"

namespace quiver::exec {

class GlobalSourceState {
 public:
  virtual ~GlobalSourceState() = default;
  // Upper bound of threads worth running on this source (1 = serial).
  virtual int MaxThreads() const { return 1 << 20; }
};
class LocalSourceState {
 public:
  virtual ~LocalSourceState() = default;
};
class OperatorState {
 public:
  virtual ~OperatorState() = default;
};
class GlobalSinkState {
 public:
  virtual ~GlobalSinkState() = default;
};
class LocalSinkState {
 public:
  virtual ~LocalSinkState() = default;
};

enum class OperatorResult : int8_t {
  kNeedMoreInput,   // `out` holds the result for this input (maybe empty)
  kHaveMoreOutput,  // call again with the same input for more output
};

enum class SourceResult : int8_t { kHaveMoreOutput, kFinished };

class Pipeline;
class PipelineBuilder;

class PhysicalOperator {
 public:
  PhysicalOperator(std::string name, std::vector<TypeRef> types)
      : name_(std::move(name)), types_(std::move(types)) {}
  virtual ~PhysicalOperator() = default;

  const std::string& name() const { return name_; }
  const std::vector<TypeRef>& types() const { return types_; }
  std::vector<std::unique_ptr<PhysicalOperator>>& children() { return children_; }
  const std::vector<std::unique_ptr<PhysicalOperator>>& children() const { return children_; }
  double estimated_rows = -1;

  // --- source -----------------------------------------------------------------
  virtual bool IsSource() const { return false; }
  virtual Result<std::unique_ptr<GlobalSourceState>> GetGlobalSourceState(ExecutionContext& ctx) const;
  virtual Result<std::unique_ptr<LocalSourceState>> GetLocalSourceState(ExecutionContext& ctx,
                                                                        GlobalSourceState& gstate) const;
  // Fills `out` with the next chunk (maybe empty) or reports kFinished.
  virtual Result<SourceResult> GetData(ExecutionContext& ctx, DataChunk* out, GlobalSourceState& gstate,
                                       LocalSourceState& lstate) const;
  // The sink needs no more input (LIMIT): finish the morsels already
  // started, start no new ones. Default: keep going (always correct).
  virtual void StopNewMorsels(GlobalSourceState& gstate) const {}

  // --- streaming operator -------------------------------------------------------
  virtual Result<std::unique_ptr<OperatorState>> GetOperatorState(ExecutionContext& ctx) const;
  virtual Result<OperatorResult> Execute(ExecutionContext& ctx, DataChunk& input, DataChunk* out,
                                         OperatorState& state) const;

  // --- sink -----------------------------------------------------------------------
  virtual bool IsSink() const { return false; }
  virtual Result<std::unique_ptr<GlobalSinkState>> GetGlobalSinkState(ExecutionContext& ctx) const;
  // `input_index`: which child's pipeline feeds this local state (set operations).
  virtual Result<std::unique_ptr<LocalSinkState>> GetLocalSinkState(ExecutionContext& ctx,
                                                                    GlobalSinkState& gstate,
                                                                    int input_index) const;
  virtual Status Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState& gstate,
                      LocalSinkState& lstate) const;
  virtual Status Combine(ExecutionContext& ctx, GlobalSinkState& gstate, LocalSinkState& lstate) const;
  virtual Status Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const;
  // Whether feeding this sink may stop early (LIMIT has enough rows).
  virtual bool SinkDone(GlobalSinkState& gstate) const { return false; }
  // Called on the pipeline's thread with the batch_index of each chunk its
  // source produced, before the chunk goes up the pipeline. Sources hand out
  // morsels in increasing batch_index, and a thread's chunks come in
  // increasing batch_index, so a sink that emits rows while the pipeline
  // runs (the streaming result) learns that no later chunk of this thread
  // comes before `batch_index`. Default: nothing.
  virtual Status SourceProgress(ExecutionContext& /*ctx*/, GlobalSinkState& /*gstate*/,
                                LocalSinkState& /*lstate*/, int64_t /*batch_index*/) const {
    return Status::OK();
  }

  // --- pipeline construction --------------------------------------------------------
  // Adds this operator (and its children) to `current` / new pipelines.
  virtual void BuildPipelines(Pipeline* current, PipelineBuilder* builder);

  // EXPLAIN text of this operator (one line, without children).
  virtual std::string ParamsToString() const { return ""; }
  std::string ToString(int indent, ExecutionContext* profile) const;

  mutable std::unique_ptr<GlobalSinkState> sink_state;

 protected:
  std::string name_;
  std::vector<TypeRef> types_;
  std::vector<std::unique_ptr<PhysicalOperator>> children_;
};

using PhysicalOpPtr = std::unique_ptr<PhysicalOperator>;

}  // namespace quiver::exec
