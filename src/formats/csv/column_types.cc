// ParseColumnTypes: "a:int64,b:utf8,c:timestamp[us, tz=UTC],d:decimal128(10,2)".
//
// Entries are split at commas outside [] and (); each entry is NAME:TYPE,
// split at its first ':' (so a time zone like "+05:30" may contain colons).
#include <algorithm>
#include <cctype>
#include <charconv>

#include "formats/csv/reader.h"

namespace quiver::csv {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

Result<TimeUnit> ParseUnit(std::string_view s) {
  const std::string u = Lower(Trim(s));
  if (u == "s") return TimeUnit::kSecond;
  if (u == "ms") return TimeUnit::kMilli;
  if (u == "us") return TimeUnit::kMicro;
  if (u == "ns") return TimeUnit::kNano;
  return Status::Invalid("unknown time unit '{}' (s, ms, us, ns)", s);
}

Result<int32_t> ParseInt(std::string_view s) {
  s = Trim(s);
  int32_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) {
    return Status::Invalid("expected an integer, got '{}'", s);
  }
  return v;
}

// "base(args)" or "base[args]" -> base, args (args empty if none).
void SplitArgs(std::string_view t, std::string_view* base, std::string_view* args) {
  const size_t open = t.find_first_of("[(");
  if (open == std::string_view::npos) {
    *base = t;
    *args = {};
    return;
  }
  *base = Trim(t.substr(0, open));
  std::string_view rest = t.substr(open + 1);
  if (!rest.empty() && (rest.back() == ']' || rest.back() == ')')) rest.remove_suffix(1);
  *args = rest;
}

Result<TypeRef> ParseTypeName(std::string_view text) {
  text = Trim(text);
  std::string_view base_view, args;
  SplitArgs(text, &base_view, &args);
  const std::string base = Lower(base_view);
  if (args.empty()) {
    static const std::pair<const char*, TypeRef (*)()> kSimple[] = {
        {"null", null},          {"bool", boolean},       {"boolean", boolean},
        {"int8", int8},          {"tinyint", int8},       {"int16", int16},
        {"smallint", int16},     {"int32", int32},        {"int", int32},
        {"integer", int32},      {"int64", int64},        {"bigint", int64},
        {"uint8", uint8},        {"uint16", uint16},      {"uint32", uint32},
        {"uint64", uint64},      {"float32", float32},    {"float", float32},
        {"real", float32},       {"float64", float64},    {"double", float64},
        {"utf8", utf8},          {"string", utf8},        {"str", utf8},
        {"varchar", utf8},       {"text", utf8},          {"large_utf8", large_utf8},
        {"large_string", large_utf8}, {"binary", binary}, {"large_binary", large_binary},
        {"date32", date32},      {"date", date32},        {"date64", date64},
    };
    for (const auto& [name, make] : kSimple) {
      if (base == name) return make();
    }
    if (base == "timestamp") return timestamp(TimeUnit::kMicro);
    if (base == "time32") return time32(TimeUnit::kSecond);
    if (base == "time64" || base == "time") return time64(TimeUnit::kMicro);
  }
  if (base == "time32" || base == "time64") {
    QUIVER_ASSIGN_OR_RAISE(TimeUnit unit, ParseUnit(args));
    const bool small = unit == TimeUnit::kSecond || unit == TimeUnit::kMilli;
    if (small != (base == "time32")) return Status::Invalid("{} cannot have unit {}", base, args);
    return small ? time32(unit) : time64(unit);
  }
  if (base == "timestamp") {
    const size_t comma = args.find(',');
    QUIVER_ASSIGN_OR_RAISE(TimeUnit unit, ParseUnit(args.substr(0, comma)));
    std::string tz;
    if (comma != std::string_view::npos) {
      std::string_view z = Trim(args.substr(comma + 1));
      if (z.substr(0, 3) == "tz=") z = Trim(z.substr(3));
      tz = std::string(z);
    }
    return timestamp(unit, tz);
  }
  if (base == "decimal" || base == "numeric" || base == "decimal32" || base == "decimal64" ||
      base == "decimal128" || base == "decimal256") {
    const size_t comma = args.find(',');
    QUIVER_ASSIGN_OR_RAISE(int32_t precision, ParseInt(args.substr(0, comma)));
    int32_t scale = 0;
    if (comma != std::string_view::npos) {
      QUIVER_ASSIGN_OR_RAISE(scale, ParseInt(args.substr(comma + 1)));
    }
    if (precision < 1 || precision > 76 || scale < 0 || scale > precision) {
      return Status::Invalid("bad decimal precision/scale ({}, {})", precision, scale);
    }
    TypeId id = TypeId::kDecimal128;
    if (base == "decimal32") id = TypeId::kDecimal32;
    if (base == "decimal64") id = TypeId::kDecimal64;
    if (base == "decimal256" || (base != "decimal128" && precision > 38)) id = TypeId::kDecimal256;
    const int32_t max_precision = id == TypeId::kDecimal32   ? 9
                                  : id == TypeId::kDecimal64 ? 18
                                  : id == TypeId::kDecimal128 ? 38
                                                              : 76;
    if (precision > max_precision) {
      return Status::Invalid("{} precision must be at most {}", base, max_precision);
    }
    return decimal(id, precision, scale);
  }
  return Status::Invalid("unknown type '{}'", text);
}

}  // namespace

Result<std::vector<std::pair<std::string, TypeRef>>> ParseColumnTypes(std::string_view spec) {
  std::vector<std::pair<std::string, TypeRef>> out;
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i <= spec.size(); ++i) {
    const char c = i < spec.size() ? spec[i] : ',';
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c != ',' || depth > 0) continue;
    const std::string_view entry = Trim(spec.substr(begin, i - begin));
    begin = i + 1;
    if (entry.empty()) {
      if (i == spec.size() && !out.empty()) break;  // tolerate a trailing comma
      return Status::Invalid("schema '{}': empty entry", spec);
    }
    const size_t colon = entry.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      return Status::Invalid("schema '{}': expected NAME:TYPE, got '{}'", spec, entry);
    }
    auto type = ParseTypeName(entry.substr(colon + 1));
    if (!type.ok()) {
      return type.status().WithContext(
          fmt::format("schema '{}': column '{}'", spec, Trim(entry.substr(0, colon))));
    }
    out.emplace_back(std::string(Trim(entry.substr(0, colon))), std::move(type).ValueOrDie());
  }
  if (depth != 0) return Status::Invalid("schema '{}': unbalanced brackets", spec);
  return out;
}

}  // namespace quiver::csv
