#include "execution/operators/physical_nested_loop_join.h"

#include "execution/expression/expression_executor.h"
#include "execution/operators/physical_result_collector.h"
#include "functions/kernel_util.h"

namespace quiver::exec {

using plan::JoinType;

namespace {

struct NljState : OperatorState {
  bool started = false;
  int64_t probe_row = 0;  // next pair (probe_row, build_row) to look at
  int64_t build_row = 0;
  std::vector<uint8_t> matched;
  std::vector<uint8_t> unknown;  // mark joins: a NULL comparison was seen
  bool tail_done = false;        // outer rows without partners emitted
  std::unique_ptr<ExpressionExecutor> must;
  std::unique_ptr<ExpressionExecutor> mark;
};

// The next block of at most kVectorSize (probe row, build row) pairs from
// s.probe_row / s.build_row on; semi, anti and mark joins skip probe rows
// already decided.
void NextBlock(JoinType type, int64_t n, int64_t m, NljState& s, std::vector<uint32_t>* probe_idx,
               std::vector<uint32_t>* build_idx) {
  probe_idx->reserve(static_cast<size_t>(kVectorSize));
  build_idx->reserve(static_cast<size_t>(kVectorSize));
  while (static_cast<int64_t>(probe_idx->size()) < kVectorSize && s.probe_row < n) {
    const bool skip_row =
        (type == JoinType::kSemi || type == JoinType::kAnti || type == JoinType::kMark) &&
        s.matched[static_cast<size_t>(s.probe_row)];
    if (skip_row) {
      ++s.probe_row;
      s.build_row = 0;
      continue;
    }
    probe_idx->push_back(static_cast<uint32_t>(s.probe_row));
    build_idx->push_back(static_cast<uint32_t>(s.build_row));
    if (++s.build_row == m) {
      s.build_row = 0;
      ++s.probe_row;
    }
  }
}

// The pairs as rows of (probe columns ++ build columns).
Result<DataChunk> GatherPairs(ExecutionContext& ctx, const DataChunk& input,
                              const JoinBuildState& g, const std::vector<uint32_t>& probe_idx,
                              const std::vector<uint32_t>& build_idx) {
  const int64_t k = static_cast<int64_t>(probe_idx.size());
  const uint32_t* isel = input.sel_data();
  DataChunk pairs;
  pairs.num_rows = k;
  std::vector<uint32_t> slots(static_cast<size_t>(k));
  for (int64_t i = 0; i < k; ++i) {
    slots[static_cast<size_t>(i)] =
        isel ? isel[probe_idx[static_cast<size_t>(i)]] : probe_idx[static_cast<size_t>(i)];
  }
  for (const auto& col : input.columns) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(col, slots.data(), k, ctx.pool()));
    pairs.columns.push_back(std::move(a));
  }
  for (const auto& col : g.columns) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(col, build_idx.data(), k, ctx.pool()));
    pairs.columns.push_back(std::move(a));
  }
  return pairs;
}

// Mark joins: the three-valued comparison on the counted pairs (the first
// `np` of `pass`) decides which probe rows matched or saw an unknown.
Status MarkPairs(const DataChunk& pairs, const std::vector<uint32_t>& probe_idx,
                 const std::vector<uint32_t>& pass, int64_t np, NljState& s) {
  DataChunk counted = pairs;
  if (np < pairs.num_rows) {
    auto sel = std::make_shared<SelectionVector>(np);
    std::copy(pass.begin(), pass.begin() + np, sel->data());
    counted.sel = sel;
    counted.num_rows = np;
  }
  QUIVER_ASSIGN_OR_RAISE(EvalResult r, s.mark->Execute(counted));
  kernels::BoolAccess get(r.ref);
  kernels::ValidAccess valid(r.ref);
  for (int64_t i = 0; i < np; ++i) {
    const uint32_t row = probe_idx[pass[static_cast<size_t>(i)]];
    if (!valid(i)) {
      s.unknown[row] = 1;
    } else if (get(i)) {
      s.matched[row] = 1;
    }
  }
  return Status::OK();
}

