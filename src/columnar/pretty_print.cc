// Value and table rendering for humans (see pretty_print.h for the formats).
#include "columnar/pretty_print.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "common/calendar.h"
#include "common/datetime_text.h"
#include "common/half_float.h"
#include "common/time_zone.h"

namespace quiver {
namespace {

std::string FormatDate(int64_t days) {
  const auto [y, m, d] = CivilFromDays(days);
  if (y >= 0 && y <= 9999) return fmt::format("{:04d}-{:02d}-{:02d}", y, m, d);
  return fmt::format("{:+05d}-{:02d}-{:02d}", y, m, d);
}

int FractionDigits(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return 0;
    case TimeUnit::kMilli:
      return 3;
    case TimeUnit::kMicro:
      return 6;
    case TimeUnit::kNano:
      return 9;
  }
  return 0;
}

// "HH:MM:SS[.f]": the fraction only when non-zero, trailing zeros trimmed,
// as PostgreSQL prints times (datetime_text.h).
std::string FormatTimeOfDay(int64_t seconds_of_day, int64_t frac, int digits) {
  std::string out;
  AppendClock(&out, seconds_of_day, frac, digits);
  return out;
}

bool IsUtcName(std::string_view tz) {
  return tz == "UTC" || tz == "utc" || tz == "Z" || tz == "Etc/UTC" || tz == "GMT" ||
         tz == "Etc/GMT" || tz == "Universal" || tz == "Zulu" || tz == "+00:00";
}

// The instant shown as local time in `tz` with its offset ("-05", "+05:30"),
// or in UTC with "+00" for UTC and for zones the system does not know, as
// PostgreSQL prints timestamptz.
std::string FormatTimestamp(int64_t value, TimeUnit unit, const std::string& tz) {
  auto [secs, frac] = FloorDivMod(value, TimeUnitsPerSecond(unit));
  std::string suffix;
  if (!tz.empty()) {
    int64_t offset = 0;
    if (!IsUtcName(tz)) {
      auto zone = TimeZone::Find(tz);
      if (zone.ok() && secs > -(int64_t{1} << 62) && secs < (int64_t{1} << 62)) {
        offset = (*zone)->OffsetAt(secs);
        secs += offset;
      }
    }
    AppendUtcOffset(&suffix, offset);
  }
  const auto [days, seconds_of_day] = SplitDays(secs, kSecondsPerDay);
  return FormatDate(days) + " " +
         FormatTimeOfDay(seconds_of_day, frac, FractionDigits(unit)) + suffix;
}

// Intervals and durations as PostgreSQL prints intervals.
std::string FormatInterval(int64_t months, int64_t days, int64_t nanos) {
  return FormatPostgresInterval(months, days, nanos, 9);
}

std::string FormatDuration(int64_t value, TimeUnit unit) {
  const int64_t per_day = TimeUnitsPerSecond(unit) * 86400;
  const int64_t days = value / per_day;  // truncation keeps both parts the same sign
  const int64_t rest = value % per_day;
  return FormatInterval(0, days, rest * (1000000000LL / TimeUnitsPerSecond(unit)));
}

// Little-endian two's complement integer of `width` bytes -> decimal text
// with `scale` digits after the point.
std::string FormatDecimal(const uint8_t* bytes, int width, int32_t scale) {
  std::vector<uint32_t> words(static_cast<size_t>(width / 4));
  std::memcpy(words.data(), bytes, static_cast<size_t>(width));
  const bool negative = (words.back() >> 31) != 0;
  if (negative) {  // magnitude = ~x + 1
    uint64_t carry = 1;
    for (auto& w : words) {
      const uint64_t v = static_cast<uint64_t>(static_cast<uint32_t>(~w)) + carry;
      w = static_cast<uint32_t>(v);
      carry = v >> 32;
    }
  }
  // Repeated division by 1e9, most significant word first.
  std::string digits;
  while (std::any_of(words.begin(), words.end(), [](uint32_t w) { return w != 0; })) {
    uint64_t rem = 0;
    for (size_t k = words.size(); k-- > 0;) {
      const uint64_t cur = (rem << 32) | words[k];
      words[k] = static_cast<uint32_t>(cur / 1000000000ULL);
      rem = cur % 1000000000ULL;
    }
    std::string chunk = fmt::format("{:09d}", rem);
    digits.insert(0, chunk);
  }
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  if (digits.empty()) digits = "0";
  if (scale > 0) {
    if (static_cast<int64_t>(digits.size()) <= scale) {
      digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
    }
    digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  } else if (scale < 0 && digits != "0") {
    digits.append(static_cast<size_t>(-scale), '0');
  }
  return negative ? "-" + digits : digits;
}

template <typename T>
std::string FormatFloat(T v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  std::string s = fmt::format("{}", v);
  // Keep floats recognisable as floats: 3 -> 3.0.
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

void AppendEscaped(std::string_view s, bool quoted, std::string* out) {
  if (quoted) *out += '\'';
  for (unsigned char c : s) {
    switch (c) {
      case '\n':
        *out += "\\n";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\'':
        if (quoted) *out += '\\';
        *out += '\'';
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          *out += fmt::format("\\x{:02X}", c);
        } else {
          *out += static_cast<char>(c);
        }
    }
  }
  if (quoted) *out += '\'';
}

std::string FormatBinary(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02X}", c);
    }
  }
  return out;
}

