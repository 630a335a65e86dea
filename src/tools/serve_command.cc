// quiver serve: an Arrow Flight SQL server over an in-process database.
//
//   quiver serve                              the demo data set on 127.0.0.1:31337
//   quiver serve --data ~/lake --port 4000    every file in ~/lake as a table
//
// Files in each --data directory (Arrow, Parquet, CSV; and directories of
// them) become tables named after them ("trips.parquet" -> trips), and
// queries may read and write files only inside those directories. Tables
// created or ingested through the server live in its in-memory catalog.
//
// quiver passwd --users FILE NAME: adds NAME with a hashed password (read
// from --password-env VAR or standard input) to a users file for --users.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "catalog/catalog.h"
#include "common/file_access.h"
#include "common/memory_size.h"
#include "engine/database.h"
#include "formats/file_format.h"
#include "server/auth.h"
#include "server/engine_backend.h"
#include "server/flight_server.h"
#include "tools/commands.h"
#include "tools/database_dir.h"
#include "tools/demo_data.h"

namespace quiver::cli {
namespace {

struct ServeArgs {
  std::vector<std::string> data;
  std::string host = "127.0.0.1";
  int port = 31337;
  std::string tls_cert, tls_key, tls_client_ca;
  std::string users_file;
  std::string user;
  std::string password_env;
  bool read_only = false;
  double query_timeout = 0;
  std::string memory_limit;
  int max_connections = 0;
  double token_ttl = 3600;
  int64_t max_batch_rows = int64_t{1} << 20;
  int endpoints = 1;
  std::string batch_bytes;
  int64_t demo_rows = 100000;
  int threads = 0;
  bool verbose = false;
  std::string db_dir;  // --db
};

std::string TableNameFor(const std::filesystem::path& path) {
  std::string name = path.filename().string();
  const size_t dot = name.find('.');
  if (dot != std::string::npos && dot > 0) name = name.substr(0, dot);
  return name;
}

// Why `path` may not become a table: it (or, for a directory, a file in it)
// leads outside the data directories through a symlink. Queries are refused
// such files by the policy; serving them as tables would leak them anyway.
Status CheckInsideDataDirectories(const FileAccessPolicy& policy,
                                  const std::filesystem::path& path) {
  QUIVER_RETURN_NOT_OK(policy.Check(path.string()));
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return Status::OK();
  for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    QUIVER_RETURN_NOT_OK(policy.Check(it->path().string()));
  }
  if (ec) return Status::IOError("{}: {}", path.string(), ec.message());
  return Status::OK();
}

// Registers the files (and directories of files) in `dir` as tables.
Status AddDataDirectory(Database* db, const std::string& dir, const FileAccessPolicy& policy,
                        std::vector<std::string>* names) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return Status::Invalid("--data {}: not a directory", dir);
  }
  std::vector<std::filesystem::path> entries;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) entries.push_back(e.path());
  if (ec) return Status::IOError("--data {}: {}", dir, ec.message());
  std::sort(entries.begin(), entries.end());
  for (const auto& path : entries) {
    const bool is_dir = std::filesystem::is_directory(path, ec);
    if (!is_dir && formats::FormatFromExtension(path.string()) == formats::FileFormat::kAuto) {
      continue;
    }
    std::string name = TableNameFor(path);
    if (name.empty() || name[0] == '.') continue;
    if (Status inside = CheckInsideDataDirectories(policy, path); !inside.ok()) {
      std::fprintf(stderr, "quiver serve: skipping %s: %s\n", path.c_str(),
                   inside.message().c_str());
      continue;
    }
    if (db->catalog()->Lookup(name) != nullptr) {
      // readings.arrow and readings.zstd.arrow: the second keeps its full name.
      name = path.filename().string();
      for (char& c : name) {
        if (c == '.' || c == '-' || c == ' ') c = '_';
      }
      if (db->catalog()->Lookup(name) != nullptr) continue;
    }
    auto table = FileTable::Open(name, path.string());
    if (!table.ok()) {
      std::fprintf(stderr, "quiver serve: skipping %s: %s\n", path.c_str(),
                   table.status().message().c_str());
      continue;
    }
    QUIVER_RETURN_NOT_OK(db->catalog()->CreateTable(name, *table));
    names->push_back(name);
  }
  return Status::OK();
}

