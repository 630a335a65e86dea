// Tab completion for the shell: which words may replace the one under the
// cursor. Pure (the catalog and the directory listing are passed in), so
// the rules are unit-tested without a terminal.
//
//   SELECT l_ret<Tab>           columns of the tables the statement names
//   SELECT * FROM li<Tab>       tables and views after FROM / JOIN / INTO / ...
//   sel<Tab>                    keywords (in the case typed: sel -> select,
//                               SEL or nothing -> SELECT, as psql), functions
//   SELECT * FROM 'data/ev<Tab> file paths inside single quotes (and double
//                               quotes after FROM / JOIN)
//   \d li<Tab>  \i sc<Tab>      table names, file paths after backslash commands
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace quiver::cli::shell {

struct CompletionCatalog {
  std::vector<std::string> tables;  // tables and views
  // Columns by table name (for the tables the statement names).
  std::function<std::vector<std::string>(const std::string& table)> columns;
  std::vector<std::string> functions;        // scalar and aggregate
  std::vector<std::string> table_functions;  // read_csv, generate_series, ...
};

struct DirEntry {
  std::string name;
  bool is_dir = false;
};
// Lists a directory ("" is the current one); empty when it cannot be read.
using DirLister = std::function<std::vector<DirEntry>(const std::string& dir)>;
// The real file system's.
std::vector<DirEntry> ListDirectory(const std::string& dir);

struct Completion {
  // Offset in the text where the word being completed starts; the
  // candidates replace text[start, end).
  size_t start = 0;
  std::vector<std::string> candidates;  // sorted, distinct
  // What follows a single candidate: " " after a word, "'" (or "\"") after
  // a quoted file, nothing after a directory.
  std::string suffix = " ";
  // Candidates are file paths: a directory keeps its trailing '/' and no
  // suffix is added.
  bool paths = false;
};

// `text`: the statement typed so far up to the cursor (earlier lines of an
// unfinished statement, then the current line).
Completion Complete(std::string_view text, const CompletionCatalog& catalog,
                    const DirLister& list_dir);

// The longest common prefix of the candidates.
std::string CommonPrefix(const std::vector<std::string>& candidates);

// SQL keywords offered by completion (upper case).
const std::vector<std::string>& SqlKeywords();

}  // namespace quiver::cli::shell
