#include "common/memory_size.h"

#include <unistd.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace quiver {

int64_t PhysicalMemory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return int64_t{10} << 30;  // 80% of it: 8 GiB
  return static_cast<int64_t>(pages) * static_cast<int64_t>(page);
}

int64_t DefaultMemoryLimit() {
  return static_cast<int64_t>(static_cast<double>(PhysicalMemory()) * 0.8);
}

namespace {

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Status Invalid(std::string_view text, std::string_view why) {
  return Status::Invalid("invalid memory size '{}': {}; examples: 4GB, 512MB, 1.5GiB, 80%",
                         text, why);
}

// The multiplier of a unit (already lower case), 0 for an unknown one.
double UnitMultiplier(std::string_view unit) {
  if (unit.empty() || unit == "b") return 1;
  if (unit == "k" || unit == "kb" || unit == "kib") return 1024.0;
  if (unit == "m" || unit == "mb" || unit == "mib") return 1024.0 * 1024;
  if (unit == "g" || unit == "gb" || unit == "gib") return 1024.0 * 1024 * 1024;
  if (unit == "t" || unit == "tb" || unit == "tib") return 1024.0 * 1024 * 1024 * 1024;
  return 0;
}

}  // namespace

Result<int64_t> ParseMemorySize(std::string_view text) {
  std::string_view t = text;
  while (!t.empty() && IsSpace(t.front())) t.remove_prefix(1);
  while (!t.empty() && IsSpace(t.back())) t.remove_suffix(1);
  if (t.empty()) return Invalid(text, "empty");
  if (t.front() == '-') return Invalid(text, "must not be negative");
  if (t.front() == '+') t.remove_prefix(1);

  size_t n = 0;
  while (n < t.size() && (std::isdigit(static_cast<unsigned char>(t[n])) || t[n] == '.')) ++n;
  if (n == 0) {
    const std::string word = Lower(t.substr(0, 3));
    if (word == "nan" || word == "inf") return Invalid(text, "not a finite number");
    return Invalid(text, "expected a number");
  }
  // Only digits and '.' reach from_chars, so it cannot see a sign, an exponent,
  // hex, "inf" or "nan"; it must take the whole run ("1.2.3" leaves ".3").
  double num = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + n, num, std::chars_format::fixed);
  if (ec == std::errc::result_out_of_range) return Invalid(text, "too large");
  if (ec != std::errc() || end != t.data() + n) return Invalid(text, "malformed number");

  std::string_view rest = t.substr(n);
  while (!rest.empty() && IsSpace(rest.front())) rest.remove_prefix(1);
  const std::string unit = Lower(rest);
  double bytes;
  if (unit == "%") {
    bytes = static_cast<double>(PhysicalMemory()) * num / 100;
  } else {
    const double mult = UnitMultiplier(unit);
    if (mult == 0) return Invalid(text, "unknown unit '" + std::string(rest) + "' (B, KB, MB, GB, TB or %)");
    bytes = num * mult;
  }
  // 2^63 is exactly representable; every double below it fits in int64_t.
  if (!std::isfinite(bytes) || bytes >= 9223372036854775808.0) {
    return Invalid(text, "too large (at most 8 EiB)");
  }
  return static_cast<int64_t>(bytes);
}

}  // namespace quiver
