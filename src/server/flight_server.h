// The Arrow Flight SQL server behind `quiver serve`.
//
//   FlightServerOptions opts;                       // port, TLS, auth, limits
//   auto server = FlightServer::Start(opts, MakeEngineBackend(db));
//   (*server)->Wait();                              // until Shutdown()
//
// Clients (ADBC, JDBC, pyarrow.flight) speak Flight SQL over gRPC; gRPC and
// the generated protocol code are seen only inside src/server. How a request
// travels, and how results stream back without copies, is described in
// ARCHITECTURE.md ("Serving over Flight SQL").
//
// Thread-safety: Start/Shutdown/Wait from any thread; Shutdown is idempotent.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "server/backend.h"

namespace quiver::server {

struct FlightServerOptions {
  std::string host = "127.0.0.1";
  int port = 31337;  // 0: any free port (see FlightServer::port())
  // TLS: PEM files. With tls_client_ca, clients must present a certificate
  // signed by that CA (mutual TLS).
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;
  // name -> Argon2id hash (auth.h); empty: no authentication.
  std::map<std::string, std::string> users;
  std::chrono::seconds token_ttl{3600};
  bool read_only = false;
  std::chrono::milliseconds query_timeout{0};  // 0: none
  int64_t memory_limit = -1;                   // per query; < 0: the database's
  int max_connections = 0;                     // 0: no limit
  // Directories queries may read and write files in; empty: anywhere,
  // unless confine_files (then: no file at all; `quiver serve` sets it, so a
  // server without --data reads and writes no files).
  std::vector<std::string> data_dirs;
  bool confine_files = false;
  // Record batches sent to clients: the engine's batches are merged up to
  // about batch_bytes (or max_batch_rows) per message, and larger ones are
  // sent as slices of about batch_bytes (max_batch_rows rows at most).
  int64_t max_batch_rows = int64_t{1} << 20;
  int64_t batch_bytes = int64_t{4} << 20;
  // FlightInfo endpoints of a query that is a scan of one table with only
  // filters and projections (each endpoint's ticket reads one part of the
  // table, all parts one snapshot); other results have one. A session may
  // choose its own with the session option "quiver.endpoints".
  int endpoints = 1;
  bool verbose = false;  // log every RPC
  // Where log lines go (one line each, no newline); default: stderr.
  std::function<void(const std::string&)> log;
};

class FlightServer {
 public:
  static Result<std::unique_ptr<FlightServer>> Start(const FlightServerOptions& options,
                                                     std::shared_ptr<SqlBackend> backend);
  ~FlightServer();

  // The port it listens on (the chosen one when options.port was 0).
  int port() const;
  // "grpc://127.0.0.1:31337" or "grpc+tls://...".
  std::string uri() const;
  // Blocks until Shutdown().
  void Wait();
  // Stops accepting calls, cancels running ones, waits for them to end.
  void Shutdown();

  struct Impl;

 private:
  explicit FlightServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace quiver::server
