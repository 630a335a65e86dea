// to_char(timestamp | timestamptz | date, format), to_date(text, format) and
// to_timestamp(text, format), with PostgreSQL 15's template patterns:
//
//   YYYY YYY YY Y Y,YYY  IYYY IYY IY I  CC  Q  MM  DD  DDD  D  ID  IDDD  WW  W  IW  J
//   HH HH12 HH24  MI  SS  MS  US  FF1..FF6  SSSS SSSSS  AM PM A.M. P.M. (and lower case)
//   AD BC A.D. B.C.  Month MONTH month  Mon MON mon  Day DAY day  Dy DY dy  RM rm
//   TZ tz TZH TZM OF
//
// with the prefix FM (no padding; TM and FX are accepted and change nothing
// here: names are English, as in PostgreSQL's C locale) and the suffix
// TH / th (ordinal). Text in double quotes is copied; a backslash before a
// double quote gives the quote. Anything else is copied as it is.
//
// The session time zone is UTC, so timestamptz renders as UTC and TZ prints
// "UTC" (empty for a timestamp without a zone, as in PostgreSQL).
//
// Parsing (to_date / to_timestamp) follows PostgreSQL's non-FX mode: a
// separator or space in the template skips any run of separators and spaces
// in the input, numeric fields read digits up to their width (or, when
// followed by a separator, as many as are there), names match case-
// insensitively. Fields it cannot read are refused with PostgreSQL's errors.
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/calendar.h"
#include "functions/families.h"
#include "functions/function.h"
#include "functions/kernel_util.h"

namespace quiver {
namespace {

using kernels::StringAccess;
using kernels::ValidAccess;

constexpr std::array<const char*, 12> kMonths = {"January", "February", "March",     "April",
                                                 "May",     "June",     "July",      "August",
                                                 "September", "October", "November", "December"};
constexpr std::array<const char*, 7> kDays = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                              "Thursday", "Friday", "Saturday"};
constexpr std::array<const char*, 12> kRoman = {"I",   "II", "III", "IV", "V",  "VI",
                                                "VII", "VIII", "IX", "X", "XI", "XII"};

enum class Key {
  kYComma, kYYYY, kYYY, kYY, kY, kIYYY, kIYY, kIY, kI, kCC, kQ, kMM, kDDD, kDD, kD, kIDDD, kID,
  kWW, kW, kIW, kJ, kHH24, kHH12, kHH, kMI, kSSSSS, kSSSS, kSS, kMS, kUS, kFF1, kFF2, kFF3, kFF4,
  kFF5, kFF6, kAM, kPM, kAMDots, kPMDots, kAD, kBC, kADDots, kBCDots, kMonth, kMon, kDay, kDy,
  kRM, kTZ, kTZH, kTZM, kOF, kNone
};

enum class Case { kUpper, kCapital, kLower };

struct KeyDef {
  const char* upper;  // matched as written, and in lower case (and capitalized for names)
  Key key;
};

// Longest first where one keyword starts another.
constexpr KeyDef kKeys[] = {
    {"A.D.", Key::kADDots}, {"A.M.", Key::kAMDots}, {"AD", Key::kAD},       {"AM", Key::kAM},
    {"B.C.", Key::kBCDots}, {"BC", Key::kBC},       {"CC", Key::kCC},       {"DAY", Key::kDay},
    {"DDD", Key::kDDD},     {"DD", Key::kDD},       {"DY", Key::kDy},       {"D", Key::kD},
    {"FF1", Key::kFF1},     {"FF2", Key::kFF2},     {"FF3", Key::kFF3},     {"FF4", Key::kFF4},
    {"FF5", Key::kFF5},     {"FF6", Key::kFF6},     {"HH24", Key::kHH24},   {"HH12", Key::kHH12},
    {"HH", Key::kHH},       {"IDDD", Key::kIDDD},   {"ID", Key::kID},       {"IW", Key::kIW},
    {"IYYY", Key::kIYYY},   {"IYY", Key::kIYY},     {"IY", Key::kIY},       {"I", Key::kI},
    {"J", Key::kJ},         {"MI", Key::kMI},       {"MM", Key::kMM},       {"MONTH", Key::kMonth},
    {"MON", Key::kMon},     {"MS", Key::kMS},       {"OF", Key::kOF},       {"P.M.", Key::kPMDots},
    {"PM", Key::kPM},       {"Q", Key::kQ},         {"RM", Key::kRM},       {"SSSSS", Key::kSSSSS},
    {"SSSS", Key::kSSSS},   {"SS", Key::kSS},       {"TZH", Key::kTZH},     {"TZM", Key::kTZM},
    {"TZ", Key::kTZ},       {"US", Key::kUS},       {"WW", Key::kWW},       {"W", Key::kW},
    {"Y,YYY", Key::kYComma}, {"YYYY", Key::kYYYY},  {"YYY", Key::kYYY},     {"YY", Key::kYY},
    {"Y", Key::kY},
};

bool IsNameKey(Key k) {
  return k == Key::kMonth || k == Key::kMon || k == Key::kDay || k == Key::kDy;
}

// The keyword at f[i] and how it was written; kNone when there is none.
Key MatchKey(std::string_view f, size_t i, size_t* len, Case* c) {
  for (const KeyDef& d : kKeys) {
    const size_t n = std::strlen(d.upper);
    if (i + n > f.size()) continue;
    const std::string_view s = f.substr(i, n);
    bool upper = true, lower = true, capital = true;
    for (size_t k = 0; k < n; ++k) {
      const char u = d.upper[k];
      const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(u)));
      upper = upper && s[k] == u;
      lower = lower && s[k] == l;
      capital = capital && s[k] == (k == 0 ? u : l);
    }
    if (!(upper || lower || (capital && IsNameKey(d.key)))) continue;
    *len = n;
    *c = upper ? Case::kUpper : lower ? Case::kLower : Case::kCapital;
    // Upper-case names (MONTH) and lower-case ones (month) keep their case;
    // a keyword of one letter is upper if written so.
    return d.key;
  }
  return Key::kNone;
}

