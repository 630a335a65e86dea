#include "planner/logical_plan.h"

#include <algorithm>

#include "vector/sql_type.h"

namespace quiver::plan {

const char* JoinTypeName(JoinType t) {
  switch (t) {
    case JoinType::kInner:
      return "INNER";
    case JoinType::kLeft:
      return "LEFT";
    case JoinType::kRight:
      return "RIGHT";
    case JoinType::kFull:
      return "FULL";
    case JoinType::kSemi:
      return "SEMI";
    case JoinType::kAnti:
      return "ANTI";
    case JoinType::kMark:
      return "MARK";
    case JoinType::kSingle:
      return "SINGLE";
  }
  return "?";
}

Result<ExprPtr> JoinCondition::ToExpression() const& {
  return JoinCondition(Copy()).ToExpression();
}

Result<ExprPtr> JoinCondition::ToExpression() && {
  std::vector<ExprPtr> args;
  args.push_back(std::move(left));
  args.push_back(std::move(right));
  return MakeFunction(op, std::move(args), true);
}

int FindBinding(const std::vector<ColumnBinding>& bindings, const ColumnBinding& b) {
  for (size_t i = 0; i < bindings.size(); ++i) {
    if (bindings[i] == b) return static_cast<int>(i);
  }
  return -1;
}

namespace {

std::string JoinExprs(const std::vector<ExprPtr>& exprs, const char* sep) {
  std::string s;
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (i) s += sep;
    s += exprs[i]->ToString();
  }
  return s;
}

// (table_index, i) for i < n.
std::vector<ColumnBinding> Numbered(int table_index, size_t n) {
  std::vector<ColumnBinding> out;
  for (size_t i = 0; i < n; ++i) out.push_back({table_index, static_cast<int>(i)});
  return out;
}

std::vector<ColumnBinding> BothBindings(const LogicalOperator& op) {
  auto out = op.children[0]->GetColumnBindings();
  auto r = op.children[1]->GetColumnBindings();
  out.insert(out.end(), r.begin(), r.end());
  return out;
}

std::vector<TypeRef> BothTypes(const LogicalOperator& op) {
  auto out = op.children[0]->GetTypes();
  auto r = op.children[1]->GetTypes();
  out.insert(out.end(), r.begin(), r.end());
  return out;
}

std::vector<OrderSpec> CopyOrders(const std::vector<OrderSpec>& orders) {
  std::vector<OrderSpec> out;
  for (const auto& o : orders) out.push_back(o.Copy());
  return out;
}

std::string OrdersString(const std::vector<OrderSpec>& orders) {
  std::string s;
  for (const auto& o : orders) s += " " + o.expr->ToString() + (o.descending ? " DESC" : " ASC");
  return s;
}

}  // namespace

// ---- LogicalOperator: what every kind shares ------------------------------

std::string LogicalOperator::ToString(int indent) const {
  std::string pad(static_cast<size_t>(indent) * 2, ' ');
  std::string line = NodeString();
  if (estimated_rows >= 0) line += fmt::format("  (~{:.0f} rows)", estimated_rows);
  std::string out = pad + line + "\n";
  for (const auto& c : children) out += c->ToString(indent + 1);
  return out;
}

LogicalOpPtr LogicalOperator::Copy() const {
  LogicalOpPtr op = CopyNode();
  for (const auto& c : children) op->children.push_back(c->Copy());
  for (const auto& e : expressions) op->expressions.push_back(e->Copy());
  op->table_index = table_index;
  op->estimated_rows = estimated_rows;
  return op;
}

void LogicalOperator::VisitExpressions(const std::function<void(ExprPtr*)>& f) {
  for (auto& e : expressions) f(&e);
  VisitOwnExpressions(f);
}

void LogicalOperator::ForEachExpression(const std::function<void(const Expression&)>& f) const {
  // The visit only reads through the slots it is given, so the const
  // operator is never changed.
  const_cast<LogicalOperator*>(this)->VisitExpressions([&](ExprPtr* e) { f(**e); });
}

void LogicalOperator::TakeSharedFrom(LogicalOperator& from) {
  children = std::move(from.children);
  expressions = std::move(from.expressions);
  table_index = from.table_index;
  estimated_rows = from.estimated_rows;
}

// ---- kGet -------------------------------------------------------------------

std::vector<ColumnBinding> LogicalGet::GetColumnBindings() const {
  // Bindings name table columns, so pruning column_ids renames nothing.
  std::vector<ColumnBinding> out;
  for (int c : column_ids) out.push_back({table_index, c});
  return out;
}

