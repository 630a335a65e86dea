// PostgreSQL's numeric division, avg and variance results in Quiver's decimal128.
//
// PostgreSQL's numeric carries a scale per value. x / y is rounded half away
// from zero at select_div_scale(x, y) digits after the point (numeric.c):
// enough for 16 significant digits (NUMERIC_MIN_SIG_DIGITS, counted from the
// quotient's estimated base-10000 weight), at least either input's scale, at
// most 1000: 1 / 3 = 0.33333333333333333333 (20), 10000 / 3 =
// 3333.3333333333333333 (16). avg(x) is sum / count; var_* / stddev_* divide
// N * sum(x^2) - sum(x)^2 by N * (N - 1) (samp) or N * N (pop) the same way,
// stddev then taking the square root rounded at that scale.
//
// A decimal128 column has one scale for all its rows (kResultScale or the
// inputs' if larger), so these functions compute PostgreSQL's value exactly
// and store it at the column's scale, which only adds trailing zeros. A value
// with more digits after the point than the column holds, or more than 38
// digits in all, is refused (0A000) rather than rounded differently.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "vector/value.h"

namespace quiver::pg_numeric {

// The scale of a division's, avg's and variance's result column when the
// inputs' scales are smaller: PostgreSQL's scale for quotients in [1e-4, 1)
// (and anything with fewer digits), leaving 18 digits before the point.
inline constexpr int kResultScale = 20;

// Row outcomes of Divide / Variance.
enum Code : int { kOk = 0, kDivisionByZero = 2, kDoesNotFit = 4 };

// x / y for x = a * 10^-sa and y = b * 10^-sb as PostgreSQL's numeric_div,
// stored at `out_scale` in *out (38 digits).
int Divide(int128_t a, int sa, int128_t b, int sb, int out_scale, int128_t* out);

// The error for a row Divide refused: 22012 for a zero divisor, else 0A000
// naming PostgreSQL's quotient. `what` names the operation ("division").
Status DivideError(int128_t a, int sa, int128_t b, int sb, int out_scale, const char* what);

// x * y for x = a * 10^-sa and y = b * 10^-sb: PostgreSQL's exact product
// (scale sa + sb) stored at `out_scale` <= sa + sb in *out; kDoesNotFit
// when it has non-zero digits past out_scale or more than 38 digits.
int Multiply(int128_t a, int128_t b, int product_scale, int out_scale, int128_t* out);

// The error for a row Multiply refused (0A000 naming PostgreSQL's product).
Status MultiplyError(int128_t a, int128_t b, int product_scale, int out_scale);

// The running sums of a variance: count, sum(x), sum(x^2) (x at one scale).
struct SquareSums {
  int64_t n;
  int128_t sum;
  uint64_t sum_sq[6];  // little-endian 384-bit magnitude
};

// Adds v to the 64-bit limbs[at..n) (little-endian), carrying upwards.
inline void AddWide(uint64_t* limbs, int n, int at, unsigned __int128 v) {
  using u128 = unsigned __int128;
  u128 c = v;
  for (int i = at; i < n && c != 0; ++i) {
    const u128 t = static_cast<u128>(limbs[i]) + static_cast<uint64_t>(c);
    limbs[i] = static_cast<uint64_t>(t);
    c = (c >> 64) + (t >> 64);
  }
}

// Adds x to the sums; false when sum(x) leaves 128 bits.
inline bool AddToSquareSums(SquareSums* s, int128_t x) {
  using u128 = unsigned __int128;
  const bool overflow = __builtin_add_overflow(s->sum, x, &s->sum);
  ++s->n;
  const u128 m = x < 0 ? -static_cast<u128>(x) : static_cast<u128>(x);
  if ((m >> 64) == 0) {
    AddWide(s->sum_sq, 6, 0, m * m);
  } else {
    // m^2 = lo^2 + 2 * lo * hi * 2^64 + hi^2 * 2^128
    const u128 lo = static_cast<uint64_t>(m), hi = m >> 64;
    AddWide(s->sum_sq, 6, 0, lo * lo);
    AddWide(s->sum_sq, 6, 1, lo * hi);
    AddWide(s->sum_sq, 6, 1, lo * hi);
    AddWide(s->sum_sq, 6, 2, hi * hi);
  }
  return !overflow;
}

// Folds src into dst; false when sum(x) leaves 128 bits.
bool CombineSquareSums(const SquareSums& src, SquareSums* dst);

enum class VarianceKind { kVarSamp, kVarPop, kStddevSamp, kStddevPop };

// PostgreSQL's numeric var_* / stddev_* of sums over values at `scale`,
// stored at `out_scale` in *out. *is_null for too few rows; 0A000 when the
// value does not fit.
Status Variance(const SquareSums& s, int scale, VarianceKind kind, int out_scale, int128_t* out,
                bool* is_null);

}  // namespace quiver::pg_numeric
