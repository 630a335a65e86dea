#include "common/file_access.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace quiver {
namespace {

std::string RealPath(const std::string& path) {
  std::unique_ptr<char, decltype(&::free)> r(::realpath(path.c_str(), nullptr), &::free);
  return r ? std::string(r.get()) : std::string();
}

std::vector<std::string> SplitComponents(const std::string& path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    if (j > i) out.push_back(path.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

bool Within(const std::string& path, const std::string& dir) {
  if (dir == "/") return true;
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                         path[dir.size()] == '/');
}

}  // namespace

Result<std::string> ResolvePathPrefix(const std::string& raw) {
  std::string path = raw;
  if (path.empty() || path[0] != '/') {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd) == nullptr) {
      return Status::IOError("could not get the current directory: {}", std::strerror(errno));
    }
    path = std::string(cwd) + "/" + path;
  }
  const std::vector<std::string> parts = SplitComponents(path);
  // The longest existing prefix, resolved; then the rest appended.
  std::string resolved = "/";
  size_t i = 0;
  for (size_t n = parts.size(); n > 0; --n) {
    std::string prefix;
    for (size_t k = 0; k < n; ++k) prefix += "/" + parts[k];
    std::string real = RealPath(prefix);
    if (!real.empty()) {
      resolved = real;
      i = n;
      break;
    }
  }
  for (; i < parts.size(); ++i) {
    if (parts[i] == ".") continue;
    if (parts[i] == "..") {
      // Below a name that does not exist: cannot be judged, refuse.
      return Status::Invalid("permission denied for file \"{}\"", raw)
          .WithSqlState(sqlstate::kInsufficientPrivilege);
    }
    if (resolved.back() != '/') resolved += "/";
    resolved += parts[i];
  }
  return resolved;
}

Result<FileAccessPolicy> FileAccessPolicy::Make(const std::vector<std::string>& dirs) {
  FileAccessPolicy p;
  p.restricted_ = true;
  for (const std::string& d : dirs) {
    std::string real = RealPath(d);
    if (real.empty()) {
      return Status::IOError("data directory \"{}\": {}", d, std::strerror(errno));
    }
    p.dirs_.push_back(std::move(real));
  }
  return p;
}

Status FileAccessPolicy::Check(const std::string& path) const {
  if (!restricted_) return Status::OK();
  // A glob is judged by its directory part: the components before the
  // first one holding a wildcard, which must not climb with `..` after it.
  std::string fixed = path;
  const size_t wild = path.find_first_of("*?[");
  if (wild != std::string::npos) {
    const size_t slash = path.rfind('/', wild);
    fixed = slash == std::string::npos ? "." : path.substr(0, slash + 1);
    for (const std::string& part : SplitComponents(path.substr(fixed == "." ? 0 : slash + 1))) {
      if (part == "..")
        return Status::Invalid("permission denied for file \"{}\"", path)
            .WithSqlState(sqlstate::kInsufficientPrivilege);
    }
  }
  auto resolved = ResolvePathPrefix(fixed);
  if (!resolved.ok())
    return Status::Invalid("permission denied for file \"{}\"", path)
        .WithSqlState(sqlstate::kInsufficientPrivilege);
  for (const std::string& dir : dirs_) {
    if (Within(*resolved, dir)) return Status::OK();
  }
  return Status::Invalid("permission denied for file \"{}\"", path)
      .WithSqlState(sqlstate::kInsufficientPrivilege);
}

}  // namespace quiver
