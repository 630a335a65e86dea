// FlightServer: the gRPC service (synchronous unary and small streaming
// methods; DoGet / DoPut / DoExchange as raw callback methods, see
// data_streams.h), TLS, and startup / shutdown.
#include "server/flight_server.h"

#include <condition_variable>
#include <fstream>
#include <sstream>
#include <thread>

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/server_interceptor.h>

#include "common/io.h"
#include "proto/Flight.grpc.pb.h"
#include "server/data_streams.h"
#include "server/rpc_util.h"

namespace quiver::server {
namespace {

using Base =
    pb::FlightService::WithRawCallbackMethod_DoGet<pb::FlightService::WithRawCallbackMethod_DoPut<
        pb::FlightService::WithRawCallbackMethod_DoExchange<pb::FlightService::Service>>>;

class FlightService final : public Base {
 public:
  explicit FlightService(ServiceContext* s) : s_(s) {}

  grpc::Status Handshake(
      grpc::ServerContext* ctx,
      grpc::ServerReaderWriter<pb::HandshakeResponse, pb::HandshakeRequest>* stream) override {
    // Basic auth arrives in the headers (ADBC, JDBC, pyarrow's
    // authenticate_basic_token) or, from older clients, as a BasicAuth
    // message in the first request's payload.
    Caller caller;
    grpc::Status st = AuthenticateCall(s_, ctx, &caller);
    std::string token;
    pb::HandshakeRequest request;
    bool have_request = false;
    if (!st.ok()) {
      if (!stream->Read(&request)) return st;
      have_request = true;
      pb::BasicAuth basic;
      if (request.payload().empty() || !basic.ParseFromString(request.payload()) ||
          basic.username().empty()) {
        return st;
      }
      auto id = s_->auth->Authenticate("Basic " +
                                       Base64Encode(basic.username() + ":" + basic.password()));
      if (!id.ok()) {
        return ToGrpcStatus(
            ctx, id.status().WithDefaultSqlState(sqlstate::kInvalidAuthorizationSpecification));
      }
      token = id->token;
      caller.user = id->user;
      ctx->AddInitialMetadata("authorization", "Bearer " + token);
    }
    s_->log->Rpc("Handshake peer=" + PeerOf(ctx) + " user=" + caller.user);
    // Send the headers (with the token) now: some clients read them before
    // they read the stream's end.
    stream->SendInitialMetadata();
    if (!token.empty()) {
      pb::HandshakeResponse response;
      response.set_payload(token);
      stream->Write(response);
    }
    while (have_request || stream->Read(&request)) have_request = false;
    return grpc::Status::OK;
  }

  grpc::Status ListFlights(grpc::ServerContext* ctx, const pb::Criteria*,
                           grpc::ServerWriter<pb::FlightInfo>*) override {
    Caller caller;
    grpc::Status st = AuthenticateCall(s_, ctx, &caller);
    s_->log->Rpc("ListFlights peer=" + PeerOf(ctx));
    // Results are made on request (GetFlightInfo); nothing waits to be listed.
    return st;
  }

  grpc::Status GetFlightInfo(grpc::ServerContext* ctx, const pb::FlightDescriptor* request,
                             pb::FlightInfo* response) override {
    Caller caller;
    grpc::Status st = AuthenticateCall(s_, ctx, &caller);
    if (!st.ok()) return st;
    s_->log->Rpc("GetFlightInfo peer=" + caller.peer + " user=" + caller.user);
    auto info = s_->handler->GetFlightInfo(caller, *request);
    if (!info.ok()) return ToGrpcStatus(ctx, info.status());
    *response = std::move(*info);
    return grpc::Status::OK;
  }

  grpc::Status PollFlightInfo(grpc::ServerContext* ctx, const pb::FlightDescriptor* request,
                              pb::PollInfo* response) override {
    Caller caller;
    grpc::Status st = AuthenticateCall(s_, ctx, &caller);
    if (!st.ok()) return st;
    s_->log->Rpc("PollFlightInfo peer=" + caller.peer + " user=" + caller.user);
    // Queries are planned at once and run when fetched: the answer is
    // complete immediately (no descriptor to poll again).
    auto info = s_->handler->GetFlightInfo(caller, *request);
    if (!info.ok()) return ToGrpcStatus(ctx, info.status());
    *response->mutable_info() = std::move(*info);
    response->set_progress(1.0);
    return grpc::Status::OK;
  }

