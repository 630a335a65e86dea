// A session: one connection's sequence of statements and its transaction
// block (engine/transaction.h). Database::NewSession makes one; the
// Database has its own for Execute / ExecuteScript / quiver sql.
#pragma once

#include <memory>
#include <mutex>

#include "engine/transaction.h"

namespace quiver {

class Session {
 public:
  // The open transaction block, or null (autocommit: each statement commits
  // on its own).
  std::shared_ptr<Transaction> transaction() const {
    std::lock_guard<std::mutex> lock(mu_);
    return transaction_;
  }
  void set_transaction(std::shared_ptr<Transaction> t) {
    std::lock_guard<std::mutex> lock(mu_);
    transaction_ = std::move(t);
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<Transaction> transaction_;  // GUARDED_BY(mu_)
};

}  // namespace quiver
