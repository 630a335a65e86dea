// Statements other than SELECT: INSERT, CREATE TABLE [AS], CREATE VIEW,
// DROP, EXPLAIN, COPY, SET, transactions, UPDATE, DELETE.
#include <algorithm>

#include "sql/ast_foreign.h"
#include "sql/transform_internal.h"

namespace quiver::sql::internal {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}


// The text of a DefElem's argument (COPY/EXPLAIN options).
std::string DefElemText(const pg_query::Node& arg) {
  if (arg.has_string()) return arg.string().sval();
  if (arg.has_integer()) return std::to_string(arg.integer().ival());
  if (arg.has_float_()) return arg.float_().fval();
  if (arg.has_boolean()) return arg.boolean().boolval() ? "true" : "false";
  if (arg.has_a_const()) {
    const auto& c = arg.a_const();
    if (c.has_sval()) return c.sval().sval();
    if (c.has_ival()) return std::to_string(c.ival().ival());
    if (c.has_fval()) return c.fval().fval();
    if (c.has_boolval()) return c.boolval().boolval() ? "true" : "false";
  }
  if (arg.has_type_name() && arg.type_name().names_size() > 0) {
    return StringOf(arg.type_name().names(arg.type_name().names_size() - 1));
  }
  return {};
}

}  // namespace

Status CheckQualifiers(const std::vector<std::string>& parts, int location, bool rows) {
  if (parts.size() > 2) {
    std::string all;
    for (const auto& p : parts) all += (all.empty() ? "" : ".") + p;
    return UnsupportedAt(location, "cross-database references (" + all + ")");
  }
  // Other schemas are the catalog's: whether one exists is known when the
  // statement runs (engine/database.cc CheckSchemas).
  if (parts.size() == 2 && (parts[0] == "pg_catalog" || parts[0] == "information_schema")) {
    if (rows) {
      return Status::KeyError("relation \"{}.{}\" does not exist", parts[0], parts[1])
          .WithSqlState(sqlstate::kUndefinedTable)
          .WithPosition(location);
    }
    return UnsupportedAt(location, "changing the system schema " + parts[0]);
  }
  return Status::OK();
}

static std::string JoinQualified(const std::vector<std::string>& parts) {
  if (parts.size() == 2 && parts[0] != "public") return parts[0] + "." + parts[1];
  return parts.back();
}

Result<std::string> TableName(const pg_query::RangeVar& r, bool rows) {
  std::vector<std::string> parts;
  if (!r.catalogname().empty()) parts.push_back(r.catalogname());
  if (!r.schemaname().empty()) parts.push_back(r.schemaname());
  parts.push_back(r.relname());
  QUIVER_RETURN_NOT_OK(CheckQualifiers(parts, r.location(), rows));
  return JoinQualified(parts);
}

Status Transformer::TransformReturning(
    const google::protobuf::RepeatedPtrField<pg_query::Node>& list, ReturningList* out) {
  for (const auto& t : list) {
    const auto& r = t.res_target();
    if (r.indirection_size() > 0) return UnsupportedAt(r.location(), "target indirection");
    QUIVER_ASSIGN_OR_RAISE(auto e, TransformExpr(r.val()));
    out->targets.push_back(std::move(e));
    out->aliases.push_back(r.name());
  }
  return Status::OK();
}

