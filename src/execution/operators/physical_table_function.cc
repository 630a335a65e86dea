#include "execution/operators/physical_table_function.h"

#include "execution/expression/expression_executor.h"
#include "functions/kernel_util.h"

namespace quiver::exec {
namespace {

// One call's rows for the current input row.
struct CallState {
  std::unique_ptr<TableFunctionCursor> cursor;  // null: finished (or never started)
  std::vector<ArrayRef> batch;                  // its last batch
  int64_t offset = 0;                           // rows of `batch` already given
  int64_t Available() const { return batch.empty() ? 0 : batch[0]->length - offset; }
};

struct TableFunctionState : OperatorState {
  std::vector<std::unique_ptr<ExpressionExecutor>> executors;
  // The input chunk being expanded.
  bool in_chunk = false;
  std::vector<EvalResult> args;
  int64_t row = 0;       // input row whose calls run
  bool started = false;  // the calls of `row` have started
  std::vector<CallState> calls;
  int64_t ordinal = 0;  // rows the calls gave so far
};

}  // namespace

std::string PhysicalTableFunction::ParamsToString() const {
  std::string s;
  size_t arg = 0;
  for (size_t f = 0; f < functions_.size(); ++f) {
    s += (f ? "), " : "") + functions_[f]->function->name + "(";
    for (int i = 0; i < arg_counts_[f]; ++i, ++arg) s += (i ? ", " : "") + args_[arg]->ToString();
  }
  s += ")";
  if (ordinality_) s += " WITH ORDINALITY";
  if (outer_) s += " OUTER";
  return s;
}

Result<std::unique_ptr<OperatorState>> PhysicalTableFunction::GetOperatorState(
    ExecutionContext& ctx) const {
  auto s = std::make_unique<TableFunctionState>();
  for (const auto& a : args_) s->executors.push_back(std::make_unique<ExpressionExecutor>(ctx.pool(), a.get()));
  s->calls.resize(functions_.size());
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
    s.started = false;
  }
  // Repeats input row `row` n times in front of the functions' columns.
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
  auto nulls = [&](const TypeRef& type, int64_t n, std::vector<ArrayRef>* columns) -> Status {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, MakeArrayFromValue(Value::Null(type), n, ctx.pool()));
    columns->push_back(std::move(a));
    return Status::OK();
  };
  while (s.row < input.num_rows) {
    if (!s.started) {
      size_t arg = 0;
      for (size_t f = 0; f < functions_.size(); ++f) {
        const TableFunction& fn = *functions_[f]->function;
        std::vector<Value> values;
        std::vector<ArrayRef> slots;  // for start_slots: each argument as an array of one slot
        bool has_null = false;
        const bool by_slots = static_cast<bool>(fn.start_slots);
        for (int i = 0; i < arg_counts_[f]; ++i, ++arg) {
          const EvalResult& a = s.args[arg];
          const int64_t slot = a.ref.index(s.row);
          has_null |= a.ref.array->IsNull(slot);
          if (by_slots) {
            slots.push_back(a.ref.array->Slice(slot, 1));
          } else {
            values.push_back(ValueFromArray(*a.ref.array, slot));
          }
        }
        CallState& c = s.calls[f];
        c.cursor.reset();
        c.batch.clear();
        c.offset = 0;
        if (has_null && fn.strict) continue;
        if (by_slots) {
          QUIVER_ASSIGN_OR_RAISE(c.cursor, fn.start_slots(slots, functions_[f]->column_types));
        } else {
          QUIVER_ASSIGN_OR_RAISE(c.cursor, fn.start(values, functions_[f]->column_types));
        }
      }
      s.started = true;
      s.ordinal = 0;
    }
    // As many rows as every unfinished call has at hand (a call whose
    // batch is used up fetches its next one first).
    int64_t n = -1;
    for (CallState& c : s.calls) {
      if (c.cursor == nullptr) continue;
      if (c.Available() == 0) {
        QUIVER_ASSIGN_OR_RAISE(c.batch, c.cursor->Next(kVectorSize, ctx.pool()));
        c.offset = 0;
        if (c.Available() == 0) {
          c.cursor.reset();
          c.batch.clear();
          continue;
        }
      }
      n = n < 0 ? c.Available() : std::min(n, c.Available());
    }
    if (n < 0) {
      // Every call is over: on to the next input row (a LEFT JOIN LATERAL
      // keeps a row whose calls gave nothing, once, with NULLs).
      const bool pad = outer_ && s.ordinal == 0;
      s.started = false;
      if (pad) {
        std::vector<ArrayRef> columns;
        for (const auto& f : functions_) {
          for (const auto& t : f->column_types) QUIVER_RETURN_NOT_OK(nulls(t, 1, &columns));
        }
        if (ordinality_) QUIVER_RETURN_NOT_OK(nulls(int64(), 1, &columns));
        QUIVER_RETURN_NOT_OK(emit(1, std::move(columns)));
        ++s.row;
        return OperatorResult::kHaveMoreOutput;
      }
      ++s.row;
      continue;
    }
    std::vector<ArrayRef> columns;
    for (size_t f = 0; f < functions_.size(); ++f) {
      CallState& c = s.calls[f];
      if (c.cursor == nullptr) {
        for (const auto& t : functions_[f]->column_types)
          QUIVER_RETURN_NOT_OK(nulls(t, n, &columns));
        continue;
      }
      for (const auto& b : c.batch) {
        columns.push_back(c.offset == 0 && n == b->length ? b : b->Slice(c.offset, n));
      }
      c.offset += n;
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
