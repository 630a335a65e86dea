#include "tools/shell/shell.h"

#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "catalog/file_table.h"
#include "catalog/foreign_table.h"
#include "columnar/pretty_print.h"
#include "common/io.h"
#include "functions/function.h"
#include "sql/parser.h"
#include "tools/progress.h"
#include "tools/shell/backslash.h"
#include "tools/shell/completion.h"
#include "tools/shell/line_reader.h"
#include "tools/shell/pager.h"
#include "tools/shell/statement_splitter.h"
#include "vector/sql_type.h"

#ifndef QUIVER_VERSION
#define QUIVER_VERSION "unknown"
#endif

namespace quiver::cli::shell {
namespace {

using Clock = std::chrono::steady_clock;

// The table functions of FROM (planner/bind_from.cc), for completion.
const std::vector<std::string> kTableFunctions = {"generate_series", "read_arrow", "read_avro",
                                                  "read_csv", "read_file", "read_parquet"};

// "name" as an identifier: bare when it reads back the same, else quoted.
std::string QuoteIdent(const std::string& name) {
  bool bare = !name.empty() && (std::islower(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) {
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
          c == '_')) {
      bare = false;
    }
  }
  if (bare) return name;
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// psql's aligned table for the informational commands (\d, \df):
//    Name   | Type
//  ---------+-------
//   t       | table
//  (1 row)
std::string InfoTable(const std::vector<std::string>& headers,
                      const std::vector<std::vector<std::string>>& rows,
                      const std::set<size_t>& right_aligned = {}, bool count_rows = true) {
  std::vector<size_t> width(headers.size());
  for (size_t c = 0; c < headers.size(); ++c) width[c] = DisplayWidth(headers[c]);
  for (const auto& r : rows) {
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], DisplayWidth(r[c]));
  }
  auto cell = [&](const std::string& s, size_t c, bool right) {
    const std::string pad(width[c] - DisplayWidth(s), ' ');
    return right ? pad + s : s + pad;
  };
  std::string out;
  for (size_t c = 0; c < headers.size(); ++c) {
    out += (c ? " | " : " ") + cell(headers[c], c, false);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += "\n";
  for (size_t c = 0; c < headers.size(); ++c) {
    out += (c ? "-+-" : "-") + std::string(width[c], '-');
  }
  out += "-\n";
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c) {
      line += (c ? " | " : " ") + cell(r[c], c, right_aligned.count(c) > 0);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (count_rows) {
    out += rows.size() == 1 ? "(1 row)\n" : "(" + std::to_string(rows.size()) + " rows)\n";
  }
  return out;
}

// The elapsed time and rows so far on stderr, for statements running past
// 2 s, redrawn in place at most 5 times a second, cleared at the end.
class QueryProgress {
 public:
  explicit QueryProgress(Clock::time_point start)
      : start_(start), enabled_(::isatty(STDERR_FILENO) != 0) {}
  ~QueryProgress() { Clear(); }
  // rows < 0: not known (a command runs).
  void Update(int64_t rows) {
    if (!enabled_) return;
    const auto now = Clock::now();
    if (now - start_ < std::chrono::seconds(2)) return;
    if (drawn_ && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double secs = std::chrono::duration<double>(now - start_).count();
    static const char* kSpin[] = {"|", "/", "-", "\\"};
    const std::string line = std::string(kSpin[spin_++ % 4]) + " running " +
                             HumanSeconds(secs) +
                             (rows >= 0 ? "  " + std::to_string(rows) + " rows so far" : "") +
                             "  (Ctrl-C cancels)";
    std::fprintf(stderr, "\r%s", line.c_str());
    std::fflush(stderr);
    width_ = line.size();
    drawn_ = true;
  }
  void Clear() {
    if (!drawn_) return;
    std::fprintf(stderr, "\r%s\r", std::string(width_, ' ').c_str());
    std::fflush(stderr);
    drawn_ = false;
  }

 private:
  Clock::time_point start_;
  Clock::time_point last_;
  bool enabled_;
  bool drawn_ = false;
  size_t width_ = 0;
  int spin_ = 0;
};

enum class Expanded { kOff, kOn, kAuto };

class Shell {
 public:
  Shell(Database* db, const ShellOptions& options) : db_(db), options_(options) {}
  ~Shell() {
    if (out_ != nullptr) std::fclose(out_);
  }

  Status Run();

