// Regular expression functions and operators, as PostgreSQL 15 has them:
// ~ ~* !~ !~* (and SIMILAR TO, which the parser turns into ~ over
// similar_to_escape(pattern [, escape])), regexp_like, regexp_replace,
// regexp_count, regexp_instr, regexp_substr, substring(text from pattern)
// and substring(text similar pattern escape e), regexp_match,
// regexp_split_to_array, and the set-returning regexp_matches and
// regexp_split_to_table.
//
// Patterns are PostgreSQL's AREs translated for RE2 (functions/regex.h);
// a constant pattern is compiled once per thread, not per row. Positions
// (start, the results of regexp_instr) count characters, as PostgreSQL does
// in a UTF-8 database; the search itself runs over bytes.
#include "functions/families.h"

#include <re2/re2.h>

#include <optional>
#include <string>
#include <vector>

#include "common/utf8.h"
#include "functions/function.h"
#include "functions/kernel_util.h"
#include "functions/regex.h"
#include "functions/table_function.h"
#include "vector/sql_type.h"

namespace quiver {
namespace {

using kernels::ReadInt;

using kernels::StringAccess;
using kernels::ValidAccess;
using regex::MatchMode;
using regex::RegexFlags;

inline bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Byte offset of 0-based character `chars` (clamped to the end).
size_t ByteOfChar(std::string_view s, int64_t chars) {
  size_t i = 0;
  for (int64_t seen = 0; i < s.size(); ++i) {
    if (!IsContinuation(static_cast<unsigned char>(s[i]))) {
      if (seen == chars) return i;
      ++seen;
    }
  }
  return s.size();
}

int64_t CharCount(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += !IsContinuation(c);
  return n;
}

// The byte after the character at `pos` (size + 1 at the end: the search is over).
size_t NextChar(std::string_view s, size_t pos) {
  if (pos >= s.size()) return s.size() + 1;
  ++pos;
  while (pos < s.size() && IsContinuation(static_cast<unsigned char>(s[pos]))) ++pos;
  return pos;
}


Status InvalidParameter(const char* name, int64_t value) {
  return Status::Invalid("invalid value for parameter \"{}\": {}", name, value)
      .WithSqlState(sqlstate::kInvalidParameterValue);
}

// The compiled pattern of row i: rows of a constant pattern and flags share
// one (through Compile's per-thread cache, looked up once per chunk).
class PatternSource {
 public:
  PatternSource(const std::vector<VectorRef>& args, int pattern_arg, int flags_arg,
                const char* function, bool allow_global, MatchMode mode, RegexFlags base = {})
      : pattern_(args[static_cast<size_t>(pattern_arg)]),
        has_flags_(flags_arg >= 0),
        flags_(has_flags_ ? args[static_cast<size_t>(flags_arg)] : args[0]),
        function_(function),
        allow_global_(allow_global),
        mode_(mode),
        base_(base),
        constant_(pattern_.constant && (!has_flags_ || flags_.constant)) {}

  Result<const re2::RE2*> Get(int64_t i, RegexFlags* flags_out = nullptr) {
    if (constant_ && re_ != nullptr) {
      if (flags_out != nullptr) *flags_out = flags_value_;
      return re_.get();
    }
    RegexFlags f = base_;
    if (has_flags_) {
      QUIVER_ASSIGN_OR_RAISE(f, regex::ParseFlags(flags_(i), function_, allow_global_));
      f.case_insensitive = f.case_insensitive || base_.case_insensitive;
    }
    QUIVER_ASSIGN_OR_RAISE(re_, regex::Compile(pattern_(i), f, mode_));
    flags_value_ = f;
    if (flags_out != nullptr) *flags_out = f;
    return re_.get();
  }

