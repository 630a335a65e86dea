// to_char(smallint | integer | bigint | numeric | real | double precision, template)
// and to_number(text, template), with PostgreSQL 15's numeric template
// patterns:
//
//   9 0 . , D G PR S L MI PL SG RN rn TH th V EEEE FM   (B, C and SP are
//   accepted and print nothing, as in PostgreSQL)
//
// Text in double quotes is copied (a backslash quotes the next character);
// anything else is copied as it is. The locale is C: D is '.', G is ',', L
// is a space (C has no currency symbol), S is '+' / '-'.
//
// Formatting follows PostgreSQL's NUM_processor to its corners: a value
// wider than the template's digits prints '#' for each digit; numeric rounds
// half away from zero to the template's decimals; double precision keeps at
// most 15 significant digits and real 6 (their printf digits, NaN and
// Infinity spelt as PostgreSQL spells them); FM drops padding and trailing
// zeros after the point; EEEE prints scientific notation (numeric and bigint
// exactly, integer and floats through printf). Reading (to_number) follows
// NUM_numpart_from_char: each digit pattern reads at most one digit, the
// decimal point pattern may read one more, signs are read where PostgreSQL
// reads them, and a literal in the template skips one input character. The
// result is numeric with the template's scale (digits after its point plus
// those of V): Quiver's numeric has one scale per column, where PostgreSQL's
// shows the digits read, so to_number('1.5', '9.99') is 1.50 (equal in value).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "functions/families.h"
#include "functions/function.h"
#include "functions/kernel_util.h"
#include "functions/numeric_format.h"
#include "vector/sql_type.h"