 private:
  // Runs a line typed or read from a file: a backslash command, or SQL fed
  // to `splitter` and run statement by statement. *quit on \q. `where` and
  // the statement lines name errors of files (\i). Returns false after the
  // first failing statement or command.
  bool ProcessLine(const std::string& line, StatementSplitter* splitter, bool* quit,
                   const std::string& where);
  bool RunBackslash(const std::string& line, StatementSplitter* splitter, bool* quit);
  // Runs one statement, printing its result or error.
  bool RunStatement(const std::string& text);
  bool RunFile(const std::string& path, bool* quit);
  bool Edit(StatementSplitter* splitter, bool* quit);
  bool Describe(const std::vector<std::string>& args);
  bool ListFunctions(const std::vector<std::string>& args);

  // The columns a SELECT * over `from` (an identifier) has: for views and
  // files, bound through the engine.
  Result<SchemaRef> SchemaOf(const std::string& from);
  CompletionCatalog MakeCompletionCatalog();
  std::string FormatResult(const SchemaRef& schema, const std::vector<RecordBatchRef>& batches,
                           int64_t total);
  // Results: to the \o file, else the terminal (through the pager).
  void Emit(const std::string& text);
  void PrintError(const Status& st, const std::string& text);

  Database* db_;
  ShellOptions options_;
  std::unique_ptr<LineReader> reader_;
  StatementSplitter splitter_;
  bool timing_ = false;
  Expanded expanded_ = Expanded::kOff;
  std::FILE* out_ = nullptr;  // \o FILE
  std::string last_query_;
  int include_depth_ = 0;
};

Status Shell::Run() {
  std::string history = options_.history_file;
  if (history.empty()) {
    if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
      history = std::string(home) + "/.quiver_history";
    }
  }
  InstallInterruptHandler();
  QUIVER_ASSIGN_OR_RAISE(reader_, LineReader::Open(history, [this](std::string_view line) {
                           // The unfinished statement's earlier lines are context.
                           const std::string& pending = splitter_.pending();
                           std::string text = pending + std::string(line);
                           Completion c = Complete(text, MakeCompletionCatalog(), ListDirectory);
                           if (c.start < pending.size()) return Completion{};
                           c.start -= pending.size();
                           return c;
                         }));
  std::printf("quiver %s: SQL over Arrow, Parquet and CSV files.\n"
              "Type \\? for help, \\q or Ctrl-D to quit.%s\n\n",
              QUIVER_VERSION,
              HasLineEditing() ? ""
                               : "\n(Built without libedit: no line editing, history or "
                                 "completion.)");
  std::fflush(stdout);
  bool quit = false;
  while (!quit) {
    std::string prompt = "quiver=> ";
    switch (splitter_.state()) {
      case StatementSplitter::State::kSingleQuote:
        prompt = "quiver'> ";
        break;
      case StatementSplitter::State::kDoubleQuote:
        prompt = "quiver\"> ";
        break;
      case StatementSplitter::State::kDollarQuote:
        prompt = "quiver$> ";
        break;
      case StatementSplitter::State::kBlockComment:
        prompt = "quiver*> ";
        break;
      case StatementSplitter::State::kNone:
        if (splitter_.paren_depth() > 0) {
          prompt = "quiver(> ";
        } else if (splitter_.has_pending()) {
          prompt = "quiver-> ";
        }
    }
    std::string line;
    const auto status = reader_->Read(prompt, &line);
    if (status == LineReader::ReadStatus::kEof) {
      std::printf("\n");
      break;
    }
    if (status == LineReader::ReadStatus::kInterrupted) {
      // As psql: Ctrl-C at the prompt drops the unfinished statement.
      splitter_.ClearPending();
      continue;
    }
    if (line.find_first_not_of(" \t") != std::string::npos) reader_->AddHistory(line);
    ProcessLine(line, &splitter_, &quit, "");
  }
  std::fflush(stdout);
  return Status::OK();
}

bool Shell::ProcessLine(const std::string& line, StatementSplitter* splitter, bool* quit,
                        const std::string& where) {
  if (splitter->state() == StatementSplitter::State::kNone && IsBackslashLine(line)) {
    const bool ok = RunBackslash(line, splitter, quit);
    if (!ok && !where.empty()) {
      std::fprintf(stderr, "quiver: stopped at line %d of %s\n", splitter->line(), where.c_str());
    }
    splitter->Feed("\n");  // keeps the line count
    return ok;
  }
  splitter->Feed(line);
  splitter->Feed("\n");
  while (auto st = splitter->Next()) {
    if (!RunStatement(st->text)) {
      if (!where.empty()) {
        std::fprintf(stderr, "quiver: stopped at the statement on line %d of %s\n", st->line,
                     where.c_str());
      }
      // The rest of the line is dropped with the failed statement (psql
      // runs it; a script stops).
      if (!where.empty()) return false;
    }
    if (*quit) break;
  }
  return true;
}

bool Shell::RunBackslash(const std::string& line, StatementSplitter* splitter, bool* quit) {
  auto parsed = ParseBackslash(line);
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s\n", parsed.status().message().c_str());
    return false;
  }
  const BackslashCommand& cmd = *parsed;
  switch (cmd.kind) {
    case BackslashKind::kQuit:
      *quit = true;
      return true;
    case BackslashKind::kHelp:
      Emit(BackslashHelp());
      return true;
    case BackslashKind::kTiming:
      timing_ = cmd.args.empty() ? !timing_ : cmd.args[0] == "on";
      std::printf("Timing is %s.\n", timing_ ? "on" : "off");
      return true;
    case BackslashKind::kExpanded:
      if (cmd.args.empty()) {
        expanded_ = expanded_ == Expanded::kOff ? Expanded::kOn : Expanded::kOff;
      } else {
        expanded_ = cmd.args[0] == "on"    ? Expanded::kOn
                    : cmd.args[0] == "off" ? Expanded::kOff
                                           : Expanded::kAuto;
      }
      std::printf("%s\n", expanded_ == Expanded::kAuto
                              ? "Expanded display is used automatically."
                              : expanded_ == Expanded::kOn ? "Expanded display is on."
                                                           : "Expanded display is off.");
      return true;
    case BackslashKind::kOutput: {
      if (out_ != nullptr) {
        std::fclose(out_);
        out_ = nullptr;
      }
      if (cmd.args.empty()) return true;
      out_ = std::fopen(cmd.args[0].c_str(), "w");
      if (out_ == nullptr) {
        std::fprintf(stderr, "%s: %s\n", cmd.args[0].c_str(), std::strerror(errno));
        return false;
      }
      return true;
    }
    case BackslashKind::kInclude:
      return RunFile(cmd.args[0], quit);
    case BackslashKind::kEdit:
      return Edit(splitter, quit);
    case BackslashKind::kDescribe:
      return Describe(cmd.args);
    case BackslashKind::kListFunctions:
      return ListFunctions(cmd.args);
  }
  return false;
}

