// Status and Result<T>: Quiver's error currency. No exceptions cross module
// boundaries; every fallible function returns one of these.
//
// A Status carries a code and a message that says what went wrong and where
// (file, byte offset, line, column, SQL position). Messages for features we do
// not implement start with "unsupported: " (Status::Unsupported).
//
// Errors a SQL client sees also carry PostgreSQL's SQLSTATE (set where the
// error is raised: .WithSqlState(sqlstate::kUndefinedColumn)), and may carry
// a DETAIL and a HINT line, as PostgreSQL's ErrorResponse does. They live in
// the shared error state, so an OK Status stays one null pointer.
#pragma once

#include <cassert>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace quiver {

enum class StatusCode : int8_t {
  kOk = 0,
  kInvalid,          // malformed input or bad arguments
  kIOError,          // the OS or a file failed us
  kNotImplemented,   // a valid input we do not support (yet)
  kOutOfMemory,
  kTypeError,
  kIndexError,
  kKeyError,
  kCancelled,
  kUnknown,
};

// PostgreSQL's SQLSTATE codes (Appendix A of its manual) that Quiver raises.
namespace sqlstate {
inline constexpr const char* kSuccessfulCompletion = "00000";
inline constexpr const char* kFeatureNotSupported = "0A000";
inline constexpr const char* kProtocolViolation = "08P01";
inline constexpr const char* kCardinalityViolation = "21000";
inline constexpr const char* kNullValueNotAllowed = "22004";
inline constexpr const char* kStringDataRightTruncation = "22001";
inline constexpr const char* kNumericValueOutOfRange = "22003";
inline constexpr const char* kInvalidDatetimeFormat = "22007";
inline constexpr const char* kDatetimeFieldOverflow = "22008";
inline constexpr const char* kInvalidTimeZoneDisplacementValue = "22009";
inline constexpr const char* kDivisionByZero = "22012";
inline constexpr const char* kInvalidPrecedingOrFollowingSize = "22013";
inline constexpr const char* kInvalidArgumentForNtile = "22014";
inline constexpr const char* kInvalidArgumentForNthValue = "22016";
inline constexpr const char* kInvalidArgumentForLogarithm = "2201E";
inline constexpr const char* kInvalidArgumentForPowerFunction = "2201F";
inline constexpr const char* kInvalidRowCountInLimitClause = "2201W";
inline constexpr const char* kInvalidRowCountInResultOffsetClause = "2201X";
inline constexpr const char* kInvalidParameterValue = "22023";
inline constexpr const char* kSubstringError = "22011";
inline constexpr const char* kInvalidRegularExpression = "2201B";
inline constexpr const char* kInvalidEscapeSequence = "22025";
inline constexpr const char* kInvalidTextRepresentation = "22P02";
inline constexpr const char* kInvalidBinaryRepresentation = "22P03";
inline constexpr const char* kBadCopyFileFormat = "22P04";
inline constexpr const char* kNotNullViolation = "23502";
inline constexpr const char* kUniqueViolation = "23505";
inline constexpr const char* kCheckViolation = "23514";
inline constexpr const char* kActiveSqlTransaction = "25001";
inline constexpr const char* kReadOnlySqlTransaction = "25006";
inline constexpr const char* kNoActiveSqlTransaction = "25P01";
inline constexpr const char* kInvalidAuthorizationSpecification = "28000";
inline constexpr const char* kInvalidPassword = "28P01";
inline constexpr const char* kSyntaxError = "42601";
inline constexpr const char* kInvalidSqlStatementName = "26000";
inline constexpr const char* kInsufficientPrivilege = "42501";
inline constexpr const char* kGroupingError = "42803";
inline constexpr const char* kWindowingError = "42P20";
inline constexpr const char* kInvalidRecursion = "42P19";
inline constexpr const char* kInvalidForeignKey = "42830";
inline constexpr const char* kDatatypeMismatch = "42804";
inline constexpr const char* kWrongObjectType = "42809";
inline constexpr const char* kCannotCoerce = "42846";
inline constexpr const char* kUndefinedFunction = "42883";
inline constexpr const char* kUndefinedColumn = "42703";
inline constexpr const char* kUndefinedTable = "42P01";
inline constexpr const char* kUndefinedParameter = "42P02";
inline constexpr const char* kUndefinedObject = "42704";
inline constexpr const char* kInvalidSchemaName = "3F000";
inline constexpr const char* kDuplicateColumn = "42701";
inline constexpr const char* kDuplicateTable = "42P07";
inline constexpr const char* kDuplicateObject = "42710";
inline constexpr const char* kDuplicateAlias = "42712";
inline constexpr const char* kAmbiguousColumn = "42702";
inline constexpr const char* kAmbiguousFunction = "42725";
inline constexpr const char* kInvalidColumnReference = "42P10";
inline constexpr const char* kInvalidTableDefinition = "42P16";
inline constexpr const char* kIndeterminateDatatype = "42P18";
inline constexpr const char* kTooManyConnections = "53300";
inline constexpr const char* kOutOfMemory = "53200";
inline constexpr const char* kProgramLimitExceeded = "54000";
inline constexpr const char* kStatementTooComplex = "54001";
inline constexpr const char* kQueryCanceled = "57014";
inline constexpr const char* kIoError = "58030";
inline constexpr const char* kUndefinedFile = "58P01";
inline constexpr const char* kInternalError = "XX000";
inline constexpr const char* kDataCorrupted = "XX001";
}  // namespace sqlstate

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : state_(code == StatusCode::kOk ? nullptr
                                       : std::make_shared<State>(code, std::move(message))) {}

  static Status OK() { return Status(); }