// Integer slot i of `a`, whose values buffer holds integers of type `id`
// (the array's own type, or a dictionary's index type).
int64_t ReadInteger(const ArrayData& a, int64_t i, TypeId id) {
  switch (id) {
    case TypeId::kInt8:
      return a.GetValues<int8_t>(1)[i];
    case TypeId::kInt16:
      return a.GetValues<int16_t>(1)[i];
    case TypeId::kInt32:
      return a.GetValues<int32_t>(1)[i];
    case TypeId::kInt64:
      return a.GetValues<int64_t>(1)[i];
    case TypeId::kUInt8:
      return a.GetValues<uint8_t>(1)[i];
    case TypeId::kUInt16:
      return a.GetValues<uint16_t>(1)[i];
    case TypeId::kUInt32:
      return a.GetValues<uint32_t>(1)[i];
    case TypeId::kUInt64:
      return static_cast<int64_t>(a.GetValues<uint64_t>(1)[i]);
    default:
      return 0;
  }
}
int64_t ReadInteger(const ArrayData& a, int64_t i) { return ReadInteger(a, i, a.type->id); }

class ValueFormatter {
 public:
  explicit ValueFormatter(const ValueFormatOptions& options) : options_(options) {}

  // `nested`: the value sits inside a list/struct/map, where strings are quoted.
  void Format(const ArrayData& a, int64_t i, bool nested, std::string* out) {
    const TypeId id = a.type->id;
    // Unions and run-end-encoded arrays have no validity bitmap of their own.
    if (id == TypeId::kSparseUnion || id == TypeId::kDenseUnion) {
      return FormatUnion(a, i, nested, out);
    }
    if (id == TypeId::kRunEndEncoded) return FormatRunEnd(a, i, nested, out);
    if (a.IsNull(i)) {
      *out += "NULL";
      return;
    }
    switch (id) {
      case TypeId::kNull:
        *out += "NULL";
        return;
      case TypeId::kBool:
        *out += bit_util::GetBit(a.GetRaw<uint8_t>(1), a.offset + i) ? "true" : "false";
        return;
      case TypeId::kInt8:
      case TypeId::kInt16:
      case TypeId::kInt32:
      case TypeId::kInt64:
      case TypeId::kUInt8:
      case TypeId::kUInt16:
      case TypeId::kUInt32:
        *out += fmt::format("{}", ReadInteger(a, i));
        return;
      case TypeId::kUInt64:
        *out += fmt::format("{}", a.GetValues<uint64_t>(1)[i]);
        return;
      case TypeId::kHalfFloat:
        *out += FormatFloat(HalfToFloat(a.GetValues<uint16_t>(1)[i]));
        return;
      case TypeId::kFloat:
        *out += FormatFloat(a.GetValues<float>(1)[i]);
        return;
      case TypeId::kDouble:
        *out += FormatFloat(a.GetValues<double>(1)[i]);
        return;
      case TypeId::kString:
      case TypeId::kLargeString:
      case TypeId::kStringView:
        AppendEscaped(a.GetString(i), nested, out);
        return;
      case TypeId::kBinary:
      case TypeId::kLargeBinary:
      case TypeId::kBinaryView:
        *out += FormatBinary(a.GetString(i));
        return;
      case TypeId::kFixedSizeBinary: {
        const int64_t w = a.type->byte_width;
        const auto* p = reinterpret_cast<const char*>(a.GetRaw<uint8_t>(1) + (a.offset + i) * w);
        *out += FormatBinary(std::string_view(p, static_cast<size_t>(w)));
        return;
      }
      case TypeId::kDate32:
        *out += FormatDate(a.GetValues<int32_t>(1)[i]);
        return;
      case TypeId::kDate64:
        *out += FormatDate(FloorDiv(a.GetValues<int64_t>(1)[i], kMillisPerDay));
        return;
      case TypeId::kTime32:
      case TypeId::kTime64: {
        const int64_t v =
            id == TypeId::kTime32 ? a.GetValues<int32_t>(1)[i] : a.GetValues<int64_t>(1)[i];
        const auto [secs, frac] = FloorDivMod(v, TimeUnitsPerSecond(a.type->unit));
        *out += FormatTimeOfDay(secs, frac, FractionDigits(a.type->unit));
        return;
      }
      case TypeId::kTimestamp:
        *out += FormatTimestamp(a.GetValues<int64_t>(1)[i], a.type->unit, a.type->timezone);
        return;
      case TypeId::kDuration:
        *out += FormatDuration(a.GetValues<int64_t>(1)[i], a.type->unit);
        return;
      case TypeId::kIntervalMonths:
        *out += FormatInterval(a.GetValues<int32_t>(1)[i], 0, 0);
        return;
      case TypeId::kIntervalDayTime: {
        int32_t v[2];
        std::memcpy(v, a.GetRaw<uint8_t>(1) + (a.offset + i) * 8, sizeof(v));
        *out += FormatInterval(0, v[0], int64_t{v[1]} * 1000000);
        return;
      }
      case TypeId::kIntervalMonthDayNano: {
        const uint8_t* p = a.GetRaw<uint8_t>(1) + (a.offset + i) * 16;
        int32_t md[2];
        int64_t ns;
        std::memcpy(md, p, sizeof(md));
        std::memcpy(&ns, p + 8, sizeof(ns));
        *out += FormatInterval(md[0], md[1], ns);
        return;
      }
      case TypeId::kDecimal32:
      case TypeId::kDecimal64:
      case TypeId::kDecimal128:
      case TypeId::kDecimal256: {
        const int w = a.type->byte_width;
        if (w < 4 || w % 4 != 0) {
          *out += "<bad decimal width>";
          return;
        }
        *out += FormatDecimal(a.GetRaw<uint8_t>(1) + (a.offset + i) * w, w, a.type->scale);
        return;
      }
      case TypeId::kList:
      case TypeId::kMap: {
        const int32_t* offs = a.GetValues<int32_t>(1);
        return FormatList(a, offs[i], offs[i + 1] - offs[i], id == TypeId::kMap, out);
      }
      case TypeId::kLargeList: {
        const int64_t* offs = a.GetValues<int64_t>(1);
        return FormatList(a, offs[i], offs[i + 1] - offs[i], false, out);
      }
      case TypeId::kListView:
        return FormatList(a, a.GetValues<int32_t>(1)[i], a.GetValues<int32_t>(2)[i], false, out);
      case TypeId::kLargeListView:
        return FormatList(a, a.GetValues<int64_t>(1)[i], a.GetValues<int64_t>(2)[i], false, out);
      case TypeId::kFixedSizeList: {
        const int64_t n = a.type->list_size;
        return FormatList(a, (a.offset + i) * n, n, false, out);
      }
      case TypeId::kStruct: {
        if (options_.pg_arrays) {
          // PostgreSQL's record text: (1,abc), NULL fields empty.
          *out += '(';
          std::string text;
          for (size_t k = 0; k < a.children.size(); ++k) {
            if (k > 0) *out += ',';
            const ArrayData& f = *a.children[k];
            if (f.IsNull(a.offset + i)) continue;
            text.clear();
            if (f.type->id == TypeId::kBool) {
              text = bit_util::GetBit(f.GetRaw<uint8_t>(1), f.offset + a.offset + i) ? "t" : "f";
            } else {
              Format(f, a.offset + i, false, &text);
            }
            AppendPgRecordField(text, out);
          }
          *out += ')';
          return;
        }
        *out += '{';
        for (size_t k = 0; k < a.children.size(); ++k) {
          if (k > 0) *out += ", ";
          const std::string& name = a.type->children[k]->name;
          AppendEscaped(name, false, out);
          *out += ": ";
          Format(*a.children[k], a.offset + i, true, out);
        }
        *out += '}';
        return;
      }
      case TypeId::kDictionary: {
        if (!a.dictionary) {
          *out += "<no dictionary>";
          return;
        }
        const int64_t index = ReadInteger(a, i, a.type->index_type->id);
        if (index < 0 || index >= a.dictionary->length) {
          *out += fmt::format("<dictionary index {} out of range>", index);
          return;
        }
        return Format(*a.dictionary, index, nested, out);
      }
      case TypeId::kSparseUnion:
      case TypeId::kDenseUnion:
      case TypeId::kRunEndEncoded:
        break;  // handled above
    }
  }

