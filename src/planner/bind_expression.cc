// Expression binding: names, literals, operators, functions, aggregates,
// CASE / IN / BETWEEN / LIKE / COALESCE, casts and subqueries.
#include <algorithm>

#include "catalog/catalog.h"
#include "columnar/extension_type.h"
#include "functions/cast.h"
#include "functions/numeric_format.h"
#include "planner/bind_json.h"
#include "planner/expression_binder.h"
#include "vector/json_type.h"
#include "vector/sql_type.h"

namespace quiver::plan {

using sql::ExprKind;
using sql::LiteralKind;
using sql::ParsedExpr;

// --- scope lookups -----------------------------------------------------------------

Status Binder::AddScopeTable(ScopeTable t, int location) {
  if (!t.alias.empty()) {
    for (const auto& existing : scope_) {
      if (existing.alias == t.alias) {
        return Status::Invalid("table name \"{}\" specified more than once", t.alias)
            .WithSqlState(sqlstate::kDuplicateAlias)
            .WithPosition(location);
      }
    }
  }
  if (t.hidden.size() != t.names.size()) t.hidden.assign(t.names.size(), false);
  scope_.push_back(std::move(t));
  return Status::OK();
}

namespace {

// Index of `name` in `names`: exact first, else a unique case-insensitive
// match. -2 when the case-insensitive match is ambiguous.
int FindName(const std::vector<std::string>& names, const std::string& name) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  int found = -1;
  for (size_t i = 0; i < names.size(); ++i) {
    if (IdentifierEquals(names[i], name)) {
      if (found >= 0) return -2;
      found = static_cast<int>(i);
    }
  }
  return found;
}

}  // namespace

Result<Binder::Resolved> Binder::ResolveColumn(const std::vector<std::string>& names,
                                               int location) {
  Resolved r;
  const std::string& column = names.back();
  if (names.size() == 1) {
    auto u = using_columns_.find(column);
    if (u != using_columns_.end()) {
      r.expr = u->second->Copy();
      r.found = true;
      return r;
    }
    const ScopeTable* hit_table = nullptr;
    int hit = -1;
    for (const auto& t : scope_) {
      const int i = FindName(t.names, column);
      if (i == -2) {
        return Status::Invalid("column reference \"{}\" is ambiguous", column)
            .WithSqlState(sqlstate::kAmbiguousColumn)
            .WithPosition(location);
      }
      if (i < 0 || t.hidden[static_cast<size_t>(i)]) continue;
      if (hit_table != nullptr) {
        return Status::Invalid("column reference \"{}\" is ambiguous", column)
            .WithSqlState(sqlstate::kAmbiguousColumn)
            .WithPosition(location);
      }
      hit_table = &t;
      hit = i;
    }
    if (hit_table != nullptr) {
      r.expr = MakeColumnRef(hit_table->bindings[static_cast<size_t>(hit)],
                             hit_table->types[static_cast<size_t>(hit)], column);
      r.found = true;
    }
    return r;
  }
  if (names.size() > 3) {
    return Status::Invalid("improper qualified name (too many dotted names): {}", names[0])
        .WithSqlState(sqlstate::kSyntaxError)
        .WithPosition(location);
  }
  // table.column (or schema.table.column: the schema is ignored).
  const std::string& table = names[names.size() - 2];
  const ScopeTable* match = nullptr;
  for (const auto& t : scope_) {
    if (t.alias == table) {
      match = &t;
      break;
    }
  }
  if (match == nullptr) {
    for (const auto& t : scope_) {
      if (IdentifierEquals(t.alias, table)) {
        match = &t;
        break;
      }
    }
  }
  if (match == nullptr) return r;
  const int i = FindName(match->names, column);
  if (i == -2)
    return Status::Invalid("column reference \"{}\" is ambiguous", column)
        .WithSqlState(sqlstate::kAmbiguousColumn)
        .WithPosition(location);
  if (i < 0) {
    return Status::KeyError("column {}.{} does not exist", table, column)
        .WithSqlState(sqlstate::kUndefinedColumn)
        .WithPosition(location);
  }
  r.expr = MakeColumnRef(match->bindings[static_cast<size_t>(i)],
                         match->types[static_cast<size_t>(i)], column);
  r.found = true;
  return r;
}

// --- helpers -------------------------------------------------------------------------

ExprPtr ExpressionBinder::ResolveUnknown(ExprPtr e, const TypeRef& to) {
  if (!e->unknown_literal) return e;
  e->unknown_literal = false;
  if (to != nullptr && !to->Equals(*utf8())) {
    if (const auto* c = ValueCanHold(*to) ? e->TryAs<ConstantExpression>() : nullptr) {
      auto v = CastValue(c->value, to);
      if (v.ok()) return MakeConstant(std::move(v).ValueOrDie());
    }
    return MakeCast(std::move(e), to);
  }
  return e;
}

Result<ExprPtr> ExpressionBinder::CastTo(ExprPtr e, const TypeRef& to, int location,
                                         bool explicit_cast) {
  if (e->return_type->Equals(*to)) {
    e->unknown_literal = false;
    return e;
  }
  if (e->unknown_literal && e->type == ExprType::kConstant) {
    e->unknown_literal = false;
    auto v = CastValue(e->As<ConstantExpression>().value, to);
    if (!v.ok()) return v.status().WithPosition(location);
    // A bad json literal failed above, with its position; a good one stays
    // a cast (json cannot be a constant Value).
    if (!ValueCanHold(*to)) return MakeCast(std::move(e), to);
    auto c = MakeConstant(std::move(v).ValueOrDie());
    c->alias = e->alias;
    return c;
  }
  const DataType& from = *e->return_type;
  if (explicit_cast ? !CanCast(from, *to) : !CanCastImplicitly(from, *to)) {
    return Status::TypeError("cannot cast type {} to {}", PgTypeName(from), PgTypeName(*to))
        .WithSqlState(sqlstate::kCannotCoerce)
        .WithPosition(location);
  }
  if (e->type == ExprType::kConstant) {
    auto v = CastValue(e->As<ConstantExpression>().value, to);
    if (!v.ok()) return v.status().WithPosition(location);
    if (!ValueCanHold(*to)) return MakeCast(std::move(e), to);
    auto c = MakeConstant(std::move(v).ValueOrDie());
    c->alias = e->alias;
    return c;
  }
  return MakeCast(std::move(e), to);
}

Status ExpressionBinder::Unify(std::vector<ExprPtr>* exprs, const char* context, int location) {
  TypeRef common;
  bool all_unknown = true;
  for (const auto& e : *exprs) {
    if (e->unknown_literal) continue;
    all_unknown = false;
    if (common == nullptr) {
      common = e->return_type;
      continue;
    }
    auto t = CommonSuperType(common, e->return_type, context);
    if (!t.ok()) return t.status().WithPosition(location);
    common = *t;
  }
  if (all_unknown || common == nullptr || common->id == TypeId::kNull)
    common = all_unknown ? utf8() : common;
  if (common->id == TypeId::kNull) return Status::OK();
  for (auto& e : *exprs) {
    QUIVER_ASSIGN_OR_RAISE(e, CastTo(std::move(e), common, location, false));
  }
  return Status::OK();
}

Result<ExprPtr> BindOperatorCall(const std::string& op, std::vector<ExprPtr> args, int location) {
  auto r = MakeFunction(op, std::move(args), true);
  if (!r.ok()) return r.status().WithPosition(location);
  return r;
}

// --- binding ---------------------------------------------------------------------------

Result<ExprPtr> ExpressionBinder::BindPredicate(const ParsedExpr& e, const char* clause_name) {
  QUIVER_ASSIGN_OR_RAISE(ExprPtr b, Bind(e));
  if (b->unknown_literal) return CastTo(std::move(b), boolean(), e.location, true);
  if (b->return_type->id == TypeId::kNull) return CastTo(std::move(b), boolean(), e.location, true);
  if (b->return_type->id != TypeId::kBool) {
    return Status::TypeError("argument of {} must be type boolean, not type {}", clause_name,
                             PgTypeName(*b->return_type))
        .WithSqlState(sqlstate::kDatatypeMismatch)
        .WithPosition(e.location);
  }
  return b;
}

