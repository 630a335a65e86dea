// TPC-H's comment text (clause 4.2.2.10): a pool of pseudo-English sentences
// from a small weighted grammar, of which every comment column takes a random
// substring.
//
//   sentence  := NP VP T | NP VP PP T | NP VP NP T | NP PP VP NP T | NP PP VP PP T
//                (weights 3, 3, 3, 1, 1)
//   NP        := N | J N | J, J N | D J N         (10, 20, 10, 50)
//   VP        := V | X V | V D | X V D            (30, 1, 40, 1)
//   PP        := P the NP
//   N noun, V verb, J adjective, D adverb, P preposition, X auxiliary,
//   T terminator; each word list has the spec's weights (text_pool.cc).
//
// Because words come with the spec's weights, patterns the queries look for
// ('%special%requests%' in Q13) occur at the intended rates. The spec's pool
// is 300 MB; a few MiB is plenty for substrings of at most ~200 characters.
//
// Thread-safety: immutable after Make(); share one pool between threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tools/gen/random.h"

namespace quiver::gen {

class TextPool {
 public:
  // Generates `size` bytes of text from `seed` (same seed, same text).
  static TextPool Make(uint64_t seed, int64_t size = kDefaultSize);
  static constexpr int64_t kDefaultSize = int64_t{8} << 20;

  // TEXT[min, max]: a substring at a random offset whose length is uniform
  // in [min_len, max_len] (clause 4.2.2.10).
  // REQUIRES: 0 <= min_len <= max_len < size().
  std::string_view Random(Rng& rng, int min_len, int max_len) const {
    const int64_t len = rng.Uniform(min_len, max_len);
    const int64_t offset = rng.Below(static_cast<int64_t>(text_.size()) - len);
    return std::string_view(text_).substr(static_cast<size_t>(offset), static_cast<size_t>(len));
  }
  std::string_view text() const { return text_; }
  int64_t size() const { return static_cast<int64_t>(text_.size()); }

 private:
  explicit TextPool(std::string text) : text_(std::move(text)) {}
  std::string text_;
};

// V-STRING[min, max] (clause 4.2.2.7): random characters from a 64-letter
// alphabet (letters, digits, ',' and '.'), length uniform in [min, max];
// written to `out`, which must hold max_len bytes. Returns the length.
int RandomVString(Rng& rng, int min_len, int max_len, char* out);

}  // namespace quiver::gen