std::vector<TypeRef> LogicalGet::GetTypes() const {
  std::vector<TypeRef> out;
  for (int c : column_ids) out.push_back(column_types[static_cast<size_t>(c)]);
  return out;
}

std::string LogicalGet::NodeString() const {
  std::string line = "GET " + (table ? table->name() : std::string("?"));
  std::string cols;
  for (int c : column_ids)
    cols += (cols.empty() ? "" : ", ") + column_names[static_cast<size_t>(c)];
  line += " [" + cols + "]";
  for (const auto& p : scan_predicates)
    line += " {" + p.ToString(column_names) + "}";
  return line;
}

LogicalOpPtr LogicalGet::CopyNode() const {
  auto op = std::make_unique<LogicalGet>();
  op->table = table;
  op->table_alias = table_alias;
  op->column_ids = column_ids;
  op->column_names = column_names;
  op->column_types = column_types;
  op->scan_predicates = scan_predicates;
  return op;
}

// ---- kDummyScan, kValues, kEmpty --------------------------------------------

LogicalOpPtr LogicalDummyScan::CopyNode() const { return std::make_unique<LogicalDummyScan>(); }

std::vector<ColumnBinding> LogicalValues::GetColumnBindings() const {
  return Numbered(table_index, types.size());
}

std::string LogicalValues::NodeString() const {
  return fmt::format("VALUES ({} rows)", rows.size());
}

LogicalOpPtr LogicalValues::CopyNode() const {
  auto op = std::make_unique<LogicalValues>();
  for (const auto& r : rows) {
    std::vector<ExprPtr> row;
    for (const auto& e : r) row.push_back(e->Copy());
    op->rows.push_back(std::move(row));
  }
  op->types = types;
  return op;
}

void LogicalValues::VisitOwnExpressions(const std::function<void(ExprPtr*)>& f) {
  for (auto& r : rows) {
    for (auto& e : r) f(&e);
  }
}

std::vector<ColumnBinding> LogicalEmpty::GetColumnBindings() const {
  return Numbered(table_index, types.size());
}

LogicalOpPtr LogicalEmpty::CopyNode() const {
  return std::make_unique<LogicalEmpty>(table_index, types);
}

// ---- kFilter, kProjection ---------------------------------------------------

LogicalFilter::LogicalFilter(std::vector<ExprPtr> conjuncts, LogicalOpPtr child)
    : LogicalOperator(LogicalOpType::kFilter) {
  expressions = std::move(conjuncts);
  children.push_back(std::move(child));
}

std::vector<ColumnBinding> LogicalFilter::GetColumnBindings() const {
  return children[0]->GetColumnBindings();
}
std::vector<TypeRef> LogicalFilter::GetTypes() const { return children[0]->GetTypes(); }

std::string LogicalFilter::NodeString() const {
  return "FILTER " + JoinExprs(expressions, " AND ");
}

LogicalOpPtr LogicalFilter::CopyNode() const { return std::make_unique<LogicalFilter>(); }

LogicalProjection::LogicalProjection(int table_index, std::vector<ExprPtr> exprs,
                                     LogicalOpPtr child)
    : LogicalOperator(LogicalOpType::kProjection) {
  this->table_index = table_index;
  expressions = std::move(exprs);
  children.push_back(std::move(child));
}

std::vector<ColumnBinding> LogicalProjection::GetColumnBindings() const {
  return Numbered(table_index, expressions.size());
}

std::vector<TypeRef> LogicalProjection::GetTypes() const {
  std::vector<TypeRef> out;
  for (const auto& e : expressions) out.push_back(e->return_type);
  return out;
}

std::string LogicalProjection::NodeString() const {
  return "PROJECTION " + JoinExprs(expressions, ", ");
}

LogicalOpPtr LogicalProjection::CopyNode() const { return std::make_unique<LogicalProjection>(); }

// ---- kWindow ----------------------------------------------------------------

std::vector<ColumnBinding> LogicalWindow::GetColumnBindings() const {
  auto out = children[0]->GetColumnBindings();
  for (size_t k = 0; k < expressions.size(); ++k) out.push_back({window_index, static_cast<int>(k)});
  return out;
}

std::vector<TypeRef> LogicalWindow::GetTypes() const {
  auto out = children[0]->GetTypes();
  for (const auto& e : expressions) out.push_back(e->return_type);
  return out;
}

std::string LogicalWindow::NodeString() const { return "WINDOW " + JoinExprs(expressions, ", "); }

