// libFuzzer harness for the CSV reader (chunker, parser, inference, converters).
//
// Build: cmake -DQUIVER_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ ...; run:
//   csv_fuzz corpus_dir
// Small blocks force the parallel splitter to guess row boundaries inside
// quoted fields, which is where speculative parsing can go wrong. Any input
// must yield batches or an error Status.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/csv/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace quiver;
  auto buffer = Buffer::CopyFrom(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!buffer.ok()) return 0;
  csv::ReadOptions read_options;
  read_options.block_size = 1 + (size % 61);  // vary splitting with the input
  csv::ConvertOptions convert_options;
  convert_options.inference_rows = 1 + static_cast<int64_t>(size % 7);
  auto reader = csv::CsvReader::Make(*buffer, "fuzz.csv", read_options, {}, convert_options);
  if (!reader.ok()) return 0;
  for (;;) {
    RecordBatchRef batch;
    if (!(*reader)->ReadNext(&batch).ok() || batch == nullptr) break;
    (void)batch->Validate(/*full=*/true);
  }
  return 0;
}
