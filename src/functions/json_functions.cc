// json and jsonb operators and functions (PostgreSQL 15's): -> ->> #> #>>,
// @> <@ ? ?| ?& and = <> on jsonb, json[b]_extract_path[_text],
// json[b]_typeof, json[b]_array_length; jsonb's modifiers (|| - #- jsonb_set
// jsonb_insert jsonb_pretty) and json[b]_strip_nulls are in json_modify.cc.
// They work on the text itself (functions/json_scan.h):
// a field is found by skipping the values before it, nothing is parsed into
// a tree. json keeps its input text, so `->` on json returns the value as
// written; jsonb is stored normalised, so `->` on jsonb returns jsonb's text.
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
    const bool jsonb = IsJsonb(*jt);
    r->Add({op, {jt, int32()}, nullptr, out, nullptr,
            [as_text, jsonb](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                             const TypeRef& out_type) {
              StringAccess doc(args[0]);
              return StringRows(ctx, args, n, out_type,
                                [&](int64_t i, std::string_view* v, std::string* buf) -> Result<bool> {
                                  std::string_view elem;
                                  const int64_t index = ReadInt32(args[1], i);
                                  if (!json::ArrayElement(doc(i), index, &elem)) {
                                    // PostgreSQL keeps a jsonb scalar as a one-element
                                    // array, which -> 0 and -> -1 find ('5'::jsonb -> 0
                                    // is 5); json's -> does not.
                                    elem = json::TrimBlanks(doc(i));
                                    const json::Kind k = json::KindOf(elem);
                                    if (!jsonb || (index != 0 && index != -1) ||
                                        k == json::Kind::kObject || k == json::Kind::kArray ||
                                        k == json::Kind::kInvalid) {
                                      return false;
                                    }
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


// jsonb ?| text[] (any of the keys) and ?& text[] (all of them), each key
// as `?` takes it; NULL elements are skipped, as PostgreSQL does (so an
// empty or all-NULL array gives false for ?| and true for ?&).
void AddJsonbKeysPredicate(FunctionRegistry* r, const std::string& name, bool all) {
  r->Add({name, {jsonb_type(), ArrayOf(utf8())}, nullptr, boolean(), nullptr,
          [all](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                const TypeRef& out_type) {
            StringAccess a(args[0]);
            PathReader keys(args[1]);
            return FixedRows<bool>(ctx, args, n, out_type,
                                   [&](int64_t i) -> Result<std::optional<bool>> {
                                     const PathArg* p = keys.Get(i);
                                     const std::string_view doc = a(i);
                                     for (size_t k = 0; k < p->steps.size(); ++k) {
                                       if (p->nulls[k]) continue;
                                       if (json::HasKey(doc, p->steps[k]) != all) {
                                         return std::optional<bool>(!all);
                                       }
                                     }
                                     return std::optional<bool>(all);
                                   });
          }});
}

}  // namespace

void RegisterJsonBuildFunctions(FunctionRegistry* r);   // functions/json_build.cc
void RegisterJsonModifyFunctions(FunctionRegistry* r);  // functions/json_modify.cc

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
  AddJsonbKeysPredicate(r, "?|", /*all=*/false);
  AddJsonbKeysPredicate(r, "?&", /*all=*/true);
  AddJsonbPredicate(r, "=", jsonb, [](std::string_view a, std::string_view b) {
    return json::Equal(a, b);
  });
  AddJsonbPredicate(r, "<>", jsonb, [](std::string_view a, std::string_view b) {
    return !json::Equal(a, b);
  });
  RegisterJsonModifyFunctions(r);
}

}  // namespace quiver
