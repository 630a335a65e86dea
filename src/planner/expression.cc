#include "planner/expression.h"

#include <functional>

#include "functions/cast.h"
#include "vector/sql_type.h"

namespace quiver::plan {

ExprPtr Expression::Copy() const {
  auto e = std::make_unique<Expression>(type, return_type);
  e->alias = alias;
  e->binding = binding;
  e->depth = depth;
  e->index = index;
  e->value = value;
  e->unknown_literal = unknown_literal;
  e->function = function;
  e->aggregate = aggregate;
  e->distinct = distinct;
  if (filter) e->filter = filter->Copy();
  e->negated = negated;
  for (const auto& c : children) e->children.push_back(c->Copy());
  e->subquery = subquery;
  return e;
}

namespace {

bool IsInfixOperator(const std::string& name) {
  static const char* kOps[] = {"+", "-", "*", "/", "%", "=", "<>", "<", "<=", ">", ">=", "||",
                               "like", "not like", "ilike", "not ilike", "is distinct from",
                               "is not distinct from"};
  for (const char* op : kOps) {
    if (name == op) return true;
  }
  return false;
}

}  // namespace

std::string Expression::ToString() const {
  auto join = [&](const char* sep) {
    std::string s;
    for (size_t i = 0; i < children.size(); ++i) {
      if (i) s += sep;
      s += children[i]->ToString();
    }
    return s;
  };
  switch (type) {
    case ExprType::kColumnRef:
      if (!alias.empty()) return alias;
      return fmt::format("#[{}.{}]", binding.table, binding.column);
    case ExprType::kBoundRef:
      if (!alias.empty()) return alias;
      return fmt::format("#{}", index);
    case ExprType::kConstant:
      return value.ToSqlLiteral();
    case ExprType::kFunction: {
      const std::string& name = function.function ? function.function->name : std::string("?");
      if (children.size() == 2 && IsInfixOperator(name)) {
        return "(" + children[0]->ToString() + " " + name + " " + children[1]->ToString() + ")";
      }
      if (children.size() == 1 && (name == "-" || name == "+")) return name + children[0]->ToString();
      return name + "(" + join(", ") + ")";
    }
    case ExprType::kCast:
      return "CAST(" + children[0]->ToString() + " AS " + PgTypeNameWithModifiers(*return_type) + ")";
    case ExprType::kCase: {
      std::string s = "CASE";
      for (size_t i = 0; i + 1 < children.size(); i += 2) {
        s += " WHEN " + children[i]->ToString() + " THEN " + children[i + 1]->ToString();
      }
      if (children.size() % 2 == 1) s += " ELSE " + children.back()->ToString();
      return s + " END";
    }
    case ExprType::kAnd:
      return "(" + join(" AND ") + ")";
    case ExprType::kOr:
      return "(" + join(" OR ") + ")";
    case ExprType::kNot:
      return "(NOT " + children[0]->ToString() + ")";
    case ExprType::kIsNull:
      return "(" + children[0]->ToString() + " IS NULL)";
    case ExprType::kIsNotNull:
      return "(" + children[0]->ToString() + " IS NOT NULL)";
    case ExprType::kIn: {
      std::string s = "(" + children[0]->ToString() + (negated ? " NOT IN (" : " IN (");
      for (size_t i = 1; i < children.size(); ++i) s += (i > 1 ? ", " : "") + children[i]->ToString();
      return s + "))";
    }
    case ExprType::kCoalesce:
      return "COALESCE(" + join(", ") + ")";
    case ExprType::kAggregate: {
      std::string name = aggregate ? aggregate->name : "?";
      if (name == "count_star") return "count(*)";
      std::string s = name + "(" + (distinct ? "DISTINCT " : "") + join(", ") + ")";
      if (filter) s += " FILTER (WHERE " + filter->ToString() + ")";
      return s;
    }
    case ExprType::kSubquery:
      return "(SUBQUERY)";
  }
  return "?";
}

bool Expression::Equals(const Expression& o) const {
  if (type != o.type || children.size() != o.children.size()) return false;
  if (!return_type->Equals(*o.return_type)) return false;
  switch (type) {
    case ExprType::kColumnRef:
      if (binding != o.binding || depth != o.depth) return false;
      break;
    case ExprType::kBoundRef:
      if (index != o.index) return false;
      break;
    case ExprType::kConstant:
      if (!value.Equals(o.value)) return false;
      break;
    case ExprType::kFunction:
      if (function.function != o.function.function) return false;
      break;
    case ExprType::kAggregate:
      if (aggregate != o.aggregate || distinct != o.distinct) return false;
      if ((filter == nullptr) != (o.filter == nullptr)) return false;
      if (filter && !filter->Equals(*o.filter)) return false;
      break;
    case ExprType::kIn:
      if (negated != o.negated) return false;
      break;
    case ExprType::kSubquery:
      return false;
    default:
      break;
  }
  for (size_t i = 0; i < children.size(); ++i) {
    if (!children[i]->Equals(*o.children[i])) return false;
  }
  return true;
}

size_t Expression::Hash() const {
  size_t h = std::hash<int>()(static_cast<int>(type));
  auto mix = [&](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  switch (type) {
    case ExprType::kColumnRef:
      mix(std::hash<int>()(binding.table));
      mix(std::hash<int>()(binding.column));
      break;
    case ExprType::kConstant:
      mix(value.Hash());
      break;
    case ExprType::kFunction:
      mix(std::hash<const void*>()(function.function));
      break;
    case ExprType::kAggregate:
      mix(std::hash<const void*>()(aggregate));
      break;
    default:
      break;
  }
  for (const auto& c : children) mix(c->Hash());
  return h;
}

bool Expression::IsFoldable() const {
  switch (type) {
    case ExprType::kColumnRef:
    case ExprType::kBoundRef:
    case ExprType::kAggregate:
    case ExprType::kSubquery:
      return false;
    case ExprType::kFunction:
      if (function.function && function.function->is_volatile) return false;
      break;
    default:
      break;
  }
  for (const auto& c : children) {
    if (!c->IsFoldable()) return false;
  }
  return true;
}

bool Expression::HasAggregate() const {
  if (type == ExprType::kAggregate) return true;
  for (const auto& c : children) {
    if (c->HasAggregate()) return true;
  }
  return false;
}

bool Expression::HasSubquery() const {
  if (type == ExprType::kSubquery) return true;
  for (const auto& c : children) {
    if (c->HasSubquery()) return true;
  }
  return false;
}

bool Expression::IsVolatile() const {
  if (type == ExprType::kFunction && function.function && function.function->is_volatile) return true;
  for (const auto& c : children) {
    if (c->IsVolatile()) return true;
  }
  return false;
}

ExprPtr MakeColumnRef(ColumnBinding b, TypeRef type, std::string alias, int depth) {
  auto e = std::make_unique<Expression>(ExprType::kColumnRef, std::move(type));
  e->binding = b;
  e->alias = std::move(alias);
  e->depth = depth;
  return e;
}

ExprPtr MakeBoundRef(int index, TypeRef type, std::string alias) {
  auto e = std::make_unique<Expression>(ExprType::kBoundRef, std::move(type));
  e->index = index;
  e->alias = std::move(alias);
  return e;
}

ExprPtr MakeConstant(Value v) {
  auto e = std::make_unique<Expression>(ExprType::kConstant, v.type());
  e->value = std::move(v);
  return e;
}

ExprPtr MakeCast(ExprPtr child, TypeRef to) {
  if (child->return_type->Equals(*to)) return child;
  if (child->type == ExprType::kConstant) {
    auto v = CastValue(child->value, to);
    if (v.ok()) {
      auto c = MakeConstant(std::move(v).ValueOrDie());
      c->alias = child->alias;
      return c;
    }
    // Leave invalid casts for execution time, where they raise the error
    // only if the row is actually evaluated (e.g. in an untaken CASE branch).
  }
  auto e = std::make_unique<Expression>(ExprType::kCast, std::move(to));
  e->alias = child->alias;
  e->children.push_back(std::move(child));
  return e;
}

ExprPtr MakeNot(ExprPtr child) {
  auto e = std::make_unique<Expression>(ExprType::kNot, boolean());
  e->children.push_back(std::move(child));
  return e;
}

ExprPtr MakeAnd(std::vector<ExprPtr> children) {
  if (children.size() == 1) return std::move(children[0]);
  auto e = std::make_unique<Expression>(ExprType::kAnd, boolean());
  e->children = std::move(children);
  return e;
}

Result<ExprPtr> MakeFunction(const std::string& name, std::vector<ExprPtr> children,
                             bool is_operator) {
  std::vector<ArgInfo> args;
  for (const auto& c : children) args.push_back({c->return_type, c->unknown_literal});
  QUIVER_ASSIGN_OR_RAISE(BoundFunction bound,
                         FunctionRegistry::Get().ResolveScalar(name, args, is_operator));
  auto e = std::make_unique<Expression>(ExprType::kFunction, bound.return_type);
  for (size_t i = 0; i < children.size(); ++i) {
    ExprPtr c = std::move(children[i]);
    c->unknown_literal = false;
    e->children.push_back(MakeCast(std::move(c), bound.arg_types[i]));
  }
  e->function = std::move(bound);
  return ExprPtr(std::move(e));
}

void VisitExpression(ExprPtr* e, const std::function<void(ExprPtr*)>& f) {
  f(e);
  if (*e == nullptr) return;
  for (auto& c : (*e)->children) VisitExpression(&c, f);
  if ((*e)->filter) VisitExpression(&(*e)->filter, f);
}

void VisitExpression(const Expression& e, const std::function<void(const Expression&)>& f) {
  f(e);
  for (const auto& c : e.children) VisitExpression(*c, f);
  if (e.filter) VisitExpression(*e.filter, f);
}

void CollectBindings(const Expression& e, std::vector<ColumnBinding>* out) {
  VisitExpression(e, [&](const Expression& x) {
    if (x.type == ExprType::kColumnRef && x.depth == 0) out->push_back(x.binding);
  });
}

void SplitConjunction(ExprPtr e, std::vector<ExprPtr>* out) {
  if (e->type == ExprType::kAnd) {
    for (auto& c : e->children) SplitConjunction(std::move(c), out);
    return;
  }
  out->push_back(std::move(e));
}

}  // namespace quiver::plan
