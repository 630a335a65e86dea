// gRPC glue: authentication, status mapping, zero-copy byte buffers.
#include "server/rpc_util.h"

#include <cstring>
#include <string_view>
#include <utility>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

namespace quiver::server {
namespace {

std::string HeaderValue(grpc::ServerContextBase* ctx, const char* key) {
  const auto& md = ctx->client_metadata();
  auto it = md.find(key);
  if (it == md.end()) return "";
  return std::string(it->second.data(), it->second.size());
}

void ReleaseBuffer(void* user_data) { delete static_cast<std::shared_ptr<Buffer>*>(user_data); }
void ReleaseString(void* user_data) { delete static_cast<std::string*>(user_data); }
void ReleaseSlice(const void* p) { delete static_cast<const grpc::Slice*>(p); }

}  // namespace

std::string PeerOf(grpc::ServerContextBase* ctx) { return ctx->peer(); }

void ConnectionTable::CallStarted(const std::string& peer) {
  std::lock_guard<std::mutex> lock(mu_);
  ++peers_[peer].calls;
}

void ConnectionTable::CallEnded(const std::string& peer) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = peers_.find(peer);
  if (it == peers_.end()) return;
  Peer& p = it->second;
  p.last_call_end = std::chrono::steady_clock::now();
  // A refused peer leaves no trace once its calls are over.
  if (--p.calls <= 0 && !p.admitted) peers_.erase(it);
}

bool ConnectionTable::Admit(const std::string& peer) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  int open = 0;
  for (auto it = peers_.begin(); it != peers_.end();) {
    const Peer& p = it->second;
    // Idle past the window (and a second for gRPC's timer to fire): the
    // server has closed that connection.
    if (p.admitted && p.calls <= 0 && now - p.last_call_end > idle_ + std::chrono::seconds(1)) {
      it = peers_.erase(it);
      continue;
    }
    if (p.admitted) ++open;
    ++it;
  }
  Peer& p = peers_[peer];
  if (p.admitted) return true;
  if (open >= max_) return false;
  p.admitted = true;
  return true;
}

grpc::Status AuthenticateCall(ServiceContext* s, grpc::ServerContextBase* ctx, Caller* caller) {
  if (s->connections != nullptr && !s->connections->Admit(PeerOf(ctx))) {
    // PostgreSQL's words (SQLSTATE 53300) for the same refusal.
    s->log->Info("refused connection from " + PeerOf(ctx) + ": more than " +
                  std::to_string(s->connections->max_connections()) + " (--max-connections)");
    return ToGrpcStatus(ctx, Status::Invalid("sorry, too many clients already")
                                 .WithSqlState(sqlstate::kTooManyConnections));
  }
  auto id = s->auth->Authenticate(HeaderValue(ctx, "authorization"));
  if (!id.ok()) {
    // Every authentication failure is UNAUTHENTICATED (class 28).
    return ToGrpcStatus(
        ctx, id.status().WithDefaultSqlState(sqlstate::kInvalidAuthorizationSpecification));
  }
  caller->user = id->user;
  caller->peer = PeerOf(ctx);
  caller->session = id->session.empty() ? "peer:" + caller->peer : "session:" + id->session;
  if (!id->new_token.empty()) ctx->AddInitialMetadata("authorization", "Bearer " + id->new_token);
  return grpc::Status::OK;
}

namespace {

// The gRPC code for an error, chosen by its SQLSTATE the way Arrow Flight
// maps its own status codes: features Quiver lacks are UNIMPLEMENTED,
// resource limits RESOURCE_EXHAUSTED, a cancel CANCELLED and the statement
// timeout DEADLINE_EXCEEDED, authentication UNAUTHENTICATED, privileges and
// read-only refusals PERMISSION_DENIED, internal errors INTERNAL, and every
// other SQL or data error (classes 22, 23, 42, ...) INVALID_ARGUMENT.
grpc::StatusCode GrpcCodeFor(const Status& st, std::string_view sqlstate) {
  const std::string_view cls = sqlstate.substr(0, 2);
  if (sqlstate == sqlstate::kFeatureNotSupported) return grpc::StatusCode::UNIMPLEMENTED;
  if (cls == "53" || sqlstate == sqlstate::kProgramLimitExceeded)
    return grpc::StatusCode::RESOURCE_EXHAUSTED;
  if (sqlstate == sqlstate::kQueryCanceled) {
    return st.message().find("statement timeout") != std::string::npos
               ? grpc::StatusCode::DEADLINE_EXCEEDED
               : grpc::StatusCode::CANCELLED;
  }
  if (cls == "28") return grpc::StatusCode::UNAUTHENTICATED;
  if (sqlstate == sqlstate::kInsufficientPrivilege || sqlstate == sqlstate::kReadOnlySqlTransaction)
    return grpc::StatusCode::PERMISSION_DENIED;
  if (st.code() == StatusCode::kUnknown) return grpc::StatusCode::INTERNAL;
  return grpc::StatusCode::INVALID_ARGUMENT;
}

}  // namespace

