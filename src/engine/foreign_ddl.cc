#include "engine/foreign_ddl.h"

#include "catalog/foreign_table.h"
#include "vector/sql_type.h"

namespace quiver {
namespace {

// There is one foreign server, built in: arrow_fdw.
constexpr const char* kServer = "arrow_fdw";

Status CheckServer(const std::string& server) {
  if (server == kServer) return Status::OK();
  return Status::KeyError("server \"{}\" does not exist", server)
      .WithSqlState(sqlstate::kUndefinedObject)
      .WithHint("Quiver's one foreign server is arrow_fdw (tables over Arrow, Parquet and CSV files)");
}

std::string TypeText(const sql::TypeName& t) {
  std::string s = t.name;
  if (!t.modifiers.empty()) {
    s += "(";
    for (size_t i = 0; i < t.modifiers.size(); ++i) s += (i ? "," : "") + std::to_string(t.modifiers[i]);
    s += ")";
  }
  return s;
}

Status CheckFiles(const std::vector<std::pair<std::string, std::string>>& options, const FileCheck& check) {
  if (!check) return Status::OK();
  for (const auto& [k, v] : options) {
    if (k == "dir") QUIVER_RETURN_NOT_OK(check(v));
  }
  QUIVER_ASSIGN_OR_RAISE(auto files, ForeignTableFiles(options));
  for (const auto& f : files) QUIVER_RETURN_NOT_OK(check(f));
  return Status::OK();
}

Status RegisterTable(ForeignTableDef def, bool if_not_exists, Catalog* catalog, const FileCheck& check,
                     bool replace, int location) {
  if (!replace && catalog->Lookup(def.name) != nullptr && if_not_exists) return Status::OK();
  QUIVER_RETURN_NOT_OK(CheckFiles(def.options, check));
  QUIVER_ASSIGN_OR_RAISE(auto table, ForeignTable::Open(std::move(def)));
  const std::string name = table->name();
  return catalog->CreateTable(name, std::move(table), replace).WithPosition(location);
}

std::vector<std::pair<std::string, std::string>> PlainOptions(const std::vector<sql::ForeignOption>& opts) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& o : opts) out.emplace_back(o.name, o.value);
  return out;
}

}  // namespace

Result<std::string> ExecuteCreateForeignTable(const sql::CreateForeignTableStatement& s, Catalog* catalog,
                                              const FileCheck& check) {
  QUIVER_RETURN_NOT_OK(CheckServer(s.server));
  ForeignTableDef def;
  def.name = s.name;
  def.options = PlainOptions(s.options);
  for (const auto& c : s.columns) {
    ForeignColumnDef col;
    col.name = c.name;
    col.type_sql = TypeText(c.type);
    if (c.type.is_array) return Status::Unsupported("array columns in foreign tables").WithPosition(c.location);
    QUIVER_ASSIGN_OR_RAISE(col.type, TypeFromSqlName(c.type.name, c.type.modifiers));
    col.not_null = c.not_null;
    for (const auto& o : c.options) {
      if (o.name == "field") {
        col.field = o.value;
      } else if (o.name == "virtual") {
        col.virtual_key = o.value;
      } else if (o.name == "virtual_metadata" || o.name == "virtual_metadata_split") {
        if (o.value.empty())
          return Status::Invalid("column option {} needs a metadata key", o.name)
              .WithSqlState("HV00D")
              .WithPosition(o.location);
        col.metadata_key = o.value;
        col.metadata_split = o.name == "virtual_metadata_split";
      } else {
        return Status::Invalid("invalid option \"{}\"", o.name)
            .WithSqlState("HV00D")
            .WithHint("Valid column options are: field, virtual, virtual_metadata, virtual_metadata_split")
            .WithPosition(o.location);
      }
    }
    if ((!col.field.empty()) + (!col.virtual_key.empty()) + (!col.metadata_key.empty()) > 1)
      return Status::Invalid(
                 "column \"{}\": the options field, virtual and virtual_metadata[_split] exclude each other",
                 c.name)
          .WithSqlState("HV00D")
          .WithPosition(c.location);
    def.columns.push_back(std::move(col));
  }
  QUIVER_RETURN_NOT_OK(ValidateForeignTableDef(def));
  QUIVER_RETURN_NOT_OK(RegisterTable(std::move(def), s.if_not_exists, catalog, check, false, s.name_location));
  return std::string("CREATE FOREIGN TABLE");
}

Result<std::string> ExecuteImportForeignSchema(const sql::ImportForeignSchemaStatement& s, Catalog* catalog,
                                               const FileCheck& check) {
  QUIVER_RETURN_NOT_OK(CheckServer(s.server));
  if (s.has_table_list) return Status::Unsupported("IMPORT FOREIGN SCHEMA with LIMIT TO or EXCEPT");
  if (s.local_schema != "public")
    return Status::Invalid("schema \"{}\" does not exist", s.local_schema)
        .WithSqlState(sqlstate::kInvalidSchemaName)
        .WithHint("Quiver has one schema, public");
  const auto options = PlainOptions(s.options);
  QUIVER_RETURN_NOT_OK(CheckFiles(options, check));
  QUIVER_ASSIGN_OR_RAISE(ForeignTableDef def, ImportForeignTableDef(s.remote_schema, options));
  QUIVER_RETURN_NOT_OK(RegisterTable(std::move(def), false, catalog, check, false, -1));
  return std::string("IMPORT FOREIGN SCHEMA");
}