std::string Cased(std::string_view name, Case c) {
  std::string s(name);
  for (size_t k = 0; k < s.size(); ++k) {
    const unsigned char ch = static_cast<unsigned char>(s[k]);
    if (c == Case::kUpper || (c == Case::kCapital && k == 0)) {
      s[k] = static_cast<char>(std::toupper(ch));
    } else {
      s[k] = static_cast<char>(std::tolower(ch));
    }
  }
  return s;
}

const char* Ordinal(int64_t v, bool upper) {
  const int64_t a = v < 0 ? -v : v;
  const int64_t last = a % 10;
  const bool teen = a % 100 >= 11 && a % 100 <= 13;
  if (!teen && last == 1) return upper ? "ST" : "st";
  if (!teen && last == 2) return upper ? "ND" : "nd";
  if (!teen && last == 3) return upper ? "RD" : "rd";
  return upper ? "TH" : "th";
}

struct Fields {
  int64_t year;  // astronomical
  unsigned month, day;
  int64_t days;  // since 1970-01-01
  int64_t micros_of_day;
};

// ISO 8601 week-numbering year and week of a day.
void IsoWeek(int64_t days, int64_t* iso_year, int64_t* week) {
  const int64_t y = CivilFromDays(days).year;
  auto week1 = [](int64_t year) {
    const int64_t jan4 = DaysFromCivil(year, 1, 4);
    return jan4 - (IsoDayOfWeek(jan4) - 1);
  };
  int64_t start = week1(y + 1);
  int64_t year = y + 1;
  if (days < start) {
    start = week1(y);
    year = y;
    if (days < start) {
      start = week1(y - 1);
      year = y - 1;
    }
  }
  *iso_year = year;
  *week = (days - start) / 7 + 1;
}

void Pad(std::string* out, int64_t v, int width, bool fm) {
  if (fm || width == 0) {
    *out += std::to_string(v);
  } else if (v < 0) {
    *out += fmt::format("-{:0{}d}", -v, width - 1 > 0 ? width - 1 : 1);
  } else {
    *out += fmt::format("{:0{}d}", v, width);
  }
}

void PadName(std::string* out, const std::string& name, size_t width, bool fm) {
  *out += name;
  if (!fm && name.size() < width) out->append(width - name.size(), ' ');
}

