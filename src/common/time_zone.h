// Time zones for rendering zoned timestamps (Arrow's timestamp[unit, tz=...]).
//
// Arrow stores zoned timestamps as UTC instants; the zone only says how to
// show them. A zone is either a fixed offset ("+05:30", "-0800", "UTC") or an
// IANA name ("America/New_York") looked up in the system's compiled zoneinfo
// ($TZDIR, else /usr/share/zoneinfo). GCC 12's <chrono> has no tz database,
// hence this small reader of the TZif format (RFC 8536):
//
//   header  "TZif" version(1) reserved(15) then six big-endian uint32 counts:
//           isutcnt isstdcnt leapcnt timecnt typecnt charcnt
//   v1 data transition times (int32 x timecnt), type indices (uint8 x timecnt),
//           ttinfo (int32 utoff, uint8 isdst, uint8 desigidx) x typecnt,
//           abbreviations (charcnt), leap records (8 x leapcnt), isstd, isut
//   v2+     a second header and data block with 64-bit times (and 12-byte
//           leap records), then a POSIX TZ footer string
//
// Only the 64-bit block is used. Instants after the last transition keep the
// last offset: distributions ship "fat" files with transitions to 2037, so
// this is exact until then (the POSIX footer rule is not evaluated).
//
// Thread-safety: Find() is thread-safe (a mutex-guarded cache); TimeZone
// objects are immutable.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace quiver {

class TimeZone {
 public:
  // Zone by name; results (including failures) are cached per name.
  static Result<std::shared_ptr<const TimeZone>> Find(const std::string& name);
  // Parses TZif bytes (exposed for tests).
  static Result<std::shared_ptr<const TimeZone>> FromTzif(const std::string& name,
                                                          std::string_view bytes);
  // A fixed offset, in seconds east of UTC.
  static std::shared_ptr<const TimeZone> Fixed(const std::string& name, int32_t offset_seconds);

  // Seconds east of UTC in effect at `utc_seconds` (seconds since the epoch).
  int32_t OffsetAt(int64_t utc_seconds) const;
  const std::string& name() const { return name_; }

 private:
  TimeZone(std::string name, int32_t initial_offset)
      : name_(std::move(name)), initial_offset_(initial_offset) {}

  std::string name_;
  int32_t initial_offset_;            // before the first transition
  std::vector<int64_t> transitions_;  // ascending UTC seconds
  std::vector<int32_t> offsets_;      // offset from transitions_[i] on
};

// Parses "+HH:MM", "-HHMM" or "+HH" into seconds east of UTC.
bool ParseUtcOffset(std::string_view text, int32_t* seconds);

}  // namespace quiver
