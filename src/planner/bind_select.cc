// SELECT: FROM -> WHERE -> GROUP BY / aggregates -> HAVING -> select list
// -> DISTINCT -> ORDER BY -> LIMIT/OFFSET; VALUES; UNION/INTERSECT/EXCEPT;
// WITH.
#include <algorithm>

#include "functions/cast.h"
#include "planner/bind_json.h"
#include "planner/expression_binder.h"
#include "planner/ranking_window.h"
#include "vector/json_type.h"
#include "vector/sql_type.h"

namespace quiver::plan {

using sql::ExprKind;
using sql::ParsedExpr;
using sql::SelectNode;

Result<BoundQuery> Binder::BindQuery(const SelectNode& node) {
  const size_t cte_mark = ctes_.size();
  for (const auto& cte : node.ctes) {
    ctes_.push_back({&cte, parent_, node.recursive_with && IsRecursiveCte(cte), node.recursive_with});
  }
  Result<BoundQuery> r = node.set_op != sql::SetOpKind::kNone ? BindSetOp(node)
                         : !node.values.empty()               ? BindValues(node)
                                                              : BindSelect(node);
  ctes_.resize(cte_mark);
  return r;
}

namespace {

LogicalOpPtr MakeProjection(int table_index, std::vector<ExprPtr> exprs, LogicalOpPtr child) {
  return std::make_unique<LogicalProjection>(table_index, std::move(exprs), std::move(child));
}

LogicalOpPtr MakeFilter(std::vector<ExprPtr> conjuncts, LogicalOpPtr child) {
  return std::make_unique<LogicalFilter>(std::move(conjuncts), std::move(child));
}

// A bare integer constant names a select-list position (ORDER BY 1, GROUP BY 2).
bool IsPositional(const ParsedExpr& e, int64_t* pos) {
  if (e.kind == ExprKind::kConstant && e.literal == sql::LiteralKind::kInteger) {
    *pos = e.ival;
    return true;
  }
  return false;
}

}  // namespace

Result<int64_t> Binder::BindLimitValue(const ParsedExpr& e, const char* what) {
  ExpressionBinder eb(this, ExpressionBinder::Clause::kLimit);
  QUIVER_ASSIGN_OR_RAISE(ExprPtr x, eb.Bind(e));
  x = ExpressionBinder::ResolveUnknown(std::move(x), int64());
  if (x->type != ExprType::kConstant) {
    return Status::Unsupported("non-constant {}", what).WithPosition(e.location);
  }
  const Value& value = x->As<ConstantExpression>().value;
  if (value.is_null()) return int64_t{-1};  // LIMIT ALL / NULL
  auto v = CastValue(value, int64());
  if (!v.ok()) return v.status().WithPosition(e.location);
  if (v->integer() < 0) {
    // PostgreSQL's codes: invalid_row_count_in_limit_clause (2201W) and
    // invalid_row_count_in_result_offset_clause (2201X).
    return Status::Invalid("{} must not be negative", what)
        .WithSqlState(std::string_view(what) == "LIMIT"
                          ? sqlstate::kInvalidRowCountInLimitClause
                          : sqlstate::kInvalidRowCountInResultOffsetClause)
        .WithPosition(e.location);
  }
  return v->integer();
}

// One SELECT on its way through the clauses, in binding order.
struct Binder::SelectBinding {
  // The select list with `*` and `t.*` expanded.
  struct Target {
    const ParsedExpr* parsed = nullptr;  // null for star-expanded columns
    ExprPtr expanded;                    // star-expanded column reference
    std::string name;
  };
  std::vector<Target> targets;
  // Aggregation: GROUP BY keys and aggregate calls, referenced from above
  // the aggregate as (group_index, i) and (aggregate_index, j).
  bool has_aggregates = false;
  int group_index = -1;
  int aggregate_index = -1;
  std::vector<ExprPtr> groups;
  std::vector<ExprPtr> aggregates;
  // GROUPING SETS / ROLLUP / CUBE: each set as indices into `groups`.
  bool grouping_sets = false;
  std::vector<std::vector<int>> sets;
  // Window function calls (WindowExpressions over the FROM scope, or over
  // the aggregate's output when the query aggregates), referenced as
  // (window_index, k); computed by a LogicalWindow below the select list.
  int window_index = -1;
  std::vector<ExprPtr> windows;
  // The select list's expressions (then hidden ORDER BY columns) and names.
  std::vector<ExprPtr> select_exprs;
  std::vector<std::string> names;
  size_t visible = 0;  // select_exprs past this index are hidden ORDER BY columns
  ExprPtr having;
  struct OrderTarget {
    int column;  // index into select_exprs
    bool descending;
    bool nulls_first;
  };
  std::vector<OrderTarget> order;
  std::vector<int> distinct_on;  // DISTINCT ON keys (indices into select_exprs)
};

namespace {

// Whether `e` calls an aggregate (not inside a subquery: those are its own).
bool ContainsAggregateCall(const ParsedExpr& e) {
  if (e.kind == ExprKind::kFunction && !e.has_window &&
      (FunctionRegistry::Get().HasAggregate(e.name) || e.name == "count" ||
       IsJsonAggregate(e.name))) {
    return true;
  }
  if (e.kind == ExprKind::kSubquery) return false;
  for (const auto& c : e.children) {
    if (c && ContainsAggregateCall(*c)) return true;
  }
  if (e.filter && ContainsAggregateCall(*e.filter)) return true;
  if (e.window) {
    // sum(x) OVER (ORDER BY sum(y)): the window's keys may aggregate too.
    for (const auto& p : e.window->partition_by) {
      if (ContainsAggregateCall(*p)) return true;
    }
    for (const auto& o : e.window->order_by) {
      if (ContainsAggregateCall(*o.expr)) return true;
    }
  }
  if (e.case_arg && ContainsAggregateCall(*e.case_arg)) return true;
  if (e.case_else && ContainsAggregateCall(*e.case_else)) return true;
  return false;
}

// Whether a query whose select-list set-returning functions became FROM
// items aggregates: then they must run after the aggregation
// (SelectNode::aggregated_form).
bool AggregatesBeforeSetFunctions(const SelectNode& node) {
  for (const auto& t : node.targets) {
    if (ContainsAggregateCall(*t)) return true;
  }
  for (const auto& o : node.order_by) {
    if (ContainsAggregateCall(*o.expr)) return true;
  }
  for (const auto& ref : node.from) {
    if (!ref->from_select_list) continue;
    if (ContainsAggregateCall(*ref->function)) return true;
    for (const auto& f : ref->rows_from) {
      if (ContainsAggregateCall(*f)) return true;
    }
  }
  return false;
}

// What is left after sql/transform_select.cc moved the select list's
// set-returning functions after grouping and windows: an aggregate or a
// window function over their rows, which PostgreSQL refuses too.
Status CheckSelectListFunction(const SelectNode& node, bool aggregates, bool windows) {
  for (const auto& ref : node.from) {
    if (ref->from_select_list && (aggregates || windows)) {
      return Status::Unsupported("{} function calls cannot contain set-returning function calls",
                                 aggregates ? "aggregate" : "window")
          .WithPosition(ref->location)
          .WithHint(
              "You might be able to move the set-returning function into a LATERAL FROM item.");
    }
  }
  return Status::OK();
}

}  // namespace

Result<BoundQuery> Binder::BindSelect(const SelectNode& node) {
  if (node.aggregated_form && AggregatesBeforeSetFunctions(node)) {
    return BindSelect(*node.aggregated_form);
  }
  QUIVER_ASSIGN_OR_RAISE(LogicalOpPtr plan, BindFrom(node.from));
  QUIVER_ASSIGN_OR_RAISE(plan, BindWhere(node, std::move(plan)));
  SelectBinding sb;
  QUIVER_RETURN_NOT_OK(ExpandSelectList(node, &sb));
  sb.has_aggregates = HasAggregation(node, sb);
  QUIVER_RETURN_NOT_OK(CheckSelectListFunction(node, sb.has_aggregates, !sb.windows.empty()));
  sb.group_index = state_->NewTableIndex();
  sb.aggregate_index = state_->NewTableIndex();
  sb.window_index = state_->NewTableIndex();
  QUIVER_RETURN_NOT_OK(BindGroupBy(node, &sb));
  GroupingContext grouping{&sb.groups, sb.group_index, &sb.sets};
  grouping_ = sb.has_aggregates ? &grouping : nullptr;
  Status bound = BindSelectList(node, &sb);
  if (bound.ok()) bound = BindHaving(node, &sb);
  if (bound.ok()) bound = BindOrderBy(node, &sb);
  if (bound.ok()) bound = BindDistinctOn(node, &sb);
  grouping_ = nullptr;
  QUIVER_RETURN_NOT_OK(bound);
  QUIVER_RETURN_NOT_OK(CheckSelectListFunction(node, sb.has_aggregates, !sb.windows.empty()));
  if (sb.has_aggregates) {
    // Window functions read group keys and aggregates only.
    for (auto& w : sb.windows) QUIVER_RETURN_NOT_OK(ReferToAggregation(sb, &w, -1));
    QUIVER_ASSIGN_OR_RAISE(plan, PlanAggregation(&sb, std::move(plan)));
  }
  if (!sb.windows.empty()) {
    auto window = std::make_unique<LogicalWindow>(sb.window_index);
    window->expressions = std::move(sb.windows);
    window->children.push_back(std::move(plan));
    plan = std::move(window);
  }
  return PlanSelectOutput(node, &sb, std::move(plan));
}

// WHERE: a filter of its conjuncts (subqueries planned as joins below it).
Result<LogicalOpPtr> Binder::BindWhere(const SelectNode& node, LogicalOpPtr plan) {
  if (!node.where) return plan;
  ExpressionBinder eb(this, ExpressionBinder::Clause::kWhere);
  QUIVER_ASSIGN_OR_RAISE(ExprPtr cond, eb.BindPredicate(*node.where, "WHERE"));
  QUIVER_RETURN_NOT_OK(PlanSubqueries(state_, &cond, &plan));
  std::vector<ExprPtr> conjuncts;
  SplitConjunction(std::move(cond), &conjuncts);
  return MakeFilter(std::move(conjuncts), std::move(plan));
}

// Expands the select list (`*`, `t.*`) into (expression, name, parsed) items.
Status Binder::ExpandSelectList(const SelectNode& node, SelectBinding* sb) {
  for (size_t i = 0; i < node.targets.size(); ++i) {
    const ParsedExpr& t = *node.targets[i];
    if (t.kind == ExprKind::kStar) {
      bool any = false;
      const std::string qualifier = t.names.empty() ? "" : t.names.back();
      bool qualifier_found = qualifier.empty();
      for (const auto& u : using_columns_) {
        if (!qualifier.empty()) break;
        // FULL JOIN USING columns first, as PostgreSQL lists them.
        sb->targets.push_back({nullptr, u.second->Copy(), u.first});
        any = true;
      }
      for (const auto& table : scope_) {
        if (!qualifier.empty() && !IdentifierEquals(table.alias, qualifier)) continue;
        qualifier_found = true;
        if (!table.unreadable.empty()) {
          // `*` means every column: leaving some out would be a silently
          // different answer.
          std::string readable;
          for (size_t c = 0; c < table.names.size(); ++c) {
            readable += (readable.empty() ? "" : ", ") + table.names[c];
          }
          const auto& [name, type] = table.unreadable.front();
          return Status::Unsupported(
                     "column \"{}\" of \"{}\" has type {}, which queries cannot read yet, so * "
                     "cannot list every column; name the columns to read{}",
                     name, table.alias, type,
                     readable.empty() ? std::string(" (this table has none other)") : ": " + readable)
              .WithPosition(t.location);
        }
        for (size_t c = 0; c < table.names.size(); ++c) {
          if (qualifier.empty() && table.hidden[c]) continue;
          sb->targets.push_back({nullptr,
                                 MakeColumnRef(table.bindings[c], table.types[c], table.names[c]),
                                 table.names[c]});
          any = true;
        }
      }
      if (!qualifier_found) {
        return Status::KeyError("missing FROM-clause entry for table \"{}\"", qualifier)
            .WithSqlState(sqlstate::kUndefinedTable)
            .WithPosition(t.location);
      }
      if (!any && qualifier.empty() && node.from.empty()) {
        return Status::Invalid("SELECT * with no tables specified is not valid")
            .WithSqlState(sqlstate::kSyntaxError)
            .WithPosition(t.location);
      }
      continue;
    }
    const std::string& alias =
        i < node.target_aliases.size() ? node.target_aliases[i] : std::string();
    sb->targets.push_back({&t, nullptr, alias.empty() ? t.ToString() : alias});
  }
  return Status::OK();
}

// Whether the query aggregates: GROUP BY, HAVING, or an aggregate call in
// the select list or ORDER BY (not inside a subquery: those are its own).
bool Binder::HasAggregation(const SelectNode& node, const SelectBinding& sb) {
  if (!node.group_by.empty() || node.has_grouping_sets || node.having != nullptr) return true;
  for (const auto& t : sb.targets) {
    if (t.parsed && ContainsAggregateCall(*t.parsed)) return true;
  }
  for (const auto& o : node.order_by) {
    if (ContainsAggregateCall(*o.expr)) return true;
  }
  return false;
}

// GROUP BY: input columns first; else a select-list alias or position.
Status Binder::BindGroupBy(const SelectNode& node, SelectBinding* sb) {
  std::vector<int> key_of;  // node.group_by[i] -> sb->groups index
  for (const auto& g : node.group_by) {
    int64_t pos;
    ExprPtr bound;
    if (IsPositional(*g, &pos)) {
      if (pos < 1 || pos > static_cast<int64_t>(sb->targets.size())) {
        return Status::Invalid("GROUP BY position {} is not in select list", pos)
            .WithSqlState(sqlstate::kInvalidColumnReference)
            .WithPosition(g->location);
      }
      const SelectBinding::Target& t = sb->targets[static_cast<size_t>(pos - 1)];
      if (t.expanded) {
        bound = t.expanded->Copy();
      } else {
        ExpressionBinder eb(this, ExpressionBinder::Clause::kGroupBy);
        QUIVER_ASSIGN_OR_RAISE(bound, eb.Bind(*t.parsed));
      }
    } else {
      ExpressionBinder eb(this, ExpressionBinder::Clause::kGroupBy);
      auto r = eb.Bind(*g);
      if (!r.ok() && g->kind == ExprKind::kColumnRef && g->names.size() == 1) {
        // An output column name.
        for (const auto& t : sb->targets) {
          if (t.name == g->names[0] && t.parsed) {
            ExpressionBinder eb2(this, ExpressionBinder::Clause::kGroupBy);
            r = eb2.Bind(*t.parsed);
            break;
          }
        }
      }
      if (!r.ok()) return r.status();
      bound = std::move(r).ValueOrDie();
    }
    bound = ExpressionBinder::ResolveUnknown(std::move(bound));
    if (bound->HasSubquery())
      return Status::Unsupported("subqueries in GROUP BY").WithPosition(g->location);
    if (bound->alias.empty()) bound->alias = g->ToString();
    int found = -1;
    for (size_t i = 0; i < sb->groups.size() && found < 0; ++i) {
      if (sb->groups[i]->Equals(*bound)) found = static_cast<int>(i);
    }
    if (found < 0) {
      found = static_cast<int>(sb->groups.size());
      sb->groups.push_back(std::move(bound));
    }
    key_of.push_back(found);
  }
  if (node.has_grouping_sets) {
    sb->grouping_sets = true;
    for (const auto& set : node.grouping_sets) {
      std::vector<int> keys;
      for (size_t k : set) keys.push_back(key_of[k]);
      if (node.group_distinct) {
        // GROUP BY DISTINCT drops repeated grouping sets, a set being its
        // keys regardless of order and repetition (PostgreSQL's
        // expand_grouping_sets with groupDistinct); the first one stays.
        // Over a plain list it changes nothing.
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        if (std::find(sb->sets.begin(), sb->sets.end(), keys) != sb->sets.end()) continue;
      }
      sb->sets.push_back(std::move(keys));
    }
  }
  return Status::OK();
}

// In an aggregating query, `*e` (bound above the aggregate) reads group
// keys and aggregates only (`location`: where to point an error).
Status Binder::ReferToAggregation(const SelectBinding& sb, ExprPtr* e, int location) {
  QUIVER_RETURN_NOT_OK(ExpressionBinder::ReplaceGroupKeys(
      e, sb.groups, sb.group_index, sb.aggregate_index, location, sb.window_index));
  RemapCorrelatedToGroups(e->get(), sb.groups, sb.group_index);
  return Status::OK();
}

// The select list (aggregate calls collected into sb->aggregates).
Status Binder::BindSelectList(const SelectNode& node, SelectBinding* sb) {
  for (const auto& t : sb->targets) {
    ExprPtr e;
    if (t.expanded) {
      e = t.expanded->Copy();
    } else {
      ExpressionBinder eb(this, ExpressionBinder::Clause::kSelect);
      if (sb->has_aggregates) eb.EnableAggregates(&sb->aggregates, sb->aggregate_index);
      eb.EnableWindows(&sb->windows, sb->window_index, &node.windows);
      QUIVER_ASSIGN_OR_RAISE(e, eb.Bind(*t.parsed));
    }
    e = ExpressionBinder::ResolveUnknown(std::move(e));
    if (sb->has_aggregates) {
      // A cast the group key stands for (`v::text ... GROUP BY v`) keeps
      // telling CREATE TABLE AS its length.
      const int32_t cast_length = e->cast_length;
      const bool cast_blank_padded = e->cast_blank_padded;
      QUIVER_RETURN_NOT_OK(ReferToAggregation(*sb, &e, t.parsed ? t.parsed->location : -1));
      if (e->cast_length == 0) {
        e->cast_length = cast_length;
        e->cast_blank_padded = cast_blank_padded;
      }
    }
    e->alias = t.name;
    sb->select_exprs.push_back(std::move(e));
    sb->names.push_back(t.name);
  }
  sb->visible = sb->select_exprs.size();
  return Status::OK();
}

Status Binder::BindHaving(const SelectNode& node, SelectBinding* sb) {
  if (!node.having) return Status::OK();
  ExpressionBinder eb(this, ExpressionBinder::Clause::kHaving);
  eb.EnableAggregates(&sb->aggregates, sb->aggregate_index);
  QUIVER_ASSIGN_OR_RAISE(sb->having, eb.BindPredicate(*node.having, "HAVING"));
  return ReferToAggregation(*sb, &sb->having, node.having->location);
}

// ORDER BY items name a select-list entry (by position, output name or an
// equal expression); the others become hidden columns after the visible ones.
Status Binder::BindOrderBy(const SelectNode& node, SelectBinding* sb) {
  for (const auto& o : node.order_by) {
    const bool nulls_first =
        o.nulls == sql::NullsOrder::kDefault ? o.descending : o.nulls == sql::NullsOrder::kFirst;
    QUIVER_ASSIGN_OR_RAISE(int column, BindOutputColumn(node, sb, *o.expr, true));
    sb->order.push_back({column, o.descending, nulls_first});
  }
  return Status::OK();
}

Result<int> Binder::BindOutputColumn(const SelectNode& node, SelectBinding* sb,
                                     const ParsedExpr& expr, bool order_by) {
  const size_t visible = sb->visible;
  auto& select_exprs = sb->select_exprs;
  const auto& names = sb->names;
  const char* clause = order_by ? "ORDER BY" : "SELECT DISTINCT ON";
  int64_t pos;
  int column = -1;
  if (IsPositional(expr, &pos)) {
    if (pos < 1 || pos > static_cast<int64_t>(visible)) {
      return Status::Invalid("{} position {} is not in select list", clause, pos)
          .WithSqlState(sqlstate::kInvalidColumnReference)
          .WithPosition(expr.location);
    }
    column = static_cast<int>(pos - 1);
  } else if (expr.kind == ExprKind::kColumnRef && expr.names.size() == 1) {
    // A bare name matching an output column (SQL-92 rule).
    int hits = 0;
    for (size_t i = 0; i < visible; ++i) {
      if (names[i] == expr.names[0]) {
        if (hits == 0) column = static_cast<int>(i);
        ++hits;
      }
    }
    if (hits > 1) {
      // Ambiguous only when the matches are different expressions.
      bool same = true;
      for (size_t i = 0; i < visible; ++i) {
        if (names[i] == expr.names[0] &&
            !select_exprs[i]->Equals(*select_exprs[static_cast<size_t>(column)])) {
          same = false;
        }
      }
      if (!same) {
        return Status::Invalid("{} \"{}\" is ambiguous", clause, expr.names[0])
            .WithSqlState(sqlstate::kAmbiguousColumn)
            .WithPosition(expr.location);
      }
    }
  }
  if (column < 0) {
    ExpressionBinder eb(this, ExpressionBinder::Clause::kOrderBy);
    if (sb->has_aggregates) eb.EnableAggregates(&sb->aggregates, sb->aggregate_index);
    eb.EnableWindows(&sb->windows, sb->window_index, &node.windows);
    QUIVER_ASSIGN_OR_RAISE(ExprPtr e, eb.Bind(expr));
    e = ExpressionBinder::ResolveUnknown(std::move(e));
    if (sb->has_aggregates) QUIVER_RETURN_NOT_OK(ReferToAggregation(*sb, &e, expr.location));
    for (size_t i = 0; i < select_exprs.size(); ++i) {
      if (select_exprs[i]->Equals(*e)) {
        column = static_cast<int>(i);
        break;
      }
    }
    if (column < 0) {
      if (node.distinct && node.distinct_on.empty()) {
        return Status::Invalid(
                   "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
            .WithSqlState(sqlstate::kInvalidColumnReference)
            .WithPosition(expr.location);
      }
      column = static_cast<int>(select_exprs.size());
      e->alias = expr.ToString();
      select_exprs.push_back(std::move(e));
    }
  }
  // Sorting json's or jsonb's text would not give PostgreSQL's order.
  const DataType& key_type = *select_exprs[static_cast<size_t>(column)]->return_type;
  if (IsJson(key_type)) {
    return Status::Invalid("could not identify an ordering operator for type json")
        .WithSqlState(sqlstate::kUndefinedFunction)
        .WithHint("Use an explicit ordering operator or modify the query.")
        .WithPosition(expr.location);
  }
  if (IsJsonb(key_type)) {
    return Status::Unsupported("{} a jsonb value (jsonb's ordering is not implemented)", clause)
        .WithPosition(expr.location);
  }
  return column;
}

// DISTINCT ON keys, as PostgreSQL's transformDistinctOnClause checks them:
// the ORDER BY items that are keys must come first, and once an ORDER BY
// item that is not a key has passed, every key must already have appeared.
Status Binder::BindDistinctOn(const SelectNode& node, SelectBinding* sb) {
  if (node.distinct_on.empty()) return Status::OK();
  std::vector<int> keys;
  for (const auto& d : node.distinct_on) {
    QUIVER_ASSIGN_OR_RAISE(int column, BindOutputColumn(node, sb, *d, false));
    keys.push_back(column);
  }
  auto is_key = [&](int c) { return std::find(keys.begin(), keys.end(), c) != keys.end(); };
  auto mismatch = [&](int location) {
    return Status::Invalid("SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
        .WithSqlState(sqlstate::kInvalidColumnReference)
        .WithPosition(location);
  };
  auto location_of = [&](int column) {
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == column) return node.distinct_on[i]->location;
    }
    return -1;
  };
  bool skipped = false;
  std::vector<int> ordered;
  for (const auto& o : sb->order) {
    if (is_key(o.column)) {
      if (skipped) return mismatch(location_of(o.column));
      ordered.push_back(o.column);
    } else {
      skipped = true;
    }
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    if (std::find(ordered.begin(), ordered.end(), keys[i]) != ordered.end()) continue;
    if (skipped) return mismatch(node.distinct_on[i]->location);
  }
  sb->distinct_on = std::move(keys);
  return Status::OK();
}

// The aggregate operator over `plan`, and HAVING as a filter above it.
Result<LogicalOpPtr> Binder::PlanAggregation(SelectBinding* sb, LogicalOpPtr plan) {
  for (const auto& a : sb->aggregates) {
    if (a->HasSubquery()) return Status::Unsupported("subqueries inside aggregate arguments");
  }
  auto agg = std::make_unique<LogicalAggregate>(sb->group_index, sb->aggregate_index);
  // GROUPING SETS are aggregated once by all their keys and then rolled up
  // set by set, combining the partial states (the aggregate operator), so
  // the input is read once whatever the number of sets. DISTINCT aggregates
  // cannot be combined from partial states: for them every input row goes
  // into every set (a cross product, below).
  bool distinct = false;
  for (const auto& a : sb->aggregates) distinct |= a->As<AggregateExpression>().distinct;
  if (sb->grouping_sets && !distinct) {
    const auto nkeys = static_cast<int>(sb->groups.size());
    for (size_t i = 0; i < sb->sets.size(); ++i) {
      agg->grouping_sets.push_back(sb->sets[i]);
      if (sb->sets[i].empty()) agg->empty_grouping_sets.push_back(static_cast<int32_t>(i));
    }
    agg->grouping_set_id = nkeys;
    ExprPtr id = MakeConstant(Value::Int32(0));
    id->alias = "grouping set";
    sb->groups.push_back(std::move(id));
  } else if (sb->grouping_sets) {
    // GROUPING SETS: every input row once per set (a cross product with
    // VALUES (0), ..., (n-1)), grouped by the set id and each key, the
    // keys outside the row's set replaced by NULL. The id tells a rolled-up
    // NULL from a NULL in the data, and grouping() reads it.
    const size_t nsets = sb->sets.size();
    auto values = std::make_unique<LogicalValues>();
    values->table_index = state_->NewTableIndex();
    values->types = {int32()};
    for (size_t i = 0; i < nsets; ++i) {
      std::vector<ExprPtr> row;
      row.push_back(MakeConstant(Value::Int32(static_cast<int32_t>(i))));
      values->rows.push_back(std::move(row));
    }
    ExprPtr id = MakeColumnRef({values->table_index, 0}, int32(), "grouping set");
    plan = std::make_unique<LogicalCrossProduct>(std::move(plan), std::move(values));
    for (size_t k = 0; k < sb->groups.size(); ++k) {
      std::vector<ExprPtr> in_sets;
      for (size_t i = 0; i < nsets; ++i) {
        const auto& set = sb->sets[i];
        if (std::find(set.begin(), set.end(), static_cast<int>(k)) != set.end()) {
          in_sets.push_back(MakeConstant(Value::Int32(static_cast<int32_t>(i))));
        }
      }
      if (in_sets.size() == nsets) continue;  // in every set: never rolled up
      ExprPtr& key = sb->groups[k];
      const TypeRef type = key->return_type;
      const std::string alias = key->alias;
      std::vector<ExprPtr> when;
      when.push_back(MakeIn(id->Copy(), std::move(in_sets), false));
      when.push_back(std::move(key));
      when.push_back(MakeConstant(Value::Null(type)));
      key = MakeOperator(ExprType::kCase, type, std::move(when));
      key->alias = alias;
    }
    sb->groups.push_back(std::move(id));
    for (size_t i = 0; i < nsets; ++i) {
      if (sb->sets[i].empty()) agg->empty_grouping_sets.push_back(static_cast<int32_t>(i));
    }
  }
  agg->groups = std::move(sb->groups);
  agg->expressions = std::move(sb->aggregates);
  agg->children.push_back(std::move(plan));
  plan = std::move(agg);
  if (sb->having) {
    QUIVER_RETURN_NOT_OK(PlanSubqueries(state_, &sb->having, &plan));
    std::vector<ExprPtr> conjuncts;
    SplitConjunction(std::move(sb->having), &conjuncts);
    plan = MakeFilter(std::move(conjuncts), std::move(plan));
  }
  return plan;
}

// The select list's projection (subqueries in it planned as joins below),
// then DISTINCT, ORDER BY, LIMIT / OFFSET, and a projection that drops the
// hidden ORDER BY columns again.
Result<BoundQuery> Binder::PlanSelectOutput(const SelectNode& node, SelectBinding* sb,
                                            LogicalOpPtr plan) {
  for (auto& e : sb->select_exprs) {
    if (e->HasSubquery()) {
      std::string alias = e->alias;
      QUIVER_RETURN_NOT_OK(PlanSubqueries(state_, &e, &plan));
      e->alias = alias;
    }
  }
  const size_t visible = sb->visible;
  const int projection_index = state_->NewTableIndex();
  std::vector<TypeRef> types;
  for (size_t i = 0; i < visible; ++i) types.push_back(sb->select_exprs[i]->return_type);
  const size_t total = sb->select_exprs.size();
  std::vector<TypeRef> all_types;
  for (const auto& e : sb->select_exprs) all_types.push_back(e->return_type);
  plan = MakeProjection(projection_index, std::move(sb->select_exprs), std::move(plan));

  auto order_specs = [&]() {
    std::vector<OrderSpec> orders;
    for (const auto& ot : sb->order) {
      orders.push_back(
          {MakeColumnRef({projection_index, ot.column}, all_types[static_cast<size_t>(ot.column)]),
           ot.descending, ot.nulls_first});
    }
    return orders;
  };
  bool extra_columns = false;  // windows added below: the final projection drops them
  if (node.distinct && !sb->distinct_on.empty()) {
    // DISTINCT ON: the first row of each key in ORDER BY order, i.e.
    // row_number() OVER (PARTITION BY keys ORDER BY ...) = 1.
    std::vector<ExprPtr> partitions;
    for (int c : sb->distinct_on) {
      partitions.push_back(MakeColumnRef({projection_index, c}, all_types[static_cast<size_t>(c)]));
    }
    ExprPtr rn = MakeRankingWindow(WindowFunction::kRowNumber, std::move(partitions), order_specs());
    QUIVER_ASSIGN_OR_RAISE(plan, FilterByRank(std::move(plan), state_->NewTableIndex(),
                                              std::move(rn), 1, 1));
    extra_columns = true;
  } else if (node.distinct) {
    auto d = std::make_unique<LogicalDistinct>();
    d->children.push_back(std::move(plan));
    plan = std::move(d);
  }
  if (node.limit_with_ties) {
    QUIVER_ASSIGN_OR_RAISE(plan, BindLimitWithTies(node, order_specs(), std::move(plan)));
    extra_columns = true;
  }
  if (!sb->order.empty()) {
    auto o = std::make_unique<LogicalOrder>();
    o->orders = order_specs();
    o->children.push_back(std::move(plan));
    plan = std::move(o);
  }
  if (!node.limit_with_ties) {
    QUIVER_ASSIGN_OR_RAISE(plan, BindLimit(node, std::move(plan)));
  }
  if (total > visible || extra_columns) {
    // Drop hidden ORDER BY columns.
    std::vector<ExprPtr> keep;
    for (size_t i = 0; i < visible; ++i) {
      keep.push_back(
          MakeColumnRef({projection_index, static_cast<int>(i)}, types[i], sb->names[i]));
    }
    plan = MakeProjection(state_->NewTableIndex(), std::move(keep), std::move(plan));
  }
  BoundQuery q;
  q.plan = std::move(plan);
  q.names = std::move(sb->names);
  q.types = std::move(types);
  return q;
}

// FETCH FIRST n ROWS WITH TIES (after OFFSET o): the rows numbered from
// o + 1 on in `orders`, as far as the peers of row o + n, i.e.
// row_number() > o AND rank() <= o + n. Output: plan's columns, then the
// two window values.
Result<LogicalOpPtr> Binder::BindLimitWithTies(const SelectNode& node, std::vector<OrderSpec> orders,
                                               LogicalOpPtr plan) {
  if (orders.empty()) {
    // The grammar refuses it first; kept for plans built otherwise.
    return Status::Invalid("WITH TIES cannot be specified without ORDER BY clause")
        .WithSqlState(sqlstate::kSyntaxError)
        .WithPosition(node.limit ? node.limit->location : node.location);
  }
  int64_t count = 1;
  if (node.limit) {
    QUIVER_ASSIGN_OR_RAISE(count, BindLimitValue(*node.limit, "LIMIT"));
    if (count < 0) {
      return Status::Invalid("row count cannot be null in FETCH FIRST ... WITH TIES clause")
          .WithSqlState(sqlstate::kInvalidRowCountInLimitClause)
          .WithPosition(node.limit->location);
    }
  }
  int64_t offset = 0;
  if (node.offset) {
    QUIVER_ASSIGN_OR_RAISE(offset, BindLimitValue(*node.offset, "OFFSET"));
    if (offset < 0) offset = 0;
  }
  std::vector<OrderSpec> copy;
  for (const auto& o : orders) copy.push_back(o.Copy());
  const int window_index = state_->NewTableIndex();
  auto w = std::make_unique<LogicalWindow>(window_index);
  w->expressions.push_back(MakeRankingWindow(WindowFunction::kRank, {}, std::move(orders)));
  w->expressions.push_back(MakeRankingWindow(WindowFunction::kRowNumber, {}, std::move(copy)));
  w->children.push_back(std::move(plan));
  std::vector<ExprPtr> conjuncts;
  auto compare = [&](int column, const char* op, int64_t bound) -> Result<ExprPtr> {
    std::vector<ExprPtr> args;
    args.push_back(MakeColumnRef({window_index, column}, int64(), column == 0 ? "rank" : "row_number"));
    args.push_back(MakeConstant(Value::Int64(bound)));
    return BindOperatorCall(op, std::move(args), -1);
  };
  QUIVER_ASSIGN_OR_RAISE(ExprPtr rank_ok, compare(0, "<=", offset + count));
  conjuncts.push_back(std::move(rank_ok));
  if (offset > 0) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr rn_ok, compare(1, ">", offset));
    conjuncts.push_back(std::move(rn_ok));
  }
  return LogicalOpPtr(MakeFilter(std::move(conjuncts), std::move(w)));
}

