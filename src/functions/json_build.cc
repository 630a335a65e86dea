// SQL values to JSON, as PostgreSQL 15's datum_to_json: to_json / to_jsonb,
// json[b]_build_object, json[b]_build_array, row_to_json and __row (whole
// rows, planner/bind_row.cc), and the pieces json_agg,
// jsonb_agg, json_object_agg and jsonb_object_agg are bound to
// (planner/bind_json.cc): json_agg(x) is
// __json_wrap_array(string_agg(__json_element(x), ', ')), so grouping,
// ORDER BY, DISTINCT and FILTER come from string_agg's machinery.
//
// Value texts: numbers as PostgreSQL prints them (NaN and infinities as
// strings), booleans true / false, dates, times and intervals as strings,
// timestamps in ISO 8601 ("2024-02-29T10:00:00", with "+00:00" for
// timestamptz), bytea as its \x text, json and jsonb inserted as they are,
// arrays as [..] and structs (rows) as {"name":..} without blanks.
#include <cmath>
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

Status AppendJson(const VectorRef& v, int64_t i, std::string* out);

// A struct (a whole row, ROW(...): planner/bind_row.cc) as PostgreSQL's
// composite_to_json writes a record: {"name":value,...} in field order, no
// blanks, duplicate names kept; `pretty` (row_to_json(r, true)) starts each
// field after the first on a new line, one space in. Nested values are
// never pretty.
Status AppendRow(const VectorRef& v, int64_t i, bool pretty, std::string* out) {
  const ArrayData& s = *v.array;
  const int64_t r = s.offset + v.index(i);  // a field's slot
  out->push_back('{');
  for (size_t k = 0; k < s.children.size(); ++k) {
    if (k > 0) out->append(pretty ? ",\n " : ",");
    json::AppendQuoted(s.type->children[k]->name, out);
    out->push_back(':');
    const ArrayData& child = *s.children[k];
    if (child.IsNull(r)) {
      out->append("null");
    } else {
      QUIVER_RETURN_NOT_OK(AppendJson(VectorRef{&child, nullptr, false}, r, out));
    }
  }
  out->push_back('}');
  return Status::OK();
}

// Appends row i of `v` (not NULL) as JSON.
Status AppendJson(const VectorRef& v, int64_t i, std::string* out) {
  const DataType& t = *v.array->type;
  if (t.id == TypeId::kStruct) return AppendRow(v, i, false, out);
  if (t.id == TypeId::kNull) {
    out->append("null");
    return Status::OK();
  }
  if (t.id == TypeId::kList) {
    // An array is a JSON array of its elements (NULL elements as null).
    const int64_t r = v.index(i);
    const int32_t* off = v.array->GetValues<int32_t>(1);
    const ArrayData& child = *v.array->children[0];
    VectorRef c{&child, nullptr, false};
    out->push_back('[');
    for (int32_t k = off[r]; k < off[r + 1]; ++k) {
      if (k > off[r]) out->append(",");
      if (child.IsNull(k)) {
        out->append("null");
      } else {
        QUIVER_RETURN_NOT_OK(AppendJson(c, k, out));
      }
    }
    out->push_back(']');
    return Status::OK();
  }
  if (t.id == TypeId::kString) {
    const std::string_view s = StringAccess(v)(i);
    if (IsJsonOrJsonb(t)) {
      out->append(s);
    } else {
      json::AppendQuoted(s, out);
    }
    return Status::OK();
  }
  const Value value = ValueFromArray(*v.array, v.index(i));
  switch (t.id) {
    case TypeId::kBool:
      out->append(value.boolean() ? "true" : "false");
      return Status::OK();
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDecimal128:
      out->append(value.ToString());
      return Status::OK();
    case TypeId::kFloat:
    case TypeId::kDouble:
      if (std::isfinite(value.floating())) {
        out->append(value.ToString());
      } else {
        json::AppendQuoted(value.ToString(), out);
      }
      return Status::OK();
    case TypeId::kTimestamp: {
      std::string s = value.ToString();
      const size_t space = s.find(' ');
      if (space != std::string::npos) s[space] = 'T';
      // timestamptz prints "+00"; JSON's form is "+00:00".
      if (!t.timezone.empty() && s.size() >= 3 &&
          (s[s.size() - 3] == '+' || s[s.size() - 3] == '-')) {
        s += ":00";
      }
      json::AppendQuoted(s, out);
      return Status::OK();
    }
    case TypeId::kDate32:
    case TypeId::kTime64:
    case TypeId::kIntervalMonthDayNano:
    case TypeId::kBinary:
      json::AppendQuoted(value.ToString(), out);
      return Status::OK();
    default:
      return Status::Unsupported("to_json of type {}", PgTypeName(t));
  }
}