// PostgreSQL's DCH_to_char over a timestamp in microseconds.
Status ToChar(int64_t micros, bool zoned, std::string_view f, std::string* out) {
  const DayAndTime dt = SplitDays(micros, kMicrosPerDay);
  const CivilDate cd = CivilFromDays(dt.days);
  const int64_t tod = dt.time_of_day;
  const int64_t hour = tod / 3600000000, minute = tod / 60000000 % 60, second = tod / 1000000 % 60;
  const int64_t usec = tod % 1000000;
  const int64_t year = cd.year;
  const int64_t shown_year = year <= 0 ? -(year - 1) : year;  // BC years count from 1
  const int64_t doy = dt.days - DaysFromCivil(year, 1, 1) + 1;
  for (size_t i = 0; i < f.size();) {
    bool fm = false;
    size_t j = i;
    while (j + 1 < f.size()) {
      const std::string_view p = f.substr(j, 2);
      if (p == "FM" || p == "fm" || p == "TM" || p == "tm") {
        fm = true;  // TM's translated names are not padded either
        j += 2;
      } else if (p == "FX" || p == "fx") {
        j += 2;
      } else {
        break;
      }
    }
    size_t len = 0;
    Case c = Case::kUpper;
    const Key key = MatchKey(f, j, &len, &c);
    if (key == Key::kNone) {
      if (j > i) {  // a modifier alone: nothing to modify
        i = j;
        continue;
      }
      const char ch = f[i];
      if (ch == '"') {
        ++i;
        while (i < f.size() && f[i] != '"') {
          if (f[i] == '\\' && i + 1 < f.size()) ++i;
          out->push_back(f[i++]);
        }
        if (i < f.size()) ++i;
        continue;
      }
      if (ch == '\\' && i + 1 < f.size() && f[i + 1] == '"') {
        out->push_back('"');
        i += 2;
        continue;
      }
      out->push_back(ch);
      ++i;
      continue;
    }
    i = j + len;
    // TH / th after a number.
    bool th = false, th_upper = false;
    if (i + 1 < f.size() && (f.substr(i, 2) == "TH" || f.substr(i, 2) == "th")) {
      th = true;
      th_upper = f[i] == 'T';
      i += 2;
    }
    int64_t number = 0;
    bool numeric = true;
    const size_t before = out->size();
    switch (key) {
      case Key::kYComma:
        *out += fmt::format("{},{:03d}", shown_year / 1000, shown_year % 1000);
        number = shown_year;
        break;
      case Key::kYYYY:
        Pad(out, shown_year, 4, fm);
        number = shown_year;
        break;
      case Key::kYYY:
        Pad(out, shown_year % 1000, 3, fm);
        number = shown_year % 1000;
        break;
      case Key::kYY:
        Pad(out, shown_year % 100, 2, fm);
        number = shown_year % 100;
        break;
      case Key::kY:
        Pad(out, shown_year % 10, 1, fm);
        number = shown_year % 10;
        break;
      case Key::kIYYY:
      case Key::kIYY:
      case Key::kIY:
      case Key::kI:
      case Key::kIW: {
        int64_t iy, iw;
        IsoWeek(dt.days, &iy, &iw);
        if (key == Key::kIW) {
          Pad(out, iw, 2, fm);
          number = iw;
          break;
        }
        const int64_t shown = iy <= 0 ? -(iy - 1) : iy;
        const int width = key == Key::kIYYY ? 4 : key == Key::kIYY ? 3 : key == Key::kIY ? 2 : 1;
        number = key == Key::kIYYY ? shown : shown % (width == 3 ? 1000 : width == 2 ? 100 : 10);
        Pad(out, number, width, fm);
        break;
      }
      case Key::kCC: {
        const int64_t cc = year > 0 ? (year + 99) / 100 : -((99 - (year - 1)) / 100);
        Pad(out, cc, cc < 0 ? 3 : 2, fm);
        number = cc;
        break;
      }
      case Key::kQ:
        number = (cd.month - 1) / 3 + 1;
        Pad(out, number, 0, fm);
        break;
      case Key::kMM:
        number = cd.month;
        Pad(out, number, 2, fm);
        break;
      case Key::kDDD:
        number = doy;
        Pad(out, number, 3, fm);
        break;
      case Key::kDD:
        number = cd.day;
        Pad(out, number, 2, fm);
        break;
      case Key::kD:
        number = DayOfWeek(dt.days) + 1;
        Pad(out, number, 0, fm);
        break;
      case Key::kID:
        number = IsoDayOfWeek(dt.days);
        Pad(out, number, 0, fm);
        break;
      case Key::kIDDD: {
        int64_t iy, iw;
        IsoWeek(dt.days, &iy, &iw);
        number = (iw - 1) * 7 + IsoDayOfWeek(dt.days);
        Pad(out, number, 3, fm);
        break;
      }
      case Key::kWW:
        number = (doy - 1) / 7 + 1;
        Pad(out, number, 2, fm);
        break;
      case Key::kW:
        number = (cd.day - 1) / 7 + 1;
        Pad(out, number, 0, fm);
        break;
      case Key::kJ:
        number = dt.days + 2440588;  // Julian day of 1970-01-01
        Pad(out, number, 0, fm);
        break;
      case Key::kHH:
      case Key::kHH12:
        number = hour % 12 == 0 ? 12 : hour % 12;
        Pad(out, number, 2, fm);
        break;
      case Key::kHH24:
        number = hour;
        Pad(out, number, 2, fm);
        break;
      case Key::kMI:
        number = minute;
        Pad(out, number, 2, fm);
        break;
      case Key::kSS:
        number = second;
        Pad(out, number, 2, fm);
        break;
      case Key::kSSSS:
      case Key::kSSSSS:
        number = tod / 1000000;
        Pad(out, number, 0, fm);
        break;
      case Key::kMS:  // FM does not unpad MS and US in PostgreSQL
        number = usec / 1000;
        Pad(out, number, 3, false);
        break;
      case Key::kUS:
        number = usec;
        Pad(out, number, 6, false);
        break;
      case Key::kFF1: case Key::kFF2: case Key::kFF3: case Key::kFF4: case Key::kFF5: case Key::kFF6: {
        const int digits = static_cast<int>(key) - static_cast<int>(Key::kFF1) + 1;
        int64_t v = usec;
        for (int k = digits; k < 6; ++k) v /= 10;
        number = v;
        Pad(out, v, digits, fm);
        break;
      }
      case Key::kAM:
      case Key::kPM:
        numeric = false;
        *out += Cased(hour >= 12 ? "PM" : "AM", c);
        break;
      case Key::kAMDots:
      case Key::kPMDots:
        numeric = false;
        *out += Cased(hour >= 12 ? "P.M." : "A.M.", c);
        break;
      case Key::kAD:
      case Key::kBC:
        numeric = false;
        *out += Cased(year <= 0 ? "BC" : "AD", c);
        break;
      case Key::kADDots:
      case Key::kBCDots:
        numeric = false;
        *out += Cased(year <= 0 ? "B.C." : "A.D.", c);
        break;
      case Key::kMonth:
        numeric = false;
        PadName(out, Cased(kMonths[cd.month - 1], c), 9, fm);
        break;
      case Key::kMon:
        numeric = false;
        *out += Cased(std::string_view(kMonths[cd.month - 1]).substr(0, 3), c);
        break;
      case Key::kDay:
        numeric = false;
        PadName(out, Cased(kDays[static_cast<size_t>(DayOfWeek(dt.days))], c), 9, fm);
        break;
      case Key::kDy:
        numeric = false;
        *out += Cased(std::string_view(kDays[static_cast<size_t>(DayOfWeek(dt.days))]).substr(0, 3), c);
        break;
      case Key::kRM:
        numeric = false;
        PadName(out, Cased(kRoman[cd.month - 1], c), 4, fm);
        break;
      case Key::kTZ:
        numeric = false;
        if (zoned) *out += c == Case::kLower ? "utc" : "UTC";
        break;
      case Key::kTZH:  // the offset prints for timestamps without a zone too
        numeric = false;
        *out += "+00";
        break;
      case Key::kTZM:
        numeric = false;
        *out += "00";
        break;
      case Key::kOF:
        numeric = false;
        *out += "+00";
        break;
      case Key::kNone:
        break;
    }
    (void)before;
    if (th && numeric) *out += Ordinal(number, th_upper);
  }
  return Status::OK();
}

