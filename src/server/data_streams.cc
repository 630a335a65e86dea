// DoGet / DoPut reactors (data_streams.h).
#include "server/data_streams.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

#include "formats/ipc/message_codec.h"

namespace quiver::server {
namespace {

// The worker side of a reactor: one outstanding write and one outstanding
// read at a time, and the cancellation hook. The reactor's callbacks only
// flip flags here; all blocking happens on the worker thread.
class Window {
 public:
  // Worker: blocks until no write is pending; false when the call is over.
  bool WaitWritable() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !writing_ || cancelled_ || failed_; });
    if (cancelled_ || failed_) return false;
    writing_ = true;
    return true;
  }
  bool WaitReadable() {
    std::unique_lock<std::mutex> lock(mu_);
    if (cancelled_) return false;
    reading_ = true;
    return true;
  }
  // Worker: the read started by the worker has completed; its outcome.
  bool WaitRead() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !reading_; });
    return read_ok_ && !cancelled_;
  }
  // Worker: before Finish, until gRPC is done with every started operation.
  void WaitIdle() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !writing_ && !reading_; });
  }
  void WriteDone(bool ok) {
    std::lock_guard<std::mutex> lock(mu_);
    writing_ = false;
    if (!ok) failed_ = true;
    cv_.notify_all();
  }
  void ReadDone(bool ok) {
    std::lock_guard<std::mutex> lock(mu_);
    reading_ = false;
    read_ok_ = ok;
    cv_.notify_all();
  }
  // Reactor: the client cancelled or went away; stops the running query.
  void Cancel() {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    if (stream_ != nullptr) stream_->Cancel();
    cv_.notify_all();
  }
  bool cancelled() {
    std::lock_guard<std::mutex> lock(mu_);
    return cancelled_ || failed_;
  }
  // The stream OnCancel stops (null: none). Cancels at once if too late.
  void SetStream(TicketStream* s) {
    std::lock_guard<std::mutex> lock(mu_);
    stream_ = s;
    if (s != nullptr && cancelled_) s->Cancel();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool writing_ = false;
  bool reading_ = false;
  bool read_ok_ = false;
  bool cancelled_ = false;
  bool failed_ = false;
  TicketStream* stream_ = nullptr;
};

void WorkerStarted(ServiceContext* s) { s->active_workers.fetch_add(1); }
void WorkerDone(ServiceContext* s) {
  std::lock_guard<std::mutex> lock(s->workers_mu);
  s->active_workers.fetch_sub(1);
  s->workers_cv.notify_all();
}

const grpc::Status kClientGone(grpc::StatusCode::CANCELLED, "the client cancelled the call");

class DoGetReactor final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  DoGetReactor(ServiceContext* s, grpc::CallbackServerContext* ctx) : s_(s), ctx_(ctx) {}

  void Start(const grpc::ByteBuffer* request) {
    Caller caller;
    grpc::Status st = AuthenticateCall(s_, ctx_, &caller);
    if (!st.ok()) return Finish(st);
    auto bytes = FromByteBuffer(*request);
    pb::Ticket ticket;
    if (!bytes.ok() ||
        !ticket.ParseFromArray((*bytes)->data(), static_cast<int>((*bytes)->size()))) {
      return Finish(ToGrpcStatus(
          ctx_, Status::Invalid("malformed Ticket").WithSqlState(sqlstate::kProtocolViolation)));
    }
    s_->log->Rpc("DoGet peer=" + caller.peer + " user=" + caller.user);
    WorkerStarted(s_);
    std::thread([this, caller = std::move(caller), t = std::move(*ticket.mutable_ticket())] {
      ServiceContext* s = s_;
      grpc::Status result = Serve(caller, t);
      window_.WaitIdle();
      Finish(result);  // `this` may be deleted from here on
      WorkerDone(s);
    }).detach();
  }

  void OnWriteDone(bool ok) override { window_.WriteDone(ok); }
  void OnCancel() override { window_.Cancel(); }
  void OnDone() override { delete this; }

 private:
  // Starts writing `pieces`; false when the client is gone.
  bool Write(std::vector<WirePiece>&& pieces) {
    if (!window_.WaitWritable()) return false;
    current_ = ToByteBuffer(std::move(pieces));
    StartWrite(&current_);
    return true;
  }

  grpc::Status Serve(const Caller& caller, const std::string& ticket) {
    auto opened = s_->handler->OpenTicket(caller, ticket);
    if (!opened.ok()) return ToGrpcStatus(ctx_, opened.status());
    std::unique_ptr<TicketStream> stream = std::move(opened).ValueOrDie();
    window_.SetStream(stream.get());
    int64_t bytes = 0;
    Status outcome = Stream(stream.get(), &bytes);
    if (!outcome.ok() && window_.cancelled()) {
      outcome = Status::Cancelled("the client cancelled the call");
    }
    window_.SetStream(nullptr);
    stream->Finish(bytes, outcome);
    if (outcome.ok()) return grpc::Status::OK;
    if (window_.cancelled()) return kClientGone;
    return ToGrpcStatus(ctx_, outcome);
  }

  Status Stream(TicketStream* stream, int64_t* bytes) {
    ipc::MessageEncoder encoder(stream->schema());
    std::vector<WirePiece> pieces;
    *bytes += EncodeFlightData(encoder.EncodeSchema(), {}, &pieces);
    if (!Write(std::move(pieces))) return Status::Cancelled("client gone");
    std::vector<ipc::EncodedMessage> messages;
    for (;;) {
      RecordBatchRef batch;
      QUIVER_RETURN_NOT_OK(stream->Next(&batch));
      if (batch == nullptr) return Status::OK();
      messages.clear();
      QUIVER_RETURN_NOT_OK(encoder.EncodeBatch(*batch, &messages));
      for (const auto& m : messages) {
        pieces.clear();
        *bytes += EncodeFlightData(m, {}, &pieces);
        if (!Write(std::move(pieces))) return Status::Cancelled("client gone");
      }
    }
  }

  ServiceContext* s_;
  grpc::CallbackServerContext* ctx_;
  Window window_;
  grpc::ByteBuffer current_;
};