 private:
  // Elements [start, start+length) of the child (relative to its offset).
  void FormatList(const ArrayData& a, int64_t start, int64_t length, bool is_map,
                  std::string* out) {
    const ArrayData& child = *a.children[0];
    if (options_.pg_arrays && !is_map) {
      *out += '{';
      const int64_t shown = std::min(length, options_.max_elements);
      std::string text;
      for (int64_t j = 0; j < shown; ++j) {
        if (j > 0) *out += ',';
        if (child.IsNull(start + j)) {
          *out += "NULL";
        } else if (child.type->id == TypeId::kList || child.type->id == TypeId::kLargeList ||
                   child.type->id == TypeId::kFixedSizeList) {
          Format(child, start + j, false, out);
        } else {
          text.clear();
          Format(child, start + j, false, &text);
          AppendPgArrayElement(text, out);
        }
      }
      if (shown < length) *out += ",…";
      *out += '}';
      return;
    }
    *out += is_map ? '{' : '[';
    const int64_t shown = std::min(length, options_.max_elements);
    for (int64_t j = 0; j < shown; ++j) {
      if (j > 0) *out += ", ";
      if (is_map) {
        // child is the entries struct<key, value>
        Format(*child.children[0], child.offset + start + j, true, out);
        *out += ": ";
        Format(*child.children[1], child.offset + start + j, true, out);
      } else {
        Format(child, start + j, true, out);
      }
    }
    if (shown < length) *out += ", …";
    *out += is_map ? '}' : ']';
  }

