// DoGet and DoPut as gRPC callback reactors over raw byte buffers, so that
// FlightData is written and parsed by hand (flight_data.h) and record batch
// bodies travel as slices of their own buffers.
//
// Each call gets a worker thread that runs the query (or consumes the
// upload) and talks to the reactor through a one-message window: the worker
// starts a write and waits for gRPC to take it before producing the next
// batch, so a slow client slows the query instead of making the server
// buffer the result. A client that cancels or disconnects cancels the
// running statement (OnCancel -> TicketStream::Cancel).
//
// PRIVATE to src/server.
#pragma once

#include <grpcpp/grpcpp.h>

#include "server/rpc_util.h"

namespace quiver::server {

grpc::ServerWriteReactor<grpc::ByteBuffer>* StartDoGet(ServiceContext* s,
                                                       grpc::CallbackServerContext* ctx,
                                                       const grpc::ByteBuffer* request);
grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* StartDoPut(
    ServiceContext* s, grpc::CallbackServerContext* ctx);

}  // namespace quiver::server
