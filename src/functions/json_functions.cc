// json and jsonb operators and functions (PostgreSQL 15's): -> ->> #> #>>,
// @> <@ ? and = <> on jsonb, json[b]_extract_path[_text], json[b]_typeof,
// json[b]_array_length, and jsonb's modifiers: || - #- jsonb_set jsonb_pretty. They work on the text itself (functions/json_scan.h):
// a field is found by skipping the values before it, nothing is parsed into
// a tree. json keeps its input text, so `->` on json returns the value as
// written; jsonb is stored normalised, so `->` on jsonb returns jsonb's text.
#include <optional>
#include <string>
#include <vector>

#include "functions/function.h"
#include "functions/json_scan.h"
#include "functions/kernel_util.h"
#include "vector/json_type.h"
#include "vector/sql_type.h"

namespace quiver {
namespace {

using kernels::StringAccess;
using kernels::ValidAccess;

bool AllValid(const std::vector<ValidAccess>& valid, int64_t i) {
  for (const auto& v : valid) {
    if (!v(i)) return false;
  }
  return true;
}

// Rows with a NULL argument give NULL; others call fn(i, &value, &scratch),
// which returns false for NULL. `value` may point into the input or into
// `scratch`.
template <typename F>
Result<ArrayRef> StringRows(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                            const TypeRef& out_type, F fn) {
  kernels::StringOutput out(out_type, n, ctx.pool);
  std::vector<ValidAccess> valid(args.begin(), args.end());
  std::string scratch;
  for (int64_t i = 0; i < n; ++i) {
    std::string_view v;
    bool present = false;
    if (AllValid(valid, i)) {
      QUIVER_ASSIGN_OR_RAISE(present, fn(i, &v, &scratch));
    }
    QUIVER_RETURN_NOT_OK(present ? out.Append(v) : out.AppendNull());
  }
  return out.Finish();
}

// As StringRows for functions returning boolean or integer: fn(i) gives
// the value, or nullopt for NULL.
template <typename T, typename F>
Result<ArrayRef> FixedRows(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                           const TypeRef& out_type, F fn) {
  std::vector<ValidAccess> valid(args.begin(), args.end());
  QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, ctx.pool));
  std::shared_ptr<MutableBuffer> values;
  if constexpr (!std::is_same_v<T, bool>) {
    QUIVER_ASSIGN_OR_RAISE(values, kernels::AllocateValues(n, sizeof(T), ctx.pool));
  } else {
    QUIVER_ASSIGN_OR_RAISE(values, kernels::AllocateBitmap(n, ctx.pool));
  }
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    std::optional<T> r;
    if (AllValid(valid, i)) {
      QUIVER_ASSIGN_OR_RAISE(r, fn(i));
    }
    if (!r) {
      ++nulls;
      continue;
    }
    bit_util::SetBit(bits->mutable_data(), i);
    if constexpr (std::is_same_v<T, bool>) {
      if (*r) bit_util::SetBit(values->mutable_data(), i);
    } else {
      values->mutable_data_as<T>()[i] = *r;
    }
  }
  kernels::FixedOutput out;
  out.values = std::move(values);
  out.null_count = nulls;
  if (nulls > 0) out.validity = std::move(bits);
  return kernels::FinishFixed(out_type, n, std::move(out));
}

int64_t ReadInt32(const VectorRef& v, int64_t i) { return v.values<int32_t>()[v.index(i)]; }