Result<std::unique_ptr<Statement>> Transformer::TransformStatement(const pg_query::Node& node,
                                                                   int location, int length) {
  std::unique_ptr<Statement> out;
  switch (node.node_case()) {
    case pg_query::Node::kSelectStmt: {
      auto s = std::make_unique<SelectStatement>();
      QUIVER_ASSIGN_OR_RAISE(s->select, TransformSelect(node.select_stmt()));
      out = std::move(s);
      break;
    }
    case pg_query::Node::kInsertStmt: {
      QUIVER_ASSIGN_OR_RAISE(out, TransformInsert(node.insert_stmt()));
      break;
    }
    case pg_query::Node::kCreateStmt: {
      QUIVER_ASSIGN_OR_RAISE(out, TransformCreate(node.create_stmt()));
      break;
    }
    case pg_query::Node::kCreateTableAsStmt: {
      QUIVER_ASSIGN_OR_RAISE(out, TransformCreateAs(node.create_table_as_stmt()));
      break;
    }
    case pg_query::Node::kViewStmt: {
      QUIVER_ASSIGN_OR_RAISE(out, TransformView(node.view_stmt(), location, length));
      break;
    }
    case pg_query::Node::kDropStmt: {
      QUIVER_ASSIGN_OR_RAISE(out, TransformDrop(node.drop_stmt()));
      break;
    }
    case pg_query::Node::kExplainStmt: {
      QUIVER_ASSIGN_OR_RAISE(out, TransformExplain(node.explain_stmt(), location, length));
      break;
    }
    case pg_query::Node::kCopyStmt: {
      QUIVER_ASSIGN_OR_RAISE(out, TransformCopy(node.copy_stmt()));
      break;
    }
    case pg_query::Node::kUpdateStmt: {
      QUIVER_ASSIGN_OR_RAISE(out, TransformUpdate(node.update_stmt()));
      break;
    }
    case pg_query::Node::kDeleteStmt: {
      QUIVER_ASSIGN_OR_RAISE(out, TransformDelete(node.delete_stmt()));
      break;
    }
    case pg_query::Node::kVariableSetStmt: {
      auto s = std::make_unique<SetStatement>();
      s->name = Lower(node.variable_set_stmt().name());
      for (const auto& a : node.variable_set_stmt().args()) {
        if (!s->value.empty()) s->value += ", ";
        s->value += DefElemText(a);
      }
      out = std::move(s);
      break;
    }
    case pg_query::Node::kTransactionStmt: {
      auto s = std::make_unique<TransactionStatement>();
      switch (node.transaction_stmt().kind()) {
        case pg_query::TRANS_STMT_BEGIN:
        case pg_query::TRANS_STMT_START:
          s->what = "begin";
          break;
        case pg_query::TRANS_STMT_COMMIT:
          s->what = "commit";
          break;
        case pg_query::TRANS_STMT_ROLLBACK:
          s->what = "rollback";
          break;
        case pg_query::TRANS_STMT_SAVEPOINT:
          s->what = "savepoint";
          break;
        case pg_query::TRANS_STMT_RELEASE:
          s->what = "release";
          break;
        case pg_query::TRANS_STMT_ROLLBACK_TO:
          s->what = "rollback_to";
          break;
        default:
          return UnsupportedAt(location, "two-phase commit");
      }
      if (node.transaction_stmt().chain()) return UnsupportedAt(location, "AND CHAIN");
      s->savepoint = node.transaction_stmt().savepoint_name();
      out = std::move(s);
      break;
    }
    case pg_query::Node::kIndexStmt: {
      const auto& i = node.index_stmt();
      auto s = std::make_unique<CreateIndexStatement>();
      s->name = i.idxname();
      QUIVER_ASSIGN_OR_RAISE(s->table, TableName(i.relation()));
      s->table_location = i.relation().location();
      s->if_not_exists = i.if_not_exists();
      out = std::move(s);
      break;
    }
    case pg_query::Node::kTruncateStmt: {
      auto s = std::make_unique<TruncateStatement>();
      for (const auto& r : node.truncate_stmt().relations()) {
        QUIVER_ASSIGN_OR_RAISE(std::string name, TableName(r.range_var()));
        s->tables.push_back(std::move(name));
        s->locations.push_back(r.range_var().location());
      }
      if (node.truncate_stmt().behavior() == pg_query::DROP_CASCADE)
        return UnsupportedAt(location, "TRUNCATE ... CASCADE");
      out = std::move(s);
      break;
    }
    case pg_query::Node::kRenameStmt: {
      QUIVER_ASSIGN_OR_RAISE(out, TransformRename(node.rename_stmt(), location));
      break;
    }
    case pg_query::Node::kVacuumStmt: {
      const auto& v = node.vacuum_stmt();
      if (!v.is_vacuumcmd()) return UnsupportedAt(location, "ANALYZE");
      if (v.options_size() > 0) {
        return UnsupportedAt(location, "VACUUM options (FULL, ANALYZE, VERBOSE, ...)");
      }
      auto s = std::make_unique<VacuumStatement>();
      for (const auto& r : v.rels()) {
        const auto& rel = r.vacuum_relation();
        if (rel.va_cols_size() > 0) return UnsupportedAt(location, "VACUUM of columns");
        QUIVER_ASSIGN_OR_RAISE(std::string name, TableName(rel.relation()));
        s->tables.push_back(std::move(name));
        s->locations.push_back(rel.relation().location());
      }
      out = std::move(s);
      break;
    }
    case pg_query::Node::kCallStmt: {
      const auto& c = node.call_stmt();
      if (!c.has_funccall()) return UnsupportedAt(location, "this CALL");
      auto s = std::make_unique<CallStatement>();
      pg_query::Node call;
      *call.mutable_func_call() = c.funccall();
      QUIVER_ASSIGN_OR_RAISE(s->call, TransformExpr(call));
      if (s->call->kind != ExprKind::kFunction) return UnsupportedAt(location, "this CALL");
      s->name = s->call->name;
      out = std::move(s);
      break;
    }
    case pg_query::Node::kCreateTrigStmt:
      return UnsupportedAt(location, "triggers");
    case pg_query::Node::kCreateSchemaStmt: {
      // CREATE SCHEMA rides on NoOpStatement (a tag and a name), which the
      // engine runs (engine/database.cc ExecuteSchemaStatement), rather than
      // a statement of its own in ast.h.
      const auto& c = node.create_schema_stmt();
      if (c.schema_elts_size() > 0) return UnsupportedAt(location, "CREATE SCHEMA with schema elements");
      if (c.has_authrole()) return UnsupportedAt(location, "CREATE SCHEMA ... AUTHORIZATION");
      auto s = std::make_unique<NoOpStatement>();
      s->tag = "CREATE SCHEMA";
      s->object = c.schemaname();
      s->if_not_exists = c.if_not_exists();
      out = std::move(s);
      break;
    }
    case pg_query::Node::kCreateForeignTableStmt:
    case pg_query::Node::kImportForeignSchemaStmt:
    case pg_query::Node::kAlterTableStmt:
    case pg_query::Node::kCreateExtensionStmt:
    case pg_query::Node::kCreateForeignServerStmt:
    case pg_query::Node::kCreateFdwStmt:
    case pg_query::Node::kCreateUserMappingStmt: {
      QUIVER_ASSIGN_OR_RAISE(out, TransformForeign(node, location));
      break;
    }
    default:
      return UnsupportedAt(location, "this kind of statement");
  }
  out->location = location;
  out->length = length;
  return std::unique_ptr<Statement>(std::move(out));
}

