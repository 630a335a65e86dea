#include "catalog/catalog.h"

namespace quiver {

bool IdentifierEquals(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::pair<std::string, std::string> SplitQualifiedName(const std::string& name) {
  const size_t dot = name.find('.');
  if (dot == std::string::npos) return {"public", name};
  return {name.substr(0, dot), name.substr(dot + 1)};
}

std::string QualifiedName(const std::string& schema, const std::string& relation) {
  return schema == "public" ? relation : schema + "." + relation;
}

bool IsBuiltinSchema(const std::string& schema) {
  return schema == "public" || schema == "pg_catalog" || schema == "information_schema";
}

namespace {

Status MissingSchema(const std::string& name) {
  return Status::KeyError("schema \"{}\" does not exist", name)
      .WithSqlState(sqlstate::kInvalidSchemaName);
}

}  // namespace

Status Catalog::CreateSchema(const std::string& name, bool if_not_exists) {
  std::lock_guard<std::mutex> lock(mu_);
  if (IsBuiltinSchema(name) || schemas_.count(name)) {
    if (if_not_exists) return Status::OK();
    return Status::Invalid("schema \"{}\" already exists", name).WithSqlState("42P06");
  }
  schemas_[name] = "";
  return Status::OK();
}

Status Catalog::DropSchema(const std::string& name, bool if_exists, bool cascade) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!schemas_.count(name)) {
    if (IsBuiltinSchema(name)) {
      return Status::Unsupported("dropping schema \"{}\"", name)
          .WithSqlState(sqlstate::kFeatureNotSupported);
    }
    if (if_exists) return Status::OK();
    return MissingSchema(name);
  }
  const std::string prefix = name + ".";
  std::vector<std::string> inside;
  for (const auto& [n, e] : entries_) {
    if (n.compare(0, prefix.size(), prefix) == 0) inside.push_back(n);
  }
  if (!inside.empty() && !cascade) {
    std::string detail;
    for (const auto& n : inside) {
      auto e = entries_.find(n)->second;
      detail += fmt::format("{}{} {} depends on schema {}", detail.empty() ? "" : "\n",
                            e->view ? "view" : "table", n, name);
    }
    return Status::Invalid("cannot drop schema {} because other objects depend on it", name)
        .WithSqlState("2BP01")
        .WithDetail(detail)
        .WithHint("Use DROP ... CASCADE to drop the dependent objects too.");
  }
  for (const auto& n : inside) {
    for (auto i = indexes_.begin(); i != indexes_.end();) {
      i = i->second == n ? indexes_.erase(i) : std::next(i);
    }
    entries_.erase(n);
  }
  schemas_.erase(name);
  return Status::OK();
}

Status Catalog::CheckSchemaLocked(const std::string& name) const {
  const std::string schema = SplitQualifiedName(name).first;
  if (schema == "public" || schemas_.count(schema)) return Status::OK();
  if (IsBuiltinSchema(schema)) {
    return Status::Unsupported("creating relations in the system schema {}", schema)
        .WithSqlState(sqlstate::kFeatureNotSupported);
  }
  return MissingSchema(schema);
}

bool Catalog::HasSchema(const std::string& name) const {
  if (IsBuiltinSchema(name)) return true;
  std::lock_guard<std::mutex> lock(mu_);
  return schemas_.count(name) > 0;
}

std::vector<std::string> Catalog::SchemaNames() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [n, v] : schemas_) out.push_back(n);
  return out;
}

std::vector<std::string> Catalog::NamesInSchema(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string prefix = name + ".";
  std::vector<std::string> out;
  for (const auto& [n, e] : entries_) {
    if (n.compare(0, prefix.size(), prefix) == 0) out.push_back(n);
  }
  return out;
}

std::map<std::string, std::shared_ptr<const CatalogEntry>>::const_iterator Catalog::Find(
    const std::string& name) const {
  auto it = entries_.find(name);
  if (it != entries_.end()) return it;
  auto found = entries_.end();
  for (auto i = entries_.begin(); i != entries_.end(); ++i) {
    if (IdentifierEquals(i->first, name)) {
      if (found != entries_.end()) return entries_.end();  // ambiguous
      found = i;
    }
  }
  return found;
}

Status Catalog::CreateTable(const std::string& name, std::shared_ptr<TableSource> table,
                            bool replace) {
  std::lock_guard<std::mutex> lock(mu_);
  QUIVER_RETURN_NOT_OK(CheckSchemaLocked(name));
  auto it = entries_.find(name);
  if (it != entries_.end() && !replace)
    return Status::Invalid("relation \"{}\" already exists", name)
        .WithSqlState(sqlstate::kDuplicateTable);
  auto entry = std::make_shared<CatalogEntry>();
  entry->table = std::move(table);
  entries_[name] = std::move(entry);
  return Status::OK();
}

Status Catalog::CreateView(std::shared_ptr<const ViewDefinition> view, bool replace) {
  std::lock_guard<std::mutex> lock(mu_);
  QUIVER_RETURN_NOT_OK(CheckSchemaLocked(view->name));
  auto it = entries_.find(view->name);
  if (it != entries_.end()) {
    if (!replace)
      return Status::Invalid("relation \"{}\" already exists", view->name)
          .WithSqlState(sqlstate::kDuplicateTable);
    if (it->second->table)
      return Status::Invalid("\"{}\" is not a view", view->name)
          .WithSqlState(sqlstate::kWrongObjectType);
  }
  auto entry = std::make_shared<CatalogEntry>();
  const std::string name = view->name;
  entry->view = std::move(view);
  entries_[name] = std::move(entry);
  return Status::OK();
}

