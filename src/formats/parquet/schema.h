// The Parquet schema as a tree, with the repetition and definition levels
// each node implies.
//
// FileMetaData.schema lists the nodes depth-first; groups say how many
// children follow. Levels: a node's max definition level counts the OPTIONAL
// and REPEATED nodes from the root down to it (inclusive), its max repetition
// level the REPEATED ones. A leaf's levels are its column's max levels.
//
// Thread-safety: immutable after Make().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "formats/parquet/metadata.h"

namespace quiver::parquet {

struct SchemaNode {
  const SchemaElement* element = nullptr;  // points into the FileMetaData
  int parent = -1;
  std::vector<int> children;  // node indices
  int16_t def_level = 0;
  int16_t rep_level = 0;
  int leaf = -1;  // column index for leaves, -1 for groups
  int depth = 0;

  bool is_leaf() const { return leaf >= 0; }
  const std::string& name() const { return element->name; }
  Repetition repetition() const { return element->repetition_type.value_or(Repetition::kRequired); }
};

struct ColumnDescriptor {
  int node = -1;
  Type physical_type = Type::kInt32;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY only
  int16_t max_def_level = 0;
  int16_t max_rep_level = 0;
  std::string path;  // dotted, for messages ("a.list.element")
};

// `name` for error messages: control bytes and invalid UTF-8 as \xNN.
std::string PrintableName(std::string_view name);

class SchemaDescriptor {
 public:
  // Builds the tree from `elements` (which must outlive the descriptor).
  static Result<SchemaDescriptor> Make(const std::vector<SchemaElement>& elements);

  const SchemaNode& node(int i) const { return nodes_[i]; }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const SchemaNode& root() const { return nodes_[0]; }
  int num_columns() const { return static_cast<int>(columns_.size()); }
  const ColumnDescriptor& column(int i) const { return columns_[i]; }
  // Leaf column indices under node i (in column order).
  std::vector<int> LeavesUnder(int i) const;

 private:
  std::vector<SchemaNode> nodes_;
  std::vector<ColumnDescriptor> columns_;
};

}  // namespace quiver::parquet