Status AddDemoTables(Database* db, int64_t rows) {
  QUIVER_ASSIGN_OR_RAISE(auto batches, GenerateDemoReadings(rows, 16384, 42));
  // The catalog holds engine types (the status dictionary becomes text).
  std::vector<FieldRef> fields;
  const SchemaRef demo_schema = DemoReadingsSchema();
  for (const auto& f : demo_schema->fields) {
    QUIVER_ASSIGN_OR_RAISE(TypeRef t, ToEngineType(f->type));
    fields.push_back(field(f->name, t, f->nullable));
  }
  const SchemaRef engine_schema = schema(std::move(fields));
  auto table = std::make_shared<MemoryTable>("readings", engine_schema);
  std::vector<RecordBatchRef> converted;
  for (const auto& b : batches) {
    QUIVER_ASSIGN_OR_RAISE(auto c, ToEngineBatch(b, engine_schema, DefaultMemoryPool()));
    converted.push_back(std::move(c));
  }
  QUIVER_RETURN_NOT_OK(table->Append(std::move(converted)));
  return db->catalog()->CreateTable("readings", table);
}

std::string Banner(const server::FlightServer& server, const ServeArgs& args,
                   const std::vector<std::string>& tables) {
  const std::string uri = server.uri();
  std::string out = fmt::format("Quiver Flight SQL server listening on {}\n", uri);
  if (!tables.empty()) {
    std::string list;
    for (size_t i = 0; i < tables.size() && i < 20; ++i) list += (i ? ", " : "") + tables[i];
    if (tables.size() > 20) list += fmt::format(", ... ({} tables)", tables.size());
    out += "tables: " + list + "\n";
  }
  const bool auth = !args.users_file.empty() || !args.user.empty();
  const std::string query = args.data.empty()
                                ? "SELECT sensor_id, avg(temperature) AS avg_temp FROM readings "
                                  "GROUP BY sensor_id ORDER BY sensor_id LIMIT 5"
                                : "SELECT 42 AS answer";
  out += "\nPython (pip install adbc-driver-flightsql pyarrow pandas):\n\n";
  out += "    import adbc_driver_flightsql.dbapi as flight_sql\n";
  if (auth) {
    out += fmt::format(
        "    conn = flight_sql.connect(\"{}\", db_kwargs={{\"username\": \"{}\", \"password\": "
        "\"...\"}})\n",
        uri, args.user.empty() ? "NAME" : args.user);
  } else {
    out += fmt::format("    conn = flight_sql.connect(\"{}\")\n", uri);
  }
  out += "    cur = conn.cursor()\n";
  out += fmt::format("    cur.execute(\"{}\")\n", query);
  out += "    print(cur.fetch_arrow_table())\n";
  out += fmt::format("\nJDBC: jdbc:arrow-flight-sql://{}:{}{}\n",
                     args.host == "0.0.0.0" ? "localhost" : args.host, server.port(),
                     args.tls_cert.empty() ? "?useEncryption=false" : "");
  out += "Stop with Ctrl-C.\n";
  return out;
}

