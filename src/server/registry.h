// Server-side state that outlives one RPC: sessions, prepared statements and
// the executions tickets stand for.
//
//   Session       one client connection's state: its user, session options,
//                 temporary tables; keyed by the session of its bearer token,
//                 or by the peer address for clients that never authenticate.
//   Prepared      a prepared statement (ActionCreatePreparedStatement) and
//                 the parameter rows last bound to it by DoPut.
//   Execution     what a FlightEndpoint's ticket names: a statement with its
//                 parameter rows, or a metadata result. DoGet runs it;
//                 CancelFlightInfo cancels it (and whatever DoGet runs it).
//
// Handles are 128 random bits in hex. Entries expire when idle (prepared
// statements after an hour, executions ten minutes after their last use)
// and go with their session; the number of live entries is bounded so that a
// client cannot exhaust memory by preparing forever.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "common/status.h"
#include "server/backend.h"

namespace quiver::server {

using Clock = std::chrono::steady_clock;
using ParameterRows = std::vector<std::vector<Value>>;

struct Prepared {
  std::string handle;
  std::string user;
  std::string session;
  std::string sql;  // as the client sent it
  std::shared_ptr<PreparedQuery> query;
  // Set by DoPut: one execution per row. GUARDED_BY(Registry::mu_).
  ParameterRows parameters;
  SchemaRef parameter_schema;  // of the bound batch
};

// Cancellation shared by an execution and the streams running it.
class CancelToken {
 public:
  // Cancels what runs now and what would start later.
  void Cancel();
  bool cancelled() const;
  // Registers a running stream; false (and nothing registered) when already
  // cancelled. Unregister before the stream goes away.
  bool Register(BatchStream* stream);
  void Unregister(BatchStream* stream);

 private:
  mutable std::mutex mu_;
  bool cancelled_ = false;          // GUARDED_BY(mu_)
  std::set<BatchStream*> running_;  // GUARDED_BY(mu_)
};

struct Execution {
  std::string handle;
  std::string user;
  std::string sql;  // for the log; the command's name for metadata results
  // A statement run by DoGet...
  std::shared_ptr<PreparedQuery> query;
  ParameterRows parameters;  // empty: once without parameters
  // ...or a result computed when the ticket was made (metadata commands,
  // and commands that already ran: an empty result).
  SchemaRef schema;
  std::vector<RecordBatchRef> batches;
  std::shared_ptr<CancelToken> cancel = std::make_shared<CancelToken>();
  Clock::time_point last_used;
  // The statement started when the ticket was made (GetFlightInfo), for the
  // first DoGet to take over, so its first rows are ready when the client
  // asks for them; registered with `cancel`. Dropped by the Handler when no
  // DoGet came for it soon enough.
  std::mutex started_mu;
  std::vector<std::unique_ptr<BatchStream>> started;  // per part; GUARDED_BY(started_mu)
  Clock::time_point started_at;                       // GUARDED_BY(started_mu)
  // The result in `parts` parts, a ticket (FlightInfo endpoint) each; the
  // parts share one scan of the table (ScanPartition::Group).
  int parts = 1;
  std::shared_ptr<ScanPartition::Group> partition_group;
};

struct Session {
  std::string key;
  std::string user;
  Clock::time_point last_used;  // GUARDED_BY(Registry::mu_)
  std::mutex mu;
  std::map<std::string, std::string> options;  // SetSessionOptions; GUARDED_BY(mu)
  std::vector<std::string> temporary_tables;   // GUARDED_BY(mu)
};

class Registry {
 public:
  static constexpr size_t kMaxEntries = 100000;

  // Prepared statements.
  Result<std::shared_ptr<Prepared>> AddPrepared(std::shared_ptr<Prepared> p);
  // Null when unknown, or owned by another user.
  std::shared_ptr<Prepared> FindPrepared(const std::string& handle, const std::string& user);
  bool RemovePrepared(const std::string& handle, const std::string& user);
  void SetParameters(Prepared* p, ParameterRows rows, SchemaRef schema);
  ParameterRows GetParameters(const Prepared& p);

  // Executions (tickets).
  Result<std::shared_ptr<Execution>> AddExecution(std::shared_ptr<Execution> e);
  std::shared_ptr<Execution> FindExecution(const std::string& handle, const std::string& user);

  // Sessions: found or created.
  std::shared_ptr<Session> GetSession(const std::string& key, const std::string& user);
  // The session of `key` when it exists (null otherwise); creates none.
  std::shared_ptr<Session> FindSession(const std::string& key);
  // Ends a session: its prepared statements go too. Returns it (null when
  // unknown) so the caller can drop its temporary tables.
  std::shared_ptr<Session> CloseSession(const std::string& key);
  // Sessions idle longer than `idle` (their temporary tables to be dropped).
  std::vector<std::shared_ptr<Session>> TakeIdleSessions(Clock::duration idle);

 private:
  void Sweep();  // REQUIRES: mu_ held

  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Prepared>> prepared_;     // GUARDED_BY(mu_)
  std::map<std::string, std::shared_ptr<Execution>> executions_;  // GUARDED_BY(mu_)
  std::map<std::string, std::shared_ptr<Session>> sessions_;      // GUARDED_BY(mu_)
  std::map<std::string, Clock::time_point> prepared_used_;        // GUARDED_BY(mu_)
  int64_t adds_since_sweep_ = 0;                                  // GUARDED_BY(mu_)
};

}  // namespace quiver::server
