// PostgreSQL's regular expressions on RE2 (Debian's libre2).
//
// PostgreSQL speaks Henry Spencer's "advanced regular expressions" (ARE);
// RE2 speaks a Perl-like syntax without backtracking. TranslateToRe2
// rewrites an ARE into RE2's syntax where the two mean the same, and refuses
// what RE2 cannot do (back-references, lookaround, \m \M, collating elements)
// with an error rather than matching differently:
//
//   ARE                     RE2
//   \b (backspace) \B (\)   \x08  \\          (in an ARE \b is not a word boundary)
//   \y \Y (word boundary)   \b \B
//   \Z (end of text)        \z
//   \uXXXX \UXXXXXXXX \xHH  \x{...}
//   \w \s [[:alpha:]] ...   the C library's C.UTF-8 classes, spelled as code
//                           point ranges (PostgreSQL in a UTF-8 locale asks
//                           iswalnum & co.; RE2's own classes are ASCII)
//   flags n / p / w / s     dot_nl, (?m), and [^...] made to miss newlines
//   flag x                  whitespace and #-comments removed here
//   flag q                  the whole pattern quoted
//
// Which match is found: an ARE whose quantifiers are all greedy finds the
// leftmost-longest match (POSIX), which is RE2's longest_match; one whose
// quantifiers are all non-greedy (and which has no alternation) finds the
// shortest, which RE2's leftmost-first search gives there. Mixing the two
// gives the whole expression the preference of its first quantifier in
// PostgreSQL, which RE2 cannot express: such patterns are refused when the
// extent of a match matters (regexp_replace, substring ...), and accepted
// when only "does it match" does (~, SIMILAR TO, regexp_like).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace re2 {
class RE2;
}

namespace quiver::regex {

struct RegexFlags {
  bool global = false;           // g
  bool case_insensitive = false;  // i (c turns it off)
  bool dot_matches_newline = true;  // not under n, m, p
  bool negated_class_newline = true;  // [^...] matches newline; not under n, m, p
  bool multiline_anchors = false;  // ^ and $ at line breaks: n, m, w
  bool expanded = false;  // x
  bool quote = false;     // q: the pattern is a literal string
};

// PostgreSQL's parse_re_flags: "invalid regular expression option" for an
// unknown letter; `function` ("regexp_like()") names the caller in the error
// for 'g' when `allow_global` is false.
Result<RegexFlags> ParseFlags(std::string_view flags, const char* function, bool allow_global);

// Whether the caller needs the extent of the match (which substring
// matched) or only whether there is one.
// kFirst: the caller built a pattern whose leftmost-first (Perl) match is
// PostgreSQL's; no check.
enum class MatchMode { kBoolean, kExtents, kFirst };

// The RE2 text for an ARE, with whether RE2 must search leftmost-longest.
struct Translated {
  std::string pattern;
  bool longest = true;
};
Result<Translated> TranslateToRe2(std::string_view pattern, const RegexFlags& flags, MatchMode mode);

// A compiled pattern. Patterns are compiled once per thread and kept in a
// small per-thread cache keyed by (pattern, flags, mode), so a kernel that
// sees the same constant pattern in every chunk compiles it once.
Result<std::shared_ptr<const re2::RE2>> Compile(std::string_view pattern, const RegexFlags& flags,
                                                MatchMode mode);

// PostgreSQL's similar_to_escape: a SQL SIMILAR TO pattern as an ARE
// (anchored at both ends; `escape` = nullopt is the default '\', "" none).
//
// With `for_substring`, the pattern is made for MatchMode::kFirst instead:
// PostgreSQL's ^(?:part1){1,1}?(part2){1,1}(?:part3)$ asks for the shortest
// part1 and then the longest part2, which a leftmost-first search gives when
// part1's quantifiers are non-greedy and part2's greedy; alternation in part1
// or part2 (where leftmost-first prefers the first alternative, not the
// shortest or longest) is refused.
Result<std::string> SimilarToRegex(std::string_view pattern, std::optional<std::string_view> escape,
                                   bool for_substring = false);

}  // namespace quiver::regex
