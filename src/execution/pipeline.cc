// PhysicalOperator defaults, pipeline construction and the executor.
#include "execution/pipeline.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

#include "common/thread_pool.h"
#include "execution/operators/physical_result_stream.h"

namespace quiver::exec {

// --- PhysicalOperator defaults ------------------------------------------------------

Result<std::unique_ptr<GlobalSourceState>> PhysicalOperator::GetGlobalSourceState(ExecutionContext&) const {
  return std::make_unique<GlobalSourceState>();
}
Result<std::unique_ptr<LocalSourceState>> PhysicalOperator::GetLocalSourceState(ExecutionContext&,
                                                                                GlobalSourceState&) const {
  return std::make_unique<LocalSourceState>();
}
Result<SourceResult> PhysicalOperator::GetData(ExecutionContext&, DataChunk*, GlobalSourceState&,
                                               LocalSourceState&) const {
  return Status::Invalid("{} is not a source", name_);
}
Result<std::unique_ptr<OperatorState>> PhysicalOperator::GetOperatorState(ExecutionContext&) const {
  return std::make_unique<OperatorState>();
}
Result<OperatorResult> PhysicalOperator::Execute(ExecutionContext&, DataChunk&, DataChunk*,
                                                 OperatorState&) const {
  return Status::Invalid("{} is not a streaming operator", name_);
}
Result<std::unique_ptr<GlobalSinkState>> PhysicalOperator::GetGlobalSinkState(ExecutionContext&) const {
  return std::make_unique<GlobalSinkState>();
}
Result<std::unique_ptr<LocalSinkState>> PhysicalOperator::GetLocalSinkState(ExecutionContext&,
                                                                            GlobalSinkState&, int) const {
  return std::make_unique<LocalSinkState>();
}
Status PhysicalOperator::Sink(ExecutionContext&, DataChunk&, GlobalSinkState&, LocalSinkState&) const {
  return Status::Invalid("{} is not a sink", name_);
}
Status PhysicalOperator::Combine(ExecutionContext&, GlobalSinkState&, LocalSinkState&) const {
  return Status::OK();
}
Status PhysicalOperator::Finalize(ExecutionContext&, GlobalSinkState&) const { return Status::OK(); }

void PhysicalOperator::BuildPipelines(Pipeline* current, PipelineBuilder* builder) {
  if (IsSink()) {
    // This operator ends the pipelines of its children and starts `current`.
    current->source = this;
    for (size_t i = 0; i < children_.size(); ++i) {
      Pipeline* child = builder->NewPipeline(this, static_cast<int>(i), current);
      children_[i]->BuildPipelines(child, builder);
    }
    return;
  }
  if (IsSource()) {
    current->source = this;
    return;
  }
  current->operators.insert(current->operators.begin(), this);
  children_[0]->BuildPipelines(current, builder);
}

std::string PhysicalOperator::ToString(int indent, ExecutionContext* profile) const {
  std::string line(static_cast<size_t>(indent) * 2, ' ');
  line += name_;
  std::string params = ParamsToString();
  // Params may carry more lines (a foreign scan's files): they follow the
  // operator's line, indented under it.
  std::string more;
  if (const size_t nl = params.find('\n'); nl != std::string::npos) {
    const std::string pad(static_cast<size_t>(indent) * 2 + 4, ' ');
    size_t at = nl;
    while (at != std::string::npos) {
      const size_t next = params.find('\n', at + 1);
      more += pad + params.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1) + "\n";
      at = next;
    }
    params.resize(nl);
  }
  if (!params.empty()) line += " " + params;
  if (profile != nullptr && profile->profiling()) {
    OperatorProfile* p = profile->ProfileOf(this);
    line += fmt::format("  [rows={} time={:.3f}s]", p->rows_out.load(),
                        static_cast<double>(p->nanos.load()) / 1e9);
  } else if (estimated_rows >= 0) {
    line += fmt::format("  (~{:.0f} rows)", estimated_rows);
  }
  line += "\n" + more;
  for (const auto& c : children_) line += c->ToString(indent + 1, profile);
  return line;
}

// --- pipelines --------------------------------------------------------------------------

std::string Pipeline::ToString() const {
  std::string s = source ? source->name() : "?";
  for (auto* op : operators) s += " -> " + op->name();
  s += " -> " + (sink ? sink->name() : std::string("?"));
  return s;
}

Pipeline* PipelineBuilder::NewPipeline(PhysicalOperator* sink, int input_index, Pipeline* dependent) {
  pipelines_.push_back(std::make_unique<Pipeline>());
  Pipeline* p = pipelines_.back().get();
  p->sink = sink;
  p->sink_input_index = input_index;
  if (dependent) dependent->dependencies.push_back(p);
  return p;
}