Result<std::unique_ptr<Statement>> Transformer::TransformInsert(const pg_query::InsertStmt& s) {
  auto out = std::make_unique<InsertStatement>();
  QUIVER_ASSIGN_OR_RAISE(out->table, TableName(s.relation(), /*rows=*/true));
  out->table_location = s.relation().location();
  if (s.relation().has_alias()) out->alias = s.relation().alias().aliasname();
  if (s.has_on_conflict_clause()) {
    const auto& oc = s.on_conflict_clause();
    auto c = std::make_shared<InsertStatement::OnConflict>();
    c->location = oc.location();
    c->update = oc.action() == pg_query::ONCONFLICT_UPDATE;
    if (oc.has_infer()) {
      const auto& infer = oc.infer();
      c->constraint = infer.conname();
      for (const auto& e : infer.index_elems()) {
        const auto& ie = e.index_elem();
        if (ie.name().empty() || ie.has_expr()) {
          return UnsupportedAt(oc.location(), "an expression as ON CONFLICT target");
        }
        if (ie.collation_size() > 0 || ie.opclass_size() > 0) {
          return UnsupportedAt(oc.location(), "COLLATE or an operator class in ON CONFLICT");
        }
        c->columns.push_back(ie.name());
      }
      if (infer.has_where_clause()) {
        return UnsupportedAt(oc.location(), "ON CONFLICT (...) WHERE (partial unique indexes)");
      }
    }
    for (const auto& t : oc.target_list()) {
      const auto& r = t.res_target();
      if (r.indirection_size() > 0) return UnsupportedAt(r.location(), "assignment to a subfield");
      if (r.val().has_multi_assign_ref()) {
        return UnsupportedAt(r.location(), "SET (a, b) = (...) in ON CONFLICT DO UPDATE");
      }
      QUIVER_ASSIGN_OR_RAISE(auto v, TransformExpr(r.val()));
      c->assignments.emplace_back(r.name(), std::move(v));
    }
    if (oc.has_where_clause()) {
      QUIVER_ASSIGN_OR_RAISE(c->where, TransformExpr(oc.where_clause()));
    }
    out->on_conflict = std::move(c);
  }
  QUIVER_RETURN_NOT_OK(TransformReturning(s.returning_list(), &out->returning));
  if (s.has_with_clause()) return UnsupportedAt(-1, "WITH before INSERT");
  for (const auto& c : s.cols()) out->columns.push_back(c.res_target().name());
  if (s.override() == pg_query::OVERRIDING_SYSTEM_VALUE) {
    out->overriding = InsertStatement::Overriding::kSystem;
  } else if (s.override() == pg_query::OVERRIDING_USER_VALUE) {
    out->overriding = InsertStatement::Overriding::kUser;
  }
  if (s.has_select_stmt()) {
    QUIVER_ASSIGN_OR_RAISE(out->source, TransformSelect(s.select_stmt().select_stmt()));
  }
  return std::unique_ptr<Statement>(std::move(out));
}