// LIMIT / OFFSET over `plan` (none: `plan` unchanged).
Result<LogicalOpPtr> Binder::BindLimit(const SelectNode& node, LogicalOpPtr plan) {
  if (!node.limit && !node.offset) return plan;
  auto l = std::make_unique<LogicalLimit>();
  if (node.limit) {
    QUIVER_ASSIGN_OR_RAISE(l->limit, BindLimitValue(*node.limit, "LIMIT"));
  }
  if (node.offset) {
    QUIVER_ASSIGN_OR_RAISE(int64_t off, BindLimitValue(*node.offset, "OFFSET"));
    l->offset = off < 0 ? 0 : off;
  }
  l->children.push_back(std::move(plan));
  return LogicalOpPtr(std::move(l));
}

Result<BoundQuery> Binder::BindValues(const SelectNode& node) {
  auto values = std::make_unique<LogicalValues>();
  values->table_index = state_->NewTableIndex();
  const size_t width = node.values[0].size();
  std::vector<std::vector<ExprPtr>> rows;
  for (const auto& row : node.values) {
    if (row.size() != width) {
      return Status::Invalid("VALUES lists must all be the same length")
          .WithSqlState(sqlstate::kSyntaxError)
          .WithPosition(row.empty() ? node.location : row[0]->location);
    }
  }
  const bool insert_values = values_target_types_.size() == width;
  for (const auto& row : node.values) {
    std::vector<ExprPtr> bound;
    for (const auto& v : row) {
      if (insert_values && values_defaults_ && IsDefaultValue(*v) && node.order_by.empty() &&
          node.limit == nullptr && node.offset == nullptr) {
        // INSERT ... VALUES (1, DEFAULT): the target column's default,
        // already of its type.
        QUIVER_ASSIGN_OR_RAISE(ExprPtr e, values_defaults_(bound.size()));
        bound.push_back(std::move(e));
        continue;
      }
      ExpressionBinder eb(this, ExpressionBinder::Clause::kValues);
      QUIVER_ASSIGN_OR_RAISE(ExprPtr e, eb.Bind(*v));
      if (e->HasSubquery())
        return Status::Unsupported("subqueries in VALUES").WithPosition(v->location);
      bound.push_back(std::move(e));
    }
    rows.push_back(std::move(bound));
  }
  // Per column: the common type of all rows.
  std::vector<TypeRef> types;
  for (size_t c = 0; c < width; ++c) {
    std::vector<ExprPtr> column;
    for (auto& r : rows) column.push_back(std::move(r[c]));
    ExpressionBinder eb(this, ExpressionBinder::Clause::kValues);
    if (insert_values) {
      // INSERT ... VALUES: each value is assigned to the column's type.
      const TypeRef& target = values_target_types_[c];
      for (size_t r = 0; r < rows.size(); ++r) {
        ExprPtr e = std::move(column[r]);
        const DataType& from = *e->return_type;
        const bool assignable = e->unknown_literal || IsAssignable(from, *target);
        if (!assignable) {
          return Status::TypeError("column {} is of type {} but expression is of type {}", c + 1,
                                   PgTypeName(*target), PgTypeName(from))
              .WithSqlState(sqlstate::kDatatypeMismatch)
              .WithPosition(node.values[r][c]->location);
        }
        QUIVER_ASSIGN_OR_RAISE(
            rows[r][c],
            ExpressionBinder::CastTo(std::move(e), target, node.values[r][c]->location, true));
      }
      types.push_back(target);
      continue;
    }
    TypeRef common;
    bool all_unknown = true;
    for (const auto& e : column) {
      // Untyped literals and NULLs take the type the other rows decide.
      if (e->unknown_literal || e->return_type->id == TypeId::kNull) continue;
      all_unknown = false;
      if (!common) {
        common = e->return_type;
      } else {
        auto t = CommonSuperType(common, e->return_type, "VALUES");
        if (!t.ok()) return t.status().WithPosition(node.values[0][c]->location);
        common = *t;
      }
    }
    if (all_unknown || !common) common = utf8();
    for (size_t r = 0; r < rows.size(); ++r) {
      QUIVER_ASSIGN_OR_RAISE(rows[r][c],
                             ExpressionBinder::CastTo(std::move(column[r]), common,
                                                      node.values[r][c]->location, false));
    }
    types.push_back(common);
  }
  values->rows = std::move(rows);
  values->types = types;
  BoundQuery q;
  std::vector<ExprPtr> proj;
  const int vi = values->table_index;
  for (size_t c = 0; c < width; ++c) {
    q.names.push_back("column" + std::to_string(c + 1));
    proj.push_back(MakeColumnRef({vi, static_cast<int>(c)}, types[c], q.names.back()));
  }
  q.types = types;
  q.plan = std::move(values);
  if (!node.order_by.empty() || node.limit || node.offset) {
    std::vector<const ParsedExpr*> none;
    QUIVER_RETURN_NOT_OK(ApplyOrderLimit(node, &q, none));
  }
  return q;
}

