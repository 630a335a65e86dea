// JSON text scanning (see json_scan.h). The lexer follows PostgreSQL's
// json_lex (src/common/jsonapi.c) closely enough to give its error texts:
// the same token boundaries, so "Token \"01\" is invalid." names the same
// token. Parsing for validation keeps its own stack of open containers (no
// recursion, so deep nesting cannot overflow the thread's stack); the jsonb
// normaliser recurses and refuses nesting deeper than kMaxDepth.
#include "functions/json_scan.h"

#include <algorithm>
#include <cstring>
#include <memory>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/utf8.h"

namespace quiver::json {

namespace {

// PostgreSQL's untranslatable_character, for \u0000 in jsonb and ->>.
constexpr const char* kUntranslatableCharacter = "22P05";
constexpr int kMaxDepth = 4000;

enum class Tok : uint8_t {
  kObjectStart,
  kObjectEnd,
  kArrayStart,
  kArrayEnd,
  kComma,
  kColon,
  kString,
  kNumber,
  kTrue,
  kFalse,
  kNull,
  kEnd,
  kInvalid,
};

inline bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
// PostgreSQL's JSON_ALPHANUMERIC_CHAR: what a bad token extends over.
inline bool IsTokenChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsDigit(c) || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
inline int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Length of the UTF-8 sequence starting with byte `c` (1 for stray bytes).
inline size_t CharLength(unsigned char c) {
  if (c < 0xC0) return 1;
  if (c < 0xE0) return 2;
  if (c < 0xF0) return 3;
  return 4;
}

// The scanners below run once per token: inlined into their loops.
#define QUIVER_JSON_INLINE inline __attribute__((always_inline))

// Word-at-a-time scanning (SWAR): does any byte of x equal c, or (for
// StringStop) stop a string's fast scan ('"', '\\' or a control byte)?
constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHighs = 0x8080808080808080ULL;
inline uint64_t ZeroBytes(uint64_t v) { return (v - kOnes) & ~v & kHighs; }
// Bytes (0x80 in each) of x that stop a string's fast scan: '"', '\\' or a
// control byte. Above the lowest one the marks may be wrong (borrows); only
// the lowest is used.
inline uint64_t StringStops(uint64_t x) {
  return ZeroBytes(x ^ (kOnes * '"')) | ZeroBytes(x ^ (kOnes * '\\')) |
         ((x - kOnes * 0x20) & ~x & kHighs);
}
// The first '"', '\\' or control byte in [p, end), or end.
QUIVER_JSON_INLINE const char* ScanString(const char* p, const char* end) {
#if defined(__SSE2__)
  // 16 bytes a step: '"', '\\', or a byte <= 0x1f (max(v, 0x1f) == 0x1f).
  const __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bs)),
                                      _mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl));
    if (const int m = _mm_movemask_epi8(stop)) return p + __builtin_ctz(static_cast<unsigned>(m));
    p += 16;
  }
#endif
  while (end - p >= 8) {
    uint64_t x;
    std::memcpy(&x, p, 8);
    if (const uint64_t m = StringStops(x)) return p + (__builtin_ctzll(m) >> 3);
    p += 8;
  }
  while (p < end) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\' || c < 0x20) return p;
    ++p;
  }
  return end;
}

// Past the container that starts at `p` ('{' or '['): the position after
// its closing bracket, or nullptr when the text ends first. For text that
// passed Validate; on other text it stops somewhere in [p, end] or fails,
// never reading outside. 64 bytes a step: bit masks of quotes, backslashes
// and brackets, the bytes inside strings as the prefix parity of unescaped
// quotes, then only the brackets outside strings are looked at one by one.
struct BlockMasks {
  uint64_t quote = 0, backslash = 0, open = 0, close = 0, colon = 0;
};

#if defined(__SSE2__)
inline BlockMasks Masks64(const char* p) {
  BlockMasks m;
  const __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
  const __m128i lower = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
  const __m128i colon = _mm_set1_epi8(':');
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    // '[' | 0x20 is '{' and ']' | 0x20 is '}'; no other byte maps to them.
    const __m128i l = _mm_or_si128(v, lower);
    const int shift = 16 * k;
    m.quote |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)))) << shift;
    m.backslash |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, bs)))) << shift;
    m.open |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(l, open)))) << shift;
    m.close |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(l, close)))) << shift;
    m.colon |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, colon)))) << shift;
  }
  return m;
}
#else
inline BlockMasks Masks64(const char* p) {
  BlockMasks m;
  for (int i = 0; i < 64; ++i) {
    const char c = p[i];
    const uint64_t bit = uint64_t{1} << i;
    if (c == '"') m.quote |= bit;
    if (c == '\\') m.backslash |= bit;
    if (c == '{' || c == '[') m.open |= bit;
    if (c == '}' || c == ']') m.close |= bit;
    if (c == ':') m.colon |= bit;
  }
  return m;
}
#endif

// With kColons, at_colon(colon, quotes, previous_quotes, backslashes,
// previous_backslashes, block) is called for each ':' at depth 1 (an
// object's own members): `quotes` are the unescaped quotes of the 64-byte
// block at `block` and `backslashes` its backslashes, `previous_...` those
// of the block before. It returns false to stop the scan (nullptr).
template <bool kColons, typename AtColon>
QUIVER_JSON_INLINE const char* ScanContainer(const char* p, const char* end, AtColon&& at_colon) {
  int depth = 0;
  bool in_string = false;    // the block starts inside a string
  bool escape_first = false;  // the block's first byte is escaped
  uint64_t previous_quotes = 0, previous_backslashes = 0;
  for (; p < end; p += 64) {
    BlockMasks m;
    if (end - p >= 64) {
      m = Masks64(p);
    } else {
      char tail[64] = {};
      std::memcpy(tail, p, static_cast<size_t>(end - p));
      m = Masks64(tail);
    }
    if (m.backslash != 0 || escape_first) {
      // A backslash escapes the next byte unless it is escaped itself.
      uint64_t escaped = escape_first ? 1 : 0;
      escape_first = false;
      for (uint64_t b = m.backslash; b != 0; b &= b - 1) {
        const int i = __builtin_ctzll(b);
        if ((escaped >> i) & 1) continue;
        if (i == 63) {
          escape_first = true;
        } else {
          escaped |= uint64_t{1} << (i + 1);
        }
      }
      m.quote &= ~escaped;
    }
    // Bit i: an odd number of quotes at or before i (inside a string, its
    // opening quote included).
    uint64_t inside = m.quote;
    inside ^= inside << 1;
    inside ^= inside << 2;
    inside ^= inside << 4;
    inside ^= inside << 8;
    inside ^= inside << 16;
    inside ^= inside << 32;
    if (in_string) inside = ~inside;
    in_string = (inside >> 63) & 1;
    const uint64_t colons = kColons ? m.colon : 0;
    for (uint64_t b = (m.open | m.close | colons) & ~inside; b != 0; b &= b - 1) {
      const int i = __builtin_ctzll(b);
      if ((m.open >> i) & 1) {
        ++depth;
      } else if ((m.close >> i) & 1) {
        if (--depth <= 0) return depth == 0 ? p + i + 1 : nullptr;
      } else if (depth == 1) {
        if (!at_colon(p + i, m.quote, previous_quotes, m.backslash, previous_backslashes, p)) {
          return nullptr;
        }
      }
    }
    previous_quotes = m.quote;
    previous_backslashes = m.backslash;
  }
  return nullptr;
}

