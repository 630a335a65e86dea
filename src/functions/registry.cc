// Function registry and overload resolution (see function.h).
#include <algorithm>
#include <limits>

#include "columnar/extension_type.h"
#include "functions/function.h"
#include "functions/families.h"
#include "vector/sql_type.h"

namespace quiver {

// In functions/json_functions.cc (declared here, not in function.h, which
// most of the engine includes).
void RegisterJsonFunctions(FunctionRegistry* r);

TypeRef AnyDecimal() {
  static const TypeRef t = [] {
    auto d = std::make_shared<DataType>();
    d->id = TypeId::kDecimal128;
    d->byte_width = 16;
    d->precision = 0;
    d->scale = 0;
    return TypeRef(d);
  }();
  return t;
}

TypeRef AnyType() {
  static const TypeRef t = [] {
    auto d = std::make_shared<DataType>();
    d->id = TypeId::kStruct;  // never a real engine type
    return TypeRef(d);
  }();
  return t;
}

bool IsAnyDecimal(const DataType& t) { return t.id == TypeId::kDecimal128 && t.precision == 0; }
bool IsAnyType(const DataType& t) { return &t == AnyType().get(); }

std::string CallSignature(const std::string& name, const std::vector<ArgInfo>& args) {
  std::string s = name + "(";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) s += ", ";
    s += args[i].unknown_literal ? "unknown" : PgTypeName(*args[i].type);
  }
  return s + ")";
}

const FunctionRegistry& FunctionRegistry::Get() {
  static const FunctionRegistry* registry = [] {
    auto* r = new FunctionRegistry();
    RegisterArithmeticFunctions(r);
    RegisterComparisonFunctions(r);
    RegisterStringFunctions(r);
    RegisterMathFunctions(r);
    RegisterDateTimeFunctions(r);
    RegisterAggregateFunctions(r);
    RegisterJsonFunctions(r);
    RegisterRegexFunctions(r);
    RegisterTextFunctions(r);
    RegisterDateTimeFormatFunctions(r);
    RegisterDateTimeMoreFunctions(r);
    RegisterNumericFormatFunctions(r);
    RegisterSystemFunctions(r);
    RegisterArrayFunctions(r);
    RegisterNestedFunctions(r);
    return r;
  }();
  return *registry;
}

void FunctionRegistry::Add(ScalarFunction f) {
  scalars_.push_back(std::make_unique<ScalarFunction>(std::move(f)));
}
void FunctionRegistry::Add(AggregateFunction f) {
  aggregates_.push_back(std::make_unique<AggregateFunction>(std::move(f)));
}

bool FunctionRegistry::HasScalar(const std::string& name) const {
  for (const auto& f : scalars_) {
    if (f->name == name) return true;
  }
  return false;
}
bool FunctionRegistry::HasAggregate(const std::string& name) const {
  for (const auto& f : aggregates_) {
    if (f->name == name) return true;
  }
  return false;
}

