// The constraints a memory table enforces besides NOT NULL (which is the
// schema's nullability): PRIMARY KEY, UNIQUE, CHECK, and column DEFAULTs.
//
// Where they are enforced:
//   DEFAULT      planner/bind_dml.cc: an INSERT's missing column takes it
//                (serial / identity columns: the next values of their sequence).
//   CHECK        planner/bind_dml.cc adds one boolean column per CHECK to the
//                rows an INSERT / UPDATE writes (the expression IS NOT FALSE);
//                the sink (execution/operators/physical_modify_table.cc)
//                fails on a FALSE: 23514.
//   varchar(n) / char(n)
//                planner/bind_dml.cc wraps every value an INSERT / UPDATE /
//                COPY FROM / ON CONFLICT DO UPDATE assigns to such a column in
//                a check: longer than n characters is 22001 unless the extra
//                characters are all spaces (then cut to n), as PostgreSQL's.
//   PRIMARY KEY, UNIQUE
//                execution/constraint_check.h, when the sink commits: the keys
//                of the new rows are hashed against each other and against
//                the table's (an index of the current version kept between
//                commits), for the whole statement at once: 23505.
// A failing statement changes nothing: the table's next version is
// published only once every check passed (MemoryTable::Commit).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "columnar/type.h"
#include "common/status.h"
#include "sql/ast.h"

namespace quiver {

struct ScalarFunction;

// The sequence of a serial or identity column (PostgreSQL's t_col_seq that
// the column owns). Values are handed out in blocks, a chunk of rows at a
// time, with one atomic add: never twice, in no promised order, and like
// PostgreSQL's, not given back when the statement fails (gaps are normal).
struct ColumnSequence {
  std::string name;  // t_col_seq
  bool always = false;  // GENERATED ALWAYS: an INSERT may not give the value
  int64_t increment = 1;
  int64_t min = 0, max = 0;  // the column type's range
  std::atomic<int64_t> next{1};
  // nextval of this sequence as a function of no arguments (n values per call).
  std::shared_ptr<const ScalarFunction> nextval;
};

struct UniqueConstraint {
  std::string name;          // PostgreSQL's default: t_pkey, t_a_b_key
  std::vector<int> columns;  // key columns of the table
  bool primary = false;
};

// Makes the sequence of a serial / identity column of integer type `type`
// whose next value is `next` (engine/table_definition.h MakeColumnSequence):
// how a --db table's stored sequences are made again when the database
// opens (the storage layer has no function kernels to make nextval with).
using SequenceFactory = std::function<Result<std::shared_ptr<ColumnSequence>>(
    const std::string& name, const TypeRef& type, bool always, int64_t increment, int64_t next)>;

struct CheckConstraint {
  std::string name;  // PostgreSQL's default: t_col_check (one column), t_check
  std::shared_ptr<const sql::ParsedExpr> expr;
  std::string sql;  // expr as PostgreSQL's deparser writes it ("" unknown): what a --db table keeps
};

// The declared length of a varchar(n) / char(n) column (n 0: none).
// char(n) is kept as text, unpadded: only its length limit is enforced.
struct CharLength {
  int32_t n = 0;
  bool blank_padded = false;  // char(n), else varchar(n)
  bool operator==(const CharLength& o) const { return n == o.n && blank_padded == o.blank_padded; }
};

struct TableConstraints {
  std::vector<UniqueConstraint> unique;
  std::vector<CheckConstraint> checks;
  // Per column: its DEFAULT expression; null: none (NULL).
  std::vector<std::shared_ptr<const sql::ParsedExpr>> defaults;
  // Per column, beside `defaults`: the DEFAULT as PostgreSQL's deparser
  // writes it ("" none or unknown): what a --db table keeps.
  std::vector<std::string> default_sql;
  // Per column: its sequence (serial, identity); null: none.
  std::vector<std::shared_ptr<ColumnSequence>> sequences;

  // Per column: its declared length; shorter than the columns: none past the end.
  std::vector<CharLength> lengths;

  CharLength LengthOf(int c) const {
    return c >= 0 && static_cast<size_t>(c) < lengths.size() ? lengths[static_cast<size_t>(c)]
                                                              : CharLength{};
  }
  bool HasLengths() const {
    for (const auto& l : lengths)
      if (l.n > 0) return true;
    return false;
  }

  // Whether any column has a DEFAULT or a sequence.
  bool HasDefaults() const {
    for (const auto& d : defaults)
      if (d != nullptr) return true;
    return HasSequences();
  }
  bool HasSequences() const {
    for (const auto& s : sequences)
      if (s != nullptr) return true;
    return false;
  }
};

}  // namespace quiver
