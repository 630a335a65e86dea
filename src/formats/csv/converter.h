// Converter: the field texts of one column of one parsed block -> an Arrow
// array of the column's type.
//
// Conversion writes straight into pool buffers sized from the row count (no
// per-value allocation); the validity bitmap is created at the first null.
// Null texts are tested before parsing only when one of them could also parse
// as a value of the type (e.g. null_values {"-1"} on an int column);
// otherwise the value parse is tried first, which keeps the common path to
// one parse per field.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "formats/csv/parser.h"
#include "formats/csv/reader.h"

namespace quiver::csv::internal {

// Set membership for short texts (null/true/false spellings): candidates are
// bucketed by length, so most fields are rejected by one bit test.
class TextMatcher {
 public:
  TextMatcher() = default;
  explicit TextMatcher(const std::vector<std::string>& values);
  bool Matches(std::string_view text) const {
    const size_t n = text.size();
    if (n < 64) {
      if (((length_mask_ >> n) & 1) == 0) return false;
    } else if (!has_long_) {
      return false;
    }
    for (const std::string& v : values_) {
      if (v.size() == n && std::memcmp(v.data(), text.data(), n) == 0) return true;
    }
    return false;
  }
  const std::vector<std::string>& values() const { return values_; }

 private:
  std::vector<std::string> values_;
  uint64_t length_mask_ = 0;
  bool has_long_ = false;
};

// What the converter needs to know about one output column.
struct ColumnSpec {
  std::string name;
  TypeRef type;
  // Whether null texts become null. Always true for non-text types; for
  // utf8/binary it is strings_can_be_null, or true for columns inferred from
  // nulls only.
  bool null_texts_are_null = true;
  // Whether some null text also parses as a value (then nulls are tested
  // first); computed by PrepareColumnSpec.
  bool nulls_first = true;
};

struct ConvertContext {
  ParseOptions parse_options;
  TextMatcher nulls;
  bool quoted_nulls = true;  // ConvertOptions::quoted_strings_can_be_null
  TextMatcher trues;
  TextMatcher falses;
  MemoryPool* pool = DefaultMemoryPool();
};

// Whether the converter supports `type` as a CSV column type.
Status CheckConvertible(const TypeRef& type);

// Fills spec->nulls_first.
void PrepareColumnSpec(const ConvertContext& ctx, ColumnSpec* spec);

// Converts column `col` of `block`. On a bad value returns Invalid and fills
// *error (row, column, "cannot parse 'abc' as float64").
Status ConvertColumn(const ParsedBlock& block, int col, const ColumnSpec& spec,
                     const ConvertContext& ctx, ArrayRef* out, BlockError* error);

// Whether `text` (already unescaped) converts to `type`; used by inference.
bool TextConvertsTo(std::string_view text, const TypeRef& type, const ConvertContext& ctx);

}  // namespace quiver::csv::internal
