#include "execution/operators/physical_table_function.h"

#include "execution/expression/expression_executor.h"
#include "functions/kernel_util.h"

namespace quiver::exec {
namespace {

struct TableFunctionState : OperatorState {
  std::vector<std::unique_ptr<ExpressionExecutor>> executors;
  // The input chunk being expanded.
  bool in_chunk = false;
  std::vector<EvalResult> args;
  int64_t row = 0;  // input row whose call runs
  std::unique_ptr<TableFunctionCursor> cursor;
  int64_t ordinal = 0;        // rows the call gave so far
};

}  // namespace

std::string PhysicalTableFunction::ParamsToString() const {
  std::string s = function_->function->name + "(";
  for (size_t i = 0; i < args_.size(); ++i) s += (i ? ", " : "") + args_[i]->ToString();
  s += ")";
  if (ordinality_) s += " WITH ORDINALITY";
  if (outer_) s += " OUTER";
  return s;
}

Result<std::unique_ptr<OperatorState>> PhysicalTableFunction::GetOperatorState(
    ExecutionContext& ctx) const {
  auto s = std::make_unique<TableFunctionState>();
  for (const auto& a : args_) s->executors.push_back(std::make_unique<ExpressionExecutor>(ctx.pool(), a.get()));
  return std::unique_ptr<OperatorState>(std::move(s));
}

Result<OperatorResult> PhysicalTableFunction::Execute(ExecutionContext& ctx, DataChunk& input,
                                                      DataChunk* out, OperatorState& state) const {
  auto& s = static_cast<TableFunctionState&>(state);
  if (!s.in_chunk) {
    s.args.clear();
    for (auto& e : s.executors) {
      QUIVER_ASSIGN_OR_RAISE(EvalResult r, e->Execute(input));
      s.args.push_back(std::move(r));
    }
    s.in_chunk = true;
    s.row = 0;
    s.cursor.reset();
  }
  const size_t fn_columns = function_->column_types.size();
  // Repeats input row `row` n times in front of the function's columns.
  auto emit = [&](int64_t n, std::vector<ArrayRef> columns) -> Status {
    const uint32_t slot = input.sel ? input.sel_data()[s.row] : static_cast<uint32_t>(s.row);
    std::vector<uint32_t> repeat(static_cast<size_t>(n), slot);
    for (const auto& c : input.columns) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(c, repeat.data(), n, ctx.pool()));
      out->columns.push_back(std::move(a));
    }
    for (auto& c : columns) out->columns.push_back(std::move(c));
    out->num_rows = n;
    return Status::OK();
  };
  while (s.row < input.num_rows) {
    if (s.cursor == nullptr) {
      std::vector<Value> values;
      std::vector<ArrayRef> slots;  // for start_slots: each argument as an array of one slot
      bool has_null = false;
      const bool by_slots = static_cast<bool>(function_->function->start_slots);
      for (const auto& a : s.args) {
        const int64_t slot = a.ref.index(s.row);
        has_null |= a.ref.array->IsNull(slot);
        if (by_slots) {
          slots.push_back(a.ref.array->Slice(slot, 1));
        } else {
          values.push_back(ValueFromArray(*a.ref.array, slot));
        }
      }
      s.ordinal = 0;
      if (!(has_null && function_->function->strict)) {
        if (by_slots) {
          QUIVER_ASSIGN_OR_RAISE(s.cursor, function_->function->start_slots(slots, function_->column_types));
        } else {
          QUIVER_ASSIGN_OR_RAISE(s.cursor, function_->function->start(values, function_->column_types));
        }
      }
    }
    std::vector<ArrayRef> columns;
    int64_t n = 0;
    if (s.cursor != nullptr) {
      QUIVER_ASSIGN_OR_RAISE(columns, s.cursor->Next(kVectorSize, ctx.pool()));
      n = columns.empty() ? 0 : columns[0]->length;
    }
    if (n == 0) {
      // The call is over: on to the next input row (a LEFT JOIN LATERAL
      // keeps a row whose call gave nothing, once, with NULLs).
      const bool pad = outer_ && s.ordinal == 0;
      s.cursor.reset();
      if (pad) {
        std::vector<ArrayRef> nulls;
        for (size_t i = 0; i < fn_columns; ++i) {
          QUIVER_ASSIGN_OR_RAISE(ArrayRef a, MakeArrayFromValue(Value::Null(function_->column_types[i]), 1, ctx.pool()));
          nulls.push_back(std::move(a));
        }
        if (ordinality_) {
          QUIVER_ASSIGN_OR_RAISE(ArrayRef a, MakeArrayFromValue(Value::Null(int64()), 1, ctx.pool()));
          nulls.push_back(std::move(a));
        }
        QUIVER_RETURN_NOT_OK(emit(1, std::move(nulls)));
        ++s.row;
        return OperatorResult::kHaveMoreOutput;
      }
      ++s.row;
      continue;
    }
    if (ordinality_) {
      QUIVER_ASSIGN_OR_RAISE(kernels::FixedOutput ord, kernels::MakeFixedOutput(int64(), {}, n, ctx.pool()));
      int64_t* v = ord.data<int64_t>();
      for (int64_t i = 0; i < n; ++i) v[i] = s.ordinal + i + 1;
      columns.push_back(kernels::FinishFixed(int64(), n, std::move(ord)));
    }
    s.ordinal += n;
    QUIVER_RETURN_NOT_OK(emit(n, std::move(columns)));
    return OperatorResult::kHaveMoreOutput;
  }
  s.in_chunk = false;
  s.args.clear();
  return OperatorResult::kNeedMoreInput;
}

}  // namespace quiver::exec