// Once every pair of a chunk was seen: left and single joins emit the
// probe rows without a partner (with the NULL build row), mark joins every
// row with its mark, semi and anti joins the rows that stay.
Status FinishChunk(ExecutionContext& ctx, JoinType type, const JoinBuildState& g,
                   const DataChunk& input, const NljState& s, DataChunk* out) {
  const int64_t n = input.num_rows;
  const uint32_t* isel = input.sel_data();
  std::vector<uint32_t> rows;
  if (type == JoinType::kLeft || type == JoinType::kSingle) {
    for (int64_t i = 0; i < n; ++i) {
      if (!s.matched[static_cast<size_t>(i)])
        rows.push_back(isel ? isel[i] : static_cast<uint32_t>(i));
    }
    if (rows.empty()) return Status::OK();
    const int64_t k = static_cast<int64_t>(rows.size());
    for (const auto& col : input.columns) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(col, rows.data(), k, ctx.pool()));
      out->columns.push_back(std::move(a));
    }
    std::vector<uint32_t> null_rows(static_cast<size_t>(k), static_cast<uint32_t>(g.num_rows));
    for (const auto& col : g.columns) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(col, null_rows.data(), k, ctx.pool()));
      out->columns.push_back(std::move(a));
    }
    out->num_rows = k;
    return Status::OK();
  }
  if (type == JoinType::kMark) {
    QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, ctx.pool()));
    QUIVER_ASSIGN_OR_RAISE(auto validity, kernels::AllocateBitmap(n, ctx.pool()));
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (s.matched[static_cast<size_t>(i)]) {
        bit_util::SetBit(bits->mutable_data(), i);
        bit_util::SetBit(validity->mutable_data(), i);
      } else if (s.unknown[static_cast<size_t>(i)]) {
        ++nulls;
      } else {
        bit_util::SetBit(validity->mutable_data(), i);
      }
    }
    QUIVER_ASSIGN_OR_RAISE(out->columns, FlattenChunk(input, ctx.pool()));
    out->columns.push_back(ArrayData::Make(
        boolean(), n, {nulls ? std::shared_ptr<Buffer>(validity) : nullptr, bits}, nulls));
    out->num_rows = n;
    return Status::OK();
  }
  // Semi / anti.
  for (int64_t i = 0; i < n; ++i) {
    const bool keep = (type == JoinType::kSemi) == (s.matched[static_cast<size_t>(i)] != 0);
    if (keep) rows.push_back(isel ? isel[i] : static_cast<uint32_t>(i));
  }
  out->columns = input.columns;
  out->num_rows = static_cast<int64_t>(rows.size());
  auto sel = std::make_shared<SelectionVector>(out->num_rows);
  std::copy(rows.begin(), rows.end(), sel->data());
  out->sel = std::move(sel);
  return Status::OK();
}

}  // namespace

std::string PhysicalNestedLoopJoin::ParamsToString() const {
  std::string s = plan::JoinTypeName(type_);
  if (must_) s += " " + must_->ToString();
  if (mark_condition_) s += " MARK " + mark_condition_->ToString();
  return s;
}

Result<std::unique_ptr<GlobalSinkState>> PhysicalNestedLoopJoin::GetGlobalSinkState(
    ExecutionContext&) const {
  return std::unique_ptr<GlobalSinkState>(new JoinBuildState());
}

Status PhysicalNestedLoopJoin::Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const {
  auto& g = static_cast<JoinBuildState&>(gstate);
  QUIVER_RETURN_NOT_OK(CollectBuildRows(ctx, g));
  AllocateMarks(g);
  return Status::OK();
}

Result<std::unique_ptr<OperatorState>> PhysicalNestedLoopJoin::GetOperatorState(
    ExecutionContext& ctx) const {
  auto s = std::make_unique<NljState>();
  if (must_) s->must = std::make_unique<ExpressionExecutor>(ctx.pool(), must_.get());
  if (mark_condition_)
    s->mark = std::make_unique<ExpressionExecutor>(ctx.pool(), mark_condition_.get());
  return std::unique_ptr<OperatorState>(std::move(s));
}

