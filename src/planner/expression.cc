#include "planner/expression.h"

#include <functional>

#include "functions/cast.h"
#include "vector/json_type.h"
#include "vector/sql_type.h"

namespace quiver::plan {

ExprPtr Expression::Copy() const {
  ExprPtr e = CopyNode();
  e->alias = alias;
  e->unknown_literal = unknown_literal;
  e->cast_length = cast_length;
  e->cast_blank_padded = cast_blank_padded;
  e->children.reserve(children.size());
  for (const auto& c : children) e->children.push_back(c->Copy());
  return e;
}

ExprPtr ColumnRefExpression::CopyNode() const {
  return std::make_unique<ColumnRefExpression>(binding, return_type, depth);
}
ExprPtr BoundRefExpression::CopyNode() const {
  return std::make_unique<BoundRefExpression>(index, return_type);
}
ExprPtr ConstantExpression::CopyNode() const { return std::make_unique<ConstantExpression>(value); }
ExprPtr FunctionExpression::CopyNode() const {
  auto e = std::make_unique<FunctionExpression>(function);
  e->return_type = return_type;
  return e;
}
ExprPtr AggregateExpression::CopyNode() const {
  auto e = std::make_unique<AggregateExpression>(aggregate, return_type);
  e->distinct = distinct;
  if (filter) e->filter = filter->Copy();
  return e;
}
ExprPtr WindowExpression::CopyNode() const {
  auto e = std::make_unique<WindowExpression>(function, return_type);
  e->aggregate = aggregate;
  e->name = name;
  e->num_args = num_args;
  e->num_partitions = num_partitions;
  e->order = order;
  e->has_filter = has_filter;
  e->has_start_offset = has_start_offset;
  e->has_end_offset = has_end_offset;
  e->frame_options = frame_options;
  return e;
}
ExprPtr InExpression::CopyNode() const { return std::make_unique<InExpression>(negated); }
ExprPtr SubqueryExpression::CopyNode() const {
  return std::make_unique<SubqueryExpression>(subquery, return_type);
}
ExprPtr OperatorExpression::CopyNode() const {
  return std::make_unique<OperatorExpression>(type, return_type);
}

namespace {

bool IsInfixOperator(const std::string& name) {
  static const char* kOps[] = {"+",
                               "-",
                               "*",
                               "/",
                               "%",
                               "=",
                               "<>",
                               "<",
                               "<=",
                               ">",
                               ">=",
                               "||",
                               "like",
                               "not like",
                               "ilike",
                               "not ilike",
                               "is distinct from",
                               "is not distinct from"};
  for (const char* op : kOps) {
    if (name == op) return true;
  }
  return false;
}

}  // namespace

std::string Expression::JoinChildren(const char* sep) const {
  std::string s;
  for (size_t i = 0; i < children.size(); ++i) {
    if (i) s += sep;
    s += children[i]->ToString();
  }
  return s;
}

std::string ColumnRefExpression::ToString() const {
  if (!alias.empty()) return alias;
  return fmt::format("#[{}.{}]", binding.table, binding.column);
}

std::string BoundRefExpression::ToString() const {
  if (!alias.empty()) return alias;
  return fmt::format("#{}", index);
}

std::string ConstantExpression::ToString() const { return value.ToSqlLiteral(); }

const std::string& FunctionExpression::name() const {
  static const std::string kUnknown = "?";
  return function.function ? function.function->name : kUnknown;
}

std::string FunctionExpression::ToString() const {
  const std::string& n = name();
  if (children.size() == 2 && IsInfixOperator(n)) {
    return "(" + children[0]->ToString() + " " + n + " " + children[1]->ToString() + ")";
  }
  if (children.size() == 1 && (n == "-" || n == "+")) return n + children[0]->ToString();
  return n + "(" + JoinChildren(", ") + ")";
}

std::string AggregateExpression::ToString() const {
  std::string name = aggregate ? aggregate->name : "?";
  if (name == "count_star") return "count(*)";
  std::string s = name + "(" + (distinct ? "DISTINCT " : "") + JoinChildren(", ") + ")";
  if (filter) s += " FILTER (WHERE " + filter->ToString() + ")";
  return s;
}

std::string WindowExpression::ToString() const {
  std::string s = name + "(";
  for (int i = 0; i < num_args; ++i) s += (i ? ", " : "") + arg(i).ToString();
  s += ")";
  if (has_filter) s += " FILTER (WHERE " + children[static_cast<size_t>(filter_index())]->ToString() + ")";
  s += " OVER (";
  for (int i = 0; i < num_partitions; ++i) {
    s += (i ? ", " : "PARTITION BY ") + partition(i).ToString();
  }
  for (size_t i = 0; i < order.size(); ++i) {
    s += (i ? ", " : num_partitions ? " ORDER BY " : "ORDER BY ") +
         order_key(static_cast<int>(i)).ToString() + (order[i].descending ? " DESC" : "");
  }
  return s + ")";
}

std::string InExpression::ToString() const {
  std::string s = "(" + children[0]->ToString() + (negated ? " NOT IN (" : " IN (");
  for (size_t i = 1; i < children.size(); ++i) s += (i > 1 ? ", " : "") + children[i]->ToString();
  return s + "))";
}

std::string SubqueryExpression::ToString() const { return "(SUBQUERY)"; }

std::string OperatorExpression::ToString() const {
  switch (type) {
    case ExprType::kCast:
      return "CAST(" + children[0]->ToString() + " AS " + PgTypeNameWithModifiers(*return_type) +
             ")";
    case ExprType::kCase: {
      std::string s = "CASE";
      for (size_t i = 0; i + 1 < children.size(); i += 2) {
        s += " WHEN " + children[i]->ToString() + " THEN " + children[i + 1]->ToString();
      }
      if (children.size() % 2 == 1) s += " ELSE " + children.back()->ToString();
      return s + " END";
    }
    case ExprType::kAnd:
      return "(" + JoinChildren(" AND ") + ")";
    case ExprType::kOr:
      return "(" + JoinChildren(" OR ") + ")";
    case ExprType::kNot:
      return "(NOT " + children[0]->ToString() + ")";
    case ExprType::kIsNull:
      return "(" + children[0]->ToString() + " IS NULL)";
    case ExprType::kIsNotNull:
      return "(" + children[0]->ToString() + " IS NOT NULL)";
    case ExprType::kCoalesce:
      return "COALESCE(" + JoinChildren(", ") + ")";
    default:
      return "?";
  }
}

bool Expression::Equals(const Expression& o) const {
  if (type != o.type || children.size() != o.children.size()) return false;
  if (!return_type->Equals(*o.return_type)) return false;
  if (!NodeEquals(o)) return false;
  for (size_t i = 0; i < children.size(); ++i) {
    if (!children[i]->Equals(*o.children[i])) return false;
  }
  return true;
}

bool ColumnRefExpression::NodeEquals(const Expression& other) const {
  const auto& o = other.As<ColumnRefExpression>();
  return binding == o.binding && depth == o.depth;
}
bool BoundRefExpression::NodeEquals(const Expression& other) const {
  return index == other.As<BoundRefExpression>().index;
}
bool ConstantExpression::NodeEquals(const Expression& other) const {
  return value.Equals(other.As<ConstantExpression>().value);
}
bool FunctionExpression::NodeEquals(const Expression& other) const {
  return function.function == other.As<FunctionExpression>().function.function;
}
bool AggregateExpression::NodeEquals(const Expression& other) const {
  const auto& o = other.As<AggregateExpression>();
  if (aggregate != o.aggregate || distinct != o.distinct) return false;
  if ((filter == nullptr) != (o.filter == nullptr)) return false;
  return filter == nullptr || filter->Equals(*o.filter);
}
bool WindowExpression::NodeEquals(const Expression& other) const {
  const auto& o = other.As<WindowExpression>();
  return function == o.function && aggregate == o.aggregate && num_args == o.num_args &&
         num_partitions == o.num_partitions && order == o.order && has_filter == o.has_filter &&
         has_start_offset == o.has_start_offset && has_end_offset == o.has_end_offset &&
         frame_options == o.frame_options;
}
bool WindowExpression::SameSort(const WindowExpression& o) const {
  if (num_partitions != o.num_partitions || !(order == o.order)) return false;
  for (int i = 0; i < num_partitions; ++i) {
    if (!partition(i).Equals(o.partition(i))) return false;
  }
  for (size_t i = 0; i < order.size(); ++i) {
    if (!order_key(static_cast<int>(i)).Equals(o.order_key(static_cast<int>(i)))) return false;
  }
  return true;
}
bool InExpression::NodeEquals(const Expression& other) const {
  return negated == other.As<InExpression>().negated;
}

size_t Expression::Hash() const {
  size_t h = std::hash<int>()(static_cast<int>(type));
  auto mix = [&](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  if (size_t node = NodeHash()) mix(node);
  for (const auto& c : children) mix(c->Hash());
  return h;
}

size_t ColumnRefExpression::NodeHash() const {
  return std::hash<int>()(binding.table) * 31 + std::hash<int>()(binding.column);
}
size_t ConstantExpression::NodeHash() const { return value.Hash(); }
size_t FunctionExpression::NodeHash() const { return std::hash<const void*>()(function.function); }
size_t AggregateExpression::NodeHash() const { return std::hash<const void*>()(aggregate); }
size_t WindowExpression::NodeHash() const {
  return std::hash<int>()(static_cast<int>(function)) * 31 + std::hash<const void*>()(aggregate);
}

bool Expression::IsFoldable() const {
  switch (type) {
    case ExprType::kColumnRef:
    case ExprType::kBoundRef:
    case ExprType::kAggregate:
    case ExprType::kSubquery:
    case ExprType::kWindow:
      return false;
    case ExprType::kFunction:
      if (IsVolatile()) return false;
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
  if (type == ExprType::kFunction) {
    const ScalarFunction* f = As<FunctionExpression>().function.function;
    if (f && f->is_volatile) return true;
  }
  for (const auto& c : children) {
    if (c->IsVolatile()) return true;
  }
  return false;
}

ExprPtr MakeColumnRef(ColumnBinding b, TypeRef type, std::string alias, int depth) {
  auto e = std::make_unique<ColumnRefExpression>(b, std::move(type), depth);
  e->alias = std::move(alias);
  return e;
}

ExprPtr MakeBoundRef(int index, TypeRef type, std::string alias) {
  auto e = std::make_unique<BoundRefExpression>(index, std::move(type));
  e->alias = std::move(alias);
  return e;
}

ExprPtr MakeConstant(Value v) { return std::make_unique<ConstantExpression>(std::move(v)); }

ExprPtr MakeCast(ExprPtr child, TypeRef to) {
  if (child->return_type->Equals(*to)) return child;
  if (child->type == ExprType::kConstant && ValueCanHold(*to)) {
    auto v = CastValue(child->As<ConstantExpression>().value, to);
    if (v.ok()) {
      auto c = MakeConstant(std::move(v).ValueOrDie());
      c->alias = child->alias;
      return c;
    }
    // Leave invalid casts for execution time, where they raise the error
    // only if the row is actually evaluated (e.g. in an untaken CASE branch).
  }
  auto e = std::make_unique<OperatorExpression>(ExprType::kCast, std::move(to));
  e->alias = child->alias;
  e->children.push_back(std::move(child));
  return e;
}

ExprPtr MakeNot(ExprPtr child) {
  auto e = std::make_unique<OperatorExpression>(ExprType::kNot, boolean());
  e->children.push_back(std::move(child));
  return e;
}

ExprPtr MakeAnd(std::vector<ExprPtr> children) {
  if (children.size() == 1) return std::move(children[0]);
  return MakeOperator(ExprType::kAnd, boolean(), std::move(children));
}

ExprPtr MakeOr(std::vector<ExprPtr> children) {
  if (children.size() == 1) return std::move(children[0]);
  return MakeOperator(ExprType::kOr, boolean(), std::move(children));
}

ExprPtr MakeOperator(ExprType type, TypeRef ret, std::vector<ExprPtr> children) {
  auto e = std::make_unique<OperatorExpression>(type, std::move(ret));
  e->children = std::move(children);
  return e;
}

ExprPtr MakeIn(ExprPtr probe, std::vector<ExprPtr> items, bool negated) {
  auto e = std::make_unique<InExpression>(negated);
  e->children.push_back(std::move(probe));
  for (auto& i : items) e->children.push_back(std::move(i));
  return e;
}

Result<ExprPtr> MakeFunction(const std::string& name, std::vector<ExprPtr> children,
                             bool is_operator) {
  std::vector<ArgInfo> args;
  for (const auto& c : children) args.push_back({c->return_type, c->unknown_literal});
  QUIVER_ASSIGN_OR_RAISE(BoundFunction bound,
                         FunctionRegistry::Get().ResolveScalar(name, args, is_operator));
  std::vector<TypeRef> arg_types = bound.arg_types;
  auto e = std::make_unique<FunctionExpression>(std::move(bound));
  for (size_t i = 0; i < children.size(); ++i) {
    ExprPtr c = std::move(children[i]);
    c->unknown_literal = false;
    e->children.push_back(MakeCast(std::move(c), arg_types[i]));
  }
  return ExprPtr(std::move(e));
}

void VisitExpression(ExprPtr* e, const std::function<void(ExprPtr*)>& f) {
  f(e);
  if (*e == nullptr) return;
  for (auto& c : (*e)->children) VisitExpression(&c, f);
  if ((*e)->type == ExprType::kAggregate) {
    auto& filter = (*e)->As<AggregateExpression>().filter;
    if (filter) VisitExpression(&filter, f);
  }
}

void VisitExpression(const Expression& e, const std::function<void(const Expression&)>& f) {
  f(e);
  for (const auto& c : e.children) VisitExpression(*c, f);
  if (e.type == ExprType::kAggregate) {
    const auto& filter = e.As<AggregateExpression>().filter;
    if (filter) VisitExpression(*filter, f);
  }
}

void CollectBindings(const Expression& e, std::vector<ColumnBinding>* out) {
  VisitExpression(e, [&](const Expression& x) {
    if (x.type != ExprType::kColumnRef) return;
    const auto& ref = x.As<ColumnRefExpression>();
    if (ref.depth == 0) out->push_back(ref.binding);
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