// Rows of a function building JSON text: fn(i, &text) for every row (the
// function sees NULL arguments itself); jsonb results are normalised.
template <typename F>
Result<ArrayRef> BuildRows(KernelContext& ctx, int64_t n, const TypeRef& out_type, F fn) {
  kernels::StringOutput out(out_type, n, ctx.pool);
  std::string text, normal;
  for (int64_t i = 0; i < n; ++i) {
    text.clear();
    QUIVER_ASSIGN_OR_RAISE(bool present, fn(i, &text));
    if (!present) {
      QUIVER_RETURN_NOT_OK(out.AppendNull());
    } else if (IsJsonb(*out_type)) {
      QUIVER_RETURN_NOT_OK(json::ToJsonb(text, &normal));
      QUIVER_RETURN_NOT_OK(out.Append(normal));
    } else {
      QUIVER_RETURN_NOT_OK(out.Append(text));
    }
  }
  return out.Finish();
}

// An object key: the value's JSON text, quoted when it is not a string.
Status AppendKey(const VectorRef& v, int64_t i, std::string* out) {
  const DataType& t = *v.array->type;
  if (IsJsonOrJsonb(t) || t.id == TypeId::kList || t.id == TypeId::kStruct ||
      t.id == TypeId::kMap) {
    return Status::Invalid("key value must be scalar, not array, composite, or json")
        .WithSqlState(sqlstate::kInvalidParameterValue);
  }
  std::string key;
  QUIVER_RETURN_NOT_OK(AppendJson(v, i, &key));
  if (key.empty() || key[0] != '"') {
    json::AppendQuoted(key, out);
  } else {
    out->append(key);
  }
  return Status::OK();
}

void AddToJson(FunctionRegistry* r, const std::string& name, const TypeRef& out) {
  ScalarFunction f{name, {AnyType()}, nullptr, out, nullptr,
                   [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                      const TypeRef& out_type) {
                     ValidAccess valid(args[0]);
                     return BuildRows(ctx, n, out_type,
                                      [&](int64_t i, std::string* text) -> Result<bool> {
                                        if (!valid(i)) return false;
                                        QUIVER_RETURN_NOT_OK(AppendJson(args[0], i, text));
                                        return true;
                                      });
                   }};
  r->Add(std::move(f));
}

void AddBuildObject(FunctionRegistry* r, const std::string& name, const TypeRef& out) {
  ScalarFunction f{name, {}, AnyType(), out, nullptr,
                   [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                      const TypeRef& out_type) -> Result<ArrayRef> {
                     if (args.size() % 2 != 0) {
                       return Status::Invalid("argument list must have even number of elements")
                           .WithSqlState(sqlstate::kInvalidParameterValue)
                           .WithHint("The arguments of " + std::string(IsJsonb(*out_type)
                                                                            ? "jsonb"
                                                                            : "json") +
                                     "_build_object() must consist of alternating keys and "
                                     "values.");
                     }
                     std::vector<ValidAccess> valid(args.begin(), args.end());
                     return BuildRows(ctx, n, out_type,
                                      [&](int64_t i, std::string* text) -> Result<bool> {
                                        text->push_back('{');
                                        for (size_t k = 0; k < args.size(); k += 2) {
                                          if (k > 0) text->append(", ");
                                          if (!valid[k](i)) {
                                            return Status::Invalid("argument {} cannot be null",
                                                                   k + 1)
                                                .WithSqlState(sqlstate::kInvalidParameterValue)
                                                .WithHint("Object keys should be text.");
                                          }
                                          QUIVER_RETURN_NOT_OK(AppendKey(args[k], i, text));
                                          text->append(" : ");
                                          if (valid[k + 1](i)) {
                                            QUIVER_RETURN_NOT_OK(AppendJson(args[k + 1], i, text));
                                          } else {
                                            text->append("null");
                                          }
                                        }
                                        text->push_back('}');
                                        return true;
                                      });
                   }};
  f.strict = false;
  r->Add(std::move(f));
}

