// Chunker: proposes block boundaries for parallel parsing.
//
// A boundary must fall between rows, and with quoted line breaks
// (newlines_in_values) no byte scan can tell a row end from a line break
// inside a quoted value without parsing from a known row start. Quiver
// splits speculatively instead of serially: each proposed block ends just
// after the first line break at or after start + block_size, and blocks are
// parsed concurrently as if they began at a row start. The reader then
// checks them in order: a block is real only if it starts exactly where the
// previous real block ended (the parser stops at the first row end at or
// after the proposed limit, so in files without quoted line breaks every
// proposal is right). A block that fails the check is parsed again, serially,
// from the true position; its errors are never reported. This keeps the
// common case fully parallel and the rare case correct.
#pragma once

#include <cstdint>
#include <cstring>

namespace quiver::csv::internal {

// Offset just past the first line break (LF, or CR when the input has no LF
// after `from`) at or after `from`; `size` when there is none.
inline int64_t NextCandidateBoundary(const char* data, int64_t size, int64_t from) {
  if (from >= size) return size;
  const void* nl = std::memchr(data + from, '\n', static_cast<size_t>(size - from));
  if (nl != nullptr) return static_cast<const char*>(nl) - data + 1;
  const void* cr = std::memchr(data + from, '\r', static_cast<size_t>(size - from));
  if (cr != nullptr) return static_cast<const char*>(cr) - data + 1;
  return size;
}

// Hands out speculative blocks [start, limit) covering [from, size).
class Chunker {
 public:
  Chunker(const char* data, int64_t size, int64_t block_size)
      : data_(data), size_(size), block_size_(block_size < 1 ? 1 : block_size) {}

  void Reset(int64_t position) { next_ = position; }
  bool done() const { return next_ >= size_; }
  int64_t position() const { return next_; }

  // REQUIRES: !done().
  void Next(int64_t* start, int64_t* limit) {
    *start = next_;
    const int64_t target = next_ + block_size_ - 1;
    next_ = target >= size_ ? size_ : NextCandidateBoundary(data_, size_, target);
    *limit = next_;
  }

 private:
  const char* data_;
  int64_t size_;
  int64_t block_size_;
  int64_t next_ = 0;
};

// Length of a UTF-8 byte order mark at the start of `data` (0 or 3).
inline int64_t BomLength(const char* data, int64_t size) {
  return size >= 3 && std::memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

}  // namespace quiver::csv::internal
