// PostgreSQL's ARE syntax translated for RE2 (see regex.h).
#include "functions/regex.h"

#include <locale.h>
#include <wctype.h>

#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include <re2/re2.h>

#include "common/utf8.h"

namespace quiver::regex {
namespace {

Status RegexError(const std::string& what) {
  return Status::Invalid("invalid regular expression: {}", what)
      .WithSqlState(sqlstate::kInvalidRegularExpression);
}

Status Refused(const std::string& what) {
  return Status::Unsupported("{} in regular expressions (RE2 cannot match them)", what)
      .WithSqlState(sqlstate::kFeatureNotSupported);
}

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAsciiAlnum(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

using Ranges = std::vector<std::pair<char32_t, char32_t>>;

locale_t Utf8Locale() {
  static const locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  return loc;
}

// The code points of a character class as the C library's C.UTF-8 locale
// classifies them (PostgreSQL with a libc UTF-8 locale asks the same
// functions), as ranges. Computed once per class and process.
Result<const Ranges*> ClassRanges(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, Ranges> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(name);
  if (it != cache.end()) return &it->second;
  using Pred = int (*)(wint_t, locale_t);
  Pred pred = nullptr;
  bool underscore = false;
  Ranges r;
  if (name == "alnum") pred = iswalnum_l;
  else if (name == "alpha") pred = iswalpha_l;
  else if (name == "blank") pred = iswblank_l;
  else if (name == "cntrl") pred = iswcntrl_l;
  else if (name == "graph") pred = iswgraph_l;
  else if (name == "lower") pred = iswlower_l;
  else if (name == "print") pred = iswprint_l;
  else if (name == "punct") pred = iswpunct_l;
  else if (name == "space") pred = iswspace_l;
  else if (name == "upper") pred = iswupper_l;
  else if (name == "word") {
    pred = iswalnum_l;
    underscore = true;
  } else if (name == "digit") {
    r = {{'0', '9'}};
  } else if (name == "xdigit") {
    r = {{'0', '9'}, {'A', 'F'}, {'a', 'f'}};
  } else if (name == "ascii") {
    r = {{0, 127}};
  } else {
    return RegexError("invalid character class");
  }
  if (pred != nullptr) {
    const locale_t loc = Utf8Locale();
    if (loc == static_cast<locale_t>(nullptr)) {
      return Status::Unsupported("character classes in regular expressions (the C library has no C.UTF-8 locale)");
    }
    for (char32_t c = 0; c <= 0x10FFFF; ++c) {
      if (c == 0xD800) c = 0xE000;  // surrogates are not characters
      const bool in = pred(static_cast<wint_t>(c), loc) != 0 || (underscore && c == '_');
      if (!in) continue;
      if (!r.empty() && r.back().second + 1 == c) {
        r.back().second = c;
      } else {
        r.emplace_back(c, c);
      }
    }
  }
  return &cache.emplace(name, std::move(r)).first->second;
}

void AppendCodePoint(std::string* out, char32_t c) {
  *out += fmt::format("\\x{{{:x}}}", static_cast<uint32_t>(c));
}

void AppendRanges(std::string* out, const Ranges& ranges) {
  for (const auto& [a, b] : ranges) {
    AppendCodePoint(out, a);
    if (b != a) {
      *out += '-';
      AppendCodePoint(out, b);
    }
  }
}

class Translator {
 public:
  Translator(std::string_view p, const RegexFlags& flags) : p_(p), flags_(flags) {}

  Status Run(std::string* out) {
    size_t i = 0;
    // The ARE director prefixes ***: (an ARE) and ***= (a literal string).
    if (p_.substr(0, 4) == "***:") {
      i = 4;
    } else if (p_.substr(0, 4) == "***=") {
      *out += RE2::QuoteMeta(re2::StringPiece(p_.data() + 4, p_.size() - 4));
      return Status::OK();
    }
    // Embedded options (?letters) at the start.
    if (p_.substr(i, 2) == "(?" && i + 2 < p_.size() && p_[i + 2] >= 'a' && p_[i + 2] <= 'z') {
      const size_t close = p_.find(')', i);
      if (close == std::string_view::npos) return RegexError("parentheses () not balanced");
      QUIVER_ASSIGN_OR_RAISE(flags_, ApplyFlagLetters(p_.substr(i + 2, close - i - 2), flags_));
      i = close + 1;
    }
    if (flags_.quote) {
      *out += RE2::QuoteMeta(re2::StringPiece(p_.data() + i, p_.size() - i));
      return Status::OK();
    }
    out_ = out;
    while (i < p_.size()) {
      const char c = p_[i];
      if (flags_.expanded && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')) {
        ++i;
        continue;
      }
      if (flags_.expanded && c == '#') {
        while (i < p_.size() && p_[i] != '\n') ++i;
        continue;
      }
      switch (c) {
        case '\\':
          QUIVER_RETURN_NOT_OK(Escape(&i, false));
          continue;
        case '[':
          QUIVER_RETURN_NOT_OK(Bracket(&i));
          continue;
        case '(':
          if (p_.substr(i, 2) == "(?") {
            if (p_.substr(i, 3) != "(?:") return Refused("lookahead and lookbehind constraints");
            *out_ += "(?:";
            i += 3;
            continue;
          }
          *out_ += '(';
          ++i;
          continue;
        case '*':
        case '+':
        case '?':
          *out_ += c;
          ++i;
          Quantified(&i);
          continue;
        case '{': {
          size_t j = i + 1;
          while (j < p_.size() && (IsDigit(p_[j]) || p_[j] == ',')) ++j;
          if (j < p_.size() && p_[j] == '}' && j > i + 1 && IsDigit(p_[i + 1])) {
            *out_ += p_.substr(i, j + 1 - i);
            i = j + 1;
            Quantified(&i);
            continue;
          }
          return RegexError("invalid repetition count(s)");
        }
        case '|':
          has_alternation_ = true;
          *out_ += c;
          ++i;
          continue;
        default:
          *out_ += c;
          ++i;
          continue;
      }
    }
    return Status::OK();
  }

  bool has_lazy() const { return has_lazy_; }
  bool has_greedy() const { return has_greedy_; }
  bool has_alternation() const { return has_alternation_; }
  const RegexFlags& flags() const { return flags_; }

  static Result<RegexFlags> ApplyFlagLetters(std::string_view letters, RegexFlags f) {
    for (char c : letters) {
      switch (c) {
        case 'g':
          f.global = true;
          break;
        case 'b':
          return Status::Unsupported("basic regular expressions (flag 'b')")
              .WithSqlState(sqlstate::kFeatureNotSupported);
        case 'c':
          f.case_insensitive = false;
          break;
        case 'e':
          // An ERE is an ARE without the escapes; those it has mean the same.
          break;
        case 'i':
          f.case_insensitive = true;
          break;
        case 'm':
        case 'n':
          f.dot_matches_newline = false;
          f.negated_class_newline = false;
          f.multiline_anchors = true;
          break;
        case 'p':
          f.dot_matches_newline = false;
          f.negated_class_newline = false;
          f.multiline_anchors = false;
          break;
        case 'q':
          f.quote = true;
          break;
        case 's':
          f.dot_matches_newline = true;
          f.negated_class_newline = true;
          f.multiline_anchors = false;
          break;
        case 't':
          f.expanded = false;
          break;
        case 'w':
          f.dot_matches_newline = true;
          f.negated_class_newline = true;
          f.multiline_anchors = true;
          break;
        case 'x':
          f.expanded = true;
          break;
        default:
          return Status::Invalid("invalid regular expression option: \"{}\"", std::string(1, c))
              .WithSqlState(sqlstate::kInvalidParameterValue);
      }
    }
    return f;
  }

 private:
  // After a quantifier: a following '?' makes it non-greedy.
  void Quantified(size_t* i) {
    if (*i < p_.size() && p_[*i] == '?') {
      *out_ += '?';
      ++*i;
      has_lazy_ = true;
    } else {
      has_greedy_ = true;
    }
  }

  // The code point of a character-entry escape at p_[*i] (just past the
  // backslash), or -1 when the escape is not one.
  Result<int64_t> CharEntry(size_t* i) {
    const char c = p_[*i];
    auto hex = [&](size_t max_digits) -> Result<int64_t> {
      size_t j = *i + 1;
      int64_t v = 0;
      while (j < p_.size() && j - (*i + 1) < max_digits && IsHex(p_[j])) {
        const char h = p_[j];
        v = v * 16 + (IsDigit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
        if (v > 0x10FFFF) return RegexError("invalid escape \\ sequence");
        ++j;
      }
      if (j == *i + 1) return RegexError("invalid escape \\ sequence");
      *i = j;
      return v;
    };
    switch (c) {
      case 'a': ++*i; return 0x07;
      case 'b': ++*i; return 0x08;
      case 'B': ++*i; return '\\';
      case 'e': ++*i; return 0x1B;
      case 'f': ++*i; return 0x0C;
      case 'n': ++*i; return 0x0A;
      case 'r': ++*i; return 0x0D;
      case 't': ++*i; return 0x09;
      case 'v': ++*i; return 0x0B;
      case 'c':
        if (*i + 1 >= p_.size()) return RegexError("invalid escape \\ sequence");
        *i += 2;
        return p_[*i - 1] & 0x1F;
      case 'u': return hex(4);
      case 'U': return hex(8);
      case 'x': return hex(SIZE_MAX);
      default: return -1;
    }
  }

  Status ClassEscape(char c, bool in_bracket) {
    const bool negated = c == 'D' || c == 'S' || c == 'W';
    if (negated && in_bracket) return Refused("\\D, \\S and \\W inside brackets");
    const char lower = static_cast<char>(c | 0x20);
    const char* name = lower == 'd' ? "digit" : lower == 's' ? "space" : "word";
    QUIVER_ASSIGN_OR_RAISE(const Ranges* ranges, ClassRanges(name));
    if (in_bracket) {
      AppendRanges(out_, *ranges);
      return Status::OK();
    }
    *out_ += negated ? "[^" : "[";
    AppendRanges(out_, *ranges);
    if (negated && !flags_.negated_class_newline) *out_ += "\\n";
    *out_ += ']';
    return Status::OK();
  }

  // *i at the backslash.
  Status Escape(size_t* i, bool in_bracket) {
    ++*i;
    if (*i >= p_.size()) return RegexError("invalid escape \\ sequence");
    const char c = p_[*i];
    QUIVER_ASSIGN_OR_RAISE(int64_t cp, CharEntry(i));
    if (cp >= 0) {
      if (cp == 0) return RegexError("invalid escape \\ sequence");
      AppendCodePoint(out_, static_cast<char32_t>(cp));
      return Status::OK();
    }
    switch (c) {
      case 'd': case 'D': case 's': case 'S': case 'w': case 'W':
        ++*i;
        return ClassEscape(c, in_bracket);
      default:
        break;
    }
    if (!in_bracket) {
      switch (c) {
        case 'A': ++*i; *out_ += "\\A"; return Status::OK();
        case 'Z': ++*i; *out_ += "\\z"; return Status::OK();
        case 'y': ++*i; *out_ += "\\b"; return Status::OK();
        case 'Y': ++*i; *out_ += "\\B"; return Status::OK();
        case 'm': case 'M': return Refused("the word constraints \\m and \\M");
        default: break;
      }
    }
    if (IsDigit(c)) return Refused("back-references and octal escapes");
    if (IsAsciiAlnum(c)) return RegexError("invalid escape \\ sequence");
    // Any other character stands for itself.
    const size_t at = *i;
    size_t next = at;
    const char32_t ch = DecodeUtf8(p_, &next);
    *i = next;
    if (ch == kInvalidUtf8) return RegexError("invalid escape \\ sequence");
    if (static_cast<unsigned char>(c) < 0x80) {
      *out_ += '\\';
      *out_ += c;
    } else {
      out_->append(p_.substr(at, next - at));
    }
    return Status::OK();
  }

  // *i at '['.
  Status Bracket(size_t* i) {
    ++*i;
    *out_ += '[';
    bool negated = false;
    if (*i < p_.size() && p_[*i] == '^') {
      negated = true;
      *out_ += '^';
      ++*i;
    }
    bool first = true;
    for (;;) {
      if (*i >= p_.size()) return RegexError("brackets [] not balanced");
      const char c = p_[*i];
      if (c == ']' && !first) {
        ++*i;
        break;
      }
      first = false;
      if (c == '[' && *i + 1 < p_.size() &&
          (p_[*i + 1] == ':' || p_[*i + 1] == '.' || p_[*i + 1] == '=')) {
        const char kind = p_[*i + 1];
        const size_t end = p_.find(std::string{kind, ']'}, *i + 2);
        if (end == std::string_view::npos) return RegexError("brackets [] not balanced");
        const std::string_view name = p_.substr(*i + 2, end - *i - 2);
        *i = end + 2;
        if (kind == ':') {
          QUIVER_ASSIGN_OR_RAISE(const Ranges* ranges, ClassRanges(std::string(name)));
          AppendRanges(out_, *ranges);
          continue;
        }
        // [.c.] and [=c=] of a single character are that character.
        size_t k = 0;
        const char32_t ch = DecodeUtf8(name, &k);
        if (name.empty() || ch == kInvalidUtf8 || k != name.size()) {
          return kind == '.' ? RegexError("invalid collating element")
                             : Refused("equivalence classes of several characters");
        }
        AppendCodePoint(out_, ch);
        continue;
      }
      if (c == '\\') {
        QUIVER_RETURN_NOT_OK(Escape(i, true));
        continue;
      }
      if (c == '[' || c == ']') {
        *out_ += '\\';
        *out_ += c;
        ++*i;
        continue;
      }
      *out_ += c;
      ++*i;
    }
    if (negated && !flags_.negated_class_newline) *out_ += "\\n";
    *out_ += ']';
    return Status::OK();
  }

  std::string_view p_;
  RegexFlags flags_;
  std::string* out_ = nullptr;
  bool has_lazy_ = false;
  bool has_greedy_ = false;
  bool has_alternation_ = false;
};

}  // namespace

Result<RegexFlags> ParseFlags(std::string_view flags, const char* function, bool allow_global) {
  QUIVER_ASSIGN_OR_RAISE(RegexFlags f, Translator::ApplyFlagLetters(flags, RegexFlags{}));
  if (f.global && !allow_global) {
    return Status::Invalid("{} does not support the \"global\" option", function)
        .WithSqlState(sqlstate::kInvalidParameterValue);
  }
  return f;
}

Result<Translated> TranslateToRe2(std::string_view pattern, const RegexFlags& flags, MatchMode mode) {
  Translated t;
  std::string body;
  Translator tr(pattern, flags);
  QUIVER_RETURN_NOT_OK(tr.Run(&body));
  if (tr.flags().multiline_anchors) t.pattern = "(?m)";
  t.pattern += body;
  if (mode == MatchMode::kExtents && tr.has_lazy()) {
    if (tr.has_greedy() || tr.has_alternation()) {
      return Status::Unsupported(
                 "regular expressions mixing non-greedy quantifiers with greedy ones or with "
                 "alternation when the extent of the match matters (PostgreSQL gives the whole "
                 "expression the preference of its first quantifier; RE2 cannot)")
          .WithSqlState(sqlstate::kFeatureNotSupported);
    }
    t.longest = false;
  } else {
    t.longest = mode == MatchMode::kExtents;
  }
  if (mode == MatchMode::kFirst) t.longest = false;
  return t;
}

Result<std::shared_ptr<const re2::RE2>> Compile(std::string_view pattern, const RegexFlags& flags,
                                                MatchMode mode) {
  // Flags that change the translation or the options, packed into the key.
  const char key_flags = static_cast<char>(
      (flags.case_insensitive ? 1 : 0) | (flags.dot_matches_newline ? 2 : 0) |
      (flags.negated_class_newline ? 4 : 0) | (flags.multiline_anchors ? 8 : 0) |
      (flags.expanded ? 16 : 0) | (flags.quote ? 32 : 0) | (mode == MatchMode::kExtents ? 64 : 0) |
      (mode == MatchMode::kFirst ? 128 : 0));
  std::string key;
  key.reserve(pattern.size() + 1);
  key += key_flags;
  key.append(pattern);
  thread_local std::unordered_map<std::string, std::shared_ptr<const re2::RE2>> cache;
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  QUIVER_ASSIGN_OR_RAISE(Translated t, TranslateToRe2(pattern, flags, mode));
  re2::RE2::Options options;
  options.set_log_errors(false);
  options.set_longest_match(t.longest);
  options.set_dot_nl(flags.dot_matches_newline);
  options.set_case_sensitive(!flags.case_insensitive);
  // Classes spelled as Unicode ranges make larger programs than RE2's 8 MiB default allows.
  options.set_max_mem(int64_t{64} << 20);
  auto re = std::make_shared<const re2::RE2>(t.pattern, options);
  if (!re->ok()) return RegexError(re->error());
  if (cache.size() >= 256) cache.clear();
  cache.emplace(std::move(key), re);
  return re;
}

Result<std::string> SimilarToRegex(std::string_view pattern, std::optional<std::string_view> escape,
                                   bool for_substring) {
  // PostgreSQL's similar_escape_internal: ^(?: ... )$ around the pattern,
  // % -> .*, _ -> ., ( -> (?:, the escape-double-quote separators split it
  // into ^(?:part1){1,1}?(part2){1,1}(?:part3)$ for substring.
  std::string_view esc = escape.has_value() ? *escape : std::string_view("\\");
  if (!esc.empty()) {
    size_t k = 0;
    const char32_t ch = DecodeUtf8(esc, &k);
    if (ch == kInvalidUtf8 || k != esc.size()) {
      return Status::Invalid("invalid escape string")
          .WithSqlState(sqlstate::kInvalidEscapeSequence)
          .WithHint("Escape string must be empty or one character.");
    }
  }
  std::string r = "^(?:";
  bool after_escape = false;
  bool in_class = false;
  int class_start = 0;
  int quotes = 0;
  size_t i = 0;
  while (i < pattern.size()) {
    const size_t at = i;
    DecodeUtf8(pattern, &i);
    const std::string_view ch = pattern.substr(at, i - at);
    const char c = ch.size() == 1 ? ch[0] : '\0';
    if (after_escape) {
      if (c == '"' && !in_class) {
        if (quotes == 0) {
          r += for_substring ? ")(" : "){1,1}?(";
        } else if (quotes == 1) {
          r += for_substring ? ")(?:" : "){1,1}(?:";
        } else {
          return Status::Invalid(
                     "SQL regular expression may not contain more than two escape-double-quote "
                     "separators")
              .WithSqlState("2200C");  // invalid_use_of_escape_character
        }
        ++quotes;
      } else {
        r += '\\';
        r.append(ch);
      }
      after_escape = false;
    } else if (!esc.empty() && ch == esc) {
      after_escape = true;
    } else if (in_class) {
      if (c == '\\') r += '\\';
      r.append(ch);
      if (c == ']' && class_start > 2) {
        in_class = false;
      } else if (c == '^') {
        ++class_start;
      } else {
        class_start = 3;
      }
    } else if (c == '[') {
      r += '[';
      in_class = true;
      class_start = 1;
    } else if (c == '%') {
      r += for_substring && quotes == 0 ? ".*?" : ".*";
    } else if (for_substring && quotes == 0 && (c == '*' || c == '+' || c == '?' || c == '}')) {
      r += c;
      r += '?';  // part1 matches as little as it can
    } else if (for_substring && quotes < 2 && c == '|') {
      return Status::Unsupported(
                 "alternation before the second escape-double-quote of a SUBSTRING ... SIMILAR "
                 "pattern (RE2 cannot give PostgreSQL's shortest / longest preferences)")
          .WithSqlState(sqlstate::kFeatureNotSupported);
    } else if (c == '_') {
      r += '.';
    } else if (c == '(') {
      r += "(?:";
    } else if (c == '\\' || c == '.' || c == '^' || c == '$') {
      r += '\\';
      r += c;
    } else {
      r.append(ch);
    }
  }
  r += ")$";
  return r;
}

}  // namespace quiver::regex
