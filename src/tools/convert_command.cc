// quiver convert IN OUT: between CSV, Arrow IPC (file or stream) and Parquet.
//
// Batches flow from the input reader to the output writer unchanged, except
// that --batch-rows re-slices them (zero-copy) to at most N rows. The output
// goes through AtomicFile, so OUT appears only when the whole conversion
// succeeded; an error or Ctrl-C leaves no partial file behind.
#include <chrono>
#include <csignal>
#include <optional>

#include "common/io.h"
#include "tools/commands.h"
#include "tools/file_formats.h"
#include "tools/progress.h"

namespace quiver::cli {
namespace {

struct ConvertArgs {
  std::string input;
  std::string output;
  std::string from = "auto";
  std::string to = "auto";
  std::string compression;  // empty: the output format's default
  int64_t batch_rows = 0;
  int64_t row_group_rows = 0;
  int data_page_version = 1;
  bool no_dictionary = false;
  std::string stats;  // --stats a,b: PG-Strom min/max statistics per record batch (Arrow output)
  bool progress = false;
  bool no_progress = false;
  CsvFlags csv;
};

volatile std::sig_atomic_t g_interrupted = 0;
// A second Ctrl-C kills as usual, in case a read is stuck.
extern "C" void OnInterrupt(int) {
  g_interrupted = 1;
  std::signal(SIGINT, SIG_DFL);
}

Status RunConvert(const ConvertArgs& args) {
  const auto start = std::chrono::steady_clock::now();
  QUIVER_ASSIGN_OR_RAISE(FileFormat from, ParseFileFormat(args.from));
  QUIVER_ASSIGN_OR_RAISE(FileFormat to, ParseFileFormat(args.to));
  if (to == FileFormat::kAuto) to = FormatFromExtension(args.output);
  if (to == FileFormat::kAuto) {
    return Status::Invalid(
        "cannot tell the output format of {}; use --to arrow|stream|csv|parquet|avro", args.output);
  }
  compression::Codec codec = compression::Codec::kNone;
  if (to == FileFormat::kAvro) {
    // Avro's block codecs, by Avro's names and the usual ones.
    const std::string& c = args.compression;
    if (c == "deflate" || c == "gzip") {
      codec = compression::Codec::kGzip;
    } else if (c == "snappy") {
      codec = compression::Codec::kSnappy;
    } else if (c == "zstd" || c == "zstandard") {
      codec = compression::Codec::kZstd;
    } else if (!c.empty() && c != "null" && c != "none" && c != "uncompressed") {
      return Status::Invalid("--compression {}: Avro output takes null, deflate, snappy or zstd", c);
    }
  } else {
    QUIVER_ASSIGN_OR_RAISE(codec, compression::CodecFromName(args.compression));
  }
  const bool to_ipc = to == FileFormat::kIpcFile || to == FileFormat::kIpcStream;
  if (to_ipc && codec != compression::Codec::kNone && codec != compression::Codec::kLz4Frame &&
      codec != compression::Codec::kZstd) {
    return Status::Invalid("--compression {} applies to Parquet output; Arrow IPC bodies take "
                           "lz4 or zstd",
                           args.compression);
  }
  if (to != FileFormat::kParquet &&
      (args.row_group_rows > 0 || args.data_page_version != 1 || args.no_dictionary)) {
    return Status::Invalid(
        "--row-group-rows, --data-page-version and --no-dictionary apply to Parquet output");
  }

  if (!args.stats.empty() && !to_ipc) return Status::Invalid("--stats applies to Arrow output");

  auto opened = OpenInput(args.input, from, args.csv);
  if (!opened.ok()) return WithPath(opened.status(), args.input);
  InputTable in = std::move(opened).ValueOrDie();
  const SchemaRef schema = in.reader->schema();
  // --stats names columns of the input, as pg2arrow -S does.
  std::vector<int> stats_columns;
  for (size_t start = 0; !args.stats.empty();) {
    const size_t comma = args.stats.find(',', start);
    const std::string name = args.stats.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const int c = schema->GetFieldIndex(name);
    if (c < 0) return Status::Invalid("--stats: {} has no column '{}'", args.input, name);
    stats_columns.push_back(c);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }

  // "-" streams to stdout (no atomicity possible there); files go through
  // AtomicFile.
  std::unique_ptr<AtomicFile> file;
  std::unique_ptr<FileOutputStream> standard_output;
  OutputStream* sink;
  if (args.output == "-") {
    QUIVER_ASSIGN_OR_RAISE(standard_output, FileOutputStream::Open("-"));
    sink = standard_output.get();
  } else {
    QUIVER_ASSIGN_OR_RAISE(file, AtomicFile::Create(args.output));
    sink = file.get();
  }
  Result<std::unique_ptr<TableWriter>> made = Status::UnknownError("no writer");
  if (!stats_columns.empty()) {
    formats::WriteOptions options;
    options.codec = codec;
    options.stats_columns = stats_columns;
    made = formats::MakeTableWriter(to, args.output, sink, schema, options);
  } else if (to == FileFormat::kParquet) {
    formats::WriteOptions options;
    options.codec = codec;
    options.codec_chosen = !args.compression.empty();
    options.row_group_rows = args.row_group_rows;
    options.data_page_version = args.data_page_version;
    options.dictionary = !args.no_dictionary;
    made = formats::MakeTableWriter(to, args.output, sink, schema, options);
  } else {
    made = MakeTableWriter(to, args.output, sink, schema, codec, args.csv,
                           in.format == FileFormat::kCsv);
  }
  if (!made.ok()) return WithPath(made.status(), args.output);
  std::unique_ptr<TableWriter> writer = std::move(made).ValueOrDie();

  std::optional<bool> progress_flag;
  if (args.progress) progress_flag = true;
  if (args.no_progress) progress_flag = false;
  ProgressBar bar(ProgressBar::ShouldShow(progress_flag), in.total_bytes);

  // Ctrl-C stops between batches so the AtomicFile destructor removes the
  // temporary file instead of the process dying with it on disk.
  g_interrupted = 0;
  auto previous = std::signal(SIGINT, OnInterrupt);
  struct RestoreSignal {
    decltype(previous) handler;
    ~RestoreSignal() { std::signal(SIGINT, handler); }
  } restore{previous};

  int64_t rows = 0;
  int64_t batches = 0;
  for (;;) {
    if (g_interrupted) return Status::Cancelled("interrupted; {} not written", args.output);
    RecordBatchRef batch;
    Status st = in.reader->ReadNext(&batch);
    if (!st.ok()) return WithPath(st, args.input);
    if (batch == nullptr) break;
    const int64_t n = batch->num_rows();
    const int64_t step = args.batch_rows > 0 ? args.batch_rows : std::max<int64_t>(n, 1);
    int64_t offset = 0;
    do {
      const int64_t len = std::min(step, n - offset);
      st = (offset == 0 && len == n) ? writer->Write(*batch)
                                     : writer->Write(*batch->Slice(offset, len));
      if (!st.ok()) return WithPath(st, args.output);
      ++batches;
      offset += len;
    } while (offset < n);
    rows += n;
    bar.Update(in.bytes_done ? in.bytes_done() : 0, rows);
  }
  Status st = writer->Close();
  if (!st.ok()) return WithPath(st, args.output);
  const int64_t size = sink->Tell();
  st = file ? file->Commit() : standard_output->Close();
  if (!st.ok()) return WithPath(st, args.output);
  bar.Finish();

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string summary =
      fmt::format("wrote {} {} in {} {} to {} ({}) in {:.2f} s ({:.0f} rows/s)\n", rows,
                  rows == 1 ? "row" : "rows", batches, batches == 1 ? "batch" : "batches",
                  args.output == "-" ? "<stdout>" : args.output, HumanBytes(size), seconds,
                  seconds > 0 ? static_cast<double>(rows) / seconds : 0.0);
  std::fputs(summary.c_str(), stderr);
  return Status::OK();
}

}  // namespace

CommandAction AddConvertCommand(CLI::App* app) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* cmd =
      app->add_subcommand("convert",
                          "Convert between CSV, Arrow IPC files, Arrow IPC streams, Parquet and Avro");
  cmd->footer(
      "The output format comes from --to or OUT's extension: .arrow/.feather/.ipc (IPC\n"
      "file), .arrows/.stream (IPC stream), .csv/.tsv (CSV), .parquet, .avro (Avro object\n"
      "container; --compression null|deflate|snappy|zstd). OUT is written to a temporary\n"
      "file beside it and renamed into place at the end, so a failed or interrupted\n"
      "conversion leaves no output. A summary line goes to stderr.\n\n"
      "The CSV options describe the input when it is CSV, else the CSV output. When both\n"
      "are CSV, the output takes the --out-* options instead (defaults: ',' or tab by\n"
      "extension, '\"' quotes, a header row, empty NULLs).\n\n"
      "Examples:\n"
      "  quiver convert trips.csv trips.arrow --compression zstd\n"
      "  quiver convert trips.arrow trips.parquet --compression snappy --row-group-rows 500000\n"
      "  quiver convert trips.arrow trips.arrows --batch-rows 65536\n"
      "  quiver convert raw.tsv typed.arrow --schema \"id:int64,ts:timestamp[us, tz=UTC]\"\n"
      "  quiver convert trips.arrow trips.csv --null NULL\n"
      "  quiver convert data.psv data.tsv --delimiter '|' --out-null NA");
  cmd->add_option("IN", args->input,
                  "Input file, or - for standard input (format detected as in `quiver cat`)")
      ->required();
  cmd->add_option("OUT", args->output, "Output file, or - for standard output (needs --to)")
      ->required();
  cmd->add_option("--from", args->from, "Input format (default: detect)")
      ->check(CLI::IsMember(kFormatChoices));
  cmd->add_option("--to", args->to, "Output format (default: from OUT's extension)")
      ->check(CLI::IsMember(kFormatChoices));
  cmd->add_option("--compression", args->compression,
                  "Compression of Arrow IPC bodies (none, lz4, zstd; default none) or of Parquet "
                  "pages (none, snappy, gzip, brotli, lz4, zstd; default zstd) or of Avro blocks "
                  "(null, deflate, snappy, zstd; default null)")
      ->check(CLI::IsMember({"none", "uncompressed", "lz4", "lz4_frame", "lz4_raw", "zstd",
                             "snappy", "gzip", "brotli", "null", "deflate", "zstandard"}));
  cmd->add_option("--row-group-rows", args->row_group_rows,
                  "Rows per Parquet row group (default 1048576)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--data-page-version", args->data_page_version,
                  "Parquet data page version, 1 or 2 (default 1)")
      ->check(CLI::IsMember({1, 2}));
  cmd->add_flag("--no-dictionary", args->no_dictionary,
                "Write Parquet values without dictionary encoding");
  cmd->add_option("--stats", args->stats,
                  "Arrow output: write each record batch's min and max of these comma-separated columns "
                  "into its metadata (PG-Strom's min_max_stats.<col>, read by arrow_fdw and Quiver)");
  cmd->add_option("--batch-rows", args->batch_rows,
                  "Re-slice batches to at most N rows (zero-copy; 0 = keep the input's batches)")
      ->check(CLI::NonNegativeNumber);
  auto* progress =
      cmd->add_flag("--progress", args->progress,
                    "Show a progress bar on stderr (default: only when stderr is a terminal)");
  auto* no_progress =
      cmd->add_flag("--no-progress", args->no_progress, "Never show a progress bar");
  progress->excludes(no_progress);
  args->csv.Register(cmd);
  args->csv.RegisterOutput(cmd);
  return [args] { return RunConvert(*args); };
}

}  // namespace quiver::cli
