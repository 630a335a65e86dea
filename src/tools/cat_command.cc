// quiver cat FILE: prints a file's schema and its first rows as a table.
//
// All batches are read so the footer can give the exact row count; only the
// first --limit rows are kept and rendered.
#include <unistd.h>

#include <cstdio>

#include <sys/ioctl.h>

#include "columnar/pretty_print.h"
#include "tools/commands.h"
#include "tools/file_formats.h"

namespace quiver::cli {
namespace {

struct CatArgs {
  std::string path;
  int64_t limit = 20;
  bool schema_only = false;
  std::string format = "auto";
  int max_width = 40;
  int64_t table_width = -1;  // -1: the terminal's width when stdout is one
  CsvFlags csv;
};

// Columns of the terminal on stdout, or 0 (no limit) when it is not one.
int64_t StdoutTerminalWidth() {
  struct winsize ws {};
  if (::isatty(STDOUT_FILENO) == 1 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
      ws.ws_col > 0) {
    return ws.ws_col;
  }
  return 0;
}

Status WriteStdout(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
    return Status::IOError("cannot write to standard output");
  }
  return Status::OK();
}

Status RunCat(const CatArgs& args) {
  QUIVER_ASSIGN_OR_RAISE(FileFormat format, ParseFileFormat(args.format));
  auto opened = OpenInput(args.path, format, args.csv);
  if (!opened.ok()) return WithPath(opened.status(), args.path);
  InputTable in = std::move(opened).ValueOrDie();
  const SchemaRef schema = in.reader->schema();

  // "data.arrow (Arrow IPC file, 2.5 MB, 7 batches)" then the schema.
  auto header = [&](int64_t batches) {
    std::string text =
        fmt::format("{} ({}, {}", args.path, FileFormatName(in.format), HumanBytes(in.total_bytes));
    if (batches >= 0) text += fmt::format(", {} {}", batches, batches == 1 ? "batch" : "batches");
    return text + ")\n" + FormatSchema(*schema);
  };
  if (args.schema_only) {
    return WriteStdout(header(in.file->num_units()));
  }

  std::vector<RecordBatchRef> shown;
  int64_t kept = 0;
  int64_t total = 0;
  int64_t batches = 0;
  for (;;) {
    RecordBatchRef batch;
    Status st = in.reader->ReadNext(&batch);
    if (!st.ok()) return WithPath(st, args.path);
    if (batch == nullptr) break;
    ++batches;
    total += batch->num_rows();
    if (kept < args.limit && batch->num_rows() > 0) {
      const int64_t take = std::min(batch->num_rows(), args.limit - kept);
      shown.push_back(take == batch->num_rows() ? batch : batch->Slice(0, take));
      kept += take;
    }
  }
  TableFormatOptions options;
  options.max_rows = args.limit;
  options.total_rows = total;
  options.max_column_width = args.max_width;
  options.max_total_width = args.table_width >= 0 ? args.table_width : StdoutTerminalWidth();
  return WriteStdout(header(batches) + "\n" + FormatTable(schema, shown, options));
}

}  // namespace

CommandAction AddCatCommand(CLI::App* app) {
  auto args = std::make_shared<CatArgs>();
  CLI::App* cmd = app->add_subcommand("cat", "Print a file's schema and first rows as a table");
  cmd->footer(
      "The format is detected: Arrow IPC file (\"ARROW1\" magic), Arrow IPC stream\n"
      "(0xFFFFFFFF marker), Parquet (\"PAR1\"), Avro object container (\"Obj\" 1), CSV\n"
      "by extension (.csv, .tsv = tab-delimited, .txt, also .gz/.zst compressed). Other\n"
      "files need --format.\n\n"
      "Examples:\n"
      "  quiver cat data.arrow --limit 5\n"
      "  quiver cat data.arrow --schema\n"
      "  quiver cat export.txt --format csv --delimiter '|' --null NA");
  cmd->add_option("FILE", args->path,
                  "File to print, or - for standard input (Arrow IPC, else read as CSV)")
      ->required();
  cmd->add_option("-n,--limit", args->limit, "Rows to show (default 20)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--schema", args->schema_only,
                "Print only the schema, with field and schema metadata");
  cmd->add_option("--format", args->format, "Input format (default auto)")
      ->check(CLI::IsMember(kFormatChoices));
  cmd->add_option("--max-width", args->max_width,
                  "Cut cells wider than this many characters with \"…\" (default 40)")
      ->check(CLI::Range(2, 100000));
  cmd->add_option("--width", args->table_width,
                  "Fit the table in this many columns, eliding middle columns with \"…\" "
                  "(default: the terminal's width; 0 = never elide)")
      ->check(CLI::NonNegativeNumber);
  args->csv.Register(cmd, /*types_as_schema=*/false);
  return [args] { return RunCat(*args); };
}

}  // namespace quiver::cli
