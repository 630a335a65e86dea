#include "tools/database_dir.h"

#include <cstdlib>

#include "engine/table_definition.h"

namespace quiver::cli {

Result<std::shared_ptr<IcebergDatabase>> OpenDatabaseDir(const std::string& option,
                                                         DatabaseOptions* options,
                                                         bool read_only) {
  std::string dir = option;
  if (dir.empty()) {
    const char* env = std::getenv("QUIVER_DB");
    if (env != nullptr) dir = env;
  }
  if (dir.empty()) return std::shared_ptr<IcebergDatabase>();
  QUIVER_ASSIGN_OR_RAISE(auto db, IcebergDatabase::Open(dir, read_only));
  db->set_sequence_factory(MakeColumnSequence);
  options->storage = db;
  return db;
}

Status LoadDatabase(const std::shared_ptr<IcebergDatabase>& stored, Database* db) {
  QUIVER_RETURN_NOT_OK(stored->LoadInto(db->catalog()));
  QUIVER_ASSIGN_OR_RAISE(auto views, stored->ViewStatements());
  stored->set_loading(true);
  Status st;
  while (!views.empty()) {
    std::vector<std::pair<std::string, std::string>> failed;
    for (auto& v : views) {
      auto r = db->Execute(v.second);
      if (!r.ok()) {
        st = r.status().WithContext(fmt::format("opening view \"{}\" of {}", v.first, stored->dir()));
        failed.push_back(std::move(v));
      }
    }
    if (failed.size() == views.size()) break;  // no progress: report the last error
    views = std::move(failed);
    if (views.empty()) st = Status::OK();
  }
  stored->set_loading(false);
  return views.empty() ? Status::OK() : st;
}

}  // namespace quiver::cli