// Sorts a column or table constraint (`column`: the column of a column
// constraint, else null): NOT NULL and NULL are the column's nullability;
// PRIMARY KEY, UNIQUE and CHECK are recorded for the engine to enforce,
// DEFAULT on the column; FOREIGN KEY and EXCLUDE only reject rows, so they
// are recorded for the engine to refuse (or, where the caller declared them
// informational, to accept); GENERATED and IDENTITY would change the stored
// values, so they are refused here.
Status Transformer::AddConstraint(const pg_query::Constraint& con, ColumnDefinition* column,
                                  CreateTableStatement* out) {
  const int at = con.location();
  ConstraintDefinition def;
  def.name = con.conname();
  def.location = at;
  switch (con.contype()) {
    case pg_query::CONSTR_NULL:
    case pg_query::CONSTR_NOTNULL:
      return Status::OK();
    case pg_query::CONSTR_PRIMARY:
    case pg_query::CONSTR_UNIQUE:
      def.kind = con.contype() == pg_query::CONSTR_PRIMARY ? ConstraintDefinition::kPrimaryKey
                                                           : ConstraintDefinition::kUnique;
      if (con.nulls_not_distinct()) return UnsupportedAt(at, "UNIQUE NULLS NOT DISTINCT");
      if (con.including_size() > 0) return UnsupportedAt(at, "INCLUDE in a key constraint");
      if (column != nullptr) {
        def.columns.push_back(column->name);
      } else {
        for (const auto& k : con.keys()) def.columns.push_back(StringOf(k));
      }
      out->constraints.push_back(std::move(def));
      return Status::OK();
    case pg_query::CONSTR_CHECK: {
      if (con.is_no_inherit()) return UnsupportedAt(at, "NO INHERIT");
      QUIVER_ASSIGN_OR_RAISE(ExprPtr e, TransformExpr(con.raw_expr()));
      def.kind = ConstraintDefinition::kCheck;
      def.check = std::shared_ptr<const ParsedExpr>(std::move(e));
      // Only a --db table needs the text (it refuses a CHECK without it).
      if (auto text = DeparseExpression(con.raw_expr()); text.ok()) def.check_text = *text;
      out->constraints.push_back(std::move(def));
      return Status::OK();
    }
    case pg_query::CONSTR_FOREIGN:
      out->unenforced_constraints.push_back({"FOREIGN KEY", at});
      return Status::OK();
    case pg_query::CONSTR_EXCLUSION:
      out->unenforced_constraints.push_back({"EXCLUDE", at});
      return Status::OK();
    case pg_query::CONSTR_ATTR_DEFERRABLE:
      return UnsupportedAt(at, "DEFERRABLE constraints");
    case pg_query::CONSTR_ATTR_NOT_DEFERRABLE:
    case pg_query::CONSTR_ATTR_DEFERRED:
    case pg_query::CONSTR_ATTR_IMMEDIATE:
      return Status::OK();  // modifies the constraint before it
    case pg_query::CONSTR_DEFAULT: {
      if (column == nullptr) return UnsupportedAt(at, "this constraint");
      QUIVER_ASSIGN_OR_RAISE(ExprPtr e, TransformExpr(con.raw_expr()));
      column->default_value = std::shared_ptr<const ParsedExpr>(std::move(e));
      if (auto text = DeparseExpression(con.raw_expr()); text.ok()) column->default_text = *text;
      return Status::OK();
    }
    case pg_query::CONSTR_IDENTITY: {
      if (column == nullptr) return UnsupportedAt(at, "this constraint");
      if (column->identity != ColumnDefinition::Identity::kNone) {
        return Status::Invalid("multiple identity specifications for column \"{}\"", column->name)
            .WithSqlState(sqlstate::kSyntaxError)
            .WithPosition(at);
      }
      column->identity = con.generated_when() == "a" ? ColumnDefinition::Identity::kAlways
                                                     : ColumnDefinition::Identity::kByDefault;
      column->identity_location = at;
      for (const auto& o : con.options()) {
        const auto& d = o.def_elem();
        const std::string& opt = d.defname();
        if (opt == "cache") continue;  // how many values a session preallocates: no effect on values
        int64_t v = 0;
        if (d.arg().has_integer()) {
          v = d.arg().integer().ival();
        } else if (d.arg().has_float_()) {
          v = std::strtoll(d.arg().float_().fval().c_str(), nullptr, 10);
        } else if (opt == "start" || opt == "increment") {
          return UnsupportedAt(at, "this identity option value");
        }
        if (opt == "start") {
          column->identity_start = v;
        } else if (opt == "increment") {
          if (v == 0) {
            return Status::Invalid("INCREMENT must not be zero")
                .WithSqlState(sqlstate::kInvalidParameterValue)
                .WithPosition(at);
          }
          column->identity_increment = v;
        } else {
          return UnsupportedAt(at, "identity option " + opt + " (START WITH and INCREMENT BY are supported)");
        }
      }
      if (column->identity_increment < 0 && column->identity_start == 1) {
        // A descending sequence starts at its maximum, -1 by default.
        column->identity_start = -1;
      }
      return Status::OK();
    }
    case pg_query::CONSTR_GENERATED:
      return UnsupportedAt(at, "generated columns");
    default:
      return UnsupportedAt(at, "this constraint");
  }
}

