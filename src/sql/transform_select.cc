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
      // f(...) or ROWS FROM (f(...), g(...)): each item is a list of the
      // call and its column definition list.
      const auto& f = node.range_function();
      ref->kind = TableRef::kFunction;
      for (const auto& item : f.functions()) {
        const bool listed = item.has_list() && item.list().items_size() > 0;
        const pg_query::Node& call = listed ? item.list().items(0) : item;
        if (listed && item.list().items_size() > 1 && item.list().items(1).has_list() &&
            item.list().items(1).list().items_size() > 0) {
          return UnsupportedAt(-1, "column definition lists in ROWS FROM");
        }
        QUIVER_ASSIGN_OR_RAISE(auto e, TransformExpr(call));
        if (ref->function == nullptr) {
          ref->function = std::move(e);
        } else {
          ref->rows_from.push_back(std::move(e));
        }
      }
      if (ref->function == nullptr) return UnsupportedAt(-1, "an empty ROWS FROM");
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

// Whether `e` calls a set-returning function (not inside a subquery, which
// is its own query, nor in an aggregate's FILTER or ORDER BY or a window's
// keys, where the binder refuses it).
bool HasSetFunction(const ParsedExpr* e) {
  if (e == nullptr || e->kind == ExprKind::kSubquery) return false;
  if (IsSelectListSetFunction(*e)) return true;
  for (const auto& c : e->children) {
    if (HasSetFunction(c.get())) return true;
  }
  return HasSetFunction(e->case_arg.get()) || HasSetFunction(e->case_else.get());
}

ExprPtr MakeColumn(const std::string& table, const std::string& column, int location) {
  auto c = std::make_unique<ParsedExpr>(ExprKind::kColumnRef, location);
  c->names = {table, column};
  return c;
}

bool SameExprs(const std::vector<ExprPtr>& a, const std::vector<ExprPtr>& b);

// Structural equality of two expressions as written (PostgreSQL matches an
// ORDER BY expression to the select list's the same way). Subqueries and
// window calls never match.
bool SameExpr(const ParsedExpr* a, const ParsedExpr* b) {
  if (a == nullptr || b == nullptr) return a == b;
  if (a->kind != b->kind || a->kind == ExprKind::kSubquery || a->has_window || b->has_window ||
      a->names != b->names || a->name != b->name || a->arg_names != b->arg_names ||
      a->literal != b->literal || a->text != b->text || a->ival != b->ival || a->bval != b->bval ||
      a->param_index != b->param_index || a->type_name.name != b->type_name.name ||
      a->type_name.modifiers != b->type_name.modifiers ||
      a->type_name.is_array != b->type_name.is_array || a->negated != b->negated ||
      a->distinct != b->distinct || a->star != b->star || a->symmetric != b->symmetric ||
      a->within_group != b->within_group || a->agg_order.size() != b->agg_order.size()) {
    return false;
  }
  for (size_t i = 0; i < a->agg_order.size(); ++i) {
    if (!SameExpr(a->agg_order[i].expr.get(), b->agg_order[i].expr.get()) ||
        a->agg_order[i].descending != b->agg_order[i].descending ||
        a->agg_order[i].nulls_first != b->agg_order[i].nulls_first) {
      return false;
    }
  }
  return SameExprs(a->children, b->children) && SameExpr(a->filter.get(), b->filter.get()) &&
         SameExpr(a->case_arg.get(), b->case_arg.get()) &&
         SameExpr(a->case_else.get(), b->case_else.get());
}

bool SameExprs(const std::vector<ExprPtr>& a, const std::vector<ExprPtr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameExpr(a[i].get(), b[i].get())) return false;
  }
  return true;
}

std::unique_ptr<TableRef> CloneTableRef(const TableRef& r) {
  auto c = std::make_unique<TableRef>();
  c->kind = r.kind;
  c->location = r.location;
  c->alias = r.alias;
  c->schema = r.schema;
  c->name = r.name;
  if (r.function) c->function = CloneExpr(*r.function);
  for (const auto& f : r.rows_from) c->rows_from.push_back(CloneExpr(*f));
  c->ordinality = r.ordinality;
  c->from_select_list = r.from_select_list;
  c->subquery = r.subquery;
  c->lateral = r.lateral;
  c->join_kind = r.join_kind;
  if (r.left) c->left = CloneTableRef(*r.left);
  if (r.right) c->right = CloneTableRef(*r.right);
  if (r.condition) c->condition = CloneExpr(*r.condition);
  c->using_columns = r.using_columns;
  c->natural = r.natural;
  return c;
}

