// Helpers for the CSV tests: read CSV text into rendered cells.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "columnar/pretty_print.h"
#include "formats/csv/reader.h"

namespace quiver::csv::testing {

struct Table {
  SchemaRef schema;
  std::vector<RecordBatchRef> batches;
  std::vector<std::vector<std::string>> rows;  // FormatValue of each cell ("NULL")

  std::string type(int c) const { return schema->field(c)->type->ToString(); }
  std::string name(int c) const { return schema->field(c)->name; }
};

inline Result<std::unique_ptr<CsvReader>> MakeReader(const std::string& text,
                                                     const ReadOptions& ro = {},
                                                     const ParseOptions& po = {},
                                                     const ConvertOptions& co = {}) {
  QUIVER_ASSIGN_OR_RAISE(auto buffer, Buffer::CopyFrom(text));
  return CsvReader::Make(buffer, "data.csv", ro, po, co);
}

inline Result<Table> ReadTable(const std::string& text, const ReadOptions& ro = {},
                               const ParseOptions& po = {}, const ConvertOptions& co = {}) {
  QUIVER_ASSIGN_OR_RAISE(auto reader, MakeReader(text, ro, po, co));
  Table t;
  t.schema = reader->schema();
  QUIVER_ASSIGN_OR_RAISE(t.batches, ReadAll(reader.get()));
  for (const auto& b : t.batches) {
    QUIVER_RETURN_NOT_OK(b->Validate(true));
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      std::vector<std::string> row;
      for (int c = 0; c < b->num_columns(); ++c) row.push_back(FormatValue(*b->column(c), r));
      t.rows.push_back(std::move(row));
    }
  }
  return t;
}

// The error message of reading `text`, or "OK".
inline std::string ReadError(const std::string& text, const ReadOptions& ro = {},
                             const ParseOptions& po = {}, const ConvertOptions& co = {}) {
  auto t = ReadTable(text, ro, po, co);
  return t.ok() ? "OK" : t.status().message();
}

#define ASSERT_OK_AND_ASSIGN_CSV(lhs, rexpr)                 \
  auto QUIVER_CONCAT(_r_, __LINE__) = (rexpr);               \
  ASSERT_TRUE(QUIVER_CONCAT(_r_, __LINE__).ok())             \
      << QUIVER_CONCAT(_r_, __LINE__).status().ToString();   \
  lhs = std::move(QUIVER_CONCAT(_r_, __LINE__)).ValueOrDie();

using Rows = std::vector<std::vector<std::string>>;

}  // namespace quiver::csv::testing
