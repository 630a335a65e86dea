// Which files a statement may read or write: a server confines them to its
// data directories (`quiver serve --data DIR`), so a client cannot read
// /etc/passwd through read_csv or overwrite files with COPY TO.
//
// A path is judged by where it really leads: the longest prefix of it that
// exists is resolved with realpath (symlinks and `..` followed), the rest
// (names that do not exist yet, e.g. a COPY TO target) must not climb with
// `..`. A glob is judged by its directory part; the binder also checks every
// file it expands to (a symlink inside a data directory pointing outside is
// refused).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace quiver {

class FileAccessPolicy {
 public:
  // Unrestricted.
  FileAccessPolicy() = default;
  // Only files under `dirs` (each must exist; resolved now).
  static Result<FileAccessPolicy> Make(const std::vector<std::string>& dirs);

  bool restricted() const { return restricted_; }
  const std::vector<std::string>& dirs() const { return dirs_; }

  // OK, or "permission denied for file \"<path>\"" when `path` (a file, a
  // directory or a glob) leads outside the directories.
  Status Check(const std::string& path) const;

 private:
  bool restricted_ = false;
  std::vector<std::string> dirs_;  // resolved, without a trailing '/'
};

// `path` with symlinks and `..` resolved as far as it exists (see above);
// error when a non-existing part climbs with `..`.
Result<std::string> ResolvePathPrefix(const std::string& path);

}  // namespace quiver