// A text[] literal as #> takes it: '{a,b,"c d"}'. PostgreSQL's array input
// rules for one dimension: unquoted elements are trimmed, "..." may hold
// backslash escapes, an unquoted NULL is a NULL element (*has_null).
Status ParseTextArray(std::string_view s, std::vector<std::string>* out, bool* has_null) {
  out->clear();
  *has_null = false;
  auto malformed = [&](const char* why) {
    return Status::Invalid("malformed array literal: \"{}\"", std::string(s))
        .WithSqlState(sqlstate::kInvalidTextRepresentation)
        .WithDetail(why);
  };
  size_t i = 0;
  auto blank = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  };
  while (i < s.size() && blank(s[i])) ++i;
  if (i >= s.size() || s[i] != '{') return malformed("Array value must start with \"{\" or dimension information.");
  ++i;
  while (i < s.size() && blank(s[i])) ++i;
  if (i < s.size() && s[i] == '}') {
    ++i;
  } else {
    while (true) {
      while (i < s.size() && blank(s[i])) ++i;
      if (i >= s.size()) return malformed("Unexpected end of input.");
      std::string elem;
      if (s[i] == '"') {
        ++i;
        while (i < s.size() && s[i] != '"') {
          if (s[i] == '\\' && i + 1 < s.size()) ++i;
          elem.push_back(s[i++]);
        }
        if (i >= s.size()) return malformed("Unexpected end of input.");
        ++i;
        out->push_back(std::move(elem));
      } else {
        if (s[i] == '{') return malformed("Unexpected \"{\" character.");
        while (i < s.size() && s[i] != ',' && s[i] != '}') {
          if (s[i] == '"') return malformed("Unexpected array element.");
          if (s[i] == '\\' && i + 1 < s.size()) ++i;
          elem.push_back(s[i++]);
        }
        while (!elem.empty() && blank(elem.back())) elem.pop_back();
        if (elem.empty()) return malformed("Unexpected \",\" character.");
        if (elem.size() == 4 && (elem[0] | 0x20) == 'n' && (elem[1] | 0x20) == 'u' &&
            (elem[2] | 0x20) == 'l' && (elem[3] | 0x20) == 'l') {
          *has_null = true;
        }
        out->push_back(std::move(elem));
      }
      while (i < s.size() && blank(s[i])) ++i;
      if (i < s.size() && s[i] == ',') {
        ++i;
        continue;
      }
      if (i < s.size() && s[i] == '}') {
        ++i;
        break;
      }
      return malformed("Unexpected end of input.");
    }
  }
  while (i < s.size() && blank(s[i])) ++i;
  if (i != s.size()) return malformed("Junk after closing right brace.");
  return Status::OK();
}

// Follows `steps` from `json`; false when a step finds nothing.
bool FollowPath(std::string_view json, const std::vector<std::string_view>& steps,
                std::string_view* out) {
  // An empty path gives the whole value, without the blanks around it.
  std::string_view cur = json::TrimBlanks(json);
  for (auto step : steps) {
    if (!json::PathStep(cur, step, &cur)) return false;
  }
  *out = cur;
  return true;
}

// ->> and #>>'s result: the value's text (NULL for a JSON null).
Result<bool> AsText(std::string_view value, std::string_view* out, std::string* scratch) {
  QUIVER_ASSIGN_OR_RAISE(bool present, json::ValueText(value, scratch));
  *out = *scratch;
  return present;
}

