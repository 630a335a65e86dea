// to_number's result scale, which depends on its template (numeric_format.cc).
#pragma once

#include <string_view>

#include "common/status.h"

namespace quiver {

// The number of digits after the decimal point that to_number(text, format)
// can return: the template's digits after its decimal point plus those after
// V. Errors for a template PostgreSQL refuses (multiple decimal points, ...).
Result<int> ToNumberScale(std::string_view format);

}  // namespace quiver
