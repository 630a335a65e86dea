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

}  // namespace

Result<std::vector<std::unique_ptr<Statement>>> Parse(const std::string& text) {
  PgQueryProtobufParseResult result = pg_query_parse_protobuf(text.c_str());
  struct Free {
    PgQueryProtobufParseResult* r;
    ~Free() { pg_query_free_protobuf_parse_result(*r); }
  } free_result{&result};
  if (result.error != nullptr) {
    Status st = Status::Invalid("{}", result.error->message ? result.error->message : "syntax error");
    return st.WithPosition(CharPositionToByte(text, result.error->cursorpos));
  }
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

std::string FormatErrorWithCaret(const Status& status, std::string_view text) {
  std::string out = "ERROR:  " + status.message();
  const int pos = status.position();
  if (pos < 0 || static_cast<size_t>(pos) > text.size()) return out;
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
  out += "\n" + prefix + std::string(line) + "\n" + pad + "^";
  return out;
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
    default:
      return "?column?";
  }
}

}  // namespace quiver::sql
