// Text functions: || concat length char_length octet_length upper lower
// substring/substr left right position/strpos trim/btrim/ltrim/rtrim replace
// lpad rpad reverse repeat starts_with split_part ascii chr initcap, and
// LIKE / ILIKE with fast paths for prefix, suffix, containment and equality
// patterns.
//
// Lengths and positions count characters (UTF-8 code points), as
// PostgreSQL does in a UTF-8 database. upper / lower / initcap map every
// character as PostgreSQL does in a UTF-8 locale with the C library's
// provider: towupper_l / towlower_l / iswalnum_l of glibc's C.UTF-8 locale,
// one character at a time (so 'ß' stays 'ß'), with an ASCII fast path.
#include <locale.h>
#include <wctype.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "common/utf8.h"

#include "functions/function.h"
#include "functions/kernel_util.h"

namespace quiver {
namespace {

using kernels::ReadInt;

using kernels::DispatchFixed;
using kernels::StringAccess;
using kernels::ValidAccess;

// --- UTF-8 helpers -----------------------------------------------------------

inline bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

int64_t CharLength(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += !IsContinuation(c);
  return n;
}

// Byte offset of character `chars` (clamped to the end).
size_t ByteOffsetOfChar(std::string_view s, int64_t chars) {
  if (chars <= 0) return 0;
  size_t i = 0;
  int64_t seen = 0;
  while (i < s.size()) {
    if (!IsContinuation(static_cast<unsigned char>(s[i]))) {
      if (seen == chars) return i;
      ++seen;
    }
    ++i;
  }
  return s.size();
}

// Runs f(row) -> Status for rows producing strings; NULL rows get NULL.
template <typename F>
Result<ArrayRef> StringResult(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                              const TypeRef& out_type, F f) {
  kernels::StringOutput out(out_type, n, ctx.pool);
  std::vector<ValidAccess> valid;
  for (const auto& a : args) valid.emplace_back(a);
  std::string scratch;
  for (int64_t i = 0; i < n; ++i) {
    bool ok = true;
    for (const auto& v : valid) ok = ok && v(i);
    if (!ok) {
      QUIVER_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    QUIVER_RETURN_NOT_OK(f(i, &out, &scratch));
  }
  return out.Finish();
}

template <typename T, typename F>
Result<ArrayRef> FixedResult(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                             const TypeRef& out_type, F f) {
  QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, args, n, ctx.pool));
  T* dst = out.data<T>();
  for (int64_t i = 0; i < n; ++i) {
    if (out.IsValid(i)) QUIVER_RETURN_NOT_OK(f(i, &dst[i]));
  }
  return kernels::FinishFixed(out_type, n, std::move(out));
}


char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }
char AsciiUpper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c; }

enum class CaseMapping { kUpper, kLower, kInitcap };

// glibc's C.UTF-8: Unicode's simple case mappings and classes, whatever the
// process locale is. Null when the C library lacks it.
locale_t Utf8Locale() {
  static const locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  return loc;
}

// PostgreSQL's str_toupper / str_tolower / str_initcap for a UTF-8 database
// with a libc locale: each character mapped on its own; initcap upper-cases
// a letter that follows a non-alphanumeric character and lower-cases the
// others.
Status MapCase(std::string_view in, CaseMapping mode, std::string* out) {
  out->assign(in);
  bool ascii = true;
  for (unsigned char c : in) ascii &= c < 0x80;
  if (ascii) {
    bool start = true;
    for (char& c : *out) {
      const bool up = mode == CaseMapping::kUpper || (mode == CaseMapping::kInitcap && start);
      const bool alnum = std::isalnum(static_cast<unsigned char>(c)) != 0;
      c = up ? AsciiUpper(c) : AsciiLower(c);
      start = !alnum;
    }
    return Status::OK();
  }
  const locale_t loc = Utf8Locale();
  if (loc == static_cast<locale_t>(nullptr)) {
    return Status::Unsupported("case mapping of non-ASCII text (the C library has no C.UTF-8 locale)");
  }
  out->clear();
  bool start = true;
  for (size_t i = 0; i < in.size();) {
    const size_t at = i;
    const char32_t c = DecodeUtf8(in, &i);
    if (c == kInvalidUtf8) {
      out->push_back(in[at]);
      start = true;
      continue;
    }
    const auto wc = static_cast<wint_t>(c);
    const bool up = mode == CaseMapping::kUpper || (mode == CaseMapping::kInitcap && start);
    const wint_t mapped = up ? towupper_l(wc, loc) : towlower_l(wc, loc);
    AppendUtf8(out, static_cast<char32_t>(mapped));
    start = iswalnum_l(wc, loc) == 0;
  }
  return Status::OK();
}

