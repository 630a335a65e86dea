// PostgreSQL's numeric division, avg and variance (see pg_numeric.h).
//
// Quotients whose scaled dividend fits 128 bits are computed in int128; the
// rest, and variances (N * sum(x^2) reaches ~380 bits), go through BigUint, a
// small unsigned integer of any width (binary long division and Newton's
// integer square root: a few per group, or per row in rare divisions).
#include "functions/pg_numeric.h"

#include <algorithm>
#include <vector>

namespace quiver::pg_numeric {
namespace {

using u128 = unsigned __int128;

constexpr int kDigits = 38;  // decimal128's precision

u128 Pow10U(int n) {
  static const auto table = [] {
    struct T {
      u128 v[39];
    } t{};
    t.v[0] = 1;
    for (int i = 1; i <= 38; ++i) t.v[i] = t.v[i - 1] * 10;
    return t;
  }();
  return table.v[n];
}

u128 Abs(int128_t v) { return v < 0 ? -static_cast<u128>(v) : static_cast<u128>(v); }

// Decimal digits of v (0 for 0; 39 for v >= 10^38). 64-bit values, the
// common case, from the bit length (1233 / 4096 ~ log10 2).
inline __attribute__((always_inline)) int DigitCount(u128 v) {
  if ((v >> 64) == 0) {
    const auto x = static_cast<uint64_t>(v);
    if (x == 0) return 0;
    const int d = ((64 - __builtin_clzll(x)) * 1233) >> 12;
    return d + (x >= static_cast<uint64_t>(Pow10U(d)) ? 1 : 0);
  }
  int n = 19;
  while (n <= kDigits && v >= Pow10U(n)) ++n;
  return n;
}

// An unsigned integer of any width: 32-bit limbs, least significant first,
// no high zero limbs (zero is empty).
class BigUint {
 public:
  BigUint() = default;
  explicit BigUint(u128 v) {
    while (v != 0) {
      limbs_.push_back(static_cast<uint32_t>(v));
      v >>= 32;
    }
  }
  static BigUint FromLimbs64(const uint64_t* limbs, int n) {
    BigUint r;
    for (int i = 0; i < n; ++i) {
      r.limbs_.push_back(static_cast<uint32_t>(limbs[i]));
      r.limbs_.push_back(static_cast<uint32_t>(limbs[i] >> 32));
    }
    r.Trim();
    return r;
  }
  static BigUint Pow10(int n) {
    BigUint r(1);
    for (; n >= 9; n -= 9) r.MulSmall(1000000000u);
    for (; n > 0; --n) r.MulSmall(10);
    return r;
  }

  bool IsZero() const { return limbs_.empty(); }
  int BitLength() const {
    if (limbs_.empty()) return 0;
    return static_cast<int>(limbs_.size() - 1) * 32 + (32 - __builtin_clz(limbs_.back()));
  }
  bool Bit(int i) const { return (limbs_[static_cast<size_t>(i / 32)] >> (i % 32)) & 1u; }

  // The value when it fits 128 bits.
  bool ToU128(u128* out) const {
    if (limbs_.size() > 4) return false;
    u128 v = 0;
    for (size_t i = limbs_.size(); i-- > 0;) v = (v << 32) | limbs_[i];
    *out = v;
    return true;
  }