class DoPutReactor final : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  DoPutReactor(ServiceContext* s, grpc::CallbackServerContext* ctx) : s_(s), ctx_(ctx) {}

  void Start() {
    Caller caller;
    grpc::Status st = AuthenticateCall(s_, ctx_, &caller);
    if (!st.ok()) return Finish(st);
    s_->log->Rpc("DoPut peer=" + caller.peer + " user=" + caller.user);
    WorkerStarted(s_);
    std::thread([this, caller = std::move(caller)] {
      ServiceContext* s = s_;
      grpc::Status result = Serve(caller);
      window_.WaitIdle();
      Finish(result);  // `this` may be deleted from here on
      WorkerDone(s);
    }).detach();
  }

  void OnReadDone(bool ok) override { window_.ReadDone(ok); }
  void OnWriteDone(bool ok) override { window_.WriteDone(ok); }
  void OnCancel() override { window_.Cancel(); }
  void OnDone() override { delete this; }

 private:
  bool Read() {
    if (!window_.WaitReadable()) return false;
    StartRead(&incoming_);
    return window_.WaitRead();
  }

  grpc::Status Serve(const Caller& caller) {
    Status st = Consume(caller);
    if (window_.cancelled()) return kClientGone;
    if (!st.ok()) return ToGrpcStatus(ctx_, st);
    return grpc::Status::OK;
  }

  Status Consume(const Caller& caller) {
    std::unique_ptr<PutSink> sink;
    ipc::MessageDecoder decoder;
    int64_t messages = 0;
    while (Read()) {
      QUIVER_ASSIGN_OR_RAISE(auto bytes, FromByteBuffer(incoming_));
      incoming_.Clear();
      QUIVER_ASSIGN_OR_RAISE(FlightDataView view, ParseFlightData(bytes));
      if (messages++ == 0) {
        if (!view.has_descriptor) {
          return Status::Invalid("the first DoPut message must carry a FlightDescriptor");
        }
        pb::FlightDescriptor d;
        if (!d.ParseFromArray(view.descriptor.data(), static_cast<int>(view.descriptor.size()))) {
          return Status::Invalid("malformed FlightDescriptor in DoPut");
        }
        QUIVER_ASSIGN_OR_RAISE(sink, s_->handler->StartPut(caller, d));
      }
      if (view.header == nullptr) continue;  // app_metadata only
      RecordBatchRef batch;
      Status st = decoder.Consume(view.header, view.body, &batch);
      if (!st.ok()) return st.WithContext(fmt::format("DoPut message {}", messages));
      if (batch != nullptr) QUIVER_RETURN_NOT_OK(sink->Consume(decoder.schema(), batch));
    }
    if (window_.cancelled()) return Status::Cancelled("the client cancelled the call");
    if (sink == nullptr) return Status::Invalid("DoPut without any message");
    QUIVER_ASSIGN_OR_RAISE(std::string metadata, sink->Finish(decoder.schema()));
    // Always one PutResult, even when its metadata is empty (a zero row
    // count serializes to nothing): clients wait for it.
    pb::PutResult result;
    result.set_app_metadata(std::move(metadata));
    const std::string bytes = result.SerializeAsString();
    if (!window_.WaitWritable()) return Status::Cancelled("the client cancelled the call");
    grpc::Slice slice(bytes);
    outgoing_ = grpc::ByteBuffer(&slice, 1);
    StartWrite(&outgoing_);
    return Status::OK();
  }

  ServiceContext* s_;
  grpc::CallbackServerContext* ctx_;
  Window window_;
  grpc::ByteBuffer incoming_;
  grpc::ByteBuffer outgoing_;
};

}  // namespace

grpc::ServerWriteReactor<grpc::ByteBuffer>* StartDoGet(ServiceContext* s,
                                                       grpc::CallbackServerContext* ctx,
                                                       const grpc::ByteBuffer* request) {
  auto* r = new DoGetReactor(s, ctx);
  r->Start(request);
  return r;
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* StartDoPut(
    ServiceContext* s, grpc::CallbackServerContext* ctx) {
  auto* r = new DoPutReactor(s, ctx);
  r->Start();
  return r;
}

}  // namespace quiver::server