inline const char* SkipContainer(const char* p, const char* end) {
  return ScanContainer<false>(p, end, [](const char*, uint64_t, uint64_t, uint64_t, uint64_t,
                                         const char*) {
    return true;
  });
}

class Lexer {
 public:
  Lexer(std::string_view text, bool for_jsonb)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()),
        for_jsonb_(for_jsonb) {}

  Tok Next() {
    while (p_ < end_ && IsBlank(*p_)) ++p_;
    start_ = p_;
    if (p_ == end_) {
      stop_ = p_;
      return Tok::kEnd;
    }
    const char c = *p_;
    switch (c) {
      case '{': return Single(Tok::kObjectStart);
      case '}': return Single(Tok::kObjectEnd);
      case '[': return Single(Tok::kArrayStart);
      case ']': return Single(Tok::kArrayEnd);
      case ',': return Single(Tok::kComma);
      case ':': return Single(Tok::kColon);
      case '"': return LexString();
      default: break;
    }
    if (c == '-' || IsDigit(c)) return LexNumber();
    const char* q = p_;
    while (q < end_ && IsTokenChar(*q)) ++q;
    if (q == p_) {
      // One (possibly multibyte) character that cannot start a token.
      stop_ = std::min(end_, p_ + CharLength(static_cast<unsigned char>(c)));
      p_ = stop_;
      return Invalid(TokenInvalid());
    }
    stop_ = q;
    p_ = q;
    const std::string_view word(start_, q - start_);
    if (word == "true") return Tok::kTrue;
    if (word == "false") return Tok::kFalse;
    if (word == "null") return Tok::kNull;
    return Invalid(TokenInvalid());
  }

  std::string_view token() const { return {start_, static_cast<size_t>(stop_ - start_)}; }
  bool token_has_escape() const { return has_escape_; }
  const std::string& detail() const { return detail_; }
  bool untranslatable() const { return untranslatable_; }

  // PostgreSQL's error for an unexpected token `t` (the parser's messages).
  Status Unexpected(Tok t, const char* expected) {
    if (t == Tok::kInvalid) return Error();
    if (t == Tok::kEnd) {
      detail_ = "The input string ended unexpectedly.";
    } else {
      detail_ = std::string("Expected ") + expected + ", but found \"" + std::string(token()) +
                "\".";
    }
    return Error();
  }

  Status Error() const {
    std::string detail = detail_ + "\nCONTEXT:  JSON data, line " + std::to_string(Line()) +
                         ": " + Context();
    if (untranslatable_) {
      return Status::Invalid("unsupported Unicode escape sequence")
          .WithSqlState(kUntranslatableCharacter)
          .WithDetail(std::move(detail));
    }
    return Status::Invalid("invalid input syntax for type json")
        .WithSqlState(sqlstate::kInvalidTextRepresentation)
        .WithDetail(std::move(detail));
  }

 private:
  Tok Single(Tok t) {
    stop_ = ++p_;
    return t;
  }

  Tok Invalid(std::string detail) {
    detail_ = std::move(detail);
    return Tok::kInvalid;
  }

  std::string TokenInvalid() const { return "Token \"" + std::string(token()) + "\" is invalid."; }

  Tok LexString() {
    has_escape_ = false;
    const char* q = p_ + 1;
    bool high_surrogate = false;
    while (true) {
      if (q >= end_) {
        stop_ = end_;
        p_ = end_;
        return Invalid(TokenInvalid());
      }
      const unsigned char c = static_cast<unsigned char>(*q);
      if (c == '"') break;
      if (c < 0x20) {
        stop_ = q;
        p_ = q;
        char buf[64];
        std::snprintf(buf, sizeof buf, "Character with value 0x%02x must be escaped.", c);
        return Invalid(buf);
      }
      if (c != '\\') {
        if (high_surrogate) {
          stop_ = q;
          return Invalid("Unicode low surrogate must follow a high surrogate.");
        }
        ++q;
        continue;
      }
      has_escape_ = true;
      ++q;
      if (q >= end_) {
        stop_ = end_;
        p_ = end_;
        return Invalid(TokenInvalid());
      }
      if (*q == 'u') {
        int code = 0;
        for (int k = 1; k <= 4; ++k) {
          const int h = q + k < end_ ? HexValue(q[k]) : -1;
          if (h < 0) {
            stop_ = std::min(end_, q + k + (q + k < end_ ? 1 : 0));
            return Invalid("\"\\u\" must be followed by four hexadecimal digits.");
          }
          code = code * 16 + h;
        }
        q += 5;
        if (code >= 0xD800 && code <= 0xDBFF) {
          if (high_surrogate) {
            stop_ = q;
            return Invalid("Unicode high surrogate must not follow a high surrogate.");
          }
          high_surrogate = true;
        } else if (code >= 0xDC00 && code <= 0xDFFF) {
          if (!high_surrogate) {
            stop_ = q;
            return Invalid("Unicode low surrogate must follow a high surrogate.");
          }
          high_surrogate = false;
        } else {
          if (high_surrogate) {
            stop_ = q;
            return Invalid("Unicode low surrogate must follow a high surrogate.");
          }
          if (code == 0 && for_jsonb_) {
            stop_ = q;
            untranslatable_ = true;
            return Invalid("\\u0000 cannot be converted to text.");
          }
        }
        continue;
      }
      if (high_surrogate) {
        stop_ = q + 1;
        return Invalid("Unicode low surrogate must follow a high surrogate.");
      }
      switch (*q) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
          ++q;
          continue;
        default: {
          const size_t len = CharLength(static_cast<unsigned char>(*q));
          stop_ = std::min(end_, q + len);
          return Invalid("Escape sequence \"\\" + std::string(q, stop_ - q) + "\" is invalid.");
        }
      }
    }
    if (high_surrogate) {
      stop_ = q;
      return Invalid("Unicode low surrogate must follow a high surrogate.");
    }
    stop_ = q + 1;
    p_ = stop_;
    return Tok::kString;
  }

  Tok LexNumber() {
    const char* q = p_;
    bool ok = true;
    if (*q == '-') ++q;
    if (q < end_ && *q == '0') {
      ++q;
    } else if (q < end_ && IsDigit(*q)) {
      while (q < end_ && IsDigit(*q)) ++q;
    } else {
      ok = false;
    }
    if (ok && q < end_ && *q == '.') {
      ++q;
      if (q < end_ && IsDigit(*q)) {
        while (q < end_ && IsDigit(*q)) ++q;
      } else {
        ok = false;
      }
    }
    if (ok && q < end_ && (*q == 'e' || *q == 'E')) {
      ++q;
      if (q < end_ && (*q == '+' || *q == '-')) ++q;
      if (q < end_ && IsDigit(*q)) {
        while (q < end_ && IsDigit(*q)) ++q;
      } else {
        ok = false;
      }
    }
    // As PostgreSQL: a number running into letters or digits is one bad token.
    if (!ok || (q < end_ && IsTokenChar(*q))) {
      while (q < end_ && IsTokenChar(*q)) ++q;
      stop_ = q;
      p_ = q;
      return Invalid(TokenInvalid());
    }
    stop_ = q;
    p_ = q;
    return Tok::kNumber;
  }

  int Line() const {
    return 1 + static_cast<int>(std::count(begin_, std::min(stop_, end_), '\n'));
  }

  // The line of the error up to the end of the bad token, at most about 50
  // bytes of it, with "..." where text was left out (report_json_context).
  std::string Context() const {
    const char* ctx_end = std::min(stop_, end_);
    const char* line_start = ctx_end;
    while (line_start > begin_ && line_start[-1] != '\n') --line_start;
    std::string prefix;
    if (ctx_end - line_start >= 50) {
      line_start = ctx_end - 50;
      while (line_start < ctx_end && (static_cast<unsigned char>(*line_start) & 0xC0) == 0x80) {
        ++line_start;
      }
      prefix = "...";
    }
    const bool more = ctx_end < end_ && *ctx_end != '\n' && *ctx_end != '\r';
    return prefix + std::string(line_start, ctx_end - line_start) + (more ? "..." : "");
  }

  const char* begin_;
  const char* p_;
  const char* end_;
  const char* start_ = nullptr;
  const char* stop_ = nullptr;
  bool for_jsonb_;
  bool has_escape_ = false;
  bool untranslatable_ = false;
  std::string detail_;
};