  void FormatUnion(const ArrayData& a, int64_t i, bool nested, std::string* out) {
    const int8_t code = a.GetValues<int8_t>(0)[i];
    const auto& codes = a.type->type_codes;
    const auto it = std::find(codes.begin(), codes.end(), code);
    const size_t k = it == codes.end() ? static_cast<size_t>(code) : it - codes.begin();
    if (k >= a.children.size()) {
      *out += fmt::format("<bad union type code {}>", code);
      return;
    }
    const int64_t child_index =
        a.type->id == TypeId::kDenseUnion ? a.GetValues<int32_t>(1)[i] : a.offset + i;
    if (child_index < 0 || child_index >= a.children[k]->length) {
      *out += "<union offset out of range>";
      return;
    }
    Format(*a.children[k], child_index, nested, out);
  }

  void FormatRunEnd(const ArrayData& a, int64_t i, bool nested, std::string* out) {
    const ArrayData& ends = *a.children[0];
    const int64_t logical = a.offset + i;
    // First run whose end is > logical.
    int64_t lo = 0, hi = ends.length;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (ReadInteger(ends, mid) > logical) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    if (lo >= a.children[1]->length) {
      *out += "<run end out of range>";
      return;
    }
    Format(*a.children[1], lo, nested, out);
  }

