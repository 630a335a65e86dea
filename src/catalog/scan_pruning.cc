#include "catalog/scan_pruning.h"

namespace quiver {

std::string ScanPredicate::ToString(const std::string& col) const {
  auto v = [&](size_t i) { return i < values.size() ? values[i].ToSqlLiteral() : std::string("?"); };
  switch (op) {
    case kEq:
      return col + " = " + v(0);
    case kNe:
      return col + " <> " + v(0);
    case kLt:
      return col + " < " + v(0);
    case kLe:
      return col + " <= " + v(0);
    case kGt:
      return col + " > " + v(0);
    case kGe:
      return col + " >= " + v(0);
    case kBetween:
      return col + " BETWEEN " + v(0) + " AND " + v(1);
    case kIsNull:
      return col + " IS NULL";
    case kIsNotNull:
      return col + " IS NOT NULL";
    case kIn: {
      std::string s = col + " IN (";
      for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + v(i);
      return s + ")";
    }
  }
  return col;
}

bool UnitMayMatch(const UnitStatistics& stats, const ScanPredicate& p) {
  const size_t c = static_cast<size_t>(p.column);
  if (c >= stats.min.size()) return true;
  const Value& lo = stats.min[c];
  const Value& hi = stats.max[c];
  const int64_t nulls = c < stats.nulls.size() ? stats.nulls[c] : -1;
  if (p.op == ScanPredicate::kIsNull) return nulls != 0;
  if (p.op == ScanPredicate::kIsNotNull) return !(nulls >= 0 && stats.rows >= 0 && nulls == stats.rows);
  // A unit of only NULLs matches no comparison.
  if (nulls >= 0 && stats.rows >= 0 && nulls == stats.rows && stats.rows > 0) return false;
  if (lo.is_null() || hi.is_null()) return true;
  auto comparable = [&](const Value& v) { return !v.is_null() && v.type()->Equals(*lo.type()); };
  switch (p.op) {
    case ScanPredicate::kEq:
      if (!comparable(p.values[0])) return true;
      return lo.Compare(p.values[0]) <= 0 && hi.Compare(p.values[0]) >= 0;
    case ScanPredicate::kNe:
      if (!comparable(p.values[0])) return true;
      return !(lo.Compare(p.values[0]) == 0 && hi.Compare(p.values[0]) == 0);
    case ScanPredicate::kLt:
      return !comparable(p.values[0]) || lo.Compare(p.values[0]) < 0;
    case ScanPredicate::kLe:
      return !comparable(p.values[0]) || lo.Compare(p.values[0]) <= 0;
    case ScanPredicate::kGt:
      return !comparable(p.values[0]) || hi.Compare(p.values[0]) > 0;
    case ScanPredicate::kGe:
      return !comparable(p.values[0]) || hi.Compare(p.values[0]) >= 0;
    case ScanPredicate::kBetween:
      if (!comparable(p.values[0]) || !comparable(p.values[1])) return true;
      return hi.Compare(p.values[0]) >= 0 && lo.Compare(p.values[1]) <= 0;
    case ScanPredicate::kIn:
      for (const Value& v : p.values) {
        if (!comparable(v)) return true;
        if (lo.Compare(v) <= 0 && hi.Compare(v) >= 0) return true;
      }
      return false;
    default:
      return true;
  }
}

}  // namespace quiver