// --- parsing ------------------------------------------------------------------

Status BadFormat(const std::string& message) {
  return Status::Invalid("{}", message).WithSqlState(sqlstate::kInvalidDatetimeFormat);
}

struct Parsed {
  int64_t year = 0;
  bool has_year = false;
  bool bc = false;
  int64_t month = 1, day = 1, hour = 0, minute = 0, second = 0, usec = 0;
  int64_t doy = 0;
  int64_t hour12 = -1;  // set by HH / HH12
  int pm = -1;          // 0 AM, 1 PM
  int64_t julian = -1;
  int64_t cc = -1;
  int year_digits = 0;
};

bool IsSeparator(char c) {
  return !(std::isalnum(static_cast<unsigned char>(c))) && !(static_cast<unsigned char>(c) & 0x80);
}

Result<int64_t> ReadNumber(std::string_view in, size_t* pos, int max_digits, bool greedy,
                           const char* field, int* digits_read = nullptr) {
  size_t p = *pos;
  bool neg = false;
  if (p < in.size() && (in[p] == '-' || in[p] == '+')) {
    neg = in[p] == '-';
    ++p;
  }
  int64_t v = 0;
  int n = 0;
  while (p < in.size() && std::isdigit(static_cast<unsigned char>(in[p])) && (greedy || n < max_digits)) {
    v = v * 10 + (in[p] - '0');
    if (v > INT32_MAX) {
      return Status::Invalid("value for \"{}\" in source string is out of range", field)
          .WithSqlState(sqlstate::kDatetimeFieldOverflow);
    }
    ++p;
    ++n;
  }
  if (n == 0) {
    const std::string rest(in.substr(*pos, std::min<size_t>(in.size() - *pos, 20)));
    return BadFormat(fmt::format("invalid value \"{}\" for \"{}\"", rest, field))
        .WithDetail("Value must be an integer.");
  }
  if (digits_read != nullptr) *digits_read = n;
  *pos = p;
  return neg ? -v : v;
}

