// kWindow -> PhysicalWindow over the window functions' arguments,
// PARTITION BY and ORDER BY keys and FILTERs, computed as columns below it
// and dropped again above it.
#include "execution/expression/expression_executor.h"
#include "execution/operators/physical_window.h"
#include "execution/physical_plan/plan_generator_internal.h"
#include "sql/ast.h"
#include "vector/sql_type.h"

namespace quiver::exec::internal {

using plan::Expression;

namespace {

using Frame = WindowFrame;

// The frame of `w` from PostgreSQL's frame option bits and its offsets.
Result<WindowFrame> ResolveFrame(const plan::WindowExpression& w) {
  const int32_t fo = w.frame_options;
  Frame f;
  f.mode = fo & sql::kFrameRows ? Frame::Mode::kRows : fo & sql::kFrameGroups ? Frame::Mode::kGroups : Frame::Mode::kRange;
  f.start = fo & sql::kFrameStartUnboundedPreceding ? Frame::Bound::kUnboundedPreceding
            : fo & sql::kFrameStartCurrentRow       ? Frame::Bound::kCurrentRow
            : fo & sql::kFrameStartOffsetPreceding  ? Frame::Bound::kPreceding
            : fo & sql::kFrameStartOffsetFollowing  ? Frame::Bound::kFollowing
                                                    : Frame::Bound::kUnboundedFollowing;
  f.end = fo & sql::kFrameEndUnboundedFollowing ? Frame::Bound::kUnboundedFollowing
          : fo & sql::kFrameEndCurrentRow       ? Frame::Bound::kCurrentRow
          : fo & sql::kFrameEndOffsetPreceding  ? Frame::Bound::kPreceding
          : fo & sql::kFrameEndOffsetFollowing  ? Frame::Bound::kFollowing
                                                : Frame::Bound::kUnboundedPreceding;
  if (f.start == Frame::Bound::kUnboundedFollowing || f.end == Frame::Bound::kUnboundedPreceding) {
    return Status::Invalid("frame start cannot be UNBOUNDED FOLLOWING");  // the grammar refuses these first
  }
  f.exclude = fo & sql::kFrameExcludeCurrentRow ? Frame::Exclude::kCurrentRow
              : fo & sql::kFrameExcludeGroup    ? Frame::Exclude::kGroup
              : fo & sql::kFrameExcludeTies     ? Frame::Exclude::kTies
                                                : Frame::Exclude::kNoOthers;
  for (const bool start : {true, false}) {
    const int index = start ? w.start_offset_index() : w.end_offset_index();
    if (index < 0) continue;
    const char* which = start ? "starting" : "ending";
    QUIVER_ASSIGN_OR_RAISE(Value v, EvaluateConstant(*w.children[static_cast<size_t>(index)]));
    if (v.is_null())
      return Status::Invalid("frame {} offset must not be null", which)
          .WithSqlState(sqlstate::kNullValueNotAllowed);
    __int128& offset = start ? f.start_offset : f.end_offset;
    double& offset_float = start ? f.start_offset_float : f.end_offset_float;
    if (f.mode != Frame::Mode::kRange) {
      if (v.integer() < 0)
        return Status::Invalid("frame {} offset must not be negative", which)
            .WithSqlState(sqlstate::kInvalidPrecedingOrFollowingSize);
      offset = v.integer();
      continue;
    }
    // RANGE: the offset in the key's units.
    const DataType& key = *w.order_key(0).return_type;
    const DataType& ot = *v.type();
    const Status invalid_size =
        Status::Invalid("invalid preceding or following size in window function")
            .WithSqlState(sqlstate::kInvalidPrecedingOrFollowingSize);
    const Status mismatch =
        Status::Invalid("RANGE with offset PRECEDING/FOLLOWING is not supported for column type {} and offset type {}",
                        PgTypeName(key), PgTypeName(ot));
    if (IsIntegerType(key)) {
      if (!IsIntegerType(ot)) return mismatch;
      if (v.integer() < 0) return invalid_size;
      f.key_kind = Frame::KeyKind::kInt;
      offset = v.integer();
    } else if (key.id == TypeId::kFloat || key.id == TypeId::kDouble) {
      if (!IsIntegerType(ot) && ot.id != TypeId::kFloat && ot.id != TypeId::kDouble && ot.id != TypeId::kDecimal128)
        return mismatch;
      const double d = v.ToDouble();
      if (!(d >= 0)) return invalid_size;  // negative or NaN
      f.key_kind = Frame::KeyKind::kFloat;
      offset_float = d;
    } else if (key.id == TypeId::kDecimal128) {
      __int128 unscaled;
      int scale;
      if (IsIntegerType(ot)) {
        unscaled = v.integer();
        scale = 0;
      } else if (ot.id == TypeId::kDecimal128) {
        unscaled = v.decimal();
        scale = ot.scale;
      } else {
        return mismatch;
      }
      if (unscaled < 0) return invalid_size;
      if (scale > key.scale) {
        return Status::Unsupported("a RANGE offset with more decimal places ({}) than the ORDER BY key ({})", scale,
                                   key.scale);
      }
      f.key_kind = Frame::KeyKind::kDecimal;
      offset = unscaled * Pow10Int128(key.scale - scale);
    } else if (key.id == TypeId::kDate32 || key.id == TypeId::kTimestamp) {
      if (ot.id != TypeId::kIntervalMonthDayNano) return mismatch;
      const IntervalValue iv = v.interval();
      constexpr int64_t kMicrosPerDay = int64_t{86400} * 1000000;
      // PostgreSQL's interval sign: a month counts 30 days.
      const __int128 span = (static_cast<__int128>(iv.months) * 30 + iv.days) * kMicrosPerDay + iv.micros;
      if (span < 0) return invalid_size;
      if (key.id == TypeId::kTimestamp &&
          (key.unit != TimeUnit::kMicro || (!key.timezone.empty() && (iv.days != 0 || iv.months != 0)))) {
        // timestamptz + days / months is DST-aware in PostgreSQL.
        return Status::Unsupported("RANGE offsets in days or months over {}", PgTypeName(key));
      }
      f.key_kind = Frame::KeyKind::kInt;
      f.key_multiplier = key.id == TypeId::kDate32 ? kMicrosPerDay : 1;
      (start ? f.start_months : f.end_months) = iv.months;
      offset = static_cast<__int128>(iv.days) * kMicrosPerDay + iv.micros;
    } else {
      return mismatch;
    }
  }
  return f;
}

}  // namespace

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanWindow(const plan::LogicalWindow& op) {
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr child, Plan(*op.children[0]));
  const auto bindings = op.children[0]->GetColumnBindings();
  const size_t width = child->types().size();
  std::vector<const Expression*> needed;
  for (const auto& e : op.expressions) {
    const auto& w = e->As<plan::WindowExpression>();
    // Arguments, keys and FILTER (the frame offsets are constants, read below).
    const int operands = w.num_args + w.num_partitions + static_cast<int>(w.order.size()) + w.has_filter;
    for (int i = 0; i < operands; ++i) needed.push_back(w.children[static_cast<size_t>(i)].get());
  }
  // Equal expressions become one column, so that windows with equal keys
  // are seen to share their sort (PhysicalWindow compares key columns).
  std::vector<const Expression*> unique;
  std::vector<size_t> unique_of;
  for (const Expression* e : needed) {
    size_t u = 0;
    while (u < unique.size() && !unique[u]->Equals(*e)) ++u;
    if (u == unique.size()) unique.push_back(e);
    unique_of.push_back(u);
  }
  std::vector<int> unique_pos;
  QUIVER_ASSIGN_OR_RAISE(child, EnsureColumns(std::move(child), bindings, unique, &unique_pos));
  std::vector<int> pos;
  for (size_t u : unique_of) pos.push_back(unique_pos[u]);
  const std::vector<TypeRef> in_types = child->types();
  size_t k = 0;
  std::vector<WindowFunctionSpec> specs;
  for (const auto& e : op.expressions) {
    const auto& w = e->As<plan::WindowExpression>();
    WindowFunctionSpec s;
    s.function = w.function;
    s.aggregate = w.aggregate;
    for (int i = 0; i < w.num_args; ++i) {
      s.args.push_back(pos[k]);
      s.arg_types.push_back(in_types[static_cast<size_t>(pos[k])]);
      ++k;
    }
    for (int i = 0; i < w.num_partitions; ++i) {
      QUIVER_RETURN_NOT_OK(CheckKeyType(in_types[static_cast<size_t>(pos[k])], "PARTITION BY"));
      s.partitions.push_back(pos[k++]);
    }
    for (const auto& o : w.order) {
      QUIVER_RETURN_NOT_OK(CheckKeyType(in_types[static_cast<size_t>(pos[k])], "ORDER BY in a window"));
      s.orders.push_back({pos[k++], o.descending, o.nulls_first});
    }
    if (w.has_filter) s.filter = pos[k++];
    QUIVER_ASSIGN_OR_RAISE(s.frame, ResolveFrame(w));
    s.type = w.return_type;
    s.name = w.name;
    specs.push_back(std::move(s));
  }
  const size_t extended = in_types.size();
  const size_t functions = specs.size();
  auto window = std::make_unique<PhysicalWindow>(in_types, std::move(specs));
  window->estimated_rows = child->estimated_rows;
  window->children().push_back(std::move(child));
  PhysicalOpPtr out = std::move(window);
  if (extended > width) {
    // Drop the computed key columns: the child's columns, then the results.
    std::vector<size_t> keep;
    for (size_t i = 0; i < width; ++i) keep.push_back(i);
    for (size_t i = 0; i < functions; ++i) keep.push_back(extended + i);
    out = SelectColumns(std::move(out), keep);
  }
  return out;
}

}  // namespace quiver::exec::internal
