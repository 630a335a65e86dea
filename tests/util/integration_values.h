// Test helper: value encodings used by the Arrow integration JSON format
// (tests/util/integration_json.h) and their conversion from Arrow's binary
// layouts, shared by the comparer and its tests.
//
//   64-bit integers      JSON numbers or decimal strings ("-9223372036854775808")
//   decimals             decimal string of the unscaled integer; in memory a
//                        little-endian two's complement integer of 4/8/16/32 bytes
//   binary / fixed-size  upper- or lower-case hex ("00FF")
//   half floats          JSON numbers; in memory IEEE 754 binary16 bits
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace quiver::testing {

// Upper-case hex of `bytes`.
std::string ToHex(std::string_view bytes);
// Bytes of a hex string (either case); Invalid on odd length or a non-hex digit.
Result<std::string> FromHex(const std::string& hex);

// A JSON integer given as a number or as a decimal string.
Result<int64_t> JsonInt(const nlohmann::json& v);
Result<uint64_t> JsonUInt(const nlohmann::json& v);

// Little-endian two's complement integer of `width` (4, 8, 16, 32) bytes as a
// decimal string ("-170141183460469231731687303715884105728").
std::string DecimalToString(const uint8_t* p, int width);
// Canonical form of a decimal integer string: no '+', no leading zeros, "0" for -0.
std::string NormalizeDecimalString(std::string s);

// IEEE 754 binary16 <-> double (round to nearest even).
double HalfToDouble(uint16_t h);
uint16_t DoubleToHalf(double d);

}  // namespace quiver::testing
