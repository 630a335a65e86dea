// Catalog metadata results: catalogs, schemas, tables, table types, keys.
#include "server/metadata.h"

#include <algorithm>

#include "columnar/builder.h"
#include "formats/ipc/message_codec.h"
#include "vector/sql_type.h"

namespace quiver::server {
namespace {

FieldRef NotNull(const std::string& name, TypeRef type) {
  return field(name, std::move(type), false);
}

Result<RecordBatchRef> Make(const SchemaRef& schema, std::vector<ArrayBuilder*> builders) {
  std::vector<ArrayRef> columns;
  int64_t rows = 0;
  for (ArrayBuilder* b : builders) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, b->Finish());
    rows = a->length;
    columns.push_back(std::move(a));
  }
  return RecordBatch::Make(schema, rows, std::move(columns));
}

}  // namespace

SchemaRef CatalogsSchema() { return schema({NotNull("catalog_name", utf8())}); }

SchemaRef DbSchemasSchema() {
  return schema({field("catalog_name", utf8()), NotNull("db_schema_name", utf8())});
}

SchemaRef TablesSchema(bool include_schema) {
  std::vector<FieldRef> fields = {field("catalog_name", utf8()), field("db_schema_name", utf8()),
                                  NotNull("table_name", utf8()), NotNull("table_type", utf8())};
  if (include_schema) fields.push_back(NotNull("table_schema", binary()));
  return schema(std::move(fields));
}

SchemaRef TableTypesSchema() { return schema({NotNull("table_type", utf8())}); }

SchemaRef PrimaryKeysSchema() {
  return schema({field("catalog_name", utf8()), field("db_schema_name", utf8()),
                 NotNull("table_name", utf8()), NotNull("column_name", utf8()),
                 field("key_name", utf8()), NotNull("key_sequence", int32())});
}

SchemaRef ForeignKeysSchema() {
  return schema({field("pk_catalog_name", utf8()), field("pk_db_schema_name", utf8()),
                 NotNull("pk_table_name", utf8()), NotNull("pk_column_name", utf8()),
                 field("fk_catalog_name", utf8()), field("fk_db_schema_name", utf8()),
                 NotNull("fk_table_name", utf8()), NotNull("fk_column_name", utf8()),
                 NotNull("key_sequence", int32()), field("fk_key_name", utf8()),
                 field("pk_key_name", utf8()), NotNull("update_rule", uint8()),
                 NotNull("delete_rule", uint8())});
}

Result<RecordBatchRef> CatalogsBatch() {
  StringBuilder names(utf8());
  return Make(CatalogsSchema(), {&names});
}

Result<RecordBatchRef> DbSchemasBatch(const sqlpb::CommandGetDbSchemas& cmd,
                                      const std::vector<std::string>& schemas) {
  StringBuilder catalog(utf8()), name(utf8());
  // Schemas have no catalog: a named catalog finds nothing.
  const bool catalog_ok = !cmd.has_catalog() || cmd.catalog().empty();
  for (const std::string& s : schemas) {
    if (!catalog_ok) break;
    if (cmd.has_db_schema_filter_pattern() && !LikeMatch(cmd.db_schema_filter_pattern(), s)) continue;
    QUIVER_RETURN_NOT_OK(catalog.AppendNull());
    QUIVER_RETURN_NOT_OK(name.Append(s));
  }
  return Make(DbSchemasSchema(), {&catalog, &name});
}