Result<std::string> ExecuteAlterForeignTable(const sql::AlterForeignTableStatement& s, Catalog* catalog,
                                             const FileCheck& check) {
  auto entry = catalog->Lookup(s.name);
  const auto* table = entry ? dynamic_cast<const ForeignTable*>(entry->table.get()) : nullptr;
  if (table == nullptr) {
    if (entry == nullptr && s.if_exists) return std::string("ALTER FOREIGN TABLE");
    if (entry == nullptr)
      return Status::KeyError("relation \"{}\" does not exist", s.name)
          .WithSqlState(sqlstate::kUndefinedTable)
          .WithPosition(s.name_location);
    return Status::TypeError("\"{}\" is not a foreign table", s.name).WithSqlState(sqlstate::kWrongObjectType);
  }
  ForeignTableDef def = table->definition();
  for (const auto& o : s.options) {
    auto it = std::find_if(def.options.begin(), def.options.end(), [&](const auto& kv) { return kv.first == o.name; });
    switch (o.action) {
      case sql::ForeignOption::kSet:
        if (it == def.options.end())
          return Status::Invalid("option \"{}\" not found", o.name).WithSqlState(sqlstate::kUndefinedObject);
        it->second = o.value;
        break;
      case sql::ForeignOption::kDrop:
        if (it == def.options.end())
          return Status::Invalid("option \"{}\" not found", o.name).WithSqlState(sqlstate::kUndefinedObject);
        def.options.erase(it);
        break;
      default:  // ADD, or no action (ADD)
        if (it != def.options.end())
          return Status::Invalid("option \"{}\" provided more than once", o.name)
              .WithSqlState(sqlstate::kDuplicateObject);
        def.options.emplace_back(o.name, o.value);
        break;
    }
  }
  // Bare numeric columns are typed again from the (new) files.
  for (auto& c : def.columns) {
    if (c.type_sql == "numeric" || c.type_sql == "decimal") {
      QUIVER_ASSIGN_OR_RAISE(c.type, TypeFromSqlName(c.type_sql, {}));
    }
  }
  QUIVER_RETURN_NOT_OK(RegisterTable(std::move(def), false, catalog, check, true, s.name_location));
  return std::string("ALTER FOREIGN TABLE");
}

Result<std::string> ExecuteForeignNoOp(const sql::NoOpStatement& s) {
  if (s.tag == "CREATE EXTENSION") {
    if (s.object != "arrow_fdw" && s.object != "pg_strom")
      return Status::Unsupported("extension \"{}\" (Quiver has arrow_fdw built in)", s.object);
  } else if (s.tag == "CREATE SERVER") {
    if (s.wrapper != "arrow_fdw")
      return Status::Unsupported("foreign data wrapper \"{}\" (Quiver has arrow_fdw built in)", s.wrapper);
    if (s.object != kServer)
      return Status::Unsupported("a server named \"{}\": Quiver's arrow_fdw server is named arrow_fdw", s.object);
  } else if (s.tag == "CREATE FOREIGN DATA WRAPPER") {
    if (s.object != "arrow_fdw")
      return Status::Unsupported("foreign data wrapper \"{}\" (Quiver has arrow_fdw built in)", s.object);
  } else if (s.tag == "CREATE USER MAPPING") {
    QUIVER_RETURN_NOT_OK(CheckServer(s.object));
  }
  return s.tag;
}

Status DropForeignTable(const std::string& name, bool if_exists, Catalog* catalog) {
  auto entry = catalog->Lookup(name);
  if (entry != nullptr && dynamic_cast<const ForeignTable*>(entry->table.get()) == nullptr)
    return Status::TypeError("\"{}\" is not a foreign table", name)
        .WithSqlState(sqlstate::kWrongObjectType)
        .WithHint(entry->view ? "Use DROP VIEW to remove a view." : "Use DROP TABLE to remove a table.");
  if (entry == nullptr) {
    if (if_exists) return Status::OK();
    return Status::KeyError("foreign table \"{}\" does not exist", name).WithSqlState(sqlstate::kUndefinedTable);
  }
  return catalog->Drop(name, /*is_view=*/false, if_exists);
}

Status CheckNotForeign(const std::string& name, Catalog* catalog) {
  auto entry = catalog->Lookup(name);
  if (entry != nullptr && dynamic_cast<const ForeignTable*>(entry->table.get()) != nullptr)
    return Status::TypeError("\"{}\" is not a table", name)
        .WithSqlState(sqlstate::kWrongObjectType)
        .WithHint("Use DROP FOREIGN TABLE to remove a foreign table.");
  return Status::OK();
}

}  // namespace quiver
