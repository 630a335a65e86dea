// The files a table path names: one file, a directory's files or a glob.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace quiver {

// Expands `pattern` into sorted file paths: a file, a directory's regular
// files, or a glob (* ? [..] in the last components). Error when nothing
// matches ("no files match 'x/*.arrow'").
Result<std::vector<std::string>> ExpandPaths(const std::string& pattern);

}  // namespace quiver