Result<ExprPtr> ExpressionBinder::Bind(const ParsedExpr& e) {
  switch (e.kind) {
    case ExprKind::kColumnRef:
      return BindColumnRef(e);
    case ExprKind::kStar:
      return Status::Invalid("\"*\" is not allowed here")
          .WithSqlState(sqlstate::kSyntaxError)
          .WithPosition(e.location);
    case ExprKind::kConstant:
      return BindConstant(e);
    case ExprKind::kParameter: {
      const auto& params = binder_->state()->parameters;
      if (e.param_index < 1 || static_cast<size_t>(e.param_index) > params.size()) {
        return Status::Invalid("there is no parameter ${}", e.param_index)
            .WithSqlState(sqlstate::kUndefinedParameter)
            .WithPosition(e.location);
      }
      return MakeConstant(params[static_cast<size_t>(e.param_index - 1)]);
    }
    case ExprKind::kOperator:
      return BindOperator(e);
    case ExprKind::kFunction:
      return BindFunction(e);
    case ExprKind::kCast:
      return BindCast(e);
    case ExprKind::kCase:
      return BindCase(e);
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kNot:
      return BindBoolean(e);
    case ExprKind::kIsNull: {
      QUIVER_ASSIGN_OR_RAISE(ExprPtr c, Bind(*e.children[0]));
      c = ResolveUnknown(std::move(c));
      auto out = std::make_unique<OperatorExpression>(
          e.negated ? ExprType::kIsNotNull : ExprType::kIsNull, boolean());
      out->children.push_back(std::move(c));
      return ExprPtr(std::move(out));
    }
    case ExprKind::kBoolTest:
      return BindBoolTest(e);
    case ExprKind::kIn:
      return BindIn(e);
    case ExprKind::kBetween:
      return BindBetween(e);
    case ExprKind::kLike:
      return BindLike(e);
    case ExprKind::kIsDistinct: {
      std::vector<ExprPtr> args;
      for (const auto& c : e.children) {
        QUIVER_ASSIGN_OR_RAISE(ExprPtr b, Bind(*c));
        args.push_back(std::move(b));
      }
      return BindOperatorCall(e.negated ? "is not distinct from" : "is distinct from",
                              std::move(args), e.location);
    }
    case ExprKind::kNullIf: {
      // NULLIF(a, b) = CASE WHEN a = b THEN NULL ELSE a END (a's type).
      QUIVER_ASSIGN_OR_RAISE(ExprPtr a, Bind(*e.children[0]));
      QUIVER_ASSIGN_OR_RAISE(ExprPtr b, Bind(*e.children[1]));
      a = ResolveUnknown(std::move(a));
      std::vector<ExprPtr> args;
      args.push_back(a->Copy());
      args.push_back(std::move(b));
      QUIVER_ASSIGN_OR_RAISE(ExprPtr eq, BindOperatorCall("=", std::move(args), e.location));
      auto out = std::make_unique<OperatorExpression>(ExprType::kCase, a->return_type);
      out->children.push_back(std::move(eq));
      out->children.push_back(MakeConstant(Value::Null(a->return_type)));
      out->children.push_back(std::move(a));
      out->alias = "nullif";
      return ExprPtr(std::move(out));
    }
    case ExprKind::kCoalesce:
      return BindCoalesce(e);
    case ExprKind::kArray: {
      // ARRAY[a, b, ...]: the elements unified as a CASE's results are.
      if (e.children.empty()) {
        return Status::Invalid("cannot determine type of empty array")
            .WithSqlState(sqlstate::kIndeterminateDatatype)
            .WithHint("Explicitly cast to the desired type, for example ARRAY[]::integer[].")
            .WithPosition(e.location);
      }
      std::vector<ExprPtr> args;
      for (const auto& c : e.children) {
        QUIVER_ASSIGN_OR_RAISE(ExprPtr b, Bind(*c));
        args.push_back(std::move(b));
      }
      QUIVER_RETURN_NOT_OK(Unify(&args, "ARRAY", e.location));
      auto r = MakeFunction("__array_construct", std::move(args), false);
      if (!r.ok()) return r.status().WithPosition(e.location);
      (*r)->alias = "array";
      return r;
    }
    case ExprKind::kSubscript: {
      // a[i] and slices (functions/array_functions.cc); subscripts are integers.
      std::vector<ExprPtr> args;
      QUIVER_ASSIGN_OR_RAISE(ExprPtr base, Bind(*e.children[0]));
      if (e.name == "field") return BindField(std::move(base), e.text, e.location);
      const std::string alias = base->alias;
      if (base->return_type->id == TypeId::kMap && e.name == "index") {
        // m[key]: the value of the key, NULL when absent (DuckDB's map subscript).
        args.push_back(std::move(base));
        QUIVER_ASSIGN_OR_RAISE(ExprPtr k, Bind(*e.children[1]));
        args.push_back(std::move(k));
        auto r = MakeFunction("__map_value", std::move(args), false);
        if (!r.ok()) return r.status().WithPosition(e.location);
        (*r)->alias = alias;
        return r;
      }
      args.push_back(std::move(base));
      for (size_t i = 1; i < e.children.size(); ++i) {
        QUIVER_ASSIGN_OR_RAISE(ExprPtr b, Bind(*e.children[i]));
        const DataType& t = *b->return_type;
        if (!b->unknown_literal && t.id != TypeId::kNull && !IsIntegerType(t)) {
          return Status::TypeError("array subscript must have type integer")
              .WithSqlState(sqlstate::kDatatypeMismatch)
              .WithPosition(e.children[i]->location);
        }
        QUIVER_ASSIGN_OR_RAISE(b, CastTo(std::move(b), int32(), e.children[i]->location, true));
        args.push_back(std::move(b));
      }
      const std::string fn = e.name == "index" ? "__array_subscript" : "__array_" + e.name;
      auto r = MakeFunction(fn, std::move(args), false);
      if (!r.ok()) return r.status().WithPosition(e.location);
      (*r)->alias = alias;
      return r;
    }
    case ExprKind::kGreatest:
      return BindGreatest(e);
    case ExprKind::kSubquery:
      return BindSubquery(e);
    case ExprKind::kValueFunction: {
      if (e.name == "default") {
        // INSERT's VALUES and UPDATE's SET take DEFAULT before binding here.
        return Status::Invalid("DEFAULT is not allowed in this context")
            .WithSqlState(sqlstate::kSyntaxError)
            .WithPosition(e.location);
      }
      if (e.name == "current_user") return MakeConstant(Value::Text("quiver"));
      if (e.name == "current_schema") return MakeConstant(Value::Text("public"));
      if (e.name == "current_catalog") return MakeConstant(Value::Text("quiver"));
      auto f = MakeFunction(e.name == "current_date" ? "current_date" : "now", {}, false);
      if (!f.ok()) return f.status().WithPosition(e.location);
      (*f)->alias = e.name;
      return f;
    }
    case ExprKind::kRow:
      return Status::Unsupported("row constructors").WithPosition(e.location);
  }
  return Status::Unsupported("this expression").WithPosition(e.location);
}

// s.f, t.s.f, s.f.g: a column followed by field names (PostgreSQL reads
// a.b as table a's column b first, then as column a's field b). Null when
// no prefix of the names is a column.
Result<ExprPtr> ExpressionBinder::BindColumnFields(const ParsedExpr& e) {
  for (size_t k = std::min<size_t>(e.names.size() - 1, 3); k >= 1 && e.names.size() >= 2; --k) {
    sql::ParsedExpr prefix(sql::ExprKind::kColumnRef, e.location);
    prefix.names.assign(e.names.begin(), e.names.begin() + static_cast<std::ptrdiff_t>(k));
    auto base = BindColumnRef(prefix);
    if (!base.ok()) continue;
    ExprPtr x = std::move(*base);
    for (size_t j = k; j < e.names.size(); ++j) {
      QUIVER_ASSIGN_OR_RAISE(x, BindField(std::move(x), e.names[j], e.location));
    }
    return x;
  }
  return ExprPtr();
}

void ExpressionBinder::MarkCorrelated(ExprPtr* expr, int depth) {
  VisitExpression(expr, [&](ExprPtr* x) {
    if (auto* ref = (*x)->TryAs<ColumnRefExpression>()) ref->depth += depth;
  });
  // Record the correlation in every binder between here and there.
  VisitExpression(**expr, [&](const Expression& e) {
    const auto* x = e.TryAs<ColumnRefExpression>();
    if (x != nullptr && x->depth > 0) {
      Binder* at = binder_;
      for (int d = 0; d < x->depth && at != nullptr; ++d, at = at->parent_) {
        CorrelatedColumn cc{x->binding, x->return_type, x->alias, x->depth - d};
        if (std::find(at->correlated_.begin(), at->correlated_.end(), cc) ==
            at->correlated_.end()) {
          at->correlated_.push_back(cc);
        }
      }
    }
  });
}

Result<ExprPtr> ExpressionBinder::BindColumnRef(const ParsedExpr& e) {
  if (e.names.size() > 3) {
    // Only a column's fields can be named this deep.
    QUIVER_ASSIGN_OR_RAISE(ExprPtr field, BindColumnFields(e));
    if (field != nullptr) return field;
  }
  // This scope, then outer scopes (correlated references).
  int depth = 0;
  for (Binder* b = binder_; b != nullptr; b = b->parent_, ++depth) {
    QUIVER_ASSIGN_OR_RAISE(auto r, b->ResolveColumn(e.names, e.location));
    if (!r.found) continue;
    if (depth > 0) MarkCorrelated(&r.expr, depth);
    return std::move(r.expr);
  }
  QUIVER_ASSIGN_OR_RAISE(ExprPtr field, BindColumnFields(e));
  if (field != nullptr) return field;
  // A column the table holds but queries cannot read (nested file columns).
  for (Binder* b = binder_; b != nullptr; b = b->parent_) {
    for (const auto& t : b->scope_) {
      if (e.names.size() >= 2 && !IdentifierEquals(t.alias, e.names[e.names.size() - 2])) continue;
      for (const auto& [name, type] : t.unreadable) {
        if (name == e.names.back()) {
          return Status::Unsupported("column \"{}\" has type {}, which queries cannot read yet",
                                     name, type)
              .WithPosition(e.location);
        }
      }
    }
  }
  if (e.names.size() == 1) {
    // No column of that name: a FROM item's whole row (bind_row.cc).
    QUIVER_ASSIGN_OR_RAISE(ExprPtr row, BindWholeRow(e.names[0], e.location));
    if (row != nullptr) return row;
  }
  if (e.names.size() >= 2) {
    // Distinguish a missing table from a missing column.
    const std::string& table = e.names[e.names.size() - 2];
    bool table_known = false;
    for (Binder* b = binder_; b != nullptr; b = b->parent_) {
      for (const auto& t : b->scope_) {
        if (IdentifierEquals(t.alias, table)) table_known = true;
      }
    }
    if (!table_known) {
      return Status::KeyError("missing FROM-clause entry for table \"{}\"", table)
          .WithSqlState(sqlstate::kUndefinedTable)
          .WithPosition(e.location);
    }
    return Status::KeyError("column {}.{} does not exist", table, e.names.back())
        .WithSqlState(sqlstate::kUndefinedColumn)
        .WithPosition(e.location);
  }
  return Status::KeyError("column \"{}\" does not exist", e.names.back())
      .WithSqlState(sqlstate::kUndefinedColumn)
      .WithPosition(e.location);
}

