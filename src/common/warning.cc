#include "common/warning.h"

#include <cstdio>
#include <mutex>

namespace quiver {
namespace {

std::mutex& Mu() {
  static std::mutex mu;
  return mu;
}

WarningHandler& Handler() {
  static WarningHandler handler;
  return handler;
}

}  // namespace

void SetWarningHandler(WarningHandler handler) {
  std::lock_guard<std::mutex> lock(Mu());
  Handler() = std::move(handler);
}

void EmitWarning(const std::string& message) {
  std::lock_guard<std::mutex> lock(Mu());
  if (Handler()) {
    Handler()(message);
  } else {
    std::fprintf(stderr, "WARNING:  %s\n", message.c_str());
  }
}

}  // namespace quiver
