#include "tools/shell/statement_splitter.h"

#include <cctype>

namespace quiver::cli::shell {
namespace {

bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}

// The dollar-quote delimiter starting at text[i] ("$$", "$tag$"), or empty
// when there is none there. *incomplete: the text ends before it could tell.
std::string DollarTag(std::string_view text, size_t i, bool* incomplete) {
  *incomplete = false;
  size_t j = i + 1;
  if (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) return "";  // $1
  while (j < text.size() && text[j] != '$') {
    const char c = text[j];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
          static_cast<unsigned char>(c) >= 0x80)) {
      return "";
    }
    ++j;
  }
  if (j >= text.size()) {
    *incomplete = true;
    return "";
  }
  return std::string(text.substr(i, j - i + 1));
}

}  // namespace

void StatementSplitter::Feed(std::string_view text) {
  pending_.append(text);
  // Scans from where the last Feed stopped. A construct that needs the next
  // character to be recognised ('' in a literal, -- , /*, $tag$) waits for
  // more text when it is at the end: lines are fed whole, so this is rare.
  const std::string& s = pending_;
  size_t i = scan_;
  auto token = [&]() {
    if (!pending_has_token_) {
      pending_has_token_ = true;
      pending_line_ = line_;
    }
  };
  while (i < s.size()) {
    const char c = s[i];
    const bool has_next = i + 1 < s.size();
    const char next = has_next ? s[i + 1] : '\0';
    if (line_comment_) {
      if (c == '\n') {
        line_comment_ = false;
        ++line_;
      }
      ++i;
      continue;
    }
    if (c == '\n') ++line_;
    switch (state_) {
      case State::kBlockComment:
        if (c == '*' || c == '/') {
          if (!has_next) goto wait;
          if (c == '*' && next == '/') {
            if (--comment_depth_ == 0) state_ = State::kNone;
            i += 2;
            continue;
          }
          if (c == '/' && next == '*') {
            ++comment_depth_;
            i += 2;
            continue;
          }
        }
        ++i;
        continue;
      case State::kSingleQuote:
        if (escape_string_ && c == '\\') {
          if (!has_next) goto wait;
          if (next == '\n') ++line_;
          i += 2;
          continue;
        }
        if (c == '\'') {
          if (!has_next) goto wait;
          if (next == '\'') {
            i += 2;
            continue;
          }
          state_ = State::kNone;
        }
        ++i;
        continue;
      case State::kDoubleQuote:
        if (c == '"') {
          if (!has_next) goto wait;
          if (next == '"') {
            i += 2;
            continue;
          }
          state_ = State::kNone;
        }
        ++i;
        continue;
      case State::kDollarQuote:
        if (c == '$') {
          if (s.size() - i < dollar_tag_.size()) goto wait;
          if (s.compare(i, dollar_tag_.size(), dollar_tag_) == 0) {
            i += dollar_tag_.size();
            state_ = State::kNone;
            dollar_tag_.clear();
            continue;
          }
        }
        ++i;
        continue;
      case State::kNone:
        break;
    }
    // Outside quotes and comments.
    if (c == '-' || c == '/') {
      if (!has_next) goto wait;
      if (c == '-' && next == '-') {
        line_comment_ = true;
        i += 2;
        continue;
      }
      if (c == '/' && next == '*') {
        state_ = State::kBlockComment;
        comment_depth_ = 1;
        i += 2;
        continue;
      }
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == ';') {
      scan_ = i + 1;
      EndStatement();
      i = 0;  // pending_ now holds only what followed the ';'
      continue;
    }
    token();
    if (c == '\'') {
      // E'...' (not part of a longer name such as "table'"): backslash escapes.
      escape_string_ = i > 0 && (s[i - 1] == 'E' || s[i - 1] == 'e') &&
                       (i < 2 || !IsIdentChar(s[i - 2]));
      state_ = State::kSingleQuote;
    } else if (c == '"') {
      state_ = State::kDoubleQuote;
    } else if (c == '$' && (i == 0 || !IsIdentChar(s[i - 1]))) {
      bool incomplete = false;
      std::string tag = DollarTag(s, i, &incomplete);
      if (incomplete) goto wait;
      if (!tag.empty()) {
        dollar_tag_ = std::move(tag);
        state_ = State::kDollarQuote;
        i += dollar_tag_.size();
        continue;
      }
    } else if (c == '(') {
      ++paren_depth_;
    } else if (c == ')') {
      if (paren_depth_ > 0) --paren_depth_;
    }
    ++i;
  }
wait:
  scan_ = i;
}

void StatementSplitter::EndStatement() {
  if (pending_has_token_) {
    done_.push_back(SplitStatement{pending_.substr(0, scan_), pending_line_});
    // Leading blanks and comments stay out of the statement's text.
    std::string& t = done_.back().text;
    const size_t first = t.find_first_not_of(" \t\r\n");
    if (first != std::string::npos) t.erase(0, first);
  }
  pending_.erase(0, scan_);
  scan_ = 0;
  pending_has_token_ = false;
  paren_depth_ = 0;
}

std::optional<SplitStatement> StatementSplitter::Next() {
  if (done_.empty()) return std::nullopt;
  SplitStatement s = std::move(done_.front());
  done_.pop_front();
  return s;
}

std::optional<SplitStatement> StatementSplitter::Finish() {
  // What waited for a next character is complete now.
  std::optional<SplitStatement> out;
  if (pending_has_token_) {
    out = SplitStatement{pending_, pending_line_};
    const size_t first = out->text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos) out->text.erase(0, first);
    const size_t last = out->text.find_last_not_of(" \t\r\n");
    out->text.erase(last + 1);
  }
  ClearPending();
  return out;
}

void StatementSplitter::ClearPending() {
  pending_.clear();
  scan_ = 0;
  pending_has_token_ = false;
  paren_depth_ = 0;
  state_ = State::kNone;
  escape_string_ = false;
  line_comment_ = false;
  comment_depth_ = 0;
  dollar_tag_.clear();
}

bool HasToken(std::string_view sql) {
  StatementSplitter s;
  s.Feed(sql);
  s.Feed("\n");
  if (auto st = s.Next()) return true;
  return s.has_pending();
}

}  // namespace quiver::cli::shell