Result<std::unique_ptr<Statement>> Transformer::TransformCreate(const pg_query::CreateStmt& s) {
  std::unique_ptr<CreateTableStatement> out;
  if (s.has_partspec()) {
    auto partitioned = std::make_unique<PartitionedCreateTableStatement>();
    QUIVER_RETURN_NOT_OK(TransformPartitionBy(s.partspec(), partitioned.get()));
    out = std::move(partitioned);
  } else {
    out = std::make_unique<CreateTableStatement>();
  }
  QUIVER_ASSIGN_OR_RAISE(out->name, TableName(s.relation()));
  out->name_location = s.relation().location();
  out->if_not_exists = s.if_not_exists();
  out->temporary = s.relation().relpersistence() == "t";
  if (s.has_partbound()) {
    // A partitioned table here takes rows itself: its partitions are the
    // distinct values of its partition keys, made as rows arrive.
    return Status::Unsupported(
               "CREATE TABLE ... PARTITION OF (a partitioned table takes its rows directly; "
               "insert them into the partitioned table)")
        .WithPosition(out->name_location);
  }
  if (s.inh_relations_size() > 0) return UnsupportedAt(out->name_location, "INHERITS");
  for (const auto& e : s.table_elts()) {
    if (e.has_column_def()) {
      const auto& c = e.column_def();
      ColumnDefinition col;
      col.name = c.colname();
      col.location = c.location();
      QUIVER_ASSIGN_OR_RAISE(col.type, TransformTypeName(c.type_name()));
      col.not_null = c.is_not_null();
      for (const char* serial : {"serial", "serial4", "bigserial", "serial8", "smallserial", "serial2"}) {
        if (col.type.name != serial || col.type.is_array) continue;
        // PostgreSQL: an integer column, NOT NULL, defaulting to nextval of
        // a sequence the column owns.
        col.type.name = col.type.name.find("big") == 0 || col.type.name == "serial8" ? "int8"
                        : col.type.name.find("small") == 0 || col.type.name == "serial2" ? "int2"
                                                                                           : "int4";
        col.identity = ColumnDefinition::Identity::kByDefault;
        col.identity_location = col.location;
        col.not_null = true;
      }
      for (const auto& k : c.constraints()) {
        const auto& con = k.constraint();
        if (con.contype() == pg_query::CONSTR_NOTNULL || con.contype() == pg_query::CONSTR_PRIMARY ||
            con.contype() == pg_query::CONSTR_IDENTITY)
          col.not_null = true;
        if (con.contype() == pg_query::CONSTR_IDENTITY && col.identity != ColumnDefinition::Identity::kNone &&
            col.identity_location == col.location) {
          return Status::Invalid("multiple default values specified for column \"{}\" of table \"{}\"",
                                 col.name, out->name)
              .WithSqlState(sqlstate::kSyntaxError)
              .WithPosition(con.location());
        }
        QUIVER_RETURN_NOT_OK(AddConstraint(con, &col, out.get()));
      }
      if (col.identity != ColumnDefinition::Identity::kNone && col.default_value != nullptr) {
        return Status::Invalid("{} specified for column \"{}\" of table \"{}\"",
                               col.identity_location == col.location ? "multiple default values"
                                                                     : "both default and identity",
                               col.name, out->name)
            .WithSqlState(sqlstate::kSyntaxError)
            .WithPosition(col.location);
      }
      out->columns.push_back(std::move(col));
    } else if (e.has_constraint()) {
      const auto& con = e.constraint();
      // PRIMARY KEY (a, b) makes its columns NOT NULL, which is enforced.
      if (con.contype() == pg_query::CONSTR_PRIMARY) {
        for (const auto& k : con.keys()) {
          const std::string key = StringOf(k);
          for (auto& col : out->columns) {
            if (col.name == key) col.not_null = true;
          }
        }
      }
      QUIVER_RETURN_NOT_OK(AddConstraint(con, nullptr, out.get()));
    } else {
      return UnsupportedAt(out->name_location, "this table element");
    }
  }
  return std::unique_ptr<Statement>(std::move(out));
}

