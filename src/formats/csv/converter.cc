// Converter implementation: one value-parser functor per type family, one
// generic loop per physical layout (fixed width, bit-packed bool, offsets +
// data).
#include "formats/csv/converter.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "common/bit_util.h"
#include "formats/csv/value_parsing.h"

namespace quiver::csv::internal {

TextMatcher::TextMatcher(const std::vector<std::string>& values) : values_(values) {
  for (const std::string& v : values_) {
    if (v.size() < 64) {
      length_mask_ |= uint64_t{1} << v.size();
    } else {
      has_long_ = true;
    }
  }
}

namespace {

// --- value parsers ----------------------------------------------------------
// Each has `using T` (the physical C type) and bool operator()(text, T*).

template <typename I>
struct IntParser {
  using T = I;
  bool operator()(std::string_view text, T* out) const {
    if constexpr (std::is_signed_v<I>) {
      int64_t v;
      if (!ParseInt64(text, &v)) return false;
      if (v < std::numeric_limits<I>::min() || v > std::numeric_limits<I>::max()) return false;
      *out = static_cast<I>(v);
    } else {
      uint64_t v;
      if (!ParseUInt64(text, &v)) return false;
      if (v > std::numeric_limits<I>::max()) return false;
      *out = static_cast<I>(v);
    }
    return true;
  }
};

struct DoubleParser {
  using T = double;
  bool operator()(std::string_view text, T* out) const { return ParseFloat64(text, out); }
};
struct FloatParser {
  using T = float;
  bool operator()(std::string_view text, T* out) const { return ParseFloat32(text, out); }
};

struct Date32Parser {
  using T = int32_t;
  bool operator()(std::string_view text, T* out) const {
    int64_t days;
    if (!ParseDate(text, &days)) return false;
    *out = static_cast<int32_t>(days);
    return true;
  }
};
struct Date64Parser {
  using T = int64_t;
  bool operator()(std::string_view text, T* out) const {
    int64_t days;
    if (!ParseDate(text, &days)) return false;
    *out = days * kMillisPerDay;
    return true;
  }
};

int64_t NanosPerUnit(TimeUnit unit) { return 1000000000 / TimeUnitsPerSecond(unit); }

template <typename I>
struct TimeParser {
  using T = I;
  int64_t nanos_per_unit;
  bool operator()(std::string_view text, T* out) const {
    int64_t nanos;
    int digits;
    if (!ParseTime(text, &nanos, &digits)) return false;
    if (nanos % nanos_per_unit != 0) return false;  // would lose precision
    *out = static_cast<T>(nanos / nanos_per_unit);
    return true;
  }
};

struct TimestampParser {
  using T = int64_t;
  int64_t units_per_second;
  int64_t nanos_per_unit;
  bool zoned;  // zoned types read naive values as UTC; naive types reject zones
  bool operator()(std::string_view text, T* out) const {
    TimestampValue ts;
    if (!ParseTimestamp(text, &ts)) return false;
    if (ts.has_zone && !zoned) return false;
    if (ts.nanos % nanos_per_unit != 0) return false;
    int64_t v;
    if (__builtin_mul_overflow(ts.seconds, units_per_second, &v)) return false;
    if (__builtin_add_overflow(v, ts.nanos / nanos_per_unit, &v)) return false;
    *out = v;
    return true;
  }
};

// Decimals are stored as little-endian two's complement of byte_width bytes.
template <int kWidth>
struct DecimalValue {
  uint8_t bytes[kWidth];
};

template <int kWidth>
struct DecimalParser {
  using T = DecimalValue<kWidth>;
  int32_t precision;
  int32_t scale;
  bool operator()(std::string_view text, T* out) const {
    __int128 v;
    if (!ParseDecimal(text, precision, scale, &v)) return false;
    const int copy = std::min<int>(kWidth, 16);
    std::memcpy(out->bytes, &v, copy);
    if (kWidth > 16) std::memset(out->bytes + 16, v < 0 ? 0xFF : 0x00, kWidth - 16);
    return true;
  }
};

struct BoolParser {
  using T = bool;
  const ConvertContext* ctx;
  bool operator()(std::string_view text, T* out) const {
    if (ctx->trues.Matches(text)) {
      *out = true;
      return true;
    }
    if (ctx->falses.Matches(text)) {
      *out = false;
      return true;
    }
    return false;
  }
};

// Calls fn(parser) with the parser of a fixed-width or bool type; returns
// false for other types.
template <typename Fn>
bool VisitParser(const DataType& type, const ConvertContext& ctx, Fn&& fn) {
  switch (type.id) {
    case TypeId::kBool: fn(BoolParser{&ctx}); return true;
    case TypeId::kInt8: fn(IntParser<int8_t>{}); return true;
    case TypeId::kInt16: fn(IntParser<int16_t>{}); return true;
    case TypeId::kInt32: fn(IntParser<int32_t>{}); return true;
    case TypeId::kInt64: fn(IntParser<int64_t>{}); return true;
    case TypeId::kUInt8: fn(IntParser<uint8_t>{}); return true;
    case TypeId::kUInt16: fn(IntParser<uint16_t>{}); return true;
    case TypeId::kUInt32: fn(IntParser<uint32_t>{}); return true;
    case TypeId::kUInt64: fn(IntParser<uint64_t>{}); return true;
    case TypeId::kFloat: fn(FloatParser{}); return true;
    case TypeId::kDouble: fn(DoubleParser{}); return true;
    case TypeId::kDate32: fn(Date32Parser{}); return true;
    case TypeId::kDate64: fn(Date64Parser{}); return true;
    case TypeId::kTime32: fn(TimeParser<int32_t>{NanosPerUnit(type.unit)}); return true;
    case TypeId::kTime64: fn(TimeParser<int64_t>{NanosPerUnit(type.unit)}); return true;
    case TypeId::kTimestamp:
      fn(TimestampParser{TimeUnitsPerSecond(type.unit), NanosPerUnit(type.unit),
                         !type.timezone.empty()});
      return true;
    case TypeId::kDecimal32: fn(DecimalParser<4>{type.precision, type.scale}); return true;
    case TypeId::kDecimal64: fn(DecimalParser<8>{type.precision, type.scale}); return true;
    case TypeId::kDecimal128: fn(DecimalParser<16>{type.precision, type.scale}); return true;
    case TypeId::kDecimal256: fn(DecimalParser<32>{type.precision, type.scale}); return true;
    default: return false;
  }
}

bool IsTextType(TypeId id) {
  return id == TypeId::kString || id == TypeId::kLargeString || id == TypeId::kBinary ||
         id == TypeId::kLargeBinary;
}

// Iterates one column's fields, resolving escapes into a scratch string only
// for the fields that need it.
class FieldCursor {
 public:
  FieldCursor(const ParsedBlock& block, int col, const ConvertContext& ctx)
      : block_(block), col_(col), ctx_(ctx) {}
  std::string_view Text(int64_t row) {
    const FieldSpan& f = block_.fields[row * block_.num_cols + col_];
    if (!f.needs_unescape()) return block_.FieldText(f);
    UnescapeField(block_.FieldText(f), ctx_.parse_options, &scratch_);
    return scratch_;
  }
  // Whether row `row`'s field, whose text is `text`, reads as null.
  bool Null(int64_t row, std::string_view text) const {
    return ctx_.nulls.Matches(text) &&
           (ctx_.quoted_nulls || !block_.fields[row * block_.num_cols + col_].quoted());
  }

