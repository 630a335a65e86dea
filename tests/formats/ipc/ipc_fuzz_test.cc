// Hostile-input tests for the Arrow IPC readers (run under ASan+UBSan in CI).
//
// Every file of arrow-testing's arrow-ipc-stream corpus (fuzzer crash
// reproducers, clusterfuzz test cases, and the integration files of several
// Arrow versions) must give either a clean read or an error Status. The
// integration files are also truncated at many lengths and have single bits
// flipped at deterministic positions. Finally the well-formed integration
// files must read successfully (or be reported unsupported), and the .stream
// and .arrow_file renderings of the same data must agree.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "formats/ipc/reader.h"

namespace quiver::ipc {
namespace {

namespace fs = std::filesystem;

const std::string kCorpus =
    std::string(QUIVER_SHARED_TESTDATA) + "/arrow-testing/data/arrow-ipc-stream";

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> out;
  if (!fs::is_directory(kCorpus)) {
    ADD_FAILURE() << "IPC corpus missing at " << kCorpus << " (set QUIVER_SHARED)";
    return out;
  }
  for (const auto& e : fs::recursive_directory_iterator(kCorpus)) {
    if (!e.is_regular_file()) continue;
    const std::string p = e.path().string();
    if (p.ends_with(".json.gz") || p.ends_with(".md") || p.ends_with(".json")) continue;
    out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Reads everything; returns the first error (OK for a clean read).
Status ReadEverything(const std::string& bytes, std::vector<RecordBatchRef>* batches = nullptr) {
  QUIVER_ASSIGN_OR_RAISE(auto buffer, Buffer::CopyFrom(bytes));
  if (LooksLikeIpcFile(buffer->data(), buffer->size())) {
    QUIVER_ASSIGN_OR_RAISE(auto file, IpcFileReader::Open(buffer, {}, "fuzz"));
    for (int i = 0; i < file->num_record_batches(); ++i) {
      QUIVER_ASSIGN_OR_RAISE(auto b, file->ReadRecordBatch(i));
      if (batches) batches->push_back(b);
    }
    return Status::OK();
  }
  QUIVER_ASSIGN_OR_RAISE(auto stream, IpcStreamReader::Open(buffer, {}, "fuzz"));
  for (int guard = 0; guard < 100000; ++guard) {
    RecordBatchRef b;
    QUIVER_RETURN_NOT_OK(stream->ReadNext(&b));
    if (b == nullptr) return Status::OK();
    if (batches) batches->push_back(b);
  }
  return Status::Invalid("too many batches");
}

// Type equality including the names of nested fields (map types compare
// equal whatever their entry names are).
bool SameTypeAndNames(const DataType& a, const DataType& b) {
  if (!a.Equals(b) || a.children.size() != b.children.size()) return false;
  for (size_t i = 0; i < a.children.size(); ++i) {
    if (a.children[i]->name != b.children[i]->name ||
        !SameTypeAndNames(*a.children[i]->type, *b.children[i]->type)) {
      return false;
    }
  }
  return true;
}

// A successful read of damaged bytes must not hand out anything a consumer
// could trip over: every batch validates in full.
void ExpectValidBatches(const std::vector<RecordBatchRef>& batches, const std::string& what) {
  for (size_t b = 0; b < batches.size(); ++b) {
    Status st = batches[b]->Validate(true);
    EXPECT_TRUE(st.ok()) << what << " batch " << b << ": " << st.ToString();
  }
}

bool SameBatch(const RecordBatch& a, const RecordBatch& b) {
  if (a.num_rows() != b.num_rows() || a.num_columns() != b.num_columns()) return false;
  for (int c = 0; c < a.num_columns(); ++c) {
    if (!ArrayEquals(*a.column(c), *b.column(c))) return false;
  }
  return true;
}

bool IsIntegrationFile(const std::string& p) {
  return p.find("/integration/") != std::string::npos &&
         (p.ends_with(".stream") || p.ends_with(".arrow_file"));
}

TEST(IpcFuzz, CorpusFilesNeverCrash) {
  auto files = CorpusFiles();
  ASSERT_GT(files.size(), 100u) << "IPC corpus at " << kCorpus;
  int ok = 0, failed = 0;
  for (const auto& p : files) {
    Status st = ReadEverything(Slurp(p));
    if (st.ok()) {
      ++ok;
    } else {
      ++failed;
    }
    if (!st.ok()) {
      EXPECT_FALSE(st.message().empty()) << p;  // errors say something
    }
  }
  std::printf("corpus: %d files read cleanly, %d rejected\n", ok, failed);
}

// Inputs our own fuzzing found (tests/formats/ipc/fuzz_regressions/).
TEST(IpcFuzz, RegressionInputsNeverCrash) {
  const fs::path dir = fs::path(QUIVER_SOURCE_DIR) / "tests/formats/ipc/fuzz_regressions";
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    Status st = ReadEverything(Slurp(e.path().string()));
    EXPECT_FALSE(st.ok()) << e.path();  // all of them are malformed
    ++n;
  }
  EXPECT_GT(n, 0);
}

TEST(IpcFuzz, TruncatedIntegrationFiles) {
  auto files = CorpusFiles();
  ASSERT_GT(files.size(), 100u) << "IPC corpus at " << kCorpus;
  int64_t reads = 0;
  for (const auto& p : files) {
    if (!IsIntegrationFile(p)) continue;
    const std::string bytes = Slurp(p);
    std::vector<RecordBatchRef> whole;
    ASSERT_TRUE(ReadEverything(bytes, &whole).ok()) << p;
    const bool is_file = p.ends_with(".arrow_file");
    const size_t n = bytes.size();
    std::vector<size_t> cuts;
    for (size_t k = 0; k < 48; ++k) cuts.push_back(n * k / 48);
    for (size_t k = 1; k <= 24 && k <= n; ++k) cuts.push_back(n - k);  // footer region
    for (size_t cut : cuts) {
      std::vector<RecordBatchRef> got;
      Status st = ReadEverything(bytes.substr(0, cut), &got);
      ++reads;
      const std::string what = p + " cut at " + std::to_string(cut) + " of " + std::to_string(n);
      if (!st.ok()) {
        EXPECT_FALSE(st.message().empty()) << what;
        continue;
      }
      // A file without its footer is no file; a stream cut between messages
      // reads as the batches before the cut (the end-of-stream marker is
      // optional), and never as anything else.
      EXPECT_FALSE(is_file) << what << ": a truncated IPC file read successfully";
      ExpectValidBatches(got, what);
      ASSERT_LE(got.size(), whole.size()) << what;
      for (size_t b = 0; b < got.size(); ++b) {
        EXPECT_TRUE(SameBatch(*got[b], *whole[b]))
            << what << ": batch " << b << " differs from the original";
      }
    }
  }
  EXPECT_GT(reads, 0);
}

TEST(IpcFuzz, BitFlippedIntegrationFiles) {
  auto files = CorpusFiles();
  ASSERT_GT(files.size(), 100u) << "IPC corpus at " << kCorpus;
  uint64_t state = 0x9E3779B97F4A7C15ull;  // deterministic LCG
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 17;
  };
  int64_t reads = 0;
  for (const auto& p : files) {
    if (!IsIntegrationFile(p)) continue;
    const std::string original = Slurp(p);
    if (original.empty()) continue;
    for (int k = 0; k < 64; ++k) {
      std::string bytes = original;
      // Half the flips land in the first 512 bytes, where schema and
      // first-message metadata live; the rest anywhere.
      size_t range = (k % 2 == 0) ? std::min<size_t>(bytes.size(), 512) : bytes.size();
      size_t pos = next() % range;
      bytes[pos] = static_cast<char>(bytes[pos] ^ (1u << (next() % 8)));
      if (k % 8 == 7) {  // and sometimes a whole word of 0xFF
        size_t q = next() % bytes.size();
        for (size_t j = q; j < std::min(bytes.size(), q + 4); ++j) bytes[j] = '\xff';
      }
      std::vector<RecordBatchRef> got;
      Status st = ReadEverything(bytes, &got);
      ++reads;
      const std::string what = p + " damaged at " + std::to_string(pos);
      if (st.ok()) {
        ExpectValidBatches(got, what);
      } else {
        EXPECT_FALSE(st.message().empty()) << what;
      }
    }
  }
  EXPECT_GT(reads, 0);
}

// Well-formed integration files: read OK (or unsupported), file == stream.
TEST(IpcFuzz, IntegrationFilesReadAndAgree) {
  auto files = CorpusFiles();
  ASSERT_GT(files.size(), 100u) << "IPC corpus at " << kCorpus;
  std::map<std::string, std::vector<RecordBatchRef>> streams;
  std::vector<std::string> unsupported;
  int read_ok = 0;
  for (const auto& p : files) {
    if (!IsIntegrationFile(p)) continue;
    std::vector<RecordBatchRef> batches;
    Status st = ReadEverything(Slurp(p), &batches);
    if (st.IsNotImplemented()) {
      unsupported.push_back(fs::path(p).parent_path().filename().string() + "/" +
                            fs::path(p).filename().string() + ": " + st.message());
      continue;
    }
    EXPECT_TRUE(st.ok()) << p << ": " << st.ToString();
    if (!st.ok()) continue;
    ++read_ok;
    const std::string stem = p.substr(0, p.rfind('.'));
    auto it = streams.find(stem);
    if (it == streams.end()) {
      streams.emplace(stem, std::move(batches));
      continue;
    }
    ASSERT_EQ(it->second.size(), batches.size()) << stem;
    for (size_t b = 0; b < batches.size(); ++b) {
      ASSERT_EQ(it->second[b]->num_columns(), batches[b]->num_columns()) << stem;
      for (int c = 0; c < batches[b]->num_columns(); ++c) {
        // Some writers canonicalise map field names in one rendering only
        // (generated_map_non_canonical); values are compared where types agree.
        if (!SameTypeAndNames(*it->second[b]->column(c)->type, *batches[b]->column(c)->type)) {
          continue;
        }
        EXPECT_TRUE(ArrayEquals(*it->second[b]->column(c), *batches[b]->column(c)))
            << stem << " batch " << b << " column " << c;
      }
    }
  }
  std::printf("integration: %d files read; %zu unsupported:\n", read_ok, unsupported.size());
  for (const auto& u : unsupported) std::printf("  %s\n", u.c_str());
  EXPECT_GT(read_ok, 0);
  // Every type, version and byte order in the corpus is supported today.
  EXPECT_TRUE(unsupported.empty());
}

}  // namespace
}  // namespace quiver::ipc