 private:
  StringAccess pattern_;
  bool has_flags_;
  StringAccess flags_;
  const char* function_;
  bool allow_global_;
  MatchMode mode_;
  RegexFlags base_;
  bool constant_;
  std::shared_ptr<const re2::RE2> re_;
  RegexFlags flags_value_;
};

// Rows where every argument is valid.
struct AllValid {
  std::vector<ValidAccess> valid;
  explicit AllValid(const std::vector<VectorRef>& args) {
    for (const auto& a : args) valid.emplace_back(a);
  }
  bool operator()(int64_t i) const {
    for (const auto& v : valid) {
      if (!v(i)) return false;
    }
    return true;
  }
};

// --- ~ ~* !~ !~* and regexp_like ------------------------------------------------

Result<int64_t> MatchSelect(const std::vector<VectorRef>& args, int64_t n, uint32_t* rows,
                            bool negate, bool case_insensitive, int flags_arg) {
  RegexFlags base;
  base.case_insensitive = case_insensitive;
  PatternSource patterns(args, 1, flags_arg, "regexp_like()", false, MatchMode::kBoolean, base);
  StringAccess text(args[0]);
  AllValid valid(args);
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!valid(i)) continue;
    QUIVER_ASSIGN_OR_RAISE(const re2::RE2* re, patterns.Get(i));
    const std::string_view t = text(i);
    if (re2::RE2::PartialMatch(re2::StringPiece(t.data(), t.size()), *re) != negate) {
      rows[count++] = static_cast<uint32_t>(i);
    }
  }
  return count;
}

void AddMatch(FunctionRegistry* r, const char* name, std::vector<TypeRef> args, bool negate,
              bool case_insensitive, int flags_arg) {
  ScalarFunction f{name, std::move(args), nullptr, boolean(), nullptr,
                   [=](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n,
                       const TypeRef& out_type) -> Result<ArrayRef> {
                     QUIVER_ASSIGN_OR_RAISE(auto out,
                                            kernels::MakeFixedOutput(out_type, a, n, ctx.pool));
                     std::vector<uint32_t> rows(static_cast<size_t>(n));
                     QUIVER_ASSIGN_OR_RAISE(int64_t k, MatchSelect(a, n, rows.data(), negate,
                                                                   case_insensitive, flags_arg));
                     uint8_t* bits = out.values->mutable_data();
                     for (int64_t j = 0; j < k; ++j) bit_util::SetBit(bits, rows[j]);
                     return kernels::FinishFixed(out_type, n, std::move(out));
                   }};
  f.select = [=](KernelContext&, const std::vector<VectorRef>& a, int64_t n, uint32_t* rows) {
    return MatchSelect(a, n, rows, negate, case_insensitive, flags_arg);
  };
  r->Add(std::move(f));
}

// --- matching with extents --------------------------------------------------------

// One match: the whole match and up to `groups` captures (null data() when
// a group took no part).
struct Match {
  std::vector<re2::StringPiece> sub;
  size_t begin(std::string_view text) const { return static_cast<size_t>(sub[0].data() - text.data()); }
  size_t end(std::string_view text) const { return begin(text) + sub[0].size(); }
};

bool FindAt(const re2::RE2& re, std::string_view text, size_t from, int nsub, Match* m) {
  m->sub.resize(static_cast<size_t>(nsub));
  return re.Match(re2::StringPiece(text.data(), text.size()), from, text.size(),
                  re2::RE2::UNANCHORED, m->sub.data(), nsub);
}

// Calls f(match) for each match from byte `from` on, as PostgreSQL's global
// search steps: the next search starts where the match ended, one character
// further after an empty match. f returns false to stop.
template <typename F>
void ForEachMatch(const re2::RE2& re, std::string_view text, size_t from, int nsub, F f) {
  Match m;
  size_t search = from;
  while (search <= text.size()) {
    if (!FindAt(re, text, search, nsub, &m)) return;
    if (!f(m)) return;
    const size_t b = m.begin(text), e = m.end(text);
    search = b == e ? NextChar(text, e) : e;
  }
}

