// quiver gen ssb|tpch: writes a benchmark data set (Star Schema Benchmark or
// TPC-H) as Arrow IPC files, Parquet files or CSV, deterministically and in
// parallel. The generators live in tools/gen/ (see generators.h).
#include <chrono>
#include <cmath>
#include <memory>

#include "tools/commands.h"
#include "tools/file_formats.h"
#include "tools/gen/generators.h"

namespace quiver::cli {
namespace {

struct GenArgs {
  std::string benchmark;
  double scale_factor = 1;
  std::string format = "arrow";
  std::string compression;  // empty: the format's default
  std::string out;
  int files_per_table = 1;
  int64_t batch_rows = 122880;
  uint64_t seed = 1;
  bool quiet = false;
};

Status RunGen(const GenArgs& args) {
  if (!(args.scale_factor > 0) || !std::isfinite(args.scale_factor)) {
    return Status::Invalid("--sf must be a positive number, got {}", args.scale_factor);
  }
  gen::GenOptions options;
  options.scale_factor = args.scale_factor;
  options.format = args.format == "csv"       ? gen::OutputFormat::kCsv
                   : args.format == "parquet" ? gen::OutputFormat::kParquet
                                              : gen::OutputFormat::kArrow;
  if (!args.compression.empty()) {
    QUIVER_ASSIGN_OR_RAISE(compression::Codec codec,
                           compression::CodecFromName(args.compression));
    const bool ipc_codec = codec == compression::Codec::kNone ||
                           codec == compression::Codec::kLz4Frame ||
                           codec == compression::Codec::kZstd;
    if (options.format == gen::OutputFormat::kCsv && codec != compression::Codec::kNone) {
      return Status::Invalid("--compression applies to --format arrow and parquet; CSV is "
                             "written uncompressed");
    }
    if (options.format == gen::OutputFormat::kArrow && !ipc_codec) {
      return Status::Invalid("--compression {} applies to Parquet; Arrow IPC bodies take none, "
                             "lz4 or zstd",
                             args.compression);
    }
    options.codec = codec;
  }
  options.out_dir = args.out;
  options.files_per_table = args.files_per_table;
  options.batch_rows = args.batch_rows;
  options.seed = args.seed;
  options.quiet = args.quiet;

  const auto start = std::chrono::steady_clock::now();
  std::vector<gen::TableReport> reports;
  QUIVER_RETURN_NOT_OK(args.benchmark == "ssb" ? gen::RunSsb(options, &reports)
                                               : gen::RunTpch(options, &reports));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int64_t rows = 0;
  int64_t bytes = 0;
  for (const auto& r : reports) {
    rows += r.rows;
    bytes += r.bytes;
  }
  if (!args.quiet) {
    std::fprintf(stderr, "%s sf %g: %zu tables, %lld rows, %s in %.2f s to %s/\n",
                 args.benchmark.c_str(), args.scale_factor, reports.size(),
                 static_cast<long long>(rows), HumanBytes(bytes).c_str(), seconds,
                 args.out.c_str());
  }
  return Status::OK();
}

}  // namespace

CommandAction AddGenCommand(CLI::App* app) {
  auto args = std::make_shared<GenArgs>();
  CLI::App* cmd =
      app->add_subcommand("gen", "Generate a benchmark data set (Star Schema Benchmark or TPC-H)");
  cmd->footer(
      "Writes one file per table to DIR: DIR/<table>.arrow (Arrow IPC file),\n"
      "DIR/<table>.parquet (Parquet, zstd unless --compression says otherwise, one row\n"
      "group per --batch-rows rows) or DIR/<table>.csv (with a header row), or with\n"
      "--files-per-table K > 1 DIR/<table>/part-000.<ext> ... part-<K-1>. Files appear\n"
      "atomically (temporary name, then rename). One line per table (rows, size,\n"
      "seconds) goes to stderr.\n\n"
      "ssb:  lineorder (~6M x SF rows), date (2556), part, supplier, customer\n"
      "      (O'Neil et al., Star Schema Benchmark rev. 3; int32 keys, money in cents).\n"
      "tpch: region, nation, supplier, customer, part, partsupp, orders, lineitem\n"
      "      (TPC-H clause 4.2; decimal128(15,2) money, date32 dates).\n\n"
      "The data depends only on the benchmark, --sf and --seed: runs with the same\n"
      "values write byte-identical files whatever the number of threads\n"
      "(QUIVER_THREADS) and, for Arrow and Parquet, the same rows whatever --batch-rows.\n"
      "Matching queries: bench/queries/ssb/*.sql, bench/queries/tpch/*.sql.\n\n"
      "Examples:\n"
      "  quiver gen tpch --sf 1 --out data/tpch-sf1\n"
      "  quiver gen ssb --sf 10 --format parquet --compression snappy --out data/ssb-sf10");
  cmd->add_option("BENCHMARK", args->benchmark, "Data set to generate: ssb or tpch")
      ->required()
      ->check(CLI::IsMember({"ssb", "tpch"}));
  cmd->add_option("--sf", args->scale_factor,
                  "Scale factor, may be fractional (0.01, 0.1, 1, 10; default 1)");
  cmd->add_option("--format", args->format, "Output format: arrow (default), parquet or csv")
      ->check(CLI::IsMember({"arrow", "parquet", "csv"}));
  cmd->add_option("--compression", args->compression,
                  "Parquet page compression (none, snappy, gzip, zstd, lz4, brotli; default zstd) "
                  "or Arrow IPC body compression (none, lz4, zstd; default none)")
      ->check(CLI::IsMember({"none", "snappy", "gzip", "zstd", "lz4", "brotli"}));
  cmd->add_option("--out", args->out, "Directory to write the tables to (created if missing)")
      ->required();
  cmd->add_option("--files-per-table", args->files_per_table,
                  "Split each table into K files DIR/<table>/part-NNN.<ext> (default 1)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--batch-rows", args->batch_rows,
                  "Rows per Arrow record batch / Parquet row group (default 122880)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 31));
  cmd->add_option("--seed", args->seed, "Random seed (default 1)");
  cmd->add_flag("-q,--quiet", args->quiet, "Print nothing on success");
  return [args] { return RunGen(*args); };
}

}  // namespace quiver::cli
