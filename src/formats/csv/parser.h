// Block parser: tokenizes rows of CSV text into field spans.
//
// A ParsedBlock describes the rows of one byte range of the input without
// copying it: for every field, its offset from the block start and its size,
// row-major (field (r, c) is fields[r * num_cols + c]). Two flag bits mark
// fields that were quoted and fields whose text needs unescaping (doubled
// quotes, escape characters, text after a closing quote); converters resolve
// those on the fly (UnescapeField), so the common case is zero-copy.
//
//   FieldSpan: uint32 offset | uint32 size (bits 0..29), quoted (bit 31),
//              needs_unescape (bit 30)
//
// Rows end at LF, CRLF or a lone CR outside quotes. Empty lines are skipped
// (as pyarrow's ignore_empty_lines). The parser counts physical lines
// (terminators, including those inside quoted values) so errors can name the
// line a row starts on.
//
// Thread-safety: a BlockParser is stateless apart from its options; Parse()
// may run concurrently on different blocks.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "formats/csv/reader.h"

namespace quiver::csv::internal {

struct FieldSpan {
  static constexpr uint32_t kQuoted = 1u << 31;
  static constexpr uint32_t kNeedsUnescape = 1u << 30;
  static constexpr uint32_t kSizeMask = (1u << 30) - 1;

  uint32_t offset;
  uint32_t size_flags;

  uint32_t size() const { return size_flags & kSizeMask; }
  bool quoted() const { return (size_flags & kQuoted) != 0; }
  bool needs_unescape() const { return (size_flags & kNeedsUnescape) != 0; }
};

// An error found while parsing, located relative to the block so it can be
// reported (with the absolute line) once the block is known to be real.
struct BlockError {
  int64_t line_offset = 0;  // physical lines from the block start
  int64_t row = -1;         // row within the block, -1 if not row-specific
  int column = -1;          // column index, -1 if not column-specific
  std::string message;
};

struct ParsedBlock {
  const char* base = nullptr;  // the block's first byte
  int64_t start = 0;           // absolute byte offset of the block
  int64_t end = 0;             // absolute offset just past the last row
  int64_t num_rows = 0;
  int num_cols = 0;
  int64_t lines = 0;           // physical line terminators consumed
  std::vector<FieldSpan> fields;
  // (row, extra): from `row` on, rows start `extra` lines later than
  // "first line + row index" (embedded newlines, skipped empty lines).
  std::vector<std::pair<int64_t, int64_t>> line_shifts;
  bool aborted = false;        // a speculative parse ran past its bound
  bool has_error = false;
  BlockError error;

  std::string_view FieldText(const FieldSpan& f) const { return {base + f.offset, f.size()}; }
  const FieldSpan& field(int64_t row, int col) const { return fields[row * num_cols + col]; }
  // Physical line offset (from the block start) on which `row` starts.
  int64_t RowLineOffset(int64_t row) const;
};

// Up to four bytes that end a run of ordinary bytes. Find() scans eight
// bytes at a time (SWAR: a byte equal to one of the four becomes a zero byte
// after XOR; the lowest flagged zero is exact) and finishes byte by byte.
class ByteSet {
 public:
  void Add(char c) {
    const uint8_t b = static_cast<uint8_t>(c);
    if (table_[b]) return;
    table_[b] = 1;
    // Unused slots repeat the first byte.
    for (int i = count_; i < 4; ++i) words_[i] = 0x0101010101010101ull * b;
    ++count_;
  }
  bool Contains(uint8_t b) const { return table_[b] != 0; }
  const unsigned char* Find(const unsigned char* p, const unsigned char* end) const {
    constexpr uint64_t kOnes = 0x0101010101010101ull;
    constexpr uint64_t kHighs = 0x8080808080808080ull;
    while (end - p >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      uint64_t m = 0;
      for (int i = 0; i < 4; ++i) {
        const uint64_t x = w ^ words_[i];
        m |= (x - kOnes) & ~x;
      }
      m &= kHighs;
      if (m != 0) return p + (__builtin_ctzll(m) >> 3);
      p += 8;
    }
    while (p < end && !table_[*p]) ++p;
    return p;
  }

 private:
  std::array<uint8_t, 256> table_{};
  uint64_t words_[4] = {0, 0, 0, 0};
  int count_ = 0;
};

class BlockParser {
 public:
  explicit BlockParser(const ParseOptions& options);

  // Parses rows from data[start..] until the first row that ends at or after
  // `limit` (or `size`, the end of the input). num_cols < 0 takes the field
  // count of the first row; otherwise every row must have num_cols fields.
  // A parse that reaches `bound` without completing its row is abandoned
  // (aborted = true): speculative blocks must not scan the whole file when
  // they started inside a quoted value. `max_rows` >= 0 stops after that many
  // rows (header, skip_rows).
  void Parse(const char* data, int64_t size, int64_t start, int64_t limit, int64_t bound,
             int num_cols, int64_t max_rows, ParsedBlock* out) const;

  const ParseOptions& options() const { return options_; }

 private:
  ParseOptions options_;
  // Bytes that end an unquoted run: delimiter, CR, LF, escape.
  ByteSet unquoted_special_;
  // Bytes that end a quoted run: quote, escape, CR, LF.
  ByteSet quoted_special_;
};

// Writes the logical value of an escaped/quoted field into `out` (cleared).
void UnescapeField(std::string_view raw, const ParseOptions& options, std::string* out);

}  // namespace quiver::csv::internal
