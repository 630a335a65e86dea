#include "planner/logical_plan.h"

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

std::vector<ColumnBinding> LogicalOperator::GetColumnBindings() const {
  std::vector<ColumnBinding> out;
  switch (type) {
    case LogicalOpType::kGet:
      // Bindings name table columns, so pruning column_ids renames nothing.
      for (int c : column_ids) out.push_back({table_index, c});
      break;
    case LogicalOpType::kDummyScan:
      break;
    case LogicalOpType::kValues:
    case LogicalOpType::kEmpty:
      for (size_t i = 0; i < types.size(); ++i) out.push_back({table_index, static_cast<int>(i)});
      break;
    case LogicalOpType::kFilter:
    case LogicalOpType::kOrder:
    case LogicalOpType::kLimit:
    case LogicalOpType::kTopN:
    case LogicalOpType::kDistinct:
      return children[0]->GetColumnBindings();
    case LogicalOpType::kProjection:
      for (size_t i = 0; i < expressions.size(); ++i)
        out.push_back({table_index, static_cast<int>(i)});
      break;
    case LogicalOpType::kAggregate:
      for (size_t i = 0; i < groups.size(); ++i) out.push_back({group_index, static_cast<int>(i)});
      for (size_t i = 0; i < expressions.size(); ++i) {
        out.push_back({aggregate_index, static_cast<int>(i)});
      }
      break;
    case LogicalOpType::kJoin: {
      out = children[0]->GetColumnBindings();
      if (join_type == JoinType::kSemi || join_type == JoinType::kAnti) break;
      if (join_type == JoinType::kMark) {
        out.push_back({mark_index, 0});
        break;
      }
      auto r = children[1]->GetColumnBindings();
      out.insert(out.end(), r.begin(), r.end());
      break;
    }
    case LogicalOpType::kCrossProduct: {
      out = children[0]->GetColumnBindings();
      auto r = children[1]->GetColumnBindings();
      out.insert(out.end(), r.begin(), r.end());
      break;
    }
    case LogicalOpType::kSetOp:
      for (size_t i = 0; i < types.size(); ++i) out.push_back({table_index, static_cast<int>(i)});
      break;
    case LogicalOpType::kInsert:
    case LogicalOpType::kUpdate:
    case LogicalOpType::kDelete:
      out.push_back({table_index, 0});
      break;
  }
  return out;
}

std::vector<TypeRef> LogicalOperator::GetTypes() const {
  std::vector<TypeRef> out;
  switch (type) {
    case LogicalOpType::kGet:
      for (int c : column_ids) out.push_back(column_types[static_cast<size_t>(c)]);
      break;
    case LogicalOpType::kDummyScan:
      break;
    case LogicalOpType::kValues:
    case LogicalOpType::kEmpty:
    case LogicalOpType::kSetOp:
      return types;
    case LogicalOpType::kFilter:
    case LogicalOpType::kOrder:
    case LogicalOpType::kLimit:
    case LogicalOpType::kTopN:
    case LogicalOpType::kDistinct:
      return children[0]->GetTypes();
    case LogicalOpType::kProjection:
      for (const auto& e : expressions) out.push_back(e->return_type);
      break;
    case LogicalOpType::kAggregate:
      for (const auto& g : groups) out.push_back(g->return_type);
      for (const auto& e : expressions) out.push_back(e->return_type);
      break;
    case LogicalOpType::kJoin: {
      out = children[0]->GetTypes();
      if (join_type == JoinType::kSemi || join_type == JoinType::kAnti) break;
      if (join_type == JoinType::kMark) {
        out.push_back(boolean());
        break;
      }
      auto r = children[1]->GetTypes();
      out.insert(out.end(), r.begin(), r.end());
      break;
    }
    case LogicalOpType::kCrossProduct: {
      out = children[0]->GetTypes();
      auto r = children[1]->GetTypes();
      out.insert(out.end(), r.begin(), r.end());
      break;
    }
    case LogicalOpType::kInsert:
    case LogicalOpType::kUpdate:
    case LogicalOpType::kDelete:
      out.push_back(int64());
      break;
  }
  return out;
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

}  // namespace