void Shell::PrintError(const Status& st, const std::string& text) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s\n", sql::FormatErrorWithCaret(st, text).c_str());
  std::fflush(stderr);
}

void Shell::Emit(const std::string& text) {
  if (out_ != nullptr) {
    std::fwrite(text.data(), 1, text.size(), out_);
    std::fflush(out_);
    return;
  }
  const Status st = ShowOnTerminal(text);
  if (!st.ok()) std::fprintf(stderr, "%s\n", st.message().c_str());
}

std::string Shell::FormatResult(const SchemaRef& schema,
                                const std::vector<RecordBatchRef>& batches, int64_t total) {
  if (schema->num_fields() == 1 && schema->field(0)->name == "QUERY PLAN") {
    std::string text;
    for (const auto& b : batches) {
      for (int64_t i = 0; i < b->num_rows(); ++i)
        text += std::string(b->column(0)->GetString(i)) + "\n";
    }
    return text;
  }
  TableFormatOptions o;
  o.pg_arrays = true;  // SQL results show arrays as PostgreSQL does
  o.max_rows = options_.max_rows;
  o.total_rows = total;
  std::string table = FormatTable(schema, batches, o);
  if (!table.empty() && table.back() != '\n') table += "\n";
  bool expanded = expanded_ == Expanded::kOn;
  if (expanded_ == Expanded::kAuto) {
    // Expanded when the table would be wider than the terminal.
    const TerminalSize size = GetTerminalSize();
    const size_t columns = size.columns > 0 ? static_cast<size_t>(size.columns) : 80;
    size_t start = 0;
    while (start < table.size() && !expanded) {
      size_t end = table.find('\n', start);
      if (end == std::string::npos) end = table.size();
      expanded = DisplayWidth(std::string_view(table).substr(start, end - start)) > columns;
      start = end + 1;
    }
  }
  if (!expanded) return table;
  // psql's expanded records:
  //   -[ RECORD 1 ]-
  //   a | 1
  size_t name_width = 0;
  for (const auto& f : schema->fields) name_width = std::max(name_width, DisplayWidth(f->name));
  std::string out;
  int64_t record = 0;
  for (const auto& b : batches) {
    for (int64_t i = 0; i < b->num_rows() && record < options_.max_rows; ++i) {
      std::vector<std::string> values;
      size_t value_width = 0;
      for (int c = 0; c < b->num_columns(); ++c) {
        ValueFormatOptions vo;
        vo.pg_arrays = true;
        values.push_back(FormatValue(*b->column(c), i, vo));
        value_width = std::max(value_width, DisplayWidth(values.back()));
      }
      std::string header = "-[ RECORD " + std::to_string(++record) + " ]";
      const size_t width = name_width + 3 + value_width;
      if (DisplayWidth(header) < width) header += std::string(width - DisplayWidth(header), '-');
      out += header + "\n";
      for (int c = 0; c < b->num_columns(); ++c) {
        const std::string& name = schema->field(c)->name;
        out += name + std::string(name_width - DisplayWidth(name), ' ') + " | " +
               values[static_cast<size_t>(c)] + "\n";
      }
    }
  }
  if (total == 0) out += "(0 rows)\n";
  if (record < total) {
    out += "(" + std::to_string(total) + " rows, showing " + std::to_string(record) + ")\n";
  }
  return out;
}

