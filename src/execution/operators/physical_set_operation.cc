#include "execution/operators/physical_set_operation.h"

#include <xxhash.h>

#include <atomic>
#include <mutex>

#include "execution/group_table.h"
#include "execution/pipeline.h"

namespace quiver::exec {

namespace {

// Sets the branch number in the top bits of batch_index.
class BatchTag final : public PhysicalOperator {
 public:
  BatchTag(std::vector<TypeRef> types, int branch) : PhysicalOperator("UNION_BRANCH", std::move(types)), branch_(branch) {}
  Result<OperatorResult> Execute(ExecutionContext&, DataChunk& input, DataChunk* out, OperatorState&) const override {
    out->columns = input.columns;
    out->sel = input.sel;
    out->num_rows = input.num_rows;
    out->batch_index = (static_cast<int64_t>(branch_) << 56) | (input.batch_index & ((int64_t{1} << 56) - 1));
    return OperatorResult::kNeedMoreInput;
  }

 private:
  int branch_;
};

}  // namespace

PhysicalUnion::PhysicalUnion(std::vector<TypeRef> types) : PhysicalOperator("UNION_ALL", std::move(types)) {
  tags_[0] = std::make_unique<BatchTag>(types_, 0);
  tags_[1] = std::make_unique<BatchTag>(types_, 1);
}

void PhysicalUnion::BuildPipelines(Pipeline* current, PipelineBuilder* builder) {
  Pipeline* fork = builder->Fork(current);
  current->operators.insert(current->operators.begin(), tags_[0].get());
  fork->operators.insert(fork->operators.begin(), tags_[1].get());
  children_[0]->BuildPipelines(current, builder);
  children_[1]->BuildPipelines(fork, builder);
}

namespace {

struct Counts {
  int64_t left;
  int64_t right;
};

struct SetLocal : LocalSinkState {
  int input = 0;
  GroupTable table{nullptr, nullptr, 16};
  std::vector<uint8_t> keys;
  std::vector<uint32_t> offsets;
};

struct SetGlobal : GlobalSinkState {
  std::mutex mu;
  GroupTable table{nullptr, nullptr, 16};
  std::vector<ArrayRef> result;
  int64_t rows = 0;
};

struct SetSource : GlobalSourceState {
  std::atomic<int64_t> offset{0};
};

}  // namespace

Result<std::unique_ptr<GlobalSinkState>> PhysicalSetOperation::GetGlobalSinkState(ExecutionContext&) const {
  return std::unique_ptr<GlobalSinkState>(new SetGlobal());
}

Result<std::unique_ptr<LocalSinkState>> PhysicalSetOperation::GetLocalSinkState(ExecutionContext&, GlobalSinkState&,
                                                                                int input_index) const {
  auto l = std::make_unique<SetLocal>();
  l->input = input_index;
  return std::unique_ptr<LocalSinkState>(std::move(l));
}

Status PhysicalSetOperation::Sink(ExecutionContext&, DataChunk& input, GlobalSinkState&, LocalSinkState& lstate) const {
  auto& l = static_cast<SetLocal&>(lstate);
  std::vector<VectorRef> cols;
  for (const auto& c : input.columns) cols.push_back(VectorRef{c.get(), input.sel_data(), false});
  SerializeRows(cols, input.num_rows, &l.keys, &l.offsets);
  for (int64_t i = 0; i < input.num_rows; ++i) {
    const uint32_t off = l.offsets[static_cast<size_t>(i)];
    const uint32_t len = l.offsets[static_cast<size_t>(i + 1)] - off;
    const int64_t g = l.table.FindOrCreate(l.keys.data() + off, len, XXH3_64bits(l.keys.data() + off, len));
    auto* c = reinterpret_cast<Counts*>(l.table.state(g));
    (l.input == 0 ? c->left : c->right)++;
  }
  return Status::OK();
}

Status PhysicalSetOperation::Combine(ExecutionContext&, GlobalSinkState& gstate, LocalSinkState& lstate) const {
  auto& g = static_cast<SetGlobal&>(gstate);
  auto& l = static_cast<SetLocal&>(lstate);
  std::lock_guard<std::mutex> lock(g.mu);
  for (int64_t i = 0; i < l.table.size(); ++i) {
    uint32_t len;
    const uint8_t* key = l.table.key(i, &len);
    const int64_t gid = g.table.FindOrCreate(key, len, l.table.hash(i));
    auto* src = reinterpret_cast<Counts*>(l.table.state(i));
    auto* dst = reinterpret_cast<Counts*>(g.table.state(gid));
    dst->left += src->left;
    dst->right += src->right;
  }
  return Status::OK();
}

Status PhysicalSetOperation::Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const {
  auto& g = static_cast<SetGlobal&>(gstate);
  std::vector<std::unique_ptr<ArrayBuilder>> builders;
  for (const auto& t : types_) {
    QUIVER_ASSIGN_OR_RAISE(auto b, MakeBuilder(t, ctx.pool()));
    builders.push_back(std::move(b));
  }
  int64_t rows = 0;
  for (int64_t i = 0; i < g.table.size(); ++i) {
    const auto* c = reinterpret_cast<const Counts*>(g.table.state(i));
    int64_t copies = 0;
    if (op_ == plan::SetOpType::kIntersect) {
      copies = all_ ? std::min(c->left, c->right) : (c->left > 0 && c->right > 0 ? 1 : 0);
    } else {
      copies = all_ ? std::max<int64_t>(c->left - c->right, 0) : (c->left > 0 && c->right == 0 ? 1 : 0);
    }
    for (int64_t k = 0; k < copies; ++k) {
      uint32_t len;
      const uint8_t* p = g.table.key(i, &len);
      for (size_t col = 0; col < types_.size(); ++col) {
        QUIVER_RETURN_NOT_OK(ReadValue(*types_[col], &p, builders[col].get()));
      }
      ++rows;
    }
  }
  for (auto& b : builders) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, b->Finish());
    g.result.push_back(std::move(a));
  }
  g.rows = rows;
  return Status::OK();
}

Result<std::unique_ptr<GlobalSourceState>> PhysicalSetOperation::GetGlobalSourceState(ExecutionContext&) const {
  return std::unique_ptr<GlobalSourceState>(new SetSource());
}

Result<SourceResult> PhysicalSetOperation::GetData(ExecutionContext&, DataChunk* out, GlobalSourceState& gstate,
                                                   LocalSourceState&) const {
  auto& g = static_cast<SetGlobal&>(*sink_state);
  auto& s = static_cast<SetSource&>(gstate);
  const int64_t start = s.offset.fetch_add(kVectorSize);
  if (start >= g.rows) return SourceResult::kFinished;
  const int64_t n = std::min(kVectorSize, g.rows - start);
  for (const auto& c : g.result) out->columns.push_back(c->Slice(start, n));
  out->num_rows = n;
  out->batch_index = start;
  return SourceResult::kHaveMoreOutput;
}

}  // namespace quiver::exec
