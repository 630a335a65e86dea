// Quiver's own syntax tree: what the parser (parser.h) makes of
// PostgreSQL's parse tree. No libpg_query type crosses this wall; the binder
// (src/planner) works on these nodes only.
//
// Every node carries `location`: the byte offset of its first token in the
// statement text (-1 when unknown), for error positions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace quiver::sql {

struct SelectNode;
struct ParsedExpr;
using ExprPtr = std::unique_ptr<ParsedExpr>;
struct WindowSpec;

// A type as written: `numeric(15,2)`, `varchar(10)`, `interval day`.
struct TypeName {
  std::string name;            // last name component, lower case ("int4", "numeric")
  std::vector<int> modifiers;  // typmods
  bool is_array = false;
  int location = -1;
};

enum class ExprKind : int8_t {
  kColumnRef,      // names = [table.]column
  kStar,           // names = [table] (qualifier, may be empty)
  kConstant,       // literal
  kParameter,      // $n (param_index)
  kOperator,       // name = "+", "=", ...; 1 or 2 children
  kFunction,       // name, children = args; distinct/star/filter
  kCast,           // children[0] :: type_name
  kCase,           // case_arg?; children = when, then, when, then...; case_else?
  kAnd,            // children
  kOr,             // children
  kNot,            // children[0]
  kIsNull,         // children[0] IS [NOT] NULL (negated)
  kBoolTest,       // children[0] IS [NOT] TRUE/FALSE/UNKNOWN: name = "true"/"false"/"unknown"
  kIn,             // children[0] [NOT] IN (children[1..])
  kBetween,        // children[0] [NOT] BETWEEN [SYMMETRIC] children[1] AND children[2]
  kLike,           // children[0] [NOT] LIKE/ILIKE children[1] [ESCAPE children[2]]; name = "like"/"ilike"
  kIsDistinct,     // children[0] IS [NOT] DISTINCT FROM children[1] (negated = NOT DISTINCT)
  kNullIf,         // NULLIF(children[0], children[1])
  kCoalesce,       // COALESCE(children...)
  kGreatest,       // GREATEST(children...) / LEAST (name = "least")
  kSubquery,       // subquery_kind; children[0] = tested expression for ANY/ALL/IN
  kValueFunction,  // CURRENT_DATE, CURRENT_TIMESTAMP, ... (name)
  kRow,            // ROW(a, b) / (a, b)
  kArray,          // ARRAY[children...]
  kSubscript,      // children[0][children[1]] (name "index"), or a slice: name "slice"
                   // ([lo:hi]), "slice_from" ([lo:]), "slice_to" ([:hi]), "slice_all" ([:])
};

enum class LiteralKind : int8_t { kNull, kInteger, kNumeric, kString, kBool };

enum class SubqueryKind : int8_t {
  kScalar,  // (SELECT ...)
  kExists,  // EXISTS (SELECT ...)
  kAny,     // x op ANY (SELECT ...); x IN (SELECT ...) is ANY with "="
  kAll,     // x op ALL (SELECT ...); x NOT IN (SELECT ...) is NOT (x = ANY ...)
};

struct ParsedExpr {
  ExprKind kind;
  int location = -1;

  std::vector<std::string> names;  // column ref / star qualifier
  std::string name;                // operator or function name (lower case), bool test
  std::vector<ExprPtr> children;
  std::vector<std::string> arg_names;  // named function arguments (name => value); "" = positional

  // Constants.
  LiteralKind literal = LiteralKind::kNull;
  std::string text;  // numeric/string literal text
  int64_t ival = 0;
  bool bval = false;

  int param_index = 0;  // $n

  TypeName type_name;  // casts

  bool negated = false;     // NOT IN, NOT LIKE, NOT BETWEEN, IS NOT NULL, IS NOT DISTINCT
  bool distinct = false;    // aggregate DISTINCT
  bool star = false;        // count(*)
  bool symmetric = false;   // BETWEEN SYMMETRIC
  ExprPtr filter;           // aggregate FILTER (WHERE ...)
  // ORDER BY inside an aggregate call: string_agg(v, ',' ORDER BY k DESC).
  struct AggregateOrder {
    ExprPtr expr;
    bool descending = false;
    bool nulls_first = false;  // PostgreSQL's default: NULLS FIRST for DESC only
  };
  std::vector<AggregateOrder> agg_order;
  bool has_window = false;  // OVER (...) present: a window function call
  bool within_group = false;  // WITHIN GROUP (ORDER BY ...): agg_order holds its keys
  std::shared_ptr<WindowSpec> window;  // its OVER clause (set when has_window)

