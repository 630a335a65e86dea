// The binder's INSERT / UPDATE / DELETE / CREATE TABLE AS (planner/bind_dml.cc):
// the logical plans they bind to — a data modification operator over the
// query computing the rows to write — and the errors they report.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "planner/binder.h"
#include "sql/parser.h"

namespace quiver::plan {
namespace {

class PlannerBindDml : public ::testing::Test {
 protected:
  void SetUp() override {
    table_ = std::make_shared<MemoryTable>(
        "t", schema({field("a", int32(), false), field("b", utf8()), field("c", int64())}));
    ASSERT_TRUE(catalog_.CreateTable("t", table_).ok());
    auto u = std::make_shared<MemoryTable>("u", schema({field("k", int32())}));
    ASSERT_TRUE(catalog_.CreateTable("u", u).ok());
    state_.catalog = &catalog_;
  }

  // Binds the one statement of `sql` (INSERT, UPDATE, DELETE or CREATE TABLE AS).
  Result<BoundQuery> Bind(const std::string& sql) {
    QUIVER_ASSIGN_OR_RAISE(auto stmts, sql::Parse(sql));
    statements_.push_back(std::move(stmts[0]));
    const sql::Statement& s = *statements_.back();
    Binder binder(&state_);
    switch (s.kind) {
      case sql::StatementKind::kInsert:
        return binder.BindInsert(static_cast<const sql::InsertStatement&>(s));
      case sql::StatementKind::kUpdate:
        return binder.BindUpdate(static_cast<const sql::UpdateStatement&>(s));
      case sql::StatementKind::kDelete:
        return binder.BindDelete(static_cast<const sql::DeleteStatement&>(s));
      case sql::StatementKind::kCreateTable:
        return binder.BindCreateTableAs(static_cast<const sql::CreateTableStatement&>(s),
                                        &created_);
      default:
        return Status::Invalid("not a data modification");
    }
  }

  // The bound plan of `sql`, checked to be `type` writing `table` over a
  // projection of `width` columns; returns that projection.
  const LogicalOperator& ExpectModification(const BoundQuery& q, LogicalOpType type,
                                            const MemoryTable* table, size_t width) {
    EXPECT_EQ(q.plan->type, type) << q.plan->ToString();
    EXPECT_EQ(q.plan->As<plan::LogicalModifyTable>().target.get(), table);
    EXPECT_EQ(q.types.size(), 1u);
    EXPECT_EQ(q.types[0]->id, TypeId::kInt64);  // the count
    EXPECT_EQ(q.plan->GetColumnBindings().size(), 1u);
    const LogicalOperator& rows = *q.plan->children.at(0);
    EXPECT_EQ(rows.type, LogicalOpType::kProjection) << q.plan->ToString();
    EXPECT_EQ(rows.expressions.size(), width) << q.plan->ToString();
    return rows;
  }

  std::string ErrorOf(const std::string& sql) {
    auto r = Bind(sql);
    return r.ok() ? "OK" : r.status().message();
  }

