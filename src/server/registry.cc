// Sessions, prepared statements and executions (registry.h).
#include "server/registry.h"

#include <utility>

#include "server/auth.h"

namespace quiver::server {
namespace {

constexpr auto kPreparedIdle = std::chrono::hours(1);
constexpr auto kExecutionIdle = std::chrono::minutes(10);

}  // namespace

void CancelToken::Cancel() {
  std::lock_guard<std::mutex> lock(mu_);
  cancelled_ = true;
  for (BatchStream* s : running_) s->Cancel();
}

bool CancelToken::cancelled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancelled_;
}

bool CancelToken::Register(BatchStream* stream) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled_) return false;
  running_.insert(stream);
  return true;
}

void CancelToken::Unregister(BatchStream* stream) {
  std::lock_guard<std::mutex> lock(mu_);
  running_.erase(stream);
}

void Registry::Sweep() {
  adds_since_sweep_ = 0;
  const auto now = Clock::now();
  for (auto it = executions_.begin(); it != executions_.end();) {
    it = now - it->second->last_used > kExecutionIdle ? executions_.erase(it) : std::next(it);
  }
  for (auto it = prepared_used_.begin(); it != prepared_used_.end();) {
    if (now - it->second > kPreparedIdle) {
      prepared_.erase(it->first);
      it = prepared_used_.erase(it);
    } else {
      ++it;
    }
  }
}

Result<std::shared_ptr<Prepared>> Registry::AddPrepared(std::shared_ptr<Prepared> p) {
  std::lock_guard<std::mutex> lock(mu_);
  if (++adds_since_sweep_ >= 1024) Sweep();
  if (prepared_.size() >= kMaxEntries) {
    Sweep();
    if (prepared_.size() >= kMaxEntries) {
      return Status::OutOfMemory("too many open prepared statements ({}); close some", kMaxEntries);
    }
  }
  p->handle = RandomHex(16);
  prepared_[p->handle] = p;
  prepared_used_[p->handle] = Clock::now();
  return p;
}

std::shared_ptr<Prepared> Registry::FindPrepared(const std::string& handle,
                                                 const std::string& user) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = prepared_.find(handle);
  if (it == prepared_.end() || it->second->user != user) return nullptr;
  prepared_used_[handle] = Clock::now();
  return it->second;
}

bool Registry::RemovePrepared(const std::string& handle, const std::string& user) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = prepared_.find(handle);
  if (it == prepared_.end() || it->second->user != user) return false;
  prepared_.erase(it);
  prepared_used_.erase(handle);
  return true;
}

void Registry::SetParameters(Prepared* p, ParameterRows rows, SchemaRef schema) {
  std::lock_guard<std::mutex> lock(mu_);
  p->parameters = std::move(rows);
  p->parameter_schema = std::move(schema);
}

ParameterRows Registry::GetParameters(const Prepared& p) {
  std::lock_guard<std::mutex> lock(mu_);
  return p.parameters;
}

Result<std::shared_ptr<Execution>> Registry::AddExecution(std::shared_ptr<Execution> e) {
  std::lock_guard<std::mutex> lock(mu_);
  if (++adds_since_sweep_ >= 1024) Sweep();
  if (executions_.size() >= kMaxEntries) {
    Sweep();
    if (executions_.size() >= kMaxEntries) {
      return Status::OutOfMemory("too many pending results ({}); fetch or cancel them",
                                 kMaxEntries);
    }
  }
  e->handle = RandomHex(16);
  e->last_used = Clock::now();
  executions_[e->handle] = e;
  return e;
}

std::shared_ptr<Execution> Registry::FindExecution(const std::string& handle,
                                                   const std::string& user) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = executions_.find(handle);
  if (it == executions_.end() || it->second->user != user) return nullptr;
  it->second->last_used = Clock::now();
  return it->second;
}

std::shared_ptr<Session> Registry::GetSession(const std::string& key, const std::string& user) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& s = sessions_[key];
  if (s == nullptr) {
    s = std::make_shared<Session>();
    s->key = key;
    s->user = user;
  }
  s->last_used = Clock::now();
  return s;
}

std::shared_ptr<Session> Registry::FindSession(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(key);
  return it == sessions_.end() ? nullptr : it->second;
}

std::shared_ptr<Session> Registry::CloseSession(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(key);
  if (it == sessions_.end()) return nullptr;
  std::shared_ptr<Session> s = it->second;
  sessions_.erase(it);
  for (auto p = prepared_.begin(); p != prepared_.end();) {
    if (p->second->session == key) {
      prepared_used_.erase(p->first);
      p = prepared_.erase(p);
    } else {
      ++p;
    }
  }
  return s;
}

std::vector<std::shared_ptr<Session>> Registry::TakeIdleSessions(Clock::duration idle) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::shared_ptr<Session>> out;
  const auto now = Clock::now();
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (now - it->second->last_used > idle) {
      out.push_back(it->second);
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

}  // namespace quiver::server