// A copy of a plain SELECT without DISTINCT, grouping or windows (what
// `aggregated_form` starts from); its WITH list stays with the original.
std::shared_ptr<SelectNode> ClonePlainSelect(const SelectNode& n) {
  auto c = std::make_shared<SelectNode>();
  for (const auto& t : n.targets) c->targets.push_back(CloneExpr(*t));
  c->target_aliases = n.target_aliases;
  for (const auto& f : n.from) c->from.push_back(CloneTableRef(*f));
  if (n.where) c->where = CloneExpr(*n.where);
  for (const auto& o : n.order_by)
    c->order_by.push_back({CloneExpr(*o.expr), o.descending, o.nulls});
  if (n.limit) c->limit = CloneExpr(*n.limit);
  if (n.offset) c->offset = CloneExpr(*n.offset);
  c->limit_with_ties = n.limit_with_ties;
  c->location = n.location;
  return c;
}

// The select list's names as PostgreSQL derives them, made explicit: the
// rewrites below replace the expressions they derive from.
void NameTargets(SelectNode* node) {
  node->target_aliases.resize(node->targets.size());
  for (size_t i = 0; i < node->targets.size(); ++i) {
    if (node->target_aliases[i].empty() && node->targets[i]->kind != ExprKind::kStar) {
      node->target_aliases[i] = node->targets[i]->ToString();
    }
  }
}

// ORDER BY (and DISTINCT ON) items that call a set-returning function name
// the select list's item they equal, by position, as PostgreSQL matches
// them; one equal to none is refused (PostgreSQL would add the call to the
// select list, changing the row count).
Status MatchSetFunctionOrder(const std::vector<ExprPtr>& original_targets, ExprPtr* e) {
  if (!HasSetFunction(e->get())) return Status::OK();
  for (size_t i = 0; i < original_targets.size(); ++i) {
    if (SameExpr(original_targets[i].get(), e->get())) {
      auto pos = std::make_unique<ParsedExpr>(ExprKind::kConstant, (*e)->location);
      pos->literal = LiteralKind::kInteger;
      pos->ival = static_cast<int64_t>(i + 1);
      pos->text = std::to_string(i + 1);
      *e = std::move(pos);
      return Status::OK();
    }
  }
  return Status::Unsupported(
             "a set-returning function in ORDER BY or DISTINCT ON that is not in the select list")
      .WithPosition((*e)->location);
}

constexpr const char* kGroupedAlias = "?select list input?";

