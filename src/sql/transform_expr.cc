// Parse-tree expressions -> ParsedExpr.
#include <algorithm>
#include <charconv>

#include "sql/transform_internal.h"

namespace quiver::sql::internal {

Status UnsupportedAt(int location, const std::string& what) {
  return Status::Unsupported("{}", what).WithPosition(location);
}

std::string StringOf(const pg_query::Node& node) {
  if (node.has_string()) return node.string().sval();
  return {};
}

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// The function or type name without a pg_catalog qualifier.
std::string LastName(const google::protobuf::RepeatedPtrField<pg_query::Node>& names) {
  if (names.empty()) return {};
  return StringOf(names[names.size() - 1]);
}

ExprPtr MakeConstant(LiteralKind kind, int location) {
  auto e = std::make_unique<ParsedExpr>(ExprKind::kConstant, location);
  e->literal = kind;
  return e;
}

// Applies an INTERVAL typmod's field to a bare number: interval '90' day.
std::string IntervalWithField(const std::string& text, int mask) {
  bool bare = !text.empty();
  for (char c : text) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == ' ')) {
      bare = false;
    }
  }
  if (!bare) return text;
  // INTERVAL_MASK bits (PostgreSQL datetime.h): MONTH 1<<1, YEAR 1<<2,
  // DAY 1<<3, HOUR 1<<10, MINUTE 1<<11, SECOND 1<<12. The lowest field of
  // a range (YEAR TO MONTH) gives the unit of a bare number.
  if (mask & (1 << 12)) return text + " seconds";
  if (mask & (1 << 11)) return text + " minutes";
  if (mask & (1 << 10)) return text + " hours";
  if (mask & (1 << 3)) return text + " days";
  if (mask & (1 << 1)) return text + " months";
  if (mask & (1 << 2)) return text + " years";
  return text;
}

ExprPtr MakeBinary(ExprKind kind, std::string name, ExprPtr l, ExprPtr r, int loc) {
  auto e = std::make_unique<ParsedExpr>(kind, loc);
  e->name = std::move(name);
  e->children.push_back(std::move(l));
  e->children.push_back(std::move(r));
  return e;
}

// PostgreSQL's row-wise comparison `(a1, a2, ...) op (b1, b2, ...)` as
// scalar comparisons (SQL standard 8.2): = is the AND of the pairs' =,
// <> the OR of their <>, and < <= > >= compare left to right, the first
// unequal pair deciding: a1 < b1 OR (a1 = b1 AND (a2 < b2 OR ...)), the
// last pair with the operator itself. Three-valued logic then gives
// PostgreSQL's NULL answers (a NULL pair reached decides NULL).
// IS [NOT] DISTINCT FROM: `op` is "distinct" / "not distinct".
Result<ExprPtr> ExpandRowComparison(const std::string& op, ExprPtr l, ExprPtr r, int loc) {
  if (l->children.size() != r->children.size()) {
    return Status::Invalid("unequal number of entries in row expressions")
        .WithSqlState(sqlstate::kSyntaxError)
        .WithPosition(loc);
  }
  const size_t n = l->children.size();
  if (n == 0) return UnsupportedAt(loc, "comparison of empty rows");
  auto& a = l->children;
  auto& b = r->children;
  if (op == "=" || op == "<>" || op == "distinct" || op == "not distinct") {
    const bool conj = op == "=" || op == "not distinct";
    auto out = std::make_unique<ParsedExpr>(conj ? ExprKind::kAnd : ExprKind::kOr, loc);
    for (size_t i = 0; i < n; ++i) {
      if (op == "=" || op == "<>") {
        out->children.push_back(MakeBinary(ExprKind::kOperator, op, std::move(a[i]), std::move(b[i]), loc));
      } else {
        auto d = MakeBinary(ExprKind::kIsDistinct, "", std::move(a[i]), std::move(b[i]), loc);
        d->negated = op == "not distinct";
        out->children.push_back(std::move(d));
      }
    }
    if (n == 1) return std::move(out->children[0]);
    return out;
  }
  if (op != "<" && op != "<=" && op != ">" && op != ">=") {
    return UnsupportedAt(loc, "operator " + op + " between rows");
  }
  const std::string strict = op.substr(0, 1);  // "<" or ">"
  ExprPtr acc = MakeBinary(ExprKind::kOperator, op, std::move(a[n - 1]), std::move(b[n - 1]), loc);
  for (size_t k = n - 1; k-- > 0;) {
    auto eq = MakeBinary(ExprKind::kOperator, "=", CloneExpr(*a[k]), CloneExpr(*b[k]), loc);
    auto both = std::make_unique<ParsedExpr>(ExprKind::kAnd, loc);
    both->children.push_back(std::move(eq));
    both->children.push_back(std::move(acc));
    auto either = std::make_unique<ParsedExpr>(ExprKind::kOr, loc);
    either->children.push_back(MakeBinary(ExprKind::kOperator, strict, std::move(a[k]), std::move(b[k]), loc));
    either->children.push_back(std::move(both));
    acc = std::move(either);
  }
  return acc;
}

