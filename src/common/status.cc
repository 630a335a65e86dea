#include "common/status.h"

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