Result<ExprPtr> ExpressionBinder::BindField(ExprPtr base, const std::string& name, int location) {
  const TypeRef type = base->return_type;
  if (type->id != TypeId::kStruct) {
    return Status::TypeError("column notation .{} applied to type {}, which is not a composite type",
                             name, PgTypeName(*type))
        .WithSqlState(sqlstate::kWrongObjectType)
        .WithPosition(location);
  }
  int index = -1;
  for (size_t i = 0; i < type->children.size() && index < 0; ++i) {
    if (type->children[i]->name == name) index = static_cast<int>(i);
  }
  for (size_t i = 0; i < type->children.size() && index < 0; ++i) {
    if (IdentifierEquals(type->children[i]->name, name)) index = static_cast<int>(i);
  }
  if (index < 0) {
    return Status::KeyError("column \"{}\" not found in data type {}", name, PgTypeName(*type))
        .WithSqlState(sqlstate::kUndefinedColumn)
        .WithPosition(location);
  }
  std::vector<ExprPtr> args;
  args.push_back(std::move(base));
  args.push_back(MakeConstant(Value::Int32(index)));
  auto r = MakeFunction("__struct_field", std::move(args), false);
  if (!r.ok()) return r.status().WithPosition(location);
  // The result is the field's type (the registry's bind sees types, not the index).
  auto& f = (*r)->As<FunctionExpression>();
  f.function.return_type = type->children[static_cast<size_t>(index)]->type;
  f.return_type = f.function.return_type;
  f.alias = name;
  return r;
}

Result<ExprPtr> ExpressionBinder::BindConstant(const ParsedExpr& e) {
  switch (e.literal) {
    case LiteralKind::kNull:
      return MakeConstant(Value::Null(null()));
    case LiteralKind::kBool:
      return MakeConstant(Value::Boolean(e.bval));
    case LiteralKind::kInteger:
      if (e.ival >= INT32_MIN && e.ival <= INT32_MAX) {
        return MakeConstant(Value::Int32(static_cast<int32_t>(e.ival)));
      }
      return MakeConstant(Value::Int64(e.ival));
    case LiteralKind::kNumeric: {
      // PostgreSQL types 1.5 as numeric; exponents and huge values too
      // (1.5e-3 is the numeric 0.0015).
      int precision = 0, scale = 0;
      const std::optional<std::string> plain = ExpandDecimalExponent(e.text);
      const std::string& text = plain ? *plain : e.text;
      if (DecimalLiteralShape(text, &precision, &scale) && precision <= kMaxDecimalPrecision) {
        int128_t v;
        bool overflow;
        if (ParseSqlDecimal(text, precision, scale, &v, &overflow) && !overflow) {
          return MakeConstant(Value::Decimal(v, precision, scale));
        }
      }
      double d;
      if (ParseSqlDouble(e.text, &d)) {
        // Beyond numeric(38): double precision (PostgreSQL's numeric has
        // no such limit).
        return MakeConstant(Value::Double(d));
      }
      return Status::Invalid("invalid numeric literal {}", e.text)
          .WithSqlState(sqlstate::kInvalidTextRepresentation)
          .WithPosition(e.location);
    }
    case LiteralKind::kString: {
      auto c = MakeConstant(Value::Text(e.text));
      c->unknown_literal = true;
      return c;
    }
  }
  return Status::Invalid("bad literal");
}

Result<ExprPtr> ExpressionBinder::BindOperator(const ParsedExpr& e) {
  std::vector<ExprPtr> args;
  for (const auto& c : e.children) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr b, Bind(*c));
    args.push_back(std::move(b));
  }
  std::string op = e.name;
  const auto is_list = [](const ExprPtr& x) { return x->return_type->id == TypeId::kList; };
  if (args.size() == 2 && (op.rfind("__any_", 0) == 0 || op.rfind("__all_", 0) == 0)) {
    // x op ANY/ALL (array): an untyped literal on either side takes the
    // other side's type ('{1,2}' an array of x's type).
    if (args[1]->unknown_literal && !args[0]->unknown_literal && !is_list(args[0]) &&
        args[0]->return_type->id != TypeId::kNull) {
      QUIVER_ASSIGN_OR_RAISE(args[1], CastTo(std::move(args[1]), ArrayOf(args[0]->return_type), e.location, true));
    }
    if (args[0]->unknown_literal && is_list(args[1])) {
      QUIVER_ASSIGN_OR_RAISE(args[0], CastTo(std::move(args[0]), ArrayElementType(*args[1]->return_type), e.location, true));
    }
    return BindOperatorCall(op, std::move(args), e.location);
  }
  if (args.size() == 2 && (is_list(args[0]) || is_list(args[1])) &&
      (op == "||" || op == "@>" || op == "<@" || op == "&&")) {
    // Array operators: an untyped literal or NULL takes the other side's array type.
    for (int i = 0; i < 2; ++i) {
      ExprPtr& x = args[static_cast<size_t>(i)];
      const ExprPtr& other = args[static_cast<size_t>(1 - i)];
      if ((x->unknown_literal || x->return_type->id == TypeId::kNull) && is_list(other)) {
        QUIVER_ASSIGN_OR_RAISE(x, CastTo(std::move(x), other->return_type, e.location, true));
      }
    }
    const bool l = is_list(args[0]), r = is_list(args[1]);
    const std::string fn = op == "@>"   ? "__array_contains"
                           : op == "<@" ? "__array_contained"
                           : op == "&&" ? "__array_overlap"
                           : l && r     ? "array_cat"
                           : l          ? "array_append"
                                        : "array_prepend";
    const std::string types = PgTypeName(*args[0]->return_type) + " " + op + " " + PgTypeName(*args[1]->return_type);
    auto res = MakeFunction(fn, std::move(args), false);
    if (!res.ok()) {
      if (res.status().SqlState() != std::string(sqlstate::kDatatypeMismatch)) return res.status().WithPosition(e.location);
      return Status::TypeError("operator does not exist: {}", types)
          .WithSqlState(sqlstate::kUndefinedFunction)
          .WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
          .WithPosition(e.location);
    }
    (*res)->alias = "?column?";
    return res;
  }
  if (op == "||" && args.size() == 2) {
    // jsonb || jsonb merges values (a jsonb operator); concatenating their
    // text would be wrong.
    // An untyped literal or NULL beside a jsonb is jsonb, as in PostgreSQL.
    const bool l = IsJsonb(*args[0]->return_type), r = IsJsonb(*args[1]->return_type);
    const auto untyped = [](const ExprPtr& x) {
      return x->unknown_literal || x->return_type->id == TypeId::kNull;
    };
    if ((l && (r || untyped(args[1]))) || (r && untyped(args[0]))) {
      for (auto& a : args) {
        if (untyped(a)) {
          QUIVER_ASSIGN_OR_RAISE(a, CastTo(std::move(a), jsonb_type(), e.location, true));
        }
      }
      return BindOperatorCall(op, std::move(args), e.location);
    }
    // Otherwise json or jsonb concatenates as text only beside a text
    // (anynonarray || text): json || jsonb, jsonb || integer do not exist.
    const auto texty = [&](const ExprPtr& x) {
      return untyped(x) ||
             (x->return_type->id == TypeId::kString && !IsJsonOrJsonb(*x->return_type));
    };
    if ((IsJsonOrJsonb(*args[0]->return_type) || IsJsonOrJsonb(*args[1]->return_type)) &&
        !texty(args[0]) && !texty(args[1])) {
      return Status::TypeError("operator does not exist: {} || {}", PgTypeName(*args[0]->return_type),
                               PgTypeName(*args[1]->return_type))
          .WithSqlState(sqlstate::kUndefinedFunction)
          .WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
          .WithPosition(e.location);
    }
  }
  if (op == "||") {
    // anything || text: the non-text side is converted to text (anynonarray || text).
    for (auto& a : args) {
      if (a->unknown_literal) {
        a = ResolveUnknown(std::move(a));
      } else if ((a->return_type->id != TypeId::kString || IsJsonOrJsonb(*a->return_type)) &&
                 a->return_type->id != TypeId::kNull) {
        a = MakeCast(std::move(a), utf8());
      }
    }
  }
  if (op == "^") op = "power";
  if (op == "power") return BindOperatorCall("power", std::move(args), e.location);
  // Unary minus on a constant folds right away (int4 '-1' stays int4).
  QUIVER_ASSIGN_OR_RAISE(ExprPtr call, BindOperatorCall(op, std::move(args), e.location));
  if (op == "->" || op == "->>") return FuseJsonbCastField(std::move(call));
  return call;
}

