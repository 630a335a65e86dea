#include "execution/operators/physical_recursive_cte.h"

#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <mutex>

#include "execution/group_table.h"
#include "execution/operators/physical_result_collector.h"
#include "execution/pipeline.h"
#include "functions/kernel_util.h"

namespace quiver::exec {

namespace {

// Collects a plan's rows, dense, in batch_index order, allocated from the
// query's pool (so that they count against its memory limit).
class RoundCollector final : public PhysicalOperator {
 public:
  RoundCollector(std::vector<TypeRef> types, SchemaRef schema)
      : PhysicalOperator("RECURSIVE_ROUND", std::move(types)), schema_(std::move(schema)) {}
  bool IsSink() const override { return true; }

  struct Part {
    int64_t batch_index;
    int64_t seq;
    RecordBatchRef batch;
  };
  struct Global : GlobalSinkState {
    std::mutex mu;
    std::vector<Part> parts;
  };
  struct Local : LocalSinkState {
    std::vector<Part> parts;
  };

  Result<std::unique_ptr<GlobalSinkState>> GetGlobalSinkState(ExecutionContext&) const override {
    return std::unique_ptr<GlobalSinkState>(new Global());
  }
  Result<std::unique_ptr<LocalSinkState>> GetLocalSinkState(ExecutionContext&, GlobalSinkState&,
                                                            int) const override {
    return std::unique_ptr<LocalSinkState>(new Local());
  }
  Status Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState&,
              LocalSinkState& lstate) const override {
    auto& l = static_cast<Local&>(lstate);
    QUIVER_ASSIGN_OR_RAISE(auto cols, FlattenChunk(input, ctx.pool()));
    l.parts.push_back({input.batch_index, static_cast<int64_t>(l.parts.size()),
                       RecordBatch::Make(schema_, input.num_rows, std::move(cols))});
    return Status::OK();
  }
  Status Combine(ExecutionContext&, GlobalSinkState& gstate,
                 LocalSinkState& lstate) const override {
    auto& g = static_cast<Global&>(gstate);
    auto& l = static_cast<Local&>(lstate);
    std::lock_guard<std::mutex> lock(g.mu);
    for (auto& p : l.parts) g.parts.push_back(std::move(p));
    return Status::OK();
  }
  std::vector<RecordBatchRef> Take() const {
    std::vector<RecordBatchRef> out;
    if (sink_state == nullptr) return out;
    auto& g = static_cast<Global&>(*sink_state);
    std::stable_sort(g.parts.begin(), g.parts.end(), [](const Part& a, const Part& b) {
      return a.batch_index < b.batch_index || (a.batch_index == b.batch_index && a.seq < b.seq);
    });
    for (auto& p : g.parts) {
      if (p.batch->num_rows() > 0) out.push_back(std::move(p.batch));
    }
    g.parts.clear();
    return out;
  }

 private:
  SchemaRef schema_;
};

void ClearSinkStates(PhysicalOperator* op) {
  op->sink_state.reset();
  for (auto& c : op->children()) ClearSinkStates(c.get());
}

// The rounds computed so far: batches not yet handed out, the rows of the
// last round (the next working table), and the UNION's set of rows seen.
struct RecursiveSource : GlobalSourceState {
  int MaxThreads() const override { return 1; }  // rounds run one after another
  std::vector<RecordBatchRef> pending;
  size_t next_pending = 0;
  std::vector<RecordBatchRef> last_round;
  GroupTable seen{nullptr, nullptr, 0};
  int64_t iterations = 0;
  int64_t batch_index = 0;
  bool finished = false;
  bool stop = false;  // the consumer has enough rows (LIMIT)
};

// UNION: the rows of `batches` not seen before (recorded in `seen`).
Result<std::vector<RecordBatchRef>> KeepNew(const std::vector<RecordBatchRef>& batches,
                                            GroupTable* seen, MemoryPool* pool) {
  std::vector<RecordBatchRef> out;
  std::vector<uint8_t> keys;
  std::vector<uint32_t> offsets;
  std::vector<uint32_t> keep;
  for (const auto& b : batches) {
    const int64_t n = b->num_rows();
    std::vector<VectorRef> cols;
    for (int c = 0; c < b->num_columns(); ++c)
      cols.push_back(VectorRef{b->column(c).get(), nullptr, false});
    SerializeRows(cols, n, &keys, &offsets);
    keep.clear();
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t off = offsets[static_cast<size_t>(i)];
      const uint32_t len = offsets[static_cast<size_t>(i + 1)] - off;
      const int64_t before = seen->size();
      const int64_t g =
          seen->FindOrCreate(keys.data() + off, len, XXH3_64bits(keys.data() + off, len));
      if (g >= before) keep.push_back(static_cast<uint32_t>(i));
    }
    if (keep.empty()) continue;
    if (static_cast<int64_t>(keep.size()) == n) {
      out.push_back(b);
      continue;
    }
    std::vector<ArrayRef> columns;
    for (int c = 0; c < b->num_columns(); ++c) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(b->column(c), keep.data(),
                                                         static_cast<int64_t>(keep.size()), pool));
      columns.push_back(std::move(a));
    }
    out.push_back(
        RecordBatch::Make(b->schema(), static_cast<int64_t>(keep.size()), std::move(columns)));
  }
  return out;
}

}  // namespace