bool Shell::RunStatement(const std::string& text) {
  last_query_ = text;
  g_interrupt = 0;
  g_cancel_statement.store(false);
  const auto start = Clock::now();
  auto report_time = [&] {
    if (!timing_) return;
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    std::printf("Time: %.3f ms\n", ms);
    std::fflush(stdout);
  };
  // Ctrl-C sets the statement's cancel flag, which commands (CREATE TABLE
  // AS, INSERT, COPY) see while ExecuteStream runs them. The flag is the
  // process-wide one (aliased, not owned), as the signal handler sets it.
  StatementOptions statement_options;
  statement_options.cancel =
      std::shared_ptr<const std::atomic<bool>>(std::shared_ptr<void>(), &g_cancel_statement);
  // ExecuteStream runs commands to completion: on a thread, so that the
  // progress line shows meanwhile.
  auto started = std::async(std::launch::async, [&] {
    return db_->ExecuteStream(text, {}, statement_options);
  });
  QueryProgress progress(start);
  while (started.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
    progress.Update(-1);
  }
  auto stream = started.get();
  progress.Clear();
  if (!stream.ok()) {
    PrintError(stream.status(), text);
    report_time();
    return false;
  }
  QueryStream& s = **stream;
  if (!s.has_rows()) {
    RecordBatchRef none;
    const Status st = s.Next(&none);
    if (!st.ok()) {
      PrintError(st, text);
      return false;
    }
    Emit(s.command_tag() + "\n");
    report_time();
    return true;
  }
  std::vector<RecordBatchRef> kept;
  int64_t kept_rows = 0, total = 0;
  bool cancelled = false;
  {
    for (;;) {
      if (g_interrupt && !cancelled) {
        // Ctrl-C: the query stops at its next chunk; its error says so.
        g_interrupt = 0;
        cancelled = true;
        s.Cancel();
      }
      RecordBatchRef b;
      bool timed_out = false;
      const Status st =
          s.NextBefore(Clock::now() + std::chrono::milliseconds(100), &b, &timed_out);
      if (!st.ok()) {
        progress.Clear();
        PrintError(st, text);
        return false;
      }
      if (timed_out) {
        progress.Update(total);
        continue;
      }
      if (b == nullptr) break;
      total += b->num_rows();
      if (kept_rows < options_.max_rows) {
        kept_rows += b->num_rows();
        kept.push_back(std::move(b));
      }
      progress.Update(total);
    }
    progress.Clear();
  }
  Emit(FormatResult(s.schema(), kept, total));
  report_time();
  return true;
}