// `x::jsonb -> 'k'` (and ->>) for text or json x: the cast would normalise
// the whole document only for `->` to take one field of it;
// __jsonb_field[_text]_of_text (functions/json_functions.cc) normalises just
// that field, with the cast's errors. Only for a constant key, so that a
// NULL key still meets the cast's errors.
ExprPtr ExpressionBinder::FuseJsonbCastField(ExprPtr call) {
  const auto* f = call->TryAs<FunctionExpression>();
  if (f == nullptr || (f->name() != "->" && f->name() != "->>") || call->children.size() != 2) {
    return call;
  }
  const Expression& cast = *call->children[0];
  const Expression& key = *call->children[1];
  if (cast.type != ExprType::kCast || !IsJsonb(*cast.return_type) || cast.children.size() != 1) {
    return call;
  }
  const DataType& from = *cast.children[0]->return_type;
  const bool texty = from.id == TypeId::kString && (ExtensionName(from).empty() || IsJson(from));
  const auto* k = key.TryAs<ConstantExpression>();
  if (!texty || k == nullptr || k->value.is_null() || key.return_type->id != TypeId::kString ||
      !ExtensionName(*key.return_type).empty()) {
    return call;
  }
  std::vector<ExprPtr> fused;
  fused.push_back(cast.children[0]->Copy());
  fused.push_back(key.Copy());
  const bool as_text = f->name() == "->>";
  auto made = MakeFunction(as_text ? "__jsonb_field_text_of_text" : "__jsonb_field_of_text",
                           std::move(fused), false);
  if (!made.ok()) return call;
  (*made)->alias = call->alias;
  return std::move(made).ValueOrDie();
}

Result<ExprPtr> ExpressionBinder::BindBoolean(const ParsedExpr& e) {
  std::vector<ExprPtr> args;
  const char* name = e.kind == ExprKind::kAnd ? "AND" : e.kind == ExprKind::kOr ? "OR" : "NOT";
  for (const auto& c : e.children) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr b, Bind(*c));
    if (b->unknown_literal || b->return_type->id == TypeId::kNull) {
      QUIVER_ASSIGN_OR_RAISE(b, CastTo(std::move(b), boolean(), c->location, true));
    }
    if (b->return_type->id != TypeId::kBool) {
      return Status::TypeError("argument of {} must be type boolean, not type {}", name,
                               PgTypeName(*b->return_type))
          .WithSqlState(sqlstate::kDatatypeMismatch)
          .WithPosition(c->location);
    }
    args.push_back(std::move(b));
  }
  if (e.kind == ExprKind::kNot) return MakeNot(std::move(args[0]));
  auto out = std::make_unique<OperatorExpression>(
      e.kind == ExprKind::kAnd ? ExprType::kAnd : ExprType::kOr, boolean());
  out->children = std::move(args);
  return ExprPtr(std::move(out));
}

Result<ExprPtr> ExpressionBinder::BindBoolTest(const ParsedExpr& e) {
  QUIVER_ASSIGN_OR_RAISE(ExprPtr x, Bind(*e.children[0]));
  QUIVER_ASSIGN_OR_RAISE(x, CastTo(std::move(x), boolean(), e.location, true));
  if (x->return_type->id != TypeId::kBool) {
    return Status::TypeError("argument of IS {} must be type boolean, not type {}", e.name,
                             PgTypeName(*x->return_type))
        .WithSqlState(sqlstate::kDatatypeMismatch)
        .WithPosition(e.location);
  }
  auto coalesce = [](ExprPtr v, bool dflt) {
    auto c = std::make_unique<OperatorExpression>(ExprType::kCoalesce, boolean());
    c->children.push_back(std::move(v));
    c->children.push_back(MakeConstant(Value::Boolean(dflt)));
    return ExprPtr(std::move(c));
  };
  ExprPtr out;
  if (e.name == "unknown") {
    out = std::make_unique<OperatorExpression>(e.negated ? ExprType::kIsNotNull : ExprType::kIsNull,
                                               boolean());
    out->children.push_back(std::move(x));
    return out;
  }
  if (e.name == "true") {
    out = coalesce(std::move(x), false);  // IS TRUE
  } else {
    out = coalesce(MakeNot(std::move(x)), false);  // IS FALSE
  }
  if (e.negated) out = MakeNot(std::move(out));
  return out;
}

Result<ExprPtr> ExpressionBinder::BindCast(const ParsedExpr& e) {
  ExprPtr x;
  if (e.children[0]->kind == ExprKind::kArray && e.children[0]->children.empty() && e.type_name.is_array) {
    // ARRAY[]::T[]: an empty array (of text, cast below).
    QUIVER_ASSIGN_OR_RAISE(x, MakeFunction("__array_construct", {}, false));
  } else {
    QUIVER_ASSIGN_OR_RAISE(x, Bind(*e.children[0]));
  }
  auto to_r = TypeFromSqlName(e.type_name.name, e.type_name.modifiers);
  if (!to_r.ok())
    return to_r.status().WithPosition(e.type_name.location >= 0 ? e.type_name.location
                                                                : e.location);
  TypeRef to = *to_r;
  if (to->id == TypeId::kDecimal128 && e.type_name.modifiers.empty()) {
    // Bare `numeric`: keep the input's digits.
    const DataType& from = *x->return_type;
    if (IsIntegerType(from) || from.id == TypeId::kDecimal128) {
      to = DecimalTypeFor(from);
    } else if (x->unknown_literal && x->type == ExprType::kConstant) {
      int p, s;
      const std::string& literal = x->As<ConstantExpression>().value.str();
      const std::optional<std::string> plain = ExpandDecimalExponent(literal);
      if (DecimalLiteralShape(plain ? *plain : literal, &p, &s))
        to = decimal128(std::min(kMaxDecimalPrecision, std::max(p, 18)), s);
    } else {
      to = decimal128(kMaxDecimalPrecision, 16);
    }
  }
  if (e.type_name.is_array) {
    // T[] (and T[][], the same type in PostgreSQL): an array of T; bare
    // numeric elements keep numeric's default scale.
    if (to->id == TypeId::kDecimal128 && e.type_name.modifiers.empty()) to = decimal128(kMaxDecimalPrecision, 6);
    if (IsJsonOrJsonb(*to)) {
      return Status::Unsupported("arrays of {}", PgTypeName(*to))
          .WithSqlState(sqlstate::kFeatureNotSupported)
          .WithPosition(e.location);
    }
    to = ArrayOf(to);
  }
  QUIVER_ASSIGN_OR_RAISE(ExprPtr out, CastTo(std::move(x), to, e.location, true));
  if (!e.type_name.is_array && !e.type_name.modifiers.empty() && to->id == TypeId::kString &&
      (e.type_name.name == "varchar" || e.type_name.name == "bpchar")) {
    // An explicit cast to varchar(n) / char(n) cuts the text to n
    // characters without an error, as PostgreSQL's (char(n) is not padded:
    // Quiver keeps it as text).
    std::vector<ExprPtr> args;
    args.push_back(std::move(out));
    args.push_back(MakeConstant(Value::Int64(e.type_name.modifiers[0])));
    QUIVER_ASSIGN_OR_RAISE(out, MakeFunction("left", std::move(args), false));
    out->alias = e.type_name.name;
    out->cast_length = static_cast<int32_t>(e.type_name.modifiers[0]);
    out->cast_blank_padded = e.type_name.name == "bpchar";
  } else if (!e.type_name.is_array && to->id == TypeId::kString && ExtensionName(*to).empty()) {
    out->cast_length = -1;  // text, varchar: no length (the cast itself may be a no-op)
  }
  return out;
}

Result<ExprPtr> ExpressionBinder::BindCase(const ParsedExpr& e) {
  ExprPtr arg;
  if (e.case_arg) {
    QUIVER_ASSIGN_OR_RAISE(arg, Bind(*e.case_arg));
  }
  std::vector<ExprPtr> conditions, results;
  for (size_t i = 0; i + 1 < e.children.size(); i += 2) {
    ExprPtr cond;
    if (arg) {
      QUIVER_ASSIGN_OR_RAISE(ExprPtr v, Bind(*e.children[i]));
      std::vector<ExprPtr> args;
      args.push_back(arg->Copy());
      args.push_back(std::move(v));
      QUIVER_ASSIGN_OR_RAISE(cond, BindOperatorCall("=", std::move(args), e.children[i]->location));
    } else {
      QUIVER_ASSIGN_OR_RAISE(cond, BindPredicate(*e.children[i], "CASE/WHEN"));
    }
    conditions.push_back(std::move(cond));
    QUIVER_ASSIGN_OR_RAISE(ExprPtr r, Bind(*e.children[i + 1]));
    results.push_back(std::move(r));
  }
  if (e.case_else) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr r, Bind(*e.case_else));
    results.push_back(std::move(r));
  } else {
    results.push_back(MakeConstant(Value::Null(null())));
  }
  QUIVER_RETURN_NOT_OK(Unify(&results, "CASE", e.location));
  TypeRef type = results[0]->return_type;
  for (const auto& r : results) {
    if (r->return_type->id != TypeId::kNull) type = r->return_type;
  }
  auto out = std::make_unique<OperatorExpression>(ExprType::kCase, type);
  for (size_t i = 0; i < conditions.size(); ++i) {
    out->children.push_back(std::move(conditions[i]));
    QUIVER_ASSIGN_OR_RAISE(ExprPtr r, CastTo(std::move(results[i]), type, e.location, false));
    out->children.push_back(std::move(r));
  }
  QUIVER_ASSIGN_OR_RAISE(ExprPtr els, CastTo(std::move(results.back()), type, e.location, false));
  out->children.push_back(std::move(els));
  out->alias = "case";
  return ExprPtr(std::move(out));
}

