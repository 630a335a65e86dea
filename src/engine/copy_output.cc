#include "engine/copy_output.h"

#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include "columnar/batch_util.h"
#include "common/io.h"
#include "formats/file_format.h"
#include "functions/kernel_util.h"
#include "vector/value.h"

namespace quiver {

namespace fs = std::filesystem;

Status WriteInBatchesOf(int64_t rows, const SchemaRef& schema,
                        const std::vector<RecordBatchRef>& batches, formats::TableWriter* writer) {
  std::vector<RecordBatchRef> pending;
  int64_t pending_rows = 0;
  auto flush = [&]() -> Status {
    if (pending_rows == 0) return Status::OK();
    QUIVER_ASSIGN_OR_RAISE(RecordBatchRef merged, ConcatenateBatches(schema, pending));
    pending.clear();
    pending_rows = 0;
    return writer->Write(*merged);
  };
  for (const RecordBatchRef& b : batches) {
    const int64_t n = b->num_rows();
    int64_t offset = 0;
    while (offset < n) {
      const int64_t take = std::min(n - offset, rows - pending_rows);
      pending.push_back(offset == 0 && take == n ? b : b->Slice(offset, take));
      pending_rows += take;
      offset += take;
      if (pending_rows == rows) QUIVER_RETURN_NOT_OK(flush());
    }
  }
  return flush();
}


namespace {

constexpr const char* kHiveNull = "__HIVE_DEFAULT_PARTITION__";

bool HiveEscapes(unsigned char c) {
  if (c < 0x20 || c == 0x7f) return true;
  switch (c) {
    case '"':
    case '#':
    case '%':
    case '\'':
    case '*':
    case '/':
    case ':':
    case '=':
    case '?':
    case '\\':
    case '{':
    case '[':
    case ']':
    case '^':
      return true;
    default:
      return false;
  }
}

std::string HiveValueText(const ArrayData& column, int64_t row) {
  const Value v = ValueFromArray(column, row);
  if (v.is_null()) return kHiveNull;
  if (v.type()->id == TypeId::kBool) return v.boolean() ? "true" : "false";
  return HiveEscape(v.ToString());
}

std::string Extension(const CopyOptions& copy) {
  switch (copy.format) {
    case formats::FileFormat::kParquet:
      return ".parquet";
    case formats::FileFormat::kIpcFile:
      return ".arrow";
    case formats::FileFormat::kIpcStream:
      return ".arrows";
    case formats::FileFormat::kAvro:
      return ".avro";
    default:
      return copy.write.csv.delimiter == '\t' ? ".tsv" : ".csv";
  }
}

// One partition's rows: its directory below the output directory and its
// batches (the partition columns left out).
struct Partition {
  std::string path;
  std::vector<RecordBatchRef> batches;
};

}  // namespace

std::string HiveEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (HiveEscapes(c)) {
      out += fmt::format("%{:02X}", c);
    } else {
      out += ch;
    }
  }
  return out;
}

Status CheckPartitionDirectory(const std::string& dir, const CopyOptions& copy) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    return Status::IOError("could not stat \"{}\": {}", dir, ec.message());
  if (!fs::exists(st)) return Status::OK();
  if (!fs::is_directory(st))
    return Status::IOError(
               "COPY ... PARTITION_BY writes a directory, and \"{}\" exists and is not a directory",
               dir)
        .WithSqlState("58P02");  // duplicate_file
  if (copy.existing != CopyOptions::ExistingFiles::kRefuse) return Status::OK();
  auto it = fs::directory_iterator(dir, ec);
  if (ec) return Status::IOError("could not read directory \"{}\": {}", dir, ec.message());
  if (it != fs::directory_iterator()) {
    return Status::IOError(
               "directory \"{}\" is not empty; COPY ... PARTITION_BY writes into it only with "
               "OVERWRITE_OR_IGNORE (files of the same names replaced) or APPEND (new files "
               "beside the old)",
               dir)
        .WithSqlState("58P02");  // duplicate_file
  }
  return Status::OK();
}

