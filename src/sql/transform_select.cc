// SELECT statements, FROM items, VALUES and WITH -> SelectNode / TableRef.
#include <algorithm>
#include <functional>

#include "sql/transform_internal.h"

namespace quiver::sql::internal {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

Alias TransformAlias(const pg_query::Alias& a) {
  Alias out;
  out.name = a.aliasname();
  for (const auto& c : a.colnames()) out.columns.push_back(StringOf(c));
  return out;
}

}  // namespace

Result<std::unique_ptr<TableRef>> Transformer::TransformTableRef(const pg_query::Node& node) {
  auto ref = std::make_unique<TableRef>();
  switch (node.node_case()) {
    case pg_query::Node::kRangeVar: {
      const auto& r = node.range_var();
      ref->kind = TableRef::kTable;
      ref->location = r.location();
      ref->schema = r.schemaname();
      if (!r.catalogname().empty()) {
        return UnsupportedAt(r.location(), "cross-database references");
      }
      ref->name = r.relname();
      // PostgreSQL truncates identifiers to 63 bytes; file paths in quoted
      // identifiers are often longer, so read them back from the text.
      const std::string& text = this->text();
      const size_t loc = static_cast<size_t>(std::max(0, r.location()));
      if (ref->name.size() >= 63 && r.schemaname().empty() && loc < text.size() && text[loc] == '"') {
        std::string full;
        for (size_t i = loc + 1; i < text.size(); ++i) {
          if (text[i] == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              full += '"';
              ++i;
              continue;
            }
            break;
          }
          full += text[i];
        }
        ref->name = full;
      }
      if (r.has_alias()) ref->alias = TransformAlias(r.alias());
      return ref;
    }
    case pg_query::Node::kRangeFunction: {
      const auto& f = node.range_function();
      if (f.functions_size() != 1 || f.is_rowsfrom()) {
        return UnsupportedAt(-1, "ROWS FROM with several functions");
      }
      const pg_query::Node& item = f.functions(0);
      const pg_query::Node& call = item.has_list() && item.list().items_size() > 0
                                       ? item.list().items(0)
                                       : item;
      ref->kind = TableRef::kFunction;
      QUIVER_ASSIGN_OR_RAISE(ref->function, TransformExpr(call));
      ref->location = ref->function->location;
      if (f.has_alias()) ref->alias = TransformAlias(f.alias());
      ref->lateral = f.lateral();
      ref->ordinality = f.ordinality();
      return ref;
    }
    case pg_query::Node::kRangeSubselect: {
      const auto& s = node.range_subselect();
      ref->kind = TableRef::kSubquery;
      ref->lateral = s.lateral();
      if (!s.subquery().has_select_stmt()) return UnsupportedAt(-1, "this kind of subquery in FROM");
      QUIVER_ASSIGN_OR_RAISE(ref->subquery, TransformSelect(s.subquery().select_stmt()));
      if (s.has_alias()) ref->alias = TransformAlias(s.alias());
      return ref;
    }
    case pg_query::Node::kJoinExpr: {
      const auto& j = node.join_expr();
      ref->kind = TableRef::kJoin;
      switch (j.jointype()) {
        case pg_query::JOIN_INNER:
          ref->join_kind = (j.has_quals() || j.using_clause_size() || j.is_natural())
                               ? JoinKind::kInner
                               : JoinKind::kCross;
          break;
        case pg_query::JOIN_LEFT:
          ref->join_kind = JoinKind::kLeft;
          break;
        case pg_query::JOIN_RIGHT:
          ref->join_kind = JoinKind::kRight;
          break;
        case pg_query::JOIN_FULL:
          ref->join_kind = JoinKind::kFull;
          break;
        default:
          return UnsupportedAt(-1, "this join type");
      }
      QUIVER_ASSIGN_OR_RAISE(ref->left, TransformTableRef(j.larg()));
      QUIVER_ASSIGN_OR_RAISE(ref->right, TransformTableRef(j.rarg()));
      if (j.has_quals()) {
        QUIVER_ASSIGN_OR_RAISE(ref->condition, TransformExpr(j.quals()));
      }
      for (const auto& u : j.using_clause()) ref->using_columns.push_back(StringOf(u));
      ref->natural = j.is_natural();
      if (j.has_alias()) ref->alias = TransformAlias(j.alias());
      ref->location = ref->left->location;
      return ref;
    }
    default:
      return UnsupportedAt(-1, "this kind of FROM item");
  }
}

