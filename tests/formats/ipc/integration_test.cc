// Golden-file test of the Arrow IPC readers: every Arrow integration file in
// arrow-testing's cpp-21.0.0 and 1.0.0-littleendian directories (and the other
// gold directories next to them), read with IpcFileReader (.arrow_file) and
// IpcStreamReader (.stream), must equal the JSON rendering of the same data (generated_X.json.gz) exactly: schema with
// metadata, batch count, row counts and every column (see
// tests/util/integration_json.h for what "equal" means).
//
// A case may instead fail with a Status "unsupported: ..." (Status::Unsupported)
// if, and only if, it is listed in kExpectedUnsupported below. So:
//   - a listed case that starts to pass is reported (remove it from the list);
//   - an unlisted case that reports "unsupported" fails (a regression);
//   - any other error or any content mismatch fails.
// At the end the test prints a summary of supported and unsupported cases.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <iostream>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "formats/ipc/reader.h"
#include "util/integration_json.h"
#include "util/array_mutation.h"

namespace quiver::ipc {
namespace {

namespace fs = std::filesystem;
using testing::CompareBatch;
using testing::CompareSchemas;
using testing::GoldenFile;

// The two directories the reader is specified against come first; the
// remaining gold directories of arrow-testing ride along, so older writers
// (0.14.1 footers, 0.17.1 unions), body compression, shared dictionaries and
// big-endian data are covered by the same rules.
const char* const kGoldenDirs[] = {"cpp-21.0.0",     "1.0.0-littleendian", "0.14.1",
                                   "0.17.1",         "2.0.0-compression",  "4.0.0-shareddict",
                                   "1.0.0-bigendian"};

// Cases allowed to report "unsupported: ...": "<dir>" covers a whole
// directory, "<dir>/<stem>" the file and the stream, "<dir>/<stem>.arrow_file"
// or ".stream" only one. Keep each entry justified.
// Empty: every gold file reads correctly (big-endian bodies are byte-swapped).
const std::set<std::string> kExpectedUnsupported = {};

std::string GoldenRoot() {
  return std::string(QUIVER_SHARED_TESTDATA) + "/arrow-testing/data/arrow-ipc-stream/integration";
}

struct GoldenCase {
  std::string dir;   // "cpp-21.0.0"
  std::string stem;  // "generated_primitive"
  bool stream;       // .stream (IpcStreamReader) or .arrow_file (IpcFileReader)

  std::string key() const { return dir + "/" + stem; }
  std::string name() const { return key() + (stream ? ".stream" : ".arrow_file"); }
  std::string data_path() const { return GoldenRoot() + "/" + name(); }
  std::string json_path() const { return GoldenRoot() + "/" + key() + ".json.gz"; }
};

// gtest prints parameters of failing cases with this.
void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.name(); }

std::vector<GoldenCase> DiscoverCases() {
  std::vector<GoldenCase> cases;
  for (const char* dir : kGoldenDirs) {
    const fs::path root = fs::path(GoldenRoot()) / dir;
    std::error_code ec;
    if (!fs::is_directory(root, ec)) continue;
    std::vector<std::string> stems;
    for (const auto& entry : fs::directory_iterator(root, ec)) {
      const std::string file = entry.path().filename().string();
      const std::string suffix = ".json.gz";
      if (file.size() > suffix.size() &&
          file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0) {
        stems.push_back(file.substr(0, file.size() - suffix.size()));
      }
    }
    std::sort(stems.begin(), stems.end());
    for (const std::string& stem : stems) {
      for (bool stream : {false, true}) {
        GoldenCase c{dir, stem, stream};
        if (fs::exists(c.data_path(), ec)) cases.push_back(c);
      }
    }
  }
  return cases;
}

// --- outcome bookkeeping and the summary --------------------------------------

struct Summary {
  std::mutex mu;
  std::vector<std::string> supported;
  std::vector<std::string> unsupported;  // "name: message"
  std::vector<std::string> failed;       // "name: message"
  std::vector<std::string> newly_supported;
};
Summary& GetSummary() {
  static Summary summary;
  return summary;
}

class SummaryPrinter : public ::testing::Environment {
 public:
  void TearDown() override {
    Summary& s = GetSummary();
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.supported.empty() && s.unsupported.empty() && s.failed.empty()) return;
    std::cout << "\n=== Arrow IPC golden files: " << s.supported.size() << " supported, "
              << s.unsupported.size() << " unsupported, " << s.failed.size() << " failed ===\n";
    std::cout << "supported (" << s.supported.size() << "):\n";
    for (const auto& n : s.supported) std::cout << "  " << n << "\n";
    std::cout << "unsupported (" << s.unsupported.size() << "):\n";
    for (const auto& n : s.unsupported) std::cout << "  " << n << "\n";
    if (!s.failed.empty()) {
      std::cout << "FAILED (" << s.failed.size() << "):\n";
      for (const auto& n : s.failed) std::cout << "  " << n << "\n";
    }
    if (!s.newly_supported.empty()) {
      std::cout << "now supported, remove from kExpectedUnsupported:\n";
      for (const auto& n : s.newly_supported) std::cout << "  " << n << "\n";
    }
    std::cout << std::flush;
  }
};
[[maybe_unused]] ::testing::Environment* const kSummaryEnv =
    ::testing::AddGlobalTestEnvironment(new SummaryPrinter);