// --- LIKE ----------------------------------------------------------------------

// A compiled LIKE pattern. '%' matches any run of characters, '_' one
// character, '\' escapes the next character.
class LikeMatcher {
 public:
  // ILIKE lowers the pattern and each text as PostgreSQL does in a UTF-8
  // database (Generic_Text_IC_like: lower() of both, then a plain LIKE), so
  // non-ASCII letters match across case too.
  LikeMatcher(std::string_view pattern, bool case_insensitive)
      : ci_(case_insensitive), pattern_(ci_ ? Lowered(pattern) : std::string(pattern)) {
    // Literal pieces between unescaped '%'; '_' forces the general matcher.
    std::string piece;
    for (size_t i = 0; i < pattern_.size(); ++i) {
      char c = pattern_[i];
      if (c == '\\' && i + 1 < pattern_.size()) {
        c = pattern_[++i];
      } else if (c == '%') {
        pieces_.push_back(piece);
        piece.clear();
        continue;
      } else if (c == '_') {
        has_underscore_ = true;
      }
      piece += c;
    }
    pieces_.push_back(piece);
  }

  bool Match(std::string_view s) const {
    if (ci_) {
      LowerInto(s, &lowered_);
      s = lowered_;
    }
    if (has_underscore_) return Generic(s, 0, 0);
    if (pieces_.size() == 1) return s == pieces_[0];
    const std::string& first = pieces_.front();
    const std::string& last = pieces_.back();
    if (s.size() < first.size() + last.size()) return false;
    if (s.compare(0, first.size(), first) != 0) return false;
    if (s.compare(s.size() - last.size(), last.size(), last) != 0) return false;
    size_t pos = first.size();
    const size_t end = s.size() - last.size();
    for (size_t i = 1; i + 1 < pieces_.size(); ++i) {
      const std::string& p = pieces_[i];
      if (p.empty()) continue;
      const size_t found = s.substr(0, end).find(p, pos);
      if (found == std::string_view::npos) return false;
      pos = found + p.size();
    }
    return true;
  }

 private:
  // Backtracking matcher over the raw pattern for '_' (characters, not bytes).
  bool Generic(std::string_view s, size_t si, size_t pi) const {
    const std::string& p = pattern_;
    while (pi < p.size()) {
      char c = p[pi];
      if (c == '%') {
        while (pi < p.size() && p[pi] == '%') ++pi;
        if (pi == p.size()) return true;
        for (size_t k = si; k <= s.size(); ++k) {
          if (k < s.size() && IsContinuation(static_cast<unsigned char>(s[k]))) continue;
          if (Generic(s, k, pi)) return true;
        }
        return false;
      }
      if (si >= s.size()) return false;
      if (c == '_') {
        ++si;
        while (si < s.size() && IsContinuation(static_cast<unsigned char>(s[si]))) ++si;
        ++pi;
        continue;
      }
      if (c == '\\' && pi + 1 < p.size()) c = p[++pi];
      if (c != s[si]) return false;
      ++si;
      ++pi;
    }
    return si == s.size();
  }

  // lower() of PostgreSQL; ASCII-only lowering when the C library has no
  // C.UTF-8 locale (MapCase refuses then).
  static void LowerInto(std::string_view in, std::string* out) {
    if (!MapCase(in, CaseMapping::kLower, out).ok()) {
      out->assign(in);
      for (char& c : *out) c = AsciiLower(c);
    }
  }
  static std::string Lowered(std::string_view in) {
    std::string out;
    LowerInto(in, &out);
    return out;
  }

