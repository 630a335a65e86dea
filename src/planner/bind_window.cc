// Window function calls: f(args) [FILTER (WHERE ...)] OVER (window) ->
// WindowExpression, collected into the SELECT's window list (as aggregate
// calls are collected into its aggregate list) and replaced by a reference
// to the LogicalWindow's output column. Named windows (WINDOW w AS (...))
// are resolved here with PostgreSQL's copy rules.
#include "planner/expression_binder.h"
#include "vector/sql_type.h"

namespace quiver::plan {

using sql::ParsedExpr;
using sql::WindowSpec;

namespace {

// The window a call uses once named windows are resolved.
struct ResolvedWindow {
  const std::vector<sql::ExprPtr>* partition_by = nullptr;
  const std::vector<sql::OrderItem>* order_by = nullptr;
  const WindowSpec* frame = nullptr;  // frame_options and offsets
};

using NamedWindows = std::vector<std::shared_ptr<WindowSpec>>;

Result<const WindowSpec*> FindNamed(const NamedWindows* named, const std::string& name,
                                    int location) {
  if (named != nullptr) {
    for (const auto& w : *named) {
      if (w->name == name) return w.get();
    }
  }
  return Status::KeyError("window \"{}\" does not exist", name)
      .WithSqlState(sqlstate::kUndefinedObject)
      .WithPosition(location);
}

// `w` (a WINDOW clause entry or a parenthesized OVER clause) with its base
// window, if it names one, copied in.
Result<ResolvedWindow> ResolveSpec(const WindowSpec& w, const NamedWindows* named, int depth) {
  if (w.refname.empty()) return ResolvedWindow{&w.partition_by, &w.order_by, &w};
  if (depth > 64) {
    return Status::Invalid("window \"{}\" does not exist", w.refname)
        .WithSqlState(sqlstate::kUndefinedObject)
        .WithPosition(w.location);
  }
  QUIVER_ASSIGN_OR_RAISE(const WindowSpec* base, FindNamed(named, w.refname, w.location));
  QUIVER_ASSIGN_OR_RAISE(ResolvedWindow b, ResolveSpec(*base, named, depth + 1));
  if (!w.partition_by.empty()) {
    return Status::Invalid("cannot override PARTITION BY clause of window \"{}\"", w.refname)
        .WithSqlState(sqlstate::kWindowingError)
        .WithPosition(w.location);
  }
  if (!w.order_by.empty() && !b.order_by->empty()) {
    return Status::Invalid("cannot override ORDER BY clause of window \"{}\"", w.refname)
        .WithSqlState(sqlstate::kWindowingError)
        .WithPosition(w.location);
  }
  if (b.frame->frame_options & sql::kFrameNonDefault) {
    return Status::Invalid("cannot copy window \"{}\" because it has a frame clause", w.refname)
        .WithSqlState(sqlstate::kWindowingError)
        .WithPosition(w.location);
  }
  return ResolvedWindow{b.partition_by, w.order_by.empty() ? b.order_by : &w.order_by, &w};
}

// The non-aggregate window functions by name.
bool LookupWindowFunction(const std::string& name, WindowFunction* f) {
  static const std::pair<const char*, WindowFunction> kFunctions[] = {
      {"row_number", WindowFunction::kRowNumber},  {"rank", WindowFunction::kRank},
      {"dense_rank", WindowFunction::kDenseRank},  {"percent_rank", WindowFunction::kPercentRank},
      {"cume_dist", WindowFunction::kCumeDist},    {"ntile", WindowFunction::kNtile},
      {"lag", WindowFunction::kLag},               {"lead", WindowFunction::kLead},
      {"first_value", WindowFunction::kFirstValue}, {"last_value", WindowFunction::kLastValue},
      {"nth_value", WindowFunction::kNthValue},
  };
  for (const auto& [n, fn] : kFunctions) {
    if (name == n) {
      *f = fn;
      return true;
    }
  }
  return false;
}

// Resets a flag when binding one call ends, on every path.
struct FlagScope {
  bool* flag;
  explicit FlagScope(bool* f) : flag(f) { *flag = true; }
  ~FlagScope() { *flag = false; }
};

}  // namespace

Result<ExprPtr> ExpressionBinder::BindWindow(const ParsedExpr& e) {
  const std::string& name = e.name;
  if (windows_ == nullptr) {
    const char* where = clause_ == Clause::kWhere     ? "WHERE"
                        : clause_ == Clause::kGroupBy ? "GROUP BY"
                        : clause_ == Clause::kHaving  ? "HAVING"
                        : clause_ == Clause::kJoinOn  ? "JOIN conditions"
                        : clause_ == Clause::kValues  ? "VALUES"
                        : clause_ == Clause::kLimit   ? "LIMIT"
                        : clause_ == Clause::kUpdate  ? "UPDATE"
                        : clause_ == Clause::kReturning ? "RETURNING"
                                                      : "this context";
    return Status::Invalid("window functions are not allowed in {}", where)
        .WithSqlState(sqlstate::kWindowingError)
        .WithPosition(e.location);
  }
  if (inside_aggregate_) {
    return Status::Invalid("aggregate function calls cannot contain window function calls")
        .WithSqlState(sqlstate::kGroupingError)
        .WithPosition(e.location);
  }
  if (inside_window_) {
    return Status::Invalid("window function calls cannot be nested")
        .WithSqlState(sqlstate::kWindowingError)
        .WithPosition(e.location);
  }
  if (IsOrderedSetAggregate(name)) {
    return Status::Unsupported("OVER is not supported for ordered-set aggregate {}", name)
        .WithSqlState(sqlstate::kFeatureNotSupported)
        .WithPosition(e.location);
  }
  const FunctionRegistry& reg = FunctionRegistry::Get();
  WindowFunction fn = WindowFunction::kAggregate;
  const bool is_aggregate = reg.HasAggregate(name) || name == "count";
  if (!is_aggregate && !LookupWindowFunction(name, &fn)) {
    if (reg.HasScalar(name)) {
      return Status::Invalid(
                 "OVER specified, but {} is not a window function nor an aggregate function", name)
          .WithSqlState(sqlstate::kWrongObjectType)
          .WithPosition(e.location);
    }
    return Status::KeyError("function {}() does not exist", name)
        .WithSqlState(sqlstate::kUndefinedFunction)
        .WithPosition(e.location);
  }
  if (e.distinct) {
    return Status::Unsupported("DISTINCT is not implemented for window functions")
        .WithPosition(e.location);
  }
  if (e.filter && !is_aggregate) {
    return Status::Unsupported("FILTER is not implemented for non-aggregate window functions")
        .WithPosition(e.location);
  }
  if (e.star && name != "count") {
    return Status::Invalid("{}(*) is not allowed", name)
        .WithSqlState(sqlstate::kWrongObjectType)
        .WithPosition(e.location);
  }
  for (const auto& n : e.arg_names) {
    if (!n.empty()) {
      return Status::Invalid("function {} does not take named arguments", name)
          .WithSqlState(sqlstate::kUndefinedFunction)
          .WithPosition(e.location);
    }
  }

  FlagScope scope(&inside_window_);
  std::vector<ExprPtr> args;
  for (const auto& c : e.children) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr b, Bind(*c));
    args.push_back(std::move(b));
  }
  ExprPtr filter;
  if (e.filter) {
    QUIVER_ASSIGN_OR_RAISE(filter, BindPredicate(*e.filter, "FILTER"));
  }

  // The window (named windows resolved).
  ResolvedWindow rw;
  if (!e.window->name.empty()) {
    // OVER w: the named window as it is.
    QUIVER_ASSIGN_OR_RAISE(const WindowSpec* w,
                           FindNamed(named_windows_, e.window->name, e.window->location));
    QUIVER_ASSIGN_OR_RAISE(rw, ResolveSpec(*w, named_windows_, 0));
  } else {
    QUIVER_ASSIGN_OR_RAISE(rw, ResolveSpec(*e.window, named_windows_, 0));
  }
  const int32_t frame_options = rw.frame->frame_options;
  const int frame_location = rw.frame->location >= 0 ? rw.frame->location : e.location;
  const char* mode = frame_options & sql::kFrameRows     ? "ROWS"
                     : frame_options & sql::kFrameGroups ? "GROUPS"
                                                         : "RANGE";
  if (frame_options & sql::kFrameNonDefault) {
    if ((frame_options & sql::kFrameGroups) && rw.order_by->empty()) {
      return Status::Invalid("GROUPS mode requires an ORDER BY clause")
          .WithSqlState(sqlstate::kWindowingError)
          .WithPosition(frame_location);
    }
    constexpr int32_t kOffsets = sql::kFrameStartOffsetPreceding | sql::kFrameStartOffsetFollowing |
                                 sql::kFrameEndOffsetPreceding | sql::kFrameEndOffsetFollowing;
    if ((frame_options & sql::kFrameRange) && (frame_options & kOffsets) && rw.order_by->size() != 1) {
      return Status::Invalid(
                 "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
          .WithSqlState(sqlstate::kWindowingError)
          .WithPosition(frame_location);
    }
  }

  auto no_such_function = [&]() {
    std::vector<ArgInfo> infos;
    for (const auto& a : args) infos.push_back({a->return_type, a->unknown_literal});
    return FunctionRegistry::Get()
        .UndefinedFunction(name, CallSignature(name, infos))
        .WithPosition(e.location);
  };
  auto to_int = [&](ExprPtr a) -> Result<ExprPtr> {
    if (a->unknown_literal) a = ResolveUnknown(std::move(a), int32());
    if (!IsIntegerType(*a->return_type) && a->return_type->id != TypeId::kNull) {
      return no_such_function();
    }
    return CastTo(std::move(a), int32(), e.location, false);
  };

  TypeRef type;
  const AggregateFunction* aggregate = nullptr;
  std::vector<ExprPtr> operands;
  switch (fn) {
    case WindowFunction::kAggregate: {
      std::string agg_name = name;
      if (e.star || (name == "count" && args.empty())) agg_name = "count_star";
      std::vector<ArgInfo> infos;
      for (const auto& a : args) infos.push_back({a->return_type, a->unknown_literal});
      auto bound = reg.ResolveAggregate(agg_name, infos);
      if (!bound.ok()) return bound.status().WithPosition(e.location);
      aggregate = bound->function;
      type = bound->return_type;
      for (size_t i = 0; i < args.size(); ++i) {
        ExprPtr a = std::move(args[i]);
        if (a->unknown_literal) a = ResolveUnknown(std::move(a));
        operands.push_back(MakeCast(std::move(a), bound->arg_types[i]));
      }
      break;
    }
    case WindowFunction::kRowNumber:
    case WindowFunction::kRank:
    case WindowFunction::kDenseRank:
      if (!args.empty()) return no_such_function();
      type = int64();
      break;
    case WindowFunction::kPercentRank:
    case WindowFunction::kCumeDist:
      if (!args.empty()) return no_such_function();
      type = float64();
      break;
    case WindowFunction::kNtile: {
      if (args.size() != 1) return no_such_function();
      QUIVER_ASSIGN_OR_RAISE(ExprPtr n, to_int(std::move(args[0])));
      operands.push_back(std::move(n));
      type = int32();
      break;
    }
    case WindowFunction::kLag:
    case WindowFunction::kLead: {
      if (args.empty() || args.size() > 3) return no_such_function();
      // lag(value anycompatible [, offset integer [, default anycompatible]]).
      ExprPtr offset = args.size() >= 2 ? std::move(args[1]) : MakeConstant(Value::Int32(1));
      QUIVER_ASSIGN_OR_RAISE(offset, to_int(std::move(offset)));
      std::vector<ExprPtr> values;
      values.push_back(std::move(args[0]));
      if (args.size() == 3) {
        values.push_back(std::move(args[2]));
        QUIVER_RETURN_NOT_OK(Unify(&values, name.c_str(), e.location));
      }
      values[0] = ResolveUnknown(std::move(values[0]));
      type = values[0]->return_type;
      ExprPtr def = values.size() == 2 ? std::move(values[1]) : MakeConstant(Value::Null(type));
      operands.push_back(std::move(values[0]));
      operands.push_back(std::move(offset));
      operands.push_back(std::move(def));
      break;
    }
    case WindowFunction::kFirstValue:
    case WindowFunction::kLastValue:
    case WindowFunction::kNthValue: {
      const size_t want = fn == WindowFunction::kNthValue ? 2 : 1;
      if (args.size() != want) return no_such_function();
      ExprPtr v = ResolveUnknown(std::move(args[0]));
      type = v->return_type;
      operands.push_back(std::move(v));
      if (want == 2) {
        QUIVER_ASSIGN_OR_RAISE(ExprPtr n, to_int(std::move(args[1])));
        operands.push_back(std::move(n));
      }
      break;
    }
  }

  auto w = std::make_unique<WindowExpression>(fn, type);
  w->aggregate = aggregate;
  w->name = name;
  w->num_args = static_cast<int>(operands.size());
  for (auto& o : operands) w->children.push_back(std::move(o));
  for (const auto& p : *rw.partition_by) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr b, Bind(*p));
    w->children.push_back(ResolveUnknown(std::move(b)));
    w->num_partitions++;
  }
  for (const auto& o : *rw.order_by) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr b, Bind(*o.expr));
    w->children.push_back(ResolveUnknown(std::move(b)));
    const bool nulls_first = o.nulls == sql::NullsOrder::kDefault
                                 ? o.descending
                                 : o.nulls == sql::NullsOrder::kFirst;
    w->order.push_back({o.descending, nulls_first});
  }
  if (filter) {
    w->children.push_back(std::move(filter));
    w->has_filter = true;
  }
  // Frame offsets: constants (folded by the optimizer, read by the physical
  // planner); ROWS and GROUPS count rows / peer groups (bigint), RANGE
  // offsets are in the ORDER BY key's units.
  for (const sql::ExprPtr* offset : {&rw.frame->start_offset, &rw.frame->end_offset}) {
    if (!*offset) continue;
    QUIVER_ASSIGN_OR_RAISE(ExprPtr b, Bind(**offset));
    bool variables = false;
    VisitExpression(*b, [&](const Expression& x) {
      if (x.type == ExprType::kColumnRef || x.type == ExprType::kAggregate ||
          x.type == ExprType::kSubquery || x.type == ExprType::kWindow || x.IsVolatile())
        variables = true;
    });
    if (variables) {
      return Status::Invalid("argument of {} must not contain variables", mode)
          .WithSqlState(sqlstate::kInvalidColumnReference)
          .WithPosition((*offset)->location);
    }
    if (frame_options & sql::kFrameRange) {
      const TypeRef& key = w->order_key(0).return_type;
      const bool temporal = key->id == TypeId::kDate32 || key->id == TypeId::kTimestamp;
      b = ResolveUnknown(std::move(b), temporal ? month_day_nano_interval() : key);
    } else {
      if (b->unknown_literal) b = ResolveUnknown(std::move(b), int64());
      if (!IsIntegerType(*b->return_type) && b->return_type->id != TypeId::kNull) {
        return Status::TypeError("argument of {} must be type bigint, not type {}", mode,
                                 PgTypeName(*b->return_type))
            .WithSqlState(sqlstate::kDatatypeMismatch)
            .WithPosition((*offset)->location);
      }
      QUIVER_ASSIGN_OR_RAISE(b, CastTo(std::move(b), int64(), (*offset)->location, false));
    }
    if (offset == &rw.frame->start_offset) {
      w->has_start_offset = true;
    } else {
      w->has_end_offset = true;
    }
    w->children.push_back(std::move(b));
  }
  w->frame_options = frame_options;
  w->alias = name;
  for (const auto& c : w->children) {
    if (c->HasSubquery()) {
      return Status::Unsupported("subqueries inside window functions").WithPosition(e.location);
    }
  }
  for (size_t k = 0; k < windows_->size(); ++k) {
    if ((*windows_)[k]->Equals(*w)) {
      return MakeColumnRef({window_index_, static_cast<int>(k)}, type, name);
    }
  }
  const int k = static_cast<int>(windows_->size());
  windows_->push_back(std::move(w));
  return MakeColumnRef({window_index_, k}, type, name);
}

}  // namespace quiver::plan