Status RunServe(const ServeArgs& args) {
  server::FlightServerOptions options;
  // Files are read and written only under --data; without it (the demo,
  // whose table is in memory) not at all.
  options.confine_files = true;
  options.host = args.host;
  options.port = args.port;
  options.tls_cert = args.tls_cert;
  options.tls_key = args.tls_key;
  options.tls_client_ca = args.tls_client_ca;
  options.read_only = args.read_only;
  options.max_connections = args.max_connections;
  options.max_batch_rows = args.max_batch_rows;
  options.endpoints = args.endpoints;
  if (!args.batch_bytes.empty()) {
    QUIVER_ASSIGN_OR_RAISE(options.batch_bytes, ParseMemorySize(args.batch_bytes));
    if (options.batch_bytes < 1) return Status::Invalid("--batch-bytes must be positive");
  }
  options.verbose = args.verbose;
  options.token_ttl = std::chrono::seconds(static_cast<int64_t>(args.token_ttl));
  options.query_timeout =
      std::chrono::milliseconds(static_cast<int64_t>(args.query_timeout * 1000));
  if (!args.users_file.empty()) {
    QUIVER_ASSIGN_OR_RAISE(options.users, server::ReadUsersFile(args.users_file));
  } else if (!args.user.empty()) {
    const char* password = std::getenv(args.password_env.c_str());
    if (password == nullptr || *password == '\0') {
      return Status::Invalid("--password-env {}: the variable is not set or empty",
                             args.password_env);
    }
    QUIVER_ASSIGN_OR_RAISE(options.users[args.user], server::HashPassword(password));
  }
  DatabaseOptions db_options;
  db_options.threads = args.threads;
  if (!args.memory_limit.empty()) {
    QUIVER_ASSIGN_OR_RAISE(db_options.memory_limit, ParseMemorySize(args.memory_limit));
    options.memory_limit = db_options.memory_limit;
  }
  QUIVER_ASSIGN_OR_RAISE(auto stored, OpenDatabaseDir(args.db_dir, &db_options, args.read_only));
  auto db = std::make_shared<Database>(db_options);
  std::vector<std::string> tables;
  if (stored) {
    QUIVER_RETURN_NOT_OK(LoadDatabase(stored, db.get()));
    tables.push_back(fmt::format("the tables of {} ({})", stored->dir(),
                                 db->catalog()->TableNames().size()));
  }
  for (const auto& dir : args.data) {
    std::error_code ec;
    const auto canonical = std::filesystem::canonical(dir, ec);
    if (ec) return Status::Invalid("--data {}: {}", dir, ec.message());
    options.data_dirs.push_back(canonical.string());
  }
  if (!options.data_dirs.empty()) {
    QUIVER_ASSIGN_OR_RAISE(auto policy, FileAccessPolicy::Make(options.data_dirs));
    for (const auto& dir : options.data_dirs) {
      QUIVER_RETURN_NOT_OK(AddDataDirectory(db.get(), dir, policy, &tables));
    }
  }
  if (args.data.empty() && !stored) {
    QUIVER_RETURN_NOT_OK(AddDemoTables(db.get(), args.demo_rows));
    tables.push_back(fmt::format("readings ({} rows of demo sensor data)", args.demo_rows));
  }

  // SIGINT / SIGTERM are taken by sigwait below: block them before gRPC
  // starts its threads, which inherit the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  QUIVER_ASSIGN_OR_RAISE(auto server,
                         server::FlightServer::Start(options, server::MakeEngineBackend(db)));
  const std::string banner = Banner(*server, args, tables);
  std::fputs(banner.c_str(), stdout);
  std::fflush(stdout);

  int signal_number = 0;
  sigwait(&signals, &signal_number);
  std::fprintf(stderr, "quiver serve: %s, shutting down\n",
               signal_number == SIGINT ? "interrupted" : "terminated");
  server->Shutdown();
  return Status::OK();
}

struct PasswdArgs {
  std::string users_file;
  std::string user;
  std::string password_env;
};

Status RunPasswd(const PasswdArgs& args) {
  std::string password;
  if (!args.password_env.empty()) {
    const char* p = std::getenv(args.password_env.c_str());
    if (p == nullptr) return Status::Invalid("--password-env {}: not set", args.password_env);
    password = p;
  } else {
    if (isatty(STDIN_FILENO)) std::fprintf(stderr, "password for %s: ", args.user.c_str());
    std::getline(std::cin, password);
    if (!password.empty() && password.back() == '\r') password.pop_back();
  }
  if (password.empty()) return Status::Invalid("empty password");
  QUIVER_ASSIGN_OR_RAISE(std::string hash, server::HashPassword(password));
  QUIVER_RETURN_NOT_OK(server::WriteUser(args.users_file, args.user, hash));
  std::fprintf(stderr, "%s: user '%s' saved\n", args.users_file.c_str(), args.user.c_str());
  return Status::OK();
}

}  // namespace

