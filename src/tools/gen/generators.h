// `quiver gen`'s two data sets, and the small field formatters they share.
//
//   RunSsb:  Star Schema Benchmark (O'Neil, O'Neil, Chen, rev. 3): lineorder,
//            date, part, supplier, customer (ssb.cc).
//   RunTpch: TPC-H clause 4.2: region, nation, supplier, customer, part,
//            partsupp, orders, lineitem (tpch.cc).
//
// Both write through GenerateTables (chunked_writer.h) and are deterministic
// in (scale factor, seed).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "tools/gen/chunked_writer.h"
#include "tools/gen/columns.h"
#include "tools/gen/random.h"

namespace quiver::gen {

Status RunSsb(const GenOptions& options, std::vector<TableReport>* reports);
Status RunTpch(const GenOptions& options, std::vector<TableReport>* reports);

// Rng streams: one per table (group), so tables never share random numbers.
enum Stream : uint64_t {
  kStreamSsbLineorder = 1,
  kStreamSsbPart,
  kStreamSsbSupplier,
  kStreamSsbCustomer,
  kStreamTpchRegionNation = 101,
  kStreamTpchSupplier,
  kStreamTpchCustomer,
  kStreamTpchPart,
  kStreamTpchPartsupp,
  kStreamTpchOrders,
  kStreamTpchComplaints,
};

// Writes v as exactly `width` decimal digits (zero-padded) to out.
inline void WriteDigits(char* out, int64_t v, int width) {
  for (int i = width - 1; i >= 0; --i) {
    out[i] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
}

// "Customer#000000042": prefix and the key as 9 digits (clause 4.2.3).
inline void AppendKeyName(StringColumn* col, std::string_view prefix, int64_t key) {
  char* out = col->AppendUninitialized(prefix.size() + 9);
  std::copy(prefix.begin(), prefix.end(), out);
  WriteDigits(out + prefix.size(), key, 9);
}

// Phone number of clause 4.2.2.9: "CC-LLL-LLL-LLLL" with country code
// nationkey + 10 and three random local parts.
inline void AppendPhone(StringColumn* col, Rng& rng, int nationkey) {
  char* out = col->AppendUninitialized(15);
  WriteDigits(out, nationkey + 10, 2);
  out[2] = '-';
  WriteDigits(out + 3, rng.Uniform(100, 999), 3);
  out[6] = '-';
  WriteDigits(out + 7, rng.Uniform(100, 999), 3);
  out[10] = '-';
  WriteDigits(out + 11, rng.Uniform(1000, 9999), 4);
}

// A uniformly chosen entry of `list`.
inline std::string_view PickFrom(Rng& rng, std::span<const std::string_view> list) {
  return list[static_cast<size_t>(rng.Below(static_cast<int64_t>(list.size())))];
}

// A random V-STRING[min, max] (text_pool.h).
void AppendVString(StringColumn* col, Rng& rng, int min_len, int max_len);

// Finishes each column (anything with Finish(type) -> Result<ArrayRef>) with
// the type of its field and makes a batch of `schema`.
template <typename... Columns>
Result<RecordBatchRef> MakeBatch(const SchemaRef& schema, int64_t rows, Columns&... columns) {
  if (static_cast<int>(sizeof...(columns)) != schema->num_fields()) {
    return Status::Invalid("{} columns for a schema of {} fields", sizeof...(columns),
                           schema->num_fields());
  }
  std::vector<ArrayRef> arrays;
  arrays.reserve(sizeof...(columns));
  int i = 0;
  Status st;
  auto finish = [&](auto& column) {
    if (!st.ok()) return;
    auto array = column.Finish(schema->field(i++)->type);
    if (!array.ok()) {
      st = array.status();
      return;
    }
    arrays.push_back(std::move(array).ValueOrDie());
  };
  (finish(columns), ...);
  QUIVER_RETURN_NOT_OK(st);
  return RecordBatch::Make(schema, rows, std::move(arrays));
}

// Runs `make(first_row, num_rows)` for each chunk of `rows_per_chunk` rows
// of a table with `total_rows` rows.
Status GenerateRowChunks(const GenOptions& options, const TableDef& def, int64_t total_rows,
                         int64_t rows_per_chunk,
                         const std::function<Result<RecordBatchRef>(int64_t, int64_t)>& make,
                         std::vector<TableReport>* reports);

inline constexpr int64_t kRowsPerChunk = 8192;

}  // namespace quiver::gen