Result<ExprPtr> ExpressionBinder::BindCoalesce(const ParsedExpr& e) {
  std::vector<ExprPtr> args;
  for (const auto& c : e.children) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr b, Bind(*c));
    args.push_back(std::move(b));
  }
  QUIVER_RETURN_NOT_OK(Unify(&args, "COALESCE", e.location));
  TypeRef type = args[0]->return_type;
  for (const auto& a : args) {
    if (a->return_type->id != TypeId::kNull) type = a->return_type;
  }
  auto out = std::make_unique<OperatorExpression>(ExprType::kCoalesce, type);
  for (auto& a : args) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr c, CastTo(std::move(a), type, e.location, false));
    out->children.push_back(std::move(c));
  }
  out->alias = "coalesce";
  return ExprPtr(std::move(out));
}

Result<ExprPtr> ExpressionBinder::BindGreatest(const ParsedExpr& e) {
  // GREATEST/LEAST ignore NULLs: a chain of CASEs over the unified type.
  std::vector<ExprPtr> args;
  for (const auto& c : e.children) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr b, Bind(*c));
    args.push_back(std::move(b));
  }
  QUIVER_RETURN_NOT_OK(Unify(&args, e.name == "greatest" ? "GREATEST" : "LEAST", e.location));
  const char* op = e.name == "greatest" ? ">=" : "<=";
  ExprPtr acc = std::move(args[0]);
  for (size_t i = 1; i < args.size(); ++i) {
    ExprPtr b = std::move(args[i]);
    const TypeRef type = acc->return_type->id == TypeId::kNull ? b->return_type : acc->return_type;
    auto is_null = [](const ExprPtr& x) {
      auto n = std::make_unique<OperatorExpression>(ExprType::kIsNull, boolean());
      n->children.push_back(x->Copy());
      return ExprPtr(std::move(n));
    };
    std::vector<ExprPtr> cmp_args;
    cmp_args.push_back(acc->Copy());
    cmp_args.push_back(b->Copy());
    QUIVER_ASSIGN_OR_RAISE(ExprPtr cmp, BindOperatorCall(op, std::move(cmp_args), e.location));
    auto c = std::make_unique<OperatorExpression>(ExprType::kCase, type);
    c->children.push_back(is_null(acc));
    c->children.push_back(MakeCast(b->Copy(), type));
    c->children.push_back(is_null(b));
    c->children.push_back(MakeCast(acc->Copy(), type));
    c->children.push_back(std::move(cmp));
    c->children.push_back(MakeCast(acc->Copy(), type));
    c->children.push_back(MakeCast(std::move(b), type));
    acc = std::move(c);
  }
  acc->alias = e.name;
  return acc;
}

Result<ExprPtr> ExpressionBinder::BindIn(const ParsedExpr& e) {
  QUIVER_ASSIGN_OR_RAISE(ExprPtr probe, Bind(*e.children[0]));
  std::vector<ExprPtr> items;
  for (size_t i = 1; i < e.children.size(); ++i) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr b, Bind(*e.children[i]));
    items.push_back(std::move(b));
  }
  // Compare through "=" resolution so IN accepts exactly what = accepts.
  std::vector<ExprPtr> all;
  all.push_back(std::move(probe));
  for (auto& i : items) all.push_back(std::move(i));
  QUIVER_RETURN_NOT_OK(Unify(&all, "IN", e.location));
  bool all_constant = true;
  for (size_t i = 1; i < all.size(); ++i) {
    if (all[i]->type != ExprType::kConstant) all_constant = false;
  }
  // Check that = exists for the unified type.
  {
    std::vector<ExprPtr> test;
    test.push_back(all[0]->Copy());
    test.push_back(all[all.size() > 1 ? 1 : 0]->Copy());
    QUIVER_RETURN_NOT_OK(BindOperatorCall("=", std::move(test), e.location).status());
  }
  if (all_constant) {
    ExprPtr probe = std::move(all[0]);
    all.erase(all.begin());
    return MakeIn(std::move(probe), std::move(all), e.negated);
  }
  // Non-constant lists: a chain of ORs (same NULL semantics).
  std::vector<ExprPtr> ors;
  for (size_t i = 1; i < all.size(); ++i) {
    std::vector<ExprPtr> args;
    args.push_back(all[0]->Copy());
    args.push_back(std::move(all[i]));
    QUIVER_ASSIGN_OR_RAISE(ExprPtr eq, BindOperatorCall("=", std::move(args), e.location));
    ors.push_back(std::move(eq));
  }
  ExprPtr out;
  if (ors.size() == 1) {
    out = std::move(ors[0]);
  } else {
    out = std::make_unique<OperatorExpression>(ExprType::kOr, boolean());
    out->children = std::move(ors);
  }
  if (e.negated) out = MakeNot(std::move(out));
  return out;
}

Result<ExprPtr> ExpressionBinder::BindBetween(const ParsedExpr& e) {
  QUIVER_ASSIGN_OR_RAISE(ExprPtr x, Bind(*e.children[0]));
  QUIVER_ASSIGN_OR_RAISE(ExprPtr lo, Bind(*e.children[1]));
  QUIVER_ASSIGN_OR_RAISE(ExprPtr hi, Bind(*e.children[2]));
  auto range = [&](ExprPtr a, ExprPtr b) -> Result<ExprPtr> {
    std::vector<ExprPtr> ge, le;
    ge.push_back(x->Copy());
    ge.push_back(std::move(a));
    le.push_back(x->Copy());
    le.push_back(std::move(b));
    QUIVER_ASSIGN_OR_RAISE(ExprPtr c1, BindOperatorCall(">=", std::move(ge), e.location));
    QUIVER_ASSIGN_OR_RAISE(ExprPtr c2, BindOperatorCall("<=", std::move(le), e.location));
    std::vector<ExprPtr> both;
    both.push_back(std::move(c1));
    both.push_back(std::move(c2));
    return MakeAnd(std::move(both));
  };
  ExprPtr out;
  if (e.symmetric) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr a, range(lo->Copy(), hi->Copy()));
    QUIVER_ASSIGN_OR_RAISE(ExprPtr b, range(std::move(hi), std::move(lo)));
    out = std::make_unique<OperatorExpression>(ExprType::kOr, boolean());
    out->children.push_back(std::move(a));
    out->children.push_back(std::move(b));
  } else {
    QUIVER_ASSIGN_OR_RAISE(out, range(std::move(lo), std::move(hi)));
  }
  if (e.negated) out = MakeNot(std::move(out));
  return out;
}

Result<ExprPtr> ExpressionBinder::BindLike(const ParsedExpr& e) {
  QUIVER_ASSIGN_OR_RAISE(ExprPtr text, Bind(*e.children[0]));
  QUIVER_ASSIGN_OR_RAISE(ExprPtr pattern, Bind(*e.children[1]));
  if (e.children.size() > 2) {
    // ESCAPE 'c': rewrite the (constant) pattern to use backslash escapes.
    QUIVER_ASSIGN_OR_RAISE(ExprPtr esc, Bind(*e.children[2]));
    if (esc->type != ExprType::kConstant || pattern->type != ExprType::kConstant ||
        esc->As<ConstantExpression>().value.is_null() ||
        pattern->As<ConstantExpression>().value.is_null()) {
      return Status::Unsupported("LIKE ... ESCAPE with non-constant operands")
          .WithPosition(e.location);
    }
    const std::string& ec = esc->As<ConstantExpression>().value.str();
    if (ec.size() > 1) {
      return Status::Invalid("invalid escape string (escape string must be empty or one character)")
          .WithSqlState(sqlstate::kInvalidEscapeSequence)
          .WithPosition(e.location);
    }
    std::string p = pattern->As<ConstantExpression>().value.str(), out;
    for (size_t i = 0; i < p.size(); ++i) {
      if (!ec.empty() && p[i] == ec[0] && i + 1 < p.size()) {
        out += '\\';
        out += p[++i];
      } else if (p[i] == '\\' && (ec.empty() || ec[0] != '\\')) {
        out += "\\\\";
      } else {
        out += p[i];
      }
    }
    const bool unknown = pattern->unknown_literal;
    pattern = MakeConstant(Value::Text(out));
    pattern->unknown_literal = unknown;
  }
  std::vector<ExprPtr> args;
  args.push_back(std::move(text));
  args.push_back(std::move(pattern));
  const std::string name = (e.negated ? "not " : "") + e.name;
  return BindOperatorCall(name, std::move(args), e.location);
}