#define QUIVER_STATUS_FACTORY(NAME, CODE)                                      \
  template <typename... Args>                                                  \
  static Status NAME(fmt::format_string<Args...> f, Args&&... args) {          \
    return Status(StatusCode::CODE, fmt::format(f, std::forward<Args>(args)...)); \
  }
  QUIVER_STATUS_FACTORY(Invalid, kInvalid)
  QUIVER_STATUS_FACTORY(IOError, kIOError)
  QUIVER_STATUS_FACTORY(NotImplemented, kNotImplemented)
  QUIVER_STATUS_FACTORY(OutOfMemory, kOutOfMemory)
  QUIVER_STATUS_FACTORY(TypeError, kTypeError)
  QUIVER_STATUS_FACTORY(IndexError, kIndexError)
  QUIVER_STATUS_FACTORY(KeyError, kKeyError)
  QUIVER_STATUS_FACTORY(Cancelled, kCancelled)
  QUIVER_STATUS_FACTORY(UnknownError, kUnknown)
#undef QUIVER_STATUS_FACTORY

  // A valid input that Quiver does not handle: message "unsupported: <what>".
  template <typename... Args>
  static Status Unsupported(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kNotImplemented,
                  "unsupported: " + fmt::format(f, std::forward<Args>(args)...));
  }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  const std::string& message() const { return state_ ? state_->message : EmptyString(); }
  bool IsInvalid() const { return code() == StatusCode::kInvalid; }
  bool IsIOError() const { return code() == StatusCode::kIOError; }
  bool IsNotImplemented() const { return code() == StatusCode::kNotImplemented; }

  // "Invalid: message" style rendering for humans.
  std::string ToString() const;
  static const char* CodeName(StatusCode code);

  // Returns a copy whose message is prefixed with `context + ": "`, so callers
  // can say where an error happened ("data.csv: line 12: ..."). The
  // position, SQLSTATE, DETAIL and HINT stay.
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    Status s = Copy();
    s.mutable_state()->message = context + ": " + message();
    return s;
  }

  // Errors about SQL text carry the 0-based byte offset of the offending
  // token in the statement (-1: none), like PostgreSQL's error cursor.
  int position() const { return state_ ? state_->position : -1; }
  Status WithPosition(int position) const {
    if (ok() || position < 0) return *this;
    Status s = Copy();
    s.mutable_state()->position = position;
    return s;
  }

  // The SQLSTATE given where the error was raised ("" when none was).
  std::string_view sql_state() const {
    return state_ && state_->sqlstate[0] != '\0' ? std::string_view(state_->sqlstate, 5)
                                                 : std::string_view();
  }
  // The SQLSTATE a client is told: the one given, else the class that
  // PostgreSQL itself uses for such an error (DefaultSqlState).
  std::string_view SqlState() const {
    if (!sql_state().empty()) return sql_state();
    return DefaultSqlState(code());
  }
  // For an error Status: the same error with this SQLSTATE (five characters
  // of 0-9 and A-Z; anything else is ignored, asserted in debug builds).
  Status WithSqlState(std::string_view code) const;
  // Only sets the code when none was given at the source, so a caller can
  // classify an error without overriding a more specific code.
  Status WithDefaultSqlState(std::string_view code) const {
    return sql_state().empty() ? WithSqlState(code) : *this;
  }
  // PostgreSQL's code for an error of this StatusCode whose source set none:
  // kNotImplemented 0A000, kOutOfMemory 53200, kCancelled 57014, kIOError
  // 58030, kTypeError 42804, kKeyError 42704, and XX000 (internal_error, what
  // PostgreSQL reports for an error raised without a code) for the rest.
  static std::string_view DefaultSqlState(StatusCode code);

  // PostgreSQL's DETAIL and HINT lines ("" when absent).
  const std::string& detail() const { return state_ ? state_->detail : EmptyString(); }
  const std::string& hint() const { return state_ ? state_->hint : EmptyString(); }
  Status WithDetail(std::string detail) const {
    if (ok()) return *this;
    Status s = Copy();
    s.mutable_state()->detail = std::move(detail);
    return s;
  }
  Status WithHint(std::string hint) const {
    if (ok()) return *this;
    Status s = Copy();
    s.mutable_state()->hint = std::move(hint);
    return s;
  }

 private:
  struct State {
    State(StatusCode c, std::string m) : code(c), message(std::move(m)) {}
    StatusCode code;
    std::string message;
    int position = -1;
    char sqlstate[6] = {0, 0, 0, 0, 0, 0};  // "" or five characters
    std::string detail;
    std::string hint;
  };
  static const std::string& EmptyString() {
    static const std::string kEmpty;
    return kEmpty;
  }
  // A copy with its own state, so that changing it leaves shared copies be.
  // REQUIRES: !ok().
  Status Copy() const {
    Status s;
    s.state_ = std::make_shared<State>(*state_);
    return s;
  }
  State* mutable_state() { return const_cast<State*>(state_.get()); }  // only on a Copy()
  std::shared_ptr<const State> state_;
};

