// Test helper: the Arrow integration-testing JSON format ("golden" files).
//
// The Arrow project ships, next to each generated IPC file, a JSON rendering
// of the same data (generated_X.json.gz). This helper parses such a file into
// Quiver's Schema and compares record batches read by Quiver against it, so
// the IPC reader is checked against an independent description of the data.
//
// JSON layout (one document per file):
//   {"schema": {"fields": [FIELD...], "metadata": [{"key","value"}...]},
//    "batches": [{"count": n, "columns": [COLUMN...]}...],
//    "dictionaries": [{"id": n, "data": {"count": n, "columns": [COLUMN]}}...]}
//   FIELD  := {"name", "nullable", "type": {"name": ..., params}, "children": [FIELD...],
//              "dictionary": {"id", "indexType": {int type}, "isOrdered"}?,
//              "metadata": [{"key","value"}...]?}
//   COLUMN := {"name", "count", "VALIDITY": [0|1...], "DATA": [...], "OFFSET": [...],
//              "SIZE": [...], "TYPE_ID": [...], "VIEWS": [...],
//              "VARIADIC_DATA_BUFFERS": ["HEX"...], "children": [COLUMN...]}
// A dictionary-encoded field gives the *value* type in "type"/"children"; its
// column holds the indices in DATA and the values live in "dictionaries" under
// the field's dictionary id. Extension types are their storage type plus the
// ARROW:extension:* keys in the field metadata (Quiver has no extension types).
// DATA encodings: 64-bit integers and decimals (unscaled) as decimal strings,
// binary and fixed-size binary as hex, utf8 as strings, intervals as objects
// ({"days","milliseconds"} / {"months","days","nanoseconds"}), views as
// {"SIZE","INLINED"} or {"SIZE","PREFIX_HEX","BUFFER_INDEX","OFFSET"}.
//
// Comparison is logical: validity and values at valid slots, per-slot lengths
// of offset-based types (never absolute offsets), views resolved to bytes,
// union type ids and the child slot they select, dictionary indices plus the
// dictionary value array, run-end-encoded arrays slot by logical slot.
// A mismatch is reported as Status::Invalid("mismatch: <file>: batch <b>:
// <column path>: <what>: expected <x>, got <y>"); column paths look like
// `nested[3]/item[17]`, `dict0<dict 0>[4]`.
//
// Test-only code: nlohmann::json exceptions are caught here and never escape.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "columnar/array.h"
#include "columnar/type.h"
#include "common/status.h"

namespace quiver::testing {

// Reads a file, gunzipping it when it ends in ".gz".
Result<std::string> ReadMaybeGzipFile(const std::string& path);

// Arrow integration JSON -> Quiver types.
Result<TypeRef> TypeFromJson(const nlohmann::json& field);  // the field's (possibly dict) type
Result<FieldRef> FieldFromJson(const nlohmann::json& field);
Result<SchemaRef> SchemaFromJson(const nlohmann::json& schema);

// A parsed golden file.
struct GoldenFile {
  std::string path;  // for messages
  nlohmann::json doc;
  SchemaRef schema;
  // Dictionary id -> the dictionary's single value column.
  std::map<int64_t, const nlohmann::json*> dictionaries;

  int num_batches() const { return static_cast<int>(doc["batches"].size()); }
  int64_t batch_length(int i) const;
  // File name without directories, for messages.
  std::string short_name() const;
};

Result<std::shared_ptr<GoldenFile>> LoadGoldenFile(const std::string& path);
Result<std::shared_ptr<GoldenFile>> ParseGoldenJson(const std::string& text,
                                                    std::string path = "<json>");

// The golden file restricted to top-level fields `fields` (in that order):
// what a reader projecting those columns must return.
Result<std::shared_ptr<GoldenFile>> ProjectGolden(const GoldenFile& golden,
                                                  const std::vector<int>& fields);

// Field-by-field comparison of two schemas: names, nullability, types (all
// parameters, recursively into children) and custom metadata (as key/value
// multisets; map entry/key/value names excepted). OK or Invalid("mismatch: ...")
// naming the first difference.
Status CompareSchemas(const Schema& expected, const Schema& actual);
Status CompareFields(const Field& expected, const Field& actual, const std::string& path);
Status CompareTypes(const DataType& expected, const DataType& actual, const std::string& path);
// A map's entries field: like CompareFields, except that the names of the
// entries, key and value fields are not compared (Arrow gives them no meaning).
Status CompareMapEntries(const Field& expected, const Field& actual, const std::string& path);

// Compares batch `batch_index` of the golden file with `actual`: schema,
// row count, then every column recursively.
Status CompareBatch(const GoldenFile& golden, int batch_index, const RecordBatch& actual);

// Compares one golden column (with its schema field) against an array.
Status CompareColumn(const GoldenFile& golden, const nlohmann::json& field,
                     const nlohmann::json& column, const ArrayData& actual,
                     const std::string& path);

}  // namespace quiver::testing