Result<BoundQuery> Binder::BindSetOp(const SelectNode& node) {
  Binder left_binder(state_, parent_);
  left_binder.ctes_ = ctes_;
  left_binder.cte_in_progress_ = cte_in_progress_;
  QUIVER_ASSIGN_OR_RAISE(BoundQuery left, left_binder.BindQuery(*node.left));
  Binder right_binder(state_, parent_);
  right_binder.ctes_ = ctes_;
  right_binder.cte_in_progress_ = cte_in_progress_;
  QUIVER_ASSIGN_OR_RAISE(BoundQuery right, right_binder.BindQuery(*node.right));
  for (auto* b : {&left_binder, &right_binder}) {
    for (const auto& c : b->correlated()) {
      if (std::find(correlated_.begin(), correlated_.end(), c) == correlated_.end())
        correlated_.push_back(c);
    }
  }
  const char* what = node.set_op == sql::SetOpKind::kUnion       ? "UNION"
                     : node.set_op == sql::SetOpKind::kIntersect ? "INTERSECT"
                                                                 : "EXCEPT";
  if (left.types.size() != right.types.size()) {
    return Status::Invalid("each {} query must have the same number of columns", what)
        .WithSqlState(sqlstate::kSyntaxError)
        .WithPosition(node.right->location);
  }
  std::vector<TypeRef> types;
  for (size_t i = 0; i < left.types.size(); ++i) {
    auto t = CommonSuperType(left.types[i], right.types[i], what);
    if (!t.ok()) return t.status().WithPosition(node.location);
    TypeRef ty = *t;
    if (ty->id == TypeId::kNull) ty = utf8();
    types.push_back(ty);
  }
  // Cast each side to the common types.
  auto conform = [&](BoundQuery& q) {
    bool same = true;
    for (size_t i = 0; i < types.size(); ++i) same &= q.types[i]->Equals(*types[i]);
    if (same) return std::move(q.plan);
    const auto b = q.plan->GetColumnBindings();
    std::vector<ExprPtr> exprs;
    for (size_t i = 0; i < types.size(); ++i) {
      exprs.push_back(MakeCast(MakeColumnRef(b[i], q.types[i], q.names[i]), types[i]));
    }
    return MakeProjection(state_->NewTableIndex(), std::move(exprs), std::move(q.plan));
  };
  auto op = std::make_unique<LogicalSetOp>(node.set_op == sql::SetOpKind::kUnion ? SetOpType::kUnion
                                           : node.set_op == sql::SetOpKind::kIntersect
                                               ? SetOpType::kIntersect
                                               : SetOpType::kExcept,
                                           node.set_all);
  op->table_index = state_->NewTableIndex();
  op->types = types;
  op->children.push_back(conform(left));
  op->children.push_back(conform(right));
  BoundQuery q;
  q.names = left.names;
  q.types = types;
  q.plan = std::move(op);
  if (!node.order_by.empty() || node.limit || node.offset) {
    std::vector<const ParsedExpr*> none;
    QUIVER_RETURN_NOT_OK(ApplyOrderLimit(node, &q, none));
  }
  return q;
}