// PostgreSQL evaluates the select list's set-returning functions after
// grouping, aggregates, HAVING and windows and before DISTINCT, ORDER BY
// and LIMIT. So such a query is split in two:
//   SELECT k, unnest(array_agg(v)) FROM t GROUP BY k ORDER BY count(*)
//   == SELECT "?c1", unnest("?c3") FROM (SELECT k, NULL, array_agg(v), count(*)
//      FROM t GROUP BY k) AS "?select list input?"("?c1", "?c2", "?c3", "?c4") ORDER BY "?c4"
// The inner query keeps FROM, WHERE, GROUP BY, HAVING and WINDOW, and
// computes the select list's items without set-returning calls (a NULL in
// the place of the others, so that GROUP BY 1 keeps its meaning) and every
// part of the others that calls none, and the ORDER BY / DISTINCT ON
// items; the outer one applies the calls (then moved into FROM by
// MoveSetFunctionsToFrom), DISTINCT, ORDER BY and LIMIT.
Status SplitAtSetFunctions(SelectNode* node) {
  for (const auto& t : node->targets) {
    if (t->kind == ExprKind::kStar) {
      return Status::Unsupported(
                 "* in the select list of a query with set-returning functions and GROUP BY, "
                 "aggregates, DISTINCT or windows")
          .WithPosition(t->location)
          .WithHint("Name the columns.");
    }
  }
  std::vector<bool> calls(node->targets.size());
  for (size_t i = 0; i < node->targets.size(); ++i)
    calls[i] = HasSetFunction(node->targets[i].get());
  for (const auto& g : node->group_by) {
    if (g->kind == ExprKind::kConstant && g->literal == LiteralKind::kInteger && g->ival >= 1 &&
        static_cast<size_t>(g->ival) <= calls.size() && calls[static_cast<size_t>(g->ival - 1)]) {
      return Status::Unsupported("set-returning functions are not allowed in GROUP BY")
          .WithPosition(g->location);
    }
  }
  std::vector<ExprPtr> original;
  for (const auto& t : node->targets) original.push_back(CloneExpr(*t));
  NameTargets(node);

  auto inner = std::make_shared<SelectNode>();
  inner->location = node->location;
  inner->from = std::move(node->from);
  inner->where = std::move(node->where);
  inner->group_by = std::move(node->group_by);
  inner->has_grouping_sets = node->has_grouping_sets;
  inner->group_distinct = node->group_distinct;
  inner->grouping_sets = std::move(node->grouping_sets);
  inner->having = std::move(node->having);
  inner->windows = std::move(node->windows);
  node->from.clear();
  node->group_by.clear();
  node->has_grouping_sets = false;
  node->group_distinct = false;
  node->grouping_sets.clear();
  node->windows.clear();

  auto ref = std::make_unique<TableRef>();
  ref->kind = TableRef::kSubquery;
  ref->location = node->location;
  ref->alias.name = kGroupedAlias;
  // Adds `e` to the inner select list (once: an equal item is reused) and
  // names its column.
  auto add = [&](ExprPtr e, const std::string& alias) -> ExprPtr {
    const int location = e->location;
    size_t k = inner->targets.size();
    if (alias.empty()) {
      for (size_t i = 0; i < inner->targets.size(); ++i) {
        if (!(i < calls.size() && calls[i]) && SameExpr(inner->targets[i].get(), e.get())) k = i;
      }
    }
    if (k == inner->targets.size()) {
      inner->targets.push_back(std::move(e));
      inner->target_aliases.push_back(alias);
      ref->alias.columns.push_back("?c" + std::to_string(k + 1) + "?");
    }
    return MakeColumn(kGroupedAlias, ref->alias.columns[k], location);
  };
  // The parts of a select-list item that call no set-returning function
  // move to the inner query (constants stay: an untyped literal keeps its
  // type open).
  std::function<void(ExprPtr*)> skeleton = [&](ExprPtr* e) {
    if (*e == nullptr) return;
    if (!HasSetFunction(e->get())) {
      if ((*e)->kind != ExprKind::kConstant) *e = add(std::move(*e), "");
      return;
    }
    for (auto& c : (*e)->children) skeleton(&c);
    skeleton(&(*e)->case_arg);
    skeleton(&(*e)->case_else);
  };
  for (size_t i = 0; i < node->targets.size(); ++i) {
    if (calls[i]) {
      auto placeholder =
          std::make_unique<ParsedExpr>(ExprKind::kConstant, node->targets[i]->location);
      placeholder->literal = LiteralKind::kNull;
      add(std::move(placeholder), "?set-returning?");
    } else {
      node->targets[i] = add(std::move(node->targets[i]), node->target_aliases[i]);
    }
  }
  for (size_t i = 0; i < node->targets.size(); ++i) {
    if (calls[i]) skeleton(&node->targets[i]);
  }
  // ORDER BY / DISTINCT ON: a position or an output name stays; an item
  // equal to a select-list item reads its column; any other is computed by
  // the inner query.
  auto order_key = [&](ExprPtr* e) -> Status {
    const ParsedExpr& x = **e;
    if (x.kind == ExprKind::kConstant && x.literal == LiteralKind::kInteger) return Status::OK();
    if (x.kind == ExprKind::kColumnRef && x.names.size() == 1) {
      for (const auto& a : node->target_aliases) {
        if (a == x.names[0]) return Status::OK();
      }
    }
    QUIVER_RETURN_NOT_OK(MatchSetFunctionOrder(original, e));
    if ((*e)->kind == ExprKind::kConstant) return Status::OK();
    for (size_t i = 0; i < original.size(); ++i) {
      if (!calls[i] && SameExpr(original[i].get(), e->get())) {
        *e = MakeColumn(kGroupedAlias, ref->alias.columns[i], (*e)->location);
        return Status::OK();
      }
    }
    *e = add(std::move(*e), "");
    return Status::OK();
  };
  for (auto& o : node->order_by) QUIVER_RETURN_NOT_OK(order_key(&o.expr));
  for (auto& d : node->distinct_on) QUIVER_RETURN_NOT_OK(order_key(&d));
  ref->subquery = std::move(inner);
  node->from.push_back(std::move(ref));
  return Status::OK();
}

// Replaces each set-returning call under `*e` by the column of its FROM
// item; returns the call's level (0: none).
class SetFunctionMover {
 public:
  // The calls of each level (levels[level - 1]), with their columns' names.
  std::vector<std::vector<std::pair<ExprPtr, std::string>>> levels;

  static std::string Alias(size_t level) {
    return "?select list functions " + std::to_string(level) + "?";
  }

  Result<size_t> Move(ExprPtr* e, bool conditional) {
    if (*e == nullptr || (*e)->kind == ExprKind::kSubquery) return size_t{0};
    if (IsSelectListSetFunction(**e)) {
      if (conditional) {
        return Status::Unsupported("set-returning functions are not allowed in CASE or COALESCE")
            .WithPosition((*e)->location)
            .WithHint(
                "You might be able to move the set-returning function into a LATERAL FROM item.");
      }
      // A call in another's arguments runs first, at a lower level
      // (PostgreSQL's nested ProjectSet nodes).
      size_t level = 0;
      for (auto& c : (*e)->children) {
        QUIVER_ASSIGN_OR_RAISE(size_t l, Move(&c, false));
        level = std::max(level, l);
      }
      ++level;
      if (levels.size() < level) levels.resize(level);
      const std::string column = (*e)->name + " " + std::to_string(++count_);
      const int location = (*e)->location;
      levels[level - 1].emplace_back(std::move(*e), column);
      *e = MakeColumn(Alias(level), column, location);
      return level;
    }
    const bool cond =
        conditional || (*e)->kind == ExprKind::kCase || (*e)->kind == ExprKind::kCoalesce;
    size_t level = 0;
    for (auto& c : (*e)->children) {
      QUIVER_ASSIGN_OR_RAISE(size_t l, Move(&c, cond));
      level = std::max(level, l);
    }
    QUIVER_ASSIGN_OR_RAISE(size_t a, Move(&(*e)->case_arg, cond));
    QUIVER_ASSIGN_OR_RAISE(size_t b, Move(&(*e)->case_else, cond));
    return std::max({level, a, b});
  }

