// The Flight SQL protocol's meaning, without gRPC: each method takes the
// caller and a decoded request and returns protobuf results or a Status.
// flight_service.cc (unary calls) and data_streams.cc (DoGet, DoPut) are the
// gRPC glue around it.
//
// Status codes become gRPC codes in rpc_status.h: Invalid and friends are
// INVALID_ARGUMENT (SQL errors with PostgreSQL's text), NotImplemented is
// UNIMPLEMENTED (unknown commands and actions are named), OutOfMemory is
// RESOURCE_EXHAUSTED, Cancelled is CANCELLED or DEADLINE_EXCEEDED.
//
// PRIVATE to src/server. Thread-safety: all methods are thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "server/backend.h"
#include "server/commands.h"
#include "server/flight_server.h"
#include "server/query_log.h"
#include "server/registry.h"

namespace quiver::server {

// The session option (SetSessionOptions) choosing the endpoints of a
// partitionable query's FlightInfo: an integer from 1 to kMaxEndpoints.
inline constexpr const char* kEndpointsOption = "quiver.endpoints";
inline constexpr int kMaxEndpoints = 64;

struct Caller {
  std::string user;
  std::string session;  // Registry session key
  std::string peer;
};

// The batches a DoGet sends: one execution (or several, one per bound
// parameter row, concatenated), cancellable from CancelFlightInfo.
class TicketStream {
 public:
  virtual ~TicketStream() = default;
  virtual const SchemaRef& schema() const = 0;
  virtual Status Next(RecordBatchRef* out) = 0;
  // From any thread (client went away).
  virtual void Cancel() = 0;
  // Called once at the end with the bytes sent and the outcome: logs it.
  virtual void Finish(int64_t bytes_sent, const Status& outcome) = 0;
};

// Consumes a DoPut's batches (after the descriptor in its first message).
class PutSink {
 public:
  virtual ~PutSink() = default;
  virtual Status Consume(const SchemaRef& schema, const RecordBatchRef& batch) = 0;
  // Ends the upload; returns the app_metadata of the PutResult sent back.
  virtual Result<std::string> Finish(const SchemaRef& schema) = 0;
};

class Handler {
 public:
  Handler(const FlightServerOptions& options, std::shared_ptr<SqlBackend> backend, QueryLog* log);
  ~Handler();

  Result<pb::FlightInfo> GetFlightInfo(const Caller& caller, const pb::FlightDescriptor& d);
  Result<pb::SchemaResult> GetSchema(const Caller& caller, const pb::FlightDescriptor& d);
  Result<std::unique_ptr<TicketStream>> OpenTicket(const Caller& caller, std::string_view ticket);
  // Result bodies in order.
  Result<std::vector<std::string>> DoAction(const Caller& caller, const pb::Action& action);
  std::vector<pb::ActionType> ListActions() const;
  Result<std::unique_ptr<PutSink>> StartPut(const Caller& caller, const pb::FlightDescriptor& d);

  // Ends a session (CloseSession, idle expiry): temporary tables dropped.
  void EndSession(const std::shared_ptr<Session>& session);
  Registry* registry() { return &registry_; }
  const FlightServerOptions& options() const { return options_; }

 private:
  ExecOptions StatementOptions() const;
  // StatementOptions for part `part` of e's result.
  ExecOptions PartOptions(const Execution& e, int part) const;
  // FlightInfo endpoints a partitionable query gets: the caller's session
  // option kEndpointsOption, else --endpoints.
  int EndpointsFor(const Caller& caller);
  // Registers an execution and describes it as a FlightInfo: one endpoint,
  // or EndpointsFor(caller) for a query that can be split (e->parts).
  Result<pb::FlightInfo> InfoFor(const Caller& caller, std::shared_ptr<Execution> e,
                                 const pb::FlightDescriptor& d);
  Result<pb::FlightInfo> StatementInfo(const Caller& caller, const std::string& sql,
                                       const pb::FlightDescriptor& d);
  Result<pb::FlightInfo> PreparedInfo(const Caller& caller, const std::string& handle,
                                      const pb::FlightDescriptor& d);
  // Runs a statement that returns no rows now; returns the rows it affected.
  Result<int64_t> RunCommand(const Caller& caller, const PreparedQuery& query,
                             const std::string& sql, const ParameterRows& rows);
  Result<std::shared_ptr<PreparedQuery>> Prepare(const std::string& sql);
  // Metadata command -> its result batches.
  Result<std::shared_ptr<Execution>> MetadataResult(const Caller& caller, const Command& cmd);

  Result<std::vector<std::string>> CreatePrepared(const Caller& caller, std::string_view body);
  Result<std::vector<std::string>> ClosePrepared(const Caller& caller, std::string_view body);
  Result<std::vector<std::string>> Cancel(const Caller& caller, const pb::FlightInfo& info,
                                          bool legacy);
  Result<std::vector<std::string>> BeginTransaction(const Caller& caller);
  Result<std::vector<std::string>> EndTransaction(const Caller& caller, std::string_view body);
  Result<std::vector<std::string>> SetSessionOptions(const Caller& caller, std::string_view body);
  Result<std::vector<std::string>> GetSessionOptions(const Caller& caller);
  Result<std::vector<std::string>> CloseSessionAction(const Caller& caller);

  FlightServerOptions options_;
  std::shared_ptr<SqlBackend> backend_;
  QueryLog* log_;
  Registry registry_;
  std::atomic<int64_t> next_transaction_{1};

  // Queries started by GetFlightInfo (Execution::started) that no DoGet has
  // taken yet; the reaper thread drops those older than kStartedWait, so a
  // ticket never fetched holds no running query for long.
  void StartEarly(const std::shared_ptr<Execution>& e);
  void ReapStarted();
  std::mutex started_mu_;
  std::condition_variable started_cv_;
  std::vector<std::weak_ptr<Execution>> started_;  // GUARDED_BY(started_mu_)
  bool stopping_ = false;                          // GUARDED_BY(started_mu_)
  std::thread reaper_;

  friend class ExecutionStream;
  friend class UpdateSink;
  friend class ParameterSink;
  friend class IngestSink;
};

// Parameter rows from a batch bound to a prepared statement (DoPut).
Result<ParameterRows> RowsFromBatches(const std::vector<RecordBatchRef>& batches);

}  // namespace quiver::server
