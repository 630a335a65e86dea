// libFuzzer harness for the Arrow IPC readers (stream and file formats).
//
// Build: cmake -DQUIVER_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ ...; run:
//   ipc_stream_fuzz corpus_dir ../shared/testdata/arrow-testing/data/arrow-ipc-stream
// Any input must yield batches or an error Status; crashes, sanitizer reports
// and leaks are bugs.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/ipc/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace quiver;
  // Copy into pool memory so the reader sees the alignment a mapped file has.
  auto buffer = Buffer::CopyFrom(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!buffer.ok()) return 0;
  auto reader = ipc::OpenIpcReader(*buffer, {}, "fuzz");
  if (!reader.ok()) return 0;
  for (int i = 0; i < 1 << 16; ++i) {
    RecordBatchRef batch;
    if (!(*reader)->ReadNext(&batch).ok() || batch == nullptr) break;
    // Touch every value the way consumers would.
    for (const auto& column : batch->columns()) (void)ArrayEquals(*column, *column);
  }
  return 0;
}
