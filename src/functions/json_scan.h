// JSON text without a DOM: validation with PostgreSQL's error texts, jsonb's
// normal form, and navigation (a field, an element, a path) that skips over
// the values it does not need. The json and jsonb SQL types are this text
// (vector/json_type.h); the operators (->, ->>, #>, ...) run on it directly.
//
// Navigation expects text that passed Validate (every json / jsonb value
// did), but never reads outside the view it is given: on malformed text it
// reports "not found" (kInvalid), so a stray unvalidated string cannot crash.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace quiver::json {

enum class Kind : uint8_t { kInvalid, kObject, kArray, kString, kNumber, kTrue, kFalse, kNull };

// PostgreSQL's jsonb_typeof names: "object", "array", "string", "number",
// "boolean", "null".
const char* KindName(Kind k);

// Checks that `text` is exactly one JSON value (blanks around it allowed).
// The error is PostgreSQL's: 22P02 "invalid input syntax for type json" with
// its DETAIL ("Token \"abc\" is invalid.", "The input string ended
// unexpectedly.", ...) followed by where: "JSON data, line 1: {\"a\" 1...".
// `for_jsonb` also refuses \u0000 (text cannot hold it), as jsonb does.
Status Validate(std::string_view text, bool for_jsonb = false);

// jsonb's text for valid `text`: keys sorted (shorter first, then bytewise),
// the last of duplicate keys kept, strings re-escaped, numbers as numeric
// prints them (1e2 -> 100, 1.0 -> 1.0), ", " and ": " between items.
// Validates as Validate(text, true) does.
Status ToJsonb(std::string_view text, std::string* out);

// `text::jsonb -> key` for text (or json) `text`, without normalising the
// whole document where that cannot change the answer: *out is the field's
// jsonb text; false when there is no such field or `text` is not an object.
// Fails as ToJsonb(text) does.
Result<bool> JsonbFieldOfText(std::string_view text, std::string_view key, std::string* out);

// The kind of the value `value` starts with (after blanks).
Kind KindOf(std::string_view value);

// The value of field `key` of object `json` (the last of equal keys, as
// PostgreSQL's json operators answer; jsonb has no duplicates). False when
// `json` is not an object or has no such key.
bool ObjectField(std::string_view json, std::string_view key, std::string_view* out);

// Element `index` of array `json` (0-based; negative counts from the end).
// False when `json` is not an array or the index is outside it.
bool ArrayElement(std::string_view json, int64_t index, std::string_view* out);

// A path step as #> and json_extract_path take it: a field name, or for an
// array an integer (PostgreSQL's rule: a step that does not parse as an
// integer finds nothing in an array).
bool PathStep(std::string_view json, std::string_view step, std::string_view* out);

// ->> of a value: strings unescaped, other scalars and containers as their
// text; false for null (SQL NULL). Fails on \u0000 as PostgreSQL does.
Result<bool> ValueText(std::string_view value, std::string* out);

// Appends `s` as a JSON string literal, escaped as PostgreSQL's escape_json.
void AppendQuoted(std::string_view s, std::string* out);

// The elements of array `json`, or false when it is not an array.
bool ArrayElements(std::string_view json, std::vector<std::string_view>* out);

// The top-level keys (unescaped) and values of object `json`, in text order,
// or false when it is not an object.
bool ObjectMembers(std::string_view json, std::vector<std::string>* keys,
                   std::vector<std::string_view>* values);

// jsonb containment (`a @> b`) and equality as PostgreSQL defines them
// (numbers compared by value, objects by keys, arrays as sets for @>).
// Both must be valid JSON text.
bool Contains(std::string_view a, std::string_view b);
bool Equal(std::string_view a, std::string_view b);

// jsonb `?`: `key` is a top-level key of an object, a string element of an
// array, or the string itself.
bool HasKey(std::string_view json, std::string_view key);

// `s` without JSON's blanks (space, tab, CR, LF) around it.
std::string_view TrimBlanks(std::string_view s);

// The text of a number in PostgreSQL's numeric output form ("1e2" -> "100").
std::string NumericText(std::string_view number);

}  // namespace quiver::json
