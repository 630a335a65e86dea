// Foreign-table statements (ast_foreign.h): CREATE FOREIGN TABLE, IMPORT
// FOREIGN SCHEMA, ALTER FOREIGN TABLE ... OPTIONS, and the CREATE EXTENSION /
// SERVER / FOREIGN DATA WRAPPER / USER MAPPING statements accepted as no-ops.
#include <algorithm>

#include "sql/ast_foreign.h"
#include "sql/transform_internal.h"

namespace quiver::sql::internal {
namespace {

std::string LowerAscii(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

Result<std::vector<ForeignOption>> TransformOptions(
    const google::protobuf::RepeatedPtrField<pg_query::Node>& list) {
  std::vector<ForeignOption> out;
  for (const auto& n : list) {
    if (!n.has_def_elem()) return UnsupportedAt(-1, "this option form");
    const auto& d = n.def_elem();
    ForeignOption o;
    o.name = LowerAscii(d.defname());
    o.location = d.location();
    switch (d.defaction()) {
      case pg_query::DEFELEM_SET:
        o.action = ForeignOption::kSet;
        break;
      case pg_query::DEFELEM_ADD:
        o.action = ForeignOption::kAdd;
        break;
      case pg_query::DEFELEM_DROP:
        o.action = ForeignOption::kDrop;
        break;
      default:
        break;
    }
    if (d.has_arg()) {
      const auto& a = d.arg();
      if (a.has_string()) {
        o.value = a.string().sval();
      } else if (a.has_integer()) {
        o.value = std::to_string(a.integer().ival());
      } else if (a.has_float_()) {
        o.value = a.float_().fval();
      } else if (a.has_boolean()) {
        o.value = a.boolean().boolval() ? "true" : "false";
      } else {
        return UnsupportedAt(o.location, "this option value (write it as a string)");
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<Statement>> Transformer::TransformForeign(const pg_query::Node& node,
                                                                 int location) {
  switch (node.node_case()) {
    case pg_query::Node::kCreateForeignTableStmt: {
      const auto& s = node.create_foreign_table_stmt();
      const auto& base = s.base_stmt();
      auto out = std::make_unique<CreateForeignTableStatement>();
      QUIVER_ASSIGN_OR_RAISE(out->name, TableName(base.relation()));
      out->name_location = base.relation().location();
      out->if_not_exists = base.if_not_exists();
      out->server = s.servername();
      if (base.inh_relations_size() > 0) return UnsupportedAt(out->name_location, "INHERITS");
      if (base.has_partbound()) return UnsupportedAt(out->name_location, "PARTITION OF");
      for (const auto& e : base.table_elts()) {
        if (!e.has_column_def()) {
          return UnsupportedAt(out->name_location, "constraints on foreign tables");
        }
        const auto& c = e.column_def();
        ForeignColumn col;
        col.name = c.colname();
        col.location = c.location();
        QUIVER_ASSIGN_OR_RAISE(col.type, TransformTypeName(c.type_name()));
        col.not_null = c.is_not_null();
        for (const auto& k : c.constraints()) {
          const auto& con = k.constraint();
          if (con.contype() == pg_query::CONSTR_NOTNULL) {
            col.not_null = true;
          } else if (con.contype() != pg_query::CONSTR_NULL) {
            return UnsupportedAt(con.location(), "constraints on foreign tables");
          }
        }
        QUIVER_ASSIGN_OR_RAISE(col.options, TransformOptions(c.fdwoptions()));
        out->columns.push_back(std::move(col));
      }
      QUIVER_ASSIGN_OR_RAISE(out->options, TransformOptions(s.options()));
      return std::unique_ptr<Statement>(std::move(out));
    }
    case pg_query::Node::kImportForeignSchemaStmt: {
      const auto& s = node.import_foreign_schema_stmt();
      auto out = std::make_unique<ImportForeignSchemaStatement>();
      out->remote_schema = s.remote_schema();
      out->local_schema = s.local_schema();
      out->server = s.server_name();
      out->has_table_list = s.list_type() != pg_query::FDW_IMPORT_SCHEMA_ALL;
      QUIVER_ASSIGN_OR_RAISE(out->options, TransformOptions(s.options()));
      return std::unique_ptr<Statement>(std::move(out));
    }
    case pg_query::Node::kAlterTableStmt: {
      const auto& s = node.alter_table_stmt();
      if (s.objtype() == pg_query::OBJECT_TABLE) return TransformAlterTable(s, location);
      if (s.objtype() != pg_query::OBJECT_FOREIGN_TABLE) {
        return UnsupportedAt(location, "ALTER of this kind of object");
      }
      auto out = std::make_unique<AlterForeignTableStatement>();
      QUIVER_ASSIGN_OR_RAISE(out->name, TableName(s.relation()));
      out->name_location = s.relation().location();
      out->if_exists = s.missing_ok();
      for (const auto& c : s.cmds()) {
        const auto& cmd = c.alter_table_cmd();
        if (cmd.subtype() != pg_query::AT_GenericOptions || !cmd.def().has_list()) {
          return UnsupportedAt(location, "ALTER FOREIGN TABLE other than OPTIONS (...)");
        }
        QUIVER_ASSIGN_OR_RAISE(auto opts, TransformOptions(cmd.def().list().items()));
        for (auto& o : opts) out->options.push_back(std::move(o));
      }
      return std::unique_ptr<Statement>(std::move(out));
    }
    case pg_query::Node::kCreateExtensionStmt: {
      auto out = std::make_unique<NoOpStatement>();
      out->tag = "CREATE EXTENSION";
      out->object = node.create_extension_stmt().extname();
      out->if_not_exists = node.create_extension_stmt().if_not_exists();
      return std::unique_ptr<Statement>(std::move(out));
    }
    case pg_query::Node::kCreateForeignServerStmt: {
      auto out = std::make_unique<NoOpStatement>();
      out->tag = "CREATE SERVER";
      out->object = node.create_foreign_server_stmt().servername();
      out->wrapper = node.create_foreign_server_stmt().fdwname();
      out->if_not_exists = node.create_foreign_server_stmt().if_not_exists();
      return std::unique_ptr<Statement>(std::move(out));
    }
    case pg_query::Node::kCreateFdwStmt: {
      auto out = std::make_unique<NoOpStatement>();
      out->tag = "CREATE FOREIGN DATA WRAPPER";
      out->object = node.create_fdw_stmt().fdwname();
      out->wrapper = out->object;
      return std::unique_ptr<Statement>(std::move(out));
    }
    case pg_query::Node::kCreateUserMappingStmt: {
      auto out = std::make_unique<NoOpStatement>();
      out->tag = "CREATE USER MAPPING";
      out->object = node.create_user_mapping_stmt().servername();
      return std::unique_ptr<Statement>(std::move(out));
    }
    default:
      return UnsupportedAt(location, "this kind of statement");
  }
}

}  // namespace quiver::sql::internal
