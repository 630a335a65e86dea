#include "catalog/system_tables.h"

#include "catalog/file_table.h"
#include "catalog/foreign_table.h"
#include "catalog/memory_table.h"
#include "vector/sql_type.h"
#include "vector/value.h"

namespace quiver {
namespace {

// Rows of Values into a memory table.
class TableBuilder {
 public:
  TableBuilder(std::string name, std::vector<FieldRef> fields)
      : table_(std::make_shared<MemoryTable>(std::move(name), schema(std::move(fields)))),
        columns_(static_cast<size_t>(table_->schema()->num_fields())) {}
  void Add(std::vector<Value> row) {
    for (size_t i = 0; i < row.size(); ++i) columns_[i].push_back(std::move(row[i]));
  }
  Result<std::shared_ptr<TableSource>> Finish() {
    if (!columns_.empty() && !columns_[0].empty()) {
      std::vector<ArrayRef> arrays;
      for (size_t i = 0; i < columns_.size(); ++i) {
        QUIVER_ASSIGN_OR_RAISE(auto a, ArrayFromValues(columns_[i], table_->schema()->field(static_cast<int>(i))->type));
        arrays.push_back(std::move(a));
      }
      const int64_t n = static_cast<int64_t>(columns_[0].size());
      QUIVER_RETURN_NOT_OK(table_->Append({RecordBatch::Make(table_->schema(), n, std::move(arrays))}));
    }
    return std::shared_ptr<TableSource>(table_);
  }

 private:
  std::shared_ptr<MemoryTable> table_;
  std::vector<std::vector<Value>> columns_;
};

Value Text(const std::string& s) { return Value::Text(s); }

bool IsForeign(const TableSource& t) {
  return dynamic_cast<const ForeignTable*>(&t) != nullptr || dynamic_cast<const FileTable*>(&t) != nullptr;
}

}  // namespace

Result<std::shared_ptr<TableSource>> InformationSchemaTable(const Catalog& catalog, const std::string& name) {
  const std::vector<std::string> names = catalog.TableNames();
  if (name == "tables") {
    TableBuilder b("tables", {field("table_catalog", utf8()), field("table_schema", utf8()),
                              field("table_name", utf8()), field("table_type", utf8())});
    for (const auto& n : names) {
      auto e = catalog.Lookup(n);
      if (e == nullptr) continue;
      const char* type = e->view ? "VIEW" : IsForeign(*e->table) ? "FOREIGN" : "BASE TABLE";
      b.Add({Text("quiver"), Text("public"), Text(n), Text(type)});
    }
    return b.Finish();
  }
  if (name == "columns") {
    TableBuilder b("columns", {field("table_catalog", utf8()), field("table_schema", utf8()),
                               field("table_name", utf8()), field("column_name", utf8()),
                               field("ordinal_position", int32()), field("is_nullable", utf8()),
                               field("data_type", utf8()), field("numeric_precision", int32()),
                               field("numeric_scale", int32())});
    for (const auto& n : names) {
      auto e = catalog.Lookup(n);
      if (e == nullptr || e->table == nullptr) continue;
      const SchemaRef s = e->table->schema();
      for (int i = 0; i < s->num_fields(); ++i) {
        const Field& f = *s->field(i);
        const bool dec = f.type->id == TypeId::kDecimal128;
        b.Add({Text("quiver"), Text("public"), Text(n), Text(f.name), Value::Int32(i + 1),
               Text(f.nullable ? "YES" : "NO"), Text(PgTypeName(*f.type)),
               dec ? Value::Int32(f.type->precision) : Value::Null(int32()),
               dec ? Value::Int32(f.type->scale) : Value::Null(int32())});
      }
    }
    return b.Finish();
  }
  if (name == "foreign_tables" || name == "foreign_table_options") {
    const bool options = name == "foreign_table_options";
    std::vector<FieldRef> fields = {field("foreign_table_catalog", utf8()), field("foreign_table_schema", utf8()),
                                    field("foreign_table_name", utf8())};
    if (options) {
      fields.push_back(field("option_name", utf8()));
      fields.push_back(field("option_value", utf8()));
    } else {
      fields.push_back(field("foreign_server_catalog", utf8()));
      fields.push_back(field("foreign_server_name", utf8()));
    }
    TableBuilder b(name, std::move(fields));
    for (const auto& n : names) {
      auto e = catalog.Lookup(n);
      const auto* ft = e && e->table ? dynamic_cast<const ForeignTable*>(e->table.get()) : nullptr;
      if (ft == nullptr) continue;
      if (!options) {
        b.Add({Text("quiver"), Text("public"), Text(n), Text("quiver"), Text("arrow_fdw")});
        continue;
      }
      for (const auto& [k, v] : ft->definition().options) {
        b.Add({Text("quiver"), Text("public"), Text(n), Text(k), Text(v)});
      }
    }
    return b.Finish();
  }
  return std::shared_ptr<TableSource>();
}

}  // namespace quiver