void AddBuildArray(FunctionRegistry* r, const std::string& name, const TypeRef& out) {
  ScalarFunction f{name, {}, AnyType(), out, nullptr,
                   [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                      const TypeRef& out_type) {
                     std::vector<ValidAccess> valid(args.begin(), args.end());
                     return BuildRows(ctx, n, out_type,
                                      [&](int64_t i, std::string* text) -> Result<bool> {
                                        text->push_back('[');
                                        for (size_t k = 0; k < args.size(); ++k) {
                                          if (k > 0) text->append(", ");
                                          if (valid[k](i)) {
                                            QUIVER_RETURN_NOT_OK(AppendJson(args[k], i, text));
                                          } else {
                                            text->append("null");
                                          }
                                        }
                                        text->push_back(']');
                                        return true;
                                      });
                   }};
  f.strict = false;
  r->Add(std::move(f));
}

// row_to_json(record [, pretty boolean]): a struct only (a whole row or
// ROW(...)); anything else is PostgreSQL's "function row_to_json(integer)
// does not exist".
void AddRowToJson(FunctionRegistry* r) {
  for (const bool with_pretty : {false, true}) {
    ScalarFunction f;
    f.name = "row_to_json";
    f.args = {AnyType()};
    if (with_pretty) f.args.push_back(boolean());
    f.return_type = json_type();
    f.bind = [](std::vector<TypeRef>* args, TypeRef*) -> Status {
      if ((*args)[0]->id == TypeId::kStruct) return Status::OK();
      std::vector<ArgInfo> infos;
      for (const auto& t : *args) infos.push_back({t, false});
      return FunctionRegistry::Get().UndefinedFunction("row_to_json",
                                                       CallSignature("row_to_json", infos));
    };
    f.kernel = [with_pretty](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                             const TypeRef& out_type) {
      std::vector<ValidAccess> valid(args.begin(), args.end());
      std::optional<kernels::BoolAccess> pretty;
      if (with_pretty) pretty.emplace(args[1]);
      return BuildRows(ctx, n, out_type, [&](int64_t i, std::string* text) -> Result<bool> {
        for (const auto& v : valid) {
          if (!v(i)) return false;
        }
        QUIVER_RETURN_NOT_OK(AppendRow(args[0], i, pretty ? (*pretty)(i) : false, text));
        return true;
      });
    };
    r->Add(std::move(f));
  }
  // __row(a, b, ...): the struct of its arguments; the binder sets the
  // result type (field names) and builds it only for the functions above.
  ScalarFunction row;
  row.name = "__row";
  row.varargs = AnyType();
  row.return_type = struct_({});
  row.strict = false;  // a row of NULLs is not NULL
  row.kernel = [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                  const TypeRef& out_type) -> Result<ArrayRef> {
    std::vector<ArrayRef> fields;
    for (const auto& a : args) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef f, kernels::Materialize(a, n, ctx.pool));
      fields.push_back(std::move(f));
    }
    return ArrayData::Make(out_type, n, {nullptr}, 0, 0, std::move(fields));
  };
  r->Add(std::move(row));
}