Result<std::unique_ptr<Statement>> Transformer::TransformAlterTable(
    const pg_query::AlterTableStmt& s, int location) {
  auto out = std::make_unique<AlterTableStatement>();
  QUIVER_ASSIGN_OR_RAISE(out->table, TableName(s.relation()));
  out->table_location = s.relation().location();
  out->if_exists = s.missing_ok();
  if (s.cmds_size() != 1) return UnsupportedAt(location, "several actions in one ALTER TABLE");
  const auto& cmd = s.cmds(0).alter_table_cmd();
  switch (cmd.subtype()) {
    case pg_query::AT_AddColumn: {
      const auto& c = cmd.def().column_def();
      out->action = AlterTableStatement::kAddColumn;
      out->column_if_exists = cmd.missing_ok();
      out->column.name = c.colname();
      out->column.location = c.location();
      QUIVER_ASSIGN_OR_RAISE(out->column.type, TransformTypeName(c.type_name()));
      out->column.not_null = c.is_not_null();
      for (const char* serial : {"serial", "serial4", "bigserial", "serial8", "smallserial", "serial2"}) {
        if (out->column.type.name == serial) {
          return UnsupportedAt(c.location(), "ADD COLUMN of a serial or identity column");
        }
      }
      CreateTableStatement scratch;
      for (const auto& k : c.constraints()) {
        const auto& con = k.constraint();
        if (con.contype() == pg_query::CONSTR_NOTNULL) out->column.not_null = true;
        QUIVER_RETURN_NOT_OK(AddConstraint(con, &out->column, &scratch));
      }
      if (!scratch.constraints.empty() || !scratch.unenforced_constraints.empty()) {
        return UnsupportedAt(location, "a constraint other than NOT NULL and DEFAULT in ADD COLUMN");
      }
      break;
    }
    case pg_query::AT_DropColumn:
      out->action = AlterTableStatement::kDropColumn;
      out->name = cmd.name();
      out->column_if_exists = cmd.missing_ok();
      out->cascade = cmd.behavior() == pg_query::DROP_CASCADE;
      break;
    default:
      return UnsupportedAt(location,
                           "this ALTER TABLE action (ADD COLUMN, DROP COLUMN, RENAME COLUMN and "
                           "RENAME TO are done)");
  }
  return std::unique_ptr<Statement>(std::move(out));
}

Result<std::unique_ptr<Statement>> Transformer::TransformRename(const pg_query::RenameStmt& s,
                                                                int location) {
  auto out = std::make_unique<AlterTableStatement>();
  if (s.rename_type() == pg_query::OBJECT_TABLE) {
    out->action = AlterTableStatement::kRenameTable;
  } else if (s.rename_type() == pg_query::OBJECT_COLUMN &&
             s.relation_type() == pg_query::OBJECT_TABLE) {
    out->action = AlterTableStatement::kRenameColumn;
    out->name = s.subname();
  } else {
    return UnsupportedAt(location, "RENAME of this kind of object");
  }
  QUIVER_ASSIGN_OR_RAISE(out->table, TableName(s.relation()));
  out->table_location = s.relation().location();
  out->if_exists = s.missing_ok();
  out->new_name = s.newname();
  return std::unique_ptr<Statement>(std::move(out));
}

