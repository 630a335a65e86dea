// The server's log: one line per query, and with --verbose one per RPC.
//
//   2026-05-01T12:00:00.123Z query id=7 user=alice digest=9f2c01ab rows=100000
//     bytes=2400184 time=35.2ms ok sql="SELECT * FROM readings"
//
// The digest is a hash of the statement text (so repeated statements can be
// grouped without printing parameters twice); the text is cut at 200 bytes,
// control characters escaped.
//
// Thread-safety: all methods are thread-safe; lines are never interleaved.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "common/status.h"

namespace quiver::server {

struct QueryRecord {
  int64_t id = 0;
  std::string user;
  std::string sql;
  int64_t rows = 0;
  int64_t bytes = 0;
  double seconds = 0;
  Status outcome;
};

class QueryLog {
 public:
  QueryLog(std::function<void(const std::string&)> sink, bool verbose);

  bool verbose() const { return verbose_; }
  int64_t NextQueryId() { return next_id_.fetch_add(1) + 1; }
  void Query(const QueryRecord& r);
  // Only with verbose.
  void Rpc(const std::string& text);
  // Server events (start, stop, refused connections).
  void Info(const std::string& text);

 private:
  void Write(const std::string& line);

  std::function<void(const std::string&)> sink_;
  bool verbose_;
  std::atomic<int64_t> next_id_{0};
  std::mutex mu_;
};

// 8 hex digits of a 32-bit FNV-1a hash of `text`.
std::string StatementDigest(const std::string& text);

}  // namespace quiver::server
