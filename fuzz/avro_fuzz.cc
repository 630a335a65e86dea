// libFuzzer harness for the Avro reader (header, schema JSON, block walk,
// codecs, binary decoding of every type, projection's skipping).
//
// Build: cmake -DQUIVER_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ ...; run:
//   avro_fuzz corpus_dir
// Seed it with arrow-testing/data/avro. Any input must yield batches or an
// error Status.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "formats/avro/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace quiver;
  auto buffer = Buffer::CopyFrom(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!buffer.ok()) return 0;
  auto reader = avro::AvroFileReader::Open(*buffer, "fuzz.avro", DefaultMemoryPool());
  if (!reader.ok()) return 0;
  const int blocks = static_cast<int>((*reader)->blocks().size());
  auto all = (*reader)->ReadBlocks(0, blocks, {});
  if (all.ok()) (void)(*all)->Validate(/*full=*/true);
  // The last column alone: the others are skipped, not decoded.
  const int columns = (*reader)->schema()->num_fields();
  if (columns > 1) {
    auto last = (*reader)->ReadBlocks(0, blocks, {columns - 1});
    if (last.ok()) (void)(*last)->Validate(/*full=*/true);
  }
  return 0;
}