  void MulSmall(uint32_t m) {
    uint64_t carry = 0;
    for (uint32_t& l : limbs_) {
      const uint64_t t = static_cast<uint64_t>(l) * m + carry;
      l = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    if (carry != 0) limbs_.push_back(static_cast<uint32_t>(carry));
    Trim();
  }
  // Divides by d in place; the remainder.
  uint32_t DivSmall(uint32_t d) {
    uint64_t rem = 0;
    for (size_t i = limbs_.size(); i-- > 0;) {
      const uint64_t cur = (rem << 32) | limbs_[i];
      limbs_[i] = static_cast<uint32_t>(cur / d);
      rem = cur % d;
    }
    Trim();
    return static_cast<uint32_t>(rem);
  }

  std::string ToDecimal() const {
    if (IsZero()) return "0";
    BigUint t = *this;
    std::string out;
    while (!t.IsZero()) {
      const uint32_t chunk = t.DivSmall(1000000000u);
      std::string part = std::to_string(chunk);
      if (!t.IsZero()) part.insert(0, 9 - part.size(), '0');
      out.insert(0, part);
    }
    return out;
  }

  friend int Compare(const BigUint& a, const BigUint& b) {
    if (a.limbs_.size() != b.limbs_.size()) return a.limbs_.size() < b.limbs_.size() ? -1 : 1;
    for (size_t i = a.limbs_.size(); i-- > 0;) {
      if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] < b.limbs_[i] ? -1 : 1;
    }
    return 0;
  }
  friend BigUint operator+(const BigUint& a, const BigUint& b) {
    BigUint r;
    const size_t n = std::max(a.limbs_.size(), b.limbs_.size());
    r.limbs_.resize(n + 1);
    uint64_t carry = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t t = static_cast<uint64_t>(a.Limb(i)) + b.Limb(i) + carry;
      r.limbs_[i] = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    r.limbs_[n] = static_cast<uint32_t>(carry);
    r.Trim();
    return r;
  }
  // REQUIRES: a >= b.
  friend BigUint operator-(const BigUint& a, const BigUint& b) {
    BigUint r;
    r.limbs_.resize(a.limbs_.size());
    int64_t borrow = 0;
    for (size_t i = 0; i < a.limbs_.size(); ++i) {
      int64_t t = static_cast<int64_t>(a.limbs_[i]) - b.Limb(i) - borrow;
      borrow = t < 0 ? 1 : 0;
      if (t < 0) t += int64_t{1} << 32;
      r.limbs_[i] = static_cast<uint32_t>(t);
    }
    r.Trim();
    return r;
  }
  friend BigUint operator*(const BigUint& a, const BigUint& b) {
    BigUint r;
    if (a.IsZero() || b.IsZero()) return r;
    r.limbs_.assign(a.limbs_.size() + b.limbs_.size(), 0);
    for (size_t i = 0; i < a.limbs_.size(); ++i) {
      uint64_t carry = 0;
      for (size_t j = 0; j < b.limbs_.size(); ++j) {
        const uint64_t t =
            static_cast<uint64_t>(a.limbs_[i]) * b.limbs_[j] + r.limbs_[i + j] + carry;
        r.limbs_[i + j] = static_cast<uint32_t>(t);
        carry = t >> 32;
      }
      r.limbs_[i + b.limbs_.size()] = static_cast<uint32_t>(carry);
    }
    r.Trim();
    return r;
  }
  // a = q * b + r, 0 <= r < b (binary long division). REQUIRES: b != 0.
  friend void DivMod(const BigUint& a, const BigUint& b, BigUint* q, BigUint* r) {
    BigUint quot, rem;
    quot.limbs_.assign(a.limbs_.size(), 0);
    for (int i = a.BitLength() - 1; i >= 0; --i) {
      rem.ShiftLeft1(a.Bit(i));
      if (Compare(rem, b) >= 0) {
        rem = rem - b;
        quot.limbs_[static_cast<size_t>(i / 32)] |= 1u << (i % 32);
      }
    }
    quot.Trim();
    *q = std::move(quot);
    *r = std::move(rem);
  }

  void ShiftRight1() {
    for (size_t i = 0; i < limbs_.size(); ++i) {
      limbs_[i] >>= 1;
      if (i + 1 < limbs_.size()) limbs_[i] |= limbs_[i + 1] << 31;
    }
    Trim();
  }

 private:
  uint32_t Limb(size_t i) const { return i < limbs_.size() ? limbs_[i] : 0; }
  void ShiftLeft1(bool low_bit) {
    uint32_t carry = low_bit ? 1 : 0;
    for (uint32_t& l : limbs_) {
      const uint32_t next = l >> 31;
      l = (l << 1) | carry;
      carry = next;
    }
    if (carry != 0) limbs_.push_back(carry);
  }
  void Trim() {
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
  }

