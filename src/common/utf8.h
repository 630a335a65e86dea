// UTF-8 validation, shared by array validation (untrusted IPC input) and the
// CSV reader (inferring utf8 vs binary).
#pragma once

#include <string>
#include <string_view>

namespace quiver {

// Whether `text` is well-formed UTF-8: no overlong forms, no surrogates, no
// code points past U+10FFFF. ASCII runs are checked 8 bytes at a time.
bool ValidateUtf8(std::string_view text);

// The code point starting at text[*i] (REQUIRES: *i < text.size()),
// advancing *i past it; kInvalidUtf8 for a malformed or truncated sequence,
// advancing one byte (the caller copies that byte as it is).
inline constexpr char32_t kInvalidUtf8 = 0xFFFFFFFF;
char32_t DecodeUtf8(std::string_view text, size_t* i);

// Appends the UTF-8 form of code point `c` (< 0x110000).
void AppendUtf8(std::string* out, char32_t c);

}  // namespace quiver
