// Set-returning functions in FROM (generate_series; unnest and friends plug
// in the same way): the rows of one call are produced a batch at a time by
// a cursor, so `generate_series(1, 1e9)` streams instead of materializing.
//
// A call is resolved like a scalar function call (overloads, implicit casts,
// untyped literals, PostgreSQL's "function ... does not exist"), then the
// FROM item's operator (execution/operators/physical_table_function.h)
// starts one cursor per input row: once for constant arguments, once per
// row of the items to its left when the arguments read them (LATERAL).
//
// To add a function: a TableFunction with its signature, `bind` (column
// types from the argument types) and `start` (a cursor over one call's
// argument values), registered in TableFunctionRegistry::Get().
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "functions/function.h"

namespace quiver {

// The rows of one call.
class TableFunctionCursor {
 public:
  virtual ~TableFunctionCursor() = default;
  // Up to `max_rows` further rows, one array per output column (all of the
  // same length); a length of 0 means the call has no more rows.
  virtual Result<std::vector<ArrayRef>> Next(int64_t max_rows, MemoryPool* pool) = 0;
};

struct TableFunction {
  std::string name;
  std::vector<TypeRef> args;  // families as for scalar functions
  // Output columns; a function of one column names it after the function
  // (or after the FROM item's alias, as PostgreSQL does).
  std::vector<std::string> column_names;
  // From the resolved argument types: the output column types (default: the
  // argument type of the first argument for a single column).
  std::function<Status(const std::vector<TypeRef>& arg_types, std::vector<TypeRef>* column_types)>
      bind;
  // One call over argument values of the resolved types. Strict functions
  // never see NULL arguments: such a call gives no rows.
  std::function<Result<std::unique_ptr<TableFunctionCursor>>(
      const std::vector<Value>& args, const std::vector<TypeRef>& column_types)>
      start;
  // Instead of `start`, for functions over arrays (which a Value cannot
  // hold): each argument as an array of one slot.
  std::function<Result<std::unique_ptr<TableFunctionCursor>>(
      const std::vector<ArrayRef>& args, const std::vector<TypeRef>& column_types)>
      start_slots;
  bool strict = true;
};

struct BoundTableFunction {
  const TableFunction* function = nullptr;
  std::vector<TypeRef> arg_types;  // what each argument is cast to
  std::vector<std::string> column_names;
  std::vector<TypeRef> column_types;
};

class TableFunctionRegistry {
 public:
  static const TableFunctionRegistry& Get();

  void Add(TableFunction f);
  bool Has(const std::string& name) const;
  Result<BoundTableFunction> Resolve(const std::string& name,
                                     const std::vector<ArgInfo>& args) const;

 private:
  // Overload resolution is the scalar functions' (same rules, same errors):
  // signatures_ holds one signature-only ScalarFunction per TableFunction,
  // at the same index.
  FunctionRegistry signatures_;
  std::vector<std::unique_ptr<TableFunction>> functions_;
};

// Registration, one call per source file.
void RegisterGenerateSeries(TableFunctionRegistry* r);
void RegisterUnnest(TableFunctionRegistry* r);  // functions/array_functions.cc
void RegisterRegexpTableFunctions(TableFunctionRegistry* r);  // functions/regex_functions.cc

}  // namespace quiver
