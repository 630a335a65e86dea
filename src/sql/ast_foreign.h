// Statements of foreign tables over files, in PG-Strom arrow_fdw's syntax:
//
//   CREATE FOREIGN TABLE f (id int, ym bigint OPTIONS (virtual 'ym'))
//     SERVER arrow_fdw OPTIONS (dir '/data', pattern 'f_@{ym}.arrow');
//   IMPORT FOREIGN SCHEMA f FROM SERVER arrow_fdw INTO public OPTIONS (file '/data/x.arrow');
//   ALTER FOREIGN TABLE f OPTIONS (SET dir '/other');
//   CREATE EXTENSION / SERVER / FOREIGN DATA WRAPPER / USER MAPPING: no-ops
//
// Options stay text as written: the catalog (catalog/foreign_table.h)
// checks them, so that one place knows which it supports.
#pragma once

#include <string>
#include <vector>

#include "sql/ast.h"

namespace quiver::sql {

struct ForeignOption {
  enum Action : int8_t { kPlain, kSet, kAdd, kDrop } action = kPlain;  // ALTER ... OPTIONS (SET x 'y')
  std::string name;  // lower case
  std::string value;
  int location = -1;
};

struct ForeignColumn {
  std::string name;
  TypeName type;
  bool not_null = false;
  std::vector<ForeignOption> options;  // field, virtual, virtual_metadata, ...
  int location = -1;
};

struct CreateForeignTableStatement : Statement {
  CreateForeignTableStatement() : Statement(StatementKind::kCreateForeignTable) {}
  std::string name;
  int name_location = -1;
  bool if_not_exists = false;
  std::string server;
  std::vector<ForeignColumn> columns;
  std::vector<ForeignOption> options;
};

struct ImportForeignSchemaStatement : Statement {
  ImportForeignSchemaStatement() : Statement(StatementKind::kImportForeignSchema) {}
  std::string remote_schema;  // arrow_fdw: the name of the table to create
  std::string local_schema;
  std::string server;
  bool has_table_list = false;  // LIMIT TO / EXCEPT: refused
  std::vector<ForeignOption> options;
};

struct AlterForeignTableStatement : Statement {
  AlterForeignTableStatement() : Statement(StatementKind::kAlterForeignTable) {}
  std::string name;
  int name_location = -1;
  bool if_exists = false;
  std::vector<ForeignOption> options;  // table options to SET / ADD / DROP
};

// Statements PostgreSQL scripts carry around foreign tables that have
// nothing to do here (there is one built-in server, arrow_fdw).
struct NoOpStatement : Statement {
  NoOpStatement() : Statement(StatementKind::kNoOp) {}
  std::string tag;  // the command tag: "CREATE EXTENSION", "CREATE SERVER"...
  std::string object;   // the extension, server or wrapper created
  std::string wrapper;  // CREATE SERVER ... FOREIGN DATA WRAPPER <wrapper>
  bool if_not_exists = false;
};

}  // namespace quiver::sql