bool Shell::RunFile(const std::string& path, bool* quit) {
  if (include_depth_ >= 16) {
    std::fprintf(stderr, "%s: \\i nested too deeply (16 files)\n", path.c_str());
    return false;
  }
  auto data = ReadFileFully(path);
  if (!data.ok()) {
    std::fprintf(stderr, "%s\n", data.status().message().c_str());
    return false;
  }
  ++include_depth_;
  StatementSplitter splitter;
  std::istringstream in{std::string((*data)->view())};
  std::string line;
  bool ok = true;
  while (ok && !*quit && std::getline(in, line)) {
    ok = ProcessLine(line, &splitter, quit, path);
  }
  if (ok && !*quit) {
    if (auto last = splitter.Finish()) {
      ok = RunStatement(last->text);
      if (!ok) {
        std::fprintf(stderr, "quiver: stopped at the statement on line %d of %s\n", last->line,
                     path.c_str());
      }
    }
  }
  --include_depth_;
  return ok;
}

bool Shell::Edit(StatementSplitter* splitter, bool* quit) {
  // The unfinished statement, else the last one run (as psql's \e).
  std::string text = splitter->has_pending() ? splitter->pending() : last_query_;
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir != nullptr && *dir ? dir : "/tmp") + "/quiver_edit_XXXXXX.sql";
  const int fd = ::mkstemps(path.data(), 4);
  if (fd < 0) {
    std::fprintf(stderr, "could not create a temporary file: %s\n", std::strerror(errno));
    return false;
  }
  if (!text.empty() && text.back() != '\n') text += "\n";
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  const char* editor = std::getenv("VISUAL");
  if (editor == nullptr || *editor == '\0') editor = std::getenv("EDITOR");
  const std::string command =
      std::string(editor != nullptr && *editor != '\0' ? editor : "vi") + " '" + path + "'";
  const int rc = written ? std::system(command.c_str()) : -1;
  auto edited = ReadFileFully(path);
  ::unlink(path.c_str());
  if (rc != 0) {
    std::fprintf(stderr, "the editor (%s) failed (status %d); nothing was run\n", command.c_str(),
                 rc);
    return false;
  }
  if (!edited.ok()) {
    std::fprintf(stderr, "%s\n", edited.status().message().c_str());
    return false;
  }
  // What the editor left replaces the unfinished statement: complete
  // statements run now, the rest waits for more lines.
  splitter->ClearPending();
  std::istringstream in{std::string((*edited)->view())};
  std::string line;
  bool ok = true;
  while (!*quit && std::getline(in, line)) {
    if (line.find_first_not_of(" \t") != std::string::npos) reader_->AddHistory(line);
    ok = ProcessLine(line, splitter, quit, "") && ok;
  }
  return ok;
}

Result<SchemaRef> Shell::SchemaOf(const std::string& from) {
  QUIVER_ASSIGN_OR_RAISE(auto stream, db_->ExecuteStream("SELECT * FROM " + from + " LIMIT 0"));
  return stream->schema();
}

bool Shell::Describe(const std::vector<std::string>& args) {
  Catalog* catalog = db_->catalog();
  if (args.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& name : catalog->TableNames()) {
      auto entry = catalog->Lookup(name);
      if (entry == nullptr) continue;  // dropped meanwhile
      if (entry->view != nullptr) {
        rows.push_back({name, "view", "", ""});
        continue;
      }
      // Row counts only where known without a scan (file metadata, memory).
      const int64_t n = entry->table->EstimatedRows();
      const bool files = dynamic_cast<const FileTable*>(entry->table.get()) != nullptr ||
                         dynamic_cast<const ForeignTable*>(entry->table.get()) != nullptr;
      rows.push_back({name, files ? "foreign table" : "table", n >= 0 ? std::to_string(n) : "",
                      entry->table->Describe()});
    }
    if (rows.empty()) {
      std::printf("Did not find any relations.\n");
      return true;
    }
    Emit(InfoTable({"Name", "Type", "Rows", "Source"}, rows, {2}));
    return true;
  }
  const std::string& name = args[0];
  auto entry = catalog->Lookup(name);
  SchemaRef schema;
  std::string title, footer;
  if (entry != nullptr && entry->table != nullptr) {
    schema = entry->table->schema();
    const auto* foreign = dynamic_cast<const ForeignTable*>(entry->table.get());
    const bool files = dynamic_cast<const FileTable*>(entry->table.get()) != nullptr || foreign != nullptr;
    title = std::string(files ? "Foreign table" : "Table") + " \"" + name + "\"";
    const int64_t n = entry->table->EstimatedRows();
    if (n >= 0) footer += "Rows: " + std::to_string(n) + "\n";
    footer += "Source: " + entry->table->Describe() + "\n";
    const FileTable* ft = dynamic_cast<const FileTable*>(entry->table.get());
    if (ft != nullptr || foreign != nullptr) {
      const std::vector<std::string> paths = ft ? ft->paths() : foreign->paths();
      footer += "Files:\n";
      for (size_t i = 0; i < paths.size() && i < 20; ++i) footer += "    " + paths[i] + "\n";
      if (paths.size() > 20)
        footer += "    ... and " + std::to_string(paths.size() - 20) + " more\n";
    }
  } else {
    // A view (its columns come from binding it), or a file path.
    auto bound = SchemaOf(QuoteIdent(name));
    if (!bound.ok()) {
      if (entry == nullptr) {
        std::fprintf(stderr, "Did not find any relation named \"%s\".\n", name.c_str());
      } else {
        std::fprintf(stderr, "%s\n", bound.status().message().c_str());
      }
      return false;
    }
    schema = *bound;
    if (entry != nullptr) {
      title = "View \"" + name + "\"";
      footer = "View definition:\n " + entry->view->text + "\n";
    } else {
      title = "File \"" + name + "\"";
    }
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : schema->fields) {
    rows.push_back({f->name, PgTypeNameWithModifiers(*f->type), std::string(f->nullable ? "" : "not null")});
  }
  Emit(title + "\n" + InfoTable({"Column", "Type", "Nullable"}, rows, {}, false) + footer);
  return true;
}