  grpc::Status GetSchema(grpc::ServerContext* ctx, const pb::FlightDescriptor* request,
                         pb::SchemaResult* response) override {
    Caller caller;
    grpc::Status st = AuthenticateCall(s_, ctx, &caller);
    if (!st.ok()) return st;
    s_->log->Rpc("GetSchema peer=" + caller.peer + " user=" + caller.user);
    auto schema = s_->handler->GetSchema(caller, *request);
    if (!schema.ok()) return ToGrpcStatus(ctx, schema.status());
    *response = std::move(*schema);
    return grpc::Status::OK;
  }

  grpc::Status DoAction(grpc::ServerContext* ctx, const pb::Action* request,
                        grpc::ServerWriter<pb::Result>* writer) override {
    Caller caller;
    grpc::Status st = AuthenticateCall(s_, ctx, &caller);
    if (!st.ok()) return st;
    s_->log->Rpc("DoAction " + request->type().substr(0, 64) + " peer=" + caller.peer +
                 " user=" + caller.user);
    auto results = s_->handler->DoAction(caller, *request);
    if (!results.ok()) return ToGrpcStatus(ctx, results.status());
    if (request->type() == "CloseSession") {
      const std::string prefix = "session:";
      if (caller.session.rfind(prefix, 0) == 0) {
        s_->auth->RevokeSession(caller.session.substr(prefix.size()));
      }
    }
    for (auto& body : *results) {
      pb::Result r;
      r.set_body(std::move(body));
      if (!writer->Write(r)) break;
    }
    return grpc::Status::OK;
  }

  grpc::Status ListActions(grpc::ServerContext* ctx, const pb::Empty*,
                           grpc::ServerWriter<pb::ActionType>* writer) override {
    Caller caller;
    grpc::Status st = AuthenticateCall(s_, ctx, &caller);
    if (!st.ok()) return st;
    for (const auto& a : s_->handler->ListActions()) {
      if (!writer->Write(a)) break;
    }
    return grpc::Status::OK;
  }

  grpc::ServerWriteReactor<grpc::ByteBuffer>* DoGet(grpc::CallbackServerContext* ctx,
                                                    const grpc::ByteBuffer* request) override {
    return StartDoGet(s_, ctx, request);
  }

  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* DoPut(
      grpc::CallbackServerContext* ctx) override {
    return StartDoPut(s_, ctx);
  }

  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* DoExchange(
      grpc::CallbackServerContext* ctx) override {
    class Refuse final : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
     public:
      explicit Refuse(grpc::CallbackServerContext* ctx) {
        Finish(ToGrpcStatus(ctx, Status::Unsupported("DoExchange (use DoGet and DoPut)")));
      }
      void OnDone() override { delete this; }
    };
    return new Refuse(ctx);
  }

 private:
  ServiceContext* s_;
};

// Counts every call in the ConnectionTable (--max-connections) from before
// its method runs until it ends: the interceptor lives as long as the call.
class CallCounter final : public grpc::experimental::Interceptor {
 public:
  CallCounter(grpc::experimental::ServerRpcInfo* info, ConnectionTable* table)
      : info_(info), table_(table) {}
  ~CallCounter() override {
    if (!peer_.empty()) table_->CallEnded(peer_);
  }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (peer_.empty() &&
        methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      peer_ = PeerOf(info_->server_context());
      if (!peer_.empty()) table_->CallStarted(peer_);
    }
    methods->Proceed();
  }

 private:
  grpc::experimental::ServerRpcInfo* info_;
  ConnectionTable* table_;
  std::string peer_;
};

class CallCounterFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit CallCounterFactory(ConnectionTable* table) : table_(table) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new CallCounter(info, table_);
  }

 private:
  ConnectionTable* table_;
};

Result<std::string> ReadPem(const std::string& path, const char* what) {
  auto data = ReadFileFully(path);
  if (!data.ok()) return data.status().WithContext(std::string("cannot read the ") + what);
  return std::string((*data)->view());
}

}  // namespace

struct FlightServer::Impl {
  ServiceContext context;
  std::unique_ptr<FlightService> service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  bool tls = false;
  std::mutex mu;
  std::condition_variable cv;
  bool shut_down = false;
  std::once_flag shutdown_once;
};

