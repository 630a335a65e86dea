// The server's log lines (query_log.h).
#include "server/query_log.h"

#include <chrono>
#include <cstdio>
#include <ctime>

#include <fmt/format.h>

namespace quiver::server {
namespace {

std::string Now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03d}Z", buf, static_cast<int>(ms));
}

// The statement on one line, cut at 200 bytes.
std::string Quoted(const std::string& text) {
  std::string out = "\"";
  bool space = false;
  for (size_t i = 0; i < text.size() && out.size() < 200; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      space = out.size() > 1;
      continue;
    }
    if (space) out += ' ';
    space = false;
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7F) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  if (out.size() >= 200) out += "...";
  return out + "\"";
}

}  // namespace

std::string StatementDigest(const std::string& text) {
  uint32_t h = 2166136261u;
  for (unsigned char c : text) {
    h ^= c;
    h *= 16777619u;
  }
  return fmt::format("{:08x}", h);
}

QueryLog::QueryLog(std::function<void(const std::string&)> sink, bool verbose)
    : sink_(std::move(sink)), verbose_(verbose) {}

void QueryLog::Write(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  if (sink_) {
    sink_(line);
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  }
}

void QueryLog::Query(const QueryRecord& r) {
  std::string outcome = "ok";
  if (!r.outcome.ok()) {
    std::string msg = r.outcome.message();
    if (msg.size() > 200) msg = msg.substr(0, 200) + "...";
    outcome = "error=" + Quoted(msg);
  }
  Write(fmt::format("{} query id={} user={} digest={} rows={} bytes={} time={:.1f}ms {} sql={}",
                    Now(), r.id, r.user.empty() ? "-" : r.user, StatementDigest(r.sql), r.rows,
                    r.bytes, r.seconds * 1000, outcome, Quoted(r.sql)));
}

void QueryLog::Rpc(const std::string& text) {
  if (verbose_) Write(Now() + " rpc " + text);
}

void QueryLog::Info(const std::string& text) { Write(Now() + " " + text); }

}  // namespace quiver::server