  const ValueFormatOptions& options_;
};

// --- UTF-8 width ------------------------------------------------------------

// Decodes one code point at s[pos]; invalid bytes decode as U+FFFD, length 1.
uint32_t DecodeUtf8(std::string_view s, size_t pos, size_t* len) {
  const auto c = static_cast<unsigned char>(s[pos]);
  int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || pos + n > s.size()) {
    *len = 1;
    return c < 0x80 ? c : 0xFFFD;
  }
  uint32_t cp = n == 1 ? c : (c & (0x7f >> n));
  for (int k = 1; k < n; ++k) {
    const auto cc = static_cast<unsigned char>(s[pos + k]);
    if ((cc >> 6) != 2) {
      *len = 1;
      return 0xFFFD;
    }
    cp = (cp << 6) | (cc & 0x3f);
  }
  *len = static_cast<size_t>(n);
  return cp;
}

int CodePointWidth(uint32_t cp) {
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || cp == 0xfe0f) return 0;
  if ((cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) ||
      (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
      (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
      (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
      (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x20000 && cp <= 0x3fffd)) {
    return 2;
  }
  return 1;
}

// Cuts `s` to at most `width` columns, ending in "…" when cut.
std::string Truncate(const std::string& s, int64_t width) {
  if (DisplayWidth(s) <= width) return s;
  std::string out;
  int64_t used = 0;
  for (size_t pos = 0; pos < s.size();) {
    size_t len;
    const int w = CodePointWidth(DecodeUtf8(s, pos, &len));
    if (used + w > width - 1) break;
    out.append(s, pos, len);
    used += w;
    pos += len;
  }
  return out + "…";
}

bool IsNumeric(const DataType& t) {
  return t.is_integer() || t.is_floating() || t.is_decimal() ||
         (t.id == TypeId::kDictionary && t.value_type && IsNumeric(*t.value_type));
}

std::string Repeat(std::string_view s, int64_t n) {
  std::string out;
  for (int64_t k = 0; k < n; ++k) out += s;
  return out;
}

std::string Pad(const std::string& s, int64_t width, char align) {
  const int64_t gap = std::max<int64_t>(0, width - DisplayWidth(s));
  if (align == 'r') return std::string(static_cast<size_t>(gap), ' ') + s;
  if (align == 'c') {
    return std::string(static_cast<size_t>(gap / 2), ' ') + s +
           std::string(static_cast<size_t>(gap - gap / 2), ' ');
  }
  return s + std::string(static_cast<size_t>(gap), ' ');
}

// Type text for table headers: dictionaries shortened to what a reader
// cares about ("dictionary<values=string, indices=int8, ordered=0>" would
// dwarf its column).
std::string HeaderTypeName(const DataType& type) {
  if (type.id == TypeId::kDictionary && type.value_type) {
    return "dict<" + type.value_type->ToString() + ">";
  }
  return type.ToString();
}

std::string Escaped(std::string_view s) {
  std::string out;
  AppendEscaped(s, false, &out);
  return out;
}

// Appends `text`, double-quoted when `quote` is set or it holds one of
// `specials` or whitespace; inside the quotes a '"' or '\\' is escaped with
// a backslash (array elements) or, with `double_up`, doubled (record fields).
void AppendQuotedIfNeeded(std::string_view text, bool quote, std::string_view specials,
                          bool double_up, std::string* out) {
  for (char c : text) {
    if (specials.find(c) != std::string_view::npos || c == ' ' || c == '\t' || c == '\n' ||
        c == '\r' || c == '\v' || c == '\f') {
      quote = true;
      break;
    }
  }
  if (!quote) {
    out->append(text);
    return;
  }
  *out += '"';
  for (char c : text) {
    if (c == '"' || c == '\\') *out += double_up ? c : '\\';
    *out += c;
  }
  *out += '"';
}

}  // namespace

void AppendPgArrayElement(std::string_view text, std::string* out) {
  const bool is_null_word =
      text.size() == 4 && (text[0] == 'N' || text[0] == 'n') && (text[1] == 'U' || text[1] == 'u') &&
      (text[2] == 'L' || text[2] == 'l') && (text[3] == 'L' || text[3] == 'l');
  AppendQuotedIfNeeded(text, text.empty() || is_null_word, "{}\",\\", /*double_up=*/false, out);
}

void AppendPgRecordField(std::string_view text, std::string* out) {
  AppendQuotedIfNeeded(text, text.empty(), "\"\\(),", /*double_up=*/true, out);
}

int64_t DisplayWidth(std::string_view text) {
  int64_t width = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t len;
    width += CodePointWidth(DecodeUtf8(text, pos, &len));
    pos += len;
  }
  return width;
}

