#include "formats/parquet/statistics.h"

#include <cmath>
#include <cstring>

#include "columnar/pretty_print.h"
#include "common/utf8.h"
#include "formats/parquet/arrow_hints.h"
#include "formats/parquet/arrow_reader.h"
#include "formats/parquet/column_reader.h"

namespace quiver::parquet {
namespace {

bool SignedOrder(const ColumnDescriptor& col, const TypeRef& type) {
  switch (col.physical_type) {
    case Type::kBoolean:
    case Type::kFloat:
    case Type::kDouble:
      return true;
    case Type::kInt32:
    case Type::kInt64:
      return !type->is_unsigned_integer();
    default:
      return false;
  }
}

// Drops NaN bounds, widens zero bounds (see statistics.h).
bool FixFloatBound(const ColumnDescriptor& col, std::string* bytes, bool is_min) {
  if (col.physical_type == Type::kFloat && bytes->size() == 4) {
    float v;
    std::memcpy(&v, bytes->data(), 4);
    if (std::isnan(v)) return false;
    if (v == 0.0f) v = is_min ? -0.0f : 0.0f;
    std::memcpy(bytes->data(), &v, 4);
  } else if (col.physical_type == Type::kDouble && bytes->size() == 8) {
    double v;
    std::memcpy(&v, bytes->data(), 8);
    if (std::isnan(v)) return false;
    if (v == 0.0) v = is_min ? -0.0 : 0.0;
    std::memcpy(bytes->data(), &v, 8);
  }
  return true;
}

ArrayRef Decode(const ParquetFileReader& reader, const FieldNode& node, int field,
                std::string bytes, bool is_min) {
  const ColumnDescriptor& col = reader.parquet_schema().column(node.column);
  if (!FixFloatBound(col, &bytes, is_min)) return nullptr;
  if (node.field->type->id == TypeId::kHalfFloat) {
    // FLOAT16 bounds: NaN (exponent all ones, mantissa non-zero) is dropped.
    if (bytes.size() != 2) return nullptr;
    uint16_t h;
    std::memcpy(&h, bytes.data(), 2);
    if ((h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0) return nullptr;
  }
  auto a = DecodeSingleValue(node, reader.parquet_schema(), bytes, DefaultMemoryPool());
  if (!a.ok()) return nullptr;
  ArrayRef array = *a;
  if (array->type->id == TypeId::kString &&
      !ValidateUtf8(std::string_view(bytes.data(), bytes.size()))) {
    return nullptr;
  }
  const TypeRef& type = reader.schema()->field(field)->type;
  if (!type->Equals(*array->type)) {
    auto converted = ConvertToType(array, type, DefaultMemoryPool());
    if (!converted.ok()) return nullptr;
    array = *converted;
  }
  return array;
}

}  // namespace

FieldStatistics RowGroupFieldStatistics(const ParquetFileReader& reader, int row_group, int field) {
  FieldStatistics out;
  if (row_group < 0 || row_group >= reader.num_row_groups() || field < 0 ||
      field >= reader.schema()->num_fields()) {
    return out;
  }
  const FieldNode& node = reader.arrow_schema_info().fields[field];
  if (node.kind != FieldNode::Kind::kLeaf) return out;
  const ColumnChunk& chunk = reader.metadata().row_groups[row_group].columns[node.column];
  if (!chunk.meta_data || !chunk.meta_data->statistics) return out;
  const Statistics& s = *chunk.meta_data->statistics;
  const ColumnDescriptor& col = reader.parquet_schema().column(node.column);
  if (s.null_count && *s.null_count >= 0) out.null_count = *s.null_count;
  if (s.distinct_count && *s.distinct_count >= 0) out.distinct_count = *s.distinct_count;
  if (col.physical_type == Type::kInt96 || node.field->type->id == TypeId::kNull) return out;
  std::optional<std::string> min = s.min_value;
  std::optional<std::string> max = s.max_value;
  if (!min && !max && SignedOrder(col, node.field->type)) {
    min = s.min;
    max = s.max;
  }
  if (min) {
    out.min = Decode(reader, node, field, *min, true);
    out.min_exact = out.min && s.is_min_value_exact.value_or(true);
  }
  if (max) {
    out.max = Decode(reader, node, field, *max, false);
    out.max_exact = out.max && s.is_max_value_exact.value_or(true);
  }
  return out;
}

std::vector<PageStatistics> PageFieldStatistics(const ParquetFileReader& reader, int row_group,
                                                int field) {
  std::vector<PageStatistics> out;
  if (row_group < 0 || row_group >= reader.num_row_groups() || field < 0 ||
      field >= reader.schema()->num_fields()) {
    return out;
  }
  const FieldNode& node = reader.arrow_schema_info().fields[field];
  if (node.kind != FieldNode::Kind::kLeaf) return out;
  const ColumnDescriptor& col = reader.parquet_schema().column(node.column);
  if (col.max_rep_level != 0 || col.physical_type == Type::kInt96 ||
      node.field->type->id == TypeId::kNull) {
    return out;
  }
  // The page index is only defined for columns with a type-defined order.
  const auto& orders = reader.metadata().column_orders;
  if (static_cast<size_t>(node.column) >= orders.size() ||
      (orders[static_cast<size_t>(node.column)] != ColumnOrder::kTypeOrder &&
       orders[static_cast<size_t>(node.column)] != ColumnOrder::kIeee754TotalOrder)) {
    return out;
  }
  auto column_index = reader.ReadColumnIndex(row_group, node.column);
  auto offset_index = reader.ReadOffsetIndex(row_group, node.column);
  if (!column_index.ok() || !offset_index.ok() || !column_index->has_value() ||
      !offset_index->has_value()) {
    return out;
  }
  const ColumnIndex& ci = **column_index;
  const OffsetIndex& oi = **offset_index;
  const int64_t rows = reader.row_group_rows(row_group);
  const size_t n = oi.page_locations.size();
  if (!ValidOffsetIndex(oi, rows) || ci.null_pages.size() != n || ci.min_values.size() != n ||
      ci.max_values.size() != n || (!ci.null_counts.empty() && ci.null_counts.size() != n)) {
    return out;
  }
  out.resize(n);
  for (size_t p = 0; p < n; ++p) {
    PageStatistics& s = out[p];
    s.first_row = oi.page_locations[p].first_row_index;
    s.rows = PageRows(oi, static_cast<int>(p), rows);
    if (!ci.null_counts.empty() && ci.null_counts[p] >= 0) s.null_count = ci.null_counts[p];
    if (ci.null_pages[p]) {
      s.null_count = s.rows;  // a page of nulls only
      continue;
    }
    s.min = Decode(reader, node, field, ci.min_values[p], true);
    s.max = Decode(reader, node, field, ci.max_values[p], false);
  }
  return out;
}

std::string FormatStatisticValue(const ParquetFileReader& reader, int column,
                                 const std::string& bytes) {
  const ColumnDescriptor& col = reader.parquet_schema().column(column);
  const SchemaNode& n = reader.parquet_schema().node(col.node);
  auto hex = [&] {
    std::string out = "0x";
    for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
    return out;
  };
  auto type = LeafArrowType(*n.element, col);
  if (!type.ok() || col.physical_type == Type::kInt96) return hex();
  FieldNode node;
  node.kind = FieldNode::Kind::kLeaf;
  node.column = column;
  node.field = field(n.name(), *type);
  auto a = DecodeSingleValue(node, reader.parquet_schema(), bytes, DefaultMemoryPool());
  if (!a.ok()) return hex();
  if ((*a)->type->id == TypeId::kBinary || (*a)->type->id == TypeId::kFixedSizeBinary) return hex();
  if ((*a)->type->id == TypeId::kString && !ValidateUtf8(bytes)) return hex();
  return FormatValue(**a, 0);
}

}  // namespace quiver::parquet
