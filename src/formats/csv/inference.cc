// Type inference (see inference.h for the order of candidates).
#include "formats/csv/inference.h"

#include "formats/csv/value_parsing.h"

namespace quiver::csv::internal {

namespace {

enum class Kind : int {
  kNull,
  kInt64,
  kBool,
  kDate,
  kTime,
  kTimestampS,
  kTimestampNs,
  kTimestampSUtc,
  kTimestampNsUtc,
  kFloat64,
  kUtf8,
  kBinary,
};

// Timestamps that fit int64 nanoseconds: years 1677..2262.
constexpr int64_t kMinNsSeconds = -9223372036LL;
constexpr int64_t kMaxNsSeconds = 9223372035LL;

bool Accepts(Kind kind, std::string_view text, const ConvertContext& ctx) {
  switch (kind) {
    case Kind::kNull: return false;
    case Kind::kInt64: {
      int64_t v;
      return ParseInt64(text, &v);
    }
    case Kind::kBool: return ctx.trues.Matches(text) || ctx.falses.Matches(text);
    case Kind::kDate: {
      int64_t d;
      return ParseDate(text, &d);
    }
    case Kind::kTime: {
      int64_t nanos;
      int digits;
      return ParseTime(text, &nanos, &digits) && digits == 0;
    }
    case Kind::kTimestampS:
    case Kind::kTimestampNs:
    case Kind::kTimestampSUtc:
    case Kind::kTimestampNsUtc: {
      TimestampValue ts;
      if (!ParseTimestamp(text, &ts)) return false;
      const bool zoned = kind == Kind::kTimestampSUtc || kind == Kind::kTimestampNsUtc;
      if (ts.has_zone != zoned) return false;
      if (kind == Kind::kTimestampS || kind == Kind::kTimestampSUtc) return ts.fraction_digits == 0;
      return ts.seconds >= kMinNsSeconds && ts.seconds <= kMaxNsSeconds;
    }
    case Kind::kFloat64: {
      double v;
      return ParseFloat64(text, &v);
    }
    case Kind::kUtf8: return ValidateUtf8(text);
    case Kind::kBinary: return true;
  }
  return false;
}

TypeRef KindType(Kind kind) {
  switch (kind) {
    case Kind::kNull: return utf8();
    case Kind::kInt64: return int64();
    case Kind::kBool: return boolean();
    case Kind::kDate: return date32();
    case Kind::kTime: return time32(TimeUnit::kSecond);
    case Kind::kTimestampS: return timestamp(TimeUnit::kSecond);
    case Kind::kTimestampNs: return timestamp(TimeUnit::kNano);
    case Kind::kTimestampSUtc: return timestamp(TimeUnit::kSecond, "UTC");
    case Kind::kTimestampNsUtc: return timestamp(TimeUnit::kNano, "UTC");
    case Kind::kFloat64: return float64();
    case Kind::kUtf8: return utf8();
    case Kind::kBinary: return binary();
  }
  return utf8();
}

}  // namespace

InferredType InferColumnType(const std::vector<const ParsedBlock*>& blocks, int col,
                             const ConvertContext& ctx) {
  Kind kind = Kind::kNull;
  std::string scratch;
  bool changed = true;
  // Each pass either confirms `kind` for the whole sample or advances it, so
  // at most one pass per candidate.
  while (changed) {
    changed = false;
    for (const ParsedBlock* block : blocks) {
      for (int64_t r = 0; r < block->num_rows; ++r) {
        const FieldSpan& f = block->field(r, col);
        std::string_view text = block->FieldText(f);
        if (f.needs_unescape()) {
          UnescapeField(text, ctx.parse_options, &scratch);
          text = scratch;
        }
        if (ctx.nulls.Matches(text) && (ctx.quoted_nulls || !f.quoted())) continue;
        if (Accepts(kind, text, ctx)) continue;
        const bool restart = kind != Kind::kNull;
        do {
          kind = static_cast<Kind>(static_cast<int>(kind) + 1);
        } while (!Accepts(kind, text, ctx));
        if (restart) {
          changed = true;
          break;
        }
      }
      if (changed) break;
    }
  }
  return InferredType{KindType(kind), kind == Kind::kNull};
}

}  // namespace quiver::csv::internal