Result<std::unique_ptr<Statement>> Transformer::TransformCreateAs(
    const pg_query::CreateTableAsStmt& s) {
  if (s.objtype() != pg_query::OBJECT_TABLE) return UnsupportedAt(-1, "materialized views");
  auto out = std::make_unique<CreateTableStatement>();
  QUIVER_ASSIGN_OR_RAISE(out->name, TableName(s.into().rel()));
  out->name_location = s.into().rel().location();
  out->if_not_exists = s.if_not_exists();
  out->temporary = s.into().rel().relpersistence() == "t";
  for (const auto& c : s.into().col_names()) out->as_columns.push_back(StringOf(c));
  if (!s.query().has_select_stmt()) return UnsupportedAt(-1, "CREATE TABLE AS with this query");
  QUIVER_ASSIGN_OR_RAISE(out->as_select, TransformSelect(s.query().select_stmt()));
  return std::unique_ptr<Statement>(std::move(out));
}

Result<std::unique_ptr<Statement>> Transformer::TransformView(const pg_query::ViewStmt& s,
                                                              int location, int length) {
  auto out = std::make_unique<CreateViewStatement>();
  QUIVER_ASSIGN_OR_RAISE(out->name, TableName(s.view()));
  out->name_location = s.view().location();
  out->or_replace = s.replace();
  for (const auto& a : s.aliases()) out->columns.push_back(StringOf(a));
  if (!s.query().has_select_stmt()) return UnsupportedAt(location, "this view query");
  QUIVER_ASSIGN_OR_RAISE(out->query, TransformSelect(s.query().select_stmt()));
  out->text = text_.substr(static_cast<size_t>(location),
                           length > 0 ? static_cast<size_t>(length) : std::string::npos);
  return std::unique_ptr<Statement>(std::move(out));
}

Result<std::unique_ptr<Statement>> Transformer::TransformDrop(const pg_query::DropStmt& s) {
  if (s.remove_type() == pg_query::OBJECT_SCHEMA) {
    // DROP SCHEMA rides on NoOpStatement (see TransformCreateSchema).
    if (s.objects_size() != 1) return UnsupportedAt(-1, "DROP SCHEMA of several schemas");
    auto out = std::make_unique<NoOpStatement>();
    out->tag = "DROP SCHEMA";
    out->object = StringOf(s.objects(0));
    out->if_not_exists = s.missing_ok();  // IF EXISTS
    out->wrapper = s.behavior() == pg_query::DROP_CASCADE ? "CASCADE" : "RESTRICT";
    return std::unique_ptr<Statement>(std::move(out));
  }
  auto out = std::make_unique<DropStatement>();
  out->if_exists = s.missing_ok();
  switch (s.remove_type()) {
    case pg_query::OBJECT_TABLE:
      out->object = DropStatement::kTable;
      break;
    case pg_query::OBJECT_VIEW:
      out->object = DropStatement::kView;
      break;
    case pg_query::OBJECT_INDEX:
      out->object = DropStatement::kIndex;
      break;
    case pg_query::OBJECT_FOREIGN_TABLE:
      out->object = DropStatement::kForeignTable;
      break;
    default:
      out->object = DropStatement::kOther;
      break;
  }
  for (const auto& o : s.objects()) {
    // Each object is a List of name parts; the last one is the name.
    if (o.has_list() && o.list().items_size() > 0) {
      std::vector<std::string> parts;
      for (const auto& p : o.list().items()) parts.push_back(StringOf(p));
      QUIVER_RETURN_NOT_OK(CheckQualifiers(parts, -1));
      out->names.push_back(JoinQualified(parts));
    } else {
      out->names.push_back(StringOf(o));
    }
    out->locations.push_back(-1);
  }
  return std::unique_ptr<Statement>(std::move(out));
}

