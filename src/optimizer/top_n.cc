// ORDER BY ... LIMIT n  =>  TOP_N: keeps n rows per thread instead of
// sorting everything.
#include "optimizer/optimizer.h"

namespace quiver::optimizer {

namespace {

void Rewrite(LogicalOpPtr* op) {
  for (auto& c : (*op)->children) Rewrite(&c);
  auto* l = (*op)->TryAs<plan::LogicalLimit>();
  if (l == nullptr || l->limit < 0) return;
  auto* order = l->children[0]->TryAs<plan::LogicalOrder>();
  if (order == nullptr) return;
  auto top = std::make_unique<plan::LogicalTopN>(std::move(order->orders), l->limit, l->offset);
  top->children.push_back(std::move(order->children[0]));
  *op = std::move(top);
}

}  // namespace

Result<LogicalOpPtr> IntroduceTopN(LogicalOpPtr plan) {
  Rewrite(&plan);
  return plan;
}

}  // namespace quiver::optimizer