bool IsRow(const ExprPtr& e) { return e && e->kind == ExprKind::kRow; }

}  // namespace

// A deep copy of a parsed expression; subqueries and window clauses are
// shared (the binder only reads them). Row comparisons use an element in
// more than one of the scalar comparisons they expand to.
ExprPtr CloneExpr(const ParsedExpr& e) {
  auto c = std::make_unique<ParsedExpr>(e.kind, e.location);
  c->names = e.names;
  c->name = e.name;
  for (const auto& x : e.children) c->children.push_back(CloneExpr(*x));
  c->arg_names = e.arg_names;
  c->literal = e.literal;
  c->text = e.text;
  c->ival = e.ival;
  c->bval = e.bval;
  c->param_index = e.param_index;
  c->type_name = e.type_name;
  c->negated = e.negated;
  c->distinct = e.distinct;
  c->star = e.star;
  c->symmetric = e.symmetric;
  if (e.filter) c->filter = CloneExpr(*e.filter);
  for (const auto& o : e.agg_order) {
    c->agg_order.push_back({CloneExpr(*o.expr), o.descending, o.nulls_first});
  }
  c->has_window = e.has_window;
  c->within_group = e.within_group;
  c->window = e.window;
  if (e.case_arg) c->case_arg = CloneExpr(*e.case_arg);
  if (e.case_else) c->case_else = CloneExpr(*e.case_else);
  c->subquery_kind = e.subquery_kind;
  c->subquery = e.subquery;
  return c;
}

Result<TypeName> Transformer::TransformTypeName(const pg_query::TypeName& t) {
  TypeName out;
  out.location = t.location();
  out.name = Lower(LastName(t.names()));
  if (t.names_size() >= 2 && Lower(StringOf(t.names(0))) != "pg_catalog") {
    // schema-qualified user types do not exist here
    out.name = Lower(StringOf(t.names(0))) + "." + out.name;
  }
  for (const auto& m : t.typmods()) {
    if (m.has_a_const() && m.a_const().has_ival()) {
      out.modifiers.push_back(m.a_const().ival().ival());
    } else if (m.has_a_const() && m.a_const().has_sval()) {
      // varchar('10') is not valid PostgreSQL either
      return Status::Invalid("type modifiers must be simple constants")
          .WithSqlState(sqlstate::kSyntaxError)
          .WithPosition(t.location());
    } else if (m.has_column_ref()) {
      return Status::Invalid("type modifiers must be simple constants")
          .WithSqlState(sqlstate::kSyntaxError)
          .WithPosition(t.location());
    }
  }
  out.is_array = t.array_bounds_size() > 0;
  return out;
}

Result<ExprPtr> Transformer::TransformConstant(const pg_query::A_Const& c) {
  const int loc = c.location();
  if (c.isnull()) return MakeConstant(LiteralKind::kNull, loc);
  switch (c.val_case()) {
    case pg_query::A_Const::kIval: {
      auto e = MakeConstant(LiteralKind::kInteger, loc);
      e->ival = c.ival().ival();
      return e;
    }
    case pg_query::A_Const::kFval: {
      // Integers beyond int32 arrive as "floats": keep exact integers exact.
      const std::string& text = c.fval().fval();
      int64_t v;
      const char* end = text.data() + text.size();
      auto [ptr, ec] = std::from_chars(text.data(), end, v);
      if (ec == std::errc() && ptr == end) {
        auto e = MakeConstant(LiteralKind::kInteger, loc);
        e->ival = v;
        e->text = text;
        return e;
      }
      auto e = MakeConstant(LiteralKind::kNumeric, loc);
      e->text = text;
      return e;
    }
    case pg_query::A_Const::kBoolval: {
      auto e = MakeConstant(LiteralKind::kBool, loc);
      e->bval = c.boolval().boolval();
      return e;
    }
    case pg_query::A_Const::kSval: {
      auto e = MakeConstant(LiteralKind::kString, loc);
      e->text = c.sval().sval();
      return e;
    }
    case pg_query::A_Const::kBsval:
      return UnsupportedAt(loc, "bit string literals");
    default:
      // A_Const with no value set is integer zero.
      auto e = MakeConstant(LiteralKind::kInteger, loc);
      e->ival = 0;
      return e;
  }
}