// The pieces of the JSON aggregates (see the top of this file).
void AddAggregatePieces(FunctionRegistry* r) {
  ScalarFunction element{
      "__json_element", {AnyType()}, nullptr, utf8(), nullptr,
      [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
         const TypeRef& out_type) {
        ValidAccess valid(args[0]);
        return BuildRows(ctx, n, out_type, [&](int64_t i, std::string* text) -> Result<bool> {
          if (!valid(i)) {
            text->append("null");
          } else {
            QUIVER_RETURN_NOT_OK(AppendJson(args[0], i, text));
          }
          return true;
        });
      }};
  element.strict = false;
  ScalarFunction structured = element;
  r->Add(std::move(element));
  // json_agg of arrays and rows: PostgreSQL starts each non-NULL item after
  // the first on a new line ("[[1], null, \n [2]]"). The item carries the
  // "\n " and __json_wrap_array_rows drops it from the first one.
  structured.name = "__json_element_rows";
  structured.kernel = [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                         const TypeRef& out_type) {
    ValidAccess valid(args[0]);
    return BuildRows(ctx, n, out_type, [&](int64_t i, std::string* text) -> Result<bool> {
      if (!valid(i)) {
        text->append("null");
      } else {
        text->append("\n ");
        QUIVER_RETURN_NOT_OK(AppendJson(args[0], i, text));
      }
      return true;
    });
  };
  r->Add(std::move(structured));
  ScalarFunction field{
      "__json_object_field", {AnyType(), AnyType()}, nullptr, utf8(), nullptr,
      [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
         const TypeRef& out_type) {
        ValidAccess key(args[0]), value(args[1]);
        return BuildRows(ctx, n, out_type, [&](int64_t i, std::string* text) -> Result<bool> {
          if (!key(i)) {
            return Status::Invalid("field name must not be null")
                .WithSqlState(sqlstate::kInvalidParameterValue);
          }
          QUIVER_RETURN_NOT_OK(AppendKey(args[0], i, text));
          text->append(" : ");
          if (value(i)) {
            QUIVER_RETURN_NOT_OK(AppendJson(args[1], i, text));
          } else {
            text->append("null");
          }
          return true;
        });
      }};
  field.strict = false;
  r->Add(std::move(field));
  struct Wrap {
    const char* name;
    TypeRef out;
    const char* open;
    const char* close;
    bool rows;  // items from __json_element_rows
  };
  for (const Wrap& w : {Wrap{"__json_wrap_array", json_type(), "[", "]", false},
                        Wrap{"__json_wrap_array_rows", json_type(), "[", "]", true},
                        Wrap{"__jsonb_wrap_array", jsonb_type(), "[", "]", false},
                        Wrap{"__json_wrap_object", json_type(), "{ ", " }", false},
                        Wrap{"__jsonb_wrap_object", jsonb_type(), "{", "}", false}}) {
    const std::string open = w.open, close = w.close;
    const bool rows = w.rows;
    r->Add({w.name, {utf8()}, nullptr, w.out, nullptr,
            [open, close, rows](KernelContext& ctx, const std::vector<VectorRef>& args,
                                int64_t n, const TypeRef& out_type) {
              ValidAccess valid(args[0]);
              StringAccess items(args[0]);
              return BuildRows(ctx, n, out_type, [&](int64_t i, std::string* text) -> Result<bool> {
                if (!valid(i)) return false;  // no rows: NULL, as PostgreSQL
                std::string_view s = items(i);
                if (rows && s.substr(0, 2) == "\n ") s.remove_prefix(2);
                text->append(open).append(s).append(close);
                return true;
              });
            }});
  }
}

}  // namespace

void RegisterJsonBuildFunctions(FunctionRegistry* r) {
  AddToJson(r, "to_json", json_type());
  AddToJson(r, "to_jsonb", jsonb_type());
  AddBuildObject(r, "json_build_object", json_type());
  AddBuildObject(r, "jsonb_build_object", jsonb_type());
  AddBuildArray(r, "json_build_array", json_type());
  AddBuildArray(r, "jsonb_build_array", jsonb_type());
  AddRowToJson(r);
  AddAggregatePieces(r);
}

}  // namespace quiver