void AddAccessors(FunctionRegistry* r, const TypeRef& jt) {
  const TypeRef text = utf8();
  // json -> 'key', json -> index (and ->> for text).
  for (const bool as_text : {false, true}) {
    const char* op = as_text ? "->>" : "->";
    const TypeRef out = as_text ? text : jt;
    r->Add({op, {jt, text}, nullptr, out, nullptr,
            [as_text](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                      const TypeRef& out_type) {
              StringAccess doc(args[0]), key(args[1]);
              return StringRows(ctx, args, n, out_type,
                                [&](int64_t i, std::string_view* v, std::string* buf) -> Result<bool> {
                                  std::string_view field;
                                  if (!json::ObjectField(doc(i), key(i), &field)) return false;
                                  if (as_text) return AsText(field, v, buf);
                                  *v = field;
                                  return true;
                                });
            }});
    r->Add({op, {jt, int32()}, nullptr, out, nullptr,
            [as_text](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                      const TypeRef& out_type) {
              StringAccess doc(args[0]);
              return StringRows(ctx, args, n, out_type,
                                [&](int64_t i, std::string_view* v, std::string* buf) -> Result<bool> {
                                  std::string_view elem;
                                  if (!json::ArrayElement(doc(i), ReadInt32(args[1], i), &elem)) {
                                    return false;
                                  }
                                  if (as_text) return AsText(elem, v, buf);
                                  *v = elem;
                                  return true;
                                });
            }});
    // json #> '{a,0,b}': the path is a text[] literal, parsed here (once
    // when it is a constant).
    r->Add({as_text ? "#>>" : "#>", {jt, text}, nullptr, out, nullptr,
            [as_text](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                      const TypeRef& out_type) {
              StringAccess doc(args[0]), path(args[1]);
              std::string parsed_text;
              bool parsed = false, has_null = false;
              std::vector<std::string> steps;
              std::vector<std::string_view> views;
              return StringRows(ctx, args, n, out_type,
                                [&](int64_t i, std::string_view* v, std::string* buf) -> Result<bool> {
                                  const std::string_view p = path(i);
                                  if (!parsed || p != parsed_text) {
                                    QUIVER_RETURN_NOT_OK(ParseTextArray(p, &steps, &has_null));
                                    parsed_text.assign(p);
                                    parsed = true;
                                    views.assign(steps.begin(), steps.end());
                                  }
                                  if (has_null) return false;
                                  std::string_view found;
                                  if (!FollowPath(doc(i), views, &found)) return false;
                                  if (as_text) return AsText(found, v, buf);
                                  *v = found;
                                  return true;
                                });
            }});
  }
}

// `x::jsonb -> 'k'` and `x::jsonb ->> 'k'` for text or json x, as the binder
// fuses them (planner/bind_expression.cc): json::JsonbFieldOfText normalises
// only the field's value, not the whole document.
void AddJsonbFieldOfText(FunctionRegistry* r) {
  const TypeRef text = utf8();
  for (const bool as_text : {false, true}) {
    for (const TypeRef& from : {text, json_type()}) {
      r->Add({as_text ? "__jsonb_field_text_of_text" : "__jsonb_field_of_text",
              {from, text}, nullptr, as_text ? text : jsonb_type(), nullptr,
              [as_text](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                        const TypeRef& out_type) {
                StringAccess doc(args[0]), key(args[1]);
                std::string field;
                return StringRows(
                    ctx, args, n, out_type,
                    [&](int64_t i, std::string_view* v, std::string* buf) -> Result<bool> {
                      QUIVER_ASSIGN_OR_RAISE(bool found,
                                             json::JsonbFieldOfText(doc(i), key(i), &field));
                      if (!found) return false;
                      if (as_text) return AsText(field, v, buf);
                      buf->swap(field);
                      *v = *buf;
                      return true;
                    });
              }});
    }
  }
}

void AddExtractPath(FunctionRegistry* r, const std::string& name, const TypeRef& jt,
                    bool as_text) {
  const TypeRef text = utf8();
  r->Add({name, {jt}, text, as_text ? text : jt, nullptr,
          [as_text](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                    const TypeRef& out_type) {
            StringAccess doc(args[0]);
            std::vector<StringAccess> steps;
            for (size_t k = 1; k < args.size(); ++k) steps.emplace_back(args[k]);
            std::vector<std::string_view> views(steps.size());
            return StringRows(ctx, args, n, out_type,
                              [&](int64_t i, std::string_view* v, std::string* buf) -> Result<bool> {
                                for (size_t k = 0; k < steps.size(); ++k) views[k] = steps[k](i);
                                std::string_view found;
                                if (!FollowPath(doc(i), views, &found)) return false;
                                if (as_text) return AsText(found, v, buf);
                                *v = found;
                                return true;
                              });
          }});
}