  ExprPtr case_arg;   // CASE x WHEN ...
  ExprPtr case_else;

  SubqueryKind subquery_kind = SubqueryKind::kScalar;
  std::shared_ptr<SelectNode> subquery;

  explicit ParsedExpr(ExprKind k, int loc = -1) : kind(k), location(loc) {}
  // The text PostgreSQL would show for this expression in a column header.
  std::string ToString() const;
};

struct Alias {
  std::string name;
  std::vector<std::string> columns;
  bool empty() const { return name.empty(); }
};

enum class JoinKind : int8_t { kInner, kLeft, kRight, kFull, kCross };

struct TableRef {
  enum Kind : int8_t { kTable, kFunction, kSubquery, kJoin } kind = kTable;
  int location = -1;
  Alias alias;

  // kTable
  std::string schema;
  std::string name;

  // kFunction: read_arrow('x'), read_csv('x', header => true), generate_series(1, 3)
  ExprPtr function;
  bool ordinality = false;  // WITH ORDINALITY
  // Further set-returning calls run in lock-step with `function`, the
  // shorter ones padded with NULLs: ROWS FROM (f(...), g(...)), and the
  // select list's calls of one level (see RewriteSelectListFunctions).
  std::vector<ExprPtr> rows_from;
  // Set-returning functions of the select list moved here (their columns
  // are left out of an unqualified `*`; see RewriteSelectListFunctions).
  bool from_select_list = false;

  // kSubquery
  std::shared_ptr<SelectNode> subquery;
  bool lateral = false;

  // kJoin
  JoinKind join_kind = JoinKind::kInner;
  std::unique_ptr<TableRef> left;
  std::unique_ptr<TableRef> right;
  ExprPtr condition;
  std::vector<std::string> using_columns;
  bool natural = false;
};

enum class NullsOrder : int8_t { kDefault, kFirst, kLast };

struct OrderItem {
  ExprPtr expr;
  bool descending = false;
  NullsOrder nulls = NullsOrder::kDefault;
};

// PostgreSQL's frame option bits (parsenodes.h FRAMEOPTION_*), as
// WindowSpec::frame_options carries them.
enum FrameOption : int32_t {
  kFrameNonDefault = 0x00001,
  kFrameRange = 0x00002,
  kFrameRows = 0x00004,
  kFrameGroups = 0x00008,
  kFrameBetween = 0x00010,
  kFrameStartUnboundedPreceding = 0x00020,
  kFrameEndUnboundedPreceding = 0x00040,
  kFrameStartUnboundedFollowing = 0x00080,
  kFrameEndUnboundedFollowing = 0x00100,
  kFrameStartCurrentRow = 0x00200,
  kFrameEndCurrentRow = 0x00400,
  kFrameStartOffsetPreceding = 0x00800,
  kFrameEndOffsetPreceding = 0x01000,
  kFrameStartOffsetFollowing = 0x02000,
  kFrameEndOffsetFollowing = 0x04000,
  kFrameExcludeCurrentRow = 0x08000,
  kFrameExcludeGroup = 0x10000,
  kFrameExcludeTies = 0x20000,
  // RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
  kFrameDefaults = kFrameRange | kFrameStartUnboundedPreceding | kFrameEndCurrentRow,
};

// An OVER clause or a WINDOW clause entry: `name` for `WINDOW name AS (...)`,
// `refname` for `OVER name` / `OVER (name ORDER BY ...)` (a named window
// this one copies and extends).
struct WindowSpec {
  std::string name;
  std::string refname;
  std::vector<ExprPtr> partition_by;
  std::vector<OrderItem> order_by;
  int32_t frame_options = kFrameDefaults;
  ExprPtr start_offset;  // n PRECEDING / FOLLOWING of the frame start
  ExprPtr end_offset;
  int location = -1;
};

