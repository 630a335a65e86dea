#include "common/utf8.h"

#include <cstdint>
#include <cstring>

namespace quiver {

bool ValidateUtf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = s + text.size();
  while (s < end) {
    if (end - s >= 8) {
      uint64_t w;
      std::memcpy(&w, s, 8);
      if ((w & 0x8080808080808080ull) == 0) {
        s += 8;
        continue;
      }
    }
    const unsigned c = *s;
    if (c < 0x80) {
      ++s;
      continue;
    }
    int n;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      n = 1;
      cp = c & 0x1F;
      if (cp < 2) return false;  // overlong
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (end - s <= n) return false;
    for (int i = 1; i <= n; ++i) {
      if ((s[i] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (n == 3 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return false;
    }
    s += n + 1;
  }
  return true;
}

}  // namespace quiver
