// Scan predicates and unit statistics: what lets a scan skip a unit (an IPC
// record batch, a Parquet row group) before reading it.
//
// A unit whose statistics (min/max/null count) prove that some predicate is
// false for every row is skipped. Runtime join filters, known only once the
// query runs, ask for the statistics of their key columns
// (ScanRequest::statistics_columns) and skip units whose range misses theirs
// (RuntimeFilter::MayMatch on ScanPlan::unit_statistics). Predicates are
// hints: the scan never promises to apply them row by row (the Filter above
// it does).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vector/value.h"

namespace quiver {

struct ScanPredicate {
  // kPrefix: a text column starting with values[0] (LIKE 'abc%'); kOr / kAnd:
  // any / all of `children` (whose columns may differ).
  enum Op : int8_t {
    kEq, kNe, kLt, kLe, kGt, kGe, kIn, kIsNull, kIsNotNull, kBetween, kPrefix, kOr, kAnd
  };
  int column = 0;  // index into the table's schema (unused by kOr / kAnd)
  Op op = kEq;
  std::vector<Value> values;  // 1 for comparisons, 2 for BETWEEN, n for IN
  std::vector<ScanPredicate> children;  // kOr, kAnd
  std::string ToString(const std::string& column_name) const;
  // With the names of the table's columns (needed for kOr).
  std::string ToString(const std::vector<std::string>& column_names) const;
  // The table columns the predicate reads.
  void Columns(std::vector<int>* out) const;
};

// Statistics of one unit, per table column (engine types).
struct UnitStatistics {
  int64_t rows = -1;
  std::vector<Value> min;        // Null value = unknown
  std::vector<Value> max;
  std::vector<int64_t> nulls;    // -1 = unknown
};

// Whether a unit with `stats` may hold a row satisfying `p` (false only
// when the statistics prove otherwise).
bool UnitMayMatch(const UnitStatistics& stats, const ScanPredicate& p);

}  // namespace quiver