Result<OperatorResult> PhysicalNestedLoopJoin::Execute(ExecutionContext& ctx, DataChunk& input,
                                                       DataChunk* out, OperatorState& state) const {
  auto& g = static_cast<JoinBuildState&>(*sink_state);
  auto& s = static_cast<NljState&>(state);
  const int64_t n = input.num_rows;
  const int64_t m = g.num_rows;
  if (!s.started) {
    s.started = true;
    s.probe_row = 0;
    s.build_row = 0;
    s.tail_done = false;
    s.matched.assign(static_cast<size_t>(n), 0);
    s.unknown.assign(static_cast<size_t>(n), 0);
  }
  const bool emits_pairs =
      type_ == JoinType::kInner || type_ == JoinType::kLeft || type_ == JoinType::kSingle;
  // Walk pairs in blocks until a block yields output (pairs) or all are done.
  while (s.probe_row < n && m > 0) {
    // Blocks without output never leave this loop: one probe chunk against a
    // large build side is minutes of work, so check for a cancel or deadline
    // per block, not only per chunk.
    if (ctx.cancelled()) return ctx.CancelStatus();
    std::vector<uint32_t> probe_idx, build_idx;
    NextBlock(type_, n, m, s, &probe_idx, &build_idx);
    const int64_t k = static_cast<int64_t>(probe_idx.size());
    if (k == 0) break;
    QUIVER_ASSIGN_OR_RAISE(DataChunk pairs, GatherPairs(ctx, input, g, probe_idx, build_idx));
    // Pairs passing `must`.
    std::vector<uint32_t> pass(static_cast<size_t>(k));
    int64_t np = k;
    if (s.must) {
      QUIVER_ASSIGN_OR_RAISE(np, s.must->Select(pairs, pass.data()));
    } else {
      for (int64_t i = 0; i < k; ++i) pass[static_cast<size_t>(i)] = static_cast<uint32_t>(i);
    }
    if (type_ == JoinType::kMark && s.mark) {
      QUIVER_RETURN_NOT_OK(MarkPairs(pairs, probe_idx, pass, np, s));
      continue;
    }
    if (!emits_pairs) {
      for (int64_t i = 0; i < np; ++i) s.matched[probe_idx[pass[static_cast<size_t>(i)]]] = 1;
      continue;
    }
    if (np == 0) continue;
    for (int64_t i = 0; i < np; ++i) {
      const uint32_t row = probe_idx[pass[static_cast<size_t>(i)]];
      if (type_ == JoinType::kSingle && s.matched[row]) {
        return Status::Invalid("more than one row returned by a subquery used as an expression")
            .WithSqlState(sqlstate::kCardinalityViolation);
      }
      s.matched[row] = 1;
    }
    if (marks_build_rows_) {
      for (int64_t i = 0; i < np; ++i) {
        g.marked[build_idx[pass[static_cast<size_t>(i)]]].store(1, std::memory_order_relaxed);
      }
    }
    out->columns = pairs.columns;
    out->num_rows = np;
    if (np < k) {
      auto sel = std::make_shared<SelectionVector>(np);
      std::copy(pass.begin(), pass.begin() + np, sel->data());
      out->sel = std::move(sel);
    }
    if (type_ == JoinType::kInner) {
      if (s.probe_row >= n) {
        s.started = false;
        return OperatorResult::kNeedMoreInput;
      }
      return OperatorResult::kHaveMoreOutput;
    }
    return OperatorResult::kHaveMoreOutput;
  }
  // All pairs seen: finish per join type.
  s.started = false;
  if (type_ == JoinType::kInner) return OperatorResult::kNeedMoreInput;
  QUIVER_RETURN_NOT_OK(FinishChunk(ctx, type_, g, input, s, out));
  return OperatorResult::kNeedMoreInput;
}

}  // namespace quiver::exec