  std::vector<uint32_t> limbs_;
};

// floor(sqrt(m)) by Newton's iteration from above.
BigUint IntegerSqrt(const BigUint& m) {
  if (m.IsZero()) return m;
  BigUint x = BigUint(1);
  for (int i = 0; i < (m.BitLength() + 1) / 2 + 1; ++i) x.MulSmall(2);  // x > sqrt(m)
  while (true) {
    BigUint q, r;
    DivMod(m, x, &q, &r);
    BigUint y = x + q;
    y.ShiftRight1();
    if (Compare(y, x) >= 0) return x;
    x = std::move(y);
  }
}

// round(a / b) half away from zero (here: up, both are magnitudes).
BigUint RoundedDivide(const BigUint& a, const BigUint& b) {
  BigUint q, r;
  DivMod(a, b, &q, &r);
  BigUint twice = r + r;
  if (Compare(twice, b) >= 0) q = q + BigUint(1);
  return q;
}

// PostgreSQL's weight (of the leading base-10000 digit) and that digit of
// a value with decimal digits `digits` (no leading zeros; "0" for zero) and
// `scale` digits after the point.
struct Lead {
  int weight;
  int first;
  int digits = 0;  // of the magnitude (LeadOf only)
};

int FloorDiv4(int d) { return d >= 0 ? d / 4 : -((-d + 3) / 4); }

Lead LeadOfDigits(const std::string& digits, int scale) {
  if (digits == "0") return {0, 0};
  const int len = static_cast<int>(digits.size());
  const int pos = len - 1 - scale;  // decimal position of the leading digit
  const int weight = FloorDiv4(pos);
  const int group = pos - 4 * weight + 1;  // digits in the leading base-10000 digit
  int first = 0;
  for (int i = 0; i < group; ++i)
    first = first * 10 + (i < len ? digits[static_cast<size_t>(i)] - '0' : 0);
  return {weight, first};
}

// x / 10^e for e in 0..19 by constant divisors (multiplications): a row's
// scale needs two, and a hardware divide costs as much as the quotient.
inline __attribute__((always_inline)) uint64_t DivPow10(uint64_t x, int e) {
  switch (e) {
#define QUIVER_DIV_CASE(n, p) \
  case n:                     \
    return x / p##ULL;
    QUIVER_DIV_CASE(0, 1)
    QUIVER_DIV_CASE(1, 10)
    QUIVER_DIV_CASE(2, 100)
    QUIVER_DIV_CASE(3, 1000)
    QUIVER_DIV_CASE(4, 10000)
    QUIVER_DIV_CASE(5, 100000)
    QUIVER_DIV_CASE(6, 1000000)
    QUIVER_DIV_CASE(7, 10000000)
    QUIVER_DIV_CASE(8, 100000000)
    QUIVER_DIV_CASE(9, 1000000000)
    QUIVER_DIV_CASE(10, 10000000000)
    QUIVER_DIV_CASE(11, 100000000000)
    QUIVER_DIV_CASE(12, 1000000000000)
    QUIVER_DIV_CASE(13, 10000000000000)
    QUIVER_DIV_CASE(14, 100000000000000)
    QUIVER_DIV_CASE(15, 1000000000000000)
    QUIVER_DIV_CASE(16, 10000000000000000)
    QUIVER_DIV_CASE(17, 100000000000000000)
    QUIVER_DIV_CASE(18, 1000000000000000000)
    QUIVER_DIV_CASE(19, 10000000000000000000)
#undef QUIVER_DIV_CASE
    default:
      return 0;
  }
}

inline __attribute__((always_inline)) Lead LeadOf(u128 m, int scale) {
  if (m == 0) return {0, 0};
  const int len = DigitCount(m);
  const int pos = len - 1 - scale;
  const int weight = FloorDiv4(pos);
  const int group = pos - 4 * weight + 1;
  u128 first;
  if (len < group) {
    first = m * Pow10U(group - len);
  } else if ((m >> 64) == 0) {
    first = DivPow10(static_cast<uint64_t>(m), len - group);
  } else {
    first = m / Pow10U(len - group);
  }
  return {weight, static_cast<int>(first), len};
}

// select_div_scale (numeric.c).
int DivScale(Lead x, int sx, Lead y, int sy) {
  int qweight = x.weight - y.weight;
  if (x.first <= y.first) --qweight;
  int r = 16 - qweight * 4;
  r = std::max({r, sx, sy, 0});
  return std::min(r, 1000);
}

std::string WithPoint(std::string digits, int scale, bool neg) {
  if (scale > 0) {
    if (static_cast<int>(digits.size()) <= scale) {
      digits.insert(0, static_cast<size_t>(scale + 1 - static_cast<int>(digits.size())), '0');
    }
    digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  }
  return neg && digits.find_first_not_of("0.") != std::string::npos ? "-" + digits : digits;
}

// Stores magnitude q (at scale `scale`) at `out_scale`: false when it has
// non-zero digits past out_scale or more than 38 digits.
bool FitU128(u128 q, int scale, int out_scale, u128* out) {
  if (q == 0) {
    *out = 0;
    return true;
  }
  if (scale <= out_scale) {
    const int d = out_scale - scale;
    if (d > kDigits) return false;
    if (q >= Pow10U(kDigits - d)) return false;
    *out = q * Pow10U(d);
    return true;
  }
  const int d = scale - out_scale;
  if (d > kDigits || q % Pow10U(d) != 0) return false;
  *out = q / Pow10U(d);
  return true;
}

bool FitBig(const BigUint& q, int scale, int out_scale, u128* out) {
  if (scale <= out_scale) {
    u128 v;
    return q.ToU128(&v) && FitU128(v, scale, out_scale, out);
  }
  BigUint rest = q;
  for (int d = scale - out_scale; d > 0; --d) {
    if (rest.DivSmall(10) != 0) return false;
  }
  u128 v;
  return rest.ToU128(&v) && FitU128(v, out_scale, out_scale, out);
}

// |a| * 10^k / |b| rounded, as a BigUint.
BigUint BigQuotient(u128 a, int k, u128 b) {
  BigUint num = BigUint(a) * BigUint::Pow10(k);
  return RoundedDivide(num, BigUint(b));
}

// |a| * 10^k / |b| rounded half up in 128 bits; false when it does not fit.
// REQUIRES: a_digits is a's digit count.
bool QuotientU128(u128 a, int a_digits, int k, u128 b, u128* q) {
  if (a_digits + k > kDigits) return false;  // a * 10^k might pass 128 bits
  const u128 num = a * Pow10U(k);
  u128 quot;
  if ((num >> 64) == 0 && (b >> 64) == 0) {
    quot = static_cast<uint64_t>(num) / static_cast<uint64_t>(b);
  } else {
    quot = num / b;
  }
  const u128 rem = num - quot * b;
  if (rem >= b - rem) ++quot;
  *q = quot;
  return true;
}

Status NotFit(const std::string& value, int out_scale, const char* what) {
  return Status::NotImplemented(
             "numeric {} result {} does not fit Quiver's numeric(38,{}) result column (38 "
             "digits, {} of them after the decimal point: Quiver's numeric has one scale per "
             "column, PostgreSQL's one per value)",
             what, value, out_scale, out_scale)
      .WithSqlState(sqlstate::kFeatureNotSupported)
      .WithHint("Cast an argument to double precision, or round the inputs.");
}

}  // namespace

int Divide(int128_t a, int sa, int128_t b, int sb, int out_scale, int128_t* out) {
  if (b == 0) {
    *out = 0;
    return kDivisionByZero;
  }
  const u128 ma = Abs(a), mb = Abs(b);
  const Lead la = LeadOf(ma, sa);
  const int r = DivScale(la, sa, LeadOf(mb, sb), sb);
  const int k = r - sa + sb;  // >= 0: r >= sa
  u128 q, fitted;
  bool fits;
  if (QuotientU128(ma, la.digits, k, mb, &q)) {
    fits = FitU128(q, r, out_scale, &fitted);
  } else {
    fits = FitBig(BigQuotient(ma, k, mb), r, out_scale, &fitted);
  }
  if (!fits) {
    *out = 0;
    return kDoesNotFit;
  }
  const bool neg = (a < 0) != (b < 0);
  *out = neg ? -static_cast<int128_t>(fitted) : static_cast<int128_t>(fitted);
  return kOk;
}

Status DivideError(int128_t a, int sa, int128_t b, int sb, int out_scale, const char* what) {
  if (b == 0) return Status::Invalid("division by zero").WithSqlState(sqlstate::kDivisionByZero);
  const u128 ma = Abs(a), mb = Abs(b);
  const int r = DivScale(LeadOf(ma, sa), sa, LeadOf(mb, sb), sb);
  const BigUint q = BigQuotient(ma, r - sa + sb, mb);
  return NotFit(WithPoint(q.ToDecimal(), r, (a < 0) != (b < 0)), out_scale, what);
}

int Multiply(int128_t a, int128_t b, int product_scale, int out_scale, int128_t* out) {
  const BigUint product = BigUint(Abs(a)) * BigUint(Abs(b));
  u128 fitted;
  if (!FitBig(product, product_scale, out_scale, &fitted)) {
    *out = 0;
    return kDoesNotFit;
  }
  const bool neg = (a < 0) != (b < 0);
  *out = neg ? -static_cast<int128_t>(fitted) : static_cast<int128_t>(fitted);
  return kOk;
}

Status MultiplyError(int128_t a, int128_t b, int product_scale, int out_scale) {
  const BigUint product = BigUint(Abs(a)) * BigUint(Abs(b));
  // PostgreSQL prints the product at its operands' scales, which may be
  // smaller than Quiver's columns': the value without trailing zeros.
  std::string text = WithPoint(product.ToDecimal(), product_scale, (a < 0) != (b < 0));
  if (text.find('.') != std::string::npos) {
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
  }
  return NotFit(text, out_scale, "multiplication");
}

bool CombineSquareSums(const SquareSums& src, SquareSums* dst) {
  dst->n += src.n;
  for (int i = 0; i < 6; ++i) AddWide(dst->sum_sq, 6, i, src.sum_sq[i]);
  return !__builtin_add_overflow(dst->sum, src.sum, &dst->sum);
}

Status Variance(const SquareSums& s, int scale, VarianceKind kind, int out_scale, int128_t* out,
                bool* is_null) {
  const bool sample = kind == VarianceKind::kVarSamp || kind == VarianceKind::kStddevSamp;
  const bool root = kind == VarianceKind::kStddevSamp || kind == VarianceKind::kStddevPop;
  *out = 0;
  *is_null = s.n == 0 || (sample && s.n <= 1);
  if (*is_null) return Status::OK();
  // numeric_stddev_internal: N * sum(x^2) - sum(x)^2 (scale 2s) over
  // N * (N - 1) or N * N (scale 0), at select_div_scale of the two.
  const u128 n = static_cast<u128>(s.n);
  const BigUint sum(Abs(s.sum));
  const BigUint left = BigUint(n) * BigUint::FromLimbs64(s.sum_sq, 6);
  const BigUint right = sum * sum;
  if (Compare(left, right) <= 0) return Status::OK();  // PostgreSQL's 0 for roundoff
  const BigUint num = left - right;
  const u128 den = sample ? n * (n - 1) : n * n;
  const int r = DivScale(LeadOfDigits(num.ToDecimal(), 2 * scale), 2 * scale, LeadOf(den, 0), 0);
  BigUint v = RoundedDivide(num * BigUint::Pow10(r - 2 * scale), BigUint(den));
  if (root) {
    // sqrt_var at scale r: sqrt(v * 10^-r) * 10^r = sqrt(v * 10^r), rounded.
    const BigUint m = v * BigUint::Pow10(r);
    BigUint f = IntegerSqrt(m);
    const BigUint rest = m - f * f;
    if (Compare(rest, f) > 0) f = f + BigUint(1);
    v = std::move(f);
  }
  u128 fitted;
  if (!FitBig(v, r, out_scale, &fitted)) {
    static const char* const kNames[] = {"var_samp", "var_pop", "stddev_samp", "stddev_pop"};
    return NotFit(WithPoint(v.ToDecimal(), r, false), out_scale, kNames[static_cast<int>(kind)]);
  }
  *out = static_cast<int128_t>(fitted);
  return Status::OK();
}

}  // namespace quiver::pg_numeric
