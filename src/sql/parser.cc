// libpg_query wrapper: protobuf parse, error positions, `?` placeholders,
// error rendering and PostgreSQL's column naming (ParsedExpr::ToString).
#include "sql/parser.h"

#include <pg_query.h>

#include <algorithm>

#include "sql/transform_internal.h"

namespace quiver::sql {

namespace {

// PostgreSQL reports the error cursor as a 1-based character count; the
// AST uses byte offsets.
int CharPositionToByte(const std::string& text, int cursorpos) {
  if (cursorpos <= 0) return -1;
  int chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (++chars == cursorpos) return static_cast<int>(i);
    }
  }
  return static_cast<int>(text.size());
}

// Keywords that end a FROM list at their nesting level.
bool EndsFromList(int token) {
  switch (token) {
    case pg_query::WHERE:
    case pg_query::GROUP_P:
    case pg_query::HAVING:
    case pg_query::WINDOW:
    case pg_query::ORDER:
    case pg_query::LIMIT:
    case pg_query::OFFSET:
    case pg_query::FETCH:
    case pg_query::UNION:
    case pg_query::INTERSECT:
    case pg_query::EXCEPT:
    case pg_query::FOR:
    case pg_query::RETURNING:
    case pg_query::SELECT:
    case pg_query::VALUES:
      return true;
    default:
      return false;
  }
}

// DuckDB users write a file as a string in table position: FROM 'x.parquet'.
// PostgreSQL's grammar has no such form; Quiver's is the quoted name
// FROM "x.parquet". Returns `text` with each plain '...' literal that stands
// where a table would (after FROM or JOIN of a SELECT, or after a comma in
// its FROM list) turned into a quoted name of the same length, so that
// positions in later errors stay true; empty when there is none. Literals
// holding quotes or escapes are left alone. Tokens come from PostgreSQL's
// own scanner, so comments, dollar quotes and E'' strings are never touched;
// FROM inside a function call (extract(year FROM '...'), substring, trim)
// and COPY ... FROM 'file' have no SELECT at their nesting level and are
// skipped.
std::string QuoteFileLiterals(const std::string& text) {
  PgQueryScanResult scan = pg_query_scan(text.c_str());
  struct Free {
    PgQueryScanResult* r;
    ~Free() { pg_query_free_scan_result(*r); }
  } free_scan{&scan};
  if (scan.error != nullptr) return {};
  pg_query::ScanResult tokens;
  if (!tokens.ParseFromArray(scan.pbuf.data, static_cast<int>(scan.pbuf.len))) return {};
  struct Level {
    bool select = false;   // a SELECT keyword at this nesting level
    bool in_from = false;  // inside that SELECT's FROM list
  };
  std::vector<Level> levels(1);
  std::string out = text;
  bool changed = false;
  int previous = 0;
  for (const auto& t : tokens.tokens()) {
    const int token = t.token();
    if (token == pg_query::SQL_COMMENT || token == pg_query::C_COMMENT) continue;
    Level& level = levels.back();
    if (token == pg_query::SCONST) {
      const bool table_position =
          level.select && (previous == pg_query::FROM || previous == pg_query::JOIN ||
                           (previous == pg_query::ASCII_44 && level.in_from));
      const auto start = static_cast<size_t>(t.start());
      const auto end = static_cast<size_t>(t.end());
      if (table_position && end <= text.size() && end >= start + 2 && text[start] == '\'' &&
          text[end - 1] == '\'') {
        const std::string_view body(text.data() + start + 1, end - start - 2);
        if (!body.empty() && body.find_first_of("'\"\\") == std::string_view::npos) {
          out[start] = '"';
          out[end - 1] = '"';
          changed = true;
        }
      }
    } else if (token == pg_query::ASCII_40) {
      levels.emplace_back();
    } else if (token == pg_query::ASCII_41) {
      if (levels.size() > 1) levels.pop_back();
    } else if (token == pg_query::ASCII_59) {
      levels.assign(1, Level{});
    } else if (token == pg_query::SELECT) {
      level.select = true;
      level.in_from = false;
    } else if (token == pg_query::FROM) {
      level.in_from = level.select;
    } else if (EndsFromList(token)) {
      level.in_from = false;
    }
    previous = token;
  }
  return changed ? out : std::string();
}

Status SyntaxError(const PgQueryProtobufParseResult& result, const std::string& text) {
  // PostgreSQL's grammar and lexer report their errors as syntax_error.
  Status st = Status::Invalid("{}", result.error->message ? result.error->message : "syntax error")
                  .WithSqlState(sqlstate::kSyntaxError);
  return st.WithPosition(CharPositionToByte(text, result.error->cursorpos));
}

}  // namespace

