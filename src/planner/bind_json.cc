#include "planner/bind_json.h"

#include "columnar/builder.h"
#include "functions/cast.h"
#include "functions/json_scan.h"
#include "planner/expression_binder.h"
#include "vector/json_type.h"
#include "vector/sql_type.h"

namespace quiver::plan {

bool IsJsonAggregate(const std::string& name) {
  return name == "json_agg" || name == "jsonb_agg" || name == "json_object_agg" ||
         name == "jsonb_object_agg";
}

bool JsonAggregateOfRows(const std::string& name, const DataType& arg) {
  return name == "json_agg" && (arg.id == TypeId::kList || arg.id == TypeId::kStruct);
}

Result<std::vector<ExprPtr>> JsonAggregateArgs(const std::string& name, std::vector<ExprPtr> args,
                                               int location) {
  const bool object = name == "json_object_agg" || name == "jsonb_object_agg";
  const size_t want = object ? 2 : 1;
  if (args.size() != want) {
    std::vector<ArgInfo> infos;
    for (const auto& a : args) infos.push_back({a->return_type, a->unknown_literal});
    return FunctionRegistry::Get()
        .UndefinedFunction(name, CallSignature(name, infos))
        .WithPosition(location);
  }
  // An untyped literal is text, as PostgreSQL takes it for these.
  for (auto& a : args) a = ExpressionBinder::ResolveUnknown(std::move(a));
  // json_agg of arrays and rows puts each item after the first on a new line.
  const bool rows = JsonAggregateOfRows(name, *args[0]->return_type);
  const char* element = object ? "__json_object_field"
                        : rows ? "__json_element_rows"
                               : "__json_element";
  auto made = MakeFunction(element, std::move(args), false);
  if (!made.ok()) return made.status().WithPosition(location);
  std::vector<ExprPtr> out;
  out.push_back(std::move(made).ValueOrDie());
  out.push_back(MakeConstant(Value::Text(", ")));
  return out;
}

Result<ExprPtr> WrapJsonAggregate(const std::string& name, ExprPtr string_agg, bool rows) {
  const char* wrap = rows                        ? "__json_wrap_array_rows"
                     : name == "json_agg"        ? "__json_wrap_array"
                     : name == "jsonb_agg"       ? "__jsonb_wrap_array"
                     : name == "json_object_agg" ? "__json_wrap_object"
                                                 : "__jsonb_wrap_object";
  const std::string alias = name;
  std::vector<ExprPtr> children;
  children.push_back(std::move(string_agg));
  QUIVER_ASSIGN_OR_RAISE(ExprPtr out, MakeFunction(wrap, std::move(children), false));
  out->alias = alias;
  return out;
}


bool IsJsonTableFunction(const std::string& name) {
  static const char* const kNames[] = {
      "json_array_elements", "jsonb_array_elements", "json_array_elements_text",
      "jsonb_array_elements_text", "json_each", "jsonb_each", "json_each_text",
      "jsonb_each_text", "json_object_keys", "jsonb_object_keys"};
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

namespace {

// A constant argument's value: a literal, or a cast of one (json constants
// stay casts, vector/json_type.h).
Result<Value> ConstantArgument(const std::string& name, ExprPtr e) {
  e = ExpressionBinder::ResolveUnknown(std::move(e));
  if (e->type == ExprType::kConstant) return e->As<ConstantExpression>().value;
  if (e->type == ExprType::kCast && e->children.size() == 1 &&
      e->children[0]->type == ExprType::kConstant) {
    return CastValue(e->children[0]->As<ConstantExpression>().value, e->return_type);
  }
  return Status::Unsupported("{} over a non-constant argument (LATERAL)", name);
}

}  // namespace

Result<std::shared_ptr<MemoryTable>> JsonTableFunction(const std::string& name,
                                                       std::vector<ExprPtr> arg_exprs) {
  std::vector<Value> args;
  for (auto& e : arg_exprs) {
    QUIVER_ASSIGN_OR_RAISE(Value v, ConstantArgument(name, std::move(e)));
    args.push_back(std::move(v));
  }
  const bool jsonb = name.rfind("jsonb", 0) == 0;
  const TypeRef doc_type = jsonb ? jsonb_type() : json_type();
  const bool as_text = name.size() > 5 && name.compare(name.size() - 5, 5, "_text") == 0;
  const TypeRef value_type = as_text ? utf8() : doc_type;
  if (args.size() != 1) {
    std::vector<ArgInfo> infos;
    for (const auto& a : args) infos.push_back({a.type(), false});
    return FunctionRegistry::Get().UndefinedFunction(name, CallSignature(name, infos));
  }
  Value doc = args[0];
  if (!doc.is_null() && !doc.type()->Equals(*doc_type)) {
    // text (an untyped literal) is read as json, jsonb as json and back.
    if (!IsStringType(*doc.type())) {
      return FunctionRegistry::Get().UndefinedFunction(
          name, CallSignature(name, {ArgInfo{doc.type(), false}}));
    }
    QUIVER_ASSIGN_OR_RAISE(doc, CastValue(doc, doc_type));
  }
  const bool each = name.find("_each") != std::string::npos;
  const bool keys = name.find("object_keys") != std::string::npos;
  std::vector<FieldRef> fields;
  if (keys) {
    fields.push_back(field(name, utf8()));
  } else {
    if (each) fields.push_back(field("key", utf8()));
    fields.push_back(field("value", value_type));
  }
  auto table = std::make_shared<MemoryTable>(name, schema(fields));
  StringBuilder key_builder(utf8());
  StringBuilder value_builder(keys ? utf8() : value_type);
  int64_t rows = 0;
  if (!doc.is_null()) {
    const std::string& text = doc.str();
    const json::Kind kind = json::KindOf(text);
    if (each || keys) {
      if (kind != json::Kind::kObject) {
        // PostgreSQL's texts, which differ between json and jsonb.
        const bool array = kind == json::Kind::kArray;
        std::string what;
        if (keys) {
          what = "cannot call " + name + " on " + (array ? "an array" : "a scalar");
        } else if (jsonb) {
          what = "cannot call " + name + " on a non-object";
        } else {
          what = array ? "cannot deconstruct an array as an object" : "cannot deconstruct a scalar";
        }
        return Status::Invalid("{}", what).WithSqlState(sqlstate::kInvalidParameterValue);
      }
      std::vector<std::string> ks;
      std::vector<std::string_view> vs;
      json::ObjectMembers(text, &ks, &vs);
      std::string scratch;
      for (size_t i = 0; i < ks.size(); ++i) {
        if (keys) {
          QUIVER_RETURN_NOT_OK(value_builder.Append(ks[i]));
        } else {
          QUIVER_RETURN_NOT_OK(key_builder.Append(ks[i]));
          if (as_text) {
            QUIVER_ASSIGN_OR_RAISE(bool present, json::ValueText(vs[i], &scratch));
            QUIVER_RETURN_NOT_OK(present ? value_builder.Append(scratch)
                                         : value_builder.AppendNull());
          } else {
            QUIVER_RETURN_NOT_OK(value_builder.Append(vs[i]));
          }
        }
        ++rows;
      }
    } else {
      if (kind != json::Kind::kArray) {
        std::string what = kind == json::Kind::kObject ? "cannot extract elements from an object"
                           : jsonb ? "cannot extract elements from a scalar"
                                   : "cannot call " + name + " on a scalar";
        return Status::Invalid("{}", what).WithSqlState(sqlstate::kInvalidParameterValue);
      }
      std::vector<std::string_view> elems;
      json::ArrayElements(text, &elems);
      std::string scratch;
      for (auto e : elems) {
        if (as_text) {
          QUIVER_ASSIGN_OR_RAISE(bool present, json::ValueText(e, &scratch));
          QUIVER_RETURN_NOT_OK(present ? value_builder.Append(scratch)
                                       : value_builder.AppendNull());
        } else {
          QUIVER_RETURN_NOT_OK(value_builder.Append(e));
        }
        ++rows;
      }
    }
  }
  if (rows > 0) {
    std::vector<ArrayRef> columns;
    if (each) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef k, key_builder.Finish());
      columns.push_back(std::move(k));
    }
    QUIVER_ASSIGN_OR_RAISE(ArrayRef v, value_builder.Finish());
    columns.push_back(std::move(v));
    QUIVER_RETURN_NOT_OK(table->Append({RecordBatch::Make(table->schema(), rows, columns)}));
  }
  return table;
}

}  // namespace quiver::plan
