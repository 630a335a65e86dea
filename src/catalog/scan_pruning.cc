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
    case kPrefix:
      return col + " LIKE " + (values.empty() ? std::string("?") : Value::Text(values[0].str() + "%").ToSqlLiteral());
    case kOr:
    case kAnd:
      return "(" + std::to_string(children.size()) + " terms)";
  }
  return col;
}

std::string ScanPredicate::ToString(const std::vector<std::string>& names) const {
  if (op == kOr || op == kAnd) {
    std::string s = "(";
    for (size_t i = 0; i < children.size(); ++i)
      s += (i ? (op == kOr ? " OR " : " AND ") : "") + children[i].ToString(names);
    return s + ")";
  }
  const size_t c = static_cast<size_t>(column);
  return ToString(c < names.size() ? names[c] : std::string("?"));
}

void ScanPredicate::Columns(std::vector<int>* out) const {
  if (op == kOr || op == kAnd) {
    for (const auto& p : children) p.Columns(out);
  } else {
    out->push_back(column);
  }
}

bool UnitMayMatch(const UnitStatistics& stats, const ScanPredicate& p) {
  if (p.op == ScanPredicate::kOr) {
    for (const auto& branch : p.children) {
      if (UnitMayMatch(stats, branch)) return true;
    }
    return p.children.empty();
  }
  if (p.op == ScanPredicate::kAnd) {
    for (const auto& term : p.children) {
      if (!UnitMayMatch(stats, term)) return false;
    }
    return true;
  }
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
    case ScanPredicate::kPrefix: {
      // The strings starting with `prefix` are [prefix, successor), where the
      // successor is the prefix with its last byte below 0xff incremented.
      if (!comparable(p.values[0])) return true;
      if (hi.Compare(p.values[0]) < 0) return false;
      std::string succ = p.values[0].str();
      while (!succ.empty() && static_cast<unsigned char>(succ.back()) == 0xff) succ.pop_back();
      if (succ.empty()) return true;
      succ.back() = static_cast<char>(static_cast<unsigned char>(succ.back()) + 1);
      return lo.Compare(Value::Text(succ)) < 0;
    }
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