// grouping(a, b, ...): a bit per argument, the first the most significant,
// set when the row's grouping set leaves that key out (rolled up). The
// value depends only on the grouping set, so it is a CASE over the set id.
Result<ExprPtr> ExpressionBinder::BindGrouping(const ParsedExpr& e) {
  const Binder::GroupingContext* ctx = binder_->grouping_;
  if (ctx == nullptr || (clause_ != Clause::kSelect && clause_ != Clause::kHaving &&
                         clause_ != Clause::kOrderBy)) {
    return Status::Invalid("grouping operations are not allowed here").WithPosition(e.location);
  }
  if (e.children.size() > 31) {
    return Status::Invalid("GROUPING must have fewer than 32 arguments").WithPosition(e.location);
  }
  std::vector<int> keys;
  for (const auto& a : e.children) {
    ExpressionBinder eb(binder_, Clause::kGroupBy);
    QUIVER_ASSIGN_OR_RAISE(ExprPtr arg, eb.Bind(*a));
    arg = ResolveUnknown(std::move(arg));
    int found = -1;
    for (size_t i = 0; i < ctx->groups->size() && found < 0; ++i) {
      if ((*ctx->groups)[i]->Equals(*arg)) found = static_cast<int>(i);
    }
    if (found < 0) {
      return Status::Invalid(
                 "arguments to GROUPING must be grouping expressions of the associated query "
                 "level")
          .WithPosition(a->location);
    }
    keys.push_back(found);
  }
  auto value_of = [&](const std::vector<int>& set) {
    int32_t v = 0;
    for (int k : keys) {
      v = v * 2 + (std::find(set.begin(), set.end(), k) == set.end() ? 1 : 0);
    }
    return v;
  };
  const auto& sets = *ctx->sets;
  ExprPtr out;
  if (sets.empty()) {
    out = MakeConstant(Value::Int32(0));  // a plain GROUP BY: every key is grouped
  } else {
    // CASE WHEN id IN (sets giving v1) THEN v1 ... ELSE v_last END.
    std::vector<int32_t> values;
    for (const auto& set : sets) {
      const int32_t v = value_of(set);
      if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
    }
    if (values.size() == 1) {
      out = MakeConstant(Value::Int32(values[0]));
    } else {
      ExprPtr id = MakeColumnRef({ctx->group_index, static_cast<int>(ctx->groups->size())},
                                 int32(), "grouping set");
      std::vector<ExprPtr> children;
      for (size_t j = 0; j + 1 < values.size(); ++j) {
        std::vector<ExprPtr> ids;
        for (size_t i = 0; i < sets.size(); ++i) {
          if (value_of(sets[i]) == values[j]) {
            ids.push_back(MakeConstant(Value::Int32(static_cast<int32_t>(i))));
          }
        }
        children.push_back(MakeIn(id->Copy(), std::move(ids), false));
        children.push_back(MakeConstant(Value::Int32(values[j])));
      }
      children.push_back(MakeConstant(Value::Int32(values.back())));
      out = MakeOperator(ExprType::kCase, int32(), std::move(children));
    }
  }
  out->alias = "grouping";
  return out;
}

Result<ExprPtr> ExpressionBinder::BindFunction(const ParsedExpr& e) {
  const std::string& name = e.name;
  const FunctionRegistry& reg = FunctionRegistry::Get();
  const bool is_aggregate =
      reg.HasAggregate(name) || (name == "count") || IsJsonAggregate(name);
  if (name == "grouping" && !is_aggregate && !e.has_window) return BindGrouping(e);
  if (name == "array_agg" && e.distinct) {
    // The DISTINCT machinery drops NULLs (as count(DISTINCT) must); array_agg keeps them.
    return Status::Unsupported("array_agg(DISTINCT ...)").WithSqlState(sqlstate::kFeatureNotSupported).WithPosition(e.location);
  }
  if (e.has_window && IsJsonAggregate(name)) {
    return Status::Unsupported("{} as a window function", name).WithPosition(e.location);
  }
  if (e.has_window) return BindWindow(e);
  if (is_aggregate) return BindAggregate(e);
  if (!e.agg_order.empty() && reg.HasScalar(name)) {
    return Status::Invalid("ORDER BY specified, but {} is not an aggregate function", name)
        .WithPosition(e.location);
  }
  if (e.distinct || e.star) {
    return Status::Invalid("DISTINCT specified, but {} is not an aggregate function", name)
        .WithSqlState(sqlstate::kWrongObjectType)
        .WithPosition(e.location);
  }
  if (e.filter) {
    return Status::Invalid("FILTER specified, but {} is not an aggregate function", name)
        .WithSqlState(sqlstate::kWrongObjectType)
        .WithPosition(e.location);
  }
  if (name == "make_interval" && e.children.size() <= 7) {
    // make_interval(years, months, weeks, days, hours, mins, secs), each
    // optional and nameable (days => 10), as PostgreSQL's defaults of 0.
    static const char* const kParams[] = {"years", "months", "weeks", "days", "hours", "mins", "secs"};
    std::vector<ExprPtr> args(7);
    for (size_t k = 0; k < e.children.size(); ++k) {
      size_t slot = k;
      if (!e.arg_names[k].empty()) {
        slot = 7;
        for (size_t p = 0; p < 7; ++p) {
          if (e.arg_names[k] == kParams[p]) slot = p;
        }
        if (slot < 7 && args[slot] != nullptr) {
          return Status::Invalid("argument name \"{}\" used more than once", e.arg_names[k])
              .WithSqlState(sqlstate::kSyntaxError)
              .WithPosition(e.location);
        }
        if (slot == 7) {
          return Status::KeyError("function make_interval({} => ...) does not exist", e.arg_names[k])
              .WithSqlState(sqlstate::kUndefinedFunction)
              .WithPosition(e.location);
        }
      }
      QUIVER_ASSIGN_OR_RAISE(args[slot], Bind(*e.children[k]));
    }
    for (size_t p = 0; p < 7; ++p) {
      if (args[p] == nullptr) args[p] = MakeConstant(p == 6 ? Value::Double(0) : Value::Int64(0));
    }
    auto f = MakeFunction(name, std::move(args), false);
    if (!f.ok()) return f.status().WithPosition(e.location);
    ExprPtr out = std::move(f).ValueOrDie();
    out->alias = name;
    return out;
  }
  for (const auto& n : e.arg_names) {
    if (!n.empty()) {
      return Status::Invalid("function {} does not take named arguments", name)
          .WithSqlState(sqlstate::kUndefinedFunction)
          .WithPosition(e.location);
    }
  }
  std::vector<ExprPtr> args;
  for (const auto& c : e.children) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr b, BindArgument(name, *c));
    args.push_back(std::move(b));
  }
  if (!reg.HasScalar(name)) {
    if (IsJsonTableFunction(name)) {
      return Status::Unsupported(
                 "{} outside FROM (as a table function in FROM it takes constant arguments)",
                 name)
          .WithPosition(e.location);
    }
    if (name == "unnest" || name == "regexp_matches" || name == "regexp_split_to_table" ||
        name == "generate_series") {
      // The select list's calls became FROM items (sql/transform_select.cc);
      // anywhere else PostgreSQL refuses a set-returning function too.
      return Status::Unsupported("set-returning function {} is not allowed here", name)
          .WithSqlState(sqlstate::kFeatureNotSupported)
          .WithHint("Call it in the select list or in FROM.")
          .WithPosition(e.location);
    }
    if (name == "read_arrow" || name == "read_csv" || name == "read_parquet" ||
        name == "read_avro" || name == "read_iceberg" || name == "read_delta" ||
        name == "quiver_snapshots") {
      return Status::Invalid("table function {} can only appear in FROM", name)
          .WithSqlState(sqlstate::kWrongObjectType)
          .WithPosition(e.location);
    }
    std::vector<ArgInfo> infos;
    for (const auto& a : args) infos.push_back({a->return_type, a->unknown_literal});
    return reg.UndefinedFunction(name, CallSignature(name, infos)).WithPosition(e.location);
  }
  // PostgreSQL's "any" parameters: concat's values and concat_ws's and
  // format's after the first, as the text their type's output function
  // writes (booleans 't' / 'f'); quote_literal's and quote_nullable's
  // (anyelement) as their cast to text (booleans 'true' / 'false').
  {
    size_t first_any = SIZE_MAX;
    const bool cast_text = name == "quote_literal" || name == "quote_nullable";
    if (name == "concat" || cast_text) first_any = 0;
    if (name == "concat_ws" || name == "format") first_any = 1;
    for (size_t k = first_any; k < args.size(); ++k) {
      ExprPtr& a = args[k];
      if (a->unknown_literal) {
        a = ResolveUnknown(std::move(a));
      } else if (a->return_type->id == TypeId::kBool && !cast_text) {
        std::vector<ExprPtr> b;
        b.push_back(std::move(a));
        auto out = MakeFunction("__bool_out", std::move(b), false);
        if (!out.ok()) return out.status().WithPosition(e.location);
        a = std::move(out).ValueOrDie();
      } else if (a->return_type->id != TypeId::kString) {
        a = MakeCast(std::move(a), utf8());
      }
    }
  }
  // date_part/extract/date_trunc take the field as text.
  if ((name == "extract" || name == "date_part" || name == "date_trunc") && !args.empty()) {
    args[0] = ResolveUnknown(std::move(args[0]));
  }
  if (name == "extract" && args.size() == 2 && args[1]->unknown_literal) {
    QUIVER_ASSIGN_OR_RAISE(
        args[1], CastTo(std::move(args[1]), timestamp(TimeUnit::kMicro), e.location, true));
  }
  std::string field;
  if (name == "extract" && !args.empty() && args[0]->type == ExprType::kConstant &&
      !args[0]->As<ConstantExpression>().value.is_null()) {
    field = args[0]->As<ConstantExpression>().value.str();
    for (char& ch : field) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  int round_digits = INT32_MIN;
  if ((name == "round" || name == "trunc") && args.size() == 2 &&
      args[1]->type == ExprType::kConstant && !args[1]->As<ConstantExpression>().value.is_null() &&
      IsIntegerType(*args[1]->return_type)) {
    round_digits = static_cast<int>(args[1]->As<ConstantExpression>().value.integer());
  }
  // to_number's result scale is its template's: the template must be a constant.
  int to_number_scale = -1;
  if (name == "to_number" && args.size() == 2) {
    if (args[1]->type != ExprType::kConstant) {
      return Status::Unsupported(
                 "to_number with a template that is not a constant (the scale of its numeric "
                 "result comes from the template)")
          .WithPosition(e.location);
    }
    const Value& v = args[1]->As<ConstantExpression>().value;
    if (v.is_null() || v.str().empty()) {
      // PostgreSQL gives NULL for a NULL or empty template.
      ExprPtr c = MakeConstant(Value::Null(decimal128(kMaxDecimalPrecision, 0)));
      c->alias = name;
      return c;
    }
    // A template PostgreSQL refuses is refused when the call runs, as there.
    auto scale = ToNumberScale(v.str());
    to_number_scale = scale.ok() ? scale.ValueOrDie() : 0;
    if (to_number_scale > kMaxDecimalPrecision) {
      return Status::Unsupported("to_number with more than {} digits after the decimal point",
                                 kMaxDecimalPrecision)
          .WithPosition(e.location);
    }
  }
  auto f = MakeFunction(name, std::move(args), false);
  if (!f.ok()) return f.status().WithPosition(e.location);
  ExprPtr out = std::move(f).ValueOrDie();
  // Result scales that depend on constant arguments.
  if (to_number_scale >= 0) {
    out->return_type = decimal128(kMaxDecimalPrecision, to_number_scale);
    out->As<FunctionExpression>().function.return_type = out->return_type;
  }
  if (!field.empty() && (field == "second" || field == "seconds" || field == "epoch" ||
                         field == "millisecond" || field == "milliseconds" || field == "julian")) {
    out->return_type = decimal128(24, 6);
    out->As<FunctionExpression>().function.return_type = out->return_type;
  }
  if (round_digits != INT32_MIN && out->return_type->id == TypeId::kDecimal128) {
    const int s = std::clamp(round_digits, 0, out->return_type->scale);
    out->return_type = decimal128(out->return_type->precision, s);
    out->As<FunctionExpression>().function.return_type = out->return_type;
  }
  out->alias = name;
  return out;
}