Result<int64_t> ReadName(std::string_view in, size_t* pos, const char* const* names, size_t count,
                         size_t abbrev, const char* field) {
  for (size_t k = 0; k < count; ++k) {
    const std::string_view full(names[k]);
    const std::string_view want = abbrev > 0 ? full.substr(0, abbrev) : full;
    if (*pos + want.size() > in.size()) continue;
    bool eq = true;
    for (size_t m = 0; m < want.size() && eq; ++m) {
      eq = std::tolower(static_cast<unsigned char>(in[*pos + m])) ==
           std::tolower(static_cast<unsigned char>(want[m]));
    }
    if (eq) {
      *pos += want.size();
      return static_cast<int64_t>(k);
    }
  }
  const std::string rest(in.substr(*pos, std::min<size_t>(in.size() - *pos, 20)));
  return BadFormat(fmt::format("invalid value \"{}\" for \"{}\"", rest, field))
      .WithDetail("The given value did not match any of the allowed values for this field.");
}

// Whether the template continues with a keyword that reads digits at f[i]
// (so a numeric field before it must stop at its width).
bool NextIsDigitField(std::string_view f, size_t i) {
  size_t len = 0;
  Case c;
  while (i + 1 < f.size() && (f.substr(i, 2) == "FM" || f.substr(i, 2) == "fm")) i += 2;
  const Key k = MatchKey(f, i, &len, &c);
  return k != Key::kNone && !IsNameKey(k) && k != Key::kAM && k != Key::kPM &&
         k != Key::kAMDots && k != Key::kPMDots && k != Key::kAD && k != Key::kBC &&
         k != Key::kADDots && k != Key::kBCDots && k != Key::kRM && k != Key::kTZ;
}

