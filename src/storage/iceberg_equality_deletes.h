// Equality delete files (Iceberg specification, "Equality Delete Files" and
// "Scan Planning"). A delete file of content 2 names its delete columns by
// field id (equality_ids) and holds rows of them; it deletes every row of a
// data file whose values in those columns equal one of its rows' (NULL
// equals NULL here), when
//   - the data file's data sequence number is strictly less than the delete
//     file's (a delete never reaches rows committed after it), and
//   - the delete file's partition spec is unpartitioned (a global delete),
//     or the data file has the same spec id and partition tuple.
//
// Keys: a row's delete-column values, each first cast to the table column's
// type (a file's int column meets the table's long), encoded column by
// column into one byte string:
//   NULL       0x00
//   a value    0x01, then: boolean 1 byte; int, date 4 bytes; long, time,
//              timestamp 8 bytes; decimal 16 bytes (the unscaled value; the
//              table's scale); string, binary a 4-byte length and the bytes
// Float and double columns cannot be delete columns (the specification
// forbids them), nor can nested ones: CheckDeleteColumnType refuses them.
//
// EqualityDeleteIndex: the delete rows a scan needs, per set of delete
// columns, in hash maps from a key to the highest sequence number of a
// delete file holding it: one map of the global deletes and one per
// partition. A data file's rows are deleted when a map that reaches the
// file's partition holds their key with a sequence number above the file's
// (so delete files of one column set, global and partitioned, need one
// probe each). Built once per scan (iceberg_scan.h), its memory reserved
// from the query's pool (--memory-limit); probed a batch at a time.
//
// Thread-safety: an index is read-only once built; Apply may run
// concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "columnar/array.h"
#include "common/memory_pool.h"
#include "storage/iceberg_manifest.h"

namespace quiver::iceberg {

// An equality delete file resolved against a table (IcebergRows::Make).
struct EqualityDeleteFile {
  std::string path;          // local
  std::vector<int> columns;  // the table columns of its equality_ids, ascending
  int64_t sequence_number = 0;
  bool global = true;  // its spec is unpartitioned
  std::string scope;   // else its partition (PartitionScope)
};

// Refuses (0A000) a delete column of a type keys cannot hold, naming the
// column and the delete file.
Status CheckDeleteColumnType(const std::string& column, const DataType& type,
                             const std::string& file);

// Appends the encoding of each value of `a` (a type CheckDeleteColumnType
// accepts) to keys[r], r < a.length. REQUIRES: keys->size() >= a.length.
Status AppendKeys(const ArrayData& a, std::vector<std::string>* keys);

class EqualityDeleteIndex {
 public:
  using KeyMap = std::unordered_map<std::string, int64_t>;  // key -> sequence number

  explicit EqualityDeleteIndex(MemoryPool* pool) : reservation_(pool) {}

  // Adds a delete file's rows: `keys`, one array per column of
  // `file.columns`, cast to the table's types.
  Status Add(const EqualityDeleteFile& file, const std::vector<ArrayRef>& keys);

  // What decides for the rows of one data file: per column set with a map
  // that reaches the file's partition.
  struct Probe {
    const std::vector<int>* columns;  // table columns, ascending
    const KeyMap* global = nullptr;   // null: none
    const KeyMap* scoped = nullptr;   // the file's partition's; null: none
    int64_t sequence_number = 0;      // the data file's
  };
  std::vector<Probe> ProbesFor(int64_t sequence_number, const std::string& scope) const;

  // Clears keep[r] for each row r whose key (one array per column of
  // `probe.columns`, the table's types) a delete reaches.
  static Status Apply(const Probe& probe, const std::vector<ArrayRef>& keys,
                      std::vector<uint8_t>* keep);

  int64_t size() const { return entries_; }

 private:
  struct Group {
    std::vector<int> columns;
    KeyMap global;
    std::map<std::string, KeyMap> scoped;
  };
  std::vector<Group> groups_;
  MemoryReservation reservation_;
  int64_t bytes_ = 0;
  int64_t entries_ = 0;
};

}  // namespace quiver::iceberg
