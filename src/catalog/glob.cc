#include "catalog/glob.h"

#include <glob.h>

#include <algorithm>
#include <filesystem>

namespace quiver {

Result<std::vector<std::string>> ExpandPaths(const std::string& pattern) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  if (pattern.find_first_of("*?[") == std::string::npos) {
    if (fs::is_directory(pattern, ec)) {
      for (const auto& e : fs::directory_iterator(pattern, ec)) {
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') {
          out.push_back(e.path().string());
        }
      }
      std::sort(out.begin(), out.end());
      if (out.empty())
        return Status::IOError("directory '{}' holds no files", pattern)
            .WithSqlState(sqlstate::kUndefinedFile);
      return out;
    }
    if (!fs::exists(pattern, ec)) {
      return Status::IOError("could not open file \"{}\": No such file or directory", pattern)
          .WithSqlState(sqlstate::kUndefinedFile);
    }
    out.push_back(pattern);
    return out;
  }
  glob_t g{};
  const int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
  if (rc == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) {
      if (fs::is_regular_file(g.gl_pathv[i], ec)) out.emplace_back(g.gl_pathv[i]);
    }
  }
  globfree(&g);
  if (out.empty())
    return Status::IOError("no files match '{}'", pattern).WithSqlState(sqlstate::kUndefinedFile);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace quiver