Result<std::unique_ptr<Statement>> Transformer::TransformExplain(const pg_query::ExplainStmt& s,
                                                                 int location, int length) {
  auto out = std::make_unique<ExplainStatement>();
  for (const auto& o : s.options()) {
    const auto& d = o.def_elem();
    const std::string name = Lower(d.defname());
    const std::string value = d.has_arg() ? Lower(DefElemText(d.arg())) : "true";
    const bool on = value != "false" && value != "off" && value != "0";
    if (name == "analyze") out->analyze = on;
    if (name == "verbose") out->verbose = on;
  }
  QUIVER_ASSIGN_OR_RAISE(out->statement, TransformStatement(s.query(), location, length));
  return std::unique_ptr<Statement>(std::move(out));
}

Result<std::unique_ptr<Statement>> Transformer::TransformCopy(const pg_query::CopyStmt& s) {
  auto out = std::make_unique<CopyStatement>();
  if (s.is_program()) return UnsupportedAt(-1, "COPY ... PROGRAM");
  out->is_from = s.is_from();
  out->file = s.filename();
  if (s.has_relation()) {
    QUIVER_ASSIGN_OR_RAISE(out->table, TableName(s.relation()));
  }
  for (const auto& a : s.attlist()) out->columns.push_back(StringOf(a));
  if (s.has_query()) {
    if (!s.query().has_select_stmt()) return UnsupportedAt(-1, "COPY with this query");
    QUIVER_ASSIGN_OR_RAISE(out->query, TransformSelect(s.query().select_stmt()));
  }
  for (const auto& o : s.options()) {
    const auto& d = o.def_elem();
    CopyOption opt;
    opt.name = Lower(d.defname());
    if (d.has_arg()) {
      if (d.arg().has_list()) {
        for (const auto& item : d.arg().list().items()) opt.list.push_back(DefElemText(item));
      } else {
        opt.value = DefElemText(d.arg());
      }
    }
    out->options.push_back(std::move(opt));
  }
  if (s.has_where_clause()) return UnsupportedAt(-1, "COPY ... WHERE");
  return std::unique_ptr<Statement>(std::move(out));
}

Result<std::unique_ptr<Statement>> Transformer::TransformUpdate(const pg_query::UpdateStmt& s) {
  auto out = std::make_unique<UpdateStatement>();
  QUIVER_ASSIGN_OR_RAISE(out->table, TableName(s.relation(), /*rows=*/true));
  out->table_location = s.relation().location();
  if (s.relation().has_alias()) out->alias.name = s.relation().alias().aliasname();
  if (s.has_with_clause()) return UnsupportedAt(-1, "WITH before UPDATE");
  for (const auto& f : s.from_clause()) {
    QUIVER_ASSIGN_OR_RAISE(auto ref, TransformTableRef(f));
    out->from.push_back(std::move(ref));
  }
  QUIVER_RETURN_NOT_OK(TransformReturning(s.returning_list(), &out->returning));
  for (const auto& t : s.target_list()) {
    const auto& r = t.res_target();
    if (r.indirection_size() > 0) return UnsupportedAt(r.location(), "assignment to a subfield");
    QUIVER_ASSIGN_OR_RAISE(auto v, TransformExpr(r.val()));
    out->assignments.emplace_back(r.name(), std::move(v));
  }
  if (s.has_where_clause()) {
    QUIVER_ASSIGN_OR_RAISE(out->where, TransformExpr(s.where_clause()));
  }
  return std::unique_ptr<Statement>(std::move(out));
}

Result<std::unique_ptr<Statement>> Transformer::TransformDelete(const pg_query::DeleteStmt& s) {
  auto out = std::make_unique<DeleteStatement>();
  QUIVER_ASSIGN_OR_RAISE(out->table, TableName(s.relation(), /*rows=*/true));
  out->table_location = s.relation().location();
  if (s.relation().has_alias()) out->alias.name = s.relation().alias().aliasname();
  if (s.has_with_clause()) return UnsupportedAt(-1, "WITH before DELETE");
  for (const auto& f : s.using_clause()) {
    QUIVER_ASSIGN_OR_RAISE(auto ref, TransformTableRef(f));
    out->using_.push_back(std::move(ref));
  }
  QUIVER_RETURN_NOT_OK(TransformReturning(s.returning_list(), &out->returning));
  if (s.has_where_clause()) {
    QUIVER_ASSIGN_OR_RAISE(out->where, TransformExpr(s.where_clause()));
  }
  return std::unique_ptr<Statement>(std::move(out));
}

}  // namespace quiver::sql::internal