// PostgreSQL's replacement text: \1..\9 a capture, \& the whole match, \\ a
// backslash; any other backslash stays as it is.
void AppendReplacement(std::string_view repl, const Match& m, std::string* out) {
  size_t i = 0;
  while (i < repl.size()) {
    const size_t bs = repl.find('\\', i);
    if (bs == std::string_view::npos) {
      out->append(repl.substr(i));
      return;
    }
    out->append(repl.substr(i, bs - i));
    i = bs + 1;
    if (i >= repl.size()) {
      out->push_back('\\');
      return;
    }
    const char c = repl[i];
    int idx = -1;
    if (c >= '1' && c <= '9') {
      idx = c - '0';
    } else if (c == '&') {
      idx = 0;
    } else if (c == '\\') {
      out->push_back('\\');
      ++i;
      continue;
    } else {
      out->push_back('\\');
      continue;
    }
    ++i;
    if (static_cast<size_t>(idx) < m.sub.size() && m.sub[static_cast<size_t>(idx)].data() != nullptr) {
      const auto& s = m.sub[static_cast<size_t>(idx)];
      out->append(s.data(), s.size());
    }
  }
}

// regexp_replace(source, pattern, replacement [, start [, N]] [, flags]):
// N = 0 replaces every match, N > 0 the N-th; without N, flag 'g' means 0.
Result<ArrayRef> RegexpReplace(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                               const TypeRef& out_type, int start_arg, int n_arg, int flags_arg) {
  PatternSource patterns(args, 1, flags_arg, "regexp_replace()", true, MatchMode::kExtents);
  StringAccess text(args[0]), repl(args[2]);
  AllValid valid(args);
  kernels::StringOutput out(out_type, n, ctx.pool);
  std::string buf;
  for (int64_t i = 0; i < n; ++i) {
    if (!valid(i)) {
      QUIVER_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    int64_t start = 1, nth = -1;
    if (start_arg >= 0) {
      start = ReadInt(args[static_cast<size_t>(start_arg)], i);
      if (start <= 0) return InvalidParameter("start", start);
    }
    if (n_arg >= 0) {
      nth = ReadInt(args[static_cast<size_t>(n_arg)], i);
      if (nth < 0) return InvalidParameter("n", nth);
    }
    RegexFlags flags;
    QUIVER_ASSIGN_OR_RAISE(const re2::RE2* re, patterns.Get(i, &flags));
    if (nth < 0) nth = flags.global ? 0 : 1;
    const std::string_view s = text(i), r = repl(i);
    const int nsub = std::min(re->NumberOfCapturingGroups(), 9) + 1;
    buf.clear();
    size_t copied = 0;
    int64_t seen = 0;
    ForEachMatch(*re, s, ByteOfChar(s, start - 1), nsub, [&](const Match& m) {
      ++seen;
      if (nth > 0 && seen < nth) return true;
      buf.append(s.substr(copied, m.begin(s) - copied));
      AppendReplacement(r, m, &buf);
      copied = m.end(s);
      return nth == 0;
    });
    buf.append(s.substr(copied));
    QUIVER_RETURN_NOT_OK(out.Append(buf));
  }
  return out.Finish();
}

// The N-th match from `start` for regexp_instr / regexp_substr; false when
// there is none.
bool NthMatch(const re2::RE2& re, std::string_view s, int64_t start, int64_t nth, int nsub, Match* found) {
  int64_t seen = 0;
  bool ok = false;
  ForEachMatch(re, s, ByteOfChar(s, start - 1), nsub, [&](const Match& m) {
    if (++seen < nth) return true;
    *found = m;
    ok = true;
    return false;
  });
  return ok;
}

struct OptionalArgs {
  int start = -1, nth = -1, endoption = -1, flags = -1, subexpr = -1;
};

Status ReadOptional(const std::vector<VectorRef>& args, int64_t i, const OptionalArgs& o,
                    int64_t* start, int64_t* nth, int64_t* endoption, int64_t* subexpr) {
  if (o.start >= 0) {
    *start = ReadInt(args[static_cast<size_t>(o.start)], i);
    if (*start <= 0) return InvalidParameter("start", *start);
  }
  if (o.nth >= 0) {
    *nth = ReadInt(args[static_cast<size_t>(o.nth)], i);
    if (*nth <= 0) return InvalidParameter("n", *nth);
  }
  if (o.endoption >= 0) {
    *endoption = ReadInt(args[static_cast<size_t>(o.endoption)], i);
    if (*endoption != 0 && *endoption != 1) return InvalidParameter("endoption", *endoption);
  }
  if (o.subexpr >= 0) {
    *subexpr = ReadInt(args[static_cast<size_t>(o.subexpr)], i);
    if (*subexpr < 0) return InvalidParameter("subexpr", *subexpr);
  }
  return Status::OK();
}

template <typename F>
Result<ArrayRef> IntResult(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                           const TypeRef& out_type, F f) {
  QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, args, n, ctx.pool));
  int32_t* dst = out.data<int32_t>();
  for (int64_t i = 0; i < n; ++i) {
    if (!out.IsValid(i)) continue;
    QUIVER_ASSIGN_OR_RAISE(dst[i], f(i));
  }
  return kernels::FinishFixed(out_type, n, std::move(out));
}

