// More of PostgreSQL's text functions: translate, concat_ws, format,
// quote_ident, quote_literal, quote_nullable, md5, sha224 / sha256 / sha384 /
// sha512 (bytea, as PostgreSQL: the digest, not its hex), encode / decode
// (hex, base64), and width_bucket.
//
// concat_ws, format, quote_literal and quote_nullable take any type in
// PostgreSQL ("any"); the binder turns such arguments into their text
// (planner/bind_expression.cc), booleans through __bool_out as 't' / 'f'.
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <unordered_set>
#include <cstring>
#include <vector>

#include "functions/families.h"
#include "functions/function.h"
#include "functions/kernel_util.h"

namespace quiver {
namespace {

using kernels::ReadInt;

using kernels::StringAccess;
using kernels::ValidAccess;

inline bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The byte length of the UTF-8 character starting at s[i].
size_t CharBytes(std::string_view s, size_t i) {
  size_t j = i + 1;
  while (j < s.size() && IsContinuation(static_cast<unsigned char>(s[j]))) ++j;
  return j - i;
}

std::vector<std::string_view> SplitChars(std::string_view s) {
  std::vector<std::string_view> out;
  for (size_t i = 0; i < s.size();) {
    const size_t k = CharBytes(s, i);
    out.push_back(s.substr(i, k));
    i += k;
  }
  return out;
}

int64_t CharCount(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += !IsContinuation(c);
  return n;
}


// Rows where every argument (or those in `which`) is valid.
bool AllValid(const std::vector<ValidAccess>& valid, int64_t i) {
  for (const auto& v : valid) {
    if (!v(i)) return false;
  }
  return true;
}

template <typename F>
Result<ArrayRef> StringRows(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                            const TypeRef& out_type, bool strict, F f) {
  kernels::StringOutput out(out_type, n, ctx.pool);
  std::vector<ValidAccess> valid;
  for (const auto& a : args) valid.emplace_back(a);
  std::string buf;
  for (int64_t i = 0; i < n; ++i) {
    if (strict && !AllValid(valid, i)) {
      QUIVER_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    buf.clear();
    QUIVER_ASSIGN_OR_RAISE(bool is_null, f(i, valid, &buf));
    QUIVER_RETURN_NOT_OK(is_null ? out.AppendNull() : out.Append(buf));
  }
  return out.Finish();
}

// PostgreSQL 15's keywords other than the unreserved ones
// (pg_get_keywords() WHERE catcode <> 'U'): quote_ident quotes them.
bool IsQuotedKeyword(std::string_view w) {
  static const std::unordered_set<std::string_view> kWords = {
      "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric",
      "authorization", "between", "bigint", "binary", "bit", "boolean", "both", "case", "cast",
      "char", "character", "check", "coalesce", "collate", "collation", "column", "concurrently",
      "constraint", "create", "cross", "current_catalog", "current_date", "current_role",
      "current_schema", "current_time", "current_timestamp", "current_user", "dec", "decimal",
      "default", "deferrable", "desc", "distinct", "do", "else", "end", "except", "exists",
      "extract", "false", "fetch", "float", "for", "foreign", "freeze", "from", "full", "grant",
      "greatest", "group", "grouping", "having", "ilike", "in", "initially", "inner", "inout",
      "int", "integer", "intersect", "interval", "into", "is", "isnull", "join", "lateral",
      "leading", "least", "left", "like", "limit", "localtime", "localtimestamp", "national",
      "natural", "nchar", "none", "normalize", "not", "notnull", "null", "nullif", "numeric",
      "offset", "on", "only", "or", "order", "out", "outer", "overlaps", "overlay", "placing",
      "position", "precision", "primary", "real", "references", "returning", "right", "row",
      "select", "session_user", "setof", "similar", "smallint", "some", "substring", "symmetric",
      "table", "tablesample", "then", "time", "timestamp", "to", "trailing", "treat", "trim",
      "true", "union", "unique", "user", "using", "values", "varchar", "variadic", "verbose",
      "when", "where", "window", "with", "xmlattributes", "xmlconcat", "xmlelement",
      "xmlexists", "xmlforest", "xmlnamespaces", "xmlparse", "xmlpi", "xmlroot", "xmlserialize",
      "xmltable"};
  return kWords.count(w) > 0;
}

// PostgreSQL's quote_identifier.
void QuoteIdent(std::string_view s, std::string* out) {
  bool safe = !s.empty() && ((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_');
  for (char c : s) {
    safe = safe && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  }
  if (safe && !IsQuotedKeyword(s)) {
    out->append(s);
    return;
  }
  out->push_back('"');
  for (char c : s) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

// PostgreSQL's quote_literal: E'...' when the text holds a backslash.
void QuoteLiteral(std::string_view s, std::string* out) {
  if (s.find('\\') != std::string_view::npos) out->push_back('E');
  out->push_back('\'');
  for (char c : s) {
    if (c == '\'' || c == '\\') out->push_back(c);
    out->push_back(c);
  }
  out->push_back('\'');
}

Status FormatError(const std::string& message) {
  return Status::Invalid("{}", message).WithSqlState(sqlstate::kInvalidParameterValue);
}

// PostgreSQL's text_format: %[n$][-][width]{s,I,L}, width as digits, * or *n$.
Status Format(std::string_view f, const std::vector<StringAccess>& get,
              const std::vector<ValidAccess>& valid, int64_t row, std::string* out) {
  const int nargs = static_cast<int>(get.size()) - 1;  // arguments after the format
  int next = 1;
  auto arg_valid = [&](int k) { return valid[static_cast<size_t>(k)](row); };
  auto parse_int = [&](size_t* i, int* v) {
    int64_t x = 0;
    size_t j = *i;
    while (j < f.size() && f[j] >= '0' && f[j] <= '9') {
      x = x * 10 + (f[j] - '0');
      if (x > INT32_MAX) return FormatError("number is out of range");
      ++j;
    }
    if (j == *i) return Status::OK();
    *v = static_cast<int>(x);
    *i = j;
    return Status::OK();
  };
  auto unterminated = [] { return FormatError("unterminated format() type specifier"); };
  for (size_t i = 0; i < f.size();) {
    if (f[i] != '%') {
      const size_t pct = f.find('%', i);
      const size_t end = pct == std::string_view::npos ? f.size() : pct;
      out->append(f.substr(i, end - i));
      i = end;
      continue;
    }
    ++i;
    if (i >= f.size()) return unterminated();
    if (f[i] == '%') {
      out->push_back('%');
      ++i;
      continue;
    }
    // [argpos$]
    int argpos = 0;
    {
      size_t j = i;
      int v = 0;
      QUIVER_RETURN_NOT_OK(parse_int(&j, &v));
      if (j > i && j < f.size() && f[j] == '$') {
        if (v == 0) return FormatError("format specifies argument 0, but arguments are numbered from 1");
        argpos = v;
        i = j + 1;
      }
    }
    if (i >= f.size()) return unterminated();
    bool left = false;
    while (i < f.size() && f[i] == '-') {
      left = true;
      ++i;
    }
    if (i >= f.size()) return unterminated();
    int width = 0;
    bool has_width = false;
    if (f[i] == '*') {
      ++i;
      int wpos = 0;
      size_t j = i;
      int v = 0;
      QUIVER_RETURN_NOT_OK(parse_int(&j, &v));
      if (j > i && j < f.size() && f[j] == '$') {
        if (v == 0) return FormatError("format specifies argument 0, but arguments are numbered from 1");
        wpos = v;
        i = j + 1;
      } else {
        wpos = next++;
      }
      if (wpos > nargs) return FormatError("too few arguments for format()");
      if (arg_valid(wpos)) {
        // The width argument is an integer's text.
        const std::string_view w = get[static_cast<size_t>(wpos)](row);
        int64_t x = 0;
        bool neg = false;
        size_t k = 0;
        if (k < w.size() && (w[k] == '-' || w[k] == '+')) neg = w[k++] == '-';
        auto not_integer = [&] {
          return Status::Invalid("invalid input syntax for type integer: \"{}\"", std::string(w))
              .WithSqlState(sqlstate::kInvalidTextRepresentation);
        };
        if (k == w.size()) return not_integer();
        for (; k < w.size(); ++k) {
          if (w[k] < '0' || w[k] > '9') return not_integer();
          x = x * 10 + (w[k] - '0');
          if (x > INT32_MAX) return FormatError("number is out of range");
        }
        if (neg) {
          left = true;
        }
        width = static_cast<int>(x);
        has_width = true;
      }
    } else {
      size_t j = i;
      QUIVER_RETURN_NOT_OK(parse_int(&j, &width));
      has_width = j > i;
      i = j;
    }
    if (i >= f.size()) return unterminated();
    const char type = f[i++];
    if (type != 's' && type != 'I' && type != 'L') {
      return FormatError(fmt::format("unrecognized format() type specifier \"{}\"", type))
          .WithHint("For a single \"%\" use \"%%\".");
    }
    const int k = argpos > 0 ? argpos : next;
    next = k + 1;
    if (k > nargs) return FormatError("too few arguments for format()");
    std::string value;
    const bool is_null = !arg_valid(k);
    if (type == 's') {
      if (!is_null) value.assign(get[static_cast<size_t>(k)](row));
    } else if (type == 'I') {
      if (is_null) {
        return Status::Invalid("null values cannot be formatted as an SQL identifier")
            .WithSqlState(sqlstate::kNullValueNotAllowed);
      }
      QuoteIdent(get[static_cast<size_t>(k)](row), &value);
    } else {
      if (is_null) {
        value = "NULL";
      } else {
        QuoteLiteral(get[static_cast<size_t>(k)](row), &value);
      }
    }
    const int64_t len = CharCount(value);
    const int64_t pad = has_width && width > len ? width - len : 0;
    if (!left) out->append(static_cast<size_t>(pad), ' ');
    out->append(value);
    if (left) out->append(static_cast<size_t>(pad), ' ');
  }
  return Status::OK();
}

Status Digest(const EVP_MD* md, std::string_view in, std::string* out) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> buf;
  unsigned int len = 0;
  if (EVP_Digest(in.data(), in.size(), buf.data(), &len, md, nullptr) != 1) {
    return Status::Invalid("could not compute {} hash", EVP_MD_get0_name(md));
  }
  out->assign(reinterpret_cast<const char*>(buf.data()), len);
  return Status::OK();
}

void AppendHex(std::string_view bytes, std::string* out) {
  static const char* kHex = "0123456789abcdef";
  for (unsigned char c : bytes) {
    out->push_back(kHex[c >> 4]);
    out->push_back(kHex[c & 15]);
  }
}

const char* kBase64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// PostgreSQL's base64 encoding: a newline after every 76 characters.
void AppendBase64(std::string_view in, std::string* out) {
  int line = 0;
  for (size_t i = 0; i < in.size(); i += 3) {
    uint32_t v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    if (i + 2 < in.size()) v |= static_cast<unsigned char>(in[i + 2]);
    if (line >= 76) {
      out->push_back('\n');
      line = 0;
    }
    out->push_back(kBase64[(v >> 18) & 63]);
    out->push_back(kBase64[(v >> 12) & 63]);
    out->push_back(i + 1 < in.size() ? kBase64[(v >> 6) & 63] : '=');
    out->push_back(i + 2 < in.size() ? kBase64[v & 63] : '=');
    line += 4;
  }
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Status DecodeHex(std::string_view in, std::string* out) {
  for (size_t i = 0; i < in.size();) {
    const char c = in[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
      continue;
    }
    const int hi = HexValue(c);
    if (hi < 0) {
      return Status::Invalid("invalid hexadecimal digit: \"{}\"", std::string(1, c))
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    if (i + 1 >= in.size()) {
      return Status::Invalid("invalid hexadecimal data: odd number of digits")
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    const int lo = HexValue(in[i + 1]);
    if (lo < 0) {
      return Status::Invalid("invalid hexadecimal digit: \"{}\"", std::string(1, in[i + 1]))
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    out->push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return Status::OK();
}

Status DecodeBase64(std::string_view in, std::string* out) {
  uint32_t acc = 0;
  int bits = 0, pad = 0;
  for (char c : in) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if (c == '=') {
      ++pad;
      continue;
    }
    const char* p = std::strchr(kBase64, c);
    if (p == nullptr || c == '\0' || pad > 0) {
      return Status::Invalid("invalid symbol \"{}\" found while decoding base64 sequence",
                             std::string(1, c))
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    acc = (acc << 6) | static_cast<uint32_t>(p - kBase64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  if (bits >= 6 || (bits + pad * 6) % 8 != 0) {
    return Status::Invalid("invalid base64 end sequence")
        .WithSqlState(sqlstate::kInvalidParameterValue)
        .WithHint("Input data is missing padding, is truncated, or is otherwise corrupted.");
  }
  return Status::OK();
}

Status UnknownEncoding(std::string_view name) {
  return Status::Invalid("unrecognized encoding: \"{}\"", std::string(name))
      .WithSqlState(sqlstate::kInvalidParameterValue);
}

// count * distance / width + 1 in doubles, truncated; when the width
// overflows to infinity, both are halved first (as PostgreSQL 15 does).
int32_t Bucket(int32_t c, double distance, double width, double half_distance, double half_width) {
  const double q = std::isinf(width) ? static_cast<double>(c) * (half_distance / half_width)
                                     : static_cast<double>(c) * distance / width;
  return static_cast<int32_t>(q + 1);
}

// width_bucket over doubles, as PostgreSQL 15's width_bucket_float8.
Result<int32_t> WidthBucket(double operand, double b1, double b2, int64_t count) {
  auto error = [](const char* m) {
    return Status::Invalid("{}", m).WithSqlState("2201G");  // invalid_argument_for_width_bucket_function
  };
  if (count <= 0) return error("count must be greater than zero");
  if (std::isnan(operand) || std::isnan(b1) || std::isnan(b2)) {
    return error("operand, lower bound, and upper bound cannot be NaN");
  }
  if (std::isinf(b1) || std::isinf(b2)) return error("lower and upper bounds must be finite");
  if (b1 == b2) return error("lower bound cannot equal upper bound");
  if (count > INT32_MAX) {
    return Status::Invalid("integer out of range").WithSqlState(sqlstate::kNumericValueOutOfRange);
  }
  const int32_t c = static_cast<int32_t>(count);
  int32_t result;
  // PostgreSQL 15's arithmetic, rounding included (Bucket).
  if (b1 < b2) {
    if (operand < b1) {
      result = 0;
    } else if (operand >= b2) {
      if (c == INT32_MAX) {
        return Status::Invalid("integer out of range").WithSqlState(sqlstate::kNumericValueOutOfRange);
      }
      result = c + 1;
    } else {
      result = Bucket(c, operand - b1, b2 - b1, operand / 2 - b1 / 2, b2 / 2 - b1 / 2);
    }
  } else {
    if (operand > b1) {
      result = 0;
    } else if (operand <= b2) {
      if (c == INT32_MAX) {
        return Status::Invalid("integer out of range").WithSqlState(sqlstate::kNumericValueOutOfRange);
      }
      result = c + 1;
    } else {
      result = Bucket(c, b1 - operand, b1 - b2, b1 / 2 - operand / 2, b1 / 2 - b2 / 2);
    }
  }
  return result;
}

// width_bucket over numerics, exactly, as PostgreSQL's width_bucket_numeric:
// floor((operand - low) * count / (high - low)) + 1 in 128-bit integers at
// the common scale of the three values.
Result<int32_t> WidthBucketDecimal(int128_t op, int128_t b1, int128_t b2, int64_t count) {
  auto error = [](const char* m) { return Status::Invalid("{}", m).WithSqlState("2201G"); };
  if (count <= 0) return error("count must be greater than zero");
  if (b1 == b2) return error("lower bound cannot equal upper bound");
  if (count > INT32_MAX - 1) {
    return Status::Invalid("integer out of range").WithSqlState(sqlstate::kNumericValueOutOfRange);
  }
  int128_t num, den;
  if (b1 < b2) {
    if (op < b1) return 0;
    if (op >= b2) return static_cast<int32_t>(count + 1);
    num = op - b1;
    den = b2 - b1;
  } else {
    if (op > b1) return 0;
    if (op <= b2) return static_cast<int32_t>(count + 1);
    num = b1 - op;
    den = b1 - b2;
  }
  // num < den: (num * count) / den without overflowing, as q * count + r * count / den.
  int128_t prod;
  if (__builtin_mul_overflow(num, static_cast<int128_t>(count), &prod)) {
    return Status::Unsupported("width_bucket over numerics this large")
        .WithSqlState(sqlstate::kFeatureNotSupported);
  }
  return static_cast<int32_t>(prod / den + 1);
}

}  // namespace

void RegisterTextFunctions(FunctionRegistry* r) {
  const TypeRef text = utf8();
  r->Add({"translate", {text, text, text}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            StringAccess s(args[0]), from(args[1]), to(args[2]);
            return StringRows(ctx, args, n, out, true,
                              [&](int64_t i, const std::vector<ValidAccess>&, std::string* buf) -> Result<bool> {
                                const auto f = SplitChars(from(i));
                                const auto t = SplitChars(to(i));
                                const std::string_view v = s(i);
                                for (size_t k = 0; k < v.size();) {
                                  const size_t len = CharBytes(v, k);
                                  const std::string_view ch = v.substr(k, len);
                                  k += len;
                                  const auto it = std::find(f.begin(), f.end(), ch);
                                  if (it == f.end()) {
                                    buf->append(ch);
                                  } else if (static_cast<size_t>(it - f.begin()) < t.size()) {
                                    buf->append(t[static_cast<size_t>(it - f.begin())]);
                                  }
                                }
                                return false;
                              });
          }});

  // concat_ws(separator, ...): NULL separator gives NULL; NULL values are skipped.
  ScalarFunction concat_ws{"concat_ws", {text, text}, text, text, nullptr,
                           [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                              const TypeRef& out) {
                             std::vector<StringAccess> get;
                             for (const auto& a : args) get.emplace_back(a);
                             return StringRows(ctx, args, n, out, false,
                                               [&](int64_t i, const std::vector<ValidAccess>& valid,
                                                   std::string* buf) -> Result<bool> {
                                                 if (!valid[0](i)) return true;
                                                 bool first = true;
                                                 for (size_t k = 1; k < get.size(); ++k) {
                                                   if (!valid[k](i)) continue;
                                                   if (!first) buf->append(get[0](i));
                                                   buf->append(get[k](i));
                                                   first = false;
                                                 }
                                                 return false;
                                               });
                           }};
  concat_ws.strict = false;
  r->Add(concat_ws);

  ScalarFunction format{"format", {text}, text, text, nullptr,
                        [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                           const TypeRef& out) {
                          std::vector<StringAccess> get;
                          for (const auto& a : args) get.emplace_back(a);
                          return StringRows(ctx, args, n, out, false,
                                            [&](int64_t i, const std::vector<ValidAccess>& valid,
                                                std::string* buf) -> Result<bool> {
                                              if (!valid[0](i)) return true;
                                              QUIVER_RETURN_NOT_OK(Format(get[0](i), get, valid, i, buf));
                                              return false;
                                            });
                        }};
  format.strict = false;
  r->Add(format);

  r->Add({"quote_ident", {text}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            StringAccess s(args[0]);
            return StringRows(ctx, args, n, out, true,
                              [&](int64_t i, const std::vector<ValidAccess>&, std::string* buf) -> Result<bool> {
                                QuoteIdent(s(i), buf);
                                return false;
                              });
          }});
  r->Add({"quote_literal", {text}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            StringAccess s(args[0]);
            return StringRows(ctx, args, n, out, true,
                              [&](int64_t i, const std::vector<ValidAccess>&, std::string* buf) -> Result<bool> {
                                QuoteLiteral(s(i), buf);
                                return false;
                              });
          }});
  ScalarFunction quote_nullable{"quote_nullable", {text}, nullptr, text, nullptr,
                                [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                                   const TypeRef& out) {
                                  StringAccess s(args[0]);
                                  return StringRows(ctx, args, n, out, false,
                                                    [&](int64_t i, const std::vector<ValidAccess>& valid,
                                                        std::string* buf) -> Result<bool> {
                                                      if (!valid[0](i)) {
                                                        buf->append("NULL");
                                                      } else {
                                                        QuoteLiteral(s(i), buf);
                                                      }
                                                      return false;
                                                    });
                                }};
  quote_nullable.strict = false;
  r->Add(quote_nullable);

  // A boolean's text as its output function writes it ('t' / 'f'; the cast
  // to text says 'true'): the text concat, format and quote_* see.
  r->Add({"__bool_out", {boolean()}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            kernels::BoolAccess b(args[0]);
            return StringRows(ctx, args, n, out, true,
                              [&](int64_t i, const std::vector<ValidAccess>&, std::string* buf) -> Result<bool> {
                                buf->push_back(b(i) ? 't' : 'f');
                                return false;
                              });
          }});

  auto md5 = [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
    StringAccess s(args[0]);
    std::string digest;
    return StringRows(ctx, args, n, out, true,
                      [&](int64_t i, const std::vector<ValidAccess>&, std::string* buf) -> Result<bool> {
                        QUIVER_RETURN_NOT_OK(Digest(EVP_md5(), s(i), &digest));
                        AppendHex(digest, buf);
                        return false;
                      });
  };
  r->Add({"md5", {text}, nullptr, text, nullptr, md5});
  r->Add({"md5", {binary()}, nullptr, text, nullptr, md5});
  const std::pair<const char*, const EVP_MD* (*)()> shas[] = {
      {"sha224", EVP_sha224}, {"sha256", EVP_sha256}, {"sha384", EVP_sha384}, {"sha512", EVP_sha512}};
  for (const auto& [name, md] : shas) {
    r->Add({name, {binary()}, nullptr, binary(), nullptr,
            [md = md](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                      const TypeRef& out) {
              StringAccess s(args[0]);
              return StringRows(ctx, args, n, out, true,
                                [&](int64_t i, const std::vector<ValidAccess>&, std::string* buf) -> Result<bool> {
                                  QUIVER_RETURN_NOT_OK(Digest(md(), s(i), buf));
                                  return false;
                                });
            }});
  }
  r->Add({"encode", {binary(), text}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            StringAccess s(args[0]), e(args[1]);
            return StringRows(ctx, args, n, out, true,
                              [&](int64_t i, const std::vector<ValidAccess>&, std::string* buf) -> Result<bool> {
                                const std::string_view enc = e(i);
                                if (enc == "hex") {
                                  AppendHex(s(i), buf);
                                } else if (enc == "base64") {
                                  AppendBase64(s(i), buf);
                                } else {
                                  return UnknownEncoding(enc);
                                }
                                return false;
                              });
          }});
  r->Add({"decode", {text, text}, nullptr, binary(), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out) {
            StringAccess s(args[0]), e(args[1]);
            return StringRows(ctx, args, n, out, true,
                              [&](int64_t i, const std::vector<ValidAccess>&, std::string* buf) -> Result<bool> {
                                const std::string_view enc = e(i);
                                if (enc == "hex") {
                                  QUIVER_RETURN_NOT_OK(DecodeHex(s(i), buf));
                                } else if (enc == "base64") {
                                  QUIVER_RETURN_NOT_OK(DecodeBase64(s(i), buf));
                                } else {
                                  return UnknownEncoding(enc);
                                }
                                return false;
                              });
          }});

  r->Add({"width_bucket", {float64(), float64(), float64(), int64()}, nullptr, int32(), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
             const TypeRef& out_type) -> Result<ArrayRef> {
            QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, args, n, ctx.pool));
            int32_t* dst = out.data<int32_t>();
            const double* x = args[0].values<double>();
            const double* lo = args[1].values<double>();
            const double* hi = args[2].values<double>();
            for (int64_t i = 0; i < n; ++i) {
              if (!out.IsValid(i)) continue;
              QUIVER_ASSIGN_OR_RAISE(dst[i], WidthBucket(x[args[0].index(i)], lo[args[1].index(i)],
                                                         hi[args[2].index(i)], ReadInt(args[3], i)));
            }
            return kernels::FinishFixed(out_type, n, std::move(out));
          }});
  r->Add({"width_bucket", {AnyDecimal(), AnyDecimal(), AnyDecimal(), int64()}, nullptr, int32(), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
             const TypeRef& out_type) -> Result<ArrayRef> {
            QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, args, n, ctx.pool));
            int32_t* dst = out.data<int32_t>();
            int scale = 0;
            for (int k = 0; k < 3; ++k) scale = std::max(scale, args[static_cast<size_t>(k)].array->type->scale);
            int128_t factor[3];
            for (int k = 0; k < 3; ++k) {
              factor[k] = Pow10Int128(scale - args[static_cast<size_t>(k)].array->type->scale);
            }
            for (int64_t i = 0; i < n; ++i) {
              if (!out.IsValid(i)) continue;
              int128_t v[3];
              for (int k = 0; k < 3; ++k) {
                const VectorRef& a = args[static_cast<size_t>(k)];
                const int128_t raw = LoadValue(a.values<int128_t>() + a.index(i));
                if (__builtin_mul_overflow(raw, factor[k], &v[k])) {
                  return Status::Unsupported("width_bucket over numerics this large")
                      .WithSqlState(sqlstate::kFeatureNotSupported);
                }
              }
              QUIVER_ASSIGN_OR_RAISE(dst[i], WidthBucketDecimal(v[0], v[1], v[2], ReadInt(args[3], i)));
            }
            return kernels::FinishFixed(out_type, n, std::move(out));
          }});
}

}  // namespace quiver
