// `--db DIR` (else $QUIVER_DB) of `quiver sql` and `quiver serve`: the
// directory whose Iceberg tables the database keeps (storage/iceberg_database.h).
#pragma once

#include <memory>
#include <string>

#include "common/status.h"
#include "engine/database.h"
#include "storage/iceberg_database.h"

namespace quiver::cli {

// Opens the database directory named by `option` or $QUIVER_DB and sets
// `options->storage`; null (and nothing set) when neither names one.
Result<std::shared_ptr<IcebergDatabase>> OpenDatabaseDir(const std::string& option,
                                                         DatabaseOptions* options,
                                                         bool read_only = false);

// Adds the stored tables and views to `db`'s catalog. Views are made again
// from their CREATE VIEW statements (a view over a later view waits for it).
Status LoadDatabase(const std::shared_ptr<IcebergDatabase>& stored, Database* db);

// The help text of --db.
inline constexpr const char* kDbOptionHelp =
    "Keep tables in DIR (Iceberg tables, catalog DIR/catalog.db) across runs; default "
    "$QUIVER_DB, else in memory only";

}  // namespace quiver::cli