// The reader reports unsupported input as Status::Unsupported, possibly with
// context ("<file>: unsupported: ...") added in front.
bool IsUnsupported(const Status& st) {
  return st.IsNotImplemented() && st.message().find("unsupported: ") != std::string::npos;
}

// --- reading and comparing ------------------------------------------------------

Status CheckBatch(const GoldenFile& golden, int i, const RecordBatchRef& batch) {
  if (!batch) return Status::Invalid("mismatch: batch {}: reader returned no batch", i);
  QUIVER_RETURN_NOT_OK(
      batch->Validate(/*full=*/true).WithContext(fmt::format("batch {} fails Validate(full)", i)));
  return CompareBatch(golden, i, *batch);
}

Status CheckSchema(const GoldenFile& golden, const SchemaRef& schema) {
  if (!schema) return Status::Invalid("mismatch: reader has no schema");
  return CompareSchemas(*golden.schema, *schema).WithContext("reader schema");
}

Status CheckFile(const GoldenCase& c, const GoldenFile& golden, const IpcReadOptions& options) {
  QUIVER_ASSIGN_OR_RAISE(std::shared_ptr<IpcFileReader> reader,
                         IpcFileReader::Open(c.data_path(), options));
  QUIVER_RETURN_NOT_OK(CheckSchema(golden, reader->schema()));
  if (reader->num_record_batches() != golden.num_batches()) {
    return Status::Invalid("mismatch: number of record batches: expected {}, got {}",
                           golden.num_batches(), reader->num_record_batches());
  }
  for (int i = 0; i < golden.num_batches(); ++i) {
    QUIVER_ASSIGN_OR_RAISE(RecordBatchRef batch, reader->ReadRecordBatch(i));
    QUIVER_RETURN_NOT_OK(CheckBatch(golden, i, batch));
  }
  return Status::OK();
}

// Drains any RecordBatchReader (the stream reader, OpenIpcReader's readers).
Status CheckReader(const GoldenFile& golden, RecordBatchReader* reader) {
  QUIVER_RETURN_NOT_OK(CheckSchema(golden, reader->schema()));
  int i = 0;
  while (true) {
    RecordBatchRef batch;
    QUIVER_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (!batch) break;
    if (i >= golden.num_batches()) {
      return Status::Invalid("mismatch: stream has more than the expected {} batches",
                             golden.num_batches());
    }
    QUIVER_RETURN_NOT_OK(CheckBatch(golden, i, batch));
    ++i;
  }
  if (i != golden.num_batches()) {
    return Status::Invalid("mismatch: number of record batches: expected {}, got {}",
                           golden.num_batches(), i);
  }
  return Status::OK();
}

Status CheckStream(const GoldenCase& c, const GoldenFile& golden, const IpcReadOptions& options) {
  QUIVER_ASSIGN_OR_RAISE(std::unique_ptr<IpcStreamReader> reader,
                         IpcStreamReader::Open(c.data_path(), options));
  return CheckReader(golden, reader.get());
}

// The case read every way the readers offer: the plain reader first (its
// status decides supported / unsupported), then the non-mmap path (files),
// OpenIpcReader's format sniffing, and a projection of every other column.
Status CheckCase(const GoldenCase& c, const GoldenFile& golden) {
  IpcReadOptions options;
  auto check = [&](const GoldenFile& g, const IpcReadOptions& o) {
    return c.stream ? CheckStream(c, g, o) : CheckFile(c, g, o);
  };
  QUIVER_RETURN_NOT_OK(check(golden, options));
  if (!c.stream) {
    IpcReadOptions no_mmap;
    no_mmap.use_mmap = false;
    QUIVER_RETURN_NOT_OK(check(golden, no_mmap).WithContext("use_mmap=false"));
  }
  {
    QUIVER_ASSIGN_OR_RAISE(std::unique_ptr<RecordBatchReader> reader, OpenIpcReader(c.data_path()));
    QUIVER_RETURN_NOT_OK(CheckReader(golden, reader.get()).WithContext("OpenIpcReader"));
  }
  const int n = golden.schema->num_fields();
  if (n >= 2) {
    IpcReadOptions projected;
    for (int i = 1; i < n; i += 2) projected.included_fields.push_back(i);
    QUIVER_ASSIGN_OR_RAISE(auto sub, testing::ProjectGolden(golden, projected.included_fields));
    QUIVER_RETURN_NOT_OK(check(*sub, projected)
                             .WithContext(fmt::format("included_fields={{{}}}",
                                                      fmt::join(projected.included_fields, ","))));
  }
  return Status::OK();
}

class IpcGoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(IpcGoldenTest, MatchesJson) {
  const GoldenCase& c = GetParam();
  auto golden = testing::LoadGoldenFile(c.json_path());
  ASSERT_TRUE(golden.ok()) << golden.status().ToString();

  const Status st = CheckCase(c, **golden);
  const bool allowed = kExpectedUnsupported.count(c.dir) > 0 ||
                       kExpectedUnsupported.count(c.key()) > 0 ||
                       kExpectedUnsupported.count(c.name()) > 0;
  Summary& summary = GetSummary();
  std::lock_guard<std::mutex> lock(summary.mu);
  if (st.ok()) {
    summary.supported.push_back(c.name());
    if (allowed) {
      summary.newly_supported.push_back(c.name());
      std::cout << c.name() << " now reads correctly: remove it from kExpectedUnsupported\n";
    }
    return;
  }
  if (IsUnsupported(st)) {
    summary.unsupported.push_back(c.name() + ": " + st.message());
    EXPECT_TRUE(allowed) << c.name() << " reports unsupported but is not in kExpectedUnsupported "
                         << "(regression?): " << st.ToString();
    return;
  }
  summary.failed.push_back(c.name() + ": " + st.message());
  ADD_FAILURE() << c.name() << ": " << st.ToString();
}