LogicalOpPtr LogicalWindow::CopyNode() const { return std::make_unique<LogicalWindow>(window_index); }

// ---- kAggregate -------------------------------------------------------------

std::vector<ColumnBinding> LogicalAggregate::GetColumnBindings() const {
  auto out = Numbered(group_index, groups.size());
  auto aggs = Numbered(aggregate_index, expressions.size());
  out.insert(out.end(), aggs.begin(), aggs.end());
  return out;
}

std::vector<TypeRef> LogicalAggregate::GetTypes() const {
  std::vector<TypeRef> out;
  for (const auto& g : groups) out.push_back(g->return_type);
  for (const auto& e : expressions) out.push_back(e->return_type);
  return out;
}

std::string LogicalAggregate::NodeString() const {
  std::string s = "AGGREGATE [" + JoinExprs(groups, ", ") + "] " + JoinExprs(expressions, ", ");
  if (!grouping_sets.empty()) {
    s += " GROUPING SETS (";
    for (size_t i = 0; i < grouping_sets.size(); ++i) {
      s += i ? ", (" : "(";
      for (size_t j = 0; j < grouping_sets[i].size(); ++j) {
        s += (j ? ", #" : "#") + std::to_string(grouping_sets[i][j]);
      }
      s += ")";
    }
    s += ") id #" + std::to_string(grouping_set_id);
  }
  if (!empty_grouping_sets.empty()) s += " (empty grouping sets give a row on no input)";
  return s;
}

bool LogicalAggregate::GroupKeptInEverySet(int i) const {
  if (grouping_sets.empty()) return true;
  if (i == grouping_set_id) return false;
  for (const auto& set : grouping_sets) {
    if (std::find(set.begin(), set.end(), i) == set.end()) return false;
  }
  return true;
}

LogicalOpPtr LogicalAggregate::CopyNode() const {
  auto op = std::make_unique<LogicalAggregate>(group_index, aggregate_index);
  for (const auto& g : groups) op->groups.push_back(g->Copy());
  op->empty_grouping_sets = empty_grouping_sets;
  op->grouping_sets = grouping_sets;
  op->grouping_set_id = grouping_set_id;
  return op;
}

void LogicalAggregate::VisitOwnExpressions(const std::function<void(ExprPtr*)>& f) {
  for (auto& g : groups) f(&g);
}

// ---- kJoin, kCrossProduct ---------------------------------------------------

LogicalJoin::LogicalJoin(JoinType join_type, LogicalOpPtr left, LogicalOpPtr right)
    : LogicalOperator(LogicalOpType::kJoin), join_type(join_type) {
  children.push_back(std::move(left));
  children.push_back(std::move(right));
}

std::vector<ColumnBinding> LogicalJoin::GetColumnBindings() const {
  if (IsSemiOrAnti()) return children[0]->GetColumnBindings();
  if (join_type == JoinType::kMark) {
    auto out = children[0]->GetColumnBindings();
    out.push_back({mark_index, 0});
    return out;
  }
  return BothBindings(*this);
}

std::vector<TypeRef> LogicalJoin::GetTypes() const {
  if (IsSemiOrAnti()) return children[0]->GetTypes();
  if (join_type == JoinType::kMark) {
    auto out = children[0]->GetTypes();
    out.push_back(boolean());
    return out;
  }
  return BothTypes(*this);
}

std::string LogicalJoin::NodeString() const {
  std::string line = std::string(JoinTypeName(join_type)) + " JOIN";
  for (size_t i = 0; i < conditions.size(); ++i) {
    line += (i ? " AND " : " ") + conditions[i].left->ToString() + " " + conditions[i].op + " " +
            conditions[i].right->ToString();
  }
  if (!expressions.empty()) line += " WHERE " + JoinExprs(expressions, " AND ");
  return line;
}

LogicalOpPtr LogicalJoin::CopyNode() const {
  auto op = std::make_unique<LogicalJoin>(join_type);
  for (const auto& c : conditions) op->conditions.push_back(c.Copy());
  op->mark_index = mark_index;
  op->null_aware = null_aware;
  return op;
}

void LogicalJoin::VisitOwnExpressions(const std::function<void(ExprPtr*)>& f) {
  for (auto& c : conditions) {
    f(&c.left);
    f(&c.right);
  }
}

LogicalCrossProduct::LogicalCrossProduct(LogicalOpPtr left, LogicalOpPtr right)
    : LogicalOperator(LogicalOpType::kCrossProduct) {
  children.push_back(std::move(left));
  children.push_back(std::move(right));
}