  bool ci_;
  std::string pattern_;
  bool has_underscore_ = false;
  std::vector<std::string> pieces_;
  mutable std::string lowered_;
};

template <bool kCaseInsensitive>
Result<int64_t> LikeSelect(const std::vector<VectorRef>& args, int64_t n, uint32_t* rows,
                           bool negate) {
  StringAccess text(args[0]), pattern(args[1]);
  ValidAccess vt(args[0]), vp(args[1]);
  int64_t count = 0;
  if (args[1].constant) {
    if (!vp(0)) return 0;
    LikeMatcher m(pattern(0), kCaseInsensitive);
    for (int64_t i = 0; i < n; ++i) {
      if (vt(i) && m.Match(text(i)) != negate) rows[count++] = static_cast<uint32_t>(i);
    }
    return count;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (!vt(i) || !vp(i)) continue;
    LikeMatcher m(pattern(i), kCaseInsensitive);
    if (m.Match(text(i)) != negate) rows[count++] = static_cast<uint32_t>(i);
  }
  return count;
}

template <bool kCaseInsensitive>
void AddLike(FunctionRegistry* r, const char* name, bool negate) {
  ScalarFunction f{name, {utf8(), utf8()}, nullptr, boolean(), nullptr,
                   [negate](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                            const TypeRef& out_type) -> Result<ArrayRef> {
                     QUIVER_ASSIGN_OR_RAISE(auto out,
                                            kernels::MakeFixedOutput(out_type, args, n, ctx.pool));
                     std::vector<uint32_t> rows(static_cast<size_t>(n));
                     QUIVER_ASSIGN_OR_RAISE(
                         int64_t k, LikeSelect<kCaseInsensitive>(args, n, rows.data(), negate));
                     uint8_t* bits = out.values->mutable_data();
                     for (int64_t i = 0; i < k; ++i) bit_util::SetBit(bits, rows[i]);
                     return kernels::FinishFixed(out_type, n, std::move(out));
                   }};
  f.select = [negate](KernelContext&, const std::vector<VectorRef>& args, int64_t n,
                      uint32_t* rows) { return LikeSelect<kCaseInsensitive>(args, n, rows, negate); };
  r->Add(std::move(f));
}

// --- substring -------------------------------------------------------------------

// PostgreSQL's substring(s from start [for count]): characters are
// 1-based; a start before 1 eats into the count.
std::string_view Substring(std::string_view s, int64_t start, bool has_count, int64_t count) {
  int64_t end_char;  // exclusive, 1-based
  if (has_count) {
    end_char = start + count;
  } else {
    end_char = INT64_MAX;
  }
  if (start < 1) start = 1;
  if (has_count && end_char <= start) return {};
  const size_t b = ByteOffsetOfChar(s, start - 1);
  if (!has_count) return s.substr(b);
  const size_t e = ByteOffsetOfChar(s, end_char - 1);
  return s.substr(b, e > b ? e - b : 0);
}

std::string_view TrimChars(std::string_view s, std::string_view chars, bool left, bool right) {
  auto in_set = [&](char c) { return chars.find(c) != std::string_view::npos; };
  if (left) {
    while (!s.empty() && in_set(s.front())) s.remove_prefix(1);
  }
  if (right) {
    while (!s.empty() && in_set(s.back())) s.remove_suffix(1);
  }
  return s;
}

void AddTrim(FunctionRegistry* r, const char* name, bool left, bool right) {
  r->Add({name, {utf8()}, nullptr, utf8(), nullptr,
          [left, right](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                        const TypeRef& out) {
            StringAccess s(args[0]);
            return StringResult(ctx, args, n, out, [&](int64_t i, kernels::StringOutput* o, std::string*) {
              return o->Append(TrimChars(s(i), " ", left, right));
            });
          }});
  r->Add({name, {utf8(), utf8()}, nullptr, utf8(), nullptr,
          [left, right](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                        const TypeRef& out) {
            StringAccess s(args[0]), c(args[1]);
            return StringResult(ctx, args, n, out, [&](int64_t i, kernels::StringOutput* o, std::string*) {
              return o->Append(TrimChars(s(i), c(i), left, right));
            });
          }});
}