FlightServer::FlightServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

FlightServer::~FlightServer() { Shutdown(); }

Result<std::unique_ptr<FlightServer>> FlightServer::Start(const FlightServerOptions& options,
                                                          std::shared_ptr<SqlBackend> backend) {
  auto impl = std::make_unique<Impl>();
  ServiceContext& s = impl->context;
  s.options = options;
  s.log = std::make_unique<QueryLog>(options.log, options.verbose);
  s.auth = std::make_unique<Authenticator>(options.users, options.token_ttl);
  s.handler = std::make_unique<Handler>(options, std::move(backend), s.log.get());
  impl->service = std::make_unique<FlightService>(&s);

  std::shared_ptr<grpc::ServerCredentials> creds;
  if (!options.tls_cert.empty() || !options.tls_key.empty()) {
    if (options.tls_cert.empty() || options.tls_key.empty()) {
      return Status::Invalid("TLS needs both a certificate and a key (--tls-cert, --tls-key)");
    }
    grpc::SslServerCredentialsOptions ssl;
    grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
    QUIVER_ASSIGN_OR_RAISE(pair.cert_chain, ReadPem(options.tls_cert, "TLS certificate"));
    QUIVER_ASSIGN_OR_RAISE(pair.private_key, ReadPem(options.tls_key, "TLS key"));
    ssl.pem_key_cert_pairs.push_back(std::move(pair));
    if (!options.tls_client_ca.empty()) {
      QUIVER_ASSIGN_OR_RAISE(ssl.pem_root_certs, ReadPem(options.tls_client_ca, "client CA"));
      ssl.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
    }
    creds = grpc::SslServerCredentials(ssl);
    impl->tls = true;
  } else if (!options.tls_client_ca.empty()) {
    return Status::Invalid("--tls-client-ca needs --tls-cert and --tls-key");
  } else {
    creds = grpc::InsecureServerCredentials();
  }

  grpc::ServerBuilder builder;
  const std::string host = options.host.find(':') != std::string::npos && options.host[0] != '['
                               ? "[" + options.host + "]"
                               : options.host;
  builder.AddListeningPort(host + ":" + std::to_string(options.port), creds, &impl->port);
  builder.RegisterService(impl->service.get());
  // Uploads (ingest, parameters) may be big; batches sent are kept small
  // (max_batch_rows) so clients' 16 MiB default limits hold.
  builder.SetMaxReceiveMessageSize(1 << 30);
  builder.SetMaxSendMessageSize(-1);
  if (options.max_connections > 0) {
    // See ConnectionTable: idle connections are closed after this window so
    // that a peer without calls for longer holds no slot.
    s.connections =
        std::make_unique<ConnectionTable>(options.max_connections, std::chrono::seconds(5));
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS,
                               static_cast<int>(s.connections->idle().count()));
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> counters;
    counters.push_back(std::make_unique<CallCounterFactory>(s.connections.get()));
    builder.experimental().SetInterceptorCreators(std::move(counters));
  }
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || impl->port == 0) {
    return Status::IOError("cannot listen on {}:{} (in use, or not a local address?)", options.host,
                           options.port);
  }
  return std::unique_ptr<FlightServer>(new FlightServer(std::move(impl)));
}

int FlightServer::port() const { return impl_->port; }

std::string FlightServer::uri() const {
  std::string host = impl_->context.options.host;
  if (host == "0.0.0.0" || host == "::") host = "localhost";
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return fmt::format("{}://{}:{}", impl_->tls ? "grpc+tls" : "grpc", host, impl_->port);
}

void FlightServer::Wait() {
  std::unique_lock<std::mutex> lock(impl_->mu);
  impl_->cv.wait(lock, [&] { return impl_->shut_down; });
}

void FlightServer::Shutdown() {
  std::call_once(impl_->shutdown_once, [&] {
    // Running calls get a short grace period, then are cancelled.
    impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    {
      ServiceContext& s = impl_->context;
      std::unique_lock<std::mutex> lock(s.workers_mu);
      s.workers_cv.wait(lock, [&] { return s.active_workers.load() == 0; });
    }
    impl_->server->Wait();
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->shut_down = true;
    impl_->cv.notify_all();
  });
}

}  // namespace quiver::server
