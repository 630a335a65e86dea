// SQL LIKE patterns of the Flight SQL metadata commands (GetDbSchemas,
// GetTables): % matches any run of characters, _ one character, and `\`
// escapes the next one (SqlInfo SQL_SEARCH_STRING_ESCAPE). Case-sensitive,
// byte-wise.
#pragma once

#include <string_view>

namespace quiver::server {

bool LikeMatch(std::string_view pattern, std::string_view text);

}  // namespace quiver::server