Result<ExprPtr> Transformer::TransformTypeCast(const pg_query::TypeCast& c) {
  QUIVER_ASSIGN_OR_RAISE(TypeName type, TransformTypeName(c.type_name()));
  QUIVER_ASSIGN_OR_RAISE(ExprPtr arg, TransformExpr(c.arg()));
  if (type.name == "interval" && !type.modifiers.empty() && arg->kind == ExprKind::kConstant &&
      arg->literal == LiteralKind::kString) {
    arg->text = IntervalWithField(arg->text, type.modifiers[0]);
    type.modifiers.clear();
  }
  // `bool 't'` / `date '...'` style: the location is the type name's.
  const int loc = c.location() >= 0 ? c.location() : (type.location >= 0 ? type.location : arg->location);
  auto e = std::make_unique<ParsedExpr>(ExprKind::kCast, loc);
  e->type_name = std::move(type);
  e->children.push_back(std::move(arg));
  return e;
}

Result<ExprPtr> Transformer::TransformAExpr(const pg_query::A_Expr& a) {
  const int loc = a.location();
  std::string op = a.name_size() ? StringOf(a.name(a.name_size() - 1)) : "";
  auto binary = [&](ExprKind kind) -> Result<ExprPtr> {
    auto e = std::make_unique<ParsedExpr>(kind, loc);
    QUIVER_ASSIGN_OR_RAISE(auto l, TransformExpr(a.lexpr()));
    QUIVER_ASSIGN_OR_RAISE(auto r, TransformExpr(a.rexpr()));
    e->children.push_back(std::move(l));
    e->children.push_back(std::move(r));
    return e;
  };
  switch (a.kind()) {
    case pg_query::AEXPR_OP: {
      auto e = std::make_unique<ParsedExpr>(ExprKind::kOperator, loc);
      e->name = op;
      if (a.has_lexpr()) {
        QUIVER_ASSIGN_OR_RAISE(auto l, TransformExpr(a.lexpr()));
        e->children.push_back(std::move(l));
      }
      if (!a.has_rexpr()) return UnsupportedAt(loc, "postfix operators");
      QUIVER_ASSIGN_OR_RAISE(auto r, TransformExpr(a.rexpr()));
      // Fold "-<number>" into the literal so -2147483648 and -9223372036854775808 fit.
      if (e->children.empty() && op == "-" && r->kind == ExprKind::kConstant &&
          (r->literal == LiteralKind::kInteger || r->literal == LiteralKind::kNumeric)) {
        if (r->literal == LiteralKind::kInteger && r->ival != INT64_MIN) {
          r->ival = -r->ival;
          if (!r->text.empty()) r->text = "-" + r->text;
          r->location = loc;
          return r;
        }
        if (r->literal == LiteralKind::kNumeric) {
          r->text = r->text[0] == '-' ? r->text.substr(1) : "-" + r->text;
          r->location = loc;
          return r;
        }
      }
      e->children.push_back(std::move(r));
      // PostgreSQL spells some operators differently: keep the SQL names.
      if (op == "~~") {
        e->kind = ExprKind::kLike;
        e->name = "like";
      } else if (op == "!~~") {
        e->kind = ExprKind::kLike;
        e->name = "like";
        e->negated = true;
      } else if (op == "~~*") {
        e->kind = ExprKind::kLike;
        e->name = "ilike";
      } else if (op == "!~~*") {
        e->kind = ExprKind::kLike;
        e->name = "ilike";
        e->negated = true;
      } else if (op == "!=") {
        e->name = "<>";
      } else if ((e->children.size() == 1 && (op == "|/" || op == "||/" || op == "@")) ||
                 (e->children.size() == 2 && op == "^@")) {
        // Operators PostgreSQL defines as its functions: |/ sqrt, ||/ cbrt,
        // @ abs, ^@ starts_with.
        e->kind = ExprKind::kFunction;
        e->name = op == "|/" ? "sqrt" : op == "||/" ? "cbrt" : op == "@" ? "abs" : "starts_with";
      }
      if (e->kind == ExprKind::kOperator && e->children.size() == 2 && IsRow(e->children[0]) &&
          IsRow(e->children[1])) {
        return ExpandRowComparison(e->name, std::move(e->children[0]), std::move(e->children[1]), loc);
      }
      return e;
    }
    case pg_query::AEXPR_OP_ANY:
    case pg_query::AEXPR_OP_ALL: {
      // x op ANY/ALL (array): an operator over the element comparisons
      // (functions/array_functions.cc), for the comparison operators.
      std::string cmp = op == "!=" ? "<>" : op;
      if (cmp != "=" && cmp != "<>" && cmp != "<" && cmp != "<=" && cmp != ">" && cmp != ">=") {
        return UnsupportedAt(loc, "operator " + op + " with ANY/ALL over an array");
      }
      QUIVER_ASSIGN_OR_RAISE(auto e, binary(ExprKind::kOperator));
      e->name = (a.kind() == pg_query::AEXPR_OP_ANY ? "__any_" : "__all_") + cmp;
      return e;
    }
    case pg_query::AEXPR_DISTINCT:
    case pg_query::AEXPR_NOT_DISTINCT: {
      QUIVER_ASSIGN_OR_RAISE(auto e, binary(ExprKind::kIsDistinct));
      e->negated = a.kind() == pg_query::AEXPR_NOT_DISTINCT;
      if (IsRow(e->children[0]) && IsRow(e->children[1])) {
        return ExpandRowComparison(e->negated ? "not distinct" : "distinct", std::move(e->children[0]),
                                   std::move(e->children[1]), loc);
      }
      return e;
    }
    case pg_query::AEXPR_NULLIF:
      return binary(ExprKind::kNullIf);
    case pg_query::AEXPR_IN: {
      auto e = std::make_unique<ParsedExpr>(ExprKind::kIn, loc);
      e->negated = op == "<>";
      QUIVER_ASSIGN_OR_RAISE(auto l, TransformExpr(a.lexpr()));
      e->children.push_back(std::move(l));
      if (!a.rexpr().has_list()) return UnsupportedAt(loc, "IN with this right-hand side");
      for (const auto& item : a.rexpr().list().items()) {
        QUIVER_ASSIGN_OR_RAISE(auto x, TransformExpr(item));
        e->children.push_back(std::move(x));
      }
      if (IsRow(e->children[0])) {
        // (a, b) [NOT] IN ((1, 2), (3, 4)): the OR of the row equalities
        // (AND of the inequalities for NOT IN).
        auto out = std::make_unique<ParsedExpr>(e->negated ? ExprKind::kAnd : ExprKind::kOr, loc);
        for (size_t i = 1; i < e->children.size(); ++i) {
          if (!IsRow(e->children[i])) {
            return UnsupportedAt(e->children[i]->location, "IN comparing a row with a non-row value");
          }
          QUIVER_ASSIGN_OR_RAISE(auto c, ExpandRowComparison(e->negated ? "<>" : "=", CloneExpr(*e->children[0]),
                                                             std::move(e->children[i]), loc));
          out->children.push_back(std::move(c));
        }
        if (out->children.size() == 1) return std::move(out->children[0]);
        return out;
      }
      return e;
    }
    case pg_query::AEXPR_LIKE:
    case pg_query::AEXPR_ILIKE: {
      auto e = std::make_unique<ParsedExpr>(ExprKind::kLike, loc);
      e->name = a.kind() == pg_query::AEXPR_LIKE ? "like" : "ilike";
      e->negated = op.size() > 0 && op[0] == '!';
      QUIVER_ASSIGN_OR_RAISE(auto l, TransformExpr(a.lexpr()));
      e->children.push_back(std::move(l));
      const pg_query::Node& r = a.rexpr();
      if (r.has_func_call() && LastName(r.func_call().funcname()) == "like_escape") {
        for (const auto& arg : r.func_call().args()) {
          QUIVER_ASSIGN_OR_RAISE(auto x, TransformExpr(arg));
          e->children.push_back(std::move(x));
        }
      } else {
        QUIVER_ASSIGN_OR_RAISE(auto x, TransformExpr(r));
        e->children.push_back(std::move(x));
      }
      return e;
    }
    case pg_query::AEXPR_SIMILAR: {
      // As PostgreSQL rewrites it: `x ~ similar_to_escape(pattern [, escape])`
      // (the grammar already made the call), "!~" for NOT SIMILAR TO.
      QUIVER_ASSIGN_OR_RAISE(auto e, binary(ExprKind::kOperator));
      e->name = op;
      return e;
    }
    case pg_query::AEXPR_BETWEEN:
    case pg_query::AEXPR_NOT_BETWEEN:
    case pg_query::AEXPR_BETWEEN_SYM:
    case pg_query::AEXPR_NOT_BETWEEN_SYM: {
      auto e = std::make_unique<ParsedExpr>(ExprKind::kBetween, loc);
      e->negated = a.kind() == pg_query::AEXPR_NOT_BETWEEN || a.kind() == pg_query::AEXPR_NOT_BETWEEN_SYM;
      e->symmetric = a.kind() == pg_query::AEXPR_BETWEEN_SYM || a.kind() == pg_query::AEXPR_NOT_BETWEEN_SYM;
      QUIVER_ASSIGN_OR_RAISE(auto l, TransformExpr(a.lexpr()));
      e->children.push_back(std::move(l));
      for (const auto& item : a.rexpr().list().items()) {
        QUIVER_ASSIGN_OR_RAISE(auto x, TransformExpr(item));
        e->children.push_back(std::move(x));
      }
      if (e->children.size() != 3) return Status::Invalid("malformed BETWEEN").WithPosition(loc);
      return e;
    }
    default:
      return UnsupportedAt(loc, "this kind of operator expression");
  }
}