bool IsValueStart(Tok t) {
  return t == Tok::kObjectStart || t == Tok::kArrayStart || t == Tok::kString ||
         t == Tok::kNumber || t == Tok::kTrue || t == Tok::kFalse || t == Tok::kNull;
}

// Unescapes a lexed string token (quotes included) into `out`. The token
// passed the lexer, so its escapes are well formed.
void Unescape(std::string_view tok, std::string* out) {
  const char* p = tok.data() + 1;
  const char* end = tok.data() + tok.size() - 1;
  while (p < end) {
    const char* q = static_cast<const char*>(std::memchr(p, '\\', end - p));
    if (q == nullptr) {
      out->append(p, end - p);
      return;
    }
    out->append(p, q - p);
    p = q + 1;
    if (p >= end) return;
    const char e = *p++;
    switch (e) {
      case 'b': out->push_back('\b'); break;
      case 'f': out->push_back('\f'); break;
      case 'n': out->push_back('\n'); break;
      case 'r': out->push_back('\r'); break;
      case 't': out->push_back('\t'); break;
      case 'u': {
        auto hex4 = [&](const char* h) {
          int v = 0;
          for (int k = 0; k < 4; ++k) v = v * 16 + std::max(0, HexValue(h[k]));
          return v;
        };
        if (end - p < 4) return;
        uint32_t code = static_cast<uint32_t>(hex4(p));
        p += 4;
        if (code >= 0xD800 && code <= 0xDBFF && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
          const uint32_t low = static_cast<uint32_t>(hex4(p + 2));
          p += 6;
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        }
        AppendUtf8(out, static_cast<char32_t>(code));
        break;
      }
      default: out->push_back(e); break;  // " \ /
    }
  }
}

// ---- jsonb normal form -------------------------------------------------

class Normalizer {
 public:
  explicit Normalizer(std::string_view text) : lex_(text, /*for_jsonb=*/true) {}

  Status Run(std::string* out) {
    Tok t = lex_.Next();
    QUIVER_RETURN_NOT_OK(Value(t, 0, out));
    t = lex_.Next();
    if (t != Tok::kEnd) return lex_.Unexpected(t, "end of input");
    return Status::OK();
  }

 private:
  Status Value(Tok t, int depth, std::string* out) {
    switch (t) {
      case Tok::kString: {
        std::string s;
        Unescape(lex_.token(), &s);
        AppendQuoted(s, out);
        return Status::OK();
      }
      case Tok::kNumber:
        out->append(NumericText(lex_.token()));
        return Status::OK();
      case Tok::kTrue:
        out->append("true");
        return Status::OK();
      case Tok::kFalse:
        out->append("false");
        return Status::OK();
      case Tok::kNull:
        out->append("null");
        return Status::OK();
      case Tok::kArrayStart:
        return Array(depth + 1, out);
      case Tok::kObjectStart:
        return Object(depth + 1, out);
      default:
        return lex_.Unexpected(t, "JSON value");
    }
  }

  Status CheckDepth(int depth) {
    if (depth > kMaxDepth) {
      return Status::Invalid("stack depth limit exceeded")
          .WithSqlState("54001")
          .WithDetail("jsonb nests deeper than " + std::to_string(kMaxDepth) + " levels.");
    }
    return Status::OK();
  }

  Status Array(int depth, std::string* out) {
    QUIVER_RETURN_NOT_OK(CheckDepth(depth));
    out->push_back('[');
    Tok t = lex_.Next();
    if (t == Tok::kArrayEnd) {
      out->push_back(']');
      return Status::OK();
    }
    while (true) {
      if (!IsValueStart(t)) return lex_.Unexpected(t, "array element or \"]\"");
      QUIVER_RETURN_NOT_OK(Value(t, depth, out));
      t = lex_.Next();
      if (t == Tok::kArrayEnd) break;
      if (t != Tok::kComma) return lex_.Unexpected(t, "\",\" or \"]\"");
      out->append(", ");
      t = lex_.Next();
      if (!IsValueStart(t)) return lex_.Unexpected(t, "JSON value");
    }
    out->push_back(']');
    return Status::OK();
  }

