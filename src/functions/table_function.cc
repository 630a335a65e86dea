// The registry of set-returning functions (table_function.h).
#include "functions/table_function.h"

namespace quiver {

const TableFunctionRegistry& TableFunctionRegistry::Get() {
  static const TableFunctionRegistry* registry = [] {
    auto* r = new TableFunctionRegistry();
    RegisterGenerateSeries(r);
    RegisterUnnest(r);
    RegisterRegexpTableFunctions(r);
    return r;
  }();
  return *registry;
}

void TableFunctionRegistry::Add(TableFunction f) {
  ScalarFunction signature;
  signature.name = f.name;
  signature.args = f.args;
  signature.return_type = f.args.empty() ? int32() : f.args[0];
  signatures_.Add(std::move(signature));
  functions_.push_back(std::make_unique<TableFunction>(std::move(f)));
}

bool TableFunctionRegistry::Has(const std::string& name) const {
  return signatures_.HasScalar(name);
}

Result<BoundTableFunction> TableFunctionRegistry::Resolve(const std::string& name,
                                                          const std::vector<ArgInfo>& args) const {
  QUIVER_ASSIGN_OR_RAISE(BoundFunction b, signatures_.ResolveScalar(name, args));
  const auto& all = signatures_.scalars();
  size_t index = 0;
  while (index < all.size() && all[index].get() != b.function) ++index;
  if (index == all.size()) return Status::Invalid("table function {}: no implementation", name);
  BoundTableFunction out;
  out.function = functions_[index].get();
  out.arg_types = std::move(b.arg_types);
  out.column_names = out.function->column_names;
  if (out.function->bind) {
    QUIVER_RETURN_NOT_OK(out.function->bind(out.arg_types, &out.column_types));
  } else {
    out.column_types = {out.arg_types.at(0)};
  }
  return out;
}

}  // namespace quiver