// ORDER BY / LIMIT over a finished result (set operations, VALUES): items
// name output columns by position or name.
Status Binder::ApplyOrderLimit(const SelectNode& node, BoundQuery* q,
                               std::vector<const ParsedExpr*> /*select_exprs*/) {
  const auto bindings = q->plan->GetColumnBindings();
  if (!node.order_by.empty()) {
    auto o = std::make_unique<LogicalOrder>();
    for (const auto& item : node.order_by) {
      int64_t pos;
      int column = -1;
      if (IsPositional(*item.expr, &pos)) {
        if (pos < 1 || pos > static_cast<int64_t>(q->names.size())) {
          return Status::Invalid("ORDER BY position {} is not in select list", pos)
              .WithSqlState(sqlstate::kInvalidColumnReference)
              .WithPosition(item.expr->location);
        }
        column = static_cast<int>(pos - 1);
      } else if (item.expr->kind == ExprKind::kColumnRef) {
        for (size_t i = 0; i < q->names.size(); ++i) {
          if (q->names[i] == item.expr->names.back() ||
              IdentifierEquals(q->names[i], item.expr->names.back())) {
            column = static_cast<int>(i);
            break;
          }
        }
      }
      if (column < 0) {
        return Status::Unsupported(
                   "ORDER BY on a UNION/INTERSECT/EXCEPT result must name an output column or "
                   "position")
            .WithPosition(item.expr->location);
      }
      const bool nulls_first = item.nulls == sql::NullsOrder::kDefault
                                   ? item.descending
                                   : item.nulls == sql::NullsOrder::kFirst;
      o->orders.push_back({MakeColumnRef(bindings[static_cast<size_t>(column)],
                                         q->types[static_cast<size_t>(column)],
                                         q->names[static_cast<size_t>(column)]),
                           item.descending, nulls_first});
    }
    if (node.limit_with_ties) {
      // The rows as far as the peers of the last one, then sorted; a
      // projection drops the window values again.
      std::vector<OrderSpec> orders;
      for (const auto& spec : o->orders) orders.push_back(spec.Copy());
      QUIVER_ASSIGN_OR_RAISE(q->plan, BindLimitWithTies(node, std::move(orders), std::move(q->plan)));
    }
    o->children.push_back(std::move(q->plan));
    q->plan = std::move(o);
    if (node.limit_with_ties) {
      std::vector<ExprPtr> keep;
      for (size_t i = 0; i < bindings.size(); ++i) {
        keep.push_back(MakeColumnRef(bindings[i], q->types[i], q->names[i]));
      }
      q->plan = MakeProjection(state_->NewTableIndex(), std::move(keep), std::move(q->plan));
      return Status::OK();
    }
  }
  if (node.limit_with_ties) {
    // The grammar refuses WITH TIES without ORDER BY; kept for plans built otherwise.
    return BindLimitWithTies(node, {}, nullptr).status();
  }
  QUIVER_ASSIGN_OR_RAISE(q->plan, BindLimit(node, std::move(q->plan)));
  return Status::OK();
}

}  // namespace quiver::plan
