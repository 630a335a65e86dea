#include "tools/shell/completion.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <system_error>

namespace quiver::cli::shell {
namespace {

bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}
std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (prefix.size() > s.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

// The lexical view of the text before the cursor.
struct Scan {
  enum class End { kCode, kSingleQuote, kDoubleQuote, kComment } end = End::kCode;
  size_t quote_start = 0;           // offset of the open quote
  std::vector<std::string> words;   // words and symbols outside quotes, in order
  std::vector<std::string> quoted;  // "quoted" names (unquoted), for table lookups
};

Scan ScanText(std::string_view s) {
  Scan scan;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      const size_t nl = s.find('\n', i);
      if (nl == std::string_view::npos) {
        scan.end = Scan::End::kComment;
        return scan;
      }
      i = nl + 1;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      int depth = 1;
      i += 2;
      while (i < s.size() && depth > 0) {
        if (s.compare(i, 2, "*/") == 0) {
          --depth;
          i += 2;
        } else if (s.compare(i, 2, "/*") == 0) {
          ++depth;
          i += 2;
        } else {
          ++i;
        }
      }
      if (depth > 0) {
        scan.end = Scan::End::kComment;
        return scan;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      const size_t start = i;
      ++i;
      bool closed = false;
      while (i < s.size()) {
        if (s[i] == c) {
          if (i + 1 < s.size() && s[i + 1] == c) {
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        ++i;
      }
      if (!closed) {
        scan.end = c == '\'' ? Scan::End::kSingleQuote : Scan::End::kDoubleQuote;
        scan.quote_start = start;
        return scan;
      }
      if (c == '"') scan.quoted.emplace_back(s.substr(start + 1, i - start - 2));
      scan.words.emplace_back(c == '\'' ? "'" : "\"");
      continue;
    }
    if (IsWordChar(c)) {
      const size_t start = i;
      while (i < s.size() && IsWordChar(s[i])) ++i;
      scan.words.emplace_back(s.substr(start, i - start));
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) scan.words.emplace_back(1, c);
    ++i;
  }
  return scan;
}

// Keywords after which a table name comes.
bool TakesTable(const std::string& upper_word) {
  static const std::set<std::string> kWords = {"FROM",  "JOIN",     "INTO",  "UPDATE", "TABLE",
                                               "VIEW",  "DESCRIBE", "TRUNCATE"};
  return kWords.count(upper_word) > 0;
}

void AddMatching(const std::vector<std::string>& names, std::string_view prefix,
                 std::set<std::string>* out) {
  for (const auto& n : names) {
    if (StartsWithNoCase(n, prefix)) out->insert(n);
  }
}

// Paths completing `typed` ("data/ev" -> "data/events.arrow", "data/sub/").
std::vector<std::string> CompletePath(const std::string& typed, const DirLister& list_dir) {
  const size_t slash = typed.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : typed.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? typed : typed.substr(slash + 1);
  std::vector<std::string> out;
  for (const DirEntry& e : list_dir(dir)) {
    // Hidden files only when asked for, as shells do.
    if (!e.name.empty() && e.name[0] == '.' && (base.empty() || base[0] != '.')) continue;
    if (e.name.compare(0, base.size(), base) != 0) continue;
    out.push_back(dir + e.name + (e.is_dir ? "/" : ""));
  }
  std::sort(out.begin(), out.end());
  return out;
}

Completion Finish(size_t start, std::set<std::string> candidates, std::string suffix,
                  bool paths) {
  Completion c;
  c.start = start;
  c.candidates.assign(candidates.begin(), candidates.end());
  c.suffix = std::move(suffix);
  c.paths = paths;
  return c;
}

Completion CompleteBackslash(std::string_view line, size_t line_start,
                             const CompletionCatalog& catalog, const DirLister& list_dir) {
  const size_t bs = line.find('\\');
  const size_t space = line.find_first_of(" \t", bs);
  if (space == std::string_view::npos) {
    static const std::vector<std::string> kCommands = {"\\?", "\\d", "\\df", "\\e", "\\i",
                                                       "\\o", "\\q", "\\timing", "\\x"};
    std::set<std::string> out;
    for (const auto& c : kCommands) {
      if (c.compare(0, line.size() - bs, line.substr(bs)) == 0) out.insert(c);
    }
    return Finish(line_start + bs, std::move(out), " ", false);
  }
  const std::string command(line.substr(bs + 1, space - bs - 1));
  size_t word_start = line.find_last_of(" \t") + 1;
  std::string word(line.substr(word_start));
  std::set<std::string> out;
  if (command == "d") {
    AddMatching(catalog.tables, word, &out);
  } else if (command == "i" || command == "include" || command == "o" || command == "out") {
    for (auto& p : CompletePath(word, list_dir)) out.insert(std::move(p));
    return Finish(line_start + word_start, std::move(out), " ", true);
  } else if (command == "x") {
    AddMatching({"auto", "off", "on"}, word, &out);
  } else if (command == "timing") {
    AddMatching({"off", "on"}, word, &out);
  }
  return Finish(line_start + word_start, std::move(out), " ", false);
}

}  // namespace

std::vector<DirEntry> ListDirectory(const std::string& dir) {
  std::vector<DirEntry> out;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir.empty() ? "." : dir, ec);
  if (ec) return out;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    std::error_code type_ec;
    out.push_back(DirEntry{it->path().filename().string(), it->is_directory(type_ec)});
  }
  return out;
}

