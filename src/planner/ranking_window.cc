#include "planner/ranking_window.h"

#include "planner/expression_binder.h"
#include "sql/ast.h"

namespace quiver::plan {

ExprPtr MakeRankingWindow(WindowFunction f, std::vector<ExprPtr> partitions,
                          std::vector<OrderSpec> orders) {
  auto w = std::make_unique<WindowExpression>(f, int64());
  w->name = f == WindowFunction::kRank ? "rank" : "row_number";
  w->num_partitions = static_cast<int>(partitions.size());
  for (auto& p : partitions) w->children.push_back(std::move(p));
  for (auto& o : orders) {
    w->order.push_back({o.descending, o.nulls_first});
    w->children.push_back(std::move(o.expr));
  }
  w->frame_options = sql::kFrameDefaults;
  return w;
}

Result<LogicalOpPtr> FilterByRank(LogicalOpPtr child, int window_index, ExprPtr window, int64_t first,
                          int64_t last) {
  auto w = std::make_unique<LogicalWindow>(window_index);
  w->expressions.push_back(std::move(window));
  w->children.push_back(std::move(child));
  std::vector<ExprPtr> conjuncts;
  const ColumnBinding value{window_index, 0};
  auto compare = [&](const char* op, int64_t bound) -> Result<ExprPtr> {
    std::vector<ExprPtr> args;
    args.push_back(MakeColumnRef(value, int64(), "rank"));
    args.push_back(MakeConstant(Value::Int64(bound)));
    return BindOperatorCall(op, std::move(args), -1);
  };
  if (first > 1) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr c, compare(">=", first));
    conjuncts.push_back(std::move(c));
  }
  if (last >= 0) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr c, compare("<=", last));
    conjuncts.push_back(std::move(c));
  }
  if (conjuncts.empty()) return LogicalOpPtr(std::move(w));
  return LogicalOpPtr(std::make_unique<LogicalFilter>(std::move(conjuncts), std::move(w)));
}

}  // namespace quiver::plan