 private:
  const ParsedBlock& block_;
  int col_;
  const ConvertContext& ctx_;
  std::string scratch_;
};

Status BadValue(const ParsedBlock& block, int64_t row, int col, std::string_view text,
                const std::string& what, BlockError* error) {
  constexpr size_t kMaxShown = 100;
  std::string shown(text.substr(0, kMaxShown));
  if (text.size() > kMaxShown) shown += "...";
  error->row = row;
  error->column = col;
  error->line_offset = block.RowLineOffset(row);
  error->message = fmt::format("cannot parse '{}' as {}", shown, what);
  return Status::Invalid("{}", error->message);
}

// Validity bitmap created lazily at the first null.
class LazyValidity {
 public:
  LazyValidity(int64_t length, MemoryPool* pool) : length_(length), pool_(pool) {}
  Status SetNull(int64_t i) {
    if (bits_ == nullptr) {
      QUIVER_ASSIGN_OR_RAISE(buffer_, MutableBuffer::Allocate(bit_util::BytesForBits(length_), pool_));
      bits_ = buffer_->mutable_data();
      std::memset(bits_, 0xFF, static_cast<size_t>(buffer_->size()));
    }
    bit_util::ClearBit(bits_, i);
    ++null_count_;
    return Status::OK();
  }
  std::shared_ptr<Buffer> Finish() {
    if (buffer_) buffer_->ZeroPadding();
    return buffer_;
  }
  int64_t null_count() const { return null_count_; }