  Status Object(int depth, std::string* out) {
    QUIVER_RETURN_NOT_OK(CheckDepth(depth));
    struct Member {
      std::string key;
      std::string value;
    };
    std::vector<Member> members;
    Tok t = lex_.Next();
    if (t != Tok::kObjectEnd) {
      while (true) {
        if (t != Tok::kString) {
          return lex_.Unexpected(t, members.empty() ? "string or \"}\"" : "string");
        }
        Member m;
        Unescape(lex_.token(), &m.key);
        t = lex_.Next();
        if (t != Tok::kColon) return lex_.Unexpected(t, "\":\"");
        t = lex_.Next();
        if (!IsValueStart(t)) return lex_.Unexpected(t, "JSON value");
        QUIVER_RETURN_NOT_OK(Value(t, depth, &m.value));
        members.push_back(std::move(m));
        t = lex_.Next();
        if (t == Tok::kObjectEnd) break;
        if (t != Tok::kComma) return lex_.Unexpected(t, "\",\" or \"}\"");
        t = lex_.Next();
      }
    }
    // jsonb's key order: shorter keys first, then bytewise; of equal keys
    // the last written wins (stable sort keeps them in input order).
    std::stable_sort(members.begin(), members.end(), [](const Member& a, const Member& b) {
      if (a.key.size() != b.key.size()) return a.key.size() < b.key.size();
      return std::memcmp(a.key.data(), b.key.data(), a.key.size()) < 0;
    });
    out->push_back('{');
    bool first = true;
    for (size_t i = 0; i < members.size(); ++i) {
      if (i + 1 < members.size() && members[i + 1].key == members[i].key) continue;
      if (!first) out->append(", ");
      first = false;
      AppendQuoted(members[i].key, out);
      out->append(": ");
      out->append(members[i].value);
    }
    out->push_back('}');
    return Status::OK();
  }

  Lexer lex_;
};

// ---- navigation over valid text ----------------------------------------

// A forward cursor; every step checks bounds and reports malformed text.
// The bytes that end a number or literal when skipping one: blanks and
// , } ] :
struct ScalarEnds {
  bool table[256] = {};
  constexpr ScalarEnds() {
    for (const char c : {' ', '\t', '\n', '\r', ',', '}', ']', ':'}) {
      table[static_cast<unsigned char>(c)] = true;
    }
  }
  constexpr bool operator[](unsigned char c) const { return table[c]; }
};
constexpr ScalarEnds kEndsScalar;

class Cursor {
 public:
  Cursor(const char* p, const char* end) : p_(p), end_(end) {}

  QUIVER_JSON_INLINE void SkipBlanks() {
    while (p_ < end_ && static_cast<unsigned char>(*p_) <= ' ' && IsBlank(*p_)) ++p_;
  }
  bool AtEnd() const { return p_ >= end_; }
  char Peek() const { return p_ < end_ ? *p_ : '\0'; }
  QUIVER_JSON_INLINE bool Consume(char c) {
    SkipBlanks();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  const char* pos() const { return p_; }

  // Past a string token starting at the quote; sets *escaped when it holds
  // a backslash.
  QUIVER_JSON_INLINE bool SkipString(bool* escaped) {
    if (p_ >= end_ || *p_ != '"') return false;
    ++p_;
    *escaped = false;
    while (p_ < end_) {
      const char* q = ScanString(p_, end_);
      if (q >= end_) return false;
      if (*q == '"') {
        p_ = q + 1;
        return true;
      }
      if (*q == '\\') {
        *escaped = true;
        p_ = q + 2;
      } else {
        p_ = q + 1;  // a control byte (not in valid text): passed over
      }
    }
    return false;
  }

  // Past one value (after blanks); [*begin, *end) is its text.
  bool SkipValue(const char** begin, const char** end) {
    SkipBlanks();
    if (p_ >= end_) return false;
    *begin = p_;
    const char c = *p_;
    if (c == '"') {
      bool escaped;
      if (!SkipString(&escaped)) return false;
    } else if (c == '{' || c == '[') {
      const char* q = SkipContainer(p_, end_);
      if (q == nullptr) return false;
      p_ = q;
    } else {
      while (p_ < end_ && !kEndsScalar[static_cast<unsigned char>(*p_)]) ++p_;
      if (p_ == *begin) return false;
    }
    *end = p_;
    return true;
  }

 private:
  const char* p_;
  const char* end_;
};

std::string_view Span(const char* b, const char* e) {
  return std::string_view(b, static_cast<size_t>(e - b));
}

QUIVER_JSON_INLINE bool KeyEquals(std::string_view tok, bool escaped, std::string_view key) {
  if (!escaped) return tok.size() == key.size() + 2 && tok.substr(1, key.size()) == key;
  std::string k;
  Unescape(tok, &k);
  return k == key;
}

// Calls fn(key token, escaped, value begin, value end) for each member;
// false on malformed text or when `json` is not an object.
template <typename Fn>
bool ForEachMember(std::string_view json, Fn&& fn) {
  Cursor c(json.data(), json.data() + json.size());
  if (!c.Consume('{')) return false;
  if (c.Consume('}')) return true;
  while (true) {
    c.SkipBlanks();
    const char* kb = c.pos();
    bool escaped;
    if (!c.SkipString(&escaped)) return false;
    const std::string_view key = Span(kb, c.pos());
    if (!c.Consume(':')) return false;
    const char* vb;
    const char* ve;
    if (!c.SkipValue(&vb, &ve)) return false;
    if (!fn(key, escaped, vb, ve)) return true;  // stop early
    if (c.Consume(',')) continue;
    return c.Consume('}');
  }
}

template <typename Fn>
bool ForEachElement(std::string_view json, Fn&& fn) {
  Cursor c(json.data(), json.data() + json.size());
  if (!c.Consume('[')) return false;
  if (c.Consume(']')) return true;
  while (true) {
    const char* vb;
    const char* ve;
    if (!c.SkipValue(&vb, &ve)) return false;
    if (!fn(vb, ve)) return true;
    if (c.Consume(',')) continue;
    return c.Consume(']');
  }
}

}  // namespace

std::string_view TrimBlanks(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && IsBlank(s[b])) ++b;
  while (e > b && IsBlank(s[e - 1])) --e;
  return s.substr(b, e - b);
}

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kObject: return "object";
    case Kind::kArray: return "array";
    case Kind::kString: return "string";
    case Kind::kNumber: return "number";
    case Kind::kTrue:
    case Kind::kFalse: return "boolean";
    case Kind::kNull: return "null";
    case Kind::kInvalid: break;
  }
  return "invalid";
}