Result<std::vector<std::unique_ptr<Statement>>> Parse(const std::string& original) {
  PgQueryProtobufParseResult result = pg_query_parse_protobuf(original.c_str());
  struct Free {
    PgQueryProtobufParseResult* r;
    ~Free() { pg_query_free_protobuf_parse_result(*r); }
  } free_result{&result};
  // Only text PostgreSQL's grammar refuses is rewritten: a valid statement
  // (COPY t FROM 'file', a string after FROM in any other valid place)
  // keeps its meaning.
  std::string rewritten;
  if (result.error != nullptr) {
    rewritten = QuoteFileLiterals(original);
    if (rewritten.empty()) return SyntaxError(result, original);
    PgQueryProtobufParseResult retry = pg_query_parse_protobuf(rewritten.c_str());
    if (retry.error != nullptr) {
      // The error past the file name (same positions in both texts).
      Status st = SyntaxError(retry, rewritten);
      pg_query_free_protobuf_parse_result(retry);
      return st;
    }
    pg_query_free_protobuf_parse_result(result);
    result = retry;
  }
  const std::string& text = rewritten.empty() ? original : rewritten;
  pg_query::ParseResult tree;
  if (!tree.ParseFromArray(result.parse_tree.data, static_cast<int>(result.parse_tree.len))) {
    return Status::UnknownError("could not decode the parse tree");
  }
  internal::Transformer transformer(text);
  std::vector<std::unique_ptr<Statement>> out;
  for (const auto& raw : tree.stmts()) {
    QUIVER_ASSIGN_OR_RAISE(auto stmt, transformer.TransformStatement(raw.stmt(), raw.stmt_location(),
                                                                     raw.stmt_len()));
    out.push_back(std::move(stmt));
  }
  return out;
}

namespace internal {

Result<std::string> DeparseExpression(const pg_query::Node& node) {
  // SELECT <expr>, deparsed by PostgreSQL's own deparser, less the SELECT.
  pg_query::ParseResult tree;
  auto* select = tree.add_stmts()->mutable_stmt()->mutable_select_stmt();
  select->set_limit_option(pg_query::LIMIT_OPTION_DEFAULT);
  select->set_op(pg_query::SETOP_NONE);
  *select->add_target_list()->mutable_res_target()->mutable_val() = node;
  const std::string bytes = tree.SerializeAsString();
  PgQueryProtobuf buffer;
  buffer.len = bytes.size();
  buffer.data = const_cast<char*>(bytes.data());
  PgQueryDeparseResult result = pg_query_deparse_protobuf(buffer);
  struct Free {
    PgQueryDeparseResult* r;
    ~Free() { pg_query_free_deparse_result(*r); }
  } free_result{&result};
  if (result.error != nullptr || result.query == nullptr) {
    return Status::Invalid("could not write the expression as SQL: {}",
                           result.error != nullptr && result.error->message != nullptr
                               ? result.error->message
                               : "no text");
  }
  const std::string_view text(result.query);
  constexpr std::string_view kPrefix = "SELECT ";
  if (text.substr(0, kPrefix.size()) != kPrefix) {
    return Status::Invalid("could not write the expression as SQL: {}", text);
  }
  return std::string(text.substr(kPrefix.size()));
}

}  // namespace internal

Result<std::shared_ptr<const ParsedExpr>> ParseExpression(const std::string& text) {
  auto parsed = Parse("SELECT " + text);
  if (!parsed.ok()) return parsed.status().WithContext("reading the expression " + text);
  std::vector<std::unique_ptr<Statement>> statements = std::move(parsed).ValueOrDie();
  auto* select = statements.size() == 1 && statements[0]->kind == StatementKind::kSelect
                           ? static_cast<SelectStatement*>(statements[0].get())
                           : nullptr;
  if (select == nullptr || select->select == nullptr || select->select->targets.size() != 1 ||
      !select->select->from.empty() || select->select->set_op != SetOpKind::kNone) {
    return Status::Invalid("not one expression: {}", text);
  }
  return std::shared_ptr<const ParsedExpr>(std::move(select->select->targets[0]));
}

