#include "common/status.h"

#include <cassert>
#include <cstdio>
#include <cstdlib>

namespace quiver {

const char* Status::CodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalid: return "Invalid";
    case StatusCode::kIOError: return "IOError";
    case StatusCode::kNotImplemented: return "NotImplemented";
    case StatusCode::kOutOfMemory: return "OutOfMemory";
    case StatusCode::kTypeError: return "TypeError";
    case StatusCode::kIndexError: return "IndexError";
    case StatusCode::kKeyError: return "KeyError";
    case StatusCode::kCancelled: return "Cancelled";
    case StatusCode::kUnknown: return "Unknown";
  }
  return "Unknown";
}

Status Status::WithSqlState(std::string_view code) const {
  if (ok()) return *this;
  bool valid = code.size() == 5;
  for (char c : code) valid = valid && ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z'));
  assert(valid && "SQLSTATE must be five characters 0-9A-Z");
  if (!valid) return *this;
  Status s = Copy();
  code.copy(s.mutable_state()->sqlstate, 5);
  return s;
}

std::string_view Status::DefaultSqlState(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return sqlstate::kSuccessfulCompletion;
    case StatusCode::kNotImplemented:
      return sqlstate::kFeatureNotSupported;
    case StatusCode::kOutOfMemory:
      return sqlstate::kOutOfMemory;
    case StatusCode::kCancelled:
      return sqlstate::kQueryCanceled;
    case StatusCode::kIOError:
      return sqlstate::kIoError;
    case StatusCode::kTypeError:
      return sqlstate::kDatatypeMismatch;
    case StatusCode::kKeyError:
      return sqlstate::kUndefinedObject;
    case StatusCode::kInvalid:
    case StatusCode::kIndexError:
    case StatusCode::kUnknown:
      return sqlstate::kInternalError;
  }
  return sqlstate::kInternalError;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(CodeName(code())) + ": " + message();
}

namespace internal {

void DieOnErrorResult(const Status& status) {
  std::fprintf(stderr, "quiver: ValueOrDie on an error result: %s\n", status.ToString().c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace internal

}  // namespace quiver
