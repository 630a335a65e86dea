// Vectorized evaluation of bound expressions (kBoundRef form) over chunks.
//
// Evaluation works on a subset of the chunk's rows, given as positions
// 0..num_rows-1: CASE branches, the right side of AND/OR and COALESCE
// fallbacks are evaluated only on the rows that need them, which both saves
// work and keeps errors of untaken branches from firing
// (CASE WHEN b <> 0 THEN a / b END).
//
// Column references cost nothing: their result is the column itself read
// through a composed selection. Functions produce dense arrays.
//
// Thread-safety: one executor per thread (it keeps scratch space).
//
// Its own library (quiver_expression), beside the physical operators rather
// than among them: the optimizer folds constants with it (EvaluateConstant),
// so folding and execution share one set of kernels, without the optimizer
// linking any operator (DataFusion's optimizer likewise depends on its
// physical-expr crate only).
#pragma once

#include <memory>
#include <unordered_set>
#include <vector>

#include "common/memory_pool.h"
#include "planner/expression.h"
#include "vector/data_chunk.h"

namespace quiver::exec {

// The result of evaluating an expression on n rows: `ref` reads row i.
// `owned` and `sel` keep what ref points into alive.
struct EvalResult {
  VectorRef ref;
  ArrayRef owned;
  std::shared_ptr<std::vector<uint32_t>> sel;
};

class ExpressionExecutor {
 public:
  // Results are allocated from `pool` (the query's; null: the default pool).
  ExpressionExecutor(MemoryPool* pool, const plan::Expression* expr);
  ~ExpressionExecutor();

  // Evaluates over all rows of `chunk`.
  Result<EvalResult> Execute(const DataChunk& chunk);
  // Evaluates and returns a dense array of chunk.num_rows values.
  Result<ArrayRef> ExecuteToArray(const DataChunk& chunk);
  // For predicates: writes the positions (0..num_rows-1) of rows where the
  // expression is TRUE into `out` (capacity num_rows) and returns the count.
  Result<int64_t> Select(const DataChunk& chunk, uint32_t* out);

  const plan::Expression& expression() const { return *expr_; }

  struct Node;

 private:
  MemoryPool* pool_;
  const plan::Expression* expr_;
  std::unique_ptr<Node> root_;
};

// Evaluates a constant expression (no column references) to a value.
Result<Value> EvaluateConstant(const plan::Expression& expr);

}  // namespace quiver::exec
