// quiver sql: runs SQL statements against an in-process database.
//
//   quiver sql "SELECT count(*) FROM 'data.arrow'"       (statements as an argument)
//   quiver sql -f queries.sql                            (or from a file)
//   echo "SELECT 1" | quiver sql                         (or from standard input)
//
// Statements run in order in one catalog. Each result is printed in the
// chosen --format (table, csv, json) as its batches arrive from the engine's
// stream, so csv, json and arrow output of a large SELECT runs in bounded
// memory (table format keeps only the rows it shows); commands print their
// tag (CREATE TABLE, INSERT 0 3). --format arrow writes the last result as
// an Arrow IPC stream to standard output, for pipes into pyarrow. Ctrl-C
// cancels the running query ("canceling statement due to user request").
//
// Errors print PostgreSQL-style, with the statement line and a caret under
// the error position and psql's DETAIL and HINT lines (with --format json:
// one JSON object with the SQLSTATE), and exit with status 1.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <thread>
#include <fstream>
#include <iostream>
#include <sstream>

#include "columnar/pretty_print.h"
#include "common/io.h"
#include "common/memory_size.h"
#include "engine/database.h"
#include "formats/csv/writer.h"
#include "formats/ipc/writer.h"
#include "sql/parser.h"
#include "tools/commands.h"
#include "tools/database_dir.h"
#include "tools/shell/shell.h"
#include "vector/json_type.h"