std::string FormatValue(const ArrayData& array, int64_t i, const ValueFormatOptions& options) {
  std::string out;
  ValueFormatter(options).Format(array, i, false, &out);
  return out;
}

std::string FormatTable(const SchemaRef& schema, const std::vector<RecordBatchRef>& batches,
                        int64_t max_rows) {
  TableFormatOptions options;
  options.max_rows = max_rows;
  return FormatTable(schema, batches, options);
}

std::string FormatTable(const SchemaRef& schema, const std::vector<RecordBatchRef>& batches,
                        const TableFormatOptions& options) {
  const int ncols = schema->num_fields();
  int64_t total = 0;
  for (const auto& b : batches) total += b->num_rows();
  if (options.total_rows >= 0) total = std::max(total, options.total_rows);
  const int64_t max_width = std::max(options.max_column_width, 2);

  // Header cells, then body cells row by row.
  std::vector<std::string> names(ncols), types(ncols);
  std::vector<char> align(ncols);
  std::vector<int64_t> widths(ncols, 1);
  for (int c = 0; c < ncols; ++c) {
    names[c] = Truncate(Escaped(schema->field(c)->name), max_width);
    types[c] = HeaderTypeName(*schema->field(c)->type);
    align[c] = IsNumeric(*schema->field(c)->type) ? 'r' : 'l';
    widths[c] = DisplayWidth(names[c]);
  }
  std::vector<std::vector<std::string>> rows;
  ValueFormatOptions value_options;
  value_options.max_elements = max_width;  // no point rendering what gets cut
  value_options.pg_arrays = options.pg_arrays;
  ValueFormatter formatter(value_options);
  for (const auto& batch : batches) {
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      if (static_cast<int64_t>(rows.size()) >= options.max_rows) break;
      std::vector<std::string> row(ncols);
      for (int c = 0; c < ncols && c < batch->num_columns(); ++c) {
        std::string cell;
        formatter.Format(*batch->column(c), r, false, &cell);
        row[c] = Truncate(cell, max_width);
        widths[c] = std::max(widths[c], DisplayWidth(row[c]));
      }
      rows.push_back(std::move(row));
    }
  }
  // A long type name (struct<...>) may widen its column up to 20 columns;
  // beyond that it is cut, so types never dominate the layout.
  if (options.show_types) {
    for (int c = 0; c < ncols; ++c) {
      const int64_t limit = std::max(widths[c], std::min<int64_t>(20, max_width));
      types[c] = Truncate(types[c], limit);
      widths[c] = std::max(widths[c], DisplayWidth(types[c]));
    }
  }

  // Columns to draw; -1 is the "…" column standing for those left out when
  // the table would be wider than max_total_width (the middle ones go first,
  // as in DuckDB's shell, so both ends of the schema stay visible).
  std::vector<int> visible;
  for (int c = 0; c < ncols; ++c) visible.push_back(c);
  if (options.max_total_width > 0) {
    int64_t total_width = 1;
    for (int c = 0; c < ncols; ++c) total_width += widths[c] + 3;
    if (total_width > options.max_total_width) {
      std::vector<int> left, right;
      int64_t used = 1 + 4;  // border + the "…" column
      for (int l = 0, r = ncols - 1; l <= r;) {
        const int c = left.size() <= right.size() ? l : r;
        if (used + widths[c] + 3 > options.max_total_width) break;
        used += widths[c] + 3;
        if (c == l) {
          left.push_back(l++);
        } else {
          right.insert(right.begin(), r--);
        }
      }
      if (left.empty()) left.push_back(0);  // always show something
      visible = left;
      visible.push_back(-1);
      visible.insert(visible.end(), right.begin(), right.end());
    }
  }
  auto width_of = [&](int c) { return c < 0 ? int64_t{1} : widths[c]; };
  auto cell = [&](const std::vector<std::string>& cells, int c) -> std::string {
    return c < 0 ? "…" : cells[c];
  };

  std::string out;
  if (ncols > 0) {
    auto rule = [&](const char* left, const char* mid, const char* right) {
      out += left;
      for (size_t k = 0; k < visible.size(); ++k) {
        if (k > 0) out += mid;
        out += Repeat("─", width_of(visible[k]) + 2);
      }
      out += right;
      out += '\n';
    };
    auto line = [&](const std::vector<std::string>& cells, bool centered) {
      out += "│";
      for (int c : visible) {
        out += ' ';
        out += Pad(cell(cells, c), width_of(c), centered || c < 0 ? 'c' : align[c]);
        out += " │";
      }
      out += '\n';
    };
    rule("┌", "┬", "┐");
    line(names, true);
    if (options.show_types) line(types, true);
    rule("├", "┼", "┤");
    for (const auto& row : rows) line(row, false);
    rule("└", "┴", "┘");
  } else {
    out += "(no columns)\n";
  }
  if (!options.show_footer) return out;
  const int64_t shown = static_cast<int64_t>(rows.size());
  out += fmt::format("{} {}", total, total == 1 ? "row" : "rows");
  if (shown < total) out += fmt::format(" (showing {})", shown);
  if (static_cast<int>(visible.size()) != ncols) {  // one of them is the "…" column
    out += fmt::format(", {} columns (showing {})", ncols, visible.size() - 1);
  }
  out += '\n';
  return out;
}

std::string FormatSchema(const Schema& schema) {
  std::string out;
  auto metadata = [&](const KeyValueMetadata& md, const char* indent) {
    for (const auto& [k, v] : md) {
      out += fmt::format("{}-- {}: {}\n", indent, Escaped(k), Escaped(v));
    }
  };
  for (const auto& f : schema.fields) {
    out += Escaped(f->ToString());
    out += '\n';
    metadata(f->metadata, "  ");
  }
  if (!schema.metadata.empty()) {
    out += "-- schema metadata --\n";
    metadata(schema.metadata, "");
  }
  return out;
}

}  // namespace quiver