Pipeline* PipelineBuilder::Fork(Pipeline* current) {
  pipelines_.push_back(std::make_unique<Pipeline>(*current));
  Pipeline* p = pipelines_.back().get();
  // Whoever depends on `current` (through its sink) depends on the fork too.
  for (auto& other : pipelines_) {
    if (other.get() == p) continue;
    auto& deps = other->dependencies;
    if (std::find(deps.begin(), deps.end(), current) != deps.end()) deps.push_back(p);
  }
  return p;
}

namespace {

// The pool that runs pipeline tasks. Separate from GlobalThreadPool(),
// which file readers use for their own parallel work: a pipeline task that
// waits on a reader must never hold the thread the reader needs.
ThreadPool* ExecutionPool() {
  static ThreadPool* pool = new ThreadPool(DefaultParallelism());
  return pool;
}

struct SinkTracker {
  int pending_pipelines = 0;
  std::mutex mu;
};

class PipelineRunner {
 public:
  PipelineRunner(ExecutionContext& ctx, Pipeline& p) : ctx_(ctx), p_(p) {}

  Status Run() {
    QUIVER_ASSIGN_OR_RAISE(auto gsource, p_.source->GetGlobalSourceState(ctx_));
    if (p_.sink->sink_state == nullptr) {
      QUIVER_ASSIGN_OR_RAISE(p_.sink->sink_state, p_.sink->GetGlobalSinkState(ctx_));
    }
    const int threads = std::max(1, std::min(ctx_.num_threads(), gsource->MaxThreads()));
    if (threads == 1) return RunTask(*gsource);
    // A sink that waits for its reader (the streamed result) must not hold
    // the shared pool's threads while it waits: other queries' tasks would
    // starve behind a slow client, and a client reading its streams in
    // another order than it opened them would deadlock. Its tasks get
    // threads of their own. (`own` outlives `group`, which waits.)
    std::unique_ptr<ThreadPool> own;
    ThreadPool* pool = ExecutionPool();
    if (dynamic_cast<const PhysicalResultStream*>(p_.sink) != nullptr) {
      own = std::make_unique<ThreadPool>(threads);
      pool = own.get();
    }
    TaskGroup group(pool);
    for (int t = 0; t < threads; ++t) {
      group.Submit([this, &gsource]() { return RunTask(*gsource); });
    }
    return group.Wait();
  }

 private:
  struct ThreadState {
    std::vector<std::unique_ptr<OperatorState>> op_states;
    std::vector<DataChunk> outputs;
    std::unique_ptr<LocalSinkState> sink;
  };

  Status Push(ThreadState& ts, DataChunk& chunk, size_t i) {
    if (i == p_.operators.size()) {
      OperatorProfile* prof = ctx_.ProfileOf(p_.sink);
      ProfileTimer timer(prof);
      return p_.sink->Sink(ctx_, chunk, *p_.sink->sink_state, *ts.sink);
    }
    PhysicalOperator* op = p_.operators[i];
    OperatorProfile* prof = ctx_.ProfileOf(op);
    for (;;) {
      DataChunk& out = ts.outputs[i];
      out.Reset();
      out.batch_index = chunk.batch_index;  // operators may change it (UNION ALL branches)
      OperatorResult r;
      {
        ProfileTimer timer(prof);
        auto result = op->Execute(ctx_, chunk, &out, *ts.op_states[i]);
        if (!result.ok()) return result.status();
        r = *result;
      }
      if (out.num_rows > 0) {
        if (prof) {
          prof->rows_out += out.num_rows;
          prof->chunks_out++;
        }
        QUIVER_RETURN_NOT_OK(Push(ts, out, i + 1));
      }
      if (r == OperatorResult::kNeedMoreInput) return Status::OK();
      if (ctx_.cancelled()) return ctx_.CancelStatus();
    }
  }

  Status RunTask(GlobalSourceState& gsource) {
    Status st = RunTaskInner(gsource);
    return ctx_.CheckMemory(st);
  }