Status Parse(std::string_view in, std::string_view f, Parsed* r) {
  size_t p = 0;
  for (size_t i = 0; i < f.size();) {
    size_t j = i;
    while (j + 1 < f.size()) {
      const std::string_view m = f.substr(j, 2);
      if (m == "FM" || m == "fm" || m == "TM" || m == "tm" || m == "FX" || m == "fx") {
        j += 2;
      } else {
        break;
      }
    }
    size_t len = 0;
    Case c;
    const Key key = MatchKey(f, j, &len, &c);
    if (key == Key::kNone) {
      if (j > i) {
        i = j;
        continue;
      }
      const char ch = f[i];
      if (ch == '"') {
        ++i;
        while (i < f.size() && f[i] != '"') {
          ++i;
          if (p < in.size()) ++p;
        }
        if (i < f.size()) ++i;
        continue;
      }
      ++i;
      if (IsSeparator(ch)) {
        // A separator or space in the template skips those in the input.
        while (p < in.size() && IsSeparator(in[p])) ++p;
      } else if (p < in.size()) {
        ++p;  // another character of the template stands for one of the input
      }
      continue;
    }
    i = j + len;
    if (i + 1 < f.size() && (f.substr(i, 2) == "TH" || f.substr(i, 2) == "th")) {
      i += 2;
    }
    // Leading spaces before a field are skipped, as PostgreSQL does outside FX mode.
    while (p < in.size() && in[p] == ' ') ++p;
    const bool greedy = !NextIsDigitField(f, i);
    auto number = [&](int width, const char* name, int* digits = nullptr) {
      return ReadNumber(in, &p, width, greedy, name, digits);
    };
    switch (key) {
      case Key::kYYYY:
      case Key::kYComma: {
        int digits = 0;
        if (key == Key::kYComma) {
          QUIVER_ASSIGN_OR_RAISE(int64_t hi, number(3, "Y,YYY"));
          if (p < in.size() && in[p] == ',') ++p;
          QUIVER_ASSIGN_OR_RAISE(int64_t lo, ReadNumber(in, &p, 3, false, "Y,YYY"));
          r->year = hi * 1000 + lo;
        } else {
          QUIVER_ASSIGN_OR_RAISE(r->year, number(4, "YYYY", &digits));
        }
        r->has_year = true;
        r->year_digits = 4;
        break;
      }
      case Key::kYYY:
      case Key::kYY:
      case Key::kY: {
        const int width = key == Key::kYYY ? 3 : key == Key::kYY ? 2 : 1;
        int digits = 0;
        QUIVER_ASSIGN_OR_RAISE(int64_t y, number(width, "YYY", &digits));
        // PostgreSQL's adjust_partial_year_to_2020.
        if (digits <= 2 && width <= 2) {
          if (width == 1) {
            y += 2000;
          } else {
            y += y < 70 ? 2000 : 1900;
          }
        } else if (width == 3 && digits == 3) {
          y += y < 100 ? 2000 : 1000;
        }
        r->year = y;
        r->has_year = true;
        r->year_digits = width;
        break;
      }
      case Key::kCC: {
        QUIVER_ASSIGN_OR_RAISE(r->cc, number(2, "CC"));
        break;
      }
      case Key::kMM: {
        QUIVER_ASSIGN_OR_RAISE(r->month, number(2, "MM"));
        break;
      }
      case Key::kDD: {
        QUIVER_ASSIGN_OR_RAISE(r->day, number(2, "DD"));
        break;
      }
      case Key::kDDD: {
        QUIVER_ASSIGN_OR_RAISE(r->doy, number(3, "DDD"));
        break;
      }
      case Key::kHH:
      case Key::kHH12: {
        QUIVER_ASSIGN_OR_RAISE(r->hour12, number(2, "HH12"));
        if (r->hour12 < 1 || r->hour12 > 12) {
          return Status::Invalid("hour \"{}\" is invalid for the 12-hour clock", r->hour12)
              .WithSqlState(sqlstate::kInvalidDatetimeFormat)
              .WithHint("Use the 24-hour clock, or give an hour between 1 and 12.");
        }
        break;
      }
      case Key::kHH24: {
        QUIVER_ASSIGN_OR_RAISE(r->hour, number(2, "HH24"));
        break;
      }
      case Key::kMI: {
        QUIVER_ASSIGN_OR_RAISE(r->minute, number(2, "MI"));
        break;
      }
      case Key::kSS: {
        QUIVER_ASSIGN_OR_RAISE(r->second, number(2, "SS"));
        break;
      }
      case Key::kMS: {
        int digits = 0;
        QUIVER_ASSIGN_OR_RAISE(int64_t ms, number(3, "MS", &digits));
        for (int k = digits; k < 3; ++k) ms *= 10;
        r->usec += ms * 1000;
        break;
      }
      case Key::kUS:
      case Key::kFF1: case Key::kFF2: case Key::kFF3: case Key::kFF4: case Key::kFF5: case Key::kFF6: {
        const int width = key == Key::kUS ? 6 : static_cast<int>(key) - static_cast<int>(Key::kFF1) + 1;
        int digits = 0;
        QUIVER_ASSIGN_OR_RAISE(int64_t us, number(width, "US", &digits));
        for (int k = digits; k < 6; ++k) us *= 10;
        r->usec += us;
        break;
      }
      case Key::kSSSS:
      case Key::kSSSSS: {
        QUIVER_ASSIGN_OR_RAISE(int64_t s, number(5, "SSSS"));
        r->hour = s / 3600;
        r->minute = s / 60 % 60;
        r->second = s % 60;
        break;
      }
      case Key::kJ: {
        QUIVER_ASSIGN_OR_RAISE(r->julian, number(7, "J"));
        break;
      }
      case Key::kAM:
      case Key::kPM:
      case Key::kAMDots:
      case Key::kPMDots: {
        static const char* const kMeridiem[] = {"AM", "PM", "A.M.", "P.M."};
        const bool dots = key == Key::kAMDots || key == Key::kPMDots;
        QUIVER_ASSIGN_OR_RAISE(int64_t k, ReadName(in, &p, dots ? kMeridiem + 2 : kMeridiem, 2, 0,
                                                   dots ? "A.M." : "AM"));
        r->pm = static_cast<int>(k);
        break;
      }
      case Key::kAD:
      case Key::kBC:
      case Key::kADDots:
      case Key::kBCDots: {
        static const char* const kEra[] = {"AD", "BC", "A.D.", "B.C."};
        const bool dots = key == Key::kADDots || key == Key::kBCDots;
        QUIVER_ASSIGN_OR_RAISE(int64_t k, ReadName(in, &p, dots ? kEra + 2 : kEra, 2, 0, dots ? "A.D." : "AD"));
        r->bc = k == 1;
        break;
      }
      case Key::kMonth: {
        QUIVER_ASSIGN_OR_RAISE(int64_t m, ReadName(in, &p, kMonths.data(), 12, 0, "MONTH"));
        r->month = m + 1;
        break;
      }
      case Key::kMon: {
        QUIVER_ASSIGN_OR_RAISE(int64_t m, ReadName(in, &p, kMonths.data(), 12, 3, "MON"));
        r->month = m + 1;
        break;
      }
      case Key::kDay: {
        QUIVER_RETURN_NOT_OK(ReadName(in, &p, kDays.data(), 7, 0, "DAY").status());
        break;
      }
      case Key::kDy: {
        QUIVER_RETURN_NOT_OK(ReadName(in, &p, kDays.data(), 7, 3, "DY").status());
        break;
      }
      case Key::kRM: {
        // Longest numerals first so that VIII is not read as V.
        static const char* const kRomanLongest[] = {"VIII", "XII", "III", "VII", "XI", "IX", "IV",
                                                    "VI", "II", "X", "V", "I"};
        static const int kRomanValue[] = {8, 12, 3, 7, 11, 9, 4, 6, 2, 10, 5, 1};
        QUIVER_ASSIGN_OR_RAISE(int64_t k, ReadName(in, &p, kRomanLongest, 12, 0, "RM"));
        r->month = kRomanValue[k];
        break;
      }
      case Key::kD:
      case Key::kID:
        QUIVER_RETURN_NOT_OK(number(1, "D").status());  // read and ignored, as PostgreSQL
        break;
      default:
        return Status::Unsupported("the template pattern \"{}\" in to_date / to_timestamp",
                                   std::string(f.substr(j, len)))
            .WithSqlState(sqlstate::kFeatureNotSupported);
    }
  }
  // Input past the end of the template is ignored, as PostgreSQL does.
  return Status::OK();
}

