// ORDER BY ... LIMIT n  =>  TOP_N: keeps n rows per thread instead of
// sorting everything.
#include "optimizer/optimizer.h"

namespace quiver::optimizer {

namespace {

void Rewrite(LogicalOpPtr* op) {
  for (auto& c : (*op)->children) Rewrite(&c);
  LogicalOperator& l = **op;
  if (l.type != LogicalOpType::kLimit || l.limit < 0) return;
  LogicalOperator& child = *l.children[0];
  if (child.type != LogicalOpType::kOrder) return;
  auto top = std::make_unique<LogicalOperator>(LogicalOpType::kTopN);
  top->orders = std::move(child.orders);
  top->limit = l.limit;
  top->offset = l.offset;
  top->children.push_back(std::move(child.children[0]));
  *op = std::move(top);
}

}  // namespace

Result<LogicalOpPtr> IntroduceTopN(LogicalOpPtr plan) {
  Rewrite(&plan);
  return plan;
}

}  // namespace quiver::optimizer
