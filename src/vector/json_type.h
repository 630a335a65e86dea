// SQL's json and jsonb: text (utf8) carrying an Arrow extension name, so the
// string kernels read them unchanged while overload resolution, casts and
// output can tell them from text.
//
//   json   utf8 + "arrow.json"    the input text, kept as written (validated)
//   jsonb  utf8 + "quiver.jsonb"  PostgreSQL's jsonb output text: keys sorted
//                                 (shorter first, then bytewise), the last of
//                                 duplicate keys kept, numbers as numeric
//                                 prints them, `{"a": 1, "b": [1, 2]}`
//
// Because a jsonb value is stored as its normalised text, an operator that
// returns part of it (->, #>) returns normalised jsonb text without work.
#pragma once

#include "columnar/extension_type.h"

namespace quiver {

inline constexpr const char* kJsonExtension = "arrow.json";
inline constexpr const char* kJsonbExtension = "quiver.jsonb";

TypeRef json_type();
TypeRef jsonb_type();

inline bool IsJson(const DataType& t) { return ExtensionName(t) == kJsonExtension; }
inline bool IsJsonb(const DataType& t) { return ExtensionName(t) == kJsonbExtension; }
inline bool IsJsonOrJsonb(const DataType& t) { return IsJson(t) || IsJsonb(t); }

// Whether a constant Value can hold a value of type `t`. A Value of a string
// type is always text (vector/value.h has no typed string constructor), so
// json and jsonb expressions are never folded into constants: a constant
// cast to json stays a cast (evaluated once per chunk), keeping its type.
// Nor are arrays (lists), structs (ROW(...), planner/bind_row.cc) and
// maps, which a Value cannot hold.
inline bool ValueCanHold(const DataType& t) {
  return !IsJsonOrJsonb(t) && t.id != TypeId::kList && t.id != TypeId::kStruct &&
         t.id != TypeId::kMap;
}

}  // namespace quiver