namespace quiver::cli {
namespace {

struct SqlArgs {
  std::string statements;
  std::string file;
  std::string format = "table";
  std::string memory_limit;
  int threads = 0;
  int64_t max_rows = 100;
  bool timing = false;
  int repeat = 1;
  bool no_optimizer = false;
  bool no_runtime_filters = false;
  // psql's ON_ERROR_STOP off: report a failing statement and run the next.
  bool keep_going = false;
  std::vector<std::string> disabled_rules;
  std::string db_dir;  // --db
  bool read_only = false;  // --read-only (with --db)
};

Status Write(const std::string& s) {
  if (std::fwrite(s.data(), 1, s.size(), stdout) != s.size()) {
    return Status::IOError("cannot write to standard output");
  }
  return Status::OK();
}

// A JSON string literal.
std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// Prints a statement's error on stderr: PostgreSQL-style text (psql's
// ERROR / LINE / DETAIL / HINT lines), or with --format json one object
//   {"error": message, "sqlstate": "42703", "position": 8, "detail": null, "hint": null}
// where position is PostgreSQL's 1-based character index into `text`
// (null when the error has none), so that scripts can tell errors apart by
// their SQLSTATE. Standard output keeps only results either way.
void ReportError(const Status& st, std::string_view text, const SqlArgs& args) {
  std::fflush(stdout);
  std::string out;
  if (args.format == "json") {
    const int pos = sql::ErrorCursorPosition(st, text);
    auto opt = [](const std::string& v) { return v.empty() ? std::string("null") : JsonString(v); };
    out = "{\"error\": " + JsonString(st.message()) +
          ", \"sqlstate\": " + JsonString(st.SqlState()) +
          ", \"position\": " + (pos > 0 ? std::to_string(pos) : std::string("null")) +
          ", \"detail\": " + opt(st.detail()) + ", \"hint\": " + opt(st.hint()) + "}";
  } else {
    out = sql::FormatErrorWithCaret(st, text);
  }
  std::fprintf(stderr, "%s\n", out.c_str());
  std::fflush(stderr);
}

// `type`: the column's (a Value of json or jsonb says text).
std::string JsonValue(const Value& v, const DataType& type) {
  if (v.is_null()) return "null";
  switch (v.type()->id) {
    case TypeId::kBool:
      return v.boolean() ? "true" : "false";
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kDecimal128:
      return v.ToString();
    case TypeId::kFloat:
    case TypeId::kDouble: {
      const double d = v.floating();
      if (d != d || d == 1.0 / 0.0 || d == -1.0 / 0.0) return JsonString(v.ToString());
      return v.ToString();
    }
    case TypeId::kString:
      // json and jsonb values are JSON already: embedded, not quoted.
      if (IsJsonOrJsonb(type)) return v.str();
      return JsonString(v.str());
    default:
      return JsonString(v.ToString());
  }
}

// Slot i of a column as JSON: arrays (lists) as JSON arrays.
std::string JsonCell(const ArrayData& a, int64_t i) {
  if (a.type->id == TypeId::kStruct) {
    // A struct as a JSON object of its fields.
    if (a.IsNull(i)) return "null";
    std::string out = "{";
    for (size_t k = 0; k < a.children.size(); ++k) {
      if (k > 0) out += ", ";
      out += JsonString(a.type->children[k]->name) + ": " + JsonCell(*a.children[k], a.offset + i);
    }
    return out + "}";
  }
  if (a.type->id == TypeId::kMap) {
    // A map as a JSON array of {"key": k, "value": v} objects (keys need not be text).
    if (a.IsNull(i)) return "null";
    const int32_t* off = a.GetValues<int32_t>(1);
    const ArrayData& e = *a.children[0];
    std::string out = "[";
    for (int32_t k = off[i]; k < off[i + 1]; ++k) {
      if (k > off[i]) out += ", ";
      out += "{\"key\": " + JsonCell(*e.children[0], e.offset + k) + ", \"value\": " +
             JsonCell(*e.children[1], e.offset + k) + "}";
    }
    return out + "]";
  }
  if (a.type->id != TypeId::kList) return JsonValue(ValueFromArray(a, i), *a.type);
  if (a.IsNull(i)) return "null";
  const int32_t* off = a.GetValues<int32_t>(1);
  std::string out = "[";
  for (int32_t k = off[i]; k < off[i + 1]; ++k) {
    if (k > off[i]) out += ", ";
    out += JsonCell(*a.children[0], k);
  }
  return out + "]";
}

Status PrintResult(const QueryResult& r, const SqlArgs& args) {
  if (!r.has_rows) return Write(r.command_tag + "\n");
  if (args.format == "csv") {
    std::fflush(stdout);  // the CSV writer writes to the descriptor directly
    FileOutputStream* out_raw = nullptr;
    QUIVER_ASSIGN_OR_RAISE(auto out, FileOutputStream::Open("-"));
    out_raw = out.get();
    csv::WriteOptions o;
    QUIVER_ASSIGN_OR_RAISE(auto writer, csv::CsvWriter::Make(out_raw, r.schema, o));
    for (const auto& b : r.batches) QUIVER_RETURN_NOT_OK(writer->WriteRecordBatch(*b));
    QUIVER_RETURN_NOT_OK(writer->Close());
    return Status::OK();
  }
  if (args.format == "json") {
    std::string out;
    for (const auto& b : r.batches) {
      for (int64_t i = 0; i < b->num_rows(); ++i) {
        out += "{";
        for (int c = 0; c < b->num_columns(); ++c) {
          if (c) out += ", ";
          out += JsonString(r.schema->field(c)->name) + ": " +
                 JsonCell(*b->column(c), i);
        }
        out += "}\n";
      }
      QUIVER_RETURN_NOT_OK(Write(out));
      out.clear();
    }
    return Status::OK();
  }
  if (r.schema->num_fields() == 1 && r.schema->field(0)->name == "QUERY PLAN" &&
      args.format == "table") {
    // Plans read best as plain lines.
    std::string text;
    for (const auto& b : r.batches) {
      for (int64_t i = 0; i < b->num_rows(); ++i)
        text += std::string(b->column(0)->GetString(i)) + "\n";
    }
    return Write(text);
  }
  TableFormatOptions o;
  o.pg_arrays = true;  // SQL results show arrays as PostgreSQL does
  o.max_rows = args.max_rows;
  std::string text = FormatTable(r.schema, r.batches, o);
  if (!text.empty() && text.back() != '\n') text += "\n";
  return Write(text);
}

// Prints a streamed result as it comes (see the file comment).
Status PrintStream(QueryStream& stream, const SqlArgs& args) {
  if (!stream.has_rows()) {
    RecordBatchRef none;
    QUIVER_RETURN_NOT_OK(stream.Next(&none));
    return Write(stream.command_tag() + "\n");
  }
  const SchemaRef& schema = stream.schema();
  RecordBatchRef b;
  if (args.format == "csv") {
    std::fflush(stdout);  // the CSV writer writes to the descriptor directly
    QUIVER_ASSIGN_OR_RAISE(auto out, FileOutputStream::Open("-"));
    csv::WriteOptions o;
    QUIVER_ASSIGN_OR_RAISE(auto writer, csv::CsvWriter::Make(out.get(), schema, o));
    for (;;) {
      QUIVER_RETURN_NOT_OK(stream.Next(&b));
      if (b == nullptr) break;
      QUIVER_RETURN_NOT_OK(writer->WriteRecordBatch(*b));
    }
    return writer->Close();
  }
  if (args.format == "json") {
    std::string out;
    for (;;) {
      QUIVER_RETURN_NOT_OK(stream.Next(&b));
      if (b == nullptr) break;
      for (int64_t i = 0; i < b->num_rows(); ++i) {
        out += "{";
        for (int c = 0; c < b->num_columns(); ++c) {
          if (c) out += ", ";
          out += JsonString(schema->field(c)->name) + ": " +
                 JsonCell(*b->column(c), i);
        }
        out += "}\n";
      }
      QUIVER_RETURN_NOT_OK(Write(out));
      out.clear();
    }
    return Status::OK();
  }
  // Table: the rows shown are kept, the rest only counted. Plans read best
  // as plain lines (all kept: they are short).
  const bool plan = schema->num_fields() == 1 && schema->field(0)->name == "QUERY PLAN";
  std::vector<RecordBatchRef> kept;
  int64_t kept_rows = 0, total = 0;
  for (;;) {
    QUIVER_RETURN_NOT_OK(stream.Next(&b));
    if (b == nullptr) break;
    total += b->num_rows();
    if (plan || kept_rows < args.max_rows) {
      kept_rows += b->num_rows();
      kept.push_back(std::move(b));
    }
  }
  if (plan) {
    std::string text;
    for (const auto& k : kept) {
      for (int64_t i = 0; i < k->num_rows(); ++i)
        text += std::string(k->column(0)->GetString(i)) + "\n";
    }
    return Write(text);
  }
  TableFormatOptions o;
  o.pg_arrays = true;  // SQL results show arrays as PostgreSQL does
  o.max_rows = args.max_rows;
  o.total_rows = total;
  std::string text = FormatTable(schema, kept, o);
  if (!text.empty() && text.back() != '\n') text += "\n";
  return Write(text);
}

// Ctrl-C cancels the query being streamed. The handler only sets a flag; a
// watcher thread passes it on (Cancel takes locks, which a handler may not).
// With no query streaming (a command runs), Ctrl-C ends the process as it
// would without the handler.
volatile std::sig_atomic_t g_interrupted = 0;
void OnInterrupt(int) { g_interrupted = 1; }

class InterruptWatcher {
 public:
  InterruptWatcher() {
    g_interrupted = 0;
    previous_ = std::signal(SIGINT, OnInterrupt);
    thread_ = std::thread([this] { Loop(); });
  }
  ~InterruptWatcher() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
    std::signal(SIGINT, previous_);
  }
  void Watch(QueryStream* stream) {
    std::lock_guard<std::mutex> lock(mu_);
    current_ = stream;
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!done_) {
      cv_.wait_for(lock, std::chrono::milliseconds(20));
      if (!g_interrupted) continue;
      g_interrupted = 0;
      if (current_ == nullptr) {
        std::signal(SIGINT, SIG_DFL);
        std::raise(SIGINT);
      }
      current_->Cancel();
    }
  }