std::vector<ColumnBinding> LogicalCrossProduct::GetColumnBindings() const {
  return BothBindings(*this);
}
std::vector<TypeRef> LogicalCrossProduct::GetTypes() const { return BothTypes(*this); }

LogicalOpPtr LogicalCrossProduct::CopyNode() const {
  return std::make_unique<LogicalCrossProduct>();
}

// ---- kOrder, kLimit, kTopN, kDistinct: the child's columns -------------------

std::vector<ColumnBinding> LogicalOrder::GetColumnBindings() const {
  return children[0]->GetColumnBindings();
}
std::vector<TypeRef> LogicalOrder::GetTypes() const { return children[0]->GetTypes(); }
std::string LogicalOrder::NodeString() const { return "ORDER_BY" + OrdersString(orders); }
LogicalOpPtr LogicalOrder::CopyNode() const {
  auto op = std::make_unique<LogicalOrder>();
  op->orders = CopyOrders(orders);
  return op;
}
void LogicalOrder::VisitOwnExpressions(const std::function<void(ExprPtr*)>& f) {
  for (auto& o : orders) f(&o.expr);
}

std::vector<ColumnBinding> LogicalLimit::GetColumnBindings() const {
  return children[0]->GetColumnBindings();
}
std::vector<TypeRef> LogicalLimit::GetTypes() const { return children[0]->GetTypes(); }
std::string LogicalLimit::NodeString() const {
  return fmt::format("LIMIT {} OFFSET {}", limit, offset);
}
LogicalOpPtr LogicalLimit::CopyNode() const {
  auto op = std::make_unique<LogicalLimit>();
  op->limit = limit;
  op->offset = offset;
  return op;
}

std::vector<ColumnBinding> LogicalTopN::GetColumnBindings() const {
  return children[0]->GetColumnBindings();
}
std::vector<TypeRef> LogicalTopN::GetTypes() const { return children[0]->GetTypes(); }
std::string LogicalTopN::NodeString() const {
  return fmt::format("TOP_N {}", limit) + OrdersString(orders);
}
LogicalOpPtr LogicalTopN::CopyNode() const {
  return std::make_unique<LogicalTopN>(CopyOrders(orders), limit, offset);
}
void LogicalTopN::VisitOwnExpressions(const std::function<void(ExprPtr*)>& f) {
  for (auto& o : orders) f(&o.expr);
}

std::vector<ColumnBinding> LogicalDistinct::GetColumnBindings() const {
  return children[0]->GetColumnBindings();
}
std::vector<TypeRef> LogicalDistinct::GetTypes() const { return children[0]->GetTypes(); }
LogicalOpPtr LogicalDistinct::CopyNode() const { return std::make_unique<LogicalDistinct>(); }

// ---- kSetOp -----------------------------------------------------------------

std::vector<ColumnBinding> LogicalSetOp::GetColumnBindings() const {
  return Numbered(table_index, types.size());
}

std::string LogicalSetOp::NodeString() const {
  return std::string(setop == SetOpType::kUnion       ? "UNION"
                     : setop == SetOpType::kIntersect ? "INTERSECT"
                                                      : "EXCEPT") +
         (setop_all ? " ALL" : "");
}

LogicalOpPtr LogicalSetOp::CopyNode() const {
  auto op = std::make_unique<LogicalSetOp>(setop, setop_all);
  op->types = types;
  return op;
}

// ---- kInsert, kUpdate, kDelete ----------------------------------------------

std::vector<ColumnBinding> LogicalModifyTable::GetColumnBindings() const {
  if (returning.empty()) return {{table_index, 0}};
  std::vector<ColumnBinding> out;
  for (size_t i = 0; i < returning.size(); ++i) out.push_back({table_index, static_cast<int>(i)});
  return out;
}

std::vector<TypeRef> LogicalModifyTable::GetTypes() const {
  if (returning.empty()) return {int64()};
  return returning;
}

std::string LogicalModifyTable::NodeString() const {
  return std::string(type == LogicalOpType::kInsert   ? "INSERT "
                     : type == LogicalOpType::kUpdate ? "UPDATE "
                                                      : "DELETE ") +
         (target ? target->name() : std::string("?"));
}

LogicalOpPtr LogicalModifyTable::CopyNode() const {
  auto op = std::make_unique<LogicalModifyTable>(type, target);
  op->returning = returning;
  op->positioned = positioned;
  op->on_conflict = on_conflict;
  return op;
}

}  // namespace quiver::plan