Result<ArrayRef> RegexpCount(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                             const TypeRef& out_type, OptionalArgs o) {
  PatternSource patterns(args, 1, o.flags, "regexp_count()", false, MatchMode::kExtents);
  StringAccess text(args[0]);
  return IntResult(ctx, args, n, out_type, [&](int64_t i) -> Result<int32_t> {
    int64_t start = 1, nth = 1, endoption = 0, subexpr = 0;
    QUIVER_RETURN_NOT_OK(ReadOptional(args, i, o, &start, &nth, &endoption, &subexpr));
    QUIVER_ASSIGN_OR_RAISE(const re2::RE2* re, patterns.Get(i));
    const std::string_view s = text(i);
    int32_t count = 0;
    ForEachMatch(*re, s, ByteOfChar(s, start - 1), 1, [&](const Match&) {
      ++count;
      return true;
    });
    return count;
  });
}

Result<ArrayRef> RegexpInstr(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                             const TypeRef& out_type, OptionalArgs o) {
  PatternSource patterns(args, 1, o.flags, "regexp_instr()", false, MatchMode::kExtents);
  StringAccess text(args[0]);
  return IntResult(ctx, args, n, out_type, [&](int64_t i) -> Result<int32_t> {
    int64_t start = 1, nth = 1, endoption = 0, subexpr = 0;
    QUIVER_RETURN_NOT_OK(ReadOptional(args, i, o, &start, &nth, &endoption, &subexpr));
    QUIVER_ASSIGN_OR_RAISE(const re2::RE2* re, patterns.Get(i));
    if (subexpr > re->NumberOfCapturingGroups()) return 0;
    const std::string_view s = text(i);
    Match m;
    if (!NthMatch(*re, s, start, nth, static_cast<int>(subexpr) + 1, &m)) return 0;
    const re2::StringPiece& part = m.sub[static_cast<size_t>(subexpr)];
    if (part.data() == nullptr) return 0;
    const size_t b = static_cast<size_t>(part.data() - s.data());
    const size_t at = endoption == 1 ? b + part.size() : b;
    return static_cast<int32_t>(CharCount(s.substr(0, at)) + 1);
  });
}