Result<ExprPtr> Transformer::TransformFuncCall(const pg_query::FuncCall& f) {
  const int loc = f.location();
  std::string name = Lower(LastName(f.funcname()));
  if (f.funcname_size() >= 2) {
    const std::string schema = Lower(StringOf(f.funcname(0)));
    if (schema != "pg_catalog" && schema != "public" && schema != "main") {
      return Status::KeyError("schema \"{}\" does not exist", schema)
          .WithSqlState(sqlstate::kInvalidSchemaName)
          .WithPosition(loc);
    }
  }
  if (f.has_over() && f.agg_order_size() > 0 && !f.agg_within_group()) {
    return UnsupportedAt(loc, "aggregate ORDER BY is not implemented for window functions");
  }
  if (f.func_variadic()) return UnsupportedAt(loc, "VARIADIC arguments");
  auto e = std::make_unique<ParsedExpr>(ExprKind::kFunction, loc);
  e->name = name;
  e->distinct = f.agg_distinct();
  e->star = f.agg_star();
  e->has_window = f.has_over();
  e->within_group = f.agg_within_group();
  if (f.has_over()) {
    QUIVER_ASSIGN_OR_RAISE(e->window, TransformWindowDef(f.over()));
  }
  for (const auto& arg : f.args()) {
    if (arg.has_named_arg_expr()) {
      QUIVER_ASSIGN_OR_RAISE(auto x, TransformExpr(arg.named_arg_expr().arg()));
      e->children.push_back(std::move(x));
      e->arg_names.push_back(Lower(arg.named_arg_expr().name()));
    } else {
      QUIVER_ASSIGN_OR_RAISE(auto x, TransformExpr(arg));
      e->children.push_back(std::move(x));
      e->arg_names.emplace_back();
    }
  }
  if (f.has_agg_filter()) {
    QUIVER_ASSIGN_OR_RAISE(e->filter, TransformExpr(f.agg_filter()));
  }
  // The binder decides what the order means for each aggregate.
  for (const auto& o : f.agg_order()) {
    const auto& sb = o.sort_by();
    if (sb.sortby_dir() == pg_query::SORTBY_USING) return UnsupportedAt(sb.location(), "ORDER BY ... USING");
    ParsedExpr::AggregateOrder item;
    QUIVER_ASSIGN_OR_RAISE(item.expr, TransformExpr(sb.node()));
    item.descending = sb.sortby_dir() == pg_query::SORTBY_DESC;
    item.nulls_first = sb.sortby_nulls() == pg_query::SORTBY_NULLS_FIRST ||
                       (sb.sortby_nulls() == pg_query::SORTBY_NULLS_DEFAULT && item.descending);
    e->agg_order.push_back(std::move(item));
  }
  // position(a IN b) arrives as position(b, a); substring/extract/trim are
  // plain calls already. PostgreSQL's overlay and similar are not special.
  return e;
}

