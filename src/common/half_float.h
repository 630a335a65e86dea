// IEEE 754 binary16 ("half float", Arrow's HalfFloat, Parquet's FLOAT16) to
// float. Files store halves as raw uint16_t bits; nothing computes with them,
// so only this direction is needed: to print them, to compare them for
// statistics and to widen them to real in SQL.
#pragma once

#include <cmath>
#include <cstdint>

namespace quiver {

// Every half is exactly representable as a float, so the result is exact.
// Layout: 1 sign bit, 5 exponent bits (bias 15), 10 mantissa bits; exponent 0
// is zero or subnormal (mantissa * 2^-24), exponent 31 is infinity or NaN.
inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1;
  const int exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  float v;
  if (exp == 0) {
    v = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    v = mant ? NAN : INFINITY;
  } else {
    v = std::ldexp(static_cast<float>(mant | 0x400), exp - 25);
  }
  return sign ? -v : v;
}

}  // namespace quiver