void AddTypeof(FunctionRegistry* r, const std::string& name, const TypeRef& jt) {
  r->Add({name, {jt}, nullptr, utf8(), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
             const TypeRef& out_type) {
            StringAccess doc(args[0]);
            return StringRows(ctx, args, n, out_type,
                              [&](int64_t i, std::string_view* v, std::string*) -> Result<bool> {
                                *v = json::KindName(json::KindOf(doc(i)));
                                return true;
                              });
          }});
}

void AddArrayLength(FunctionRegistry* r, const std::string& name, const TypeRef& jt) {
  r->Add({name, {jt}, nullptr, int32(), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
             const TypeRef& out_type) {
            StringAccess doc(args[0]);
            std::vector<std::string_view> elems;
            return FixedRows<int32_t>(ctx, args, n, out_type,
                                      [&](int64_t i) -> Result<std::optional<int32_t>> {
                                        const json::Kind k = json::KindOf(doc(i));
                                        if (k == json::Kind::kObject) {
                                          return Status::Invalid(
                                                     "cannot get array length of a non-array")
                                              .WithSqlState(sqlstate::kInvalidParameterValue);
                                        }
                                        if (k != json::Kind::kArray) {
                                          return Status::Invalid(
                                                     "cannot get array length of a scalar")
                                              .WithSqlState(sqlstate::kInvalidParameterValue);
                                        }
                                        json::ArrayElements(doc(i), &elems);
                                        return std::optional<int32_t>(
                                            static_cast<int32_t>(elems.size()));
                                      });
          }});
}

template <typename Pred>
void AddJsonbPredicate(FunctionRegistry* r, const std::string& name, const TypeRef& right,
                       Pred pred) {
  r->Add({name, {jsonb_type(), right}, nullptr, boolean(), nullptr,
          [pred](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                 const TypeRef& out_type) {
            StringAccess a(args[0]), b(args[1]);
            return FixedRows<bool>(ctx, args, n, out_type,
                                   [&](int64_t i) -> Result<std::optional<bool>> {
                                     return std::optional<bool>(pred(a(i), b(i)));
                                   });
          }});
}


// --- jsonb modification: || - #- jsonb_set jsonb_pretty -----------------------------
//
// PostgreSQL 15's semantics (jsonfuncs.c: IteratorConcat, jsonb_delete*,
// setPath*, JsonbToCStringIndent). Results are written as JSON text and put
// back in jsonb's normal form by json::ToJsonb (merged objects re-sorted,
// the right operand's key winning as in PostgreSQL).

Status InvalidParameter(const char* message) {
  return Status::Invalid("{}", message).WithSqlState(sqlstate::kInvalidParameterValue);
}

bool IsContainer(json::Kind k) { return k == json::Kind::kObject || k == json::Kind::kArray; }

// The number of elements or pairs of a container (0 for scalars).
size_t ContainerCount(std::string_view v) {
  std::vector<std::string_view> elems;
  std::vector<std::string> keys;
  if (json::ArrayElements(v, &elems)) return elems.size();
  if (json::ObjectMembers(v, &keys, &elems)) return keys.size();
  return 0;
}

Result<bool> Normalised(const std::string& text, std::string_view* out, std::string* scratch) {
  std::string norm;
  QUIVER_RETURN_NOT_OK(json::ToJsonb(text, &norm));
  *scratch = std::move(norm);
  *out = *scratch;
  return true;
}

void AppendMember(std::string_view key, std::string_view value, std::string* out) {
  if (out->back() != '{') out->append(", ");
  json::AppendQuoted(key, out);
  out->append(": ");
  out->append(value);
}

void AppendElement(std::string_view value, std::string* out) {
  if (out->back() != '[') out->append(", ");
  out->append(value);
}

