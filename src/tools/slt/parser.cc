#include "tools/slt/parser.h"

#include <cctype>
#include <charconv>
#include <strings.h>

namespace quiver::slt {
namespace {

struct Line {
  int number;  // 1-based
  std::string_view text;  // without \r; empty if it was all whitespace
};

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// The script's lines with comments removed, as the reference's nextLine()
// sees them: a comment line is not blank, so it is dropped rather than
// turned into a record separator.
std::vector<Line> ScriptLines(std::string_view text) {
  std::vector<Line> lines;
  int number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    bool blank = true;
    for (char c : line) {
      if (!IsSpace(c)) {
        blank = false;
        break;
      }
    }
    if (blank) line = {};
    if (!line.empty() && line[0] == '#') continue;
    lines.push_back({number, line});
  }
  return lines;
}

// The whitespace-separated words of a line.
std::vector<std::string_view> Tokens(std::string_view line) {
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsSpace(line[i])) ++i;
    const size_t start = i;
    while (i < line.size() && !IsSpace(line[i])) ++i;
    if (i > start) tokens.push_back(line.substr(start, i - start));
  }
  return tokens;
}

bool ParseInt(std::string_view s, int64_t* out) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

std::string JoinLines(const std::vector<Line>& lines, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    if (i > begin) out += '\n';
    out += lines[i].text;
  }
  return out;
}

Record Invalid(int line, std::string reason) {
  Record r;
  r.kind = RecordKind::kInvalid;
  r.line = line;
  r.invalid_reason = std::move(reason);
  return r;
}

// One record from its non-blank lines [begin, end).
Record ParseRecord(const std::vector<Line>& lines, size_t begin, size_t end) {
  std::vector<Condition> conditions;
  size_t i = begin;
  std::vector<std::string_view> tokens;
  for (; i < end; ++i) {
    tokens = Tokens(lines[i].text);
    if (tokens[0] != "skipif" && tokens[0] != "onlyif") break;
    if (tokens.size() < 2) {
      return Invalid(lines[i].number, std::string(tokens[0]) + " without an engine name");
    }
    conditions.push_back({tokens[0] == "onlyif", std::string(tokens[1])});
  }
  if (i == end) return Invalid(lines[end - 1].number, "conditions without a record");

  Record r;
  r.conditions = std::move(conditions);
  r.line = lines[i].number;
  const std::string_view command = tokens[0];
  if (command == "statement") {
    if (tokens.size() < 2 || (tokens[1] != "ok" && tokens[1] != "error")) {
      Record bad = Invalid(r.line, "statement must be followed by 'ok' or 'error'");
      bad.conditions = std::move(r.conditions);
      return bad;
    }
    r.kind = RecordKind::kStatement;
    r.expect_error = tokens[1] == "error";
    r.sql = JoinLines(lines, i + 1, end);
    return r;
  }
  if (command == "query") {
    r.kind = RecordKind::kQuery;
    std::string reason;
    if (tokens.size() < 2) {
      reason = "query without a type string";
    } else {
      r.types = std::string(tokens[1]);
      if (tokens.size() >= 3) {
        if (tokens[2] == "nosort") {
          r.sort = SortMode::kNoSort;
        } else if (tokens[2] == "rowsort") {
          r.sort = SortMode::kRowSort;
        } else if (tokens[2] == "valuesort") {
          r.sort = SortMode::kValueSort;
        } else {
          reason = "unknown sort mode '" + std::string(tokens[2]) + "'";
        }
      }
      if (tokens.size() >= 4) r.label = std::string(tokens[3]);
    }
    size_t sep = i + 1;
    while (sep < end && lines[sep].text != "----") ++sep;
    r.sql = JoinLines(lines, i + 1, sep);
    for (size_t k = sep + 1; k < end; ++k) r.expected.emplace_back(lines[k].text);
    if (r.expected.size() == 1 &&
        ParseHashLine(r.expected[0], &r.expected_hash_count, &r.expected_hash)) {
      r.expected_is_hash = true;
      r.expected.clear();
    }
    if (!reason.empty()) {
      Record bad = Invalid(r.line, reason);
      bad.conditions = std::move(r.conditions);
      return bad;
    }
    return r;
  }
  if (command == "hash-threshold") {
    r.kind = RecordKind::kHashThreshold;
    if (tokens.size() < 2 || !ParseInt(tokens[1], &r.hash_threshold) || r.hash_threshold < 0) {
      Record bad = Invalid(r.line, "hash-threshold needs a non-negative number");
      bad.conditions = std::move(r.conditions);
      return bad;
    }
    return r;
  }
  if (command == "halt") {
    r.kind = RecordKind::kHalt;
    return r;
  }
  Record bad = Invalid(r.line, "unknown record type '" + std::string(command) + "'");
  bad.conditions = std::move(r.conditions);
  return bad;
}

}  // namespace

std::vector<Record> ParseScript(std::string_view text) {
  const std::vector<Line> lines = ScriptLines(text);
  std::vector<Record> records;
  size_t i = 0;
  while (i < lines.size()) {
    if (lines[i].text.empty()) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < lines.size() && !lines[end].text.empty()) ++end;
    records.push_back(ParseRecord(lines, i, end));
    i = end;
  }
  return records;
}

bool RecordApplies(const Record& record, std::string_view engine) {
  for (const Condition& c : record.conditions) {
    const bool match = c.engine.size() == engine.size() &&
                       strncasecmp(c.engine.data(), engine.data(), engine.size()) == 0;
    if (match != c.only_if) return false;
  }
  return true;
}

bool ParseHashLine(std::string_view line, int64_t* count, std::string* hash) {
  const std::vector<std::string_view> t = Tokens(line);
  if (t.size() != 5 || t[1] != "values" || t[2] != "hashing" || t[3] != "to") return false;
  if (!ParseInt(t[0], count) || *count < 0) return false;
  if (t[4].size() != 32) return false;
  for (char c : t[4]) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  hash->assign(t[4]);
  for (char& c : *hash) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return true;
}

}  // namespace quiver::slt