struct CommonTableExpr {
  std::string name;
  std::vector<std::string> columns;
  std::shared_ptr<SelectNode> query;
  int location = -1;
};

enum class SetOpKind : int8_t { kNone, kUnion, kIntersect, kExcept };

// A SELECT, a VALUES list or a set operation of two of them.
struct SelectNode {
  SetOpKind set_op = SetOpKind::kNone;
  bool set_all = false;
  std::shared_ptr<SelectNode> left;
  std::shared_ptr<SelectNode> right;

  std::vector<CommonTableExpr> ctes;
  bool recursive_with = false;

  bool distinct = false;
  std::vector<ExprPtr> distinct_on;
  std::vector<ExprPtr> targets;
  std::vector<std::string> target_aliases;  // parallel to targets; "" = none
  std::vector<std::unique_ptr<TableRef>> from;
  ExprPtr where;
  std::vector<ExprPtr> group_by;
  // GROUPING SETS / ROLLUP / CUBE, expanded: each set lists indices into
  // group_by (which then holds every key expression once). Empty when the
  // GROUP BY is a plain list.
  bool has_grouping_sets = false;
  bool group_distinct = false;  // GROUP BY DISTINCT: repeated sets once
  std::vector<std::vector<size_t>> grouping_sets;
  ExprPtr having;
  std::vector<std::vector<ExprPtr>> values;  // VALUES (...), (...)
  std::vector<std::shared_ptr<WindowSpec>> windows;  // WINDOW w AS (...), ...

  std::vector<OrderItem> order_by;
  ExprPtr limit;
  ExprPtr offset;
  bool limit_with_ties = false;  // FETCH FIRST n ROWS WITH TIES
  int location = -1;
  // A query with set-returning functions in its select list that the
  // parser cannot tell to aggregate (that takes the function registry):
  // this same query with the functions applied after aggregation, over a
  // subquery of the rest (RewriteSelectListFunctions). The binder binds it
  // instead when the select list or ORDER BY calls an aggregate.
  std::shared_ptr<SelectNode> aggregated_form;
};

enum class StatementKind : int8_t {
  kSelect,
  kInsert,
  kCreateTable,
  kCreateView,
  kDrop,
  kExplain,
  kCopy,
  kSet,          // SET x = y: accepted and ignored where harmless
  kTransaction,  // BEGIN / COMMIT / ROLLBACK / SAVEPOINT / RELEASE / ROLLBACK TO
  kTruncate,     // TRUNCATE t, ...
  kUpdate,
  kDelete,
  kCreateIndex,  // accepted and recorded; Quiver scans columns and keeps no indexes
  // Foreign tables over files with PG-Strom arrow_fdw's syntax (ast_foreign.h).
  kCreateForeignTable,
  kImportForeignSchema,
  kAlterForeignTable,
  kNoOp,  // CREATE EXTENSION / SERVER / FOREIGN DATA WRAPPER / USER MAPPING (ast_foreign.h)
  kAlterTable,  // ALTER TABLE t ADD / DROP / RENAME COLUMN, RENAME TO
  kVacuum,  // VACUUM [t, ...]: a --db table's small files compacted, unreferenced files removed
  kCall,    // CALL procedure(args): expire_snapshots
};

struct Statement {
  StatementKind kind;
  int location = 0;  // of the statement within the text given to Parse
  int length = 0;    // 0 = to the end
  explicit Statement(StatementKind k) : kind(k) {}
  virtual ~Statement() = default;
};

struct SelectStatement : Statement {
  SelectStatement() : Statement(StatementKind::kSelect) {}
  std::shared_ptr<SelectNode> select;
};

// RETURNING's list: expressions (`*` as ExprKind::kStar) and their AS names
// ("" = the name PostgreSQL derives), as a select list has them.
struct ReturningList {
  std::vector<ExprPtr> targets;
  std::vector<std::string> aliases;
  bool empty() const { return targets.empty(); }
};