  void (*previous_)(int) = SIG_DFL;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  QueryStream* current_ = nullptr;
  std::thread thread_;
};

// The line (1-based) of the first token at or after `offset`: a statement's
// span starts after the previous ';', blanks and comments included.
int LineOfToken(const std::string& text, size_t offset) {
  size_t i = offset;
  while (i < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      ++i;
    } else if (text.compare(i, 2, "--") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos) i = text.size();
    } else if (text.compare(i, 2, "/*") == 0) {
      const size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 2;
    } else {
      break;
    }
  }
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + std::min(i, text.size()), '\n'));
}

// Runs the statements one by one, each printed from its stream. `source`
// names where a script came from ("standard input", the -f file; empty for
// statements given as an argument): an error then also names the line of
// the statement that failed, as psql does, since nothing after it runs.
Status RunStreamed(Database& db, const std::string& text, const SqlArgs& args,
                   const std::string& source) {
  auto parsed = sql::Parse(text);
  auto fail = [&](const Status& st, int offset, const char* what) {
    // Positions are offsets into the statement: make them offsets into
    // `text` for the caret view, then exit 1 without main's generic prefix.
    const Status at = st.position() >= 0 ? st.WithPosition(st.position() + offset) : st;
    ReportError(at, text, args);
    if (!source.empty()) {
      const int line = LineOfToken(text, static_cast<size_t>(std::max(
                                             0, what == nullptr ? offset : at.position())));
      if (what == nullptr) {
        std::fprintf(stderr, "quiver: stopped at the statement on line %d of %s\n", line,
                     source.c_str());
      } else {
        std::fprintf(stderr, "quiver: %s on line %d of %s; no statement was run\n", what, line,
                     source.c_str());
      }
    }
    std::fflush(stderr);
    return Status(StatusCode::kCancelled, "");
  };
  if (!parsed.ok()) return fail(parsed.status(), 0, "syntax error");
  // --format arrow writes the last result with rows; the others run unseen.
  int last_rows = -1;
  for (size_t i = 0; i < parsed->size(); ++i) {
    // VACUUM and CALL return a row of counts per table (not in
    // sql::ReturnsRows, whose header most of the build includes).
    const sql::StatementKind kind = (*parsed)[i]->kind;
    if (sql::ReturnsRows(*(*parsed)[i]) || kind == sql::StatementKind::kVacuum ||
        kind == sql::StatementKind::kCall) {
      last_rows = static_cast<int>(i);
    }
  }
  InterruptWatcher watcher;
  bool failed = false;
  // With --keep-going an error is reported and the script goes on (a
  // transaction block then stays aborted until ROLLBACK, as in psql).
  auto fail_or_go_on = [&](const Status& st, int offset) {
    if (!args.keep_going) return fail(st, offset, nullptr);
    const Status at = st.position() >= 0 ? st.WithPosition(st.position() + offset) : st;
    ReportError(at, text, args);
    std::fflush(stderr);
    failed = true;
    return Status::OK();
  };
  for (size_t i = 0; i < parsed->size(); ++i) {
    const auto& st = (*parsed)[i];
    const std::string one =
        text.substr(static_cast<size_t>(st->location),
                    st->length > 0 ? static_cast<size_t>(st->length) : std::string::npos);
    auto stream = db.ExecuteStream(one);
    if (!stream.ok()) {
      QUIVER_RETURN_NOT_OK(fail_or_go_on(stream.status(), st->location));
      continue;
    }
    watcher.Watch(stream->get());
    Status printed;
    if (args.format != "arrow") {
      printed = PrintStream(**stream, args);
    } else if (static_cast<int>(i) == last_rows && (*stream)->has_rows()) {
      std::fflush(stdout);
      auto out = FileOutputStream::Open("-");
      if (!out.ok()) return out.status();
      auto writer = ipc::IpcWriter::MakeStreamWriter(out->get(), (*stream)->schema());
      if (!writer.ok()) return writer.status();
      RecordBatchRef b;
      for (;;) {
        printed = (*stream)->Next(&b);
        if (!printed.ok() || b == nullptr) break;
        printed = (*writer)->WriteRecordBatch(*b);
        if (!printed.ok()) break;
      }
      if (printed.ok()) printed = (*writer)->Close();
      if (printed.ok()) printed = (*out)->Close();
    } else {
      RecordBatchRef b;
      do {
        printed = (*stream)->Next(&b);
      } while (printed.ok() && b != nullptr);
    }
    watcher.Watch(nullptr);
    // The query's errors (and a cancel) come from its stream.
    if (!printed.ok()) {
      if (printed.code() == StatusCode::kIOError) return printed;
      QUIVER_RETURN_NOT_OK(fail_or_go_on(printed, st->location));
    }
  }
  if (failed) return Status(StatusCode::kCancelled, "");  // exit 1, errors already shown
  if (args.format == "arrow" && last_rows < 0) {
    return Status::Invalid("--format arrow: no statement returned rows");
  }
  std::fflush(stdout);
  return Status::OK();
}