Result<OrderItem> Transformer::TransformSortBy(const pg_query::SortBy& sb) {
  if (sb.sortby_dir() == pg_query::SORTBY_USING) {
    return UnsupportedAt(sb.location(), "ORDER BY ... USING");
  }
  OrderItem item;
  QUIVER_ASSIGN_OR_RAISE(item.expr, TransformExpr(sb.node()));
  item.descending = sb.sortby_dir() == pg_query::SORTBY_DESC;
  item.nulls = sb.sortby_nulls() == pg_query::SORTBY_NULLS_FIRST  ? NullsOrder::kFirst
               : sb.sortby_nulls() == pg_query::SORTBY_NULLS_LAST ? NullsOrder::kLast
                                                                  : NullsOrder::kDefault;
  return item;
}

Result<std::shared_ptr<WindowSpec>> Transformer::TransformWindowDef(const pg_query::WindowDef& w) {
  auto spec = std::make_shared<WindowSpec>();
  spec->name = w.name();
  spec->refname = w.refname();
  spec->location = w.location();
  spec->frame_options = w.frame_options();
  for (const auto& p : w.partition_clause()) {
    QUIVER_ASSIGN_OR_RAISE(auto e, TransformExpr(p));
    spec->partition_by.push_back(std::move(e));
  }
  for (const auto& o : w.order_clause()) {
    QUIVER_ASSIGN_OR_RAISE(OrderItem item, TransformSortBy(o.sort_by()));
    spec->order_by.push_back(std::move(item));
  }
  if (w.has_start_offset()) {
    QUIVER_ASSIGN_OR_RAISE(spec->start_offset, TransformExpr(w.start_offset()));
  }
  if (w.has_end_offset()) {
    QUIVER_ASSIGN_OR_RAISE(spec->end_offset, TransformExpr(w.end_offset()));
  }
  return spec;
}

namespace {

using KeySet = std::vector<size_t>;
// PostgreSQL's limit (parse_agg.c).
constexpr size_t kMaxGroupingSets = 4096;

bool IsImplicitRow(const pg_query::Node& n) {
  return n.has_row_expr() && n.row_expr().row_format() == pg_query::COERCE_IMPLICIT_CAST;
}

}  // namespace

