// TZif reading and the zone cache (format notes in time_zone.h).
#include "common/time_zone.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <unordered_map>

namespace quiver {
namespace {

uint32_t ReadBE32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | u[3];
}

int64_t ReadBE64(const char* p) {
  return static_cast<int64_t>((uint64_t{ReadBE32(p)} << 32) | ReadBE32(p + 4));
}

struct TzifCounts {
  uint32_t isut, isstd, leap, time, type, chars;
};

// Parses the 44-byte header at `p` (size checked by the caller).
Status ReadHeader(std::string_view bytes, size_t pos, TzifCounts* c, char* version) {
  if (bytes.size() < pos + 44 || bytes.substr(pos, 4) != "TZif") {
    return Status::Invalid("not a TZif file");
  }
  const char* p = bytes.data() + pos;
  *version = p[4];
  *c = {ReadBE32(p + 20), ReadBE32(p + 24), ReadBE32(p + 28),
        ReadBE32(p + 32), ReadBE32(p + 36), ReadBE32(p + 40)};
  if (c->type == 0 || c->type > 256 || c->time > (1u << 20)) {
    return Status::Invalid("implausible TZif counts");
  }
  return Status::OK();
}

size_t DataSize(const TzifCounts& c, size_t time_size) {
  return size_t{c.time} * time_size + c.time + size_t{c.type} * 6 + c.chars +
         size_t{c.leap} * (time_size + 4) + c.isstd + c.isut;
}

// Names map to files under the zoneinfo root: refuse anything that could
// walk out of it.
bool IsSafeZoneName(const std::string& name) {
  if (name.empty() || name.front() == '/' || name.find("..") != std::string::npos) return false;
  return std::all_of(name.begin(), name.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '/' || ch == '_' || ch == '-' ||
           ch == '+';
  });
}

}  // namespace

bool ParseUtcOffset(std::string_view tz, int32_t* seconds) {
  if (tz.size() < 3 || (tz[0] != '+' && tz[0] != '-')) return false;
  std::string digits;
  for (char ch : tz.substr(1)) {
    if (ch == ':') continue;
    if (ch < '0' || ch > '9') return false;
    digits += ch;
  }
  if (digits.size() != 2 && digits.size() != 4) return false;
  const int hh = std::stoi(digits.substr(0, 2));
  const int mm = digits.size() == 4 ? std::stoi(digits.substr(2, 2)) : 0;
  if (hh > 23 || mm > 59) return false;
  *seconds = (hh * 3600 + mm * 60) * (tz[0] == '-' ? -1 : 1);
  return true;
}

std::shared_ptr<const TimeZone> TimeZone::Fixed(const std::string& name, int32_t offset) {
  return std::shared_ptr<const TimeZone>(new TimeZone(name, offset));
}

Result<std::shared_ptr<const TimeZone>> TimeZone::FromTzif(const std::string& name,
                                                           std::string_view bytes) {
  TzifCounts c;
  char version;
  QUIVER_RETURN_NOT_OK(ReadHeader(bytes, 0, &c, &version));
  size_t pos = 44;
  size_t time_size = 4;
  if (version >= '2') {  // skip the 32-bit block, use the 64-bit one
    pos += DataSize(c, 4);
    QUIVER_RETURN_NOT_OK(ReadHeader(bytes, pos, &c, &version));
    pos += 44;
    time_size = 8;
  }
  if (bytes.size() < pos + DataSize(c, time_size)) return Status::Invalid("truncated TZif data");
  const char* times = bytes.data() + pos;
  const char* indices = times + size_t{c.time} * time_size;
  const char* types = indices + c.time;
  auto offset_of = [&](uint32_t type) { return static_cast<int32_t>(ReadBE32(types + 6 * type)); };

  std::shared_ptr<TimeZone> zone(new TimeZone(name, offset_of(0)));
  zone->transitions_.reserve(c.time);
  zone->offsets_.reserve(c.time);
  for (uint32_t i = 0; i < c.time; ++i) {
    const int64_t t = time_size == 8 ? ReadBE64(times + 8 * size_t{i})
                                     : static_cast<int32_t>(ReadBE32(times + 4 * size_t{i}));
    const auto type = static_cast<uint8_t>(indices[i]);
    if (type >= c.type) return Status::Invalid("TZif transition with a bad type index");
    if (!zone->transitions_.empty() && t <= zone->transitions_.back()) {
      return Status::Invalid("TZif transitions out of order");
    }
    zone->transitions_.push_back(t);
    zone->offsets_.push_back(offset_of(type));
  }
  return std::shared_ptr<const TimeZone>(std::move(zone));
}

Result<std::shared_ptr<const TimeZone>> TimeZone::Find(const std::string& name) {
  static std::mutex mu;
  static std::unordered_map<std::string, Result<std::shared_ptr<const TimeZone>>> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(name); it != cache.end()) return it->second;

  auto load = [&]() -> Result<std::shared_ptr<const TimeZone>> {
    int32_t offset = 0;
    if (name == "UTC" || name == "Z" || name == "utc" || name == "Etc/UTC" || name == "GMT") {
      return Fixed(name, 0);
    }
    if (ParseUtcOffset(name, &offset)) return Fixed(name, offset);
    if (!IsSafeZoneName(name)) return Status::Invalid("unknown time zone '{}'", name);
    const char* dir = std::getenv("TZDIR");
    const std::string path =
        std::string(dir != nullptr && *dir != '\0' ? dir : "/usr/share/zoneinfo") + "/" + name;
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::Invalid("unknown time zone '{}' (no {})", name, path);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    auto zone = FromTzif(name, bytes.str());
    if (!zone.ok()) return zone.status().WithContext(path);
    return zone;
  };
  auto result = load();
  cache.emplace(name, result);
  return result;
}

int32_t TimeZone::OffsetAt(int64_t utc_seconds) const {
  // Last transition at or before the instant.
  const auto it = std::upper_bound(transitions_.begin(), transitions_.end(), utc_seconds);
  if (it == transitions_.begin()) return initial_offset_;
  return offsets_[static_cast<size_t>(it - transitions_.begin()) - 1];
}

}  // namespace quiver