namespace quiver {
namespace {

using kernels::StringAccess;
using kernels::ValidAccess;

enum class Pat {
  kComma, kPoint, kZero, kNine, kB, kC, kD, kEEEE, kFM, kG, kL, kMI, kPL, kPR, kRN, kRNLower,
  kSG, kSP, kS, kTH, kTHLower, kV
};

struct PatDef {
  const char* text;
  Pat pat;
};

// In PostgreSQL's search order: the first entry that starts the rest of the
// template wins (so "SG" and "SP" before "S").
constexpr PatDef kPatterns[] = {
    {",", Pat::kComma}, {".", Pat::kPoint}, {"0", Pat::kZero},    {"9", Pat::kNine},
    {"B", Pat::kB},     {"C", Pat::kC},     {"D", Pat::kD},       {"EEEE", Pat::kEEEE},
    {"FM", Pat::kFM},   {"G", Pat::kG},     {"L", Pat::kL},       {"MI", Pat::kMI},
    {"PL", Pat::kPL},   {"PR", Pat::kPR},   {"RN", Pat::kRN},     {"SG", Pat::kSG},
    {"SP", Pat::kSP},   {"S", Pat::kS},     {"TH", Pat::kTH},     {"V", Pat::kV},
    {"b", Pat::kB},     {"c", Pat::kC},     {"d", Pat::kD},       {"eeee", Pat::kEEEE},
    {"fm", Pat::kFM},   {"g", Pat::kG},     {"l", Pat::kL},       {"mi", Pat::kMI},
    {"pl", Pat::kPL},   {"pr", Pat::kPR},   {"rn", Pat::kRNLower}, {"sg", Pat::kSG},
    {"sp", Pat::kSP},   {"s", Pat::kS},     {"th", Pat::kTHLower}, {"v", Pat::kV},
};

struct Node {
  bool is_pattern = false;
  Pat pat = Pat::kNine;
  std::string text;  // a literal: one character
};

enum class SignPos { kNone, kPre, kPost };

// What the template says about the number (PostgreSQL's NUMDesc).
struct Spec {
  int pre = 0;    // digit patterns before the decimal point
  int post = 0;   // and after it
  int multi = 0;  // digit patterns after V
  int zero_start = 0, zero_end = 0;  // first / last 0 pattern (1-based)
  int pre_lsign_num = 0;
  SignPos lsign = SignPos::kNone;
  bool decimal = false, ldecimal = false, zero = false, blank = false, fill = false,
       has_lsign = false, bracket = false, minus = false, plus = false, roman = false,
       has_multi = false, eeee = false;
};

size_t Utf8Len(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) return 2;
  if ((c & 0xF0) == 0xE0) return 3;
  if ((c & 0xF8) == 0xF0) return 4;
  return 1;
}

Status TemplateError(const std::string& message) {
  return Status::Invalid("{}", message).WithSqlState(sqlstate::kSyntaxError);
}

// PostgreSQL's NUMDesc_prepare: the effect of one pattern on the spec.
Status Describe(Pat p, Spec* s) {
  if (s->eeee && p != Pat::kEEEE) return TemplateError("\"EEEE\" must be the last pattern used");
  switch (p) {
    case Pat::kNine:
      if (s->bracket) return TemplateError("\"9\" must be ahead of \"PR\"");
      if (s->has_multi) {
        ++s->multi;
      } else if (s->decimal) {
        ++s->post;
      } else {
        ++s->pre;
      }
      break;
    case Pat::kZero:
      if (s->bracket) return TemplateError("\"0\" must be ahead of \"PR\"");
      if (!s->zero && !s->decimal) {
        s->zero = true;
        s->zero_start = s->pre + 1;
      }
      if (s->decimal) {
        ++s->post;
      } else {
        ++s->pre;
      }
      s->zero_end = s->pre + s->post;
      break;
    case Pat::kB:
      if (s->pre == 0 && s->post == 0 && !s->zero) s->blank = true;
      break;
    case Pat::kD:
    case Pat::kPoint:
      if (p == Pat::kD) s->ldecimal = true;
      if (s->decimal) return TemplateError("multiple decimal points");
      if (s->has_multi) return TemplateError("cannot use \"V\" and decimal point together");
      s->decimal = true;
      break;
    case Pat::kFM:
      s->fill = true;
      break;
    case Pat::kS:
      if (s->has_lsign) return TemplateError("cannot use \"S\" twice");
      if (s->plus || s->minus || s->bracket) {
        return TemplateError("cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together");
      }
      if (!s->decimal) {
        s->lsign = SignPos::kPre;
        s->pre_lsign_num = s->pre;
        s->has_lsign = true;
      } else if (s->lsign == SignPos::kNone) {
        s->lsign = SignPos::kPost;
        s->has_lsign = true;
      }
      break;
    case Pat::kMI:
      if (s->has_lsign) return TemplateError("cannot use \"S\" and \"MI\" together");
      s->minus = true;
      break;
    case Pat::kPL:
      if (s->has_lsign) return TemplateError("cannot use \"S\" and \"PL\" together");
      s->plus = true;
      break;
    case Pat::kSG:
      if (s->has_lsign) return TemplateError("cannot use \"S\" and \"SG\" together");
      s->minus = s->plus = true;
      break;
    case Pat::kPR:
      if (s->has_lsign || s->plus || s->minus) {
        return TemplateError("cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" together");
      }
      s->bracket = true;
      break;
    case Pat::kRN:
    case Pat::kRNLower:
      s->roman = true;
      break;
    case Pat::kV:
      if (s->decimal) return TemplateError("cannot use \"V\" and decimal point together");
      s->has_multi = true;
      break;
    case Pat::kEEEE:
      if (s->eeee) return TemplateError("cannot use \"EEEE\" twice");
      if (s->blank || s->fill || s->has_lsign || s->bracket || s->minus || s->plus || s->roman ||
          s->has_multi) {
        return TemplateError("\"EEEE\" is incompatible with other formats")
            .WithDetail("\"EEEE\" may only be used together with digit and decimal point patterns.");
      }
      s->eeee = true;
      break;
    default:
      break;
  }
  return Status::OK();
}

// Splits a template into patterns and literal characters.
Status ParseTemplate(std::string_view f, std::vector<Node>* nodes, Spec* spec) {
  size_t i = 0;
  while (i < f.size()) {
    const PatDef* found = nullptr;
    for (const PatDef& d : kPatterns) {
      const size_t n = std::strlen(d.text);
      if (f.substr(i, n) == d.text) {
        found = &d;
        break;
      }
    }
    if (found != nullptr) {
      Node node;
      node.is_pattern = true;
      node.pat = found->pat;
      QUIVER_RETURN_NOT_OK(Describe(found->pat, spec));
      nodes->push_back(std::move(node));
      i += std::strlen(found->text);
      continue;
    }
    if (f[i] == '"') {
      ++i;
      while (i < f.size()) {
        if (f[i] == '"') {
          ++i;
          break;
        }
        if (f[i] == '\\' && i + 1 < f.size()) ++i;
        const size_t n = std::min(Utf8Len(static_cast<unsigned char>(f[i])), f.size() - i);
        Node node;
        node.text = std::string(f.substr(i, n));
        nodes->push_back(std::move(node));
        i += n;
      }
      continue;
    }
    if (f[i] == '\\' && i + 1 < f.size() && f[i + 1] == '"') ++i;
    const size_t n = std::min(Utf8Len(static_cast<unsigned char>(f[i])), f.size() - i);
    Node node;
    node.text = std::string(f.substr(i, n));
    nodes->push_back(std::move(node));
    i += n;
  }
  return Status::OK();
}

// --- to_char -------------------------------------------------------------------

// The number to print: its digits (with a '.' and exactly spec.post digits
// after it, or '#' for each digit when it overflows the template), its sign
// ('+', '-', or 0 for Roman numerals) and the spaces before its first digit.
struct Prepared {
  std::string digits;
  int sign = 0;
  int pre_spaces = 0;
};

// The ordinal suffix of the number written as `num`.
Result<const char*> OrdinalSuffix(const std::string& num, bool upper) {
  if (num.empty() || !std::isdigit(static_cast<unsigned char>(num.back()))) {
    return Status::Invalid("\"{}\" is not a number", num).WithSqlState(sqlstate::kInvalidTextRepresentation);
  }
  char last = num.back();
  if (num.size() > 1 && num[num.size() - 2] == '1') last = '0';
  switch (last) {
    case '1':
      return upper ? "ST" : "st";
    case '2':
      return upper ? "ND" : "nd";
    case '3':
      return upper ? "RD" : "rd";
    default:
      return upper ? "TH" : "th";
  }
}

// Writes the formatted number (PostgreSQL's NUM_processor for to_char).
class Formatter {
 public:
  Formatter(const std::vector<Node>& nodes, Spec spec, Prepared p)
      : nodes_(nodes), s_(spec), number_(std::move(p.digits)), sign_(p.sign), pre_spaces_(p.pre_spaces) {}

  Result<std::string> Run() {
    if (s_.zero_start > 0) --s_.zero_start;
    if (s_.eeee) return number_;  // the whole output, literals and all
    if (s_.roman) {
      const bool fill = s_.fill;
      s_ = Spec{};
      s_.fill = fill;
      s_.roman = true;
      pre_spaces_ = 0;
    }
    if (s_.plus || s_.minus) {
      sign_wrote_ = !(s_.plus && !s_.minus);  // PL alone still signs the number
    } else {
      if (sign_ != '-' && s_.fill) s_.bracket = false;
      sign_wrote_ = sign_ == '+' && s_.fill && !s_.has_lsign;
      if (s_.lsign == SignPos::kPre && s_.pre == s_.pre_lsign_num) s_.lsign = SignPos::kPost;
    }
    num_count_ = s_.post + s_.pre - 1;
    if (s_.fill && s_.decimal) {
      last_relevant_ = LastRelevantDecimal();
      if (last_relevant_ >= 0 && s_.zero_end > pre_spaces_) {
        const int last_zero = std::min(static_cast<int>(number_.size()) - 1, s_.zero_end - pre_spaces_);
        if (last_relevant_ < last_zero) last_relevant_ = last_zero;
      }
    }
    if (!sign_wrote_ && pre_spaces_ == 0) ++num_count_;

    for (const Node& n : nodes_) {
      if (!n.is_pattern) {
        out_ += n.text;
        continue;
      }
      switch (n.pat) {
        case Pat::kNine:
        case Pat::kZero:
        case Pat::kPoint:
        case Pat::kD:
          Digit(n.pat);
          break;
        case Pat::kComma:
        case Pat::kG:
          if (num_in_) {
            out_ += ',';
          } else if (!s_.fill) {
            out_ += ' ';
          }
          break;
        case Pat::kL:
          out_ += ' ';  // the C locale has no currency symbol
          break;
        case Pat::kRN:
        case Pat::kRNLower: {
          std::string r = number_.substr(std::min(pos_, number_.size()));
          if (n.pat == Pat::kRNLower) {
            for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          }
          if (!s_.fill && r.size() < 15) out_.append(15 - r.size(), ' ');
          out_ += r;
          break;
        }
        case Pat::kTH:
        case Pat::kTHLower: {
          if (s_.roman || (!number_.empty() && number_[0] == '#') || sign_ == '-' || s_.decimal) break;
          QUIVER_ASSIGN_OR_RAISE(const char* th, OrdinalSuffix(number_, n.pat == Pat::kTH));
          out_ += th;
          break;
        }
        case Pat::kMI:
          if (sign_ == '-') {
            out_ += '-';
          } else if (!s_.fill) {
            out_ += ' ';
          }
          break;
        case Pat::kPL:
          if (sign_ == '+') {
            out_ += '+';
          } else if (!s_.fill) {
            out_ += ' ';
          }
          break;
        case Pat::kSG:
          out_ += static_cast<char>(sign_);  // 0 for Roman numerals: ends the text
          break;
        default:
          break;
      }
    }
    // PostgreSQL builds the text in a C string: a NUL written where the
    // number ran out of characters ends it.
    const size_t nul = out_.find('\0');
    if (nul != std::string::npos) out_.resize(nul);
    return std::move(out_);
  }

 private:
  char At(size_t i) const { return i < number_.size() ? number_[i] : '\0'; }

  // The position of the last digit after the point that is not zero (the
  // point's own when all are), -1 without a point.
  int LastRelevantDecimal() const {
    const size_t point = number_.find('.');
    if (point == std::string::npos) return -1;
    int r = static_cast<int>(point);
    for (size_t i = point + 1; i < number_.size(); ++i) {
      if (number_[i] != '0') r = static_cast<int>(i);
    }
    return r;
  }
  bool LastRelevantIsPoint() const { return last_relevant_ >= 0 && number_[static_cast<size_t>(last_relevant_)] == '.'; }
  // "0.1" under "9.9" prints " .1": the leading zero is a blank.
  bool PredecimalSpace() const { return !s_.zero && pos_ == 0 && At(0) == '0' && s_.post != 0; }

  void Digit(Pat pat) {
    if (s_.roman) return;
    num_in_ = false;
    if (!sign_wrote_ &&
        (num_curr_ >= pre_spaces_ || (s_.zero && s_.zero_start == num_curr_)) &&
        (!PredecimalSpace() || LastRelevantIsPoint())) {
      if (s_.has_lsign) {
        if (s_.lsign == SignPos::kPre) {
          out_ += sign_ == '-' ? '-' : '+';
          sign_wrote_ = true;
        }
      } else if (s_.bracket) {
        out_ += sign_ == '+' ? ' ' : '<';
        sign_wrote_ = true;
      } else if (sign_ == '+') {
        if (!s_.fill) out_ += ' ';
        sign_wrote_ = true;
      } else if (sign_ == '-') {
        out_ += '-';
        sign_wrote_ = true;
      }
    }
    if (num_curr_ < pre_spaces_ && (s_.zero_start > num_curr_ || !s_.zero)) {
      if (!s_.fill) out_ += ' ';
    } else if (s_.zero && num_curr_ < pre_spaces_ && s_.zero_start <= num_curr_) {
      out_ += '0';
      num_in_ = true;
    } else {
      if (At(pos_) == '.') {
        if (!LastRelevantIsPoint() || s_.fill) out_ += '.';
      } else if (last_relevant_ >= 0 && static_cast<int>(pos_) > last_relevant_ && pat != Pat::kZero) {
        // a trailing zero that FM drops
      } else if (PredecimalSpace()) {
        if (!s_.fill) {
          out_ += ' ';
        } else if (LastRelevantIsPoint()) {
          out_ += '0';
        }
      } else {
        out_ += At(pos_);
        num_in_ = true;
      }
      if (At(pos_) != '\0') ++pos_;
    }
    int end = num_count_ + (pre_spaces_ ? 1 : 0) + (s_.decimal ? 1 : 0);
    if (last_relevant_ >= 0 && last_relevant_ == static_cast<int>(pos_)) end = num_curr_;
    if (num_curr_ + 1 == end) {
      if (sign_wrote_ && s_.bracket) {
        out_ += sign_ == '+' ? ' ' : '>';
      } else if (s_.has_lsign && s_.lsign == SignPos::kPost) {
        out_ += sign_ == '-' ? '-' : '+';
      }
    }
    ++num_curr_;
  }

  const std::vector<Node>& nodes_;
  Spec s_;
  std::string number_;
  int sign_;
  int pre_spaces_;
  bool sign_wrote_ = false;
  bool num_in_ = false;
  int num_count_ = 0;
  int num_curr_ = 0;
  size_t pos_ = 0;
  int last_relevant_ = -1;
  std::string out_;
};

std::string Roman(int64_t v) {
  if (v < 1 || v > 3999) return std::string(15, '#');
  static const char* const kOnes[] = {"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"};
  static const char* const kTens[] = {"", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"};
  static const char* const kHundreds[] = {"", "C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"};
  std::string r(static_cast<size_t>(v / 1000), 'M');
  r += kHundreds[v / 100 % 10];
  r += kTens[v / 10 % 10];
  r += kOnes[v % 10];
  return r;
}

// Pads or overflows `digits` (no sign; '.' and decimals included) against
// the template's digits before the point.
void FitDigits(const Spec& spec, Prepared* p) {
  const size_t point = p->digits.find('.');
  const int pre_len = static_cast<int>(point == std::string::npos ? p->digits.size() : point);
  if (pre_len < spec.pre) {
    p->pre_spaces = spec.pre - pre_len;
  } else if (pre_len > spec.pre) {
    p->digits.assign(static_cast<size_t>(spec.pre + spec.post + 1), '#');
    p->digits[static_cast<size_t>(spec.pre)] = '.';
  }
}

enum class Kind { kInt4, kInt8, kNumeric, kReal, kDouble };

// An exact decimal: |value| = digits * 10^-scale (digits without a sign).
struct Exact {
  bool negative = false;
  std::string digits;  // at least one digit
  int scale = 0;
};

// Rounds half away from zero to `places` decimals and writes "ddd.ddd"
// (exactly `places` decimals; no point when 0), leading "0" before the point.
std::string ExactText(Exact x, int places) {
  if (x.scale > places) {
    const size_t drop = static_cast<size_t>(x.scale - places);
    if (x.digits.size() < drop) x.digits.insert(0, drop - x.digits.size(), '0');
    const bool up = x.digits[x.digits.size() - drop] >= '5';
    x.digits.resize(x.digits.size() - drop);
    if (x.digits.empty()) x.digits = "0";
    if (up) {
      size_t i = x.digits.size();
      while (i > 0) {
        --i;
        if (x.digits[i] == '9') {
          x.digits[i] = '0';
          if (i == 0) x.digits.insert(0, "1");
        } else {
          ++x.digits[i];
          break;
        }
      }
    }
  } else if (x.scale < places) {
    x.digits.append(static_cast<size_t>(places - x.scale), '0');
  }
  std::string d = x.digits;
  if (static_cast<int>(d.size()) <= places) d.insert(0, static_cast<size_t>(places + 1) - d.size(), '0');
  // Strip leading zeros of the integer part, keeping one.
  size_t int_len = d.size() - static_cast<size_t>(places);
  size_t lead = 0;
  while (lead + 1 < int_len && d[lead] == '0') ++lead;
  d.erase(0, lead);
  int_len -= lead;
  if (places > 0) d.insert(int_len, ".");
  return d;
}

bool ExactIsZero(const Exact& x) { return x.digits.find_first_not_of('0') == std::string::npos; }

// PostgreSQL's numeric_out_sci: one digit before the point, `places` after
// it (rounded half away from zero, which may give "10.0"), then e+NN.
std::string ExactScientific(const Exact& x, int places) {
  Exact m = x;
  int exponent = 0;
  const size_t first = m.digits.find_first_not_of('0');
  if (first == std::string::npos) {
    m.digits = "0";
    m.scale = 0;
  } else {
    m.digits.erase(0, first);
    exponent = static_cast<int>(m.digits.size()) - m.scale - 1;
    m.scale = static_cast<int>(m.digits.size()) - 1;  // the significand d.ddd
  }
  m.negative = false;
  std::string r = (x.negative && !ExactIsZero(x) ? "-" : "") + ExactText(m, places);
  char e[16];
  std::snprintf(e, sizeof e, "e%+03d", exponent);
  return r + e;
}

Exact DecimalExact(int128_t v, int scale) {
  Exact x;
  x.negative = v < 0;
  std::string s = FormatDecimal(v < 0 ? -v : v, 0);
  if (v == std::numeric_limits<int128_t>::min()) s = s.substr(1);  // never a 38-digit decimal
  x.digits = s;
  x.scale = scale;
  return x;
}

Exact IntExact(int64_t v) {
  Exact x;
  x.negative = v < 0;
  const uint64_t a = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  x.digits = std::to_string(a);
  return x;
}

Status IntegerOutOfRange() {
  return Status::Invalid("integer out of range").WithSqlState(sqlstate::kNumericValueOutOfRange);
}

// Rounds half away from zero to an integer (numeric's cast to integer).
Result<int64_t> ExactToInt32(const Exact& x) {
  const std::string t = ExactText(x, 0);
  if (t.size() > 10) return IntegerOutOfRange();
  const int64_t v = std::stoll(t) * (x.negative ? -1 : 1);
  if (v < INT32_MIN || v > INT32_MAX) return IntegerOutOfRange();
  return v;
}

// to_char of an exact value (numeric, bigint, integer).
Result<Prepared> PrepareExact(const Exact& x, Spec* spec, Kind kind) {
  Prepared p;
  if (spec->roman) {
    // PostgreSQL 15 casts to integer first: out of its range is an error.
    QUIVER_ASSIGN_OR_RAISE(int64_t v, ExactToInt32(x));
    p.digits = Roman(v);
    return p;
  }
  const bool int4 = kind == Kind::kInt4;
  if (spec->eeee) {
    if (int4) {
      // PostgreSQL prints integer through printf("%+.*e") of a double.
      double d = std::stod((x.negative ? "-" : "") + x.digits);
      char buf[512];
      std::snprintf(buf, sizeof buf, "%+.*e", spec->post, d);
      p.digits = buf;
      if (p.digits[0] == '+') p.digits[0] = ' ';
      return p;
    }
    p.digits = ExactScientific(x, spec->post);
    if (p.digits[0] != '-') p.digits.insert(0, " ");
    return p;
  }
  Exact v = x;
  if (spec->has_multi && int4) {
    // PostgreSQL multiplies in 32 bits and lets the product wrap around
    // (10^multi past the range becomes INT32_MIN, as the C cast gives on x86).
    const int32_t value = static_cast<int32_t>(std::stoll(x.digits) * (x.negative ? -1 : 1));
    const double m = std::pow(10.0, spec->multi);
    const int32_t factor = m < 2147483648.0 ? static_cast<int32_t>(m) : INT32_MIN;
    const auto product = static_cast<int32_t>(static_cast<uint32_t>(value) * static_cast<uint32_t>(factor));
    v = IntExact(product);
    spec->pre += spec->multi;
  } else if (spec->has_multi && kind == Kind::kInt8) {
    // int8mul: an error past bigint's range (10^19 and up is one already).
    const int64_t value = std::stoll((x.negative ? "-" : "") + x.digits);
    int64_t factor = 1, product = 0;
    for (int k = 0; k < spec->multi; ++k) {
      if (__builtin_mul_overflow(factor, int64_t{10}, &factor)) {
        return Status::Invalid("bigint out of range").WithSqlState(sqlstate::kNumericValueOutOfRange);
      }
    }
    if (__builtin_mul_overflow(value, factor, &product)) {
      return Status::Invalid("bigint out of range").WithSqlState(sqlstate::kNumericValueOutOfRange);
    }
    v = IntExact(product);
    spec->pre += spec->multi;
  } else if (spec->has_multi) {
    v.scale -= spec->multi;
    if (v.scale < 0) {
      v.digits.append(static_cast<size_t>(-v.scale), '0');
      v.scale = 0;
    }
    spec->pre += spec->multi;
  }
  p.digits = ExactText(v, spec->post);
  // A negative value that rounds to zero prints as zero, without its sign.
  p.sign = v.negative && p.digits.find_first_not_of("0.") != std::string::npos ? '-' : '+';
  FitDigits(*spec, &p);
  return p;
}

// printf's %f / %e, with NaN and Infinity spelt as PostgreSQL's snprintf spells them.
std::string PgPrintf(const char* fmt, int precision, double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v < 0 ? "-Infinity" : "Infinity";
  std::vector<char> buf(512);
  int n = std::snprintf(buf.data(), buf.size(), fmt, precision, v);
  if (n >= static_cast<int>(buf.size())) {
    buf.resize(static_cast<size_t>(n) + 1);
    std::snprintf(buf.data(), buf.size(), fmt, precision, v);
  }
  return buf.data();
}

Prepared PrepareFloat(double value, bool real, Spec* spec) {
  Prepared p;
  if (spec->roman) {
    const double r = std::nearbyint(value);
    p.digits = Roman(!std::isnan(r) && r >= -2147483648.0 && r < 2147483648.0 ? static_cast<int64_t>(r) : INT32_MAX);
    return p;
  }
  if (spec->eeee) {
    if (std::isnan(value) || std::isinf(value)) {
      p.digits.assign(static_cast<size_t>(spec->pre + spec->post + 6), '#');
      p.digits[0] = ' ';
      p.digits[static_cast<size_t>(spec->pre + 1)] = '.';
    } else {
      p.digits = PgPrintf("%+.*e", spec->post, value);
      if (p.digits[0] == '+') p.digits[0] = ' ';
    }
    return p;
  }
  double val = value;
  if (spec->has_multi) {
    if (real) {
      val = static_cast<double>(static_cast<float>(value) * static_cast<float>(std::pow(10.0, spec->multi)));
    } else {
      val = value * std::pow(10.0, spec->multi);
    }
    spec->pre += spec->multi;
  }
  const int max_digits = real ? 6 : 15;  // FLT_DIG, DBL_DIG
  const int pre_len = static_cast<int>(PgPrintf("%.*f", 0, std::fabs(val)).size());
  if (pre_len >= max_digits) {
    spec->post = 0;
  } else if (pre_len + spec->post > max_digits) {
    spec->post = max_digits - pre_len;
  }
  std::string text = PgPrintf("%.*f", spec->post, val);
  if (!text.empty() && text[0] == '-') {
    p.sign = '-';
    text.erase(0, 1);
  } else {
    p.sign = '+';
  }
  p.digits = std::move(text);
  FitDigits(*spec, &p);
  return p;
}

// One template's parse, kept while consecutive rows share it.
struct CachedTemplate {
  std::string text;
  bool valid = false;
  Status error;
  std::vector<Node> nodes;
  Spec spec;

  const Status& Parse(std::string_view f) {
    if (valid && text == f) return error;
    text = std::string(f);
    valid = true;
    nodes.clear();
    spec = Spec{};
    error = ParseTemplate(f, &nodes, &spec);
    return error;
  }
};

Result<ArrayRef> ToCharKernel(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                              const TypeRef& out_type, Kind kind) {
  kernels::StringOutput out(out_type, n, ctx.pool);
  ValidAccess v0(args[0]), v1(args[1]);
  StringAccess f(args[1]);
  CachedTemplate tmpl;
  const int dec_scale = kind == Kind::kNumeric ? args[0].array->type->scale : 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!v0(i) || !v1(i)) {
      QUIVER_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    const std::string_view format = f(i);
    if (format.empty()) {  // PostgreSQL gives an empty text, not NULL
      QUIVER_RETURN_NOT_OK(out.Append(""));
      continue;
    }
    QUIVER_RETURN_NOT_OK(tmpl.Parse(format));
    Spec spec = tmpl.spec;
    Prepared p;
    const int64_t row = args[0].index(i);
    switch (kind) {
      case Kind::kInt4:
      case Kind::kInt8: {
        QUIVER_ASSIGN_OR_RAISE(p, PrepareExact(IntExact(kernels::ReadInt(args[0], i)), &spec, kind));
        break;
      }
      case Kind::kNumeric: {
        QUIVER_ASSIGN_OR_RAISE(
            p, PrepareExact(DecimalExact(LoadValue(args[0].values<int128_t>() + row), dec_scale), &spec, kind));
        break;
      }
      case Kind::kReal:
        p = PrepareFloat(static_cast<double>(args[0].values<float>()[row]), true, &spec);
        break;
      case Kind::kDouble:
        p = PrepareFloat(args[0].values<double>()[row], false, &spec);
        break;
    }
    Formatter fmt(tmpl.nodes, spec, std::move(p));
    QUIVER_ASSIGN_OR_RAISE(std::string s, fmt.Run());
    QUIVER_RETURN_NOT_OK(out.Append(s));
  }
  return out.Finish();
}

// --- to_number -----------------------------------------------------------------

// Reads the number (PostgreSQL's NUM_processor for to_number): the sign
// (' ', '-' or '+') then digits with an optional point.
class Reader {
 public:
  Reader(const std::vector<Node>& nodes, const Spec& spec, std::string_view in)
      : nodes_(nodes), s_(spec), in_(in) {}

  std::string Run() {
    number_ = " ";
    for (const Node& n : nodes_) {
      if (AtEnd()) break;
      if (!n.is_pattern) {
        p_ += Utf8Len(static_cast<unsigned char>(in_[p_]));
        continue;
      }
      switch (n.pat) {
        case Pat::kNine:
        case Pat::kZero:
        case Pat::kPoint:
        case Pat::kD:
          ReadPart(n.pat);
          ++p_;
          break;
        case Pat::kComma:
        case Pat::kG:
          // Outside FM a ',' is skipped where the template has one.
          if (!s_.fill && in_[p_] == ',') ++p_;
          break;
        case Pat::kL:
          EatNonData(1);
          break;
        case Pat::kTH:
        case Pat::kTHLower:
          if (!s_.decimal) EatNonData(2);
          break;
        case Pat::kMI:
          if (in_[p_] == '-') {
            number_[0] = '-';
            ++p_;
          } else {
            EatNonData(1);
          }
          break;
        case Pat::kPL:
          if (in_[p_] == '+') {
            number_[0] = '+';
            ++p_;
          } else {
            EatNonData(1);
          }
          break;
        case Pat::kSG:
          if (in_[p_] == '-' || in_[p_] == '+') {
            number_[0] = in_[p_];
            ++p_;
          } else {
            EatNonData(1);
          }
          break;
        default:
          break;
      }
    }
    if (number_.back() == '.') number_.pop_back();
    return number_;
  }

  int read_post() const { return read_post_; }

 private:
  bool AtEnd() const { return p_ >= in_.size(); }
  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

  void EatNonData(int n) {
    while (n-- > 0 && !AtEnd() && std::strchr("0123456789.,+-", in_[p_]) == nullptr) {
      p_ += Utf8Len(static_cast<unsigned char>(in_[p_]));
    }
  }

  void ReadPart(Pat pat) {
    if (AtEnd()) return;
    if (in_[p_] == ' ') ++p_;
    if (AtEnd()) return;
    // A sign before the number.
    if (number_[0] == ' ' && (pat == Pat::kZero || pat == Pat::kNine) && read_pre_ + read_post_ == 0) {
      if (s_.has_lsign && s_.lsign == SignPos::kPre) {
        if (in_[p_] == '-' || in_[p_] == '+') number_[0] = in_[p_++];
      } else if (in_[p_] == '-' || (s_.bracket && in_[p_] == '<')) {
        number_[0] = '-';
        ++p_;
      } else if (in_[p_] == '+') {
        number_[0] = '+';
        ++p_;
      }
    }
    if (AtEnd()) return;
    bool read = false;
    if (IsDigit(in_[p_])) {
      if (read_dec_ && read_post_ == s_.post) return;
      number_ += in_[p_];
      if (read_dec_) {
        ++read_post_;
      } else {
        ++read_pre_;
      }
      read = true;
    } else if (s_.decimal && !read_dec_ && in_[p_] == '.') {
      number_ += '.';
      read_dec_ = true;
      read = true;
    }
    if (AtEnd()) return;
    // A sign after the last digit read.
    if (number_[0] == ' ' && read_pre_ + read_post_ > 0) {
      if (s_.has_lsign && read && p_ + 1 < in_.size() && !IsDigit(in_[p_ + 1])) {
        if (in_[p_ + 1] == '-' || in_[p_ + 1] == '+') {
          number_[0] = in_[p_ + 1];
          ++p_;
        }
      } else if (!read && !s_.has_lsign && (s_.plus || s_.minus)) {
        if (in_[p_] == '-' || in_[p_] == '+') number_[0] = in_[p_];
      }
    }
  }

  const std::vector<Node>& nodes_;
  const Spec& s_;
  std::string_view in_;
  size_t p_ = 0;
  std::string number_;
  bool read_dec_ = false;
  int read_pre_ = 0, read_post_ = 0;
};

Status Unreadable(const std::string& number) {
  return Status::Invalid("invalid input syntax for type numeric: \"{}\"", number)
      .WithSqlState(sqlstate::kInvalidTextRepresentation);
}

// to_number of one row as a decimal of `out_scale`.
Result<int128_t> ToNumber(std::string_view in, const CachedTemplate& tmpl, int out_scale) {
  const Spec& spec = tmpl.spec;
  if (spec.eeee) {
    return Status::Invalid("\"EEEE\" not supported for input").WithSqlState(sqlstate::kFeatureNotSupported);
  }
  if (spec.roman) {
    return Status::Invalid("\"RN\" not supported for input").WithSqlState(sqlstate::kFeatureNotSupported);
  }
  Reader reader(tmpl.nodes, spec, in);
  const std::string number = reader.Run();
  // number: sign, digits, maybe '.' and digits (what numeric_in then reads).
  std::string digits;
  int scale = 0;
  bool point = false;
  for (size_t i = 1; i < number.size(); ++i) {
    if (number[i] == '.') {
      point = true;
    } else {
      digits += number[i];
      if (point) ++scale;
    }
  }
  if (digits.empty()) return Unreadable(number);
  // numeric_in's typmod: precision = the template's digits before the point
  // (and after V) plus the decimals read, scale = the decimals read.
  const int precision = spec.pre + spec.multi + scale;
  const size_t first = digits.find_first_not_of('0');
  if (first != std::string::npos) {
    const int int_digits = static_cast<int>(digits.size() - first) - scale;
    const int max_digits = precision - scale;
    if (int_digits > max_digits) {
      return Status::Invalid("numeric field overflow")
          .WithSqlState(sqlstate::kNumericValueOutOfRange)
          .WithDetail(fmt::format("A field with precision {}, scale {} must round to an absolute value less than {}.",
                                  precision, scale, max_digits ? fmt::format("10^{}", max_digits) : "1"));
    }
    digits.erase(0, first);
  } else {
    digits = "0";
  }
  // V divides by 10^multi; then the column's scale.
  scale += spec.multi;
  if (scale > out_scale) {
    return Status::Invalid("to_number: the template's scale changed").WithSqlState(sqlstate::kInternalError);
  }
  digits.append(static_cast<size_t>(out_scale - scale), '0');
  const size_t sig = digits.find_first_not_of('0');
  if (sig != std::string::npos && digits.size() - sig > static_cast<size_t>(kMaxDecimalPrecision)) {
    return Status::Invalid("numeric field overflow")
        .WithSqlState(sqlstate::kNumericValueOutOfRange)
        .WithDetail(fmt::format("Quiver's numeric holds at most {} digits; to_number's result here is numeric(38, {}).",
                                kMaxDecimalPrecision, out_scale));
  }
  int128_t v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  return number[0] == '-' ? -v : v;
}

}  // namespace

Result<int> ToNumberScale(std::string_view format) {
  std::vector<Node> nodes;
  Spec spec;
  QUIVER_RETURN_NOT_OK(ParseTemplate(format, &nodes, &spec));
  if (spec.eeee || spec.roman) return 0;  // refused when it runs
  return spec.post + spec.multi;
}

void RegisterNumericFormatFunctions(FunctionRegistry* r) {
  const TypeRef text = utf8();
  struct Overload {
    TypeRef type;
    Kind kind;
  };
  for (const Overload& o : {Overload{int16(), Kind::kInt4}, Overload{int32(), Kind::kInt4},
                            Overload{int64(), Kind::kInt8}, Overload{AnyDecimal(), Kind::kNumeric},
                            Overload{float32(), Kind::kReal}, Overload{float64(), Kind::kDouble}}) {
    const Kind kind = o.kind;
    r->Add({"to_char", {o.type, text}, nullptr, text, nullptr,
            [kind](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n, const TypeRef& out_type) {
              return ToCharKernel(ctx, args, n, out_type, kind);
            }});
  }
  // The result scale is set by the binder from the (constant) template.
  r->Add({"to_number", {text, text}, nullptr, decimal128(kMaxDecimalPrecision, 0), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
             const TypeRef& out_type) -> Result<ArrayRef> {
            QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, args, n, ctx.pool));
            StringAccess s(args[0]), f(args[1]);
            CachedTemplate tmpl;
            int128_t* dst = out.data<int128_t>();
            std::vector<int64_t> empty_template;  // NULL, as PostgreSQL gives
            for (int64_t i = 0; i < n; ++i) {
              if (!out.IsValid(i)) continue;
              const std::string_view format = f(i);
              if (format.empty()) {
                empty_template.push_back(i);
                continue;
              }
              QUIVER_RETURN_NOT_OK(tmpl.Parse(format));
              QUIVER_ASSIGN_OR_RAISE(int128_t v, ToNumber(s(i), tmpl, out_type->scale));
              std::memcpy(dst + i, &v, sizeof v);
            }
            if (!empty_template.empty()) {
              QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, ctx.pool));
              for (int64_t i = 0; i < n; ++i) bit_util::SetBitTo(bits->mutable_data(), i, out.IsValid(i));
              for (int64_t i : empty_template) bit_util::ClearBit(bits->mutable_data(), i);
              out.null_count = n - bit_util::CountSetBits(bits->data(), 0, n);
              out.validity = std::move(bits);
            }
            return kernels::FinishFixed(out_type, n, std::move(out));
          }});
}

}  // namespace quiver