// GROUP BY with GROUPING SETS / ROLLUP / CUBE, expanded as PostgreSQL does
// (parse_agg.c expand_grouping_sets): the top-level items multiply (each
// combination of one set per item, concatenated), a GROUPING SETS list
// concatenates its items' sets, ROLLUP(e1..en) gives its n+1 prefixes,
// CUBE its 2^n subsets; `(a, b)` inside them is one element of several
// columns. Duplicate sets are kept (PostgreSQL returns their groups twice).
Status Transformer::TransformGroupingSets(const pg_query::SelectStmt& s, SelectNode* node) {
  node->has_grouping_sets = true;
  // Every occurrence is its own item; the binder maps equal expressions to
  // one group key (ToString is only the output name: `a + 1` and `b * 2`
  // are both "?column?", so it cannot tell keys apart).
  auto key_index = [&](const pg_query::Node& n) -> Result<size_t> {
    QUIVER_ASSIGN_OR_RAISE(auto e, TransformExpr(n));
    node->group_by.push_back(std::move(e));
    return node->group_by.size() - 1;
  };
  // One element of ROLLUP / CUBE / a simple set: its columns.
  auto columns_of = [&](const pg_query::Node& n, KeySet* out) -> Status {
    if (IsImplicitRow(n)) {
      for (const auto& a : n.row_expr().args()) {
        QUIVER_ASSIGN_OR_RAISE(size_t k, key_index(a));
        out->push_back(k);
      }
      return Status::OK();
    }
    if (n.has_grouping_set()) {
      return UnsupportedAt(n.grouping_set().location(),
                           "nested GROUPING SETS / ROLLUP / CUBE inside ROLLUP or CUBE");
    }
    QUIVER_ASSIGN_OR_RAISE(size_t k, key_index(n));
    out->push_back(k);
    return Status::OK();
  };
  auto too_many = [&]() {
    return Status::Invalid("too many grouping sets present (maximum {})", kMaxGroupingSets);
  };
  std::function<Status(const pg_query::Node&, bool, std::vector<KeySet>*)> sets_of =
      [&](const pg_query::Node& n, bool top, std::vector<KeySet>* out) -> Status {
    if (!n.has_grouping_set()) {
      KeySet one;
      if (!top && IsImplicitRow(n)) {
        QUIVER_RETURN_NOT_OK(columns_of(n, &one));
      } else {
        QUIVER_ASSIGN_OR_RAISE(size_t k, key_index(n));
        one.push_back(k);
      }
      out->push_back(std::move(one));
      return Status::OK();
    }
    const auto& g = n.grouping_set();
    switch (g.kind()) {
      case pg_query::GROUPING_SET_EMPTY:
        out->emplace_back();
        return Status::OK();
      case pg_query::GROUPING_SET_SIMPLE: {
        KeySet one;
        for (const auto& c : g.content()) QUIVER_RETURN_NOT_OK(columns_of(c, &one));
        out->push_back(std::move(one));
        return Status::OK();
      }
      case pg_query::GROUPING_SET_ROLLUP:
      case pg_query::GROUPING_SET_CUBE: {
        std::vector<KeySet> elems;
        for (const auto& c : g.content()) {
          KeySet e;
          QUIVER_RETURN_NOT_OK(columns_of(c, &e));
          elems.push_back(std::move(e));
        }
        const size_t n_el = elems.size();
        if (g.kind() == pg_query::GROUPING_SET_ROLLUP) {
          for (size_t k = n_el + 1; k-- > 0;) {
            KeySet one;
            for (size_t i = 0; i < k; ++i) one.insert(one.end(), elems[i].begin(), elems[i].end());
            out->push_back(std::move(one));
          }
          return Status::OK();
        }
        if (n_el >= 13) return too_many();
        // Subsets from the full set down to the empty one.
        const size_t full = (size_t{1} << n_el) - 1;
        for (size_t m = full + 1; m-- > 0;) {
          KeySet one;
          for (size_t i = 0; i < n_el; ++i) {
            if (m & (size_t{1} << (n_el - 1 - i))) {
              one.insert(one.end(), elems[i].begin(), elems[i].end());
            }
          }
          out->push_back(std::move(one));
        }
        return Status::OK();
      }
      case pg_query::GROUPING_SET_SETS:
        for (const auto& c : g.content()) {
          QUIVER_RETURN_NOT_OK(sets_of(c, false, out));
          if (out->size() > kMaxGroupingSets) return too_many();
        }
        return Status::OK();
      default:
        return UnsupportedAt(g.location(), "this kind of grouping set");
    }
  };
  std::vector<KeySet> result(1);
  for (const auto& item : s.group_clause()) {
    std::vector<KeySet> sets;
    QUIVER_RETURN_NOT_OK(sets_of(item, true, &sets));
    if (sets.empty()) continue;
    if (result.size() * sets.size() > kMaxGroupingSets) return too_many();
    std::vector<KeySet> next;
    for (const auto& a : result) {
      for (const auto& b : sets) {
        KeySet c = a;
        c.insert(c.end(), b.begin(), b.end());
        next.push_back(std::move(c));
      }
    }
    result = std::move(next);
  }
  node->grouping_sets = std::move(result);
  return Status::OK();
}

namespace {

// Set-returning functions that may be called in the select list: those whose
// FROM form reads columns of the FROM items on its left (LATERAL).
bool IsSelectListSetFunction(const ParsedExpr& e) {
  return e.kind == ExprKind::kFunction && !e.has_window &&
         (e.name == "generate_series" || e.name == "unnest" || e.name == "regexp_matches" ||
          e.name == "regexp_split_to_table");
}

// Finds the set-returning calls in `e` (not inside subqueries, which are
// their own queries); `conditional` tells whether a CASE or COALESCE lies
// between `e` and the call.
void FindSetFunctions(ExprPtr* e, bool conditional, std::vector<std::pair<ExprPtr*, bool>>* found) {
  if (*e == nullptr || (*e)->kind == ExprKind::kSubquery) return;
  if (IsSelectListSetFunction(**e)) {
    found->emplace_back(e, conditional);
    return;
  }
  const bool cond = conditional || (*e)->kind == ExprKind::kCase || (*e)->kind == ExprKind::kCoalesce;
  for (auto& c : (*e)->children) FindSetFunctions(&c, cond, found);
  FindSetFunctions(&(*e)->case_arg, cond, found);
  FindSetFunctions(&(*e)->case_else, cond, found);
}

}  // namespace

