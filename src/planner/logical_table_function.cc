#include "planner/logical_table_function.h"

namespace quiver::plan {

std::vector<TypeRef> LogicalTableFunction::FunctionTypes() const {
  std::vector<TypeRef> out;
  for (const auto& f : functions)
    out.insert(out.end(), f->column_types.begin(), f->column_types.end());
  if (ordinality) out.push_back(int64());
  return out;
}

std::vector<ColumnBinding> LogicalTableFunction::GetColumnBindings() const {
  auto out = children[0]->GetColumnBindings();
  const size_t n = FunctionTypes().size();
  for (size_t i = 0; i < n; ++i) out.push_back({table_index, static_cast<int>(i)});
  return out;
}

std::vector<TypeRef> LogicalTableFunction::GetTypes() const {
  auto out = children[0]->GetTypes();
  for (auto& t : FunctionTypes()) out.push_back(t);
  return out;
}

std::string LogicalTableFunction::NodeString() const {
  std::string s = "TABLE_FUNCTION ";
  size_t arg = 0;
  for (size_t f = 0; f < functions.size(); ++f) {
    s += (f ? "), " : "") + functions[f]->function->name + "(";
    for (int i = 0; i < arg_counts[f]; ++i, ++arg)
      s += (i ? ", " : "") + expressions[arg]->ToString();
  }
  s += ")";
  if (ordinality) s += " WITH ORDINALITY";
  if (outer) s += " OUTER";
  return s;
}

LogicalOpPtr LogicalTableFunction::CopyNode() const {
  auto copy = std::make_unique<LogicalTableFunction>();
  copy->functions = functions;
  copy->arg_counts = arg_counts;
  copy->ordinality = ordinality;
  copy->outer = outer;
  return copy;
}

}  // namespace quiver::plan
