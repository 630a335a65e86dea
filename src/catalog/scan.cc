#include "catalog/scan.h"

namespace quiver {

// Without the table's metadata: a scan's output is plain columns.
SchemaRef ScanSchema(const SchemaRef& table_schema, const std::vector<int>& columns) {
  std::vector<FieldRef> fields;
  for (int c : columns) fields.push_back(table_schema->field(c));
  return schema(std::move(fields));
}

}  // namespace quiver