namespace {

// Validate's fast path: true when `text` is certainly one valid JSON value
// (for json and jsonb alike); false when the lexer must decide (an error,
// or what this path leaves to it: \u escapes, nesting deeper than 64). It
// accepts a subset of what Validate accepts, never more: strings with the
// one-character escapes, numbers and the three literals as the lexer reads
// them (not running into a letter or digit), blanks as JSON's four.
QUIVER_JSON_INLINE const char* QuickBlanks(const char* p, const char* end) {
  // Compact text has none: one comparison per token.
  while (p < end && static_cast<unsigned char>(*p) <= ' ' && IsBlank(*p)) ++p;
  return p;
}

// Past a string at its opening quote, or nullptr.
QUIVER_JSON_INLINE const char* QuickString(const char* p, const char* end) {
  ++p;
  while (true) {
    p = ScanString(p, end);
    if (p == end) return nullptr;
    if (*p == '"') return p + 1;
    if (*p != '\\' || p + 1 == end) return nullptr;
    switch (p[1]) {
      case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
        p += 2;
        break;
      default:
        return nullptr;  // \u (surrogates, \u0000 in jsonb) and bad escapes: the lexer's
    }
  }
}

QUIVER_JSON_INLINE const char* QuickDigits(const char* p, const char* end) {
  while (p < end && IsDigit(*p)) ++p;
  return p;
}

// Past a number (not running into a letter or digit), or nullptr.
QUIVER_JSON_INLINE const char* QuickNumber(const char* p, const char* end) {
  if (*p == '-') ++p;
  if (p == end || !IsDigit(*p)) return nullptr;
  p = *p == '0' ? p + 1 : QuickDigits(p, end);
  if (p < end && *p == '.') {
    ++p;
    if (p == end || !IsDigit(*p)) return nullptr;
    p = QuickDigits(p, end);
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p < end && (*p == '+' || *p == '-')) ++p;
    if (p == end || !IsDigit(*p)) return nullptr;
    p = QuickDigits(p, end);
  }
  return p == end || !IsTokenChar(*p) ? p : nullptr;
}

QUIVER_JSON_INLINE const char* QuickLiteral(const char* p, const char* end, std::string_view word) {
  if (static_cast<size_t>(end - p) < word.size() || std::memcmp(p, word.data(), word.size()) != 0) {
    return nullptr;
  }
  p += word.size();
  return p == end || !IsTokenChar(*p) ? p : nullptr;
}

// A member's key and colon, at the quote; past the colon, or nullptr.
QUIVER_JSON_INLINE const char* QuickKey(const char* p, const char* end) {
  if (p == end || *p != '"') return nullptr;
  p = QuickString(p, end);
  if (p == nullptr) return nullptr;
  p = QuickBlanks(p, end);
  return p < end && *p == ':' ? p + 1 : nullptr;
}

bool QuickValid(std::string_view text) {
  const char* p = text.data();
  const char* const end = p + text.size();
  char open[64];
  int depth = 0;
  while (true) {
    // A value.
    p = QuickBlanks(p, end);
    if (p == end) return false;
    bool after = true;
    switch (*p) {
      case '{':
        p = QuickBlanks(p + 1, end);
        if (p < end && *p == '}') {
          ++p;
          break;
        }
        if (depth == 64) return false;
        open[depth++] = '{';
        p = QuickKey(p, end);
        after = false;
        break;
      case '[':
        p = QuickBlanks(p + 1, end);
        if (p < end && *p == ']') {
          ++p;
          break;
        }
        if (depth == 64) return false;
        open[depth++] = '[';
        after = false;
        break;
      case '"': p = QuickString(p, end); break;
      case 't': p = QuickLiteral(p, end, "true"); break;
      case 'f': p = QuickLiteral(p, end, "false"); break;
      case 'n': p = QuickLiteral(p, end, "null"); break;
      default: p = QuickNumber(p, end); break;
    }
    if (p == nullptr) return false;
    if (!after) continue;
    // After a value: close containers, or go on to the next item.
    while (true) {
      p = QuickBlanks(p, end);
      if (depth == 0) return p == end;
      if (p == end) return false;
      const char c = *p++;
      if (open[depth - 1] == '{') {
        if (c == '}') {
          --depth;
          continue;
        }
        if (c != ',') return false;
        p = QuickKey(QuickBlanks(p, end), end);
        if (p == nullptr) return false;
        break;
      }
      if (c == ']') {
        --depth;
        continue;
      }
      if (c != ',') return false;
      break;
    }
  }
}

}  // namespace

Status Validate(std::string_view text, bool for_jsonb) {
  if (QuickValid(text)) return Status::OK();
  Lexer lex(text, for_jsonb);
  // The open containers: '{' or '['. Each loop turn expects a value.
  std::vector<char> open;
  Tok t = lex.Next();
  while (true) {
    // A value.
    if (t == Tok::kObjectStart) {
      t = lex.Next();
      if (t == Tok::kObjectEnd) {
        // empty object: fall through to "after a value"
      } else {
        if (t != Tok::kString) return lex.Unexpected(t, "string or \"}\"");
        t = lex.Next();
        if (t != Tok::kColon) return lex.Unexpected(t, "\":\"");
        open.push_back('{');
        t = lex.Next();
        if (!IsValueStart(t)) return lex.Unexpected(t, "JSON value");
        continue;
      }
    } else if (t == Tok::kArrayStart) {
      t = lex.Next();
      if (t != Tok::kArrayEnd) {
        if (!IsValueStart(t)) return lex.Unexpected(t, "array element or \"]\"");
        open.push_back('[');
        continue;
      }
    } else if (!IsValueStart(t)) {
      return lex.Unexpected(t, "JSON value");
    }
    // After a value: close containers or go on to the next item.
    while (true) {
      t = lex.Next();
      if (open.empty()) {
        if (t != Tok::kEnd) return lex.Unexpected(t, "end of input");
        return Status::OK();
      }
      if (open.back() == '{') {
        if (t == Tok::kObjectEnd) {
          open.pop_back();
          continue;
        }
        if (t != Tok::kComma) return lex.Unexpected(t, "\",\" or \"}\"");
        t = lex.Next();
        if (t != Tok::kString) return lex.Unexpected(t, "string");
        t = lex.Next();
        if (t != Tok::kColon) return lex.Unexpected(t, "\":\"");
        t = lex.Next();
        if (!IsValueStart(t)) return lex.Unexpected(t, "JSON value");
        break;
      }
      if (t == Tok::kArrayEnd) {
        open.pop_back();
        continue;
      }
      if (t != Tok::kComma) return lex.Unexpected(t, "\",\" or \"]\"");
      t = lex.Next();
      if (!IsValueStart(t)) return lex.Unexpected(t, "JSON value");
      break;
    }
  }
}

