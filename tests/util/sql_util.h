// Helpers for tests that run SQL through the Database API, the engine's
// stable seam (the planner and optimizer behind it are being restructured;
// SQL text, results, errors and EXPLAIN output are what these tests pin).
//
//   Rows(db, sql)          the last result of a script as "a|b\nc|d" (NULL as
//                          "NULL"), or "ERROR: <message>"
//   ErrorOf(db, sql)       the script's Status (OK when it ran)
//   Plan(db, sql)          EXPLAIN's lines for one query
//   InSubtree(plan, a, b)  whether the first line containing b is inside the
//                          subtree of the first line containing a
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/database.h"

namespace quiver::testing {

inline std::string Render(const QueryResult& r) {
  if (!r.has_rows) return r.command_tag;
  std::string out;
  for (int64_t i = 0; i < r.num_rows(); ++i) {
    if (i) out += "\n";
    auto row = r.Row(i);
    for (size_t c = 0; c < row.size(); ++c) out += (c ? "|" : "") + row[c].ToString();
  }
  return out;
}

inline std::string Rows(Database& db, const std::string& sql) {
  auto r = db.ExecuteScript(sql);
  if (!r.ok()) return "ERROR: " + r.status().message();
  return Render(r->back());
}

inline Status ErrorOf(Database& db, const std::string& sql) {
  auto r = db.ExecuteScript(sql);
  return r.ok() ? Status::OK() : r.status();
}

// The last result of `sql` (which must succeed).
inline QueryResult Last(Database& db, const std::string& sql) {
  auto r = db.ExecuteScript(sql);
  EXPECT_TRUE(r.ok()) << sql << ": " << r.status().ToString();
  if (!r.ok() || r->empty()) return QueryResult{};
  return std::move(r->back());
}

inline std::vector<std::string> Plan(Database& db, const std::string& sql) {
  std::vector<std::string> lines;
  const std::string text = Rows(db, "EXPLAIN " + sql);
  EXPECT_EQ(text.rfind("ERROR", 0), std::string::npos) << sql << ": " << text;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

inline std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

inline bool Contains(const std::vector<std::string>& plan, const std::string& what) {
  for (const auto& l : plan) {
    if (l.find(what) != std::string::npos) return true;
  }
  return false;
}

inline size_t Indent(const std::string& line) { return line.find_first_not_of(' '); }

inline bool InSubtree(const std::vector<std::string>& plan, const std::string& upper,
                      const std::string& lower) {
  for (size_t i = 0; i < plan.size(); ++i) {
    if (plan[i].find(upper) == std::string::npos) continue;
    for (size_t j = i + 1; j < plan.size() && Indent(plan[j]) > Indent(plan[i]); ++j) {
      if (plan[j].find(lower) != std::string::npos) return true;
    }
    return false;
  }
  return false;
}

}  // namespace quiver::testing

// A known bug, reported (see the test's comment for the case, PostgreSQL's
// answer and Quiver's): the check asserts today's behaviour, so the test
// fails once the bug is fixed and the case is then turned into a plain
// expectation of the right answer (pytest's strict xfail, for GoogleTest).
#define EXPECT_KNOWN_BUG(today_condition, what)                                       \
  EXPECT_TRUE(today_condition) << "known bug no longer reproduces (fixed?): " << what \
                               << " -- turn this check into the expectation of the right answer"
