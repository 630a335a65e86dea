// Block parser (see parser.h for the FieldSpan layout and row rules).
//
// The hot loops scan runs of ordinary bytes eight at a time (ByteSet::Find);
// a field costs one FieldSpan append.
#include "formats/csv/parser.h"

#include <algorithm>

namespace quiver::csv::internal {

int64_t ParsedBlock::RowLineOffset(int64_t row) const {
  auto it = std::upper_bound(line_shifts.begin(), line_shifts.end(), row,
                             [](int64_t r, const std::pair<int64_t, int64_t>& s) {
                               return r < s.first;
                             });
  const int64_t extra = it == line_shifts.begin() ? 0 : std::prev(it)->second;
  return row + extra;
}

BlockParser::BlockParser(const ParseOptions& options) : options_(options) {
  unquoted_special_.Add(options_.delimiter);
  unquoted_special_.Add('\r');
  unquoted_special_.Add('\n');
  quoted_special_.Add('\r');
  quoted_special_.Add('\n');
  if (options_.quoting) quoted_special_.Add(options_.quote);
  if (options_.escape != 0) {
    unquoted_special_.Add(options_.escape);
    quoted_special_.Add(options_.escape);
  }
}

void BlockParser::Parse(const char* data, int64_t size, int64_t start, int64_t limit,
                        int64_t bound, int num_cols, int64_t max_rows, ParsedBlock* out) const {
  using U8 = unsigned char;
  const U8* const base = reinterpret_cast<const U8*>(data) + start;
  const U8* const end = reinterpret_cast<const U8*>(data) + size;
  const U8* const lim = reinterpret_cast<const U8*>(data) + std::min(limit, size);
  const U8* const bnd = reinterpret_cast<const U8*>(data) + std::min(bound, size);
  const U8 delim = static_cast<U8>(options_.delimiter);
  const U8 quote = static_cast<U8>(options_.quote);
  const U8 escape = static_cast<U8>(options_.escape);
  const bool quoting = options_.quoting;
  const bool has_escape = options_.escape != 0;
  const bool double_quote = options_.double_quote;
  const bool newlines_in_values = options_.newlines_in_values;
  const bool bounded = bound < size;
  const ByteSet& uq = unquoted_special_;
  const ByteSet& qs = quoted_special_;

  out->base = reinterpret_cast<const char*>(base);
  out->start = start;
  out->num_rows = 0;
  out->lines = 0;
  out->fields.clear();
  out->line_shifts.clear();
  out->aborted = false;
  out->has_error = false;
  // Guess: ~12 bytes per field keeps reallocation rare without overcommitting
  // (single rows -- header, skipped rows -- reserve little: their limit is
  // the end of the input).
  const int64_t guess = max_rows >= 0 ? 64 : std::max<int64_t>(16, (lim - base) / 12 + 16);
  out->fields.reserve(static_cast<size_t>(guess));

  const U8* p = base;
  int64_t lines = 0;
  int64_t rows = 0;
  int64_t extra = 0;
  auto fail = [&](int64_t line_offset, std::string message) {
    out->has_error = true;
    out->error = BlockError{line_offset, rows, -1, std::move(message)};
  };

  while (p < end && p < lim && rows != max_rows) {
    // Skip empty lines; they count as physical lines but hold no row.
    if (*p == '\n') {
      ++p;
      ++lines;
      continue;
    }
    if (*p == '\r') {
      ++p;
      if (p < end && *p == '\n') ++p;
      ++lines;
      continue;
    }
    const int64_t row_line = lines;
    if (row_line != rows + extra) {
      extra = row_line - rows;
      out->line_shifts.emplace_back(rows, extra);
    }
    int nf = 0;
    for (;;) {
      const U8* f = p;
      uint32_t flags = 0;
      uint32_t span_offset;
      int64_t span_size;
      if (quoting && p < end && *p == quote) {
        ++p;
        flags = FieldSpan::kQuoted;
        const U8* content = p;
        const U8* content_end;
        for (;;) {
          p = qs.Find(p, end);
          if (p == end) {
            if (bounded) {
              out->aborted = true;
              return;
            }
            fail(row_line, "unterminated quoted field");
            out->end = static_cast<int64_t>(p - reinterpret_cast<const U8*>(data));
            return;
          }
          const U8 c = *p;
          if (c == quote) {
            if (double_quote && p + 1 < end && p[1] == quote) {
              flags |= FieldSpan::kNeedsUnescape;
              p += 2;
              continue;
            }
            content_end = p;
            ++p;
            break;
          }
          if (has_escape && c == escape) {
            flags |= FieldSpan::kNeedsUnescape;
            p = std::min(p + 2, end);
            continue;
          }
          // CR or LF inside quotes.
          if (!newlines_in_values) {
            fail(row_line, "line break inside a quoted value (newlines_in_values is off)");
            return;
          }
          ++p;
          if (c == '\r' && p < end && *p == '\n') ++p;
          ++lines;
          if (bounded && p >= bnd) {
            out->aborted = true;
            return;
          }
        }
        // Text after the closing quote is kept literally (as Arrow does).
        if (p < end && *p != delim && *p != '\n' && *p != '\r') {
          flags |= FieldSpan::kNeedsUnescape;
          for (;;) {
            p = uq.Find(p, end);
            if (has_escape && p < end && *p == escape) {
              p = std::min(p + 2, end);
              continue;
            }
            break;
          }
        }
        if (flags & FieldSpan::kNeedsUnescape) {
          span_offset = static_cast<uint32_t>(f - base);
          span_size = p - f;
        } else {
          span_offset = static_cast<uint32_t>(content - base);
          span_size = content_end - content;
        }
      } else {
        for (;;) {
          p = uq.Find(p, end);
          if (has_escape && p < end && *p == escape) {
            flags |= FieldSpan::kNeedsUnescape;
            p = std::min(p + 2, end);
            continue;
          }
          break;
        }
        span_offset = static_cast<uint32_t>(f - base);
        span_size = p - f;
      }
      if (span_size > FieldSpan::kSizeMask || p - base > int64_t{0xFFFFFFFF}) {
        fail(row_line, "field or block larger than 1 GiB");
        return;
      }
      out->fields.push_back(FieldSpan{span_offset, static_cast<uint32_t>(span_size) | flags});
      ++nf;
      if (p == end) break;
      const U8 c = *p++;
      if (c == delim) continue;
      // LF, CR or CRLF ends the row.
      if (c == '\r' && p < end && *p == '\n') ++p;
      ++lines;
      break;
    }
    if (num_cols < 0) {
      num_cols = nf;
    } else if (nf != num_cols) {
      fail(row_line, fmt::format("expected {} fields, found {}", num_cols, nf));
      out->end = static_cast<int64_t>(p - reinterpret_cast<const U8*>(data));
      return;
    }
    ++rows;
  }
  out->num_rows = rows;
  out->num_cols = std::max(num_cols, 0);
  out->lines = lines;
  out->end = static_cast<int64_t>(p - reinterpret_cast<const U8*>(data));
}

void UnescapeField(std::string_view raw, const ParseOptions& options, std::string* out) {
  out->clear();
  const char* p = raw.data();
  const char* end = p + raw.size();
  bool in_quotes = false;
  if (options.quoting && p < end && *p == options.quote) {
    in_quotes = true;
    ++p;
  }
  const bool has_escape = options.escape != 0;
  while (p < end) {
    const char c = *p;
    if (has_escape && c == options.escape) {
      if (p + 1 < end) out->push_back(p[1]);
      p += 2;
      continue;
    }
    if (in_quotes && c == options.quote) {
      if (options.double_quote && p + 1 < end && p[1] == options.quote) {
        out->push_back(c);
        p += 2;
        continue;
      }
      in_quotes = false;  // closing quote; what follows is literal
      ++p;
      continue;
    }
    out->push_back(c);
    ++p;
  }
}

}  // namespace quiver::csv::internal