Result<ArrayRef> RegexpSubstr(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                              const TypeRef& out_type, OptionalArgs o) {
  PatternSource patterns(args, 1, o.flags, "regexp_substr()", false, MatchMode::kExtents);
  StringAccess text(args[0]);
  AllValid valid(args);
  kernels::StringOutput out(out_type, n, ctx.pool);
  for (int64_t i = 0; i < n; ++i) {
    if (!valid(i)) {
      QUIVER_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    int64_t start = 1, nth = 1, endoption = 0, subexpr = 0;
    QUIVER_RETURN_NOT_OK(ReadOptional(args, i, o, &start, &nth, &endoption, &subexpr));
    QUIVER_ASSIGN_OR_RAISE(const re2::RE2* re, patterns.Get(i));
    const std::string_view s = text(i);
    Match m;
    if (subexpr > re->NumberOfCapturingGroups() ||
        !NthMatch(*re, s, start, nth, static_cast<int>(subexpr) + 1, &m) ||
        m.sub[static_cast<size_t>(subexpr)].data() == nullptr) {
      QUIVER_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    const re2::StringPiece& part = m.sub[static_cast<size_t>(subexpr)];
    QUIVER_RETURN_NOT_OK(out.Append(std::string_view(part.data(), part.size())));
  }
  return out.Finish();
}

// substring(text from pattern): the first parenthesized part when the
// pattern has one (NULL when it took no part), else the whole match.
Result<ArrayRef> SubstringRegex(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                                const TypeRef& out_type, bool similar) {
  std::unique_ptr<PatternSource> patterns;
  if (!similar) {
    patterns = std::make_unique<PatternSource>(args, 1, -1, "substring()", false, MatchMode::kExtents);
  }
  StringAccess text(args[0]), pattern(args[1]);
  std::unique_ptr<StringAccess> escape;
  if (similar) escape = std::make_unique<StringAccess>(args[2]);
  AllValid valid(args);
  kernels::StringOutput out(out_type, n, ctx.pool);
  std::string last_similar;
  std::shared_ptr<const re2::RE2> similar_re;
  for (int64_t i = 0; i < n; ++i) {
    if (!valid(i)) {
      QUIVER_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    const re2::RE2* re;
    if (similar) {
      QUIVER_ASSIGN_OR_RAISE(std::string are,
                             regex::SimilarToRegex(pattern(i), (*escape)(i), /*for_substring=*/true));
      if (similar_re == nullptr || are != last_similar) {
        QUIVER_ASSIGN_OR_RAISE(similar_re, regex::Compile(are, RegexFlags{}, MatchMode::kFirst));
        last_similar = std::move(are);
      }
      re = similar_re.get();
    } else {
      QUIVER_ASSIGN_OR_RAISE(re, patterns->Get(i));
    }
    const std::string_view s = text(i);
    const int nsub = re->NumberOfCapturingGroups() > 0 ? 2 : 1;
    Match m;
    if (!FindAt(*re, s, 0, nsub, &m) || m.sub.back().data() == nullptr) {
      QUIVER_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    QUIVER_RETURN_NOT_OK(out.Append(std::string_view(m.sub.back().data(), m.sub.back().size())));
  }
  return out.Finish();
}

// --- regexp_match, regexp_matches, regexp_split_to_array / _to_table -------------

// One row's results as text arrays: NULL elements are null data().
using TextRow = std::vector<re2::StringPiece>;

// PostgreSQL's setup_regexp_matches: the matches of `re` in `s` (every one
// when `global`), each as its captures (or the whole match when the pattern
// has none). With `ignore_degenerate` (the split functions), zero-length
// matches at the start or end of the text or just after the previous match
// are skipped.
std::vector<Match> Matches(const re2::RE2& re, std::string_view s, bool global, bool ignore_degenerate) {
  std::vector<Match> out;
  const int nsub = re.NumberOfCapturingGroups() + 1;
  size_t prev_end = 0;
  ForEachMatch(re, s, 0, nsub, [&](const Match& m) {
    const size_t b = m.begin(s), e = m.end(s);
    if (!ignore_degenerate || (b < s.size() && e > prev_end)) out.push_back(m);
    prev_end = e;
    return global;
  });
  return out;
}

TextRow MatchRow(const Match& m) {
  if (m.sub.size() == 1) return {m.sub[0]};
  return TextRow(m.sub.begin() + 1, m.sub.end());
}

// The pieces of `s` between the (non-degenerate) matches.
TextRow SplitRow(const re2::RE2& re, std::string_view s) {
  TextRow pieces;
  size_t start = 0;
  for (const Match& m : Matches(re, s, true, true)) {
    pieces.emplace_back(s.data() + start, m.begin(s) - start);
    start = m.end(s);
  }
  pieces.emplace_back(s.data() + start, s.size() - start);
  return pieces;
}

// text[] rows (std::nullopt = a NULL array).
Result<ArrayRef> BuildTextArrays(const std::vector<std::optional<TextRow>>& rows, MemoryPool* pool) {
  const int64_t n = static_cast<int64_t>(rows.size());
  int64_t total = 0;
  for (const auto& r : rows) {
    if (r) total += static_cast<int64_t>(r->size());
  }
  kernels::StringOutput items(utf8(), total, pool);
  QUIVER_ASSIGN_OR_RAISE(auto offsets, kernels::AllocateValues(n + 1, 4, pool));
  QUIVER_ASSIGN_OR_RAISE(auto validity, kernels::AllocateBitmap(n, pool));
  int32_t* off = offsets->mutable_data_as<int32_t>();
  off[0] = 0;
  int64_t nulls = 0, at = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto& r = rows[static_cast<size_t>(i)];
    if (!r) {
      ++nulls;
    } else {
      bit_util::SetBit(validity->mutable_data(), i);
      for (const auto& x : *r) {
        if (x.data() == nullptr) {
          QUIVER_RETURN_NOT_OK(items.AppendNull());
        } else {
          QUIVER_RETURN_NOT_OK(items.Append(std::string_view(x.data(), x.size())));
        }
        ++at;
      }
    }
    if (at > INT32_MAX) return Status::Invalid("array result larger than 2^31 elements in one vector");
    off[i + 1] = static_cast<int32_t>(at);
  }
  QUIVER_ASSIGN_OR_RAISE(ArrayRef child, items.Finish());
  return ArrayData::Make(ArrayOf(utf8()), n, {nulls ? std::shared_ptr<Buffer>(validity) : nullptr, offsets},
                         nulls, 0, {std::move(child)});
}

// regexp_match(s, p [, flags]) / regexp_split_to_array(s, p [, flags]).
Result<ArrayRef> RegexpArrays(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                              int flags_arg, bool split) {
  PatternSource patterns(args, 1, flags_arg, split ? "regexp_split_to_array()" : "regexp_match()", false,
                         MatchMode::kExtents);
  StringAccess text(args[0]);
  AllValid valid(args);
  std::vector<std::optional<TextRow>> rows(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (!valid(i)) continue;
    QUIVER_ASSIGN_OR_RAISE(const re2::RE2* re, patterns.Get(i));
    const std::string_view s = text(i);
    if (split) {
      rows[static_cast<size_t>(i)] = SplitRow(*re, s);
    } else {
      const std::vector<Match> m = Matches(*re, s, false, false);
      if (!m.empty()) rows[static_cast<size_t>(i)] = MatchRow(m[0]);
    }
  }
  return BuildTextArrays(rows, ctx.pool);
}

// The rows of one regexp_matches / regexp_split_to_table call, computed at
// the start and handed out in slices.
class ArrayRowsCursor final : public TableFunctionCursor {
 public:
  explicit ArrayRowsCursor(ArrayRef rows) : rows_(std::move(rows)) {}
  Result<std::vector<ArrayRef>> Next(int64_t max_rows, MemoryPool*) override {
    const int64_t k = std::min<int64_t>(max_rows, rows_->length - next_);
    ArrayRef out = rows_->Slice(next_, k);
    next_ += k;
    return std::vector<ArrayRef>{std::move(out)};
  }

 private:
  ArrayRef rows_;
  int64_t next_ = 0;
};

Result<std::unique_ptr<TableFunctionCursor>> StartRegexpRows(const std::vector<Value>& args, bool split) {
  RegexFlags flags;
  if (args.size() > 2) {
    QUIVER_ASSIGN_OR_RAISE(flags, regex::ParseFlags(args[2].str(), split ? "regexp_split_to_table()"
                                                                         : "regexp_matches()",
                                                    !split));
  }
  QUIVER_ASSIGN_OR_RAISE(auto re, regex::Compile(args[1].str(), flags, MatchMode::kExtents));
  const std::string& s = args[0].str();
  ArrayRef out;
  if (split) {
    kernels::StringOutput items(utf8(), 0, DefaultMemoryPool());
    for (const auto& x : SplitRow(*re, s)) QUIVER_RETURN_NOT_OK(items.Append(std::string_view(x.data(), x.size())));
    QUIVER_ASSIGN_OR_RAISE(out, items.Finish());
  } else {
    std::vector<std::optional<TextRow>> rows;
    for (const Match& m : Matches(*re, s, flags.global, false)) rows.emplace_back(MatchRow(m));
    QUIVER_ASSIGN_OR_RAISE(out, BuildTextArrays(rows, DefaultMemoryPool()));
  }
  return std::unique_ptr<TableFunctionCursor>(new ArrayRowsCursor(std::move(out)));
}

}  // namespace

void RegisterRegexpTableFunctions(TableFunctionRegistry* r) {
  for (const bool split : {false, true}) {
    for (const bool with_flags : {false, true}) {
      TableFunction f;
      f.name = split ? "regexp_split_to_table" : "regexp_matches";
      f.args = {utf8(), utf8()};
      if (with_flags) f.args.push_back(utf8());
      f.column_names = {f.name};
      f.bind = [split](const std::vector<TypeRef>&, std::vector<TypeRef>* cols) {
        *cols = {split ? utf8() : ArrayOf(utf8())};
        return Status::OK();
      };
      f.start = [split](const std::vector<Value>& args, const std::vector<TypeRef>&) {
        return StartRegexpRows(args, split);
      };
      r->Add(std::move(f));
    }
  }
}

void RegisterRegexFunctions(FunctionRegistry* r) {
  const TypeRef text = utf8();
  const TypeRef i64 = int64();
  AddMatch(r, "~", {text, text}, false, false, -1);
  AddMatch(r, "!~", {text, text}, true, false, -1);
  AddMatch(r, "~*", {text, text}, false, true, -1);
  AddMatch(r, "!~*", {text, text}, true, true, -1);
  AddMatch(r, "regexp_like", {text, text}, false, false, -1);
  AddMatch(r, "regexp_like", {text, text, text}, false, false, 2);

  // SIMILAR TO arrives as `text ~ similar_to_escape(pattern [, escape])`.
  auto similar_escape = [](bool has_escape) {
    return [has_escape](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                        const TypeRef& out_type) -> Result<ArrayRef> {
      StringAccess pattern(args[0]);
      std::unique_ptr<StringAccess> escape;
      if (has_escape) escape = std::make_unique<StringAccess>(args[1]);
      AllValid valid(args);
      kernels::StringOutput out(out_type, n, ctx.pool);
      for (int64_t i = 0; i < n; ++i) {
        if (!valid(i)) {
          QUIVER_RETURN_NOT_OK(out.AppendNull());
          continue;
        }
        std::optional<std::string_view> e;
        if (has_escape) e = (*escape)(i);
        QUIVER_ASSIGN_OR_RAISE(std::string are, regex::SimilarToRegex(pattern(i), e));
        QUIVER_RETURN_NOT_OK(out.Append(are));
      }
      return out.Finish();
    };
  };
  r->Add({"similar_to_escape", {text}, nullptr, text, nullptr, similar_escape(false)});
  r->Add({"similar_to_escape", {text, text}, nullptr, text, nullptr, similar_escape(true)});

  auto replace = [](int start_arg, int n_arg, int flags_arg) {
    return [=](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
               const TypeRef& out_type) {
      return RegexpReplace(ctx, args, n, out_type, start_arg, n_arg, flags_arg);
    };
  };
  r->Add({"regexp_replace", {text, text, text}, nullptr, text, nullptr, replace(-1, -1, -1)});
  r->Add({"regexp_replace", {text, text, text, text}, nullptr, text, nullptr, replace(-1, -1, 3)});
  r->Add({"regexp_replace", {text, text, text, i64}, nullptr, text, nullptr, replace(3, -1, -1)});
  r->Add({"regexp_replace", {text, text, text, i64, i64}, nullptr, text, nullptr, replace(3, 4, -1)});
  r->Add({"regexp_replace", {text, text, text, i64, i64, text}, nullptr, text, nullptr,
          replace(3, 4, 5)});

  auto count = [](OptionalArgs o) {
    return [o](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
               const TypeRef& out_type) { return RegexpCount(ctx, args, n, out_type, o); };
  };
  r->Add({"regexp_count", {text, text}, nullptr, int32(), nullptr, count({})});
  r->Add({"regexp_count", {text, text, i64}, nullptr, int32(), nullptr, count({.start = 2})});
  r->Add({"regexp_count", {text, text, i64, text}, nullptr, int32(), nullptr,
          count({.start = 2, .flags = 3})});

  auto instr = [](OptionalArgs o) {
    return [o](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
               const TypeRef& out_type) { return RegexpInstr(ctx, args, n, out_type, o); };
  };
  r->Add({"regexp_instr", {text, text}, nullptr, int32(), nullptr, instr({})});
  r->Add({"regexp_instr", {text, text, i64}, nullptr, int32(), nullptr, instr({.start = 2})});
  r->Add({"regexp_instr", {text, text, i64, i64}, nullptr, int32(), nullptr,
          instr({.start = 2, .nth = 3})});
  r->Add({"regexp_instr", {text, text, i64, i64, i64}, nullptr, int32(), nullptr,
          instr({.start = 2, .nth = 3, .endoption = 4})});
  r->Add({"regexp_instr", {text, text, i64, i64, i64, text}, nullptr, int32(), nullptr,
          instr({.start = 2, .nth = 3, .endoption = 4, .flags = 5})});
  r->Add({"regexp_instr", {text, text, i64, i64, i64, text, i64}, nullptr, int32(), nullptr,
          instr({.start = 2, .nth = 3, .endoption = 4, .flags = 5, .subexpr = 6})});

  auto substr = [](OptionalArgs o) {
    return [o](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
               const TypeRef& out_type) { return RegexpSubstr(ctx, args, n, out_type, o); };
  };
  r->Add({"regexp_substr", {text, text}, nullptr, text, nullptr, substr({})});
  r->Add({"regexp_substr", {text, text, i64}, nullptr, text, nullptr, substr({.start = 2})});
  r->Add({"regexp_substr", {text, text, i64, i64}, nullptr, text, nullptr,
          substr({.start = 2, .nth = 3})});
  r->Add({"regexp_substr", {text, text, i64, i64, text}, nullptr, text, nullptr,
          substr({.start = 2, .nth = 3, .flags = 4})});
  r->Add({"regexp_substr", {text, text, i64, i64, text, i64}, nullptr, text, nullptr,
          substr({.start = 2, .nth = 3, .flags = 4, .subexpr = 5})});

  const TypeRef text_array = ArrayOf(text);
  auto arrays = [](int flags_arg, bool split) {
    return [=](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef&) {
      return RegexpArrays(ctx, args, n, flags_arg, split);
    };
  };
  r->Add({"regexp_match", {text, text}, nullptr, text_array, nullptr, arrays(-1, false)});
  r->Add({"regexp_match", {text, text, text}, nullptr, text_array, nullptr, arrays(2, false)});
  r->Add({"regexp_split_to_array", {text, text}, nullptr, text_array, nullptr, arrays(-1, true)});
  r->Add({"regexp_split_to_array", {text, text, text}, nullptr, text_array, nullptr, arrays(2, true)});

  // substring(text from pattern) and substring(text similar pattern escape e).
  r->Add({"substring", {text, text}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
             const TypeRef& out_type) { return SubstringRegex(ctx, args, n, out_type, false); }});
  r->Add({"substring", {text, text, text}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
             const TypeRef& out_type) { return SubstringRegex(ctx, args, n, out_type, true); }});
}

}  // namespace quiver