std::string CommonPrefix(const std::vector<std::string>& candidates) {
  if (candidates.empty()) return "";
  std::string prefix = candidates[0];
  for (const auto& c : candidates) {
    size_t n = 0;
    while (n < prefix.size() && n < c.size() && prefix[n] == c[n]) ++n;
    prefix.resize(n);
  }
  return prefix;
}

Completion Complete(std::string_view text, const CompletionCatalog& catalog,
                    const DirLister& list_dir) {
  // Backslash commands: only on their own line.
  const size_t nl = text.rfind('\n');
  const size_t line_start = nl == std::string_view::npos ? 0 : nl + 1;
  const std::string_view line = text.substr(line_start);
  const size_t first = line.find_first_not_of(" \t");
  if (first != std::string_view::npos && line[first] == '\\') {
    return CompleteBackslash(line, line_start, catalog, list_dir);
  }

  const Scan scan = ScanText(text);
  const std::string prev = scan.words.empty() ? "" : Upper(scan.words.back());
  switch (scan.end) {
    case Scan::End::kComment:
      return Completion{};
    case Scan::End::kSingleQuote: {
      std::set<std::string> out;
      for (auto& p : CompletePath(std::string(text.substr(scan.quote_start + 1)), list_dir))
        out.insert(std::move(p));
      return Finish(scan.quote_start + 1, std::move(out), "'", true);
    }
    case Scan::End::kDoubleQuote: {
      const std::string typed(text.substr(scan.quote_start + 1));
      std::set<std::string> out;
      AddMatching(catalog.tables, typed, &out);
      const bool paths = TakesTable(prev);
      if (paths) {
        for (auto& p : CompletePath(typed, list_dir)) out.insert(std::move(p));
      }
      return Finish(scan.quote_start + 1, std::move(out), "\"", paths);
    }
    case Scan::End::kCode:
      break;
  }

  // The word under the cursor: name characters and dots (t.col).
  size_t start = text.size();
  while (start > 0 && (IsWordChar(text[start - 1]) || text[start - 1] == '.')) --start;
  const std::string word(text.substr(start));
  // The token before the word (the scan's last token is the word itself;
  // words with a dot return below without looking at it).
  std::string before;
  {
    size_t n = scan.words.size();
    if (!word.empty() && n > 0) --n;
    if (n > 0) before = Upper(scan.words[n - 1]);
  }

  std::set<std::string> out;
  const size_t dot = word.rfind('.');
  if (dot != std::string::npos) {
    const std::string table = word.substr(0, dot);
    const std::string col_prefix = word.substr(dot + 1);
    if (catalog.columns) {
      for (const auto& c : catalog.columns(table)) {
        if (StartsWithNoCase(c, col_prefix)) out.insert(table + "." + c);
      }
    }
    return Finish(start, std::move(out), " ", false);
  }
  if (TakesTable(before)) {
    AddMatching(catalog.tables, word, &out);
    if (before != "INTO" && before != "UPDATE" && before != "TABLE" && before != "VIEW" &&
        before != "TRUNCATE") {
      AddMatching(catalog.table_functions, word, &out);
    }
    return Finish(start, std::move(out), " ", false);
  }
  // Anywhere else: keywords in the case typed (upper when nothing is typed
  // or the word starts upper case), functions, tables, and the columns of
  // the tables the statement names.
  const bool lower = !word.empty() && std::islower(static_cast<unsigned char>(word[0]));
  for (const auto& k : SqlKeywords()) {
    if (StartsWithNoCase(k, word)) out.insert(lower ? Lower(k) : k);
  }
  AddMatching(catalog.functions, word, &out);
  AddMatching(catalog.tables, word, &out);
  if (catalog.columns) {
    std::set<std::string> named;
    std::set<std::string> tables(catalog.tables.begin(), catalog.tables.end());
    for (const auto& w : scan.words) {
      if (tables.count(w) || tables.count(Lower(w))) named.insert(tables.count(w) ? w : Lower(w));
    }
    for (const auto& q : scan.quoted) {
      if (tables.count(q)) named.insert(q);
    }
    for (const auto& t : named) AddMatching(catalog.columns(t), word, &out);
  }
  return Finish(start, std::move(out), " ", false);
}

