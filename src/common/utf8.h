// UTF-8 validation, shared by array validation (untrusted IPC input) and the
// CSV reader (inferring utf8 vs binary).
#pragma once

#include <string_view>

namespace quiver {

// Whether `text` is well-formed UTF-8: no overlong forms, no surrogates, no
// code points past U+10FFFF. ASCII runs are checked 8 bytes at a time.
bool ValidateUtf8(std::string_view text);

}  // namespace quiver
