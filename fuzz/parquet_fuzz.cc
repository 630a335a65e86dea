// libFuzzer harness for the Parquet reader (footer, schema, pages, codecs,
// encodings, levels, nested assembly, statistics, page-index reads).
//
// Build: cmake -DQUIVER_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ ...; run:
//   parquet_fuzz corpus_dir
// Seed it with parquet-testing/data and arrow-testing/data/parquet/fuzzing.
// Any input must yield batches or an error Status; the decode budget is
// small so inputs that claim huge value counts fail fast instead of paging.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "formats/parquet/file_reader.h"
#include "formats/parquet/statistics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace quiver;
  auto buffer = Buffer::CopyFrom(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!buffer.ok()) return 0;
  parquet::ParquetReadOptions options;
  options.min_decode_budget = 64 << 20;
  options.parallel = (size % 2) == 0;    // both the inline and the pool path
  options.verify_crc = (size % 3) != 0;  // let corrupted pages reach the decoders too
  auto reader = parquet::ParquetFileReader::Open(*buffer, "fuzz.parquet", options);
  if (!reader.ok()) return 0;
  for (int g = 0; g < (*reader)->num_row_groups(); ++g) {
    // Every other page of the first field with a page index: the paged read
    // (offset index, Seek, partial decode) on hostile bytes.
    std::vector<parquet::RowRange> ranges;
    for (int f = 0; f < (*reader)->schema()->num_fields(); ++f) {
      (void)parquet::RowGroupFieldStatistics(**reader, g, f);
      const auto pages = parquet::PageFieldStatistics(**reader, g, f);
      if (!ranges.empty()) continue;
      for (size_t p = 0; p < pages.size(); p += 2) {
        ranges.push_back({pages[p].first_row, pages[p].first_row + pages[p].rows});
      }
    }
    auto batch = (*reader)->ReadRowGroup(g, {});
    if (batch.ok()) (void)(*batch)->Validate(/*full=*/true);
    if (!ranges.empty()) {
      auto rows = (*reader)->ReadRowGroupRows(g, {}, ranges);
      if (rows.ok()) (void)(*rows)->Validate(/*full=*/true);
    }
  }
  return 0;
}