struct InsertStatement : Statement {
  InsertStatement() : Statement(StatementKind::kInsert) {}
  std::string table;
  int table_location = -1;
  std::string alias;  // INSERT INTO t AS a
  std::vector<std::string> columns;
  std::shared_ptr<SelectNode> source;  // VALUES or SELECT; null = DEFAULT VALUES
  ReturningList returning;
  // ON CONFLICT: null when absent.
  struct OnConflict {
    bool update = false;               // DO UPDATE (else DO NOTHING)
    std::vector<std::string> columns;  // (cols): the conflict target; empty: none
    std::string constraint;            // ON CONSTRAINT name
    int location = -1;
    std::vector<std::pair<std::string, ExprPtr>> assignments;  // DO UPDATE SET
    ExprPtr where;                                             // DO UPDATE ... WHERE
  };
  std::shared_ptr<OnConflict> on_conflict;
  // OVERRIDING SYSTEM VALUE (values may be given for a GENERATED ALWAYS
  // identity column) / OVERRIDING USER VALUE (given identity values are
  // replaced by the sequence's).
  enum class Overriding : int8_t { kNone, kSystem, kUser } overriding = Overriding::kNone;
};

// A constraint Quiver parses but does not enforce (FOREIGN KEY, EXCLUDE).
// The engine refuses a table that declares one unless told that constraints
// are informational (DatabaseOptions): accepting one and letting violating
// rows in would be silently wrong.
struct UnenforcedConstraint {
  std::string kind;  // "FOREIGN KEY", "EXCLUDE"
  int location = -1;
};

// PRIMARY KEY, UNIQUE and CHECK, enforced (catalog/table_constraints.h). A
// column constraint is recorded as a table constraint over its column.
struct ConstraintDefinition {
  enum Kind : int8_t { kPrimaryKey, kUnique, kCheck } kind = kCheck;
  std::string name;                  // CONSTRAINT name; "" = PostgreSQL's default name
  std::vector<std::string> columns;  // PRIMARY KEY / UNIQUE key columns
  std::shared_ptr<const ParsedExpr> check;
  std::string check_text;            // the CHECK expression (PostgreSQL's deparser)
  int location = -1;
};

struct ColumnDefinition {
  std::string name;
  TypeName type;
  bool not_null = false;  // NOT NULL or PRIMARY KEY: enforced
  std::shared_ptr<const ParsedExpr> default_value;  // DEFAULT expr; null: none
  std::string default_text;  // default_value as PostgreSQL's deparser writes it
  // serial / bigserial / smallserial (kByDefault, as PostgreSQL's
  // nextval default) and GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY: the
  // column takes the next values of a sequence of its own.
  enum class Identity : int8_t { kNone, kByDefault, kAlways } identity = Identity::kNone;
  int64_t identity_start = 1;
  int64_t identity_increment = 1;
  int identity_location = -1;
  int location = -1;
};

struct CreateTableStatement : Statement {
  CreateTableStatement() : Statement(StatementKind::kCreateTable) {}
  std::string name;
  int name_location = -1;
  std::vector<ColumnDefinition> columns;
  // Column and table constraints, in the order written.
  std::vector<ConstraintDefinition> constraints;
  std::vector<UnenforcedConstraint> unenforced_constraints;
  bool if_not_exists = false;
  bool or_replace = false;
  bool temporary = false;  // CREATE TEMP[ORARY] TABLE
  std::shared_ptr<SelectNode> as_select;  // CREATE TABLE ... AS SELECT
  std::vector<std::string> as_columns;    // CREATE TABLE t (a, b) AS ...
};

// ALTER TABLE t ADD COLUMN c type [DEFAULT x] [NOT NULL] | DROP COLUMN c |
// RENAME COLUMN a TO b | RENAME TO u: one action per statement.
struct AlterTableStatement : Statement {
  AlterTableStatement() : Statement(StatementKind::kAlterTable) {}
  enum Action : int8_t { kAddColumn, kDropColumn, kRenameColumn, kRenameTable };
  Action action = kAddColumn;
  std::string table;
  int table_location = -1;
  bool if_exists = false;         // ALTER TABLE IF EXISTS
  bool column_if_exists = false;  // ADD COLUMN IF NOT EXISTS / DROP COLUMN IF EXISTS
  ColumnDefinition column;        // ADD COLUMN
  std::string name;               // DROP / RENAME COLUMN: the column
  std::string new_name;           // RENAME: the new column or table name
  bool cascade = false;           // DROP COLUMN ... CASCADE
};

