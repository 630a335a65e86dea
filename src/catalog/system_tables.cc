#include "catalog/system_tables.h"

#include <algorithm>

#include "catalog/file_table.h"
#include "catalog/foreign_table.h"
#include "catalog/memory_table.h"
#include "vector/json_type.h"
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

// PostgreSQL's type oids (pg_type.dat) and typlen of the engine's types.
struct PgType {
  int64_t oid;
  const char* name;
  int16_t len;
};
constexpr PgType kPgTypes[] = {
    {16, "bool", 1},           {17, "bytea", -1},      {20, "int8", 8},          {21, "int2", 2},
    {23, "int4", 4},           {25, "text", -1},       {114, "json", -1},        {700, "float4", 4},
    {701, "float8", 8},        {1082, "date", 4},      {1083, "time", 8},        {1114, "timestamp", 8},
    {1184, "timestamptz", 8},  {1186, "interval", 16}, {1700, "numeric", -1},    {3802, "jsonb", -1},
};

int64_t PgTypeOid(const DataType& t) {
  switch (t.id) {
    case TypeId::kBool: return 16;
    case TypeId::kBinary: return 17;
    case TypeId::kInt64: return 20;
    case TypeId::kInt16: return 21;
    case TypeId::kInt32: return 23;
    case TypeId::kString: return IsJson(t) ? 114 : IsJsonb(t) ? 3802 : 25;
    case TypeId::kFloat: return 700;
    case TypeId::kDouble: return 701;
    case TypeId::kDate32: return 1082;
    case TypeId::kTime64: return 1083;
    case TypeId::kTimestamp: return t.timezone.empty() ? 1114 : 1184;
    case TypeId::kIntervalMonthDayNano: return 1186;
    case TypeId::kDecimal128: return 1700;
    default: return 0;
  }
}

// Namespace oids as PostgreSQL's: pg_catalog 11, public 2200; ours for
// information_schema. Relations are numbered from 16384 (FirstNormalObjectId)
// in name order, so an oid holds for one query, not across DDL.
constexpr int64_t kPgCatalogOid = 11;
constexpr int64_t kPublicOid = 2200;
constexpr int64_t kInformationSchemaOid = 13000;
constexpr int64_t kFirstRelationOid = 16384;

Value Oid(int64_t v) { return Value::Int64(v); }

// The oid of a schema: the system ones' above, created ones numbered after
// information_schema in name order (`created`: Catalog::SchemaNames()).
int64_t SchemaOid(const std::vector<std::string>& created, const std::string& schema) {
  if (schema == "pg_catalog") return kPgCatalogOid;
  if (schema == "information_schema") return kInformationSchemaOid;
  for (size_t i = 0; i < created.size(); ++i) {
    if (created[i] == schema) return kInformationSchemaOid + 1 + static_cast<int64_t>(i);
  }
  return kPublicOid;
}
FieldRef OidField(const char* name) { return field(name, int64(), false); }

}  // namespace