bool Shell::ListFunctions(const std::vector<std::string>& args) {
  const std::string pattern = args.empty() ? "*" : args[0];
  auto type_name = [](const TypeRef& t) -> std::string {
    if (t == nullptr) return "";
    if (IsAnyType(*t)) return "anyelement";
    if (IsAnyDecimal(*t)) return "numeric";
    return PgTypeName(*t);
  };
  auto signature = [&](const std::vector<TypeRef>& types, const TypeRef& varargs) {
    std::string s;
    for (const auto& t : types) s += (s.empty() ? "" : ", ") + type_name(t);
    if (varargs != nullptr) s += (s.empty() ? "VARIADIC " : ", VARIADIC ") + type_name(varargs);
    return s;
  };
  // Operators (+, ~~) are functions in the registry; \df lists names only.
  auto listed = [&](const std::string& name) {
    return !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_') &&
           ::fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
  };
  std::set<std::vector<std::string>> rows;
  const FunctionRegistry& registry = FunctionRegistry::Get();
  for (const auto& f : registry.scalars()) {
    if (listed(f->name))
      rows.insert({f->name, type_name(f->return_type), signature(f->args, f->varargs), "func"});
  }
  for (const auto& f : registry.aggregates()) {
    if (listed(f->name)) {
      rows.insert({f->name, type_name(f->return_type),
                   f->args.empty() ? "*" : signature(f->args, f->varargs), "agg"});
    }
  }
  for (const auto& name : kTableFunctions) {
    if (listed(name)) rows.insert({name, "setof record", "", "table"});
  }
  Emit(InfoTable({"Name", "Result type", "Argument types", "Type"},
                 std::vector<std::vector<std::string>>(rows.begin(), rows.end())));
  return true;
}

CompletionCatalog Shell::MakeCompletionCatalog() {
  CompletionCatalog c;
  c.tables = db_->catalog()->TableNames();
  std::set<std::string> functions;
  const FunctionRegistry& registry = FunctionRegistry::Get();
  auto add = [&](const std::string& name) {
    if (!name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
      functions.insert(name);
  };
  for (const auto& f : registry.scalars()) add(f->name);
  for (const auto& f : registry.aggregates()) add(f->name);
  c.functions.assign(functions.begin(), functions.end());
  c.table_functions = kTableFunctions;
  c.columns = [this](const std::string& table) {
    std::vector<std::string> out;
    auto entry = db_->catalog()->Lookup(table);
    if (entry == nullptr) return out;
    SchemaRef schema;
    if (entry->table != nullptr) {
      schema = entry->table->schema();
    } else if (auto bound = SchemaOf(QuoteIdent(table)); bound.ok()) {
      schema = *bound;
    }
    if (schema == nullptr) return out;
    for (const auto& f : schema->fields) out.push_back(f->name);
    return out;
  };
  return c;
}

}  // namespace

Status RunShell(Database* db, const ShellOptions& options) {
  Shell shell(db, options);
  return shell.Run();
}

}  // namespace quiver::cli::shell