  Status RunTaskInner(GlobalSourceState& gsource) {
    ThreadState ts;
    QUIVER_ASSIGN_OR_RAISE(auto lsource, p_.source->GetLocalSourceState(ctx_, gsource));
    for (auto* op : p_.operators) {
      QUIVER_ASSIGN_OR_RAISE(auto s, op->GetOperatorState(ctx_));
      ts.op_states.push_back(std::move(s));
    }
    ts.outputs.resize(p_.operators.size());
    QUIVER_ASSIGN_OR_RAISE(ts.sink, p_.sink->GetLocalSinkState(ctx_, *p_.sink->sink_state, p_.sink_input_index));
    OperatorProfile* source_prof = ctx_.ProfileOf(p_.source);
    DataChunk chunk;
    bool stopping = false;
    for (;;) {
      // A morsel boundary: user cancel, deadline and sibling failures stop here.
      if (ctx_.cancelled()) return ctx_.CancelStatus();
      if (!stopping && p_.sink->SinkDone(*p_.sink->sink_state)) {
        // Morsels already begun are finished, so the rows kept are the
        // first ones in input order.
        p_.source->StopNewMorsels(gsource);
        stopping = true;
      }
      chunk.Reset();
      SourceResult r;
      {
        ProfileTimer timer(source_prof);
        auto result = p_.source->GetData(ctx_, &chunk, gsource, *lsource);
        if (!result.ok()) {
          ctx_.Cancel();
          return result.status();
        }
        r = *result;
      }
      if (chunk.num_rows > 0) {
        Status progress =
            p_.sink->SourceProgress(ctx_, *p_.sink->sink_state, *ts.sink, chunk.batch_index);
        if (!progress.ok()) {
          ctx_.Cancel();
          return progress;
        }
        if (source_prof) {
          source_prof->rows_out += chunk.num_rows;
          source_prof->chunks_out++;
        }
        Status st = Push(ts, chunk, 0);
        if (!st.ok()) {
          ctx_.Cancel();
          return st;
        }
      }
      if (r == SourceResult::kFinished) break;
    }
    return p_.sink->Combine(ctx_, *p_.sink->sink_state, *ts.sink);
  }

  ExecutionContext& ctx_;
  Pipeline& p_;
};

}  // namespace

Status ExecutePlan(ExecutionContext& ctx, PhysicalOperator* root) {
  return ExecutePipelines(ctx, root, root->children()[0].get());
}

Status ExecutePipelines(ExecutionContext& ctx, PhysicalOperator* root, PhysicalOperator* input) {
  PipelineBuilder builder;
  Pipeline* top = builder.NewPipeline(root, 0, nullptr);
  input->BuildPipelines(top, &builder);
  auto& pipelines = builder.pipelines();

  // How many pipelines feed each sink; it is finalized after the last.
  std::map<PhysicalOperator*, int> feeding;
  for (auto& p : pipelines) feeding[p->sink]++;

  std::vector<Pipeline*> done;
  std::vector<Pipeline*> todo;
  for (auto& p : pipelines) todo.push_back(p.get());
  // Pipelines were created children-first-last; run any whose dependencies
  // are done, repeatedly, until none remain.
  while (!todo.empty()) {
    bool progressed = false;
    for (size_t i = 0; i < todo.size(); ++i) {
      Pipeline* p = todo[i];
      bool ready = true;
      for (Pipeline* d : p->dependencies) {
        if (std::find(done.begin(), done.end(), d) == done.end()) ready = false;
      }
      // A pipeline reading a sink needs every pipeline feeding that sink.
      for (auto& other : pipelines) {
        if (other->sink == p->source && std::find(done.begin(), done.end(), other.get()) == done.end()) {
          ready = false;
        }
      }
      // Pipelines feeding one sink run in the order they were built (UNION
      // ALL's first branch before its second, a join's probe before its
      // unmatched build rows), which is their batch_index order: a sink
      // that emits as it goes (the streaming result) then keeps the order
      // the result collector would give.
      for (size_t j = 0; j < i && ready; ++j) {
        if (todo[j]->sink == p->sink) ready = false;
      }
      if (!ready) continue;
      QUIVER_RETURN_NOT_OK(ctx.CancelStatus());
      PipelineRunner runner(ctx, *p);
      QUIVER_RETURN_NOT_OK(runner.Run());
      // Tasks that saw the cancel may have stopped quietly (a scan ends its
      // morsels early): never finalize a cancelled query's partial input.
      QUIVER_RETURN_NOT_OK(ctx.CancelStatus());
      if (--feeding[p->sink] == 0) {
        QUIVER_RETURN_NOT_OK(ctx.CheckMemory(p->sink->Finalize(ctx, *p->sink->sink_state)));
        QUIVER_RETURN_NOT_OK(ctx.CancelStatus());
      }
      done.push_back(p);
      todo.erase(todo.begin() + static_cast<long>(i));
      progressed = true;
      break;
    }
    if (!progressed) return Status::UnknownError("pipeline dependency cycle");
  }
  return Status::OK();
}

}  // namespace quiver::exec