// jsonb || jsonb: two objects merge; otherwise both sides become element
// lists (an object or a scalar is one element) and are concatenated.
std::string Concat(std::string_view a, std::string_view b) {
  a = json::TrimBlanks(a);
  b = json::TrimBlanks(b);
  std::string out;
  if (json::KindOf(a) == json::Kind::kObject && json::KindOf(b) == json::Kind::kObject) {
    out = "{";
    for (std::string_view side : {a, b}) {
      std::vector<std::string> keys;
      std::vector<std::string_view> values;
      json::ObjectMembers(side, &keys, &values);
      for (size_t k = 0; k < keys.size(); ++k) AppendMember(keys[k], values[k], &out);
    }
    out.push_back('}');
    return out;
  }
  out = "[";
  for (std::string_view side : {a, b}) {
    std::vector<std::string_view> elems;
    if (json::ArrayElements(side, &elems)) {
      for (auto e : elems) AppendElement(e, &out);
    } else {
      AppendElement(side, &out);
    }
  }
  out.push_back(']');
  return out;
}

// jsonb - text / jsonb - text[]: drops the keys, or the string elements,
// that `drop` accepts. Errors on a scalar as PostgreSQL does.
template <typename Drop>
Result<std::string> DeleteKeys(std::string_view v, Drop drop) {
  v = json::TrimBlanks(v);
  std::vector<std::string_view> values;
  std::vector<std::string> keys;
  std::string out;
  if (json::ObjectMembers(v, &keys, &values)) {
    out = "{";
    for (size_t k = 0; k < keys.size(); ++k) {
      if (!drop(keys[k])) AppendMember(keys[k], values[k], &out);
    }
    out.push_back('}');
    return out;
  }
  if (json::ArrayElements(v, &values)) {
    out = "[";
    std::string text;
    for (auto e : values) {
      if (json::KindOf(e) == json::Kind::kString) {
        QUIVER_RETURN_NOT_OK(json::ValueText(e, &text).status());
        if (drop(text)) continue;
      }
      AppendElement(e, &out);
    }
    out.push_back(']');
    return out;
  }
  return InvalidParameter("cannot delete from scalar");
}

enum class PathOp { kReplace, kCreate, kDelete };

struct PathArg {
  std::vector<std::string_view> steps;
  std::vector<bool> nulls;
};

Status SetPath(std::string_view v, const PathArg& path, size_t level, std::string_view newval,
               PathOp op, std::string* out);

// PostgreSQL's strtoint on a path step: optional blanks and sign, digits,
// nothing after, within int4.
bool PathIndex(const std::string& s, int64_t* out) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) ++i;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i >= s.size()) return false;
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
    if (v > static_cast<int64_t>(INT32_MAX) + 1) return false;
  }
  v = neg ? -v : v;
  if (v > INT32_MAX || v < INT32_MIN) return false;
  *out = v;
  return true;
}

Status SetPathObject(std::string_view v, const PathArg& path, size_t level,
                     std::string_view newval, PathOp op, std::string* out) {
  std::vector<std::string> keys;
  std::vector<std::string_view> values;
  json::ObjectMembers(v, &keys, &values);
  const std::string_view step = path.steps[level];
  const bool last = level + 1 == path.steps.size();
  bool found = false;
  out->push_back('{');
  for (size_t k = 0; k < keys.size(); ++k) {
    if (!found && keys[k] == step) {
      found = true;
      if (last) {
        if (op != PathOp::kDelete) AppendMember(keys[k], newval, out);
      } else {
        std::string sub;
        QUIVER_RETURN_NOT_OK(SetPath(values[k], path, level + 1, newval, op, &sub));
        AppendMember(keys[k], sub, out);
      }
    } else {
      AppendMember(keys[k], values[k], out);
    }
  }
  if (!found && last && op == PathOp::kCreate) AppendMember(step, newval, out);
  out->push_back('}');
  return Status::OK();
}