std::string SerializeTableSchema(const TableInfo& table) {
  std::vector<FieldRef> fields;
  const bool read_only = table.type != "TABLE";
  for (const auto& f : table.schema->fields) {
    const DataType& t = *f->type;
    KeyValueMetadata md = {{"ARROW:FLIGHT:SQL:DB_SCHEMA_NAME", table.db_schema},
                           {"ARROW:FLIGHT:SQL:TABLE_NAME", table.name},
                           {"ARROW:FLIGHT:SQL:TYPE_NAME", PgTypeName(t)}};
    if (t.id == TypeId::kDecimal128 || t.id == TypeId::kDecimal256) {
      md.emplace_back("ARROW:FLIGHT:SQL:PRECISION", std::to_string(t.precision));
      md.emplace_back("ARROW:FLIGHT:SQL:SCALE", std::to_string(t.scale));
    }
    md.emplace_back("ARROW:FLIGHT:SQL:IS_AUTO_INCREMENT", "0");
    const bool text = t.id == TypeId::kString || t.id == TypeId::kLargeString;
    md.emplace_back("ARROW:FLIGHT:SQL:IS_CASE_SENSITIVE", text ? "1" : "0");
    md.emplace_back("ARROW:FLIGHT:SQL:IS_READ_ONLY", read_only ? "1" : "0");
    md.emplace_back("ARROW:FLIGHT:SQL:IS_SEARCHABLE", "1");
    fields.push_back(field(f->name, f->type, f->nullable, std::move(md)));
  }
  return ipc::SerializeSchema(*schema(std::move(fields)));
}

Result<RecordBatchRef> TablesBatch(const sqlpb::CommandGetTables& cmd,
                                   const std::vector<TableInfo>& all) {
  std::vector<const TableInfo*> tables;
  const bool catalog_ok = !cmd.has_catalog() || cmd.catalog().empty();
  if (catalog_ok) {
    for (const auto& t : all) {
      if (cmd.has_db_schema_filter_pattern() &&
          !LikeMatch(cmd.db_schema_filter_pattern(), t.db_schema)) {
        continue;
      }
      if (cmd.has_table_name_filter_pattern() &&
          !LikeMatch(cmd.table_name_filter_pattern(), t.name)) {
        continue;
      }
      if (cmd.table_types_size() > 0 &&
          std::none_of(cmd.table_types().begin(), cmd.table_types().end(),
                       [&](const std::string& type) { return type == t.type; })) {
        continue;
      }
      tables.push_back(&t);
    }
  }
  // Ordered by schema, table name, then type (no catalogs).
  std::sort(tables.begin(), tables.end(), [](const TableInfo* a, const TableInfo* b) {
    if (a->db_schema != b->db_schema) return a->db_schema < b->db_schema;
    return a->name != b->name ? a->name < b->name : a->type < b->type;
  });
  StringBuilder catalog(utf8()), db_schema(utf8()), name(utf8()), type(utf8()),
      table_schema(binary());
  for (const TableInfo* t : tables) {
    QUIVER_RETURN_NOT_OK(catalog.AppendNull());
    QUIVER_RETURN_NOT_OK(db_schema.Append(t->db_schema));
    QUIVER_RETURN_NOT_OK(name.Append(t->name));
    QUIVER_RETURN_NOT_OK(type.Append(t->type));
    if (cmd.include_schema()) QUIVER_RETURN_NOT_OK(table_schema.Append(SerializeTableSchema(*t)));
  }
  std::vector<ArrayBuilder*> builders = {&catalog, &db_schema, &name, &type};
  if (cmd.include_schema()) builders.push_back(&table_schema);
  return Make(TablesSchema(cmd.include_schema()), std::move(builders));
}

Result<RecordBatchRef> TableTypesBatch() {
  StringBuilder types(utf8());
  QUIVER_RETURN_NOT_OK(types.Append("TABLE"));
  QUIVER_RETURN_NOT_OK(types.Append("VIEW"));
  return Make(TableTypesSchema(), {&types});
}

Result<RecordBatchRef> EmptyBatch(const SchemaRef& schema) {
  std::vector<ArrayRef> columns;
  for (const auto& f : schema->fields) {
    QUIVER_ASSIGN_OR_RAISE(auto builder, MakeBuilder(f->type));
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, builder->Finish());
    columns.push_back(std::move(a));
  }
  return RecordBatch::Make(schema, 0, std::move(columns));
}

}  // namespace quiver::server