struct CreateViewStatement : Statement {
  CreateViewStatement() : Statement(StatementKind::kCreateView) {}
  std::string name;
  int name_location = -1;
  std::vector<std::string> columns;
  std::shared_ptr<SelectNode> query;
  bool or_replace = false;
  std::string text;  // the view's query text
};

struct DropStatement : Statement {
  DropStatement() : Statement(StatementKind::kDrop) {}
  enum Object : int8_t { kTable, kView, kIndex, kForeignTable, kOther } object = kTable;
  std::vector<std::string> names;
  std::vector<int> locations;
  bool if_exists = false;
};

struct ExplainStatement : Statement {
  ExplainStatement() : Statement(StatementKind::kExplain) {}
  bool analyze = false;
  bool verbose = false;
  std::unique_ptr<Statement> statement;
};

struct CopyOption {
  std::string name;
  std::string value;  // text of the value; "" for bare flags
  std::vector<std::string> list;
};

struct CopyStatement : Statement {
  CopyStatement() : Statement(StatementKind::kCopy) {}
  std::string table;                  // COPY table ...
  std::vector<std::string> columns;   // COPY table (a, b) ...
  std::shared_ptr<SelectNode> query;  // COPY (query) TO ...
  bool is_from = false;
  std::string file;
  std::vector<CopyOption> options;
};

struct SetStatement : Statement {
  SetStatement() : Statement(StatementKind::kSet) {}
  std::string name;
  std::string value;
};

struct TransactionStatement : Statement {
  TransactionStatement() : Statement(StatementKind::kTransaction) {}
  // "begin", "commit", "rollback", "savepoint", "release", "rollback_to"
  std::string what;
  std::string savepoint;  // SAVEPOINT / RELEASE / ROLLBACK TO: the name
};

struct TruncateStatement : Statement {
  TruncateStatement() : Statement(StatementKind::kTruncate) {}
  std::vector<std::string> tables;
  std::vector<int> locations;
};

// VACUUM [t, ...] (no table: every table).
struct VacuumStatement : Statement {
  VacuumStatement() : Statement(StatementKind::kVacuum) {}
  std::vector<std::string> tables;
  std::vector<int> locations;
};

// CALL name(args): the procedure's name (lower case) and its call
// (a kFunction expression: children are the arguments, arg_names the
// names of named ones).
struct CallStatement : Statement {
  CallStatement() : Statement(StatementKind::kCall) {}
  std::string name;
  ExprPtr call;
};

struct UpdateStatement : Statement {
  UpdateStatement() : Statement(StatementKind::kUpdate) {}
  std::string table;
  int table_location = -1;
  Alias alias;  // UPDATE t AS a
  std::vector<std::pair<std::string, ExprPtr>> assignments;
  std::vector<std::unique_ptr<TableRef>> from;  // UPDATE ... FROM
  ExprPtr where;
  ReturningList returning;
};

struct CreateIndexStatement : Statement {
  CreateIndexStatement() : Statement(StatementKind::kCreateIndex) {}
  std::string name;
  std::string table;
  int table_location = -1;
  bool if_not_exists = false;
};

struct DeleteStatement : Statement {
  DeleteStatement() : Statement(StatementKind::kDelete) {}
  std::string table;
  int table_location = -1;
  Alias alias;  // DELETE FROM t AS a
  std::vector<std::unique_ptr<TableRef>> using_;  // DELETE ... USING
  ExprPtr where;
  ReturningList returning;
};

// Whether the statement returns rows rather than only a command tag:
// queries, EXPLAIN, and INSERT / UPDATE / DELETE with RETURNING.
inline bool ReturnsRows(const Statement& s) {
  switch (s.kind) {
    case StatementKind::kSelect:
    case StatementKind::kExplain:
      return true;
    case StatementKind::kInsert:
      return !static_cast<const InsertStatement&>(s).returning.empty();
    case StatementKind::kUpdate:
      return !static_cast<const UpdateStatement&>(s).returning.empty();
    case StatementKind::kDelete:
      return !static_cast<const DeleteStatement&>(s).returning.empty();
    default:
      return false;
  }
}

}  // namespace quiver::sql