Result<int64_t> WriteHivePartitions(const std::string& dir, const CopyOptions& copy,
                                    const SchemaRef& schema,
                                    const std::vector<RecordBatchRef>& batches,
                                    const std::vector<int>& partition_columns) {
  // The files' schema: the columns that are not partition columns.
  std::vector<int> kept;
  auto file_schema = std::make_shared<Schema>();
  for (int i = 0; i < schema->num_fields(); ++i) {
    if (std::find(partition_columns.begin(), partition_columns.end(), i) != partition_columns.end())
      continue;
    kept.push_back(i);
    file_schema->fields.push_back(schema->field(i));
  }
  if (kept.empty())
    return Status::Invalid(
               "COPY ... PARTITION_BY names every column of the query; no column would be left "
               "to write into the files")
        .WithSqlState(sqlstate::kInvalidParameterValue);
  std::vector<std::string> keys;
  for (const int c : partition_columns) keys.push_back(HiveEscape(schema->field(c)->name));

  // Rows to partitions, in order of first appearance; each batch's rows of a
  // partition gathered into one batch of the kept columns.
  std::vector<Partition> partitions;
  std::unordered_map<std::string, size_t> index;
  for (const RecordBatchRef& b : batches) {
    const int64_t n = b->num_rows();
    if (n == 0) continue;
    std::vector<std::vector<uint32_t>> rows;  // per partition (by its index)
    std::vector<size_t> touched;
    std::string path;
    for (int64_t r = 0; r < n; ++r) {
      path.clear();
      for (size_t k = 0; k < partition_columns.size(); ++k) {
        if (k > 0) path += '/';
        path += keys[k];
        path += '=';
        path += HiveValueText(*b->column(partition_columns[k]), r);
      }
      auto [it, inserted] = index.emplace(path, partitions.size());
      if (inserted) partitions.push_back({path, {}});
      if (rows.size() <= it->second) rows.resize(it->second + 1);
      if (rows[it->second].empty()) touched.push_back(it->second);
      rows[it->second].push_back(static_cast<uint32_t>(r));
    }
    for (const size_t p : touched) {
      const std::vector<uint32_t>& sel = rows[p];
      const auto count = static_cast<int64_t>(sel.size());
      std::vector<ArrayRef> columns;
      for (const int c : kept) {
        if (count == n) {
          columns.push_back(b->column(c));
        } else {
          QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(b->column(c), sel.data(), count, DefaultMemoryPool()));
          columns.push_back(std::move(a));
        }
      }
      partitions[p].batches.push_back(RecordBatch::Make(file_schema, count, std::move(columns)));
    }
  }

  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IOError("could not create directory \"{}\": {}", dir, ec.message());
  formats::WriteOptions write = copy.write;
  if (!write.stats_columns.empty()) {
    // STATS indexes the query's columns; the files hold the kept ones.
    std::vector<int> stats;
    for (const int c : write.stats_columns) {
      const auto it = std::find(kept.begin(), kept.end(), c);
      if (it != kept.end()) stats.push_back(static_cast<int>(it - kept.begin()));
    }
    write.stats_columns = std::move(stats);
  }
  const std::string ext = Extension(copy);
  for (const Partition& p : partitions) {
    const std::string sub = dir + "/" + p.path;
    fs::create_directories(sub, ec);
    if (ec) return Status::IOError("could not create directory \"{}\": {}", sub, ec.message());
    int64_t number = 0;
    std::string file = fmt::format("{}/part-{}{}", sub, number, ext);
    while (copy.existing == CopyOptions::ExistingFiles::kAppend && fs::exists(file, ec)) {
      file = fmt::format("{}/part-{}{}", sub, ++number, ext);
    }
    // Written as the hidden .part-N.ext (through AtomicFile's own temporary
    // file, fsynced), then renamed to part-N.ext: readers of the directory
    // skip names starting with a dot, so they never see a partial file.
    const std::string name = file.substr(sub.size() + 1);
    const std::string hidden = sub + "/." + name;
    QUIVER_ASSIGN_OR_RAISE(auto out, AtomicFile::Create(hidden));
    QUIVER_ASSIGN_OR_RAISE(auto writer,
                           formats::MakeTableWriter(copy.format, file, out.get(), file_schema, write));
    if (copy.format == formats::FileFormat::kIpcFile || copy.format == formats::FileFormat::kIpcStream) {
      const int64_t rows = copy.batch_rows > 0 ? copy.batch_rows : kDefaultArrowBatchRows;
      QUIVER_RETURN_NOT_OK(WriteInBatchesOf(rows, file_schema, p.batches, writer.get()));
    } else {
      for (const auto& b : p.batches) QUIVER_RETURN_NOT_OK(writer->Write(*b));
    }
    QUIVER_RETURN_NOT_OK(writer->Close());
    QUIVER_RETURN_NOT_OK(out->Commit());
    fs::rename(hidden, file, ec);
    if (ec) {
      fs::remove(hidden, ec);
      return Status::IOError("could not rename \"{}\" to \"{}\"", hidden, file);
    }
  }
  return static_cast<int64_t>(partitions.size());
}

}  // namespace quiver
