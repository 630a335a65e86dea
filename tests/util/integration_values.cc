// Value encodings of the Arrow integration JSON (see integration_values.h).
#include "util/integration_values.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

namespace quiver::testing {

using nlohmann::json;

std::string ToHex(std::string_view bytes) {
  static const char* kDigits = "0123456789ABCDEF";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

Result<std::string> FromHex(const std::string& hex) {
  if (hex.size() % 2 != 0) return Status::Invalid("golden json: odd-length hex '{}'", hex);
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return Status::Invalid("golden json: bad hex '{}'", hex);
    out[i] = static_cast<char>(hi * 16 + lo);
  }
  return out;
}

// JSON integers: numbers, or decimal strings for 64-bit values.
Result<int64_t> JsonInt(const json& v) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    int64_t out = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (ec == std::errc() && p == s.data() + s.size()) return out;
  }
  return Status::Invalid("golden json: not an int64: {}", v.dump());
}
Result<uint64_t> JsonUInt(const json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0)
    return static_cast<uint64_t>(v.get<int64_t>());
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    uint64_t out = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (ec == std::errc() && p == s.data() + s.size()) return out;
  }
  return Status::Invalid("golden json: not a uint64: {}", v.dump());
}

// Little-endian two's complement integer of `width` bytes -> decimal string.
std::string DecimalToString(const uint8_t* p, int width) {
  std::vector<uint32_t> limbs(static_cast<size_t>(width) / 4);
  std::memcpy(limbs.data(), p, static_cast<size_t>(width));
  const bool negative = (limbs.back() & 0x80000000u) != 0;
  if (negative) {
    uint64_t carry = 1;
    for (uint32_t& l : limbs) {
      uint64_t v = static_cast<uint64_t>(~l) + carry;
      l = static_cast<uint32_t>(v);
      carry = v >> 32;
    }
  }
  auto is_zero = [&] {
    return std::all_of(limbs.begin(), limbs.end(), [](uint32_t l) { return l == 0; });
  };
  if (is_zero()) return "0";
  std::string digits;
  while (!is_zero()) {
    uint64_t rem = 0;
    for (size_t i = limbs.size(); i-- > 0;) {
      uint64_t cur = (rem << 32) | limbs[i];
      limbs[i] = static_cast<uint32_t>(cur / 10);
      rem = cur % 10;
    }
    digits.push_back(static_cast<char>('0' + rem));
  }
  if (negative) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::string NormalizeDecimalString(std::string s) {
  bool negative = false;
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  while (i + 1 < s.size() && s[i] == '0') ++i;
  std::string digits = s.substr(i);
  if (digits == "0" || digits.empty()) return "0";
  return negative ? "-" + digits : digits;
}

double HalfToDouble(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 31, mant = h & 1023;
  double v;
  if (exp == 0) {
    v = std::ldexp(mant, -24);
  } else if (exp == 31) {
    v = mant ? std::nan("") : INFINITY;
  } else {
    v = std::ldexp(1024 + mant, exp - 25);
  }
  return sign ? -v : v;
}

uint16_t DoubleToHalf(double d) {
  const uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  const double a = std::fabs(d);
  if (std::isnan(d)) return sign | 0x7e00;
  if (a >= 65520.0) return sign | 0x7c00;
  if (a < std::ldexp(1.0, -14)) {  // subnormal, in units of 2^-24 (1024 rounds up to normal)
    return sign | static_cast<uint16_t>(std::nearbyint(a * std::ldexp(1.0, 24)));
  }
  int e = 0;
  const double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int biased = e - 1 + 15;
  double frac = std::nearbyint((m * 2 - 1) * 1024);
  if (frac == 1024) {
    frac = 0;
    ++biased;
  }
  if (biased >= 31) return sign | 0x7c00;
  return sign | static_cast<uint16_t>(biased << 10) | static_cast<uint16_t>(frac);
}

}  // namespace quiver::testing
