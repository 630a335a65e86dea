// Splits the text a user types (or pipes) into SQL statements, as psql does:
// a statement ends at a ';' outside string literals ('...', E'...' with
// backslash escapes), quoted identifiers ("..."), dollar quotes
// ($tag$...$tag$) and comments (-- to the end of the line, nested /* */).
//
//   StatementSplitter s;
//   s.Feed("SELECT 'a;b'\n");          // no statement yet: s.state() == kNone,
//   s.Feed("FROM t; SELECT 2");        // s.has_pending() is true
//   s.Next();                          // {"SELECT 'a;b'\nFROM t;", line 1}
//   s.Finish();                        // {"SELECT 2", line 2} at end of input
//
// Line numbers count the lines fed so far (1-based); a statement's line is
// that of its first character that is not blank or part of a comment. Pure:
// no I/O, so the shell's prompts and the piped runner share it.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <string_view>

namespace quiver::cli::shell {

struct SplitStatement {
  std::string text;  // with its ';' (none for Finish()'s last statement)
  int line = 1;      // line of its first token
};

class StatementSplitter {
 public:
  // Where the end of the text fed so far is; the shell shows it in the
  // continuation prompt (quiver'> , quiver(> ...).
  enum class State { kNone, kSingleQuote, kDoubleQuote, kDollarQuote, kBlockComment };

  // Appends text; complete statements become available through Next().
  void Feed(std::string_view text);
  // The next complete statement, in order.
  std::optional<SplitStatement> Next();
  // At the end of the input: the unfinished statement, if it has a token.
  std::optional<SplitStatement> Finish();
  // Forgets the unfinished statement (Ctrl-C at the prompt); line counting
  // goes on.
  void ClearPending();

  // Whether the unfinished statement has a token (not only blanks and
  // comments).
  bool has_pending() const { return pending_has_token_; }
  const std::string& pending() const { return pending_; }
  State state() const { return state_; }
  // Open parentheses in the unfinished statement.
  int paren_depth() const { return paren_depth_; }
  // Lines fed so far (the number of the line being fed).
  int line() const { return line_; }

 private:
  void EndStatement();

  std::string pending_;
  size_t scan_ = 0;  // pending_[0, scan_) is scanned
  bool pending_has_token_ = false;
  int pending_line_ = 1;
  State state_ = State::kNone;
  bool escape_string_ = false;  // inside E'...': backslash escapes the next char
  bool line_comment_ = false;
  int comment_depth_ = 0;
  int paren_depth_ = 0;
  std::string dollar_tag_;  // "$tag$" while inside a dollar quote
  int line_ = 1;
  std::deque<SplitStatement> done_;
};

// Whether the statement has a token outside comments (a statement of only
// comments is skipped rather than sent to the engine).
bool HasToken(std::string_view sql);

}  // namespace quiver::cli::shell