 private:
  int count_ = 0;
};

// PostgreSQL runs the set-returning functions of the select list once per
// row of the FROM clause (after grouping: SplitAtSetFunctions) and repeats
// the row's other values beside their rows. The calls of one level run in
// lock-step, the row giving as many rows as the longest, the shorter ones
// padded with NULLs; a call in another's arguments runs first, one level
// down. Each level is one LATERAL FROM item of several calls (a ROWS FROM):
//   SELECT a, generate_series(1, a), unnest(b) FROM t
//   == SELECT a, s.g, s.u FROM t, LATERAL ROWS FROM (generate_series(1, a), unnest(b)) s(g, u)
// (a row for which every call returns nothing drops out in both).
Status MoveSetFunctionsToFrom(SelectNode* node) {
  NameTargets(node);
  std::vector<ExprPtr> original;
  for (const auto& t : node->targets) original.push_back(CloneExpr(*t));
  SetFunctionMover mover;
  for (auto& t : node->targets) QUIVER_RETURN_NOT_OK(mover.Move(&t, false).status());
  for (auto& o : node->order_by) QUIVER_RETURN_NOT_OK(MatchSetFunctionOrder(original, &o.expr));
  for (auto& d : node->distinct_on) QUIVER_RETURN_NOT_OK(MatchSetFunctionOrder(original, &d));
  for (size_t level = 1; level <= mover.levels.size(); ++level) {
    auto& calls = mover.levels[level - 1];
    auto ref = std::make_unique<TableRef>();
    ref->kind = TableRef::kFunction;
    ref->location = calls.front().first->location;
    ref->lateral = true;
    ref->from_select_list = true;
    ref->alias.name = SetFunctionMover::Alias(level);
    for (auto& [call, column] : calls) {
      ref->alias.columns.push_back(column);
      if (ref->function == nullptr) {
        ref->function = std::move(call);
      } else {
        ref->rows_from.push_back(std::move(call));
      }
    }
    node->from.push_back(std::move(ref));
  }
  return Status::OK();
}

bool HasWindowCall(const ParsedExpr* e) {
  if (e == nullptr || e->kind == ExprKind::kSubquery) return false;
  if (e->has_window) return true;
  for (const auto& c : e->children) {
    if (HasWindowCall(c.get())) return true;
  }
  return HasWindowCall(e->case_arg.get()) || HasWindowCall(e->case_else.get());
}

}  // namespace

// Set-returning functions in the select list (see the two rewrites above).
// Whether the query aggregates without GROUP BY or HAVING (`SELECT
// unnest(array_agg(v)) FROM t`) takes the function registry, which the
// parser does not know: such a query gets both forms, the binder picks.
Status RewriteSelectListFunctions(SelectNode* node) {
  bool any = false;
  for (const auto& t : node->targets) any |= HasSetFunction(t.get());
  if (!any) return Status::OK();
  bool grouped = node->distinct || !node->group_by.empty() || node->has_grouping_sets ||
                 node->having || !node->windows.empty();
  for (const auto& t : node->targets) grouped |= HasWindowCall(t.get());
  for (const auto& o : node->order_by) grouped |= HasWindowCall(o.expr.get());
  if (grouped) {
    QUIVER_RETURN_NOT_OK(SplitAtSetFunctions(node));
    return MoveSetFunctionsToFrom(node);
  }
  auto aggregated = ClonePlainSelect(*node);
  QUIVER_RETURN_NOT_OK(MoveSetFunctionsToFrom(node));
  // An error of this form is the binder's to report, if it binds it.
  if (SplitAtSetFunctions(aggregated.get()).ok() && MoveSetFunctionsToFrom(aggregated.get()).ok()) {
    node->aggregated_form = std::move(aggregated);
  }
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
  if (node->set_op == SetOpKind::kNone && node->values.empty()) {
    QUIVER_RETURN_NOT_OK(RewriteSelectListFunctions(node.get()));
  }
  (void)Lower;
  return node;
}

}  // namespace quiver::sql::internal
