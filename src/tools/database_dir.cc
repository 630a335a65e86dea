#include "tools/database_dir.h"

#include <cstdlib>

namespace quiver::cli {

Result<std::shared_ptr<IcebergDatabase>> OpenDatabaseDir(const std::string& option,
                                                         DatabaseOptions* options) {
  std::string dir = option;
  if (dir.empty()) {
    const char* env = std::getenv("QUIVER_DB");
    if (env != nullptr) dir = env;
  }
  if (dir.empty()) return std::shared_ptr<IcebergDatabase>();
  QUIVER_ASSIGN_OR_RAISE(auto db, IcebergDatabase::Open(dir));
  options->storage = db;
  return db;
}

}  // namespace quiver::cli