Result<ExprPtr> Transformer::TransformSubLink(const pg_query::SubLink& s) {
  const int loc = s.location();
  auto e = std::make_unique<ParsedExpr>(ExprKind::kSubquery, loc);
  if (!s.subselect().has_select_stmt()) return UnsupportedAt(loc, "this kind of subquery");
  QUIVER_ASSIGN_OR_RAISE(e->subquery, TransformSelect(s.subselect().select_stmt()));
  switch (s.sub_link_type()) {
    case pg_query::EXISTS_SUBLINK:
      e->subquery_kind = SubqueryKind::kExists;
      break;
    case pg_query::EXPR_SUBLINK:
      e->subquery_kind = SubqueryKind::kScalar;
      break;
    case pg_query::ANY_SUBLINK:
    case pg_query::ALL_SUBLINK: {
      e->subquery_kind =
          s.sub_link_type() == pg_query::ANY_SUBLINK ? SubqueryKind::kAny : SubqueryKind::kAll;
      e->name = s.oper_name_size() ? StringOf(s.oper_name(s.oper_name_size() - 1)) : "=";
      if (e->name == "!=") e->name = "<>";
      QUIVER_ASSIGN_OR_RAISE(auto t, TransformExpr(s.testexpr()));
      if (t->kind == ExprKind::kRow) return UnsupportedAt(loc, "row-valued IN/ANY/ALL subqueries");
      e->children.push_back(std::move(t));
      break;
    }
    default:
      return UnsupportedAt(loc, "ARRAY and row subqueries");
  }
  return e;
}