  Catalog catalog_;
  BindState state_;
  std::shared_ptr<MemoryTable> table_;
  std::shared_ptr<MemoryTable> created_;
  std::vector<std::unique_ptr<sql::Statement>> statements_;
};

TEST_F(PlannerBindDml, InsertValuesTakeTheColumnsTypes) {
  auto q = Bind("INSERT INTO t VALUES (1, 'x', 2), (3, NULL, 4)");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  const auto& rows = ExpectModification(*q, LogicalOpType::kInsert, table_.get(), 3);
  // VALUES were bound to the table's types: no cast is left above them.
  EXPECT_EQ(rows.children[0]->type, LogicalOpType::kValues);
  for (size_t c = 0; c < 3; ++c) {
    EXPECT_EQ(rows.expressions[c]->type, ExprType::kColumnRef) << rows.expressions[c]->ToString();
    EXPECT_TRUE(rows.expressions[c]->return_type->Equals(
        *table_->schema()->field(static_cast<int>(c))->type));
  }
}

TEST_F(PlannerBindDml, InsertColumnsMapAndCast) {
  // c is bigint: the int source is cast; a is int: given; b is not named: NULL.
  auto q = Bind("INSERT INTO t (c, a) SELECT k, k FROM u");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  const auto& rows = ExpectModification(*q, LogicalOpType::kInsert, table_.get(), 3);
  EXPECT_EQ(rows.expressions[0]->type, ExprType::kColumnRef);
  EXPECT_EQ(rows.expressions[1]->type, ExprType::kConstant);
  EXPECT_TRUE(rows.expressions[1]->As<ConstantExpression>().value.is_null());
  EXPECT_EQ(rows.expressions[1]->return_type->id, TypeId::kString);
  EXPECT_EQ(rows.expressions[2]->type, ExprType::kCast);
  EXPECT_EQ(rows.expressions[2]->return_type->id, TypeId::kInt64);
  // Names are the table's.
  EXPECT_EQ(rows.expressions[2]->alias, "c");
}

TEST_F(PlannerBindDml, InsertErrors) {
  EXPECT_EQ(ErrorOf("INSERT INTO t (a, nope) VALUES (1, 2)"),
            "column \"nope\" of relation \"t\" does not exist");
  EXPECT_EQ(ErrorOf("INSERT INTO t (a, a) VALUES (1, 2)"), "column \"a\" specified more than once");
  EXPECT_EQ(ErrorOf("INSERT INTO missing VALUES (1)"), "relation \"missing\" does not exist");
  EXPECT_EQ(ErrorOf("INSERT INTO t VALUES (1, 'x', 2, 3)"),
            "INSERT has more expressions than target columns");
  EXPECT_EQ(ErrorOf("INSERT INTO t (a, b) VALUES (1)"),
            "INSERT has more target columns than expressions");
  // text -> int is no assignment cast (PostgreSQL's rule).
  EXPECT_EQ(ErrorOf("INSERT INTO u SELECT b FROM t"),
            "column \"k\" is of type integer but expression is of type text (you will need to "
            "rewrite or cast the expression)");
}

TEST_F(PlannerBindDml, UpdateIsACaseOverTheScan) {
  auto q = Bind("UPDATE t SET c = a WHERE b = 'x'");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  // The table's three columns, then the matched flag.
  const auto& rows = ExpectModification(*q, LogicalOpType::kUpdate, table_.get(), 4);
  EXPECT_EQ(rows.expressions[0]->type, ExprType::kColumnRef);  // a: unchanged
  EXPECT_EQ(rows.expressions[1]->type, ExprType::kColumnRef);  // b: unchanged
  // c: CASE WHEN matched THEN CAST(a AS bigint) ELSE c END, where matched is
  // computed once per row below: (b = 'x') IS TRUE.
  const Expression& c = *rows.expressions[2];
  ASSERT_EQ(c.type, ExprType::kCase) << c.ToString();
  EXPECT_EQ(c.return_type->id, TypeId::kInt64);
  ASSERT_EQ(c.children.size(), 3u);
  EXPECT_EQ(c.children[0]->type, ExprType::kColumnRef) << c.ToString();
  EXPECT_EQ(c.children[1]->type, ExprType::kCast) << c.ToString();
  EXPECT_EQ(c.children[2]->type, ExprType::kColumnRef) << c.ToString();
  const Expression& matched = *rows.expressions[3];
  EXPECT_EQ(matched.return_type->id, TypeId::kBool);
  EXPECT_TRUE(matched.Equals(*c.children[0]));
  const LogicalOperator& below = *rows.children[0];
  ASSERT_EQ(below.type, LogicalOpType::kProjection) << q->plan->ToString();
  const auto& ref = matched.As<ColumnRefExpression>().binding;
  EXPECT_EQ(ref.table, below.table_index);
  EXPECT_EQ(below.expressions.at(static_cast<size_t>(ref.column))->type, ExprType::kCoalesce)
      << q->plan->ToString();
  EXPECT_EQ(below.children[0]->type, LogicalOpType::kGet);
  EXPECT_EQ(below.children[0]->As<plan::LogicalGet>().column_ids.size(), 3u);
}

TEST_F(PlannerBindDml, UpdateWithoutWhereAssignsEveryRow) {
  auto q = Bind("UPDATE t SET b = 'y', a = a");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  const auto& rows = ExpectModification(*q, LogicalOpType::kUpdate, table_.get(), 4);
  // No CASE without WHERE; a column set to itself is just the column.
  EXPECT_EQ(rows.expressions[0]->type, ExprType::kColumnRef);
  EXPECT_EQ(rows.expressions[1]->type, ExprType::kConstant);
  EXPECT_TRUE(rows.expressions[3]->Equals(*MakeConstant(Value::Boolean(true))))
      << rows.expressions[3]->ToString();
}

TEST_F(PlannerBindDml, UpdateSubqueriesAreJoinsBelowTheProjection) {
  auto q = Bind("UPDATE t SET c = (SELECT max(k) FROM u) WHERE a IN (SELECT k FROM u)");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  const auto& rows = ExpectModification(*q, LogicalOpType::kUpdate, table_.get(), 4);
  const std::string plan = q->plan->ToString();
  // IN: a mark join over the scan; the scalar subquery: its one row beside it.
  EXPECT_NE(plan.find("MARK JOIN"), std::string::npos) << plan;
  EXPECT_NE(plan.find("__single_value"), std::string::npos) << plan;
  ASSERT_EQ(rows.children[0]->type, LogicalOpType::kProjection) << plan;
  EXPECT_EQ(rows.children[0]->children[0]->type, LogicalOpType::kCrossProduct) << plan;
  bool has_subquery = false;
  for (const auto& e : rows.expressions) has_subquery |= e->HasSubquery();
  EXPECT_FALSE(has_subquery) << plan;
}

TEST_F(PlannerBindDml, UpdateErrors) {
  EXPECT_EQ(ErrorOf("UPDATE t SET nope = 1"), "column \"nope\" of relation \"t\" does not exist");
  EXPECT_EQ(ErrorOf("UPDATE t SET a = 1 WHERE nope = 1"), "column \"nope\" does not exist");
  EXPECT_EQ(ErrorOf("UPDATE t SET a = 1 WHERE a"),
            "argument of WHERE must be type boolean, not type integer");
  EXPECT_EQ(ErrorOf("UPDATE t SET a = sum(a)"), "aggregate functions are not allowed in UPDATE");
  EXPECT_EQ(ErrorOf("UPDATE missing SET a = 1"), "relation \"missing\" does not exist");
}

TEST_F(PlannerBindDml, DeleteKeepsTheColumnsAndFlagsTheMatches) {
  auto q = Bind("DELETE FROM t WHERE a > 1");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  const auto& rows = ExpectModification(*q, LogicalOpType::kDelete, table_.get(), 4);
  for (size_t c = 0; c < 3; ++c) EXPECT_EQ(rows.expressions[c]->type, ExprType::kColumnRef);
  EXPECT_EQ(rows.expressions[3]->type, ExprType::kCoalesce);
  // Without WHERE every row matches.
  auto all = Bind("DELETE FROM t");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  const auto& all_rows = ExpectModification(*all, LogicalOpType::kDelete, table_.get(), 4);
  EXPECT_EQ(all_rows.expressions[3]->type, ExprType::kConstant);
}

TEST_F(PlannerBindDml, CreateTableAsInsertsIntoANewTable) {
  auto q = Bind("CREATE TABLE n (x, y) AS SELECT k, NULL FROM u");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  ASSERT_NE(created_, nullptr);
  ExpectModification(*q, LogicalOpType::kInsert, created_.get(), 2);
  EXPECT_EQ(created_->schema()->field(0)->name, "x");
  EXPECT_EQ(created_->schema()->field(1)->name, "y");
  EXPECT_EQ(created_->schema()->field(1)->type->id, TypeId::kString);  // NULL: text
  // Binding does not register the table: the caller does once it is filled.
  EXPECT_EQ(catalog_.Lookup("n"), nullptr);
  EXPECT_EQ(ErrorOf("CREATE TABLE m (x, y) AS SELECT k FROM u"),
            "too many column names were specified");
}

}  // namespace
}  // namespace quiver::plan
