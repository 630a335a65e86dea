#include "engine/transaction.h"

#include <algorithm>

#include "catalog/memory_table.h"

namespace quiver {

namespace {

constexpr const char* kInvalidSavepoint = "3B001";  // invalid_savepoint_specification
constexpr const char* kSerializationFailure = "40001";

}  // namespace

Transaction::Transaction(Catalog* shared) : shared_(shared), base_(shared->Snapshot()) {
  private_.Restore(base_);
}

bool Transaction::aborted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return aborted_;
}

void Transaction::set_aborted(bool aborted) {
  std::lock_guard<std::mutex> lock(mu_);
  aborted_ = aborted;
}

bool Transaction::IsPrivate(const std::shared_ptr<const CatalogEntry>& entry) const {
  for (const auto& [name, e] : base_.entries) {
    if (e == entry) return false;
  }
  return true;
}

Status Transaction::PrepareWrite(const std::string& name) {
  std::shared_ptr<const CatalogEntry> entry = private_.Lookup(name);
  if (entry == nullptr || entry->table == nullptr) return Status::OK();  // the binder reports it
  auto table = std::dynamic_pointer_cast<MemoryTable>(entry->table);
  if (table == nullptr) return Status::OK();
  std::lock_guard<std::mutex> lock(mu_);
  if (IsPrivate(entry)) return Status::OK();
  // The name as stored (Lookup also matches case-insensitively).
  std::string key;
  for (const auto& [k, e] : private_.Snapshot().entries) {
    if (e == entry) key = k;
  }
  std::shared_ptr<MemoryTable> copy = table->Clone();
  clones_[copy.get()] = Clone{table, copy->version()};
  return private_.CreateTable(key, copy, /*replace=*/true);
}

Status Transaction::Savepoint(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  SavepointState s;
  s.name = name;
  s.catalog = private_.Snapshot();
  s.clones = clones_;
  for (const auto& [k, e] : s.catalog.entries) {
    if (e->table == nullptr) continue;
    auto t = std::dynamic_pointer_cast<MemoryTable>(e->table);
    if (t != nullptr && IsPrivate(e)) s.versions.emplace_back(t, t->version());
  }
  savepoints_.push_back(std::move(s));
  return Status::OK();
}

Status Transaction::RollbackTo(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = savepoints_.size(); i-- > 0;) {
    if (savepoints_[i].name != name) continue;
    // The savepoint stays (PostgreSQL's ROLLBACK TO keeps it); later ones go.
    savepoints_.resize(i + 1);
    const SavepointState& s = savepoints_[i];
    private_.Restore(s.catalog);
    clones_ = s.clones;
    for (const auto& [table, version] : s.versions) table->Restore(version);
    aborted_ = false;
    return Status::OK();
  }
  return Status::Invalid("savepoint \"{}\" does not exist", name).WithSqlState(kInvalidSavepoint);
}

Status Transaction::Release(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = savepoints_.size(); i-- > 0;) {
    if (savepoints_[i].name != name) continue;
    savepoints_.resize(i);  // it and every later one
    return Status::OK();
  }
  return Status::Invalid("savepoint \"{}\" does not exist", name).WithSqlState(kInvalidSavepoint);
}

Status Transaction::Commit() {
  std::lock_guard<std::mutex> lock(mu_);
  CatalogSnapshot next = private_.Snapshot();
  // A written table that kept its name commits by publishing the clone's
  // version into the original table: its entry stays the original's.
  struct Publish {
    std::shared_ptr<MemoryTable> origin;
    TableVersionRef base;
    TableVersionRef next;
  };
  std::vector<Publish> publish;
  for (auto& [name, entry] : next.entries) {
    if (entry->table == nullptr) continue;
    auto it = clones_.find(dynamic_cast<MemoryTable*>(entry->table.get()));
    if (it == clones_.end()) continue;
    auto b = base_.entries.find(name);
    if (b == base_.entries.end() || b->second->table != it->second.origin) continue;
    publish.push_back({it->second.origin, it->second.base, it->first->version()});
    entry = b->second;
  }
  std::sort(publish.begin(), publish.end(),
            [](const Publish& a, const Publish& b) { return a.origin.get() < b.origin.get(); });
  return shared_->Commit(base_, next, [&]() -> Status {
    // Every written table locked (in address order), checked, then swapped.
    std::vector<std::unique_lock<std::mutex>> locks;
    for (const Publish& p : publish) {
      locks.push_back(p.origin->LockWrites());
      if (p.origin->version() != p.base) {
        return Status::Invalid(
                   "could not serialize access due to concurrent update (table \"{}\" was "
                   "written by another session since this transaction first wrote it)",
                   p.origin->name())
            .WithSqlState(kSerializationFailure);
      }
    }
    for (const Publish& p : publish) p.origin->PublishLocked(p.next);
    return Status::OK();
  });
}

}  // namespace quiver