namespace {

// Aggregates whose result does not depend on the order of their input: an
// ORDER BY in their call changes nothing (PostgreSQL accepts it too).
bool OrderInsensitive(const std::string& name) {
  static const char* const kNames[] = {
      "count",    "count_star", "sum",     "avg",        "min",        "max",
      "bool_and", "bool_or",    "every",   "variance",   "var_samp",   "var_pop",
      "stddev",   "stddev_samp", "stddev_pop", "corr", "covar_pop", "covar_samp", "regr_count",
      "regr_sxx", "regr_syy", "regr_sxy", "regr_avgx", "regr_avgy", "regr_r2", "regr_slope",
      "regr_intercept"};
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

}  // namespace

// ORDER BY inside an aggregate call: kept in *order_keys for aggregates that
// honour it (string_agg), dropped where order cannot change the result,
// refused elsewhere: never accepted and ignored.
Status ExpressionBinder::CheckAggregateOrder(const ParsedExpr& e, const std::string& name,
                                             const std::vector<ExprPtr>& args,
                                             std::vector<ExprPtr>* order_keys) {
  if (order_keys->empty()) return Status::OK();
  if (e.distinct) {
    // PostgreSQL's rule: sorting distinct values by something else is
    // ill-defined.
    for (size_t i = 0; i < order_keys->size(); ++i) {
      bool found = false;
      for (const auto& a : args) found |= a->Equals(*(*order_keys)[i]);
      if (!found) {
        return Status::Invalid(
                   "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument "
                   "list")
            .WithPosition(e.agg_order[i].expr->location);
      }
    }
  }
  if (name == "string_agg" || name == "array_agg") return Status::OK();
  if (OrderInsensitive(name)) {
    order_keys->clear();
    return Status::OK();
  }
  return Status::Unsupported("ORDER BY inside {}()", name).WithPosition(e.location);
}

Result<ExprPtr> ExpressionBinder::BindAggregate(const ParsedExpr& e) {
  std::string name = e.name;
  if (aggregates_ == nullptr) {
    const char* where = clause_ == Clause::kWhere     ? "WHERE"
                        : clause_ == Clause::kGroupBy ? "GROUP BY"
                        : clause_ == Clause::kJoinOn  ? "JOIN conditions"
                        : clause_ == Clause::kValues  ? "VALUES"
                        : clause_ == Clause::kLimit   ? "LIMIT"
                        : clause_ == Clause::kUpdate  ? "UPDATE"
                        : clause_ == Clause::kReturning ? "RETURNING"
                                                      : "this context";
    return Status::Invalid("aggregate functions are not allowed in {}", where)
        .WithSqlState(sqlstate::kGroupingError)
        .WithPosition(e.location);
  }
  if (inside_aggregate_) {
    return Status::Invalid("aggregate function calls cannot be nested")
        .WithSqlState(sqlstate::kGroupingError)
        .WithPosition(e.location);
  }
  inside_aggregate_ = true;
  std::vector<ExprPtr> args;
  Status st;
  for (const auto& c : e.children) {
    auto b = BindArgument(name, *c);
    if (!b.ok()) {
      st = b.status();
      break;
    }
    args.push_back(std::move(b).ValueOrDie());
  }
  std::vector<ExprPtr> order_keys;
  for (const auto& o : e.agg_order) {
    if (!st.ok()) break;
    auto b = Bind(*o.expr);
    if (!b.ok()) {
      st = b.status();
      break;
    }
    order_keys.push_back(ResolveUnknown(std::move(b).ValueOrDie()));
  }
  ExprPtr filter;
  if (st.ok() && e.filter) {
    auto f = BindPredicate(*e.filter, "FILTER");
    if (f.ok()) {
      filter = std::move(f).ValueOrDie();
    } else {
      st = f.status();
    }
  }
  inside_aggregate_ = false;
  QUIVER_RETURN_NOT_OK(st);
  const bool ordered_set = IsOrderedSetAggregate(name);
  if (ordered_set != e.within_group) {
    // PostgreSQL looks the call up with the direct and the ordering
    // arguments together: a plain call of an ordered-set aggregate with
    // one argument too many names it; others find no function.
    if (ordered_set && args.size() == (name == "mode" ? 1u : 2u)) {
      return Status::Invalid("WITHIN GROUP is required for ordered-set aggregate {}", name)
          .WithSqlState(sqlstate::kWrongObjectType)
          .WithPosition(e.location);
    }
    std::string signature = name + "(";
    size_t i = 0;
    for (const auto* list : {&args, &order_keys}) {
      for (const auto& a : *list) {
        signature += (i++ ? ", " : "") + (a->unknown_literal ? std::string("unknown")
                                                             : PgTypeName(*a->return_type));
      }
    }
    return FunctionRegistry::Get().UndefinedFunction(name, signature + ")").WithPosition(e.location);
  }
  if (ordered_set) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr x, BindOrderedSetAggregate(e, std::move(args), std::move(order_keys),
                                                              std::move(filter)));
    return x;
  }
  // json_agg and its kin are string_agg over the values' JSON text
  // (planner/bind_json.h); the result is wrapped below.
  const std::string json_aggregate = IsJsonAggregate(name) ? name : std::string();
  bool json_rows = false;
  if (!json_aggregate.empty()) {
    if (e.distinct) {
      // PostgreSQL sorts the distinct values by their type's order; string_agg
      // over their JSON text would not.
      return Status::Unsupported("{}(DISTINCT ...)", name).WithPosition(e.location);
    }
    json_rows = !args.empty() && JsonAggregateOfRows(name, *args[0]->return_type);
    QUIVER_ASSIGN_OR_RAISE(args, JsonAggregateArgs(name, std::move(args), e.location));
    name = "string_agg";
  }
  if (e.star) {
    if (name != "count")
      return Status::Invalid("{}(*) is not allowed", name)
          .WithSqlState(sqlstate::kWrongObjectType)
          .WithPosition(e.location);
    name = "count_star";
  }
  if (name == "count" && args.empty()) name = "count_star";
  std::vector<ArgInfo> infos;
  for (auto& a : args) {
    infos.push_back({a->return_type, a->unknown_literal});
  }
  auto bound = FunctionRegistry::Get().ResolveAggregate(name, infos);
  if (!bound.ok()) return bound.status().WithPosition(e.location);
  QUIVER_RETURN_NOT_OK(CheckAggregateOrder(e, name, args, &order_keys));
  if (!order_keys.empty()) {
    // string_agg(v, d ORDER BY k...) is __string_agg_ordered(v, d, spec, k...):
    // the state keeps each row's keys and sorts at the end; `spec` holds the
    // directions, one "A"/"D" and "F"/"L" (NULLS FIRST / LAST) pair per key.
    std::string spec;
    for (const auto& o : e.agg_order) {
      spec += o.descending ? 'D' : 'A';
      spec += o.nulls_first ? 'F' : 'L';
    }
    std::vector<ArgInfo> ordered_infos;
    for (const TypeRef& t : bound->arg_types) ordered_infos.push_back({t, false});
    ordered_infos.push_back({utf8(), false});
    for (const auto& k : order_keys) ordered_infos.push_back({k->return_type, false});
    auto ordered = FunctionRegistry::Get().ResolveAggregate("__" + name + "_ordered", ordered_infos);
    if (!ordered.ok()) return ordered.status().WithPosition(e.location);
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i]->unknown_literal) args[i] = ResolveUnknown(std::move(args[i]));
      args[i] = MakeCast(std::move(args[i]), bound->arg_types[i]);
    }
    args.push_back(MakeConstant(Value::Text(spec)));
    for (auto& k : order_keys) args.push_back(std::move(k));
    bound = std::move(ordered);
    for (size_t i = 0; i < args.size(); ++i) bound->arg_types[i] = args[i]->return_type;
  }
  auto agg = std::make_unique<AggregateExpression>(bound->function, bound->return_type);
  agg->distinct = e.distinct;
  agg->filter = std::move(filter);
  for (size_t i = 0; i < args.size(); ++i) {
    ExprPtr a = std::move(args[i]);
    if (a->unknown_literal) a = ResolveUnknown(std::move(a));
    agg->children.push_back(MakeCast(std::move(a), bound->arg_types[i]));
  }
  agg->alias = e.star ? "count" : e.name;
  // count(DISTINCT x) == count(x) when deduplication cannot matter: kept as is.
  for (size_t k = 0; k < aggregates_->size(); ++k) {
    if ((*aggregates_)[k]->Equals(*agg)) {
      ExprPtr ref =
          MakeColumnRef({aggregate_index_, static_cast<int>(k)}, agg->return_type, agg->alias);
      if (!json_aggregate.empty()) return WrapJsonAggregate(json_aggregate, std::move(ref), json_rows);
      return ref;
    }
  }
  const int k = static_cast<int>(aggregates_->size());
  TypeRef type = agg->return_type;
  std::string alias = agg->alias;
  aggregates_->push_back(std::move(agg));
  ExprPtr ref = MakeColumnRef({aggregate_index_, k}, type, alias);
  if (!json_aggregate.empty()) return WrapJsonAggregate(json_aggregate, std::move(ref), json_rows);
  return ref;
}