namespace {

// Levenshtein distance, for the "did you mean" hint.
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

bool IsCallableName(const std::string& n) {
  // Operators ("+", "not like") and internal names ("count_star") are not
  // names a user calls.
  if (n.empty() || n == "count_star") return false;
  for (char c : n) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

}  // namespace

std::string FunctionRegistry::NearestName(const std::string& name) const {
  // A typo is one or two edits away; for short names only one, so that
  // "abc" does not suggest "abs" and "avg" alike.
  const size_t limit = name.size() <= 4 ? 1 : 2;
  std::string best;
  size_t best_distance = limit + 1;
  auto consider = [&](const std::string& candidate) {
    if (!IsCallableName(candidate) || candidate == name) return;
    const size_t d = EditDistance(name, candidate);
    if (d < best_distance || (d == best_distance && candidate < best)) {
      best_distance = d;
      best = candidate;
    }
  };
  for (const auto& f : scalars_) consider(f->name);
  for (const auto& f : aggregates_) consider(f->name);
  consider("count");
  return best;
}

Status FunctionRegistry::UndefinedFunction(const std::string& name,
                                           const std::string& signature) const {
  std::string hint =
      "No function matches the given name and argument types. You might need to add explicit "
      "type casts.";
  if (!HasScalar(name) && !HasAggregate(name)) {
    const std::string near = NearestName(name);
    if (!near.empty()) hint = "Perhaps you meant to call the function \"" + near + "\".";
  }
  return Status::KeyError("function {} does not exist", signature)
      .WithSqlState(sqlstate::kUndefinedFunction)
      .WithHint(std::move(hint));
}

namespace {

constexpr int kNoMatch = std::numeric_limits<int>::max();

// Cost of passing `arg` where `param` is expected: 0 exact (family), small
// for implicit casts, kNoMatch otherwise.
int ArgCost(const ArgInfo& arg, const DataType& param) {
  if (IsAnyType(param)) return 0;
  const DataType& t = *arg.type;
  if (arg.unknown_literal) {
    // An untyped literal can become anything; prefer text, as PostgreSQL
    // prefers the string category for unknown inputs.
    return param.id == TypeId::kString ? 1 : 2;
  }
  if (t.id == TypeId::kNull) return 1;
  // json and jsonb are text underneath but, as in PostgreSQL, neither passes
  // for text nor text for them without a cast.
  if (ExtensionName(t) != ExtensionName(param)) return kNoMatch;
  if (IsAnyDecimal(param)) {
    if (t.id == TypeId::kDecimal128) return 0;
    if (IsIntegerType(t)) return 10 + (4 - NumericRank(t));
    return kNoMatch;
  }
  if (t.id == TypeId::kList && param.id == TypeId::kList && !param.children.empty() &&
      !t.children.empty() && !IsAnyType(*param.children[0]->type)) {
    // A concrete array parameter (jsonb #- text[]): the elements must match
    // as arguments would (integer[] is no text[], as in PostgreSQL).
    return ArgCost(ArgInfo{t.children[0]->type, false}, *param.children[0]->type);
  }
  if (t.id == param.id) {
    if (t.id == TypeId::kTimestamp && t.timezone.empty() != param.timezone.empty()) return 1;
    return 0;
  }
  if (CanCastImplicitly(t, param)) {
    // Prefer the nearest wider type, then double precision (PostgreSQL's
    // preferred numeric type).
    if (IsNumericType(t) && IsNumericType(param)) {
      return 10 + (NumericRank(param) - NumericRank(t)) - (param.id == TypeId::kDouble ? 1 : 0);
    }
    return 20;
  }
  return kNoMatch;
}

// The concrete type an argument is cast to for a parameter.
TypeRef ConcreteParam(const ArgInfo& arg, const TypeRef& param) {
  if (IsAnyType(*param)) return arg.type;
  if (IsAnyDecimal(*param)) {
    if (arg.type->id == TypeId::kDecimal128) return arg.type;
    return DecimalTypeFor(*arg.type);
  }
  if (param->id == TypeId::kTimestamp && arg.type->id == TypeId::kTimestamp) return arg.type;
  return param;
}

template <typename F>
Result<std::pair<const F*, int>> PickCandidate(const std::vector<std::unique_ptr<F>>& all,
                                               const std::string& name,
                                               const std::vector<ArgInfo>& args) {
  const F* best = nullptr;
  int best_cost = kNoMatch;
  bool ambiguous = false;
  for (const auto& f : all) {
    if (f->name != name) continue;
    const size_t fixed = f->args.size();
    if (args.size() < fixed) continue;
    if (args.size() > fixed && !f->varargs) continue;
    int cost = 0;
    for (size_t i = 0; i < args.size() && cost != kNoMatch; ++i) {
      const TypeRef& p = i < fixed ? f->args[i] : f->varargs;
      const int c = ArgCost(args[i], *p);
      cost = c == kNoMatch ? kNoMatch : cost + c;
    }
    if (cost == kNoMatch) continue;
    if (cost < best_cost) {
      best = f.get();
      best_cost = cost;
      ambiguous = false;
    } else if (cost == best_cost) {
      ambiguous = true;
    }
  }
  (void)ambiguous;  // first registered wins ties (registration order encodes preference)
  return std::make_pair(best, best_cost);
}

// For binary operators with one untyped literal, PostgreSQL assumes the
// literal has the other operand's type.
std::vector<ArgInfo> ResolveUnknownOperands(const std::vector<ArgInfo>& args) {
  std::vector<ArgInfo> out = args;
  if (args.size() == 2) {
    if (args[0].unknown_literal && !args[1].unknown_literal && args[1].type->id != TypeId::kNull) {
      out[0] = {args[1].type, false};
      out[0].unknown_literal = false;
    } else if (args[1].unknown_literal && !args[0].unknown_literal &&
               args[0].type->id != TypeId::kNull) {
      out[1] = {args[0].type, false};
    } else if (args[0].unknown_literal && args[1].unknown_literal) {
      out[0] = {utf8(), false};
      out[1] = {utf8(), false};
    }
  }
  return out;
}

}  // namespace

Result<BoundFunction> FunctionRegistry::ResolveScalar(const std::string& name,
                                                      const std::vector<ArgInfo>& raw_args,
                                                      bool is_operator) const {
  std::vector<ArgInfo> args = is_operator ? ResolveUnknownOperands(raw_args) : raw_args;
  QUIVER_ASSIGN_OR_RAISE(auto picked, PickCandidate(scalars_, name, args));
  if (picked.first == nullptr && is_operator) {
    // No operator takes the literal as the other operand's type (json ->
    // 'key' has a text key): resolve with the literal still unknown.
    args = raw_args;
    QUIVER_ASSIGN_OR_RAISE(picked, PickCandidate(scalars_, name, args));
  }
  const ScalarFunction* f = picked.first;
  if (f == nullptr) {
    if (is_operator) {
      if (args.size() == 1) {
        return Status::TypeError("operator does not exist: {} {}", name,
                                 PgTypeName(*raw_args[0].type))
            .WithSqlState(sqlstate::kUndefinedFunction)
            .WithHint(
                "No operator matches the given name and argument types. You might need to add "
                "explicit type casts.");
      }
      auto tn = [](const ArgInfo& a) {
        return a.unknown_literal ? std::string("unknown") : PgTypeName(*a.type);
      };
      return Status::TypeError("operator does not exist: {} {} {}", tn(raw_args[0]), name,
                               tn(raw_args[1]))
          .WithSqlState(sqlstate::kUndefinedFunction)
          .WithHint(
              "No operator matches the given name and argument types. You might need to add "
              "explicit type casts.");
    }
    return UndefinedFunction(name, CallSignature(name, raw_args));
  }
  BoundFunction bound;
  bound.function = f;
  for (size_t i = 0; i < args.size(); ++i) {
    const TypeRef& p = i < f->args.size() ? f->args[i] : f->varargs;
    ArgInfo a = args[i];
    if (a.unknown_literal || a.type->id == TypeId::kNull) {
      a.type = IsAnyType(*p) ? (a.unknown_literal ? utf8() : a.type)
               : IsAnyDecimal(*p) ? decimal128(kMaxDecimalPrecision, 6)
                                  : p;
    }
    bound.arg_types.push_back(ConcreteParam(a, p));
  }
  bound.return_type = f->return_type;
  if (f->bind) QUIVER_RETURN_NOT_OK(f->bind(&bound.arg_types, &bound.return_type));
  return bound;
}

Result<BoundAggregate> FunctionRegistry::ResolveAggregate(const std::string& name,
                                                          const std::vector<ArgInfo>& args) const {
  QUIVER_ASSIGN_OR_RAISE(auto picked, PickCandidate(aggregates_, name, args));
  const AggregateFunction* f = picked.first;
  if (f == nullptr) {
    return UndefinedFunction(name, CallSignature(name, args));
  }
  BoundAggregate bound;
  bound.function = f;
  for (size_t i = 0; i < args.size(); ++i) {
    ArgInfo a = args[i];
    const TypeRef& param = i < f->args.size() ? f->args[i] : f->varargs;
    if (a.unknown_literal) a.type = IsAnyType(*param) ? utf8() : param;
    if (a.type->id == TypeId::kNull && !IsAnyType(*param)) {
      a.type = IsAnyDecimal(*param) ? decimal128(kMaxDecimalPrecision, 6) : param;
    }
    bound.arg_types.push_back(ConcreteParam(a, param));
  }
  bound.return_type = f->return_type;
  if (f->bind) QUIVER_RETURN_NOT_OK(f->bind(&bound.arg_types, &bound.return_type));
  return bound;
}

}  // namespace quiver