 private:
  int64_t length_;
  MemoryPool* pool_;
  std::shared_ptr<MutableBuffer> buffer_;
  uint8_t* bits_ = nullptr;
  int64_t null_count_ = 0;
};

template <typename Parser>
Status ConvertFixed(const ParsedBlock& block, int col, const ColumnSpec& spec,
                    const ConvertContext& ctx, const Parser& parse, ArrayRef* out,
                    BlockError* error) {
  using T = typename Parser::T;
  const int64_t n = block.num_rows;
  QUIVER_ASSIGN_OR_RAISE(auto values,
                         MutableBuffer::Allocate(n * static_cast<int64_t>(sizeof(T)), ctx.pool));
  T* v = values->template mutable_data_as<T>();
  LazyValidity validity(n, ctx.pool);
  FieldCursor cursor(block, col, ctx);
  const bool nulls_first = spec.nulls_first;
  for (int64_t r = 0; r < n; ++r) {
    const std::string_view text = cursor.Text(r);
    if (nulls_first && cursor.Null(r, text)) {
      std::memset(&v[r], 0, sizeof(T));
      QUIVER_RETURN_NOT_OK(validity.SetNull(r));
      continue;
    }
    if (parse(text, &v[r])) [[likely]] continue;
    if (!nulls_first && cursor.Null(r, text)) {
      std::memset(&v[r], 0, sizeof(T));
      QUIVER_RETURN_NOT_OK(validity.SetNull(r));
      continue;
    }
    return BadValue(block, r, col, text, spec.type->ToString(), error);
  }
  values->ZeroPadding();
  const int64_t null_count = validity.null_count();
  *out = ArrayData::Make(spec.type, n, {validity.Finish(), std::move(values)}, null_count);
  return Status::OK();
}

Status ConvertBool(const ParsedBlock& block, int col, const ColumnSpec& spec,
                   const ConvertContext& ctx, ArrayRef* out, BlockError* error) {
  const int64_t n = block.num_rows;
  QUIVER_ASSIGN_OR_RAISE(auto values, AllocateZeroed(bit_util::BytesForBits(n), ctx.pool));
  uint8_t* bits = values->mutable_data();
  LazyValidity validity(n, ctx.pool);
  FieldCursor cursor(block, col, ctx);
  BoolParser parse{&ctx};
  for (int64_t r = 0; r < n; ++r) {
    const std::string_view text = cursor.Text(r);
    if (spec.nulls_first && cursor.Null(r, text)) {
      QUIVER_RETURN_NOT_OK(validity.SetNull(r));
      continue;
    }
    bool b;
    if (parse(text, &b)) {
      if (b) bit_util::SetBit(bits, r);
      continue;
    }
    if (!spec.nulls_first && cursor.Null(r, text)) {
      QUIVER_RETURN_NOT_OK(validity.SetNull(r));
      continue;
    }
    return BadValue(block, r, col, text, spec.type->ToString(), error);
  }
  const int64_t null_count = validity.null_count();
  *out = ArrayData::Make(spec.type, n, {validity.Finish(), std::move(values)}, null_count);
  return Status::OK();
}

template <typename Offset>
Status ConvertText(const ParsedBlock& block, int col, const ColumnSpec& spec,
                   const ConvertContext& ctx, ArrayRef* out, BlockError* error) {
  const int64_t n = block.num_rows;
  const int stride = block.num_cols;
  // Raw sizes bound the unescaped sizes.
  int64_t total = 0;
  for (int64_t r = 0; r < n; ++r) total += block.fields[r * stride + col].size();
  if (total > std::numeric_limits<Offset>::max()) {
    error->row = 0;
    error->column = col;
    error->line_offset = 0;
    error->message = "text column too large for 32-bit offsets in one block";
    return Status::Invalid("{}", error->message);
  }
  QUIVER_ASSIGN_OR_RAISE(auto offsets, MutableBuffer::Allocate(
                                           (n + 1) * static_cast<int64_t>(sizeof(Offset)), ctx.pool));
  QUIVER_ASSIGN_OR_RAISE(auto data, MutableBuffer::Allocate(total, ctx.pool));
  Offset* off = offsets->template mutable_data_as<Offset>();
  uint8_t* dst = data->mutable_data();
  LazyValidity validity(n, ctx.pool);
  FieldCursor cursor(block, col, ctx);
  const bool nullable = spec.null_texts_are_null;
  Offset pos = 0;
  off[0] = 0;
  for (int64_t r = 0; r < n; ++r) {
    const std::string_view text = cursor.Text(r);
    if (nullable && cursor.Null(r, text)) {
      QUIVER_RETURN_NOT_OK(validity.SetNull(r));
    } else if (!text.empty()) {
      std::memcpy(dst + pos, text.data(), text.size());
      pos += static_cast<Offset>(text.size());
    }
    off[r + 1] = pos;
  }
  const TypeId id = spec.type->id;
  if ((id == TypeId::kString || id == TypeId::kLargeString) &&
      !ValidateUtf8({reinterpret_cast<const char*>(dst), static_cast<size_t>(pos)})) {
    for (int64_t r = 0; r < n; ++r) {
      const std::string_view value(reinterpret_cast<const char*>(dst) + off[r],
                                   static_cast<size_t>(off[r + 1] - off[r]));
      if (!ValidateUtf8(value)) {
        return BadValue(block, r, col, value, spec.type->ToString() + " (invalid UTF-8)", error);
      }
    }
  }
  QUIVER_RETURN_NOT_OK(data->Resize(pos));
  data->ZeroPadding();
  offsets->ZeroPadding();
  const int64_t null_count = validity.null_count();
  *out = ArrayData::Make(spec.type, n, {validity.Finish(), std::move(offsets), std::move(data)},
                         null_count);
  return Status::OK();
}

Status ConvertNull(const ParsedBlock& block, int col, const ColumnSpec& spec,
                   const ConvertContext& ctx, ArrayRef* out, BlockError* error) {
  FieldCursor cursor(block, col, ctx);
  for (int64_t r = 0; r < block.num_rows; ++r) {
    const std::string_view text = cursor.Text(r);
    if (!cursor.Null(r, text)) return BadValue(block, r, col, text, "null", error);
  }
  *out = ArrayData::Make(spec.type, block.num_rows, {}, block.num_rows);
  return Status::OK();
}

}  // namespace

Status CheckConvertible(const TypeRef& type) {
  if (type == nullptr) return Status::Invalid("missing column type");
  if (IsTextType(type->id) || type->id == TypeId::kNull) return Status::OK();
  ConvertContext ctx;
  if (VisitParser(*type, ctx, [](auto&&) {})) {
    // Values are parsed into 128 bits, so decimal256 holds at most 38 digits.
    if (type->is_decimal() && (type->precision < 1 || type->precision > 76)) {
      return Status::Invalid("bad decimal precision {}", type->precision);
    }
    return Status::OK();
  }
  return Status::Unsupported("CSV column type {}", type->ToString());
}

bool TextConvertsTo(std::string_view text, const TypeRef& type, const ConvertContext& ctx) {
  if (IsTextType(type->id)) return true;
  bool ok = false;
  VisitParser(*type, ctx, [&](const auto& parse) {
    typename std::decay_t<decltype(parse)>::T value;
    ok = parse(text, &value);
  });
  return ok;
}

void PrepareColumnSpec(const ConvertContext& ctx, ColumnSpec* spec) {
  spec->nulls_first = false;
  for (const std::string& v : ctx.nulls.values()) {
    if (TextConvertsTo(v, spec->type, ctx)) spec->nulls_first = true;
  }
}

Status ConvertColumn(const ParsedBlock& block, int col, const ColumnSpec& spec,
                     const ConvertContext& ctx, ArrayRef* out, BlockError* error) {
  const DataType& type = *spec.type;
  switch (type.id) {
    case TypeId::kNull: return ConvertNull(block, col, spec, ctx, out, error);
    case TypeId::kBool: return ConvertBool(block, col, spec, ctx, out, error);
    case TypeId::kString:
    case TypeId::kBinary: return ConvertText<int32_t>(block, col, spec, ctx, out, error);
    case TypeId::kLargeString:
    case TypeId::kLargeBinary: return ConvertText<int64_t>(block, col, spec, ctx, out, error);
    default: break;
  }
  Status st = Status::Unsupported("CSV column type {}", type.ToString());
  VisitParser(type, ctx, [&](const auto& parse) {
    st = ConvertFixed(block, col, spec, ctx, parse, out, error);
  });
  return st;
}

}  // namespace quiver::csv::internal
