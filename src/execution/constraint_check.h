// PRIMARY KEY and UNIQUE, checked for a whole statement at once when it
// commits its rows to a memory table (catalog/table_constraints.h).
//
// Per constraint, the serialized keys of the table's current version sit in
// a GroupTable (execution/group_table.h), kept between commits in the
// table's writer state and tagged with the version they describe; a commit
// that starts from another version (a transaction's publish, UPDATE or
// DELETE) rebuilds it. The new rows' keys are then found-or-created in
// order: a key that already has a group is a duplicate, of a stored row or
// of an earlier new row, and is reported as PostgreSQL reports it:
//
//   duplicate key value violates unique constraint "t_pkey"   (23505)
//   DETAIL: Key (k)=(1) already exists.
//
// Rows with a NULL in a key column are exempt (NULLS DISTINCT). So an
// append of N rows to a table of M costs O(N) hash probes once the index
// exists, and O(M + N) when it must be built.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "catalog/memory_table.h"
#include "vector/data_chunk.h"

namespace quiver::exec {

// The next version of `table` after `rows` are appended to `current`
// (replace = false) or replace it (replace = true), once every unique
// constraint holds; `writer_state` is MemoryTable::Commit's.
Result<TableVersionRef> CommitRows(const MemoryTable& table, const TableVersionRef& current,
                                   std::shared_ptr<void>* writer_state,
                                   std::vector<RecordBatchRef> rows, bool replace);

// PostgreSQL's text of a row in "Failing row contains (...)": values as
// their text, unquoted, null as `null` (ExecBuildSlotValueDescription).
std::string FormatFailingRow(const std::vector<const ArrayData*>& columns, int64_t row);

// NOT NULL (with `not_null`) and CHECK of the rows at `slots` of `input`:
// the table's columns start at input column `first`, the CHECK results (one
// boolean column per constraint of table.constraints()) at `first_check`.
// Only NULL or true passes a CHECK. PostgreSQL's messages, SQLSTATEs and
// "Failing row contains (...)" detail.
Status CheckRowConstraints(const MemoryTable& table, const DataChunk& input,
                           const std::vector<uint32_t>& slots, int first, int first_check,
                           int num_checks, bool not_null);

// One flag per row position of a scanned table version, shared by the
// threads of an UPDATE / DELETE / ON CONFLICT DO UPDATE: the first row to
// claim a position gets it.
class PositionClaims {
 public:
  void Reset(int64_t num_positions);
  int64_t size() const { return size_; }
  // true for the first claim of `p`; an out-of-range `p` is an internal error.
  Result<bool> Claim(int64_t p);

 private:
  std::unique_ptr<std::atomic<uint8_t>[]> flags_;
  int64_t size_ = 0;
};

}  // namespace quiver::exec
