// LIKE matching for metadata filters (like.h).
#include "server/like.h"

namespace quiver::server {

bool LikeMatch(std::string_view pattern, std::string_view text) {
  // Iterative matcher with backtracking to the last %.
  size_t p = 0, t = 0;
  size_t star_p = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '%') {
      star_p = ++p;
      star_t = t;
      continue;
    }
    if (p < pattern.size()) {
      bool literal = false;
      char c = pattern[p];
      size_t width = 1;
      if (c == '\\' && p + 1 < pattern.size()) {
        c = pattern[p + 1];
        width = 2;
        literal = true;
      }
      if ((!literal && c == '_') || c == text[t]) {
        p += width;
        ++t;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p;
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == '%') ++p;
  return p == pattern.size();
}

}  // namespace quiver::server
