// Registration of the regular expression functions (regex_functions.cc),
// kept out of function.h so that adding a family rebuilds only the registry.
#pragma once

namespace quiver {

class FunctionRegistry;
void RegisterRegexFunctions(FunctionRegistry* r);

}  // namespace quiver