Status SetPathArray(std::string_view v, const PathArg& path, size_t level,
                    std::string_view newval, PathOp op, std::string* out) {
  std::vector<std::string_view> elems;
  json::ArrayElements(v, &elems);
  const int64_t n = static_cast<int64_t>(elems.size());
  const std::string step(path.steps[level]);
  int64_t idx = 0;
  if (!PathIndex(step, &idx)) {
    return Status::Invalid("path element at position {} is not an integer: \"{}\"", level + 1,
                           step)
        .WithSqlState(sqlstate::kInvalidTextRepresentation);
  }
  constexpr int64_t kBefore = INT64_MIN;  // PostgreSQL's INT_MIN: before the first element
  if (idx < 0) idx = -idx > n ? kBefore : n + idx;
  if (idx > n) idx = n;
  const bool last = level + 1 == path.steps.size();
  bool done = false;
  out->push_back('[');
  if ((idx == kBefore || n == 0) && last && op == PathOp::kCreate) {
    AppendElement(newval, out);
    done = true;
  }
  for (int64_t i = 0; i < n; ++i) {
    const std::string_view e = elems[static_cast<size_t>(i)];
    if (i == idx) {
      done = true;
      if (last) {
        if (op != PathOp::kDelete) AppendElement(newval, out);
      } else {
        std::string sub;
        QUIVER_RETURN_NOT_OK(SetPath(e, path, level + 1, newval, op, &sub));
        AppendElement(sub, out);
      }
    } else {
      AppendElement(e, out);
    }
  }
  if (op == PathOp::kCreate && !done && last) AppendElement(newval, out);
  out->push_back(']');
  return Status::OK();
}

Status SetPath(std::string_view v, const PathArg& path, size_t level, std::string_view newval,
               PathOp op, std::string* out) {
  if (path.nulls[level]) {
    return Status::Invalid("path element at position {} is null", level + 1)
        .WithSqlState(sqlstate::kNullValueNotAllowed);
  }
  v = json::TrimBlanks(v);
  switch (json::KindOf(v)) {
    case json::Kind::kObject:
      return SetPathObject(v, path, level, newval, op, out);
    case json::Kind::kArray:
      return SetPathArray(v, path, level, newval, op, out);
    default:
      out->append(v);
      return Status::OK();
  }
}

// A text[] argument's elements, row by row (NULL elements flagged).
class PathReader {
 public:
  explicit PathReader(const VectorRef& v)
      : ref_(v), off_(v.array->GetValues<int32_t>(1)),
        child_{v.array->children[0].get(), nullptr, false} {}

  const PathArg* Get(int64_t i) {
    const int64_t s = ref_.index(i);
    kernels::StringAccess str(child_);
    kernels::ValidAccess valid(child_);
    path_.steps.clear();
    path_.nulls.clear();
    for (int32_t k = off_[s]; k < off_[s + 1]; ++k) {
      const bool is_null = !valid(k);
      path_.nulls.push_back(is_null);
      path_.steps.push_back(is_null ? std::string_view() : str(k));
    }
    return &path_;
  }

 private:
  VectorRef ref_;
  const int32_t* off_;
  VectorRef child_;
  PathArg path_;
};

// jsonb's indented text (jsonb_pretty): one item a line, four spaces a level;
// an empty container is its brackets on two lines.
void Pretty(std::string_view v, int level, std::string* out) {
  v = json::TrimBlanks(v);
  const auto indent = [&](int l) {
    out->push_back('\n');
    out->append(static_cast<size_t>(l) * 4, ' ');
  };
  std::vector<std::string> keys;
  std::vector<std::string_view> values;
  if (json::ObjectMembers(v, &keys, &values)) {
    out->push_back('{');
    for (size_t k = 0; k < keys.size(); ++k) {
      if (k > 0) out->push_back(',');
      indent(level + 1);
      json::AppendQuoted(keys[k], out);
      out->append(": ");
      Pretty(values[k], level + 1, out);
    }
    indent(level);
    out->push_back('}');
    return;
  }
  if (json::ArrayElements(v, &values)) {
    out->push_back('[');
    for (size_t k = 0; k < values.size(); ++k) {
      if (k > 0) out->push_back(',');
      indent(level + 1);
      Pretty(values[k], level + 1, out);
    }
    indent(level);
    out->push_back(']');
    return;
  }
  out->append(v);
}