Status FieldOverflow(std::string_view in) {
  return Status::Invalid("date/time field value out of range: \"{}\"", std::string(in))
      .WithSqlState(sqlstate::kDatetimeFieldOverflow);
}

// The instant the parsed fields name, in microseconds; `date_only` ignores
// the time of day.
Result<int64_t> ToMicros(const Parsed& r, std::string_view in, bool date_only) {
  int64_t year = r.has_year ? r.year : (r.cc >= 0 ? (r.cc - 1) * 100 + 1 : 1);
  if (r.has_year && r.cc >= 0 && r.year_digits < 3) year = (r.cc - 1) * 100 + year % 100;
  if (r.bc) {
    if (year <= 0) return FieldOverflow(in);
    year = -(year - 1);
  } else if (r.has_year && year == 0) {
    return Status::Invalid("cannot calculate day of year without year information")
        .WithSqlState(sqlstate::kInvalidDatetimeFormat);
  }
  int64_t days;
  if (r.julian >= 0) {
    days = r.julian - 2440588;
  } else if (r.doy > 0) {
    days = DaysFromCivil(year, 1, 1) + r.doy - 1;
    if (CivilFromDays(days).year != year) return FieldOverflow(in);
  } else {
    if (r.month < 1 || r.month > 12 || r.day < 1 ||
        r.day > static_cast<int64_t>(DaysInMonth(year, static_cast<unsigned>(r.month)))) {
      return FieldOverflow(in);
    }
    days = DaysFromCivil(year, static_cast<unsigned>(r.month), static_cast<unsigned>(r.day));
  }
  if (date_only) return days * kMicrosPerDay;
  int64_t hour = r.hour;
  if (r.hour12 >= 0) {
    hour = r.hour12 % 12 + (r.pm == 1 ? 12 : 0);
  } else if (r.pm == 1 && hour < 12) {
    hour += 12;
  }
  if (hour > 24 || r.minute > 59 || r.second > 60 || hour < 0 || r.minute < 0 || r.second < 0 ||
      (hour == 24 && (r.minute > 0 || r.second > 0 || r.usec > 0))) {
    return FieldOverflow(in);
  }
  return days * kMicrosPerDay + ((hour * 60 + r.minute) * 60 + r.second) * 1000000 + r.usec;
}