std::string EncodeErrorDetails(grpc::StatusCode code, const Status& st) {
  google::rpc::ErrorInfo info;
  const std::string sqlstate(st.SqlState());
  info.set_reason(sqlstate);
  info.set_domain("quiver");
  auto& md = *info.mutable_metadata();
  md["sqlstate"] = sqlstate;
  if (st.position() >= 0) md["position"] = std::to_string(st.position() + 1);
  if (!st.detail().empty()) md["detail"] = st.detail();
  if (!st.hint().empty()) md["hint"] = st.hint();
  google::rpc::Status status;
  status.set_code(static_cast<int32_t>(code));
  status.set_message(st.message());
  status.add_details()->PackFrom(info);
  return status.SerializeAsString();
}

grpc::Status ToGrpcStatus(grpc::ServerContextBase* ctx, const Status& st) {
  if (st.ok()) return grpc::Status::OK;
  const std::string_view sqlstate = st.SqlState();
  const grpc::StatusCode code = GrpcCodeFor(st, sqlstate);
  // Every error names its SQLSTATE twice: in a plain trailer that any gRPC
  // client can read, and as google.rpc.Status details (grpc-status-details-
  // bin, with the DETAIL and HINT) for clients that decode those.
  ctx->AddTrailingMetadata("x-quiver-sqlstate", std::string(sqlstate));
  return grpc::Status(code, st.message(), EncodeErrorDetails(code, st));
}

grpc::ByteBuffer ToByteBuffer(std::vector<WirePiece>&& pieces) {
  std::vector<grpc::Slice> slices;
  slices.reserve(pieces.size());
  for (WirePiece& p : pieces) {
    if (p.buffer != nullptr) {
      if (p.buffer->size() == 0) continue;
      auto* ref = new std::shared_ptr<Buffer>(std::move(p.buffer));
      slices.emplace_back(const_cast<uint8_t*>((*ref)->data()), static_cast<size_t>((*ref)->size()),
                          &ReleaseBuffer, ref);
    } else if (!p.bytes.empty()) {
      auto* owned = new std::string(std::move(p.bytes));
      slices.emplace_back(owned->data(), owned->size(), &ReleaseString, owned);
    }
  }
  return grpc::ByteBuffer(slices.data(), slices.size());
}

Result<std::shared_ptr<Buffer>> FromByteBuffer(const grpc::ByteBuffer& buffer) {
  grpc::Slice single;
  if (buffer.TrySingleSlice(&single).ok()) {
    auto* owner = new grpc::Slice(std::move(single));
    std::shared_ptr<const void> keep(owner, &ReleaseSlice);
    return std::make_shared<Buffer>(owner->begin(), static_cast<int64_t>(owner->size()),
                                    std::move(keep));
  }
  std::vector<grpc::Slice> slices;
  if (!buffer.Dump(&slices).ok()) return Status::Invalid("unreadable message");
  QUIVER_ASSIGN_OR_RAISE(auto out, MutableBuffer::Allocate(static_cast<int64_t>(buffer.Length())));
  int64_t pos = 0;
  for (const auto& s : slices) {
    std::memcpy(out->mutable_data() + pos, s.begin(), s.size());
    pos += static_cast<int64_t>(s.size());
  }
  out->ZeroPadding();
  return std::shared_ptr<Buffer>(std::move(out));
}

}  // namespace quiver::server