namespace {

// jsonb's normal form of text that QuickValid accepted (valid, no \u
// escapes, at most 64 deep), without the lexer's checks and without an
// allocation per value: each object level keeps its members' keys and
// values in a frame reused from row to row. Gives what Normalizer gives.
class QuickNormalizer {
 public:
  QuickNormalizer(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  void Run(std::string* out) { Value(0, out); }

 private:
  struct Member {
    const char* token;  // the key as written, quotes included
    uint32_t token_len;
    bool escaped;
    uint32_t key_off, key_len;  // unescaped key: in the token, or in Frame::keys
    uint32_t value_off, value_len;  // in Frame::values
  };
  struct Frame {
    std::vector<Member> members;
    std::vector<uint32_t> order;
    std::string keys;
    std::string values;
  };

  static Frame& FrameAt(int depth) {
    thread_local std::vector<std::unique_ptr<Frame>> frames;
    while (static_cast<int>(frames.size()) <= depth) frames.push_back(std::make_unique<Frame>());
    return *frames[depth];
  }

  void Value(int depth, std::string* out) {
    p_ = QuickBlanks(p_, end_);
    const char* b = p_;
    switch (*p_) {
      case '{': Object(depth, out); return;
      case '[': Array(depth, out); return;
      case '"':
        p_ = QuickString(p_, end_);
        AppendString(std::string_view(b, p_ - b), out);
        return;
      case 't': out->append("true"); p_ += 4; return;
      case 'f': out->append("false"); p_ += 5; return;
      case 'n': out->append("null"); p_ += 4; return;
      default: break;
    }
    p_ = QuickNumber(p_, end_);
    const std::string_view num(b, p_ - b);
    // numeric prints a plain number as written (JSON has no leading zeros),
    // except a negative zero; exponents it expands.
    bool plain = true, nonzero = false;
    for (char c : num) {
      plain = plain && c != 'e' && c != 'E';
      nonzero = nonzero || (c >= '1' && c <= '9');
    }
    if (plain && (num[0] != '-' || nonzero)) {
      out->append(num);
    } else {
      out->append(NumericText(num));
    }
  }

  // A string token: as written unless it holds an escape (only \/ is
  // written differently, but re-escaping is simplest and rare).
  static void AppendString(std::string_view tok, std::string* out) {
    if (std::memchr(tok.data(), '\\', tok.size()) == nullptr) {
      out->append(tok);
      return;
    }
    std::string s;
    Unescape(tok, &s);
    AppendQuoted(s, out);
  }

  void Array(int depth, std::string* out) {
    out->push_back('[');
    p_ = QuickBlanks(p_ + 1, end_);
    if (*p_ == ']') {
      ++p_;
      out->push_back(']');
      return;
    }
    while (true) {
      Value(depth + 1, out);
      p_ = QuickBlanks(p_, end_);
      if (*p_++ == ']') break;
      out->append(", ");
    }
    out->push_back(']');
  }

  void Object(int depth, std::string* out) {
    p_ = QuickBlanks(p_ + 1, end_);
    if (*p_ == '}') {
      ++p_;
      out->append("{}");
      return;
    }
    Frame& f = FrameAt(depth);
    f.members.clear();
    f.keys.clear();
    f.values.clear();
    while (true) {
      p_ = QuickBlanks(p_, end_);
      const char* kb = p_;
      p_ = QuickString(p_, end_);
      Member m;
      m.token = kb;
      m.token_len = static_cast<uint32_t>(p_ - kb);
      m.escaped = std::memchr(kb, '\\', m.token_len) != nullptr;
      if (m.escaped) {
        m.key_off = static_cast<uint32_t>(f.keys.size());
        Unescape(std::string_view(kb, m.token_len), &f.keys);
        m.key_len = static_cast<uint32_t>(f.keys.size() - m.key_off);
      } else {
        m.key_off = 1;
        m.key_len = m.token_len - 2;
      }
      p_ = QuickBlanks(p_, end_) + 1;  // the colon
      m.value_off = static_cast<uint32_t>(f.values.size());
      Value(depth + 1, &f.values);
      m.value_len = static_cast<uint32_t>(f.values.size() - m.value_off);
      f.members.push_back(m);
      p_ = QuickBlanks(p_, end_);
      if (*p_++ == '}') break;
    }
    auto key = [&f](const Member& m) {
      return m.escaped ? std::string_view(f.keys.data() + m.key_off, m.key_len)
                       : std::string_view(m.token + m.key_off, m.key_len);
    };
    // jsonb's key order: shorter keys first, then bytewise; of equal keys
    // the last written wins (a stable sort keeps them in input order).
    auto less = [&](uint32_t a, uint32_t b) {
      const std::string_view ka = key(f.members[a]), kb = key(f.members[b]);
      if (ka.size() != kb.size()) return ka.size() < kb.size();
      return std::memcmp(ka.data(), kb.data(), ka.size()) < 0;
    };
    const uint32_t n = static_cast<uint32_t>(f.members.size());
    f.order.resize(n);
    for (uint32_t i = 0; i < n; ++i) f.order[i] = i;
    if (!std::is_sorted(f.order.begin(), f.order.end(), less)) {
      std::stable_sort(f.order.begin(), f.order.end(), less);
    }
    out->push_back('{');
    bool first = true;
    for (uint32_t i = 0; i < n; ++i) {
      const Member& m = f.members[f.order[i]];
      if (i + 1 < n && key(f.members[f.order[i + 1]]) == key(m)) continue;
      if (!first) out->append(", ");
      first = false;
      if (m.escaped) {
        AppendQuoted(key(m), out);
      } else {
        out->append(m.token, m.token_len);
      }
      out->append(": ");
      out->append(f.values, m.value_off, m.value_len);
    }
    out->push_back('}');
  }

  const char* p_;
  const char* end_;
};

}  // namespace

Status ToJsonb(std::string_view text, std::string* out) {
  out->clear();
  if (QuickValid(text)) {
    QuickNormalizer(text).Run(out);
    return Status::OK();
  }
  Normalizer n(text);
  return n.Run(out);
}

Result<bool> JsonbFieldOfText(std::string_view text, std::string_view key, std::string* out) {
  std::string_view field;
  if (QuickValid(text)) {
    // Valid, shallow and without \u escapes: jsonb of the text could not
    // fail, and its field `key` is the normal form of the last of the
    // text's equal keys (jsonb keeps the last), so only that value is
    // normalised.
    if (!ObjectField(text, key, &field)) return false;
    QUIVER_RETURN_NOT_OK(ToJsonb(field, out));
    return true;
  }
  // The cast's errors and limits exactly: normalise the whole text.
  std::string doc;
  QUIVER_RETURN_NOT_OK(ToJsonb(text, &doc));
  if (!ObjectField(doc, key, &field)) return false;
  out->assign(field);
  return true;
}

Kind KindOf(std::string_view value) {
  value = TrimBlanks(value);
  if (value.empty()) return Kind::kInvalid;
  switch (value[0]) {
    case '{': return Kind::kObject;
    case '[': return Kind::kArray;
    case '"': return Kind::kString;
    case 't': return Kind::kTrue;
    case 'f': return Kind::kFalse;
    case 'n': return Kind::kNull;
    default: break;
  }
  if (value[0] == '-' || IsDigit(value[0])) return Kind::kNumber;
  return Kind::kInvalid;
}

namespace {

// ObjectField member by member (the fast path's fallback).
bool ObjectFieldByMembers(std::string_view json, std::string_view key, std::string_view* out) {
  bool found = false;
  const bool ok = ForEachMember(json, [&](std::string_view k, bool escaped, const char* vb,
                                          const char* ve) {
    if (KeyEquals(k, escaped, key)) {
      *out = Span(vb, ve);
      found = true;
    }
    return true;  // later duplicates win, as in PostgreSQL's json operators
  });
  return ok && found;
}

}  // namespace

// 64 bytes a step (ScanContainer): only the object's own colons are looked
// at; the key before each is the string that ends just before it.
bool ObjectField(std::string_view json, std::string_view key, std::string_view* out) {
  const char* const end = json.data() + json.size();
  Cursor c(json.data(), end);
  c.SkipBlanks();
  if (c.Peek() != '{') return false;
  const char* const start = c.pos();
  const char* value = nullptr;
  bool fallback = false;
  const char* close = ScanContainer<true>(
      start, end, [&](const char* colon, uint64_t quotes, uint64_t previous_quotes,
                      uint64_t backslashes, uint64_t previous_backslashes, const char* block) {
        const char* q = colon - 1;
        while (q > start && IsBlank(*q)) --q;
        if (q <= start || *q != '"') {
          fallback = true;
          return false;
        }
        // The key's opening quote: the last quote before its closing one,
        // in this block or the one before (else the member-by-member path).
        const int64_t rel = (q - block) + 64;  // bit of q in previous:this
        if (rel < 0) {
          fallback = true;
          return false;
        }
        const char* open = nullptr;
        if (rel >= 64) {
          const uint64_t below = quotes & ((uint64_t{1} << (rel - 64)) - 1);
          if (below != 0) open = block + (63 - __builtin_clzll(below));
        }
        if (open == nullptr) {
          const uint64_t below =
              rel >= 64 ? previous_quotes : previous_quotes & ((uint64_t{1} << rel) - 1);
          if (below != 0) open = block - 64 + (63 - __builtin_clzll(below));
        }
        if (open == nullptr || open <= start) {
          fallback = true;
          return false;
        }
        const std::string_view tok = Span(open, q + 1);
        // Unescaped, the key must have key's length; an escaped key may be
        // longer than the text it stands for, never shorter.
        if (tok.size() < key.size() + 2) return true;
        const bool escaped = (backslashes != 0 || previous_backslashes != 0) &&
                             std::memchr(open, '\\', tok.size()) != nullptr;
        if (KeyEquals(tok, escaped, key)) value = colon + 1;  // the last one wins
        return true;
      });
  if (fallback) return ObjectFieldByMembers(json, key, out);
  if (close == nullptr || value == nullptr) return false;
  Cursor v(value, close - 1);
  const char* vb;
  const char* ve;
  if (!v.SkipValue(&vb, &ve)) return false;
  *out = Span(vb, ve);
  return true;
}

bool ArrayElement(std::string_view json, int64_t index, std::string_view* out) {
  if (index < 0) {
    std::vector<std::string_view> all;
    if (!ArrayElements(json, &all)) return false;
    const int64_t n = static_cast<int64_t>(all.size());
    if (-index > n) return false;
    *out = all[n + index];
    return true;
  }
  int64_t i = 0;
  bool found = false;
  const bool ok = ForEachElement(json, [&](const char* vb, const char* ve) {
    if (i++ == index) {
      *out = Span(vb, ve);
      found = true;
      return false;
    }
    return true;
  });
  return ok && found;
}

bool PathStep(std::string_view json, std::string_view step, std::string_view* out) {
  const Kind k = KindOf(json);
  if (k == Kind::kObject) return ObjectField(json, step, out);
  if (k != Kind::kArray) return false;
  // PostgreSQL parses the step with strtol: an optional sign and digits, the
  // whole step (leading blanks allowed).
  std::string_view s = step;
  while (!s.empty() && (s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r' ||
                        s[0] == '\f' || s[0] == '\v')) {
    s.remove_prefix(1);
  }
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || s.size() > 18) return false;
  int64_t v = 0;
  for (char c : s) {
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  return ArrayElement(json, neg ? -v : v, out);
}

Result<bool> ValueText(std::string_view value, std::string* out) {
  value = TrimBlanks(value);
  out->clear();
  const Kind k = KindOf(value);
  if (k == Kind::kNull) return false;
  if (k != Kind::kString) {
    out->assign(value);
    return true;
  }
  if (value.find("\\u0000") != std::string_view::npos) {
    // Only a real \u0000 escape (not an escaped backslash before "u0000").
    for (size_t i = 1; i + 1 < value.size(); ++i) {
      if (value[i] != '\\') continue;
      if (value[i + 1] == 'u' && value.substr(i + 2, 4) == "0000") {
        return Status::Invalid("unsupported Unicode escape sequence")
            .WithSqlState(kUntranslatableCharacter)
            .WithDetail("\\u0000 cannot be converted to text.");
      }
      ++i;
    }
  }
  Unescape(value, out);
  return true;
}

void AppendQuoted(std::string_view s, std::string* out) {
  out->push_back('"');
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default: {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out->append(buf);
      }
    }
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

bool ArrayElements(std::string_view json, std::vector<std::string_view>* out) {
  out->clear();
  return ForEachElement(json, [&](const char* vb, const char* ve) {
    out->push_back(Span(vb, ve));
    return true;
  });
}

bool ObjectMembers(std::string_view json, std::vector<std::string>* keys,
                   std::vector<std::string_view>* values) {
  keys->clear();
  values->clear();
  return ForEachMember(json, [&](std::string_view k, bool, const char* vb, const char* ve) {
    std::string key;
    Unescape(k, &key);
    keys->push_back(std::move(key));
    values->push_back(Span(vb, ve));
    return true;
  });
}

namespace {

bool NumbersEqual(std::string_view a, std::string_view b) {
  if (a == b) return true;
  const std::string x = NumericText(a), y = NumericText(b);
  // Equal values print with different scales ("1.0", "1"): compare with the
  // trailing fractional zeros removed.
  auto strip = [](std::string s) {
    if (s.find('.') != std::string::npos) {
      while (!s.empty() && s.back() == '0') s.pop_back();
      if (!s.empty() && s.back() == '.') s.pop_back();
    }
    return s;
  };
  return strip(x) == strip(y);
}

bool StringsEqual(std::string_view a, std::string_view b) {
  if (a == b) return true;
  std::string x, y;
  Unescape(a, &x);
  Unescape(b, &y);
  return x == y;
}

bool ContainsValue(std::string_view a, std::string_view b, bool top);

bool ScalarsEqual(std::string_view a, std::string_view b) {
  const Kind ka = KindOf(a), kb = KindOf(b);
  if (ka != kb) return false;
  if (ka == Kind::kNumber) return NumbersEqual(a, b);
  if (ka == Kind::kString) return StringsEqual(a, b);
  return true;  // true / false / null
}

bool ContainsValue(std::string_view a, std::string_view b, bool top) {
  a = TrimBlanks(a);
  b = TrimBlanks(b);
  const Kind ka = KindOf(a), kb = KindOf(b);
  if (ka == Kind::kObject) {
    if (kb != Kind::kObject) return false;
    std::vector<std::string> bkeys;
    std::vector<std::string_view> bvals;
    if (!ObjectMembers(b, &bkeys, &bvals)) return false;
    for (size_t i = 0; i < bkeys.size(); ++i) {
      std::string_view av;
      if (!ObjectField(a, bkeys[i], &av)) return false;
      const Kind kav = KindOf(av), kbv = KindOf(bvals[i]);
      // A nested value must be of the same kind (no array-contains-scalar
      // below the top level).
      if ((kav == Kind::kObject || kav == Kind::kArray || kbv == Kind::kObject ||
           kbv == Kind::kArray) &&
          kav != kbv) {
        return false;
      }
      if (!ContainsValue(av, bvals[i], false)) return false;
    }
    return true;
  }
  if (ka == Kind::kArray) {
    std::vector<std::string_view> aels;
    if (!ArrayElements(a, &aels)) return false;
    if (kb != Kind::kArray) {
      // The top-level special case: an array contains a primitive.
      if (!top || kb == Kind::kObject) return false;
      for (auto e : aels) {
        if (ScalarsEqual(e, b)) return true;
      }
      return false;
    }
    std::vector<std::string_view> bels;
    if (!ArrayElements(b, &bels)) return false;
    for (auto be : bels) {
      const Kind kbe = KindOf(be);
      bool found = false;
      for (auto ae : aels) {
        const Kind kae = KindOf(ae);
        if (kbe == Kind::kObject || kbe == Kind::kArray) {
          if (kae == kbe && ContainsValue(ae, be, false)) found = true;
        } else if (ScalarsEqual(ae, be)) {
          found = true;
        }
        if (found) break;
      }
      if (!found) return false;
    }
    return true;
  }
  if (kb == Kind::kObject || kb == Kind::kArray) return false;
  return ScalarsEqual(a, b);
}

bool EqualValues(std::string_view a, std::string_view b) {
  const Kind ka = KindOf(a), kb = KindOf(b);
  if (ka != kb) return false;
  if (ka == Kind::kObject) {
    std::vector<std::string> akeys, bkeys;
    std::vector<std::string_view> avals, bvals;
    if (!ObjectMembers(a, &akeys, &avals) || !ObjectMembers(b, &bkeys, &bvals)) return false;
    if (akeys.size() != bkeys.size()) return false;
    for (size_t i = 0; i < bkeys.size(); ++i) {
      std::string_view av;
      if (!ObjectField(a, bkeys[i], &av) || !EqualValues(av, bvals[i])) return false;
    }
    return true;
  }
  if (ka == Kind::kArray) {
    std::vector<std::string_view> ae, be;
    if (!ArrayElements(a, &ae) || !ArrayElements(b, &be) || ae.size() != be.size()) return false;
    for (size_t i = 0; i < ae.size(); ++i) {
      if (!EqualValues(ae[i], be[i])) return false;
    }
    return true;
  }
  return ScalarsEqual(a, b);
}

}  // namespace

bool Contains(std::string_view a, std::string_view b) { return ContainsValue(a, b, true); }

bool Equal(std::string_view a, std::string_view b) {
  if (a == b) return true;
  return EqualValues(TrimBlanks(a), TrimBlanks(b));
}

bool HasKey(std::string_view json, std::string_view key) {
  json = TrimBlanks(json);
  switch (KindOf(json)) {
    case Kind::kObject: {
      std::string_view v;
      return ObjectField(json, key, &v);
    }
    case Kind::kArray: {
      bool found = false;
      ForEachElement(json, [&](const char* vb, const char* ve) {
        const std::string_view e = Span(vb, ve);
        if (KindOf(e) == Kind::kString) {
          std::string s;
          Unescape(e, &s);
          if (s == key) found = true;
        }
        return !found;
      });
      return found;
    }
    case Kind::kString: {
      std::string s;
      Unescape(json, &s);
      return s == key;
    }
    default:
      return false;
  }
}

std::string NumericText(std::string_view num) {
  // numeric_in's reading: sign, digits with an optional point, exponent;
  // the display scale is the fraction's digits less the exponent (>= 0),
  // so the value prints exactly, without rounding.
  size_t i = 0;
  bool neg = false;
  if (i < num.size() && num[i] == '-') {
    neg = true;
    ++i;
  }
  std::string digits;
  int64_t int_len = 0, frac_len = 0;
  while (i < num.size() && IsDigit(num[i])) {
    digits.push_back(num[i++]);
    ++int_len;
  }
  if (i < num.size() && num[i] == '.') {
    ++i;
    while (i < num.size() && IsDigit(num[i])) {
      digits.push_back(num[i++]);
      ++frac_len;
    }
  }
  int64_t exp = 0;
  if (i < num.size() && (num[i] == 'e' || num[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < num.size() && (num[i] == '+' || num[i] == '-')) eneg = num[i++] == '-';
    while (i < num.size() && IsDigit(num[i])) {
      if (exp < 100000000) exp = exp * 10 + (num[i] - '0');
      ++i;
    }
    if (eneg) exp = -exp;
  }
  if (exp > 100000 || exp < -100000) return std::string(num);  // beyond numeric; keep as written
  const int64_t len = static_cast<int64_t>(digits.size());
  const int64_t point = int_len + exp;  // digits before the decimal point
  const int64_t scale = std::max<int64_t>(0, frac_len - exp);
  std::string ip, fp;
  if (point <= 0) {
    ip = "0";
    fp = std::string(static_cast<size_t>(-point), '0') + digits;
  } else if (point >= len) {
    ip = digits + std::string(static_cast<size_t>(point - len), '0');
  } else {
    ip = digits.substr(0, point);
    fp = digits.substr(point);
  }
  fp.resize(static_cast<size_t>(scale), '0');
  size_t nz = 0;
  while (nz + 1 < ip.size() && ip[nz] == '0') ++nz;
  ip.erase(0, nz);
  bool zero = true;
  for (char c : ip + fp) zero = zero && c == '0';
  std::string out = (neg && !zero) ? "-" : "";
  out += ip;
  if (!fp.empty()) out += "." + fp;
  return out;
}

}  // namespace quiver::json
