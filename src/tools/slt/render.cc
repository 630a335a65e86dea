#include "tools/slt/render.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "functions/cast.h"
#include "vector/sql_type.h"

namespace quiver::slt {
namespace {

// The leading number of `text` as C's strtod reads it ("12abc" -> 12,
// " 2.5" -> 2.5, "x" -> 0): what atoi/atof make of a value's text form.
double LeadingNumber(const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double d = std::strtod(begin, &end);
  return end == begin ? 0.0 : d;
}

// A double truncated toward zero into int64 (clamped; NaN is 0), as SQLite's
// sqlite3_column_int64 converts a REAL.
int64_t TruncateToInt64(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 9223372036854775807.0) return INT64_MAX;
  if (d <= -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(d);
}

std::string RenderInteger(const Value& v) {
  switch (v.type()->id) {
    case TypeId::kBool:
      return v.boolean() ? "1" : "0";
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      return std::to_string(v.integer());
    case TypeId::kDecimal128:
      // int128 division truncates toward zero, like atoi("2.5").
      return FormatInt128(v.decimal() / Pow10Int128(v.type()->scale));
    case TypeId::kFloat:
    case TypeId::kDouble:
      return std::to_string(TruncateToInt64(v.floating()));
    default:
      return std::to_string(TruncateToInt64(LeadingNumber(v.ToString())));
  }
}

std::string RenderReal(const Value& v) {
  double d;
  switch (v.type()->id) {
    case TypeId::kBool:
      d = v.boolean() ? 1 : 0;
      break;
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      d = static_cast<double>(v.integer());
      break;
    case TypeId::kFloat:
    case TypeId::kDouble:
      d = v.floating();
      break;
    default:
      // Decimals too: atof of the exact text rounds correctly, a division
      // by a power of ten may not.
      d = LeadingNumber(v.ToString());
      break;
  }
  if (d == 0) d = 0;  // -0.0 prints as 0.000
  char buf[512];
  std::snprintf(buf, sizeof(buf), "%.3f", d);
  return buf;
}

std::string RenderText(const Value& v) {
  std::string s;
  switch (v.type()->id) {
    case TypeId::kBool:
      return v.boolean() ? "1" : "0";
    case TypeId::kString:
      s = v.str();
      break;
    default:
      s = v.ToString();
      break;
  }
  if (s.empty()) return "(empty)";
  for (char& c : s) {
    if (c < ' ' || c > '~') c = '@';  // char is signed: bytes >= 0x80 are < ' '
  }
  return s;
}

}  // namespace

std::string RenderValue(const Value& value, char type) {
  if (value.is_null()) return "NULL";
  switch (type) {
    case 'I':
      return RenderInteger(value);
    case 'R':
      return RenderReal(value);
    default:
      return RenderText(value);
  }
}

std::vector<std::string> RenderResult(const QueryResult& result, const std::string& types) {
  std::vector<std::string> values;
  values.reserve(static_cast<size_t>(result.num_rows()) * types.size());
  for (const RecordBatchRef& batch : result.batches) {
    const int columns = batch->num_columns();
    // Arrays have no Value: rendered as their PostgreSQL text.
    std::vector<ArrayRef> cols = batch->columns();
    for (auto& col : cols) {
      if (!IsNestedSqlType(*col->type)) continue;
      auto text = CastArray(col, utf8(), DefaultMemoryPool());
      if (text.ok()) col = *text;
    }
    for (int64_t row = 0; row < batch->num_rows(); ++row) {
      for (int c = 0; c < columns; ++c) {
        values.push_back(RenderValue(ValueFromArray(*cols[static_cast<size_t>(c)], row), types[c]));
      }
    }
  }
  return values;
}

void SortValues(std::vector<std::string>* values, size_t columns, SortMode mode) {
  if (mode == SortMode::kNoSort || values->empty()) return;
  if (mode == SortMode::kValueSort || columns <= 1) {
    std::sort(values->begin(), values->end());  // byte-wise, as strcmp
    return;
  }
  const size_t rows = values->size() / columns;
  std::vector<size_t> order(rows);
  for (size_t i = 0; i < rows; ++i) order[i] = i;
  const std::vector<std::string>& v = *values;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    for (size_t c = 0; c < columns; ++c) {
      const int cmp = v[a * columns + c].compare(v[b * columns + c]);
      if (cmp != 0) return cmp < 0;
    }
    return false;
  });
  std::vector<std::string> sorted;
  sorted.reserve(values->size());
  for (size_t r : order) {
    for (size_t c = 0; c < columns; ++c) sorted.push_back(std::move((*values)[r * columns + c]));
  }
  *values = std::move(sorted);
}

std::string HashValues(const std::vector<std::string>& values) {
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_md5(), nullptr) != 1) return "(md5 unavailable)";
  for (const std::string& v : values) {
    EVP_DigestUpdate(ctx.get(), v.data(), v.size());
    EVP_DigestUpdate(ctx.get(), "\n", 1);
  }
  EVP_DigestFinal_ex(ctx.get(), digest, &length);
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return hex;
}

}  // namespace quiver::slt