PhysicalRecursiveCte::PhysicalRecursiveCte(std::vector<TypeRef> types, std::string cte_name,
                                           bool union_all,
                                           std::shared_ptr<MemoryTable> working_table)
    : PhysicalOperator("RECURSIVE_CTE", std::move(types)),
      cte_name_(std::move(cte_name)),
      union_all_(union_all),
      working_table_(std::move(working_table)) {
  collector_ = std::make_unique<RoundCollector>(types_, working_table_->schema());
}

void PhysicalRecursiveCte::BuildPipelines(Pipeline* current, PipelineBuilder*) {
  // The anchor and the recursive term run as plans of their own (Run).
  current->source = this;
}

std::string PhysicalRecursiveCte::ParamsToString() const {
  return cte_name_ + (union_all_ ? " UNION ALL" : " UNION");
}

Result<std::vector<RecordBatchRef>> PhysicalRecursiveCte::Run(ExecutionContext& ctx,
                                                              PhysicalOperator* plan) const {
  ClearSinkStates(plan);
  collector_->sink_state.reset();
  QUIVER_RETURN_NOT_OK(ExecutePipelines(ctx, collector_.get(), plan));
  auto batches = static_cast<const RoundCollector&>(*collector_).Take();
  collector_->sink_state.reset();
  return batches;
}

// Rounds are computed as the consumer asks for rows, so a LIMIT above a
// recursion that would never end stops it, as in PostgreSQL.
Result<std::unique_ptr<GlobalSourceState>> PhysicalRecursiveCte::GetGlobalSourceState(
    ExecutionContext& ctx) const {
  auto state = std::make_unique<RecursiveSource>();
  QUIVER_ASSIGN_OR_RAISE(std::vector<RecordBatchRef> round, Run(ctx, children_[0].get()));
  if (!union_all_) {
    QUIVER_ASSIGN_OR_RAISE(round, KeepNew(round, &state->seen, ctx.pool()));
  }
  state->pending = round;
  state->last_round = std::move(round);
  state->finished = state->last_round.empty();
  return std::unique_ptr<GlobalSourceState>(std::move(state));
}

void PhysicalRecursiveCte::StopNewMorsels(GlobalSourceState& gstate) const {
  static_cast<RecursiveSource&>(gstate).stop = true;
}

Result<SourceResult> PhysicalRecursiveCte::GetData(ExecutionContext& ctx, DataChunk* out,
                                                   GlobalSourceState& gstate,
                                                   LocalSourceState&) const {
  auto& s = static_cast<RecursiveSource&>(gstate);
  while (s.next_pending >= s.pending.size()) {
    if (s.finished || s.stop) {
      QUIVER_RETURN_NOT_OK(working_table_->Replace({}));
      return SourceResult::kFinished;
    }
    // The next round over the last one's new rows.
    if (++s.iterations > kMaxRecursiveIterations) {
      return Status::Invalid("recursive query \"{}\" did not finish within {} iterations",
                             cte_name_, kMaxRecursiveIterations)
          .WithSqlState(sqlstate::kProgramLimitExceeded)
          .WithHint(
              "Quiver stops a WITH RECURSIVE query after 1000000 rounds of its recursive term "
              "(PostgreSQL has no such limit). Make sure the recursive term eventually returns no "
              "rows: add a WHERE condition that ends it, or use UNION instead of UNION ALL to stop "
              "at cycles.");
    }
    QUIVER_RETURN_NOT_OK(ctx.CancelStatus());
    QUIVER_RETURN_NOT_OK(working_table_->Replace(std::move(s.last_round)));
    QUIVER_ASSIGN_OR_RAISE(std::vector<RecordBatchRef> round, Run(ctx, children_[1].get()));
    if (!union_all_) {
      QUIVER_ASSIGN_OR_RAISE(round, KeepNew(round, &s.seen, ctx.pool()));
    }
    s.pending = round;
    s.next_pending = 0;
    s.last_round = std::move(round);
    s.finished = s.last_round.empty();
  }
  const RecordBatchRef& b = s.pending[s.next_pending++];
  for (int c = 0; c < b->num_columns(); ++c) out->columns.push_back(b->column(c));
  out->num_rows = b->num_rows();
  out->batch_index = s.batch_index++;
  return SourceResult::kHaveMoreOutput;
}

}  // namespace quiver::exec