Result<std::string> ReadStatements(const SqlArgs& args) {
  if (!args.statements.empty() && !args.file.empty()) {
    return Status::Invalid("give the statements either as an argument or with -f, not both");
  }
  if (!args.statements.empty()) return args.statements;
  std::string path = args.file;
  if (path.empty()) path = "-";  // a terminal opens the shell instead (RunSql)
  QUIVER_ASSIGN_OR_RAISE(auto data, ReadFileFully(path));
  return std::string(data->view());
}

DatabaseOptions MakeDatabaseOptions(const SqlArgs& args) {
  DatabaseOptions options;
  options.threads = args.threads;
  options.optimize = !args.no_optimizer;
  options.runtime_filters = !args.no_runtime_filters;
  options.disabled_optimizer_rules = args.disabled_rules;
  return options;
}

Status RunShell(const SqlArgs& args) {
  if (args.format != "table") {
    return Status::Invalid(
        "--format {}: the interactive shell shows tables; pipe the statements in, or pass them "
        "as an argument or with -f",
        args.format);
  }
  DatabaseOptions options = MakeDatabaseOptions(args);
  if (!args.memory_limit.empty()) {
    QUIVER_ASSIGN_OR_RAISE(options.memory_limit, ParseMemorySize(args.memory_limit));
  }
  QUIVER_ASSIGN_OR_RAISE(auto stored, OpenDatabaseDir(args.db_dir, &options, args.read_only));
  if (args.read_only && !stored) return Status::Invalid("--read-only: only with --db DIR (or QUIVER_DB)");
  Database db(options);
  if (stored) QUIVER_RETURN_NOT_OK(LoadDatabase(stored, &db));
  shell::ShellOptions shell_options;
  shell_options.max_rows = args.max_rows;
  return shell::RunShell(&db, shell_options);
}

