// quiver demo: writes a small, deterministic IoT sensor data set in every
// format Quiver writes, reads each file back and reports what it found.
//
// The table ("readings") is described in tools/demo_data.h. Files:
// readings.arrow (IPC file, uncompressed), readings.zstd.arrow (IPC file,
// zstd bodies), readings.csv. The data comes from a fixed seed, so every run
// writes byte-identical files.
#include <filesystem>

#include <sys/stat.h>

#include "columnar/builder.h"
#include "columnar/pretty_print.h"
#include "common/io.h"
#include "tools/commands.h"
#include "tools/demo_data.h"
#include "tools/file_formats.h"

namespace quiver::cli {
namespace {

struct DemoArgs {
  std::string dir = "demo-data";
  int64_t rows = 100000;
  int64_t batch_rows = 16384;
  uint64_t seed = 42;
};

Status WriteFile(const std::string& path, FileFormat format, compression::Codec codec,
                 const SchemaRef& schema, const std::vector<RecordBatchRef>& batches) {
  QUIVER_ASSIGN_OR_RAISE(auto file, AtomicFile::Create(path));
  QUIVER_ASSIGN_OR_RAISE(auto writer,
                         MakeTableWriter(format, path, file.get(), schema, codec, CsvFlags{}));
  for (const auto& b : batches) QUIVER_RETURN_NOT_OK(writer->Write(*b));
  QUIVER_RETURN_NOT_OK(writer->Close());
  return file->Commit();
}

struct FileFacts {
  std::string path;
  std::string format;
  int64_t rows = 0;
  int64_t batches = 0;
  int64_t bytes = 0;
  std::string check;
};

// Reads `path` back and compares it with what was written: IPC files must
// hold the very same batches; CSV (re-inferred types) the same row count.
Result<FileFacts> ReadBack(const std::string& path, const std::vector<RecordBatchRef>& expected,
                           int64_t expected_rows, SchemaRef* schema_out,
                           std::vector<RecordBatchRef>* first_batches) {
  QUIVER_ASSIGN_OR_RAISE(InputTable in, OpenInput(path, FileFormat::kAuto, CsvFlags{}));
  FileFacts facts;
  facts.path = path;
  facts.format = FileFormatName(in.format);
  facts.bytes = in.total_bytes;
  bool identical = in.format != FileFormat::kCsv;
  for (;;) {
    RecordBatchRef batch;
    QUIVER_RETURN_NOT_OK(in.reader->ReadNext(&batch));
    if (batch == nullptr) break;
    if (identical && (facts.batches >= static_cast<int64_t>(expected.size()) ||
                      !batch->Equals(*expected[facts.batches]))) {
      identical = false;
    }
    if (first_batches != nullptr && facts.rows < 10) first_batches->push_back(batch);
    ++facts.batches;
    facts.rows += batch->num_rows();
  }
  if (schema_out != nullptr) *schema_out = in.reader->schema();
  if (facts.rows != expected_rows) {
    return Status::Invalid("{}: read back {} rows, wrote {}", path, facts.rows, expected_rows);
  }
  if (in.format == FileFormat::kCsv) {
    facts.check = "row count matches";
  } else if (identical && facts.batches == static_cast<int64_t>(expected.size())) {
    facts.check = "identical batches";
  } else {
    return Status::Invalid("{}: batches read back differ from those written", path);
  }
  return facts;
}

Result<std::string> FactsTable(const std::vector<FileFacts>& facts) {
  SchemaRef s =
      schema({field("file", utf8()), field("format", utf8()), field("rows", int64()),
              field("batches", int64()), field("size", utf8()), field("read back", utf8())});
  StringBuilder file(utf8()), format(utf8()), size(utf8()), check(utf8());
  Int64Builder rows(int64()), batches(int64());
  for (const auto& f : facts) {
    QUIVER_RETURN_NOT_OK(file.Append(f.path));
    QUIVER_RETURN_NOT_OK(format.Append(f.format));
    QUIVER_RETURN_NOT_OK(rows.Append(f.rows));
    QUIVER_RETURN_NOT_OK(batches.Append(f.batches));
    QUIVER_RETURN_NOT_OK(size.Append(HumanBytes(f.bytes)));
    QUIVER_RETURN_NOT_OK(check.Append(f.check));
  }
  std::vector<ArrayRef> columns(6);
  QUIVER_ASSIGN_OR_RAISE(columns[0], file.Finish());
  QUIVER_ASSIGN_OR_RAISE(columns[1], format.Finish());
  QUIVER_ASSIGN_OR_RAISE(columns[2], rows.Finish());
  QUIVER_ASSIGN_OR_RAISE(columns[3], batches.Finish());
  QUIVER_ASSIGN_OR_RAISE(columns[4], size.Finish());
  QUIVER_ASSIGN_OR_RAISE(columns[5], check.Finish());
  TableFormatOptions options;
  options.show_types = false;
  options.show_footer = false;
  options.max_column_width = 60;
  return FormatTable(s, {RecordBatch::Make(s, static_cast<int64_t>(facts.size()), columns)},
                     options);
}

Status RunDemo(const DemoArgs& args) {
  std::error_code ec;
  std::filesystem::create_directories(args.dir, ec);
  if (ec) return Status::IOError("cannot create directory {}: {}", args.dir, ec.message());
  const SchemaRef schema = DemoReadingsSchema();
  QUIVER_ASSIGN_OR_RAISE(auto batches, GenerateDemoReadings(args.rows, args.batch_rows, args.seed));

  const std::filesystem::path dir(args.dir);
  const std::string plain = (dir / "readings.arrow").string();
  const std::string zstd = (dir / "readings.zstd.arrow").string();
  const std::string csv = (dir / "readings.csv").string();
  struct Target {
    std::string path;
    FileFormat format;
    compression::Codec codec;
  };
  const Target targets[] = {{plain, FileFormat::kIpcFile, compression::Codec::kNone},
                            {zstd, FileFormat::kIpcFile, compression::Codec::kZstd},
                            {csv, FileFormat::kCsv, compression::Codec::kNone}};
  for (const auto& t : targets) {
    QUIVER_RETURN_NOT_OK(WithPath(WriteFile(t.path, t.format, t.codec, schema, batches), t.path));
  }

  std::vector<FileFacts> facts;
  SchemaRef read_schema;
  std::vector<RecordBatchRef> first;
  for (const auto& t : targets) {
    const bool is_first = facts.empty();
    auto read = ReadBack(t.path, batches, args.rows, is_first ? &read_schema : nullptr,
                         is_first ? &first : nullptr);
    if (!read.ok()) return WithPath(read.status(), t.path);
    facts.push_back(std::move(read).ValueOrDie());
  }

  std::string out =
      fmt::format("wrote {} rows of IoT sensor readings to {}/\n\n", args.rows, args.dir);
  out += fmt::format("schema of {}:\n{}\n", plain, FormatSchema(*read_schema));
  out += fmt::format("first rows of {}:\n", plain);
  TableFormatOptions options;
  options.max_rows = 10;
  options.total_rows = args.rows;
  out += FormatTable(read_schema, first, options);
  QUIVER_ASSIGN_OR_RAISE(std::string table, FactsTable(facts));
  out += "\nfiles:\n" + table;
  out += fmt::format("\ntry: quiver cat {}   or   quiver convert {} out.arrows\n", csv, plain);
  std::fputs(out.c_str(), stdout);
  return Status::OK();
}

}  // namespace

CommandAction AddDemoCommand(CLI::App* app) {
  auto args = std::make_shared<DemoArgs>();
  CLI::App* cmd =
      app->add_subcommand("demo", "Write a demo data set (IoT sensor readings) and read it back");
  cmd->footer(
      "Writes readings.arrow (Arrow IPC file), readings.zstd.arrow (zstd-compressed) and\n"
      "readings.csv to DIR, reads each back, and prints the schema, the first rows and\n"
      "per-file facts. The data is generated from a fixed seed, so runs are repeatable.\n\n"
      "Columns: sensor_id int32, ts timestamp[us, UTC], temperature float64,\n"
      "humidity float32 (some NULL), status dictionary<int8, utf8>, ok bool.");
  cmd->add_option("--dir", args->dir, "Directory to write to (default ./demo-data)");
  cmd->add_option("--rows", args->rows, "Number of rows (default 100000)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  cmd->add_option("--batch-rows", args->batch_rows, "Rows per record batch (default 16384)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--seed", args->seed, "PRNG seed (default 42)");
  return [args] { return RunDemo(*args); };
}

}  // namespace quiver::cli