std::string CaseName(const ::testing::TestParamInfo<GoldenCase>& info) {
  std::string n = info.param.name();
  for (char& ch : n) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(ArrowTesting, IpcGoldenTest, ::testing::ValuesIn(DiscoverCases()),
                         CaseName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(IpcGoldenTest);

// The test data must be there: an empty case list would make the suite pass
// vacuously.
TEST(IpcGoldenFiles, AreFound) {
  const auto cases = DiscoverCases();
  EXPECT_GE(cases.size(), 180u) << "golden files missing under " << GoldenRoot();
  // Every listed unsupported case must exist (no stale entries).
  std::set<std::string> names;
  for (const auto& c : cases) {
    names.insert(c.dir);
    names.insert(c.key());
    names.insert(c.name());
  }
  for (const auto& n : kExpectedUnsupported) EXPECT_TRUE(names.count(n)) << "stale entry " << n;
}

// What counts as "unsupported": Status::Unsupported, with or without the
// "<file>: message at byte N: " context the reader puts in front.
TEST(IpcGoldenFiles, UnsupportedStatusIsRecognised) {
  EXPECT_TRUE(IsUnsupported(Status::Unsupported("big-endian Arrow IPC data")));
  EXPECT_TRUE(IsUnsupported(Status::Unsupported("x").WithContext("f.arrow: message at byte 8")));
  EXPECT_FALSE(IsUnsupported(Status::Invalid("unsupported: but Invalid")));
  EXPECT_FALSE(IsUnsupported(Status::NotImplemented("not the unsupported form")));
}

// The comparison is not vacuous on real data: corrupting one value or one
// validity bit of any top-level fixed-width or binary column of a batch read
// from a golden file must be reported, naming that column and slot.

TEST(IpcGoldenFiles, CorruptedRealDataIsDetected) {
  int mutations = 0;
  for (const char* stem :
       {"generated_primitive", "generated_binary", "generated_datetime", "generated_decimal",
        "generated_decimal256", "generated_interval", "generated_interval_mdn",
        "generated_duration", "generated_large_binary"}) {
    GoldenCase c{"cpp-21.0.0", stem, false};
    auto golden = testing::LoadGoldenFile(c.json_path());
    ASSERT_TRUE(golden.ok()) << golden.status().ToString();
    auto reader = IpcFileReader::Open(c.data_path());
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    for (int b = 0; b < (*reader)->num_record_batches(); ++b) {
      auto batch = (*reader)->ReadRecordBatch(b);
      ASSERT_TRUE(batch.ok()) << batch.status().ToString();
      ASSERT_TRUE(CompareBatch(**golden, b, **batch).ok());
      for (int col = 0; col < (*batch)->num_columns(); ++col) {
        const ArrayData& arr = *(*batch)->column(col);
        const DataType& t = *arr.type;
        const std::string name = (*batch)->schema()->field(col)->name;
        // `where`: the text the mismatch message must contain.
        auto check = [&](ArrayRef mutated, const std::string& where, const char* what) {
          std::vector<ArrayRef> cols = (*batch)->columns();
          cols[col] = std::move(mutated);
          auto bad = RecordBatch::Make((*batch)->schema(), (*batch)->num_rows(), cols);
          Status st = CompareBatch(**golden, b, *bad);
          ++mutations;
          ASSERT_FALSE(st.ok()) << c.name() << " batch " << b << ": " << what << " at " << where
                                << " not detected";
          EXPECT_NE(st.message().find(where), std::string::npos) << st.message();
        };
        // First valid slot with a non-empty value.
        int64_t slot = -1, start = 0, width = t.bit_width() / 8;
        for (int64_t i = 0; i < arr.length && slot < 0; ++i) {
          if (!arr.IsValid(i)) continue;
          if (t.is_binary_like()) {
            const bool large = t.id == TypeId::kLargeString || t.id == TypeId::kLargeBinary;
            const uint8_t* offsets = arr.buffers[1]->data();
            int64_t s0 = large ? reinterpret_cast<const int64_t*>(offsets)[arr.offset + i]
                               : reinterpret_cast<const int32_t*>(offsets)[arr.offset + i];
            int64_t s1 = large ? reinterpret_cast<const int64_t*>(offsets)[arr.offset + i + 1]
                               : reinterpret_cast<const int32_t*>(offsets)[arr.offset + i + 1];
            if (s1 > s0) slot = i, start = s0;
          } else if (t.is_fixed_width()) {
            slot = i;
          }
        }
        if (slot < 0) continue;
        const std::string at_slot = fmt::format("{}[{}]", name, slot);
        if (t.id == TypeId::kBool) {
          check(testing::MutateBuffer(arr, 1,
                               [&](uint8_t* p) {
                                 p[(arr.offset + slot) / 8] ^= 1 << ((arr.offset + slot) % 8);
                               }),
                at_slot, "flipped bool");
        } else if (t.is_binary_like()) {
          check(testing::MutateBuffer(arr, 2, [&](uint8_t* p) { p[start] ^= 1; }), at_slot,
                "changed byte");
        } else {
          check(testing::MutateBuffer(arr, 1, [&](uint8_t* p) { p[(arr.offset + slot) * width] ^= 1; }),
                at_slot, "changed byte");
        }
        if (arr.buffers[0] && arr.length > 1) {
          // Swap validity of the first two slots when they differ (same null
          // count, so the slot itself must be named); otherwise flip slot 0.
          const bool v0 = arr.IsValid(0), v1 = arr.IsValid(1);
          check(testing::MutateBuffer(arr, 0,
                               [&](uint8_t* p) {
                                 const int64_t o = arr.offset;
                                 p[o / 8] ^= static_cast<uint8_t>(1 << (o % 8));
                                 if (v0 != v1)
                                   p[(o + 1) / 8] ^= static_cast<uint8_t>(1 << ((o + 1) % 8));
                               }),
                v0 != v1 ? name + "[0]: validity" : name + ": null count", "validity");
        }
      }
    }
  }
  EXPECT_GT(mutations, 100);
}

// Same for layouts with offsets, sizes, indices, type ids and views: one
// targeted corruption per top-level column, which must be reported at the
// corrupted slot.
TEST(IpcGoldenFiles, CorruptedRealNestedDataIsDetected) {
  int mutations = 0;
  for (const char* stem :
       {"generated_nested", "generated_map", "generated_nested_large_offsets",
        "generated_dictionary", "generated_dictionary_unsigned", "generated_nested_dictionary",
        "generated_union", "generated_binary_view", "generated_list_view",
        "generated_recursive_nested"}) {
    GoldenCase c{"cpp-21.0.0", stem, false};
    auto golden = testing::LoadGoldenFile(c.json_path());
    ASSERT_TRUE(golden.ok()) << golden.status().ToString();
    auto reader = IpcFileReader::Open(c.data_path());
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    for (int b = 0; b < (*reader)->num_record_batches(); ++b) {
      auto batch = (*reader)->ReadRecordBatch(b);
      ASSERT_TRUE(batch.ok()) << batch.status().ToString();
      for (int col = 0; col < (*batch)->num_columns(); ++col) {
        const ArrayData& arr = *(*batch)->column(col);
        const TypeId id = arr.type->id;
        const std::string name = (*batch)->schema()->field(col)->name;
        const int64_t o = arr.offset;
        auto i32 = [](const ArrayData& a, size_t buf) {
          return a.buffers[buf]->data_as<int32_t>();
        };
        auto i64 = [](const ArrayData& a, size_t buf) {
          return a.buffers[buf]->data_as<int64_t>();
        };
        ArrayRef bad;
        std::string where;
        for (int64_t i = 0; i < arr.length && !bad; ++i) {
          const bool valid = arr.IsValid(i);
          const std::string at = fmt::format("{}[{}]: ", name, i);
          if ((id == TypeId::kList || id == TypeId::kMap) && valid &&
              i32(arr, 1)[o + i + 1] > i32(arr, 1)[o + i]) {
            bad = testing::MutateBuffer(
                arr, 1, [&](uint8_t* p) { reinterpret_cast<int32_t*>(p)[o + i + 1] -= 1; });
            where = at + "list length";
          } else if (id == TypeId::kLargeList && valid &&
                     i64(arr, 1)[o + i + 1] > i64(arr, 1)[o + i]) {
            bad = testing::MutateBuffer(
                arr, 1, [&](uint8_t* p) { reinterpret_cast<int64_t*>(p)[o + i + 1] -= 1; });
            where = at + "list length";
          } else if (id == TypeId::kListView && valid && i32(arr, 2)[o + i] > 0) {
            bad = testing::MutateBuffer(arr, 2,
                                 [&](uint8_t* p) { reinterpret_cast<int32_t*>(p)[o + i] -= 1; });
            where = at + "list view size";
          } else if (id == TypeId::kLargeListView && valid && i64(arr, 2)[o + i] > 0) {
            bad = testing::MutateBuffer(arr, 2,
                                 [&](uint8_t* p) { reinterpret_cast<int64_t*>(p)[o + i] -= 1; });
            where = at + "list view size";
          } else if (id == TypeId::kDictionary && valid) {
            const int w = arr.type->index_type->bit_width() / 8;
            bad = testing::MutateBuffer(arr, 1, [&](uint8_t* p) { p[(o + i) * w] ^= 1; });
            where = at + "dictionary index";
          } else if ((id == TypeId::kSparseUnion || id == TypeId::kDenseUnion) &&
                     arr.type->type_codes.size() > 1) {
            const int8_t code = arr.buffers[0]->data_as<int8_t>()[o + i];
            const int8_t other =
                code == arr.type->type_codes[0] ? arr.type->type_codes[1] : arr.type->type_codes[0];
            bad = testing::MutateBuffer(arr, 0,
                                 [&](uint8_t* p) { reinterpret_cast<int8_t*>(p)[o + i] = other; });
            where = at + "union type id";
          } else if ((id == TypeId::kBinaryView || id == TypeId::kStringView) && valid &&
                     i32(arr, 1)[(o + i) * 4] > 0) {
            const int32_t size = i32(arr, 1)[(o + i) * 4];
            if (size <= 12) {
              bad = testing::MutateBuffer(arr, 1, [&](uint8_t* p) { p[(o + i) * 16 + 4] ^= 1; });
            } else {
              const int32_t index = i32(arr, 1)[(o + i) * 4 + 2],
                            offset = i32(arr, 1)[(o + i) * 4 + 3];
              bad = testing::MutateBuffer(arr, 2 + index, [&](uint8_t* p) { p[offset + 5] ^= 1; });
            }
            where = at;
          }
        }
        if (!bad) continue;
        std::vector<ArrayRef> cols = (*batch)->columns();
        cols[col] = bad;
        Status st = CompareBatch(
            **golden, b, *RecordBatch::Make((*batch)->schema(), (*batch)->num_rows(), cols));
        ++mutations;
        ASSERT_FALSE(st.ok()) << c.name() << " batch " << b << ": not detected: " << where;
        EXPECT_NE(st.message().find(where), std::string::npos)
            << st.message() << " lacks " << where;
      }
    }
  }
  EXPECT_GT(mutations, 20);
}

// Every golden JSON schema parses into a Quiver schema.
TEST(IpcGoldenFiles, JsonSchemasParse) {
  for (const auto& c : DiscoverCases()) {
    if (c.stream) continue;
    auto golden = testing::LoadGoldenFile(c.json_path());
    EXPECT_TRUE(golden.ok()) << c.key() << ": " << golden.status().ToString();
  }
}

}  // namespace
}  // namespace quiver::ipc
