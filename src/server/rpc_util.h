// gRPC glue shared by the unary service (flight_service.cc) and the data
// streams (data_streams.cc): authentication of a call, Status -> gRPC status,
// and byte buffers without copies.
//
// PRIVATE to src/server: the only headers besides the generated ones that
// include gRPC.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "server/auth.h"
#include "server/flight_data.h"
#include "server/handler.h"
#include "server/query_log.h"

namespace quiver::server {

// --max-connections. gRPC (1.51) tells a server nothing about connections,
// only about calls and their peer address, which names one connection
// ("ipv4:127.0.0.1:53124"). A peer counts as an open connection while it
// has calls running or made one within `idle`; the server closes
// connections idle for longer (GRPC_ARG_MAX_CONNECTION_IDLE_MS = idle), so
// a peer no longer counted has no connection left. A client that closes its
// connection early keeps its slot until `idle` has passed: the limit errs
// on the side of refusing. Thread-safe.
class ConnectionTable {
 public:
  ConnectionTable(int max_connections, std::chrono::milliseconds idle)
      : max_(max_connections), idle_(idle) {}

  // From the call-counting interceptor (flight_server.cc), around every call.
  void CallStarted(const std::string& peer);
  void CallEnded(const std::string& peer);
  // True when `peer` was admitted before or a slot is free (then it takes it).
  bool Admit(const std::string& peer);

  int max_connections() const { return max_; }
  std::chrono::milliseconds idle() const { return idle_; }

 private:
  struct Peer {
    int calls = 0;
    bool admitted = false;
    std::chrono::steady_clock::time_point last_call_end{};
  };
  const int max_;
  const std::chrono::milliseconds idle_;
  std::mutex mu_;
  std::map<std::string, Peer> peers_;  // GUARDED_BY(mu_)
};

// Everything the gRPC methods share; owned by FlightServer::Impl.
struct ServiceContext {
  FlightServerOptions options;
  std::unique_ptr<QueryLog> log;
  std::unique_ptr<Authenticator> auth;
  std::unique_ptr<Handler> handler;
  // Data-stream worker threads still running (Shutdown waits for zero).
  std::atomic<int> active_workers{0};
  std::mutex workers_mu;
  std::condition_variable workers_cv;

  // --max-connections; null when there is no limit.
  std::unique_ptr<ConnectionTable> connections;
};

// Authenticates the call from its `authorization` header and fills *caller.
// On success with a new token, adds it to the response headers. Failures
// are UNAUTHENTICATED (or RESOURCE_EXHAUSTED over the connection limit).
grpc::Status AuthenticateCall(ServiceContext* s, grpc::ServerContextBase* ctx, Caller* caller);

// A Status as a gRPC status (codes: GrpcCodeFor in rpc_util.cc, by SQLSTATE).
// The SQLSTATE (Status::SqlState) goes into the trailing metadata as
// x-quiver-sqlstate, and with the position, DETAIL and HINT into the
// status details (grpc-status-details-bin): a google.rpc.Status holding one
// google.rpc.ErrorInfo {reason: SQLSTATE, domain: "quiver", metadata}.
grpc::Status ToGrpcStatus(grpc::ServerContextBase* ctx, const Status& st);

// The serialized google.rpc.Status for an error answered with `code`.
std::string EncodeErrorDetails(grpc::StatusCode code, const Status& st);

// Pieces from EncodeFlightData as one ByteBuffer: each shared buffer becomes
// a slice that holds a reference to it (released once gRPC has sent it).
grpc::ByteBuffer ToByteBuffer(std::vector<WirePiece>&& pieces);
// The message's bytes: a single slice is wrapped (no copy), several are
// joined into one buffer.
Result<std::shared_ptr<Buffer>> FromByteBuffer(const grpc::ByteBuffer& buffer);

// Shortened, printable peer for logs ("ipv4:127.0.0.1:53124").
std::string PeerOf(grpc::ServerContextBase* ctx);

}  // namespace quiver::server