CommandAction AddServeCommand(CLI::App* app) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd =
      app->add_subcommand("serve", "Serve tables over Arrow Flight SQL (ADBC, JDBC, pyarrow)");
  cmd->footer(
      "Without --data, serves the demo data set (table readings). Prints the connection URI and\n"
      "a Python snippet. Results stream as Arrow record batches; clients: ADBC\n"
      "(adbc-driver-flightsql), pyarrow.flight, the Flight SQL JDBC driver\n"
      "(jdbc:arrow-flight-sql://HOST:PORT). Logs one line per query to stderr.");
  cmd->add_option("--data", args->data,
                  "Directory whose Arrow, Parquet and CSV files (and directories of them) become "
                  "tables, named after the file; queries may read and write files only in these "
                  "directories (repeatable; without --data, queries read and write no files)");
  cmd->add_option("--db", args->db_dir, kDbOptionHelp)->option_text("DIR");
  cmd->add_option("--host", args->host, "Address to listen on (default 127.0.0.1; 0.0.0.0: all)");
  cmd->add_option("--port", args->port, "Port to listen on (default 31337; 0: any free port)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--tls-cert", args->tls_cert, "TLS certificate chain (PEM); needs --tls-key");
  cmd->add_option("--tls-key", args->tls_key, "TLS private key (PEM)");
  cmd->add_option("--tls-client-ca", args->tls_client_ca,
                  "Require client certificates signed by this CA (PEM): mutual TLS");
  auto* users = cmd->add_option("--users", args->users_file,
                                "Users file (name:argon2id-hash lines, written by quiver passwd); "
                                "clients must authenticate");
  auto* user = cmd->add_option("--user", args->user,
                               "A single user NAME, with the password from --password-env");
  auto* password_env = cmd->add_option("--password-env", args->password_env,
                                       "Environment variable holding --user's password");
  users->excludes(user);
  user->needs(password_env);
  password_env->needs(user);
  cmd->add_option("--token-ttl", args->token_ttl,
                  "Seconds a bearer token stays valid (default 3600; renewed while in use)")
      ->check(CLI::Range(1.0, 1e7));
  cmd->add_flag("--read-only", args->read_only,
                "Refuse statements that write (INSERT, CREATE, COPY, ingest ...)");
  cmd->add_option("--query-timeout", args->query_timeout,
                  "Cancel statements running longer than S seconds (DEADLINE_EXCEEDED)")
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--memory-limit", args->memory_limit,
                  "Memory per query, e.g. 4GB, 512MB, 50% (RESOURCE_EXHAUSTED beyond it; "
                  "default 80% of RAM)");
  cmd->add_option(
         "--max-connections", args->max_connections,
         "Refuse clients beyond N open connections (RESOURCE_EXHAUSTED; default: no limit)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--endpoints", args->endpoints,
                  "Endpoints (tickets) of a query that scans one table with only WHERE and "
                  "column expressions: each reads one part of the table, for clients that fetch "
                  "them in parallel (default 1; a session may set \"quiver.endpoints\")")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--max-batch-rows", args->max_batch_rows,
                  "Rows per record batch sent at most (default 1048576; larger batches are split)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
  cmd->add_option("--batch-bytes", args->batch_bytes,
                  "Bytes per record batch sent, e.g. 4MB (the default): the query's smaller "
                  "batches are merged up to it");
  cmd->add_option("--demo-rows", args->demo_rows, "Rows of the demo table (default 100000)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 32));
  cmd->add_option("--threads", args->threads, "Worker threads per query (default: all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--verbose", args->verbose, "Log every RPC, not only queries");
  return [args] { return RunServe(*args); };
}

CommandAction AddPasswdCommand(CLI::App* app) {
  auto args = std::make_shared<PasswdArgs>();
  CLI::App* cmd =
      app->add_subcommand("passwd", "Add a user to a users file for quiver serve --users");
  cmd->footer(
      "Stores the password hashed with Argon2id (libsodium). Reads the password from\n"
      "--password-env VAR, else from the first line of standard input.");
  cmd->add_option("--users", args->users_file, "The users file (created if missing)")->required();
  cmd->add_option("NAME", args->user, "User name")->required();
  cmd->add_option("--password-env", args->password_env,
                  "Environment variable holding the password");
  return [args] { return RunPasswd(*args); };
}

}  // namespace quiver::cli
