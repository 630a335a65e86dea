// How query results become the strings a sqllogictest script compares, as
// the reference runner (sqllogictest.c with its SQLite and ODBC drivers)
// makes them. Every value is rendered by the column's type character, not by
// its SQL type:
//
//   NULL                  "NULL" in every column
//   I  (integer)          printf("%d"). Non-integers are converted as the
//                         reference's drivers do (sqlite3_column_int, ODBC
//                         SQL_C_SLONG = atoi of the text): truncated toward
//                         zero, so numeric 2.5 and -2.5 print 2 and -2; text
//                         takes its leading number ('12abc' -> 12, 'x' -> 0)
//   R  (real)             printf("%.3f") of the value as a double; -0.000 is
//                         printed as 0.000, as SQLite's printf does
//   T  (text) and others  PostgreSQL's text output (Value::ToString); the
//                         empty string is "(empty)" and every byte outside
//                         ' '..'~' becomes '@' (so a UTF-8 letter is "@@")
//
// Booleans are 1/0 in every column: SQLite has no booleans (a comparison is
// an integer 1 or 0) and PostgreSQL's ODBC driver hands bool out as 1/0.
#pragma once

#include <string>
#include <vector>

#include "engine/database.h"
#include "tools/slt/parser.h"
#include "vector/value.h"

namespace quiver::slt {

std::string RenderValue(const Value& value, char type);

// The values of `result`, row by row, rendered by `types` (one char per
// column; REQUIRES: types.size() == the result's column count).
std::vector<std::string> RenderResult(const QueryResult& result, const std::string& types);

// Sorts `values` (rows of `columns` values) as the reference does: rowsort
// orders rows by strcmp of their values in column order, valuesort orders
// the values one by one.
void SortValues(std::vector<std::string>* values, size_t columns, SortMode mode);

// MD5 (lowercase hex) of every value followed by "\n": the reference's hash.
std::string HashValues(const std::vector<std::string>& values);

}  // namespace quiver::slt
