// quiver demo: writes a small, deterministic IoT sensor data set in every
// format Quiver writes, reads each file back and reports what it found.
//
// Table "readings" (10 readings per second starting 2024-06-01 00:00:00 UTC):
//   sensor_id    int32 not null           1..64
//   ts           timestamp[us, UTC] not null
//   temperature  float64 not null         daily sine wave + per-sensor offset + noise
//   humidity     float32 (2% NULL)        30..70 %
//   status       dictionary<int8, utf8>   ok / warn / error / offline (90/6/3/1 %)
//   ok           bool not null            status == "ok"
//
// Files: readings.arrow (IPC file, uncompressed), readings.zstd.arrow (IPC
// file, zstd bodies), readings.csv. The generator is a SplitMix64 PRNG with a
// fixed seed, so every run writes byte-identical files.
#include <cmath>
#include <filesystem>

#include <sys/stat.h>

#include "columnar/builder.h"
#include "columnar/pretty_print.h"
#include "common/io.h"
#include "tools/commands.h"
#include "tools/file_formats.h"

namespace quiver::cli {
namespace {

struct DemoArgs {
  std::string dir = "demo-data";
  int64_t rows = 100000;
  int64_t batch_rows = 16384;
  uint64_t seed = 42;
};

// SplitMix64: tiny, fast and identical on every platform (std::
// distributions are not, so they would break determinism across libraries).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)
  int64_t Below(int64_t n) { return static_cast<int64_t>(Next() % static_cast<uint64_t>(n)); }

 private:
  uint64_t state_;
};

constexpr int64_t kStartMicros = 1717200000LL * 1000000;  // 2024-06-01T00:00:00Z
constexpr int64_t kStepMicros = 100000;                   // 10 readings per second
constexpr int kNumSensors = 64;

SchemaRef ReadingsSchema() {
  return schema(
      {field("sensor_id", int32(), false), field("ts", timestamp(TimeUnit::kMicro, "UTC"), false),
       field("temperature", float64(), false, {{"unit", "celsius"}}),
       field("humidity", float32(), true, {{"unit", "percent"}}),
       field("status", dictionary(int8(), utf8()), false), field("ok", boolean(), false)},
      {{"quiver.demo", "IoT sensor readings"}, {"generator", "quiver demo"}});
}

Result<std::vector<RecordBatchRef>> GenerateReadings(const DemoArgs& args,
                                                     const SchemaRef& schema) {
  static const char* kStatus[] = {"ok", "warn", "error", "offline"};
  // One dictionary shared by every batch: IPC files cannot replace a dictionary.
  StringBuilder dict_builder(utf8());
  for (const char* s : kStatus) QUIVER_RETURN_NOT_OK(dict_builder.Append(s));
  QUIVER_ASSIGN_OR_RAISE(ArrayRef dictionary, dict_builder.Finish());

  double sensor_offset[kNumSensors];
  SplitMix64 rng(args.seed);
  for (double& o : sensor_offset) o = rng.Uniform() * 4 - 2;

  std::vector<RecordBatchRef> batches;
  for (int64_t start = 0; start < args.rows; start += args.batch_rows) {
    const int64_t n = std::min(args.batch_rows, args.rows - start);
    Int32Builder sensor(int32());
    Int64Builder ts(schema->field(1)->type);
    DoubleBuilder temperature(float64());
    FloatBuilder humidity(float32());
    Int8Builder status(int8());
    BooleanBuilder ok;
    for (int64_t r = start; r < start + n; ++r) {
      const auto id = static_cast<int32_t>(rng.Below(kNumSensors));
      const int64_t micros = kStartMicros + r * kStepMicros + rng.Below(1000);
      const double hour = static_cast<double>(micros % 86400000000LL) / 3600e6;
      const double t =
          21 + 4 * std::sin((hour - 9) * M_PI / 12) + sensor_offset[id] + (rng.Uniform() - 0.5);
      const double u = rng.Uniform();
      const int8_t code = u < 0.90 ? 0 : u < 0.96 ? 1 : u < 0.99 ? 2 : 3;
      QUIVER_RETURN_NOT_OK(sensor.Append(id + 1));
      QUIVER_RETURN_NOT_OK(ts.Append(micros));
      QUIVER_RETURN_NOT_OK(temperature.Append(std::round(t * 100) / 100));
      if (rng.Below(50) == 0) {
        QUIVER_RETURN_NOT_OK(humidity.AppendNull());
      } else {
        QUIVER_RETURN_NOT_OK(
            humidity.Append(static_cast<float>(std::round((30 + 40 * rng.Uniform()) * 10) / 10)));
      }
      QUIVER_RETURN_NOT_OK(status.Append(code));
      QUIVER_RETURN_NOT_OK(ok.Append(code == 0));
    }
    QUIVER_ASSIGN_OR_RAISE(ArrayRef indices, status.Finish());
    ArrayRef status_array =
        ArrayData::Make(schema->field(4)->type, indices->length, indices->buffers,
                        indices->null_count, indices->offset, {}, dictionary);
    std::vector<ArrayRef> columns(6);
    QUIVER_ASSIGN_OR_RAISE(columns[0], sensor.Finish());
    QUIVER_ASSIGN_OR_RAISE(columns[1], ts.Finish());
    QUIVER_ASSIGN_OR_RAISE(columns[2], temperature.Finish());
    QUIVER_ASSIGN_OR_RAISE(columns[3], humidity.Finish());
    columns[4] = std::move(status_array);
    QUIVER_ASSIGN_OR_RAISE(columns[5], ok.Finish());
    auto batch = RecordBatch::Make(schema, n, std::move(columns));
    QUIVER_RETURN_NOT_OK(batch->Validate(true));
    batches.push_back(std::move(batch));
  }
  return batches;
}

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
  const SchemaRef schema = ReadingsSchema();
  QUIVER_ASSIGN_OR_RAISE(auto batches, GenerateReadings(args, schema));

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
