// SqlBackend over an in-process quiver::Database: its catalog holds the
// tables the server lists, creates and ingests into.
#pragma once

#include <memory>

#include "engine/database.h"
#include "server/backend.h"

namespace quiver::server {

std::shared_ptr<SqlBackend> MakeEngineBackend(std::shared_ptr<Database> db);

}  // namespace quiver::server