Status RunSql(const SqlArgs& args) {
  // No statements on a terminal: the interactive shell.
  if (args.statements.empty() && args.file.empty() && ::isatty(STDIN_FILENO)) {
    return RunShell(args);
  }
  QUIVER_ASSIGN_OR_RAISE(std::string text, ReadStatements(args));
  DatabaseOptions options;
  if (!args.memory_limit.empty()) {
    QUIVER_ASSIGN_OR_RAISE(options.memory_limit, ParseMemorySize(args.memory_limit));
  }
  options.threads = args.threads;
  options.optimize = !args.no_optimizer;
  options.runtime_filters = !args.no_runtime_filters;
  options.disabled_optimizer_rules = args.disabled_rules;
  QUIVER_ASSIGN_OR_RAISE(auto stored, OpenDatabaseDir(args.db_dir, &options, args.read_only));
  if (args.read_only && !stored) return Status::Invalid("--read-only: only with --db DIR (or QUIVER_DB)");
  Database db(options);
  if (stored) QUIVER_RETURN_NOT_OK(LoadDatabase(stored, &db));
  const auto start = std::chrono::steady_clock::now();
  if (!args.timing && args.repeat <= 1) {
    const std::string source = !args.statements.empty() ? ""
                               : args.file.empty() || args.file == "-" ? "standard input"
                                                                       : args.file;
    return RunStreamed(db, text, args, source);
  }
  Result<std::vector<QueryResult>> results = std::vector<QueryResult>{};
  {
    // Statement by statement, each timed (and repeated) on its own.
    auto parsed = sql::Parse(text);
    if (!parsed.ok()) {
      results = parsed.status();
    } else {
      for (size_t i = 0; i < parsed->size() && results.ok(); ++i) {
        const auto& st = (*parsed)[i];
        const std::string one =
            text.substr(static_cast<size_t>(st->location),
                        st->length > 0 ? static_cast<size_t>(st->length) : std::string::npos);
        for (int r = 0; r < args.repeat; ++r) {
          const auto t0 = std::chrono::steady_clock::now();
          auto res = db.Execute(one);
          const double secs =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          if (!res.ok()) {
            ReportError(res.status(), one, args);
            return Status(StatusCode::kCancelled, "");
          }
          if (args.timing)
            std::fprintf(stderr, "Statement %zu run %d: %.6f s\n", i + 1, r + 1, secs);
          // Only the last run's result is printed; DDL is not repeated.
          if (r + 1 == args.repeat || !res->has_rows) {
            results->push_back(std::move(res).ValueOrDie());
            break;
          }
        }
      }
    }
  }
  if (!results.ok()) {
    // The caret view, then exit 1 without main's generic prefix.
    ReportError(results.status(), text, args);
    return Status(StatusCode::kCancelled, "");
  }
  if (args.format == "arrow") {
    const QueryResult* last = nullptr;
    for (const auto& r : *results) {
      if (r.has_rows) last = &r;
    }
    if (last == nullptr) return Status::Invalid("--format arrow: no statement returned rows");
    std::fflush(stdout);
    QUIVER_ASSIGN_OR_RAISE(auto out, FileOutputStream::Open("-"));
    QUIVER_ASSIGN_OR_RAISE(auto writer, ipc::IpcWriter::MakeStreamWriter(out.get(), last->schema));
    for (const auto& b : last->batches) QUIVER_RETURN_NOT_OK(writer->WriteRecordBatch(*b));
    QUIVER_RETURN_NOT_OK(writer->Close());
    return out->Close();
  }
  for (const auto& r : *results) QUIVER_RETURN_NOT_OK(PrintResult(r, args));
  std::fflush(stdout);
  if (args.timing) {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "Time: %.3f s\n", s);
  }
  return Status::OK();
}

}  // namespace

