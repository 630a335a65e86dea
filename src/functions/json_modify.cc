// jsonb's modifiers (PostgreSQL 15's): || - #- jsonb_set jsonb_insert
// jsonb_pretty, and json[b]_strip_nulls.
//
// PostgreSQL 15's semantics (jsonfuncs.c: IteratorConcat, jsonb_delete*,
// setPath*, JsonbToCStringIndent). Results are written as JSON text and put
// back in jsonb's normal form by json::ToJsonb (merged objects re-sorted,
// the right operand's key winning as in PostgreSQL).
#include <optional>
#include <string>
#include <vector>

#include "functions/function.h"
#include "functions/json_rows_internal.h"
#include "functions/json_scan.h"
#include "functions/kernel_util.h"
#include "vector/json_type.h"
#include "vector/sql_type.h"

namespace quiver {
namespace {

using namespace json_internal;  // NOLINT: the shared row loops

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

// kInsertBefore / kInsertAfter are jsonb_insert's: a missing key or index
// is created as by kCreate, an existing key is an error, and at an existing
// index the new value goes before or after the element kept there.
enum class PathOp { kReplace, kCreate, kDelete, kInsertBefore, kInsertAfter };

bool Creates(PathOp op) {
  return op == PathOp::kCreate || op == PathOp::kInsertBefore || op == PathOp::kInsertAfter;
}

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
        if (op == PathOp::kInsertBefore || op == PathOp::kInsertAfter) {
          return InvalidParameter("cannot replace existing key")
              .WithHint("Try using the function jsonb_set to replace key value.");
        }
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
  if (!found && last && Creates(op)) AppendMember(step, newval, out);
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
  if ((idx == kBefore || n == 0) && last && Creates(op)) {
    AppendElement(newval, out);
    done = true;
  }
  for (int64_t i = 0; i < n; ++i) {
    const std::string_view e = elems[static_cast<size_t>(i)];
    if (i == idx) {
      done = true;
      if (last) {
        if (op == PathOp::kInsertAfter) AppendElement(e, out);
        if (op != PathOp::kDelete) AppendElement(newval, out);
        if (op == PathOp::kInsertBefore) AppendElement(e, out);
      } else {
        std::string sub;
        QUIVER_RETURN_NOT_OK(SetPath(e, path, level + 1, newval, op, &sub));
        AppendElement(sub, out);
      }
    } else {
      AppendElement(e, out);
    }
  }
  if (Creates(op) && !done && last) AppendElement(newval, out);
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

// json_strip_nulls's text, as PostgreSQL's writes it: no blanks, keys and
// strings unescaped and escaped again (\u0000 is 22P05, as there), numbers
// as written, duplicate keys kept. jsonb's is this text normalised.
Status StripNulls(std::string_view v, std::string* out) {
  v = json::TrimBlanks(v);
  std::vector<std::string> keys;
  std::vector<std::string_view> values;
  if (json::ObjectMembers(v, &keys, &values)) {
    out->push_back('{');
    bool first = true;
    for (size_t k = 0; k < keys.size(); ++k) {
      if (keys[k].find('\0') != std::string::npos) {
        return Status::Invalid("unsupported Unicode escape sequence")
            .WithSqlState("22P05")  // untranslatable_character
            .WithDetail("\\u0000 cannot be converted to text.");
      }
      if (json::KindOf(values[k]) == json::Kind::kNull) continue;
      if (!first) out->push_back(',');
      first = false;
      json::AppendQuoted(keys[k], out);
      out->push_back(':');
      QUIVER_RETURN_NOT_OK(StripNulls(values[k], out));
    }
    out->push_back('}');
    return Status::OK();
  }
  if (json::ArrayElements(v, &values)) {
    out->push_back('[');
    for (size_t k = 0; k < values.size(); ++k) {
      if (k > 0) out->push_back(',');
      QUIVER_RETURN_NOT_OK(StripNulls(values[k], out));
    }
    out->push_back(']');
    return Status::OK();
  }
  if (json::KindOf(v) == json::Kind::kString) {
    std::string text;
    QUIVER_RETURN_NOT_OK(json::ValueText(v, &text).status());
    json::AppendQuoted(text, out);
    return Status::OK();
  }
  out->append(v);
  return Status::OK();
}

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
  // jsonb_insert(target, path, new [, insert_after]): as jsonb_set, but
  // without its shortcut for an empty container (a path into one inserts).
  for (const bool with_after : {false, true}) {
    std::vector<TypeRef> params = {jb, text_array, jb};
    if (with_after) params.push_back(boolean());
    r->Add({"jsonb_insert", params, nullptr, jb, nullptr,
            [with_after](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                         const TypeRef& out_type) {
              StringAccess a(args[0]), newval(args[2]);
              PathReader paths(args[1]);
              std::optional<kernels::BoolAccess> after;
              if (with_after) after.emplace(args[3]);
              return StringRows(
                  ctx, args, n, out_type,
                  [&](int64_t i, std::string_view* v, std::string* buf) -> Result<bool> {
                    const std::string_view doc = json::TrimBlanks(a(i));
                    if (!IsContainer(json::KindOf(doc))) {
                      return InvalidParameter("cannot set path in scalar");
                    }
                    const PathArg* p = paths.Get(i);
                    if (p->steps.empty()) {
                      *v = doc;
                      return true;
                    }
                    const bool insert_after = after ? (*after)(i) : false;
                    std::string t;
                    QUIVER_RETURN_NOT_OK(
                        SetPath(doc, *p, 0, json::TrimBlanks(newval(i)),
                                insert_after ? PathOp::kInsertAfter : PathOp::kInsertBefore, &t));
                    return Normalised(t, v, buf);
                  });
            }});
  }
  // json[b]_strip_nulls: object fields whose value is null dropped, at every
  // depth (array elements stay).
  for (const TypeRef& jt : {json_type(), jb}) {
    r->Add({IsJsonb(*jt) ? "jsonb_strip_nulls" : "json_strip_nulls", {jt}, nullptr, jt, nullptr,
            [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
               const TypeRef& out_type) {
              StringAccess a(args[0]);
              const bool jsonb = IsJsonb(*out_type);
              return StringRows(
                  ctx, args, n, out_type,
                  [&](int64_t i, std::string_view* v, std::string* buf) -> Result<bool> {
                    std::string t;
                    QUIVER_RETURN_NOT_OK(StripNulls(a(i), &t));
                    if (jsonb) return Normalised(t, v, buf);
                    *buf = std::move(t);
                    *v = *buf;
                    return true;
                  });
            }});
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

void RegisterJsonModifyFunctions(FunctionRegistry* r) { AddJsonbModify(r); }

}  // namespace quiver