Status Catalog::Drop(const std::string& name, bool is_view, bool if_exists) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = Find(name);
  const char* what = is_view ? "view" : "table";
  if (it == entries_.end()) {
    if (if_exists) return Status::OK();
    return Status::KeyError("{} \"{}\" does not exist", what, name)
        .WithSqlState(sqlstate::kUndefinedTable);
  }
  if (is_view && it->second->table)
    return Status::TypeError("\"{}\" is not a view", name).WithSqlState(sqlstate::kWrongObjectType);
  if (!is_view && it->second->view)
    return Status::TypeError("\"{}\" is not a table", name)
        .WithSqlState(sqlstate::kWrongObjectType);
  // Indexes go with their table.
  for (auto i = indexes_.begin(); i != indexes_.end();) {
    i = i->second == it->first ? indexes_.erase(i) : std::next(i);
  }
  entries_.erase(it);
  return Status::OK();
}

std::shared_ptr<const CatalogEntry> Catalog::Lookup(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = Find(name);
  return it == entries_.end() ? nullptr : it->second;
}

Status Catalog::CreateIndex(const std::string& name, const std::string& table, bool if_not_exists) {
  std::lock_guard<std::mutex> lock(mu_);
  auto t = Find(table);
  if (t == entries_.end())
    return Status::KeyError("relation \"{}\" does not exist", table)
        .WithSqlState(sqlstate::kUndefinedTable);
  if (t->second->view)
    return Status::TypeError("\"{}\" is not a table", table)
        .WithSqlState(sqlstate::kWrongObjectType);
  const std::string key = name.empty() ? table + "_idx" + std::to_string(indexes_.size()) : name;
  if (indexes_.count(key) || entries_.count(key)) {
    if (if_not_exists) return Status::OK();
    return Status::Invalid("relation \"{}\" already exists", key)
        .WithSqlState(sqlstate::kDuplicateTable);
  }
  indexes_[key] = t->first;
  return Status::OK();
}

Status Catalog::DropIndex(const std::string& name, bool if_exists) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = indexes_.find(name);
  if (it == indexes_.end()) {
    if (if_exists) return Status::OK();
    return Status::KeyError("index \"{}\" does not exist", name)
        .WithSqlState(sqlstate::kUndefinedObject);
  }
  indexes_.erase(it);
  return Status::OK();
}

std::vector<std::string> Catalog::TableNames() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, e] : entries_) out.push_back(name);
  return out;
}

CatalogSnapshot Catalog::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return CatalogSnapshot{entries_, indexes_, schemas_};
}

void Catalog::Restore(CatalogSnapshot snapshot) {
  std::lock_guard<std::mutex> lock(mu_);
  entries_ = std::move(snapshot.entries);
  indexes_ = std::move(snapshot.indexes);
  schemas_ = std::move(snapshot.schemas);
}

namespace {

// The keys whose values differ between two maps.
template <typename Map>
std::vector<std::string> ChangedKeys(const Map& a, const Map& b) {
  std::vector<std::string> out;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end() || !(it->second == v)) out.push_back(k);
  }
  for (const auto& [k, v] : b) {
    if (!a.count(k)) out.push_back(k);
  }
  return out;
}

template <typename Map>
bool SameAt(const Map& a, const Map& b, const std::string& k) {
  auto x = a.find(k);
  auto y = b.find(k);
  if (x == a.end() || y == b.end()) return x == a.end() && y == b.end();
  return x->second == y->second;
}

template <typename Map>
void CopyAt(const Map& from, Map* to, const std::string& k) {
  auto it = from.find(k);
  if (it == from.end()) {
    to->erase(k);
  } else {
    (*to)[k] = it->second;
  }
}

}  // namespace

Status Catalog::Commit(const CatalogSnapshot& base, const CatalogSnapshot& next,
                       const std::function<Status()>& publish) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::vector<std::string> entries = ChangedKeys(base.entries, next.entries);
  const std::vector<std::string> indexes = ChangedKeys(base.indexes, next.indexes);
  for (const std::string& k : entries) {
    if (!SameAt(base.entries, entries_, k)) {
      return Status::Invalid(
                 "could not serialize access due to concurrent update (relation \"{}\" was "
                 "changed by another session since the transaction began)",
                 k)
          .WithSqlState("40001");  // serialization_failure
    }
  }
  for (const std::string& k : indexes) {
    if (!SameAt(base.indexes, indexes_, k)) {
      return Status::Invalid(
                 "could not serialize access due to concurrent update (index \"{}\")", k)
          .WithSqlState("40001");  // serialization_failure
    }
  }
  const std::vector<std::string> schemas = ChangedKeys(base.schemas, next.schemas);
  for (const std::string& k : schemas) {
    if (!SameAt(base.schemas, schemas_, k)) {
      return Status::Invalid(
                 "could not serialize access due to concurrent update (schema \"{}\")", k)
          .WithSqlState("40001");  // serialization_failure
    }
  }
  QUIVER_RETURN_NOT_OK(publish());
  for (const std::string& k : entries) CopyAt(next.entries, &entries_, k);
  for (const std::string& k : indexes) CopyAt(next.indexes, &indexes_, k);
  for (const std::string& k : schemas) CopyAt(next.schemas, &schemas_, k);
  return Status::OK();
}

}  // namespace quiver
