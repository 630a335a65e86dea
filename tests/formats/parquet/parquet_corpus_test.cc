// The parquet-testing and arrow-testing corpora through the reader (run
// under ASan+UBSan in CI): every file reads or fails with a Status that names
// it; files known to be readable must read; the hostile ones must not.
// Value-level comparison with pyarrow is in tests/python/test_parquet.py.
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "formats/parquet/file_reader.h"
#include "formats/parquet/statistics.h"

namespace quiver::parquet {
namespace {

namespace fs = std::filesystem;

const std::string kTestData = QUIVER_SHARED_TESTDATA;

// The corpora are part of the shared test data: a missing directory fails the
// test (and the callers assert how many files they expect), never skips it.
std::vector<std::string> Files(const std::string& dir, bool recursive, const std::string& suffix) {
  std::vector<std::string> out;
  if (!fs::is_directory(dir)) {
    ADD_FAILURE() << "corpus missing at " << dir << " (set QUIVER_SHARED)";
    return out;
  }
  auto add = [&](const fs::directory_entry& e) {
    if (!e.is_regular_file()) return;
    const std::string p = e.path().string();
    if (suffix.empty() ? !p.ends_with(".md") : p.ends_with(suffix)) out.push_back(p);
  };
  if (recursive) {
    for (const auto& e : fs::recursive_directory_iterator(dir)) add(e);
  } else {
    for (const auto& e : fs::directory_iterator(dir)) add(e);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Statistics decoded from a footer (possibly hostile) must be usable: each
// bound is one valid value of the field's type, and the null count fits the
// row group.
Status CheckStatistics(const ParquetFileReader& reader, int g, int f, int64_t rows) {
  const FieldStatistics s = RowGroupFieldStatistics(reader, g, f);
  const DataType& type = *reader.schema()->field(f)->type;
  for (const ArrayRef& bound : {s.min, s.max}) {
    if (bound == nullptr) continue;
    if (bound->length != 1 || !bound->type->Equals(type)) {
      return Status::Invalid("row group {} field {}: statistics bound of type {} and length {}", g,
                             f, bound->type->ToString(), bound->length);
    }
    QUIVER_RETURN_NOT_OK(bound->Validate(true));
  }
  if (s.null_count > rows) {
    return Status::Invalid("row group {} field {}: null count {} > {} rows", g, f, s.null_count,
                           rows);
  }
  return Status::OK();
}

// Reads everything; returns the first error.
Status ReadEverything(const std::string& path) {
  QUIVER_ASSIGN_OR_RAISE(auto reader, ParquetFileReader::Open(path));
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    QUIVER_ASSIGN_OR_RAISE(auto batch, reader->ReadRowGroup(g, {}));
    QUIVER_RETURN_NOT_OK(batch->Validate(true));
    for (int f = 0; f < reader->schema()->num_fields(); ++f) {
      QUIVER_RETURN_NOT_OK(CheckStatistics(*reader, g, f, batch->num_rows()));
    }
  }
  return Status::OK();
}

TEST(ParquetCorpus, ParquetTestingDataReads) {
  const auto files = Files(kTestData + "/parquet-testing/data", true, ".parquet");
  ASSERT_GT(files.size(), 60u);
  const std::set<std::string> expected_errors = {
      "datapage_v1-corrupt-checksum.parquet",
      "rle-dict-uncompressed-corrupt-checksum.parquet",
      "large_string_map.brotli.parquet",
  };
  for (const std::string& f : files) {
    Status st = ReadEverything(f);
    const std::string name = fs::path(f).filename().string();
    if (expected_errors.count(name)) {
      EXPECT_FALSE(st.ok()) << name;
      EXPECT_NE(st.message().find(name), std::string::npos) << st.ToString();
    } else {
      EXPECT_TRUE(st.ok()) << name << ": " << st.ToString();
    }
  }
}

TEST(ParquetCorpus, ShreddedVariantFilesRead) {
  const auto files = Files(kTestData + "/parquet-testing/shredded_variant", false, ".parquet");
  ASSERT_GT(files.size(), 100u);
  for (const std::string& f : files) {
    Status st = ReadEverything(f);
    EXPECT_TRUE(st.ok()) << f << ": " << st.ToString();
  }
}

TEST(ParquetCorpus, EncryptedFilesAreRefusedClearly) {
  const auto files = Files(kTestData + "/parquet-testing/data", true, ".parquet.encrypted");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    Status st = ReadEverything(f);
    ASSERT_FALSE(st.ok()) << f;
    EXPECT_NE(st.message().find("encrypted Parquet is not supported"), std::string::npos)
        << st.ToString();
  }
}

TEST(ParquetCorpus, HostileFilesGiveErrors) {
  auto files = Files(kTestData + "/parquet-testing/bad_data", false, ".parquet");
  const auto fuzz = Files(kTestData + "/arrow-testing/data/parquet/fuzzing", false, "");
  files.insert(files.end(), fuzz.begin(), fuzz.end());
  ASSERT_GT(files.size(), 100u);
  int errors = 0;
  for (const std::string& f : files) {
    Status st = ReadEverything(f);
    if (!st.ok()) {
      ++errors;
      EXPECT_NE(st.message().find(f), std::string::npos) << st.ToString();
    }
  }
  EXPECT_GT(errors, 100);
}

}  // namespace
}  // namespace quiver::parquet
