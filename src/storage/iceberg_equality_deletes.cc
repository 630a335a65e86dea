#include "storage/iceberg_equality_deletes.h"

#include <algorithm>
#include <cstring>

#include "common/bit_util.h"

namespace quiver::iceberg {

namespace {

// Bytes an index entry holds besides its key: the node (link, cached hash,
// the string's own size, the sequence number) and its bucket.
constexpr int64_t kEntryOverhead = 64;

template <typename T>
void AppendFixed(const ArrayData& a, std::vector<std::string>* keys) {
  const T* values = a.GetValues<T>(1);
  for (int64_t r = 0; r < a.length; ++r) {
    std::string& k = (*keys)[static_cast<size_t>(r)];
    if (a.IsNull(r)) {
      k.push_back('\0');
      continue;
    }
    k.push_back('\1');
    k.append(reinterpret_cast<const char*>(values + r), sizeof(T));
  }
}

}  // namespace

Status CheckDeleteColumnType(const std::string& column, const DataType& type,
                             const std::string& file) {
  switch (type.id) {
    case TypeId::kBool:
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kInt64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kDecimal128:
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return Status::OK();
    default:
      return Status::Unsupported(
          "Iceberg equality delete file {}: delete column \"{}\" of type {} (delete columns of "
          "boolean, integer, date, time, timestamp, decimal, string and binary types are read)",
          file, column, type.ToString());
  }
}

Status AppendKeys(const ArrayData& a, std::vector<std::string>* keys) {
  switch (a.type->id) {
    case TypeId::kBool: {
      const uint8_t* bits = a.GetRaw<uint8_t>(1);
      for (int64_t r = 0; r < a.length; ++r) {
        std::string& k = (*keys)[static_cast<size_t>(r)];
        if (a.IsNull(r)) {
          k.push_back('\0');
          continue;
        }
        k.push_back('\1');
        k.push_back(bit_util::GetBit(bits, a.offset + r) ? '\1' : '\0');
      }
      return Status::OK();
    }
    case TypeId::kInt32:
    case TypeId::kDate32:
      AppendFixed<int32_t>(a, keys);
      return Status::OK();
    case TypeId::kInt64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
      AppendFixed<int64_t>(a, keys);
      return Status::OK();
    case TypeId::kDecimal128:
      AppendFixed<__int128>(a, keys);
      return Status::OK();
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      for (int64_t r = 0; r < a.length; ++r) {
        std::string& k = (*keys)[static_cast<size_t>(r)];
        if (a.IsNull(r)) {
          k.push_back('\0');
          continue;
        }
        const std::string_view v = a.GetString(r);
        const auto size = static_cast<uint32_t>(v.size());
        k.push_back('\1');
        k.append(reinterpret_cast<const char*>(&size), sizeof(size));
        k.append(v.data(), v.size());
      }
      return Status::OK();
    default:
      return Status::UnknownError("internal error: an equality delete key of type {}",
                                  a.type->ToString());
  }
}

Status EqualityDeleteIndex::Add(const EqualityDeleteFile& file, const std::vector<ArrayRef>& keys) {
  if (keys.size() != file.columns.size()) {
    return Status::UnknownError("internal error: {} key columns for {} delete columns", keys.size(),
                                file.columns.size());
  }
  auto it = std::find_if(groups_.begin(), groups_.end(),
                         [&](const Group& g) { return g.columns == file.columns; });
  if (it == groups_.end()) {
    groups_.emplace_back();
    groups_.back().columns = file.columns;
    it = groups_.end() - 1;
  }
  KeyMap& map = file.global ? it->global : it->scoped[file.scope];
  const int64_t n = keys.empty() ? 0 : keys[0]->length;
  std::vector<std::string> encoded(static_cast<size_t>(n));
  for (const ArrayRef& k : keys) QUIVER_RETURN_NOT_OK(AppendKeys(*k, &encoded));
  for (std::string& k : encoded) {
    const auto size = static_cast<int64_t>(k.size());
    auto [at, fresh] = map.try_emplace(std::move(k), file.sequence_number);
    if (!fresh) {
      at->second = std::max(at->second, file.sequence_number);
      continue;
    }
    bytes_ += kEntryOverhead + size;
    ++entries_;
  }
  return reservation_.Update(bytes_);
}

std::vector<EqualityDeleteIndex::Probe> EqualityDeleteIndex::ProbesFor(
    int64_t sequence_number, const std::string& scope) const {
  std::vector<Probe> out;
  for (const Group& g : groups_) {
    Probe p;
    p.columns = &g.columns;
    p.sequence_number = sequence_number;
    if (!g.global.empty()) p.global = &g.global;
    if (auto it = g.scoped.find(scope); it != g.scoped.end() && !it->second.empty()) {
      p.scoped = &it->second;
    }
    if (p.global != nullptr || p.scoped != nullptr) out.push_back(p);
  }
  return out;
}

Status EqualityDeleteIndex::Apply(const Probe& probe, const std::vector<ArrayRef>& keys,
                                  std::vector<uint8_t>* keep) {
  const auto n = static_cast<int64_t>(keep->size());
  std::vector<std::string> encoded(static_cast<size_t>(n));
  for (const ArrayRef& k : keys) {
    if (k->length != n) {
      return Status::UnknownError("internal error: a key column of {} rows for {}", k->length, n);
    }
    QUIVER_RETURN_NOT_OK(AppendKeys(*k, &encoded));
  }
  const auto reaches = [&](const KeyMap* map, const std::string& key) {
    if (map == nullptr) return false;
    auto it = map->find(key);
    return it != map->end() && it->second > probe.sequence_number;
  };
  for (size_t r = 0; r < encoded.size(); ++r) {
    if ((*keep)[r] == 0) continue;
    if (reaches(probe.global, encoded[r]) || reaches(probe.scoped, encoded[r])) (*keep)[r] = 0;
  }
  return Status::OK();
}

}  // namespace quiver::iceberg
