// Registration of function families added after function.h's list
// (regex_functions.cc, text_functions.cc, datetime_format.cc, datetime_more.cc,
// numeric_format.cc), kept out of function.h so that a new family rebuilds
// only the registry.
#pragma once

namespace quiver {

class FunctionRegistry;
void RegisterRegexFunctions(FunctionRegistry* r);
void RegisterTextFunctions(FunctionRegistry* r);
void RegisterDateTimeFormatFunctions(FunctionRegistry* r);
void RegisterDateTimeMoreFunctions(FunctionRegistry* r);
void RegisterNumericFormatFunctions(FunctionRegistry* r);
void RegisterSystemFunctions(FunctionRegistry* r);
void RegisterArrayFunctions(FunctionRegistry* r);
void RegisterNestedFunctions(FunctionRegistry* r);

}  // namespace quiver