const std::vector<std::string>& SqlKeywords() {
  static const std::vector<std::string> kKeywords = {
      "ALL", "ALTER", "ANALYZE", "AND", "ANY", "ARRAY", "AS", "ASC", "BEGIN", "BETWEEN",
      "BIGINT", "BOOLEAN", "BOTH", "BY", "CASE", "CAST", "CHECK", "COLLATE", "COLUMN",
      "COMMIT", "CONFLICT", "COPY", "CREATE", "CROSS", "CUBE", "CURRENT_DATE",
      "CURRENT_TIMESTAMP", "DATE", "DEFAULT", "DELETE", "DESC", "DISTINCT", "DO", "DOUBLE",
      "DROP", "ELSE", "END", "EXCEPT", "EXISTS", "EXPLAIN", "EXTRACT", "FALSE", "FETCH",
      "FILTER", "FIRST", "FOLLOWING", "FOR", "FOREIGN", "FORMAT", "FROM", "FULL", "GROUP",
      "GROUPING", "HAVING", "IF", "ILIKE", "IN", "INDEX", "INNER", "INSERT", "INTEGER",
      "INTERSECT", "INTERVAL", "INTO", "IS", "JOIN", "KEY", "LAST", "LATERAL", "LEFT", "LIKE",
      "LIMIT", "NATURAL", "NOT", "NULL", "NULLS", "NUMERIC", "OFFSET", "ON", "OR", "ORDER",
      "OUTER", "OVER", "PARTITION", "PRECEDING", "PRIMARY", "RANGE", "RECURSIVE", "REPLACE",
      "RETURNING", "RIGHT", "ROLLBACK", "ROLLUP", "ROW", "ROWS", "SELECT", "SET", "SMALLINT",
      "TABLE", "TEXT", "THEN", "TIMESTAMP", "TO", "TRUE", "TRUNCATE", "UNBOUNDED", "UNION",
      "UNIQUE", "UPDATE", "USING", "VALUES", "VARCHAR", "VIEW", "WHEN", "WHERE", "WINDOW",
      "WITH"};
  return kKeywords;
}

}  // namespace quiver::cli::shell
