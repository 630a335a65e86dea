// Status and Result<T>: Quiver's error currency. No exceptions cross module
// boundaries; every fallible function returns one of these.
//
// A Status carries a code and a message that says what went wrong and where
// (file, byte offset, line, column, SQL position). Messages for features we do
// not implement start with "unsupported: " (Status::Unsupported).
#pragma once

#include <fmt/format.h>

#include <cassert>
#include <memory>
#include <optional>
#include <string>
#include <utility>

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

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : state_(code == StatusCode::kOk
                   ? nullptr
                   : std::make_shared<State>(State{code, std::move(message), -1})) {}

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
  const std::string& message() const {
    static const std::string kEmpty;
    return state_ ? state_->message : kEmpty;
  }
  bool IsInvalid() const { return code() == StatusCode::kInvalid; }
  bool IsIOError() const { return code() == StatusCode::kIOError; }
  bool IsNotImplemented() const { return code() == StatusCode::kNotImplemented; }

  // "Invalid: message" style rendering for humans.
  std::string ToString() const;
  static const char* CodeName(StatusCode code);

  // Returns a copy whose message is prefixed with `context + ": "`, so callers
  // can say where an error happened ("data.csv: line 12: ...").
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    Status s(code(), context + ": " + message());
    return s.WithPosition(position());
  }

  // Errors about SQL text carry the 0-based byte offset of the offending
  // token in the statement (-1: none), like PostgreSQL's error cursor.
  int position() const { return state_ ? state_->position : -1; }
  Status WithPosition(int position) const {
    if (ok() || position < 0) return *this;
    Status s(code(), message());
    const_cast<State*>(s.state_.get())->position = position;  // fresh, unshared state
    return s;
  }

 private:
  struct State {
    StatusCode code;
    std::string message;
    int position = -1;
  };
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
