// gRPC glue shared by the unary service (flight_service.cc) and the data
// streams (data_streams.cc): authentication of a call, Status -> gRPC status,
// and byte buffers without copies.
//
// PRIVATE to src/server: the only headers besides the generated ones that
// include gRPC.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "server/auth.h"
#include "server/flight_data.h"
#include "server/handler.h"
#include "server/query_log.h"

namespace quiver::server {

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

  // --max-connections: the peers (client connections) admitted so far.
  std::mutex peers_mu;
  std::set<std::string> admitted_peers;  // GUARDED_BY(peers_mu)
};

// Authenticates the call from its `authorization` header and fills *caller.
// On success with a new token, adds it to the response headers. Failures
// are UNAUTHENTICATED (or RESOURCE_EXHAUSTED over the connection limit).
grpc::Status AuthenticateCall(ServiceContext* s, grpc::ServerContextBase* ctx, Caller* caller);

// A Status as a gRPC status (codes: handler.h). The SQLSTATE, when the
// engine gave one, goes into the trailing metadata as x-quiver-sqlstate.
grpc::Status ToGrpcStatus(grpc::ServerContextBase* ctx, const Status& st);

// Pieces from EncodeFlightData as one ByteBuffer: each shared buffer becomes
// a slice that holds a reference to it (released once gRPC has sent it).
grpc::ByteBuffer ToByteBuffer(std::vector<WirePiece>&& pieces);
// The message's bytes: a single slice is wrapped (no copy), several are
// joined into one buffer.
Result<std::shared_ptr<Buffer>> FromByteBuffer(const grpc::ByteBuffer& buffer);

// Shortened, printable peer for logs ("ipv4:127.0.0.1:53124").
std::string PeerOf(grpc::ServerContextBase* ctx);

}  // namespace quiver::server