std::string RewritePlaceholders(std::string_view text, int* count) {
  std::string out;
  out.reserve(text.size() + 8);
  *count = 0;
  size_t i = 0;
  const size_t n = text.size();
  auto copy_until = [&](size_t end) {
    out.append(text.substr(i, end - i));
    i = end;
  };
  while (i < n) {
    const char c = text[i];
    if (c == '\'' ) {
      // '...' with '' escapes; E'...' also allows backslash escapes.
      const bool escapes = i > 0 && (text[i - 1] == 'E' || text[i - 1] == 'e');
      size_t j = i + 1;
      while (j < n) {
        if (escapes && text[j] == '\\') {
          j += 2;
          continue;
        }
        if (text[j] == '\'') {
          if (j + 1 < n && text[j + 1] == '\'') {
            j += 2;
            continue;
          }
          break;
        }
        ++j;
      }
      copy_until(std::min(n, j + 1));
    } else if (c == '"') {
      size_t j = i + 1;
      while (j < n) {
        if (text[j] == '"') {
          if (j + 1 < n && text[j + 1] == '"') {
            j += 2;
            continue;
          }
          break;
        }
        ++j;
      }
      copy_until(std::min(n, j + 1));
    } else if (c == '-' && i + 1 < n && text[i + 1] == '-') {
      size_t j = text.find('\n', i);
      copy_until(j == std::string_view::npos ? n : j);
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      int depth = 1;
      size_t j = i + 2;
      while (j < n && depth > 0) {
        if (text[j] == '/' && j + 1 < n && text[j + 1] == '*') {
          ++depth;
          j += 2;
        } else if (text[j] == '*' && j + 1 < n && text[j + 1] == '/') {
          --depth;
          j += 2;
        } else {
          ++j;
        }
      }
      copy_until(j);
    } else if (c == '$') {
      // Dollar quoting: $tag$ ... $tag$ (tag may be empty). A $ followed by
      // digits is a parameter and is copied as is.
      size_t j = i + 1;
      while (j < n && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
      const bool digits_only =
          j > i + 1 && std::all_of(text.begin() + static_cast<long>(i) + 1,
                                   text.begin() + static_cast<long>(j),
                                   [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); });
      if (j < n && text[j] == '$' && !digits_only &&
          (i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '_'))) {
        const std::string_view tag = text.substr(i, j - i + 1);
        const size_t close = text.find(tag, j + 1);
        copy_until(close == std::string_view::npos ? n : close + tag.size());
      } else {
        copy_until(j);
      }
    } else if (c == '?') {
      out += "$" + std::to_string(++*count);
      ++i;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

namespace {

// The LINE n: view of the error position with a caret under it ("" when
// there is no position in `text`).
std::string CaretView(int pos, std::string_view text) {
  if (pos < 0 || static_cast<size_t>(pos) > text.size()) return "";
  // The line holding the position, and its number.
  size_t line_start = 0;
  int line_no = 1;
  for (size_t i = 0; i < static_cast<size_t>(pos); ++i) {
    if (text[i] == '\n') {
      line_start = i + 1;
      ++line_no;
    }
  }
  size_t line_end = text.find('\n', line_start);
  if (line_end == std::string_view::npos) line_end = text.size();
  std::string_view line = text.substr(line_start, line_end - line_start);
  const std::string prefix = "LINE " + std::to_string(line_no) + ": ";
  // Columns count characters, not bytes; tabs stay tabs so the caret lines up.
  std::string pad(prefix.size(), ' ');
  for (size_t i = line_start; i < static_cast<size_t>(pos); ++i) {
    const unsigned char ch = static_cast<unsigned char>(text[i]);
    if ((ch & 0xC0) == 0x80) continue;
    pad += ch == '\t' ? '\t' : ' ';
  }
  return "\n" + prefix + std::string(line) + "\n" + pad + "^";
}

}  // namespace

std::string FormatErrorWithCaret(const Status& status, std::string_view text) {
  std::string out = "ERROR:  " + status.message() + CaretView(status.position(), text);
  if (!status.detail().empty()) out += "\nDETAIL:  " + status.detail();
  if (!status.hint().empty()) out += "\nHINT:  " + status.hint();
  return out;
}

int ErrorCursorPosition(const Status& status, std::string_view text) {
  const int pos = status.position();
  if (pos < 0 || static_cast<size_t>(pos) > text.size()) return 0;
  // PostgreSQL's error cursor: 1-based, in characters (UTF-8 continuation
  // bytes do not count).
  int chars = 1;
  for (size_t i = 0; i < static_cast<size_t>(pos); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++chars;
  }
  return chars;
}

std::string ParsedExpr::ToString() const {
  // PostgreSQL's FigureColname.
  switch (kind) {
    case ExprKind::kColumnRef:
      return names.empty() ? "?column?" : names.back();
    case ExprKind::kStar:
      return "*";
    case ExprKind::kFunction:
      return name;
    case ExprKind::kCast: {
      std::string inner = children.empty() ? "?column?" : children[0]->ToString();
      if (inner != "?column?") return inner;
      return type_name.name;
    }
    case ExprKind::kCase:
      return "case";
    case ExprKind::kCoalesce:
      return "coalesce";
    case ExprKind::kNullIf:
      return "nullif";
    case ExprKind::kGreatest:
      return name;
    case ExprKind::kValueFunction:
      return name;
    case ExprKind::kSubquery:
      if (subquery_kind == SubqueryKind::kExists) return "exists";
      if (subquery_kind == SubqueryKind::kScalar && subquery && !subquery->targets.empty()) {
        if (!subquery->target_aliases.empty() && !subquery->target_aliases[0].empty()) {
          return subquery->target_aliases[0];
        }
        return subquery->targets[0]->ToString();
      }
      return "?column?";
    case ExprKind::kRow:
      return "row";
    case ExprKind::kArray:
      return "array";
    case ExprKind::kSubscript:
      if (name == "field") return text;  // (s).f is named f, as in PostgreSQL
      return children.empty() ? "?column?" : children[0]->ToString();
    default:
      return "?column?";
  }
}

}  // namespace quiver::sql
