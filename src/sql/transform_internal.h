// PRIVATE to src/sql: turns libpg_query's protobuf parse tree into ast.h
// nodes. One Transformer per Parse() call.
#pragma once

#include <memory>
#include <string>

#include "common/status.h"
#include "pg_query.pb.h"
#include "sql/ast.h"
#include "sql/ast_partition.h"

namespace quiver::sql::internal {

class Transformer {
 public:
  explicit Transformer(const std::string& text) : text_(text) {}

  Result<std::unique_ptr<Statement>> TransformStatement(const pg_query::Node& node, int location,
                                                        int length);

  // Expressions (transform_expr.cc).
  Result<ExprPtr> TransformExpr(const pg_query::Node& node);
  Result<ExprPtr> TransformConstant(const pg_query::A_Const& c);
  Result<TypeName> TransformTypeName(const pg_query::TypeName& t);

  // SELECT and FROM (transform_select.cc).
  Result<std::shared_ptr<SelectNode>> TransformSelect(const pg_query::SelectStmt& s);
  Status TransformGroupingSets(const pg_query::SelectStmt& s, SelectNode* node);
  Result<std::unique_ptr<TableRef>> TransformTableRef(const pg_query::Node& node);
  // ORDER BY items (of a query or a window).
  Result<OrderItem> TransformSortBy(const pg_query::SortBy& sb);
  // An OVER clause or WINDOW clause entry.
  Result<std::shared_ptr<WindowSpec>> TransformWindowDef(const pg_query::WindowDef& w);

  const std::string& text() const { return text_; }

 private:
  Result<ExprPtr> TransformAExpr(const pg_query::A_Expr& e);
  Result<ExprPtr> TransformFuncCall(const pg_query::FuncCall& f);
  Result<ExprPtr> TransformSubLink(const pg_query::SubLink& s);
  Result<ExprPtr> TransformTypeCast(const pg_query::TypeCast& c);

  Result<std::unique_ptr<Statement>> TransformInsert(const pg_query::InsertStmt& s);
  // ALTER TABLE ... ADD / DROP COLUMN and RENAME (COLUMN | TO).
  Result<std::unique_ptr<Statement>> TransformAlterTable(const pg_query::AlterTableStmt& s,
                                                         int location);
  Result<std::unique_ptr<Statement>> TransformRename(const pg_query::RenameStmt& s, int location);
  Result<std::unique_ptr<Statement>> TransformCreate(const pg_query::CreateStmt& s);
  Status AddConstraint(const pg_query::Constraint& con, ColumnDefinition* column,
                       CreateTableStatement* out);
  Result<std::unique_ptr<Statement>> TransformCreateAs(const pg_query::CreateTableAsStmt& s);
  Result<std::unique_ptr<Statement>> TransformView(const pg_query::ViewStmt& s, int location,
                                                   int length);
  Result<std::unique_ptr<Statement>> TransformDrop(const pg_query::DropStmt& s);
  Result<std::unique_ptr<Statement>> TransformExplain(const pg_query::ExplainStmt& s, int location,
                                                      int length);
  Result<std::unique_ptr<Statement>> TransformCopy(const pg_query::CopyStmt& s);
  Result<std::unique_ptr<Statement>> TransformUpdate(const pg_query::UpdateStmt& s);
  Result<std::unique_ptr<Statement>> TransformDelete(const pg_query::DeleteStmt& s);
  // INSERT / UPDATE / DELETE ... RETURNING's list.
  Status TransformReturning(const google::protobuf::RepeatedPtrField<pg_query::Node>& list,
                            ReturningList* out);
  // transform_foreign.cc: foreign tables and the no-op statements around them.
  Result<std::unique_ptr<Statement>> TransformForeign(const pg_query::Node& node, int location);

  const std::string& text_;
};

// A deep copy of a parsed expression (transform_expr.cc); subqueries and
// window clauses are shared.
ExprPtr CloneExpr(const ParsedExpr& e);

// "unsupported: <what>" at `location`.
Status UnsupportedAt(int location, const std::string& what);

// PARTITION BY of a CREATE TABLE (transform_partition.cc).
Status TransformPartitionBy(const pg_query::PartitionSpec& spec,
                            PartitionedCreateTableStatement* out);

// An expression as PostgreSQL's deparser writes it (`(k > 0)`, `now()`,
// `'x'::text`): the text a --db table keeps of a DEFAULT or CHECK, which
// ParseExpression (parser.h) reads back.
Result<std::string> DeparseExpression(const pg_query::Node& node);

// The string of a String node (names, column lists).
std::string StringOf(const pg_query::Node& node);
// The catalog name of the table a DDL / DML statement names: `t` for `t`
// and `public.t`, `s.t` for `s.t` (catalog/catalog.h SplitQualifiedName);
// whether schema s exists is checked when the statement runs. A name in
// pg_catalog or information_schema is 42P01 where the statement writes rows
// (`rows`: INSERT, UPDATE, DELETE), else 0A000; a database name is 0A000.
Result<std::string> TableName(const pg_query::RangeVar& r, bool rows = false);
// The same check of a name's parts (database, schema, name).
Status CheckQualifiers(const std::vector<std::string>& parts, int location, bool rows = false);

}  // namespace quiver::sql::internal