// PostgreSQL runs a set-returning function of the select list once per row
// of the FROM clause and repeats the row's other values beside each of its
// values. With one such call and no grouping that is a LATERAL join of the
// function as the last FROM item:
//   SELECT a, generate_series(1, a) FROM t  ==  SELECT a, s FROM t, LATERAL generate_series(1, a) s
// (rows for which it returns nothing drop out in both). Several calls run in
// lock-step in PostgreSQL, and grouping, DISTINCT and windows apply before
// them: those are refused here or by the binder (`from_select_list`), never
// answered differently.
Status RewriteSelectListFunction(SelectNode* node) {
  std::vector<std::pair<ExprPtr*, bool>> found;
  for (auto& t : node->targets) FindSetFunctions(&t, false, &found);
  if (found.empty()) return Status::OK();
  ParsedExpr& call = **found.front().first;
  const int location = call.location;
  if (found.front().second) {
    return Status::Unsupported("set-returning functions are not allowed in CASE or COALESCE")
        .WithPosition(location)
        .WithHint("You might be able to move the set-returning function into a LATERAL FROM item.");
  }
  if (found.size() > 1) {
    return Status::Unsupported("more than one set-returning function in the select list")
        .WithPosition((*found[1].first)->location)
        .WithHint("Call them in FROM: SELECT ... FROM t, LATERAL generate_series(...) AS a, ...");
  }
  for (auto& c : call.children) {
    std::vector<std::pair<ExprPtr*, bool>> nested;
    FindSetFunctions(&c, false, &nested);
    if (!nested.empty()) {
      return Status::Unsupported("a set-returning function in the arguments of another")
          .WithPosition((*nested.front().first)->location);
    }
  }
  if (node->distinct || !node->group_by.empty() || node->has_grouping_sets || node->having ||
      !node->windows.empty()) {
    return Status::Unsupported(
               "a set-returning function in the select list of a query with GROUP BY, HAVING, "
               "DISTINCT or WINDOW")
        .WithPosition(location)
        .WithHint("Call it in FROM over a subquery: SELECT ... FROM (SELECT ... GROUP BY ...) q, "
                  "LATERAL generate_series(...) AS s");
  }
  auto ref = std::make_unique<TableRef>();
  ref->kind = TableRef::kFunction;
  ref->location = location;
  ref->lateral = true;
  ref->from_select_list = true;
  ref->alias.name = "?select list function?";
  ref->alias.columns.push_back(call.name);
  auto column = std::make_unique<ParsedExpr>(ExprKind::kColumnRef, location);
  column->names = {ref->alias.name, call.name};
  ref->function = std::move(*found.front().first);
  *found.front().first = std::move(column);
  node->from.push_back(std::move(ref));
  return Status::OK();
}