namespace internal {
// Prints "ValueOrDie on an error result: <status>" to stderr and aborts.
[[noreturn]] void DieOnErrorResult(const Status& status);
}  // namespace internal

// Either a value or an error Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT(implicit)
  Result(Status status) : status_(std::move(status)) {  // NOLINT(implicit)
    assert(!status_.ok() && "Result constructed from an OK status");
    if (status_.ok()) status_ = Status::UnknownError("Result built from OK status");
  }
  template <typename U,
            typename = std::enable_if_t<std::is_convertible_v<U, T> && !std::is_same_v<U, T>>>
  Result(Result<U>&& other) {  // NOLINT(implicit)
    if (other.ok()) {
      value_.emplace(std::move(other).ValueOrDie());
    } else {
      status_ = other.status();
    }
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  // The value; an error here is a bug in the caller, so it aborts with the
  // status message in every build (not only where asserts are on) rather than
  // reading an empty optional.
  const T& ValueOrDie() const& {
    if (!ok()) [[unlikely]] {
      internal::DieOnErrorResult(status_);
    }
    return *value_;
  }
  T& ValueOrDie() & {
    if (!ok()) [[unlikely]] {
      internal::DieOnErrorResult(status_);
    }
    return *value_;
  }
  T ValueOrDie() && {
    if (!ok()) [[unlikely]] {
      internal::DieOnErrorResult(status_);
    }
    return std::move(*value_);
  }
  // The value without a check. REQUIRES: ok().
  T MoveValueUnsafe() { return std::move(*value_); }
  const T& operator*() const& { return *value_; }
  T& operator*() & { return *value_; }
  const T* operator->() const { return &*value_; }
  T* operator->() { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

namespace internal {
inline Status GenericToStatus(const Status& s) { return s; }
template <typename T>
inline Status GenericToStatus(const Result<T>& r) {
  return r.status();
}
}  // namespace internal

}  // namespace quiver

#define QUIVER_CONCAT_IMPL(x, y) x##y
#define QUIVER_CONCAT(x, y) QUIVER_CONCAT_IMPL(x, y)

#define QUIVER_RETURN_NOT_OK(expr)                                       \
  do {                                                                   \
    ::quiver::Status _qv_st = ::quiver::internal::GenericToStatus(expr); \
    if (!_qv_st.ok()) return _qv_st;                                     \
  } while (false)

#define QUIVER_ASSIGN_OR_RAISE_IMPL(result_name, lhs, rexpr) \
  auto&& result_name = (rexpr);                              \
  if (!result_name.ok()) return result_name.status();        \
  lhs = std::move(result_name).ValueOrDie();

// QUIVER_ASSIGN_OR_RAISE(auto x, MakeX()); or QUIVER_ASSIGN_OR_RAISE(x, MakeX());
#define QUIVER_ASSIGN_OR_RAISE(lhs, rexpr) \
  QUIVER_ASSIGN_OR_RAISE_IMPL(QUIVER_CONCAT(_qv_result_, __COUNTER__), lhs, rexpr)