std::string Pad(std::string_view s, int64_t len, std::string_view fill, bool left) {
  const int64_t have = CharLength(s);
  if (len <= 0) return {};
  if (have >= len) return std::string(s.substr(0, ByteOffsetOfChar(s, len)));
  if (fill.empty()) return std::string(s);
  std::string pad;
  const int64_t need = len - have;
  const int64_t fill_chars = CharLength(fill);
  for (int64_t k = 0; k < need; ++k) {
    const int64_t ci = k % fill_chars;
    const size_t b = ByteOffsetOfChar(fill, ci), e = ByteOffsetOfChar(fill, ci + 1);
    pad.append(fill.substr(b, e - b));
  }
  return left ? pad + std::string(s) : std::string(s) + pad;
}

}  // namespace

void RegisterStringFunctions(FunctionRegistry* r) {
  const TypeRef text = utf8();
  r->Add({"||", {text, text}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            StringAccess a(args[0]), b(args[1]);
            return StringResult(ctx, args, n, out, [&](int64_t i, kernels::StringOutput* o, std::string* buf) {
              buf->assign(a(i));
              buf->append(b(i));
              return o->Append(*buf);
            });
          }});
  // concat(...): NULL arguments are ignored.
  ScalarFunction concat{"concat", {}, text, text, nullptr,
                        [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                           const TypeRef& out) -> Result<ArrayRef> {
                          kernels::StringOutput o(out, n, ctx.pool);
                          std::vector<StringAccess> get;
                          std::vector<ValidAccess> valid;
                          for (const auto& a : args) {
                            get.emplace_back(a);
                            valid.emplace_back(a);
                          }
                          std::string buf;
                          for (int64_t i = 0; i < n; ++i) {
                            buf.clear();
                            for (size_t k = 0; k < args.size(); ++k) {
                              if (valid[k](i)) buf.append(get[k](i));
                            }
                            QUIVER_RETURN_NOT_OK(o.Append(buf));
                          }
                          return o.Finish();
                        }};
  concat.strict = false;
  r->Add(concat);

  auto length = [](bool bytes) {
    return [bytes](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                   const TypeRef& out) {
      StringAccess s(args[0]);
      return FixedResult<int32_t>(ctx, args, n, out, [&](int64_t i, int32_t* v) {
        *v = static_cast<int32_t>(bytes ? s(i).size() : CharLength(s(i)));
        return Status::OK();
      });
    };
  };
  for (const char* name : {"length", "char_length", "character_length"}) {
    r->Add({name, {text}, nullptr, int32(), nullptr, length(false)});
  }
  r->Add({"octet_length", {text}, nullptr, int32(), nullptr, length(true)});
  r->Add({"length", {binary()}, nullptr, int32(), nullptr, length(true)});
  r->Add({"octet_length", {binary()}, nullptr, int32(), nullptr, length(true)});

  auto map_case = [](CaseMapping mode) {
    return [mode](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                  const TypeRef& out) {
      StringAccess s(args[0]);
      return StringResult(ctx, args, n, out, [&](int64_t i, kernels::StringOutput* o, std::string* buf) {
        QUIVER_RETURN_NOT_OK(MapCase(s(i), mode, buf));
        return o->Append(*buf);
      });
    };
  };
  r->Add({"upper", {text}, nullptr, text, nullptr, map_case(CaseMapping::kUpper)});
  r->Add({"lower", {text}, nullptr, text, nullptr, map_case(CaseMapping::kLower)});
  r->Add({"initcap", {text}, nullptr, text, nullptr, map_case(CaseMapping::kInitcap)});

  for (const char* name : {"substring", "substr"}) {
    r->Add({name, {text, int64()}, nullptr, text, nullptr,
            [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
              StringAccess s(args[0]);
              return StringResult(ctx, args, n, out, [&](int64_t i, kernels::StringOutput* o, std::string*) {
                return o->Append(Substring(s(i), ReadInt(args[1], i), false, 0));
              });
            }});
    r->Add({name, {text, int64(), int64()}, nullptr, text, nullptr,
            [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
              StringAccess s(args[0]);
              return StringResult(ctx, args, n, out, [&](int64_t i, kernels::StringOutput* o, std::string*) {
                const int64_t count = ReadInt(args[2], i);
                if (count < 0)
                  return Status::Invalid("negative substring length not allowed")
                      .WithSqlState(sqlstate::kSubstringError);
                return o->Append(Substring(s(i), ReadInt(args[1], i), true, count));
              });
            }});
  }
  r->Add({"left", {text, int64()}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            StringAccess s(args[0]);
            return StringResult(ctx, args, n, out, [&](int64_t i, kernels::StringOutput* o, std::string*) {
              const std::string_view v = s(i);
              int64_t k = ReadInt(args[1], i);
              if (k < 0) k = std::max<int64_t>(0, CharLength(v) + k);
              return o->Append(v.substr(0, ByteOffsetOfChar(v, k)));
            });
          }});
  r->Add({"right", {text, int64()}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            StringAccess s(args[0]);
            return StringResult(ctx, args, n, out, [&](int64_t i, kernels::StringOutput* o, std::string*) {
              const std::string_view v = s(i);
              const int64_t len = CharLength(v);
              int64_t k = ReadInt(args[1], i);
              const int64_t skip = k >= 0 ? std::max<int64_t>(0, len - k) : std::min(len, -k);
              return o->Append(v.substr(ByteOffsetOfChar(v, skip)));
            });
          }});
  auto position = [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                     const TypeRef& out) {
    StringAccess s(args[0]), sub(args[1]);
    return FixedResult<int32_t>(ctx, args, n, out, [&](int64_t i, int32_t* v) {
      const std::string_view hay = s(i);
      const size_t at = hay.find(sub(i));
      *v = at == std::string_view::npos ? 0 : static_cast<int32_t>(CharLength(hay.substr(0, at)) + 1);
      return Status::OK();
    });
  };
  r->Add({"strpos", {text, text}, nullptr, int32(), nullptr, position});
  // position(sub IN s) is parsed as position(s, sub)'s mirror: the binder passes (s, sub).
  r->Add({"position", {text, text}, nullptr, int32(), nullptr, position});
  AddTrim(r, "btrim", true, true);
  AddTrim(r, "trim", true, true);
  AddTrim(r, "ltrim", true, false);
  AddTrim(r, "rtrim", false, true);
  r->Add({"replace", {text, text, text}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            StringAccess s(args[0]), from(args[1]), to(args[2]);
            return StringResult(ctx, args, n, out, [&](int64_t i, kernels::StringOutput* o, std::string* buf) {
              const std::string_view v = s(i), f = from(i), t = to(i);
              if (f.empty()) return o->Append(v);
              buf->clear();
              size_t pos = 0;
              for (;;) {
                const size_t at = v.find(f, pos);
                if (at == std::string_view::npos) break;
                buf->append(v.substr(pos, at - pos));
                buf->append(t);
                pos = at + f.size();
              }
              buf->append(v.substr(pos));
              return o->Append(*buf);
            });
          }});
  for (bool left : {true, false}) {
    const char* name = left ? "lpad" : "rpad";
    r->Add({name, {text, int64()}, nullptr, text, nullptr,
            [left](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
              StringAccess s(args[0]);
              return StringResult(ctx, args, n, out, [&](int64_t i, kernels::StringOutput* o, std::string*) {
                return o->Append(Pad(s(i), ReadInt(args[1], i), " ", left));
              });
            }});
    r->Add({name, {text, int64(), text}, nullptr, text, nullptr,
            [left](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
              StringAccess s(args[0]), f(args[2]);
              return StringResult(ctx, args, n, out, [&](int64_t i, kernels::StringOutput* o, std::string*) {
                return o->Append(Pad(s(i), ReadInt(args[1], i), f(i), left));
              });
            }});
  }
  r->Add({"reverse", {text}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            StringAccess s(args[0]);
            return StringResult(ctx, args, n, out, [&](int64_t i, kernels::StringOutput* o, std::string* buf) {
              const std::string_view v = s(i);
              buf->clear();
              size_t end = v.size();
              while (end > 0) {
                size_t start = end - 1;
                while (start > 0 && IsContinuation(static_cast<unsigned char>(v[start]))) --start;
                buf->append(v.substr(start, end - start));
                end = start;
              }
              return o->Append(*buf);
            });
          }});
  r->Add({"repeat", {text, int64()}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            StringAccess s(args[0]);
            return StringResult(ctx, args, n, out, [&](int64_t i, kernels::StringOutput* o, std::string* buf) {
              const int64_t k = ReadInt(args[1], i);
              const std::string_view v = s(i);
              if (k > 0 && static_cast<int64_t>(v.size()) * k > (int64_t{1} << 30)) {
                return Status::OutOfMemory("requested length too large")
                    .WithSqlState(sqlstate::kProgramLimitExceeded);
              }
              buf->clear();
              for (int64_t j = 0; j < k; ++j) buf->append(v);
              return o->Append(*buf);
            });
          }});
  r->Add({"starts_with", {text, text}, nullptr, boolean(), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out)
              -> Result<ArrayRef> {
            QUIVER_ASSIGN_OR_RAISE(auto o, kernels::MakeFixedOutput(out, args, n, ctx.pool));
            StringAccess s(args[0]), p(args[1]);
            for (int64_t i = 0; i < n; ++i) {
              const std::string_view v = s(i), pre = p(i);
              if (v.substr(0, pre.size()) == pre) bit_util::SetBit(o.values->mutable_data(), i);
            }
            return kernels::FinishFixed(out, n, std::move(o));
          }});
  r->Add({"split_part", {text, text, int64()}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            StringAccess s(args[0]), d(args[1]);
            return StringResult(ctx, args, n, out, [&](int64_t i, kernels::StringOutput* o, std::string*) {
              const std::string_view v = s(i), delim = d(i);
              int64_t k = ReadInt(args[2], i);
              if (k == 0)
                return Status::Invalid("field position must not be zero")
                    .WithSqlState(sqlstate::kInvalidParameterValue);
              std::vector<std::string_view> parts;
              if (delim.empty()) {
                parts.push_back(v);
              } else {
                size_t pos = 0;
                for (;;) {
                  const size_t at = v.find(delim, pos);
                  if (at == std::string_view::npos) {
                    parts.push_back(v.substr(pos));
                    break;
                  }
                  parts.push_back(v.substr(pos, at - pos));
                  pos = at + delim.size();
                }
              }
              const int64_t m = static_cast<int64_t>(parts.size());
              if (k < 0) k = m + k + 1;
              if (k < 1 || k > m) return o->Append("");
              return o->Append(parts[static_cast<size_t>(k - 1)]);
            });
          }});
  r->Add({"ascii", {text}, nullptr, int32(), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            StringAccess s(args[0]);
            return FixedResult<int32_t>(ctx, args, n, out, [&](int64_t i, int32_t* v) {
              const std::string_view t = s(i);
              *v = t.empty() ? 0 : static_cast<unsigned char>(t[0]);
              return Status::OK();
            });
          }});
  r->Add({"chr", {int64()}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            return StringResult(ctx, args, n, out, [&](int64_t i, kernels::StringOutput* o, std::string* buf) {
              const int64_t c = ReadInt(args[0], i);
              if (c <= 0 || c > 0x10FFFF)
                return Status::Invalid("requested character too large for encoding: {}", c)
                    .WithSqlState(sqlstate::kProgramLimitExceeded);
              buf->clear();
              if (c < 0x80) {
                *buf += static_cast<char>(c);
              } else if (c < 0x800) {
                *buf += static_cast<char>(0xC0 | (c >> 6));
                *buf += static_cast<char>(0x80 | (c & 0x3F));
              } else if (c < 0x10000) {
                *buf += static_cast<char>(0xE0 | (c >> 12));
                *buf += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
                *buf += static_cast<char>(0x80 | (c & 0x3F));
              } else {
                *buf += static_cast<char>(0xF0 | (c >> 18));
                *buf += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
                *buf += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
                *buf += static_cast<char>(0x80 | (c & 0x3F));
              }
              return o->Append(*buf);
            });
          }});
  AddLike<false>(r, "like", false);
  AddLike<false>(r, "not like", true);
  AddLike<true>(r, "ilike", false);
  AddLike<true>(r, "not ilike", true);
}

}  // namespace quiver