void AddJsonbModify(FunctionRegistry* r) {
  const TypeRef jb = jsonb_type();
  const TypeRef text = utf8();
  const TypeRef text_array = ArrayOf(utf8());
  r->Add({"||", {jb, jb}, nullptr, jb, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
             const TypeRef& out_type) {
            StringAccess a(args[0]), b(args[1]);
            return StringRows(ctx, args, n, out_type,
                              [&](int64_t i, std::string_view* v, std::string* buf) -> Result<bool> {
                                return Normalised(Concat(a(i), b(i)), v, buf);
                              });
          }});
  r->Add({"-", {jb, text}, nullptr, jb, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
             const TypeRef& out_type) {
            StringAccess a(args[0]), key(args[1]);
            return StringRows(ctx, args, n, out_type,
                              [&](int64_t i, std::string_view* v, std::string* buf) -> Result<bool> {
                                const std::string_view k = key(i);
                                QUIVER_ASSIGN_OR_RAISE(
                                    std::string t,
                                    DeleteKeys(a(i), [&](std::string_view s) { return s == k; }));
                                return Normalised(t, v, buf);
                              });
          }});
  r->Add({"-", {jb, text_array}, nullptr, jb, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
             const TypeRef& out_type) {
            StringAccess a(args[0]);
            PathReader keys(args[1]);
            return StringRows(ctx, args, n, out_type,
                              [&](int64_t i, std::string_view* v, std::string* buf) -> Result<bool> {
                                const PathArg* p = keys.Get(i);
                                QUIVER_ASSIGN_OR_RAISE(
                                    std::string t, DeleteKeys(a(i), [&](std::string_view s) {
                                      for (size_t k = 0; k < p->steps.size(); ++k) {
                                        if (!p->nulls[k] && p->steps[k] == s) return true;
                                      }
                                      return false;
                                    }));
                                return Normalised(t, v, buf);
                              });
          }});
  r->Add({"-", {jb, int32()}, nullptr, jb, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
             const TypeRef& out_type) {
            StringAccess a(args[0]);
            return StringRows(ctx, args, n, out_type,
                              [&](int64_t i, std::string_view* v, std::string* buf) -> Result<bool> {
                                const std::string_view doc = json::TrimBlanks(a(i));
                                const json::Kind kind = json::KindOf(doc);
                                if (kind == json::Kind::kObject) {
                                  return InvalidParameter(
                                      "cannot delete from object using integer index");
                                }
                                std::vector<std::string_view> elems;
                                if (!json::ArrayElements(doc, &elems)) {
                                  return InvalidParameter("cannot delete from scalar");
                                }
                                const int64_t cnt = static_cast<int64_t>(elems.size());
                                int64_t idx = ReadInt32(args[1], i);
                                if (idx < 0) idx = -idx > cnt ? cnt : cnt + idx;
                                std::string t = "[";
                                for (int64_t k = 0; k < cnt; ++k) {
                                  if (k != idx) AppendElement(elems[static_cast<size_t>(k)], &t);
                                }
                                t.push_back(']');
                                return Normalised(t, v, buf);
                              });
          }});
  // The path is text[] only: an untyped literal ('{a,0}') is cast to it, a
  // text value is refused (42883) as in PostgreSQL.
  {
    const TypeRef& path_type = text_array;
    r->Add({"#-", {jb, path_type}, nullptr, jb, nullptr,
            [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
               const TypeRef& out_type) {
              StringAccess a(args[0]);
              PathReader paths(args[1]);
              return StringRows(
                  ctx, args, n, out_type,
                  [&](int64_t i, std::string_view* v, std::string* buf) -> Result<bool> {
                    const std::string_view doc = json::TrimBlanks(a(i));
                    if (!IsContainer(json::KindOf(doc))) {
                      return InvalidParameter("cannot delete path in scalar");
                    }
                    const PathArg* p = paths.Get(i);
                    if (ContainerCount(doc) == 0 || p->steps.empty()) {
                      *v = doc;
                      return true;
                    }
                    std::string t;
                    QUIVER_RETURN_NOT_OK(SetPath(doc, *p, 0, {}, PathOp::kDelete, &t));
                    return Normalised(t, v, buf);
                  });
            }});
    for (const bool with_create : {false, true}) {
      std::vector<TypeRef> params(with_create ? 4 : 3);
      params[0] = jb;
      params[1] = path_type;
      params[2] = jb;
      if (with_create) params[3] = boolean();
      r->Add({"jsonb_set", params, nullptr, jb, nullptr,
              [with_create](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                            const TypeRef& out_type) {
                StringAccess a(args[0]), newval(args[2]);
                PathReader paths(args[1]);
                std::optional<kernels::BoolAccess> create;
                if (with_create) create.emplace(args[3]);
                return StringRows(
                    ctx, args, n, out_type,
                    [&](int64_t i, std::string_view* v, std::string* buf) -> Result<bool> {
                      const std::string_view doc = json::TrimBlanks(a(i));
                      if (!IsContainer(json::KindOf(doc))) {
                        return InvalidParameter("cannot set path in scalar");
                      }
                      const bool c = create ? (*create)(i) : true;
                      const PathArg* p = paths.Get(i);
                      if ((ContainerCount(doc) == 0 && !c) || p->steps.empty()) {
                        *v = doc;
                        return true;
                      }
                      std::string t;
                      QUIVER_RETURN_NOT_OK(SetPath(doc, *p, 0, json::TrimBlanks(newval(i)),
                                                   c ? PathOp::kCreate : PathOp::kReplace, &t));
                      return Normalised(t, v, buf);
                    });
              }});
    }
  }
  r->Add({"jsonb_pretty", {jb}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
             const TypeRef& out_type) {
            StringAccess a(args[0]);
            return StringRows(ctx, args, n, out_type,
                              [&](int64_t i, std::string_view* v, std::string* buf) -> Result<bool> {
                                buf->clear();
                                Pretty(a(i), 0, buf);
                                *v = *buf;
                                return true;
                              });
          }});
}

}  // namespace