Status RunInteractiveShell() { return RunShell(SqlArgs{}); }

CommandAction AddSqlCommand(CLI::App* app) {
  auto args = std::make_shared<SqlArgs>();
  CLI::App* cmd = app->add_subcommand(
      "sql", "Run SQL statements over files and tables; with none, on a terminal, open the shell");
  cmd->footer(
      "With no statements on a terminal, opens the interactive shell (\\? there for help).\n"
      "Files are tables: name them with a quoted identifier, a string or a table function.\n"
      "  quiver sql \"SELECT count(*) FROM \\\"data/events.arrow\\\"\"\n"
      "  quiver sql \"SELECT count(*) FROM 'data/events.parquet'\"\n"
      "  quiver sql \"SELECT * FROM read_csv('logs/*.csv', header => true) LIMIT 5\"\n"
      "  quiver sql -f tpch/q01.sql --format csv\n"
      "  quiver sql \"EXPLAIN ANALYZE SELECT ...\"\n"
      "Table functions: read_arrow(path), read_csv(path, header, delim, quote, escape, null,\n"
      "skip, columns, names), read_parquet(path), read_avro(path), generate_series(start, stop[, step]).\n"
      "Paths may be files, directories or globs (files read in sorted order).\n\n"
      "COPY writes a query's result to a file (atomically: temporary name, then rename)\n"
      "or appends a file to a table:\n"
      "  COPY (SELECT ...) TO 'out.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE "
      "100000)\n"
      "  COPY t TO 'out.csv' (HEADER false, DELIMITER '|');  COPY t FROM 'in.csv'\n"
      "COPY options:\n"
      "  FORMAT parquet|arrow|stream|csv|tsv   default: from the extension (else CSV)\n"
      "  COMPRESSION        Parquet: none, snappy, gzip, zstd (default), lz4, brotli;\n"
      "                     Arrow: none (default), lz4, zstd\n"
      "  COMPRESSION_LEVEL  zstd -7..22, gzip 0..9, brotli 0..11, lz4 (Arrow) 0..12\n"
      "  ROW_GROUP_SIZE     rows per Parquet row group (default 1048576)\n"
      "  BATCH_ROWS         rows per Arrow record batch (default 65536)\n"
      "  STATS 'a,b'        Arrow: PG-Strom min/max statistics of these columns per record batch\n"
      "  HEADER, DELIMITER, QUOTE, NULL   CSV (defaults: true, ',' or tab for .tsv, '\"', empty)\n"
      "  PARTITION_BY (a, b)  write a directory in Hive layout: dir/a=1/b=x/part-0.parquet\n"
      "  OVERWRITE_OR_IGNORE, APPEND   with PARTITION_BY: write into a non-empty directory\n"
      "                     (replace same-named files / add new ones); refused otherwise");
  cmd->add_option("STATEMENTS", args->statements,
                  "SQL statements separated by ';' (default: -f, piped stdin, else the shell)");
  cmd->add_option("-f,--file", args->file, "Read the statements from FILE");
  cmd->add_option("--format", args->format,
                  "Output: table (default), csv, json (one object per row), arrow "
                  "(last result as an Arrow IPC stream on stdout)")
      ->check(CLI::IsMember({"table", "csv", "json", "arrow"}));
  cmd->add_option(
      "--memory-limit", args->memory_limit,
      "Memory a query may use (e.g. 4GB, 512MB, 50%); default 80% of RAM. A query needing more "
      "fails with an out-of-memory error");
  cmd->add_option("--threads", args->threads, "Worker threads (default: all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-rows", args->max_rows,
                  "Rows shown per result in table format (default 100)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--timing", args->timing,
                "Print each statement's run time, and the total, to stderr");
  cmd->add_option("--repeat", args->repeat,
                  "Run each query N times (for timing; the last result is printed)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--no-optimizer", args->no_optimizer, "Run the plans as bound (for debugging)");
  cmd->add_option("--db", args->db_dir, kDbOptionHelp)->option_text("DIR");
  cmd->add_flag("--read-only", args->read_only,
                "With --db: open the database without its lock (another process may write it) "
                "and refuse writes");
  cmd->add_flag("--keep-going", args->keep_going,
                "After a failing statement, report it and run the next ones (psql's default; "
                "exit status 1 at the end)");
  cmd->add_flag("--no-runtime-filters", args->no_runtime_filters,
                "Do not pass hash join key ranges to the probe side's scans");
  // For differential tests: run with one optimizer rule off (repeatable).
  cmd->add_option("--disable-optimizer-rule", args->disabled_rules,
                  "Skip this optimizer rule (repeatable)")
      ->allow_extra_args(false)
      ->group("");
  return [args] { return RunSql(*args); };
}

}  // namespace quiver::cli