bool IsOrderedSetAggregate(const std::string& name) {
  return name == "percentile_cont" || name == "percentile_disc" || name == "mode";
}

// percentile_cont / percentile_disc (fraction) and mode () WITHIN GROUP
// (ORDER BY x): the aggregate name(x, spec), spec holding the order's
// direction and the fraction (functions/aggregates.cc). The fraction must
// be a constant; PostgreSQL's range check (22003) is made here, so it is
// reported even when a GROUP BY finds no groups (where PostgreSQL, which
// checks per group, reports nothing).
Result<ExprPtr> ExpressionBinder::BindOrderedSetAggregate(const ParsedExpr& e, std::vector<ExprPtr> args,
                                                          std::vector<ExprPtr> order_keys,
                                                          ExprPtr filter) {
  const std::string& name = e.name;
  const bool percentile = name != "mode";
  std::string signature = name + "(";
  {
    size_t i = 0;
    for (const auto* list : {&args, &order_keys}) {
      for (const auto& a : *list) {
        signature += (i++ ? ", " : "") + (a->unknown_literal ? std::string("unknown")
                                                             : PgTypeName(*a->return_type));
      }
    }
    signature += ")";
  }
  auto undefined = [&]() {
    return FunctionRegistry::Get().UndefinedFunction(name, signature).WithPosition(e.location);
  };
  if (order_keys.size() != 1 || args.size() != (percentile ? 1u : 0u)) return undefined();
  std::string spec = e.agg_order[0].descending ? "D" : "A";
  if (percentile) {
    ExprPtr f = ResolveUnknown(std::move(args[0]), float64());
    if (f->return_type->id == TypeId::kList || f->return_type->id == TypeId::kLargeList ||
        f->return_type->id == TypeId::kFixedSizeList) {
      return Status::Unsupported("{} with an array of fractions", name).WithPosition(e.location);
    }
    if (f->type != ExprType::kConstant) {
      return Status::Unsupported("{} with a fraction that is not a constant", name)
          .WithPosition(e.children[0]->location);
    }
    auto v = CastValue(f->As<ConstantExpression>().value, float64());
    if (!v.ok()) return v.status().WithPosition(e.children[0]->location);
    args[0] = std::move(f);
    if (v->is_null()) {
      // A NULL fraction gives NULL (for every group).
      TypeRef type = order_keys[0]->return_type;
      if (name == "percentile_cont" && type->id != TypeId::kIntervalMonthDayNano) type = float64();
      ExprPtr null = MakeConstant(Value::Null(type));
      null->alias = name;
      return null;
    }
    const double fraction = v->floating();
    if (!(fraction >= 0 && fraction <= 1)) {
      return Status::Invalid("percentile value {:g} is not between 0 and 1", fraction)
          .WithSqlState(sqlstate::kNumericValueOutOfRange);
    }
    spec += fmt::format(":{:.17g}", fraction);
  }
  ExprPtr key = ResolveUnknown(std::move(order_keys[0]));
  // Sorting json's or jsonb's text would not give PostgreSQL's order.
  if (IsJson(*key->return_type)) {
    return Status::Invalid("could not identify an ordering operator for type json")
        .WithSqlState(sqlstate::kUndefinedFunction)
        .WithHint("Use an explicit ordering operator or modify the query.")
        .WithPosition(e.agg_order[0].expr->location);
  }
  if (IsJsonb(*key->return_type)) {
    return Status::Unsupported("{} over jsonb values (jsonb's ordering is not implemented)", name)
        .WithPosition(e.agg_order[0].expr->location);
  }
  auto bound = FunctionRegistry::Get().ResolveAggregate(name, {{key->return_type, false}, {utf8(), false}});
  if (!bound.ok()) {
    if (bound.status().sql_state() == sqlstate::kUndefinedFunction) return undefined();
    return bound.status().WithPosition(e.location);
  }
  auto agg = std::make_unique<AggregateExpression>(bound->function, bound->return_type);
  agg->filter = std::move(filter);
  agg->children.push_back(MakeCast(std::move(key), bound->arg_types[0]));
  agg->children.push_back(MakeConstant(Value::Text(spec)));
  agg->alias = name;
  for (size_t k = 0; k < aggregates_->size(); ++k) {
    if ((*aggregates_)[k]->Equals(*agg)) {
      return MakeColumnRef({aggregate_index_, static_cast<int>(k)}, agg->return_type, agg->alias);
    }
  }
  const int k = static_cast<int>(aggregates_->size());
  TypeRef type = agg->return_type;
  aggregates_->push_back(std::move(agg));
  return MakeColumnRef({aggregate_index_, k}, type, name);
}

Status ExpressionBinder::ReplaceGroupKeys(ExprPtr* expr, const std::vector<ExprPtr>& groups,
                                          int group_index, int aggregate_index, int location,
                                          int window_index) {
  for (size_t i = 0; i < groups.size(); ++i) {
    if ((*expr)->Equals(*groups[i])) {
      std::string alias = (*expr)->alias.empty() ? groups[i]->alias : (*expr)->alias;
      *expr = MakeColumnRef({group_index, static_cast<int>(i)}, groups[i]->return_type, alias);
      return Status::OK();
    }
  }
  Expression& e = **expr;
  if (const auto* ref = e.TryAs<ColumnRefExpression>(); ref != nullptr && ref->depth == 0) {
    if (ref->binding.table == aggregate_index || ref->binding.table == group_index ||
        (window_index >= 0 && ref->binding.table == window_index))
      return Status::OK();
    return Status::Invalid(
               "column \"{}\" must appear in the GROUP BY clause or be used in an aggregate "
               "function",
               e.alias)
        .WithSqlState(sqlstate::kGroupingError)
        .WithPosition(location);
  }
  if (e.type == ExprType::kSubquery) return Status::OK();  // handled by the subquery planner
  for (auto& c : e.children) {
    QUIVER_RETURN_NOT_OK(
        ReplaceGroupKeys(&c, groups, group_index, aggregate_index, location, window_index));
  }
  return Status::OK();
}

Result<ExprPtr> ExpressionBinder::BindSubquery(const ParsedExpr& e) {
  auto sub = std::make_shared<BoundSubquery>();
  sub->kind = e.subquery_kind;
  sub->location = e.location;
  Binder child(binder_->state(), binder_);
  child.ctes_ = binder_->ctes_;
  child.cte_in_progress_ = binder_->cte_in_progress_;
  auto q = child.BindQuery(*e.subquery);
  if (!q.ok()) return q.status();
  if (sub->kind == sql::SubqueryKind::kScalar || sub->kind == sql::SubqueryKind::kAny ||
      sub->kind == sql::SubqueryKind::kAll) {
    if (q->types.size() != 1) {
      return Status::Invalid("{}", sub->kind == sql::SubqueryKind::kScalar
                                       ? "subquery must return only one column"
                                       : "subquery has too many columns")
          .WithSqlState(sqlstate::kSyntaxError)
          .WithPosition(e.location);
    }
    sub->type = q->types[0];
  }
  sub->plan = std::move(q->plan);
  sub->correlated = child.correlated();
  TypeRef type = sub->type;
  if (sub->kind == sql::SubqueryKind::kAny || sub->kind == sql::SubqueryKind::kAll) {
    QUIVER_ASSIGN_OR_RAISE(sub->test, Bind(*e.children[0]));
    sub->op = e.name;
    // Check the comparison and settle the types: left op right.
    std::vector<ExprPtr> args;
    args.push_back(sub->test->Copy());
    args.push_back(MakeColumnRef({-1, 0}, sub->type));
    QUIVER_ASSIGN_OR_RAISE(ExprPtr cmp, BindOperatorCall(sub->op, std::move(args), e.location));
    if (cmp->return_type->id != TypeId::kBool) {
      return Status::TypeError("operator {} must return type boolean", sub->op)
          .WithSqlState(sqlstate::kDatatypeMismatch)
          .WithPosition(e.location);
    }
    type = boolean();
  } else if (sub->kind == sql::SubqueryKind::kExists) {
    type = boolean();
  }
  ExprPtr out = std::make_unique<SubqueryExpression>(std::move(sub), std::move(type));
  out->alias = e.ToString();
  return out;
}

void DecrementDepth(Expression* expr) {
  std::function<void(Expression*)> walk = [&](Expression* x) {
    if (auto* ref = x->TryAs<ColumnRefExpression>(); ref != nullptr && ref->depth > 0) ref->depth--;
    for (auto& c : x->children) walk(c.get());
    if (auto* agg = x->TryAs<AggregateExpression>(); agg != nullptr && agg->filter)
      walk(agg->filter.get());
  };
  walk(expr);
}

}  // namespace quiver::plan