template <typename F>
Result<ArrayRef> StringRows(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                            const TypeRef& out_type, F f) {
  kernels::StringOutput out(out_type, n, ctx.pool);
  std::vector<ValidAccess> valid;
  for (const auto& a : args) valid.emplace_back(a);
  std::string buf;
  for (int64_t i = 0; i < n; ++i) {
    bool ok = true;
    for (const auto& v : valid) ok = ok && v(i);
    if (!ok) {
      QUIVER_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    buf.clear();
    QUIVER_ASSIGN_OR_RAISE(bool is_null, f(i, &buf));
    QUIVER_RETURN_NOT_OK(is_null ? out.AppendNull() : out.Append(buf));
  }
  return out.Finish();
}

}  // namespace

void RegisterDateTimeFormatFunctions(FunctionRegistry* r) {
  const TypeRef text = utf8();
  for (bool zoned : {false, true}) {
    const TypeRef ts = zoned ? timestamp(TimeUnit::kMicro, "UTC") : timestamp(TimeUnit::kMicro);
    r->Add({"to_char", {ts, text}, nullptr, text, nullptr,
            [zoned](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                    const TypeRef& out_type) {
              StringAccess f(args[1]);
              return StringRows(ctx, args, n, out_type, [&](int64_t i, std::string* buf) -> Result<bool> {
                // An empty template gives NULL, as in PostgreSQL.
                if (f(i).empty()) return true;
                QUIVER_RETURN_NOT_OK(ToChar(args[0].values<int64_t>()[args[0].index(i)], zoned, f(i), buf));
                return false;
              });
            }});
  }
  r->Add({"to_date", {text, text}, nullptr, date32(), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
             const TypeRef& out_type) -> Result<ArrayRef> {
            QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, args, n, ctx.pool));
            StringAccess s(args[0]), f(args[1]);
            for (int64_t i = 0; i < n; ++i) {
              if (!out.IsValid(i)) continue;
              Parsed p;
              QUIVER_RETURN_NOT_OK(Parse(s(i), f(i), &p));
              QUIVER_ASSIGN_OR_RAISE(int64_t micros, ToMicros(p, s(i), true));
              out.data<int32_t>()[i] = static_cast<int32_t>(micros / kMicrosPerDay);
            }
            return kernels::FinishFixed(out_type, n, std::move(out));
          }});
  // to_timestamp(seconds since the epoch), as PostgreSQL: rounded to microseconds.
  r->Add({"to_timestamp", {float64()}, nullptr, timestamp(TimeUnit::kMicro, "UTC"), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
             const TypeRef& out_type) -> Result<ArrayRef> {
            QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, args, n, ctx.pool));
            const double* x = args[0].values<double>();
            for (int64_t i = 0; i < n; ++i) {
              if (!out.IsValid(i)) continue;
              const double seconds = x[args[0].index(i)];
              if (std::isnan(seconds)) {
                return Status::Invalid("timestamp cannot be NaN").WithSqlState(sqlstate::kDatetimeFieldOverflow);
              }
              // PostgreSQL's range: Julian day 0 to the end of its timestamps
              // (infinity, which Quiver's timestamps cannot hold, falls outside).
              if (!(seconds >= -210866803200.0 && seconds < 9224318016000.0)) {
                return Status::Invalid("timestamp out of range: \"{}\"", seconds)
                    .WithSqlState(sqlstate::kDatetimeFieldOverflow);
              }
              out.data<int64_t>()[i] = static_cast<int64_t>(std::nearbyint(seconds * 1000000.0));
            }
            return kernels::FinishFixed(out_type, n, std::move(out));
          }});
  r->Add({"to_timestamp", {text, text}, nullptr, timestamp(TimeUnit::kMicro, "UTC"), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
             const TypeRef& out_type) -> Result<ArrayRef> {
            QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, args, n, ctx.pool));
            StringAccess s(args[0]), f(args[1]);
            for (int64_t i = 0; i < n; ++i) {
              if (!out.IsValid(i)) continue;
              Parsed p;
              QUIVER_RETURN_NOT_OK(Parse(s(i), f(i), &p));
              QUIVER_ASSIGN_OR_RAISE(out.data<int64_t>()[i], ToMicros(p, s(i), false));
            }
            return kernels::FinishFixed(out_type, n, std::move(out));
          }});
}

}  // namespace quiver
