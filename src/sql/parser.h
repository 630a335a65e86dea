// SQL text -> statements (ast.h), through libpg_query (PostgreSQL 15's
// grammar) and its protobuf parse tree.
//
// Syntax errors carry PostgreSQL's message and the byte offset of the error
// cursor (Status::position()), e.g.
//   syntax error at or near "FORM"   (position of FORM)
//
// Thin wall: only parser.cc and transform_*.cc see libpg_query or its
// generated protobuf classes.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sql/ast.h"

namespace quiver::sql {

// Parses one or more ';'-separated statements. Statement::location/length
// give each statement's span in `text`. A file named by a string in table
// position (FROM 'data.parquet', DuckDB's form) reads as the quoted name
// FROM "data.parquet".
Result<std::vector<std::unique_ptr<Statement>>> Parse(const std::string& text);

// One expression written as SQL text (what DeparseExpression made of a
// DEFAULT or CHECK expression that a --db table keeps): `now()`, `(k > 0)`.
// Anything but exactly one expression is an error.
Result<std::shared_ptr<const ParsedExpr>> ParseExpression(const std::string& text);

// Rewrites JDBC/ODBC-style `?` placeholders into PostgreSQL's `$1, $2, ...`,
// leaving `?` inside string literals ('...', E'...', $tag$...$tag$), quoted
// identifiers ("...") and comments (-- and nested /* */) alone. Returns the
// rewritten text and sets *count to the number of placeholders.
std::string RewritePlaceholders(std::string_view text, int* count);

// Renders an error for a human, PostgreSQL-style: the message, then the
// line of `text` holding the error position with a caret under it.
//   ERROR:  column "x" does not exist
//   LINE 1: select x from t
//                  ^
// followed by the DETAIL and HINT lines when the error has them, as psql
// prints them.
std::string FormatErrorWithCaret(const Status& status, std::string_view text);

// The error position as PostgreSQL reports it (ErrorResponse field P): a
// 1-based character index into `text`; 0 when the error has none.
int ErrorCursorPosition(const Status& status, std::string_view text);

}  // namespace quiver::sql
