// The bridge between Parquet schemas and Arrow schemas.
//
// Reading: each top-level Arrow field becomes a FieldNode tree that says
// which leaf columns feed it and which definition/repetition levels make its
// slots null, empty or present:
//
//   optional group a (LIST)          -> list  a      def_level 1 (null below)
//     repeated group list            ->   element slots: rep 1, def >= 2
//       optional int32 element       ->   leaf element  def_level 3
//
// The mapping follows Parquet's LogicalTypes.md, backward-compatibility
// rules included (two-level lists, repeated fields without LIST, legacy
// MAP_KEY_VALUE), and Arrow C++'s choice of types (INT96 -> timestamp[ns],
// ENUM/BSON -> binary, JSON -> utf8, UUID/INTERVAL -> fixed_size_binary).
// When the file carries the Arrow schema it was written from
// ("ARROW:schema", base64 of an IPC schema message), its types and field
// metadata are restored where the stored values can be converted.
//
// Writing: Arrow fields become SchemaElements (see ArrowToParquetSchema).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "columnar/type.h"
#include "common/status.h"
#include "formats/parquet/metadata.h"
#include "formats/parquet/schema.h"

namespace quiver::parquet {

struct FieldNode {
  enum class Kind : int8_t { kLeaf, kStruct, kList, kMap };
  Kind kind = Kind::kLeaf;
  // The field as decoded from Parquet (types before any ARROW:schema hint).
  FieldRef field;
  // A slot is valid (non-null) when its definition level is >= def_level.
  int16_t def_level = 0;
  // list/map: an element exists at definition level >= child_def_level; a
  // new element starts at repetition level <= child_rep_level.
  int16_t child_def_level = 0;
  int16_t child_rep_level = 0;
  int column = -1;  // leaf: the column index
  std::vector<FieldNode> children;
};

struct ArrowSchemaInfo {
  std::vector<FieldNode> fields;  // one per top-level field
  // What the reader returns: field types with ARROW:schema hints applied,
  // file key/value metadata without the ARROW:schema entry.
  SchemaRef schema;
  // Leaf columns of each top-level field, in column order.
  std::vector<std::vector<int>> leaves;
};

// `key_value_metadata` is the file's; `use_stored_schema` applies its
// ARROW:schema entry when there is one.
Result<ArrowSchemaInfo> ParquetToArrowSchema(const SchemaDescriptor& schema,
                                             const std::vector<KeyValue>& key_value_metadata,
                                             bool use_stored_schema = true);

// The Arrow type of a leaf (primitive) schema element.
Result<TypeRef> LeafArrowType(const SchemaElement& element, const ColumnDescriptor& column);

// The Arrow schema stored under ARROW:schema, or null when absent or
// unreadable (a broken hint is ignored, as other readers do).
SchemaRef DecodeStoredArrowSchema(const std::vector<KeyValue>& key_value_metadata);
// Base64 of the IPC schema message for `schema` (the ARROW:schema value).
Result<std::string> EncodeStoredArrowSchema(const Schema& schema);

}  // namespace quiver::parquet
