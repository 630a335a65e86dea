// Arrow schema -> Parquet schema, for the writer.
//
//   int8/16/32, uint8/16/32   INT32 + INTEGER(bits, signed)
//   int64, uint64             INT64 + INTEGER(64, signed)
//   float16                   FIXED_LEN_BYTE_ARRAY(2) + FLOAT16
//   float, double             FLOAT, DOUBLE
//   bool                      BOOLEAN
//   utf8 (all variants)       BYTE_ARRAY + STRING
//   binary (all variants)     BYTE_ARRAY
//   fixed_size_binary(n)      FIXED_LEN_BYTE_ARRAY(n)
//   date32, date64            INT32 + DATE (date64 divided down to days)
//   time32                    INT32 + TIME(MILLIS) (seconds multiplied up)
//   time64                    INT64 + TIME(MICROS | NANOS)
//   timestamp[s|ms|us|ns]     INT64 + TIMESTAMP(MILLIS|MILLIS|MICROS|NANOS,
//                             adjusted to UTC when the type has a time zone)
//   duration                  INT64 (ARROW:schema restores it)
//   decimal32..256(p, s)      FIXED_LEN_BYTE_ARRAY(minimal bytes for p) + DECIMAL
//   interval months/day_time  FIXED_LEN_BYTE_ARRAY(12) + INTERVAL
//   null                      optional INT32 + UNKNOWN
//   dictionary<v>             as v (values written dictionary-encoded)
//   struct                    group
//   list/large_list/list_view/large_list_view/fixed_size_list
//                             group (LIST) { repeated group list { element } }
//   map                       group (MAP) { repeated group key_value { key; value } }
// Unions, run-end encoded arrays and month_day_nano intervals have no
// Parquet form: Status::Unsupported.
#pragma once

#include <cstdint>
#include <vector>

#include "columnar/type.h"
#include "common/status.h"
#include "formats/parquet/metadata.h"

namespace quiver::parquet {

// How an Arrow field's arrays turn into levels (see level_builder.h).
struct WriterNode {
  enum class Kind : int8_t { kLeaf, kStruct, kList };  // kList: every list-like type and map
  Kind kind = Kind::kLeaf;
  TypeRef type;           // the Arrow type (dictionary: the value type)
  bool nullable = true;   // the Parquet node is OPTIONAL
  int16_t def_level = 0;  // definition level of a present (non-null) value of this node
  int16_t rep_level = 0;  // lists: repetition level of their elements
  std::vector<WriterNode> children;
  int leaf = -1;  // leaf column index
};

struct WriterSchema {
  std::vector<SchemaElement> elements;  // depth-first, root first
  std::vector<WriterNode> fields;       // one per top-level Arrow field
  // Per leaf column: the Parquet description and the path of child indices
  // from the top-level field down to it.
  struct Leaf {
    int field = 0;
    std::vector<int> path;  // child index at each struct/list step
    Type physical_type = Type::kInt32;
    int32_t type_length = 0;
    int16_t max_def_level = 0;
    int16_t max_rep_level = 0;
    TypeRef arrow_type;  // the leaf's Arrow type (dictionary: value type)
    LogicalType logical_type;
    std::vector<std::string> path_in_schema;
  };
  std::vector<Leaf> leaves;
};

Result<WriterSchema> ArrowToParquetSchema(const Schema& schema);

// Bytes of a FIXED_LEN_BYTE_ARRAY holding decimals of `precision` digits.
int32_t DecimalByteWidth(int32_t precision);

}  // namespace quiver::parquet