Result<std::shared_ptr<TableSource>> PgCatalogTable(const Catalog& catalog, const std::string& name) {
  const std::vector<std::string> names = catalog.TableNames();
  if (name == "pg_namespace") {
    TableBuilder b(name, {OidField("oid"), field("nspname", utf8(), false), OidField("nspowner")});
    b.Add({Oid(kPgCatalogOid), Text("pg_catalog"), Oid(10)});
    b.Add({Oid(kPublicOid), Text("public"), Oid(10)});
    b.Add({Oid(kInformationSchemaOid), Text("information_schema"), Oid(10)});
    const std::vector<std::string> schemas = catalog.SchemaNames();
    for (size_t i = 0; i < schemas.size(); ++i) {
      b.Add({Oid(SchemaOid(schemas, schemas[i])), Text(schemas[i]), Oid(10)});
    }
    return b.Finish();
  }
  if (name == "pg_type") {
    TableBuilder b(name, {OidField("oid"), field("typname", utf8(), false), OidField("typnamespace"),
                          field("typlen", int16(), false), field("typtype", utf8(), false)});
    for (const PgType& t : kPgTypes) {
      b.Add({Oid(t.oid), Text(t.name), Oid(kPgCatalogOid), Value::Int16(t.len), Text("b")});
    }
    return b.Finish();
  }
  if (name == "pg_class") {
    TableBuilder b(name, {OidField("oid"), field("relname", utf8(), false), OidField("relnamespace"),
                          field("relkind", utf8(), false), field("reltuples", float32(), false), field("relhasindex", boolean(), false),
                          field("relpersistence", utf8(), false)});
    for (size_t i = 0; i < names.size(); ++i) {
      auto e = catalog.Lookup(names[i]);
      if (e == nullptr) continue;
      // relkind: r table, v view, f foreign table (files named in a view are foreign too).
      const char* kind = e->view ? "v" : IsForeign(*e->table) ? "f" : "r";
      float tuples = -1;  // PostgreSQL's "never analyzed"
      if (e->table != nullptr && e->table->EstimatedRows() >= 0) tuples = static_cast<float>(e->table->EstimatedRows());
      const auto [schema, relation] = SplitQualifiedName(names[i]);
      b.Add({Oid(kFirstRelationOid + static_cast<int64_t>(i)), Text(relation),
             Oid(SchemaOid(catalog.SchemaNames(), schema)), Text(kind),
             Value::Float(tuples), Value::Boolean(false), Text("p")});
    }
    return b.Finish();
  }
  if (name == "pg_attribute") {
    TableBuilder b(name, {OidField("attrelid"), field("attname", utf8(), false), OidField("atttypid"),
                          field("attnum", int16(), false), field("atttypmod", int32(), false),
                          field("attnotnull", boolean(), false), field("attisdropped", boolean(), false)});
    for (size_t i = 0; i < names.size(); ++i) {
      auto e = catalog.Lookup(names[i]);
      if (e == nullptr || e->table == nullptr) continue;  // views' columns need binding
      const SchemaRef s = e->table->schema();
      for (int c = 0; c < s->num_fields(); ++c) {
        const Field& f = *s->field(c);
        // numeric(p,s)'s typmod is ((p << 16) | s) + 4, as PostgreSQL stores it.
        const int32_t typmod =
            f.type->id == TypeId::kDecimal128 ? ((f.type->precision << 16) | f.type->scale) + 4 : -1;
        b.Add({Oid(kFirstRelationOid + static_cast<int64_t>(i)), Text(f.name), Oid(PgTypeOid(*f.type)),
               Value::Int16(static_cast<int16_t>(c + 1)), Value::Int32(typmod), Value::Boolean(!f.nullable),
               Value::Boolean(false)});
      }
    }
    return b.Finish();
  }
  return std::shared_ptr<TableSource>();
}

Result<std::shared_ptr<TableSource>> InformationSchemaTable(const Catalog& catalog, const std::string& name) {
  const std::vector<std::string> names = catalog.TableNames();
  if (name == "tables") {
    TableBuilder b("tables", {field("table_catalog", utf8()), field("table_schema", utf8()),
                              field("table_name", utf8()), field("table_type", utf8())});
    for (const auto& n : names) {
      auto e = catalog.Lookup(n);
      if (e == nullptr) continue;
      const char* type = e->view ? "VIEW" : IsForeign(*e->table) ? "FOREIGN" : "BASE TABLE";
      const auto [schema, relation] = SplitQualifiedName(n);
      b.Add({Text("quiver"), Text(schema), Text(relation), Text(type)});
    }
    return b.Finish();
  }
  if (name == "schemata") {
    TableBuilder b("schemata", {field("catalog_name", utf8()), field("schema_name", utf8()),
                                field("schema_owner", utf8())});
    std::vector<std::string> schemas = {"information_schema", "pg_catalog", "public"};
    for (const auto& s : catalog.SchemaNames()) schemas.push_back(s);
    std::sort(schemas.begin(), schemas.end());
    for (const auto& s : schemas) b.Add({Text("quiver"), Text(s), Text("quiver")});
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
        const auto [schema, relation] = SplitQualifiedName(n);
        b.Add({Text("quiver"), Text(schema), Text(relation), Text(f.name), Value::Int32(i + 1),
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
        b.Add({Text("quiver"), Text(SplitQualifiedName(n).first), Text(SplitQualifiedName(n).second),
               Text("quiver"), Text("arrow_fdw")});
        continue;
      }
      for (const auto& [k, v] : ft->definition().options) {
        b.Add({Text("quiver"), Text(SplitQualifiedName(n).first), Text(SplitQualifiedName(n).second),
               Text(k), Text(v)});
      }
    }
    return b.Finish();
  }
  return std::shared_ptr<TableSource>();
}

}  // namespace quiver
