// Scalar and aggregate functions: signatures, kernels, and PostgreSQL-style
// overload resolution.
//
// Operators are functions too: `a + b` resolves "+" over the types of a and
// b exactly as a call `+(a, b)` would. A signature's argument types name
// families: decimal128(0, 0) stands for numeric of any precision and scale,
// timestamp without a zone for both timestamp kinds where noted by `bind`.
//
// Resolution follows PostgreSQL's rules in spirit (docs, "Type Conversion",
// 10.2/10.3): candidates with the right number of arguments; exact family
// matches first; otherwise the candidate needing the fewest implicit casts,
// preferring double precision and text; an untyped string literal ('...')
// takes the type of the candidate's parameter (for binary operators, the
// other operand's type).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "common/memory_pool.h"
#include "vector/data_chunk.h"
#include "vector/value.h"

namespace quiver {

struct KernelContext {
  MemoryPool* pool = DefaultMemoryPool();
};

// Computes n output rows from the arguments (already cast to the resolved
// argument types). Returns a dense array of `out_type`.
using ScalarKernel = std::function<Result<ArrayRef>(
    KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out_type)>;

// For boolean functions used as filters: writes the positions i < n of the
// rows where the result is TRUE (not FALSE, not NULL) and returns how many.
using SelectKernel = std::function<Result<int64_t>(
    KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, uint32_t* out_rows)>;

// Decides, from the actual argument types (after family matching), the types
// the arguments are cast to and the return type. Default: the signature's
// types and return type.
using BindFunction =
    std::function<Status(std::vector<TypeRef>* arg_types, TypeRef* return_type)>;

struct ScalarFunction {
  std::string name;
  std::vector<TypeRef> args;
  TypeRef varargs;  // when set, any number (>= args.size()) of further args of this type
  TypeRef return_type;
  BindFunction bind;
  ScalarKernel kernel;
  // NULL in any argument gives NULL without looking at the others; the
  // kernel still sees every row (its outputs under NULL are ignored).
  bool strict = true;
  // Results may differ between calls with equal arguments (random()): never folded.
  bool is_volatile = false;
  // Optional fast path for filters (comparisons, LIKE).
  SelectKernel select;
};

// The resolved call: which function, what to cast each argument to, and the
// result type.
struct BoundFunction {
  const ScalarFunction* function = nullptr;
  std::vector<TypeRef> arg_types;
  TypeRef return_type;
};

// Aggregate functions keep one fixed-size state per group. The hash
// aggregate lays out all states of a group in one row and calls update with
// a pointer to the state of each input row's group.
struct AggregateFunction {
  std::string name;
  std::vector<TypeRef> args;  // families as for scalar functions; empty = count(*)
  TypeRef varargs;            // unused by the built-ins; keeps resolution generic
  TypeRef return_type;
  BindFunction bind;
  int state_size = 8;
  // REQUIRES: state points at state_size bytes, 16-byte aligned.
  std::function<void(uint8_t* state)> init;
  // For each row i < n: fold row i of args into states[i]. Rows whose
  // argument is NULL are skipped by the function itself (count(*) counts them).
  // Heap memory a state holds (the strings of min/max and string_agg) is
  // charged to `pool`, the query's (null: not accounted), before it is
  // allocated, so an update past the memory limit fails with OutOfMemory.
  std::function<Status(const std::vector<VectorRef>& args, int64_t n, uint8_t** states,
                       MemoryPool* pool)>
      update;
  // Folds `src` into `dst` (partial aggregates of two threads); charges as
  // update does.
  std::function<Status(const uint8_t* src, uint8_t* dst, MemoryPool* pool)> combine;
  // Writes the results of n states into an array of `out_type`.
  std::function<Result<ArrayRef>(uint8_t** states, int64_t n, const TypeRef& out_type,
                                 MemoryPool* pool)>
      finalize;
  // Frees what a state owns (strings of min/max) and gives back to the pool
  // what it charged; may be empty.
  std::function<void(uint8_t* state)> destroy;
};

struct BoundAggregate {
  const AggregateFunction* function = nullptr;
  std::vector<TypeRef> arg_types;
  TypeRef return_type;
};

// Describes one argument for resolution: its type, and whether it is an
// untyped string literal (PostgreSQL's `unknown`), which can become any type.
struct ArgInfo {
  TypeRef type;
  bool unknown_literal = false;
};

class FunctionRegistry {
 public:
  // The process-wide registry with every built-in function.
  static const FunctionRegistry& Get();

  void Add(ScalarFunction f);
  void Add(AggregateFunction f);

  bool HasScalar(const std::string& name) const;
  bool HasAggregate(const std::string& name) const;
  // The function name closest to `name` by edit distance, when one is close
  // enough to be a likely typo (for "did you mean"); "" otherwise.
  std::string NearestName(const std::string& name) const;

  // PostgreSQL's undefined_function error (42883) for a call written as
  // `signature` ("foo(integer)"): its message and HINT, plus "Did you mean"
  // when a function of a near name exists and none of this one does.
  Status UndefinedFunction(const std::string& name, const std::string& signature) const;

  // Resolves a call of `name` (lower-case). Errors are PostgreSQL's:
  // "function foo(integer) does not exist", "operator does not exist:
  // integer + text".
  Result<BoundFunction> ResolveScalar(const std::string& name, const std::vector<ArgInfo>& args,
                                      bool is_operator = false) const;
  Result<BoundAggregate> ResolveAggregate(const std::string& name,
                                          const std::vector<ArgInfo>& args) const;

  // Every overload, in registration order (listings: the shell's \df).
  const std::vector<std::unique_ptr<ScalarFunction>>& scalars() const { return scalars_; }
  const std::vector<std::unique_ptr<AggregateFunction>>& aggregates() const { return aggregates_; }

 private:
  std::vector<std::unique_ptr<ScalarFunction>> scalars_;
  std::vector<std::unique_ptr<AggregateFunction>> aggregates_;
};

// Registration, one call per source file of functions/.
void RegisterArithmeticFunctions(FunctionRegistry* r);
void RegisterComparisonFunctions(FunctionRegistry* r);
void RegisterStringFunctions(FunctionRegistry* r);
void RegisterMathFunctions(FunctionRegistry* r);
void RegisterDateTimeFunctions(FunctionRegistry* r);
void RegisterAggregateFunctions(FunctionRegistry* r);

// Type-family placeholders for signatures.
TypeRef AnyDecimal();   // decimal128(0, 0): numeric of any precision/scale
TypeRef AnyType();      // matches every type (used by a few polymorphic functions)
bool IsAnyDecimal(const DataType& t);
bool IsAnyType(const DataType& t);

// The signature text PostgreSQL prints: "substr(text, integer)".
std::string CallSignature(const std::string& name, const std::vector<ArgInfo>& args);

}  // namespace quiver