Result<ExprPtr> Transformer::TransformExpr(const pg_query::Node& node) {
  switch (node.node_case()) {
    case pg_query::Node::kAConst:
      return TransformConstant(node.a_const());
    case pg_query::Node::kColumnRef: {
      const auto& c = node.column_ref();
      std::vector<std::string> names;
      bool star = false;
      for (const auto& f : c.fields()) {
        if (f.has_a_star()) {
          star = true;
        } else {
          names.push_back(StringOf(f));
        }
      }
      auto e = std::make_unique<ParsedExpr>(star ? ExprKind::kStar : ExprKind::kColumnRef,
                                            c.location());
      e->names = std::move(names);
      return e;
    }
    case pg_query::Node::kParamRef: {
      auto e = std::make_unique<ParsedExpr>(ExprKind::kParameter, node.param_ref().location());
      e->param_index = node.param_ref().number();
      return e;
    }
    case pg_query::Node::kAExpr:
      return TransformAExpr(node.a_expr());
    case pg_query::Node::kBoolExpr: {
      const auto& b = node.bool_expr();
      ExprKind kind = b.boolop() == pg_query::AND_EXPR  ? ExprKind::kAnd
                      : b.boolop() == pg_query::OR_EXPR ? ExprKind::kOr
                                                        : ExprKind::kNot;
      auto e = std::make_unique<ParsedExpr>(kind, b.location());
      for (const auto& a : b.args()) {
        QUIVER_ASSIGN_OR_RAISE(auto x, TransformExpr(a));
        e->children.push_back(std::move(x));
      }
      return e;
    }
    case pg_query::Node::kFuncCall:
      return TransformFuncCall(node.func_call());
    case pg_query::Node::kTypeCast:
      return TransformTypeCast(node.type_cast());
    case pg_query::Node::kCaseExpr: {
      const auto& c = node.case_expr();
      auto e = std::make_unique<ParsedExpr>(ExprKind::kCase, c.location());
      if (c.has_arg()) {
        QUIVER_ASSIGN_OR_RAISE(e->case_arg, TransformExpr(c.arg()));
      }
      for (const auto& w : c.args()) {
        const auto& when = w.case_when();
        QUIVER_ASSIGN_OR_RAISE(auto cond, TransformExpr(when.expr()));
        QUIVER_ASSIGN_OR_RAISE(auto res, TransformExpr(when.result()));
        e->children.push_back(std::move(cond));
        e->children.push_back(std::move(res));
      }
      if (c.has_defresult()) {
        QUIVER_ASSIGN_OR_RAISE(e->case_else, TransformExpr(c.defresult()));
      }
      return e;
    }
    case pg_query::Node::kNullTest: {
      const auto& t = node.null_test();
      auto e = std::make_unique<ParsedExpr>(ExprKind::kIsNull, t.location());
      e->negated = t.nulltesttype() == pg_query::IS_NOT_NULL;
      QUIVER_ASSIGN_OR_RAISE(auto x, TransformExpr(t.arg()));
      e->children.push_back(std::move(x));
      return e;
    }
    case pg_query::Node::kBooleanTest: {
      const auto& t = node.boolean_test();
      auto e = std::make_unique<ParsedExpr>(ExprKind::kBoolTest, t.location());
      switch (t.booltesttype()) {
        case pg_query::IS_TRUE:
          e->name = "true";
          break;
        case pg_query::IS_NOT_TRUE:
          e->name = "true";
          e->negated = true;
          break;
        case pg_query::IS_FALSE:
          e->name = "false";
          break;
        case pg_query::IS_NOT_FALSE:
          e->name = "false";
          e->negated = true;
          break;
        case pg_query::IS_UNKNOWN:
          e->name = "unknown";
          break;
        default:
          e->name = "unknown";
          e->negated = true;
          break;
      }
      QUIVER_ASSIGN_OR_RAISE(auto x, TransformExpr(t.arg()));
      e->children.push_back(std::move(x));
      return e;
    }
    case pg_query::Node::kSubLink:
      return TransformSubLink(node.sub_link());
    case pg_query::Node::kCoalesceExpr: {
      auto e = std::make_unique<ParsedExpr>(ExprKind::kCoalesce, node.coalesce_expr().location());
      for (const auto& a : node.coalesce_expr().args()) {
        QUIVER_ASSIGN_OR_RAISE(auto x, TransformExpr(a));
        e->children.push_back(std::move(x));
      }
      return e;
    }
    case pg_query::Node::kMinMaxExpr: {
      const auto& m = node.min_max_expr();
      auto e = std::make_unique<ParsedExpr>(ExprKind::kGreatest, m.location());
      e->name = m.op() == pg_query::IS_GREATEST ? "greatest" : "least";
      for (const auto& a : m.args()) {
        QUIVER_ASSIGN_OR_RAISE(auto x, TransformExpr(a));
        e->children.push_back(std::move(x));
      }
      return e;
    }
    case pg_query::Node::kSqlvalueFunction: {
      const auto& v = node.sqlvalue_function();
      auto e = std::make_unique<ParsedExpr>(ExprKind::kValueFunction, v.location());
      switch (v.op()) {
        case pg_query::SVFOP_CURRENT_DATE:
          e->name = "current_date";
          break;
        case pg_query::SVFOP_CURRENT_TIMESTAMP:
        case pg_query::SVFOP_CURRENT_TIMESTAMP_N:
        case pg_query::SVFOP_LOCALTIMESTAMP:
        case pg_query::SVFOP_LOCALTIMESTAMP_N:
          e->name = "current_timestamp";
          break;
        case pg_query::SVFOP_CURRENT_USER:
        case pg_query::SVFOP_USER:
        case pg_query::SVFOP_SESSION_USER:
        case pg_query::SVFOP_CURRENT_ROLE:
          e->name = "current_user";
          break;
        case pg_query::SVFOP_CURRENT_CATALOG:
          e->name = "current_catalog";
          break;
        case pg_query::SVFOP_CURRENT_SCHEMA:
          e->name = "current_schema";
          break;
        default:
          return UnsupportedAt(v.location(), "CURRENT_TIME / LOCALTIME");
      }
      return e;
    }
    case pg_query::Node::kRowExpr: {
      auto e = std::make_unique<ParsedExpr>(ExprKind::kRow, node.row_expr().location());
      for (const auto& a : node.row_expr().args()) {
        QUIVER_ASSIGN_OR_RAISE(auto x, TransformExpr(a));
        e->children.push_back(std::move(x));
      }
      return e;
    }
    case pg_query::Node::kCollateClause: {
      // Text compares byte-wise, which is PostgreSQL's "C" collation (and
      // "POSIX", "ucs_basic"; "default" is the database's, here C). Any other
      // collation would sort differently, so it is refused, never ignored.
      const auto& c = node.collate_clause();
      std::string name;
      for (const auto& part : c.collname()) {
        if (!name.empty()) name += '.';
        name += StringOf(part);
      }
      if (name != "C" && name != "POSIX" && name != "ucs_basic" && name != "default") {
        return Status::KeyError("collation \"{}\" for encoding \"UTF8\" does not exist", name)
            .WithSqlState(sqlstate::kUndefinedObject)
            .WithPosition(c.location())
            .WithHint("Quiver compares text byte-wise: only the collations \"C\", \"POSIX\", "
                      "\"ucs_basic\" and \"default\" exist");
      }
      return TransformExpr(c.arg());
    }
    case pg_query::Node::kAIndirection: {
      // a[i], a[i:j], a[:j], a[i:], a[:] (one kSubscript per step, named
      // "index", "slice", "slice_to", "slice_from", "slice_all"; children:
      // the array, then the bounds given); (s).f is a step named "field".
      const auto& ind = node.a_indirection();
      QUIVER_ASSIGN_OR_RAISE(auto base, TransformExpr(ind.arg()));
      for (const auto& step : ind.indirection()) {
        if (step.has_string()) {
          // (s).f: field selection, name "field", text = the field.
          auto e = std::make_unique<ParsedExpr>(ExprKind::kSubscript, base->location);
          e->name = "field";
          e->text = StringOf(step);
          e->children.push_back(std::move(base));
          base = std::move(e);
          continue;
        }
        if (!step.has_a_indices()) return UnsupportedAt(base->location, "(record).* field expansion");
        const auto& ix = step.a_indices();
        auto e = std::make_unique<ParsedExpr>(ExprKind::kSubscript, base->location);
        e->children.push_back(std::move(base));
        if (!ix.is_slice()) {
          e->name = "index";
          QUIVER_ASSIGN_OR_RAISE(auto u, TransformExpr(ix.uidx()));
          e->children.push_back(std::move(u));
        } else {
          const bool lo = ix.has_lidx(), hi = ix.has_uidx();
          e->name = lo && hi ? "slice" : lo ? "slice_from" : hi ? "slice_to" : "slice_all";
          if (lo) {
            QUIVER_ASSIGN_OR_RAISE(auto l, TransformExpr(ix.lidx()));
            e->children.push_back(std::move(l));
          }
          if (hi) {
            QUIVER_ASSIGN_OR_RAISE(auto u, TransformExpr(ix.uidx()));
            e->children.push_back(std::move(u));
          }
        }
        base = std::move(e);
      }
      return base;
    }
    case pg_query::Node::kAArrayExpr: {
      // ARRAY[a, b, ...]; an inner [..] (ARRAY[[1,2],[3,4]]) is a second
      // dimension, which Quiver's arrays have not.
      const auto& arr = node.a_array_expr();
      auto e = std::make_unique<ParsedExpr>(ExprKind::kArray, arr.location());
      for (const auto& x : arr.elements()) {
        if (x.has_a_array_expr()) return UnsupportedAt(x.a_array_expr().location(), "multidimensional arrays");
        QUIVER_ASSIGN_OR_RAISE(auto c, TransformExpr(x));
        e->children.push_back(std::move(c));
      }
      return e;
    }
    case pg_query::Node::kGroupingFunc: {
      // grouping(a, b): a function call named "grouping" (GROUPING is a
      // reserved word, so no user call reaches the binder under that name).
      const auto& g = node.grouping_func();
      auto e = std::make_unique<ParsedExpr>(ExprKind::kFunction, g.location());
      e->name = "grouping";
      for (const auto& a : g.args()) {
        QUIVER_ASSIGN_OR_RAISE(auto x, TransformExpr(a));
        e->children.push_back(std::move(x));
      }
      return e;
    }
    case pg_query::Node::kSetToDefault: {
      // DEFAULT as a value: a value function named "default" (DEFAULT is a
      // reserved word, so no other call has that name). The binder replaces
      // it by the column's default where PostgreSQL allows it (an INSERT's
      // VALUES row, UPDATE's SET) and refuses it elsewhere.
      auto e = std::make_unique<ParsedExpr>(ExprKind::kValueFunction, node.set_to_default().location());
      e->name = "default";
      return e;
    }
    default:
      return UnsupportedAt(-1, "this kind of expression");
  }
}

}  // namespace quiver::sql::internal