std::string LogicalOperator::ToString(int indent) const {
  std::string pad(static_cast<size_t>(indent) * 2, ' ');
  std::string line;
  switch (type) {
    case LogicalOpType::kGet: {
      line = "GET " + (table ? table->name() : std::string("?"));
      std::string cols;
      for (int c : column_ids)
        cols += (cols.empty() ? "" : ", ") + column_names[static_cast<size_t>(c)];
      line += " [" + cols + "]";
      for (const auto& p : scan_predicates)
        line += " {" + p.ToString(column_names[static_cast<size_t>(p.column)]) + "}";
      break;
    }
    case LogicalOpType::kDummyScan:
      line = "DUMMY_SCAN";
      break;
    case LogicalOpType::kValues:
      line = fmt::format("VALUES ({} rows)", rows.size());
      break;
    case LogicalOpType::kEmpty:
      line = "EMPTY_RESULT";
      break;
    case LogicalOpType::kFilter:
      line = "FILTER " + JoinExprs(expressions, " AND ");
      break;
    case LogicalOpType::kProjection:
      line = "PROJECTION " + JoinExprs(expressions, ", ");
      break;
    case LogicalOpType::kAggregate:
      line = "AGGREGATE [" + JoinExprs(groups, ", ") + "] " + JoinExprs(expressions, ", ");
      break;
    case LogicalOpType::kJoin: {
      line = std::string(JoinTypeName(join_type)) + " JOIN";
      for (size_t i = 0; i < conditions.size(); ++i) {
        line += (i ? " AND " : " ") + conditions[i].left->ToString() + " " + conditions[i].op +
                " " + conditions[i].right->ToString();
      }
      if (!expressions.empty()) line += " WHERE " + JoinExprs(expressions, " AND ");
      break;
    }
    case LogicalOpType::kCrossProduct:
      line = "CROSS_PRODUCT";
      break;
    case LogicalOpType::kOrder:
    case LogicalOpType::kTopN: {
      line = type == LogicalOpType::kOrder ? "ORDER_BY" : fmt::format("TOP_N {}", limit);
      for (const auto& o : orders) {
        line += " " + o.expr->ToString() + (o.descending ? " DESC" : " ASC");
      }
      break;
    }
    case LogicalOpType::kLimit:
      line = fmt::format("LIMIT {} OFFSET {}", limit, offset);
      break;
    case LogicalOpType::kDistinct:
      line = "DISTINCT";
      break;
    case LogicalOpType::kSetOp:
      line = std::string(setop == SetOpType::kUnion       ? "UNION"
                         : setop == SetOpType::kIntersect ? "INTERSECT"
                                                          : "EXCEPT") +
             (setop_all ? " ALL" : "");
      break;
    case LogicalOpType::kInsert:
    case LogicalOpType::kUpdate:
    case LogicalOpType::kDelete:
      line = std::string(type == LogicalOpType::kInsert   ? "INSERT "
                         : type == LogicalOpType::kUpdate ? "UPDATE "
                                                          : "DELETE ") +
             (target ? target->name() : std::string("?"));
      break;
  }
  if (estimated_rows >= 0) line += fmt::format("  (~{:.0f} rows)", estimated_rows);
  std::string out = pad + line + "\n";
  for (const auto& c : children) out += c->ToString(indent + 1);
  return out;
}

LogicalOpPtr LogicalOperator::Copy() const {
  auto op = std::make_unique<LogicalOperator>(type);
  for (const auto& c : children) op->children.push_back(c->Copy());
  for (const auto& e : expressions) op->expressions.push_back(e->Copy());
  op->table_index = table_index;
  op->table = table;
  op->table_alias = table_alias;
  op->column_ids = column_ids;
  op->column_names = column_names;
  op->column_types = column_types;
  op->scan_predicates = scan_predicates;
  for (const auto& r : rows) {
    std::vector<ExprPtr> row;
    for (const auto& e : r) row.push_back(e->Copy());
    op->rows.push_back(std::move(row));
  }
  op->types = types;
  op->group_index = group_index;
  op->aggregate_index = aggregate_index;
  for (const auto& g : groups) op->groups.push_back(g->Copy());
  op->join_type = join_type;
  for (const auto& c : conditions) op->conditions.push_back(c.Copy());
  op->mark_index = mark_index;
  op->null_aware = null_aware;
  for (const auto& o : orders) op->orders.push_back(o.Copy());
  op->limit = limit;
  op->offset = offset;
  op->setop = setop;
  op->setop_all = setop_all;
  op->target = target;
  op->estimated_rows = estimated_rows;
  return op;
}

}  // namespace quiver::plan