Result<std::shared_ptr<SelectNode>> Transformer::TransformSelect(const pg_query::SelectStmt& s) {
  auto node = std::make_shared<SelectNode>();
  if (s.has_into_clause()) return UnsupportedAt(-1, "SELECT INTO (use CREATE TABLE AS)");
  if (s.locking_clause_size() > 0) return UnsupportedAt(-1, "FOR UPDATE/SHARE");
  node->limit_with_ties = s.limit_option() == pg_query::LIMIT_OPTION_WITH_TIES;
  if (s.has_with_clause()) {
    const auto& w = s.with_clause();
    node->recursive_with = w.recursive();
    for (const auto& c : w.ctes()) {
      const auto& cte = c.common_table_expr();
      CommonTableExpr out;
      out.name = cte.ctename();
      out.location = cte.location();
      for (const auto& col : cte.aliascolnames()) out.columns.push_back(StringOf(col));
      // SEARCH / CYCLE add columns computed over arrays of rows: never ignored.
      if (cte.has_search_clause()) {
        return UnsupportedAt(cte.search_clause().location(), "SEARCH in WITH RECURSIVE");
      }
      if (cte.has_cycle_clause()) {
        return UnsupportedAt(cte.cycle_clause().location(), "CYCLE in WITH RECURSIVE");
      }
      if (!cte.ctequery().has_select_stmt()) {
        return UnsupportedAt(cte.location(), "data-modifying statements in WITH");
      }
      QUIVER_ASSIGN_OR_RAISE(out.query, TransformSelect(cte.ctequery().select_stmt()));
      node->ctes.push_back(std::move(out));
    }
  }
  if (s.op() != pg_query::SETOP_NONE && s.op() != pg_query::SET_OPERATION_UNDEFINED) {
    node->set_op = s.op() == pg_query::SETOP_UNION       ? SetOpKind::kUnion
                   : s.op() == pg_query::SETOP_INTERSECT ? SetOpKind::kIntersect
                                                         : SetOpKind::kExcept;
    node->set_all = s.all();
    QUIVER_ASSIGN_OR_RAISE(node->left, TransformSelect(s.larg()));
    QUIVER_ASSIGN_OR_RAISE(node->right, TransformSelect(s.rarg()));
  } else if (s.values_lists_size() > 0) {
    for (const auto& row : s.values_lists()) {
      std::vector<ExprPtr> values;
      for (const auto& v : row.list().items()) {
        QUIVER_ASSIGN_OR_RAISE(auto e, TransformExpr(v));
        values.push_back(std::move(e));
      }
      node->values.push_back(std::move(values));
    }
  } else {
    if (s.distinct_clause_size() > 0) {
      node->distinct = true;
      for (const auto& d : s.distinct_clause()) {
        if (d.node_case() == pg_query::Node::NODE_NOT_SET) continue;  // plain DISTINCT
        QUIVER_ASSIGN_OR_RAISE(auto e, TransformExpr(d));
        node->distinct_on.push_back(std::move(e));
      }
    }
    for (const auto& t : s.target_list()) {
      const auto& r = t.res_target();
      if (r.indirection_size() > 0) return UnsupportedAt(r.location(), "target indirection");
      QUIVER_ASSIGN_OR_RAISE(auto e, TransformExpr(r.val()));
      node->targets.push_back(std::move(e));
      node->target_aliases.push_back(r.name());
    }
    for (const auto& f : s.from_clause()) {
      QUIVER_ASSIGN_OR_RAISE(auto ref, TransformTableRef(f));
      node->from.push_back(std::move(ref));
    }
    if (s.has_where_clause()) {
      QUIVER_ASSIGN_OR_RAISE(node->where, TransformExpr(s.where_clause()));
    }
    bool sets = false;
    for (const auto& g : s.group_clause()) sets |= g.has_grouping_set();
    if (sets) {
      QUIVER_RETURN_NOT_OK(TransformGroupingSets(s, node.get()));
    } else {
      for (const auto& g : s.group_clause()) {
        QUIVER_ASSIGN_OR_RAISE(auto e, TransformExpr(g));
        node->group_by.push_back(std::move(e));
      }
    }
    node->group_distinct = s.group_distinct();
    if (s.has_having_clause()) {
      QUIVER_ASSIGN_OR_RAISE(node->having, TransformExpr(s.having_clause()));
    }
  }
  for (const auto& w : s.window_clause()) {
    QUIVER_ASSIGN_OR_RAISE(auto spec, TransformWindowDef(w.window_def()));
    node->windows.push_back(std::move(spec));
  }
  if (node->set_op == SetOpKind::kNone && node->values.empty()) {
    QUIVER_RETURN_NOT_OK(RewriteSelectListFunction(node.get()));
  }
  for (const auto& o : s.sort_clause()) {
    QUIVER_ASSIGN_OR_RAISE(OrderItem item, TransformSortBy(o.sort_by()));
    node->order_by.push_back(std::move(item));
  }
  if (s.has_limit_count()) {
    // LIMIT ALL is a NULL constant.
    QUIVER_ASSIGN_OR_RAISE(node->limit, TransformExpr(s.limit_count()));
  }
  if (s.has_limit_offset()) {
    QUIVER_ASSIGN_OR_RAISE(node->offset, TransformExpr(s.limit_offset()));
  }
  (void)Lower;
  return node;
}

}  // namespace quiver::sql::internal