void RegisterJsonBuildFunctions(FunctionRegistry* r);  // functions/json_build.cc

void RegisterJsonFunctions(FunctionRegistry* r) {
  RegisterJsonBuildFunctions(r);
  const TypeRef json = json_type();
  const TypeRef jsonb = jsonb_type();
  AddAccessors(r, json);
  AddAccessors(r, jsonb);
  AddJsonbFieldOfText(r);
  AddExtractPath(r, "json_extract_path", json, false);
  AddExtractPath(r, "json_extract_path_text", json, true);
  AddExtractPath(r, "jsonb_extract_path", jsonb, false);
  AddExtractPath(r, "jsonb_extract_path_text", jsonb, true);
  AddTypeof(r, "json_typeof", json);
  AddTypeof(r, "jsonb_typeof", jsonb);
  AddArrayLength(r, "json_array_length", json);
  AddArrayLength(r, "jsonb_array_length", jsonb);
  AddJsonbPredicate(r, "@>", jsonb, [](std::string_view a, std::string_view b) {
    return json::Contains(a, b);
  });
  AddJsonbPredicate(r, "<@", jsonb, [](std::string_view a, std::string_view b) {
    return json::Contains(b, a);
  });
  AddJsonbPredicate(r, "?", utf8(), [](std::string_view a, std::string_view b) {
    return json::HasKey(a, b);
  });
  AddJsonbPredicate(r, "=", jsonb, [](std::string_view a, std::string_view b) {
    return json::Equal(a, b);
  });
  AddJsonbPredicate(r, "<>", jsonb, [](std::string_view a, std::string_view b) {
    return !json::Equal(a, b);
  });
  AddJsonbModify(r);
}

}  // namespace quiver
