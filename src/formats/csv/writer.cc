// CsvWriter: one formatter per column type appends a value's text to the
// output line; rows are assembled in a buffer and written to the sink in
// chunks of about 1 MiB.
#include "formats/csv/writer.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "common/calendar.h"
#include "common/datetime_text.h"
#include "columnar/pretty_print.h"
#include "common/half_float.h"

namespace quiver::csv {

namespace {

constexpr size_t kFlushBytes = 1 << 20;

void AppendPadded(std::string* out, int64_t v, int width) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  for (int n = static_cast<int>(r.ptr - buf); n < width; ++n) out->push_back('0');
  out->append(buf, r.ptr);
}

template <typename T>
void AppendNumber(std::string* out, T v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

void AppendDate(std::string* out, int64_t days) {
  const CivilDate date = CivilFromDays(days);
  int64_t y = date.year;
  if (y < 0) {
    out->push_back('-');
    y = -y;
  }
  AppendPadded(out, y, 4);
  out->push_back('-');
  AppendPadded(out, date.month, 2);
  out->push_back('-');
  AppendPadded(out, date.day, 2);
}

int FractionDigits(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return 0;
    case TimeUnit::kMilli: return 3;
    case TimeUnit::kMicro: return 6;
    case TimeUnit::kNano: return 9;
  }
  return 0;
}

// HH:MM:SS[.fraction] of `units` since midnight (0 <= units < a day), the
// fraction only when non-zero and without trailing zeros, as PostgreSQL's
// COPY writes it (pyarrow and DuckDB read both forms).
void AppendTimeOfDay(std::string* out, int64_t units, TimeUnit unit) {
  const int64_t per_second = TimeUnitsPerSecond(unit);
  AppendClock(out, units / per_second, units % per_second, FractionDigits(unit));
}

// Decimal text of a little-endian two's complement integer of `words`
// 64-bit limbs, with `scale` digits after the point.
void AppendDecimal(std::string* out, const uint8_t* bytes, int width, int32_t scale) {
  uint64_t limbs[4] = {0, 0, 0, 0};
  const int words = (width + 7) / 8;
  std::memcpy(limbs, bytes, static_cast<size_t>(width));
  const bool neg = (bytes[width - 1] & 0x80) != 0;
  if (width < 8 && neg) limbs[0] |= ~uint64_t{0} << (width * 8);  // sign-extend decimal32
  if (neg) {  // two's complement negate
    uint64_t carry = 1;
    for (int i = 0; i < words; ++i) {
      limbs[i] = ~limbs[i] + carry;
      carry = carry && limbs[i] == 0;
    }
    if (width < 8) limbs[0] &= (uint64_t{1} << (width * 8)) - 1;
  }
  // Repeated division by 10^19 (schoolbook, 128-bit intermediates).
  std::string digits;
  constexpr uint64_t kChunk = 10000000000000000000ull;
  for (;;) {
    bool zero = true;
    for (int i = 0; i < words; ++i) zero = zero && limbs[i] == 0;
    if (zero) break;
    unsigned __int128 rem = 0;
    for (int i = words - 1; i >= 0; --i) {
      const unsigned __int128 cur = (rem << 64) | limbs[i];
      limbs[i] = static_cast<uint64_t>(cur / kChunk);
      rem = cur % kChunk;
    }
    char buf[20];
    uint64_t r = static_cast<uint64_t>(rem);
    for (int i = 18; i >= 0; --i) {
      buf[i] = static_cast<char>('0' + r % 10);
      r /= 10;
    }
    digits.insert(0, buf, 19);
  }
  const size_t first = digits.find_first_not_of('0');
  digits = first == std::string::npos ? "0" : digits.substr(first);
  if (scale > 0) {
    if (digits.size() <= static_cast<size_t>(scale)) {
      digits.insert(0, static_cast<size_t>(scale) - digits.size() + 1, '0');
    }
    digits.insert(digits.size() - static_cast<size_t>(scale), 1, '.');
  }
  if (neg) out->push_back('-');
  out->append(digits);
}

}  // namespace

class CsvWriter::ColumnFormatter {
 public:
  explicit ColumnFormatter(TypeRef type) : type_(std::move(type)) {}
  virtual ~ColumnFormatter() = default;
  // Whether values are free text that may need quoting.
  virtual bool is_text() const { return false; }
  // Appends the text of valid slot i.
  virtual void Append(const ArrayData& a, int64_t i, std::string* out) const = 0;
  virtual bool IsNull(const ArrayData& a, int64_t i) const { return a.IsNull(i); }

 protected:
  TypeRef type_;
};

namespace {

using ColumnFormatter = CsvWriter::ColumnFormatter;

class BoolFormatter final : public ColumnFormatter {
 public:
  using ColumnFormatter::ColumnFormatter;
  void Append(const ArrayData& a, int64_t i, std::string* out) const override {
    out->append(bit_util::GetBit(a.GetRaw<uint8_t>(1), a.offset + i) ? "true" : "false");
  }
};

template <typename T>
class NumberFormatter final : public ColumnFormatter {
 public:
  using ColumnFormatter::ColumnFormatter;
  void Append(const ArrayData& a, int64_t i, std::string* out) const override {
    AppendNumber(out, a.GetValues<T>(1)[i]);
  }
};

class HalfFloatFormatter final : public ColumnFormatter {
 public:
  using ColumnFormatter::ColumnFormatter;
  void Append(const ArrayData& a, int64_t i, std::string* out) const override {
    AppendNumber(out, HalfToFloat(a.GetValues<uint16_t>(1)[i]));
  }
};

class DateFormatter final : public ColumnFormatter {
 public:
  using ColumnFormatter::ColumnFormatter;
  void Append(const ArrayData& a, int64_t i, std::string* out) const override {
    if (type_->id == TypeId::kDate32) {
      AppendDate(out, a.GetValues<int32_t>(1)[i]);
    } else {
      AppendDate(out, FloorDiv(a.GetValues<int64_t>(1)[i], kMillisPerDay));
    }
  }
};

class TimeFormatter final : public ColumnFormatter {
 public:
  using ColumnFormatter::ColumnFormatter;
  void Append(const ArrayData& a, int64_t i, std::string* out) const override {
    const int64_t v = type_->id == TypeId::kTime32 ? a.GetValues<int32_t>(1)[i]
                                                   : a.GetValues<int64_t>(1)[i];
    AppendTimeOfDay(out, FloorMod(v, kSecondsPerDay * TimeUnitsPerSecond(type_->unit)),
                    type_->unit);
  }
};

class TimestampFormatter final : public ColumnFormatter {
 public:
  using ColumnFormatter::ColumnFormatter;
  void Append(const ArrayData& a, int64_t i, std::string* out) const override {
    const int64_t v = a.GetValues<int64_t>(1)[i];
    const auto [days, time_of_day] = SplitDays(v, kSecondsPerDay * TimeUnitsPerSecond(type_->unit));
    AppendDate(out, days);
    out->push_back(' ');
    AppendTimeOfDay(out, time_of_day, type_->unit);
    // Instants are written in UTC, with PostgreSQL's offset text.
    if (!type_->timezone.empty()) out->append("+00");
  }
};

// Intervals as PostgreSQL writes them (IntervalStyle postgres).
class IntervalFormatter final : public ColumnFormatter {
 public:
  using ColumnFormatter::ColumnFormatter;
  void Append(const ArrayData& a, int64_t i, std::string* out) const override {
    int64_t months = 0, days = 0, nanos = 0;
    const uint8_t* raw = a.GetRaw<uint8_t>(1);
    if (type_->id == TypeId::kIntervalMonths) {
      months = a.GetValues<int32_t>(1)[i];
    } else if (type_->id == TypeId::kIntervalDayTime) {
      int32_t v[2];
      std::memcpy(v, raw + (a.offset + i) * 8, sizeof(v));
      days = v[0];
      nanos = int64_t{v[1]} * 1000000;
    } else {
      int32_t md[2];
      std::memcpy(md, raw + (a.offset + i) * 16, sizeof(md));
      std::memcpy(&nanos, raw + (a.offset + i) * 16 + 8, sizeof(nanos));
      months = md[0];
      days = md[1];
    }
    out->append(FormatPostgresInterval(months, days, nanos, 9));
  }
};

class DecimalFormatter final : public ColumnFormatter {
 public:
  using ColumnFormatter::ColumnFormatter;
  void Append(const ArrayData& a, int64_t i, std::string* out) const override {
    const int w = type_->byte_width;
    AppendDecimal(out, a.GetRaw<uint8_t>(1) + (a.offset + i) * w, w, type_->scale);
  }
};

class TextFormatter final : public ColumnFormatter {
 public:
  using ColumnFormatter::ColumnFormatter;
  bool is_text() const override { return true; }
  void Append(const ArrayData& a, int64_t i, std::string* out) const override {
    out->append(a.GetString(i));
  }
};

class FixedSizeBinaryFormatter final : public ColumnFormatter {
 public:
  using ColumnFormatter::ColumnFormatter;
  bool is_text() const override { return true; }
  void Append(const ArrayData& a, int64_t i, std::string* out) const override {
    const int w = type_->byte_width;
    out->append(reinterpret_cast<const char*>(a.GetRaw<uint8_t>(1) + (a.offset + i) * w),
                static_cast<size_t>(w));
  }
};

Result<std::unique_ptr<ColumnFormatter>> MakeFormatter(const TypeRef& type);

class DictionaryFormatter final : public ColumnFormatter {
 public:
  DictionaryFormatter(TypeRef type, std::unique_ptr<ColumnFormatter> values)
      : ColumnFormatter(std::move(type)), values_(std::move(values)) {}
  bool is_text() const override { return values_->is_text(); }
  void Append(const ArrayData& a, int64_t i, std::string* out) const override {
    values_->Append(*a.dictionary, Index(a, i), out);
  }
  // A slot is null if the index or the dictionary value is null.
  bool IsNull(const ArrayData& a, int64_t i) const override {
    return a.IsNull(i) || a.dictionary->IsNull(Index(a, i));
  }

 private:
  int64_t Index(const ArrayData& a, int64_t i) const {
    int64_t index = 0;
    switch (type_->index_type->id) {
      case TypeId::kInt8: index = a.GetValues<int8_t>(1)[i]; break;
      case TypeId::kInt16: index = a.GetValues<int16_t>(1)[i]; break;
      case TypeId::kInt32: index = a.GetValues<int32_t>(1)[i]; break;
      case TypeId::kUInt8: index = a.GetValues<uint8_t>(1)[i]; break;
      case TypeId::kUInt16: index = a.GetValues<uint16_t>(1)[i]; break;
      case TypeId::kUInt32: index = a.GetValues<uint32_t>(1)[i]; break;
      case TypeId::kUInt64: index = static_cast<int64_t>(a.GetValues<uint64_t>(1)[i]); break;
      default: index = a.GetValues<int64_t>(1)[i]; break;
    }
    return index;
  }

  std::unique_ptr<ColumnFormatter> values_;
};

// A list as PostgreSQL's array text ({1,2,NULL}, {"a b",c}, {{1},{2}}),
// each element as its own column would write it.
class ListFormatter final : public ColumnFormatter {
 public:
  ListFormatter(TypeRef type, std::unique_ptr<ColumnFormatter> elements)
      : ColumnFormatter(std::move(type)), elements_(std::move(elements)) {}
  bool is_text() const override { return true; }
  void Append(const ArrayData& a, int64_t i, std::string* out) const override {
    const int32_t* off = a.GetValues<int32_t>(1);
    const ArrayData& child = *a.children[0];
    const bool nested = child.type->id == TypeId::kList;
    std::string text;
    *out += '{';
    for (int32_t k = off[i]; k < off[i + 1]; ++k) {
      if (k > off[i]) *out += ',';
      if (elements_->IsNull(child, k)) {
        *out += "NULL";
      } else if (nested) {
        elements_->Append(child, k, out);
      } else {
        text.clear();
        elements_->Append(child, k, &text);
        AppendPgArrayElement(text, out);
      }
    }
    *out += '}';
  }

 private:
  std::unique_ptr<ColumnFormatter> elements_;
};

// Structs (PostgreSQL's record text, (1,abc)) and maps ({k: v}), as quiver
// sql's tables print them.
class NestedTextFormatter final : public ColumnFormatter {
 public:
  using ColumnFormatter::ColumnFormatter;
  bool is_text() const override { return true; }
  void Append(const ArrayData& a, int64_t i, std::string* out) const override {
    ValueFormatOptions o;
    o.pg_arrays = true;
    o.max_elements = INT64_MAX;
    *out += FormatValue(a, i, o);
  }
};

class NullFormatter final : public ColumnFormatter {
 public:
  using ColumnFormatter::ColumnFormatter;
  void Append(const ArrayData&, int64_t, std::string*) const override {}
};

Result<std::unique_ptr<ColumnFormatter>> MakeFormatter(const TypeRef& type) {
  std::unique_ptr<ColumnFormatter> f;
  switch (type->id) {
    case TypeId::kNull: f = std::make_unique<NullFormatter>(type); break;
    case TypeId::kBool: f = std::make_unique<BoolFormatter>(type); break;
    case TypeId::kInt8: f = std::make_unique<NumberFormatter<int8_t>>(type); break;
    case TypeId::kInt16: f = std::make_unique<NumberFormatter<int16_t>>(type); break;
    case TypeId::kInt32: f = std::make_unique<NumberFormatter<int32_t>>(type); break;
    case TypeId::kInt64:
    case TypeId::kDuration: f = std::make_unique<NumberFormatter<int64_t>>(type); break;
    case TypeId::kUInt8: f = std::make_unique<NumberFormatter<uint8_t>>(type); break;
    case TypeId::kUInt16: f = std::make_unique<NumberFormatter<uint16_t>>(type); break;
    case TypeId::kUInt32: f = std::make_unique<NumberFormatter<uint32_t>>(type); break;
    case TypeId::kUInt64: f = std::make_unique<NumberFormatter<uint64_t>>(type); break;
    case TypeId::kHalfFloat: f = std::make_unique<HalfFloatFormatter>(type); break;
    case TypeId::kFloat: f = std::make_unique<NumberFormatter<float>>(type); break;
    case TypeId::kDouble: f = std::make_unique<NumberFormatter<double>>(type); break;
    case TypeId::kDate32:
    case TypeId::kDate64: f = std::make_unique<DateFormatter>(type); break;
    case TypeId::kTime32:
    case TypeId::kTime64: f = std::make_unique<TimeFormatter>(type); break;
    case TypeId::kTimestamp: f = std::make_unique<TimestampFormatter>(type); break;
    case TypeId::kIntervalMonths:
    case TypeId::kIntervalDayTime:
    case TypeId::kIntervalMonthDayNano: f = std::make_unique<IntervalFormatter>(type); break;
    case TypeId::kDecimal32:
    case TypeId::kDecimal64:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256: f = std::make_unique<DecimalFormatter>(type); break;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kLargeString:
    case TypeId::kLargeBinary:
    case TypeId::kStringView:
    case TypeId::kBinaryView: f = std::make_unique<TextFormatter>(type); break;
    case TypeId::kFixedSizeBinary: f = std::make_unique<FixedSizeBinaryFormatter>(type); break;
    case TypeId::kDictionary: {
      QUIVER_ASSIGN_OR_RAISE(auto values, MakeFormatter(type->value_type));
      f = std::make_unique<DictionaryFormatter>(type, std::move(values));
      break;
    }
    case TypeId::kList: {
      QUIVER_ASSIGN_OR_RAISE(auto elements, MakeFormatter(type->children[0]->type));
      f = std::make_unique<ListFormatter>(type, std::move(elements));
      break;
    }
    case TypeId::kStruct:
    case TypeId::kMap: f = std::make_unique<NestedTextFormatter>(type); break;
    default: return Status::Unsupported("CSV output of type {}", type->ToString());
  }
  return f;
}

bool IsUnsafeInValues(char c) {
  // Characters that formatted numbers, dates and times can contain.
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         std::strchr("-+.: ", c) != nullptr;
}

}  // namespace

CsvWriter::CsvWriter(OutputStream* sink, SchemaRef schema, WriteOptions options,
                     std::vector<std::unique_ptr<ColumnFormatter>> formatters)
    : sink_(sink),
      schema_(std::move(schema)),
      options_(std::move(options)),
      formatters_(std::move(formatters)) {}

CsvWriter::~CsvWriter() = default;

Result<std::unique_ptr<CsvWriter>> CsvWriter::Make(OutputStream* sink, SchemaRef schema,
                                                   const WriteOptions& options) {
  if (sink == nullptr || schema == nullptr) return Status::Invalid("CSV writer: no sink or schema");
  if (options.delimiter == options.quote || options.delimiter == '\n' ||
      options.delimiter == '\r') {
    return Status::Invalid("CSV writer: delimiter must differ from the quote and line breaks");
  }
  std::vector<std::unique_ptr<ColumnFormatter>> formatters;
  for (const FieldRef& f : schema->fields) {
    auto formatter = MakeFormatter(f->type);
    if (!formatter.ok()) return formatter.status().WithContext("column '" + f->name + "'");
    formatters.push_back(std::move(formatter).ValueOrDie());
  }
  return std::unique_ptr<CsvWriter>(
      new CsvWriter(sink, std::move(schema), options, std::move(formatters)));
}

namespace {

// Appends `text` to out, quoted when `style` (or its content) requires it.
Status AppendField(std::string_view text, bool is_text, const WriteOptions& o, std::string* out) {
  bool quote = is_text && o.quoting == QuotingStyle::kAllStrings;
  if (!quote) {
    quote = (is_text && text.empty() && o.null_string.empty()) ||
            (is_text && !text.empty() && (text.front() == ' ' || text.back() == ' ')) ||
            (!o.null_string.empty() && text == o.null_string);
    for (char c : text) {
      if (c == o.delimiter || c == o.quote || c == '\n' || c == '\r') {
        quote = true;
        break;
      }
    }
  }
  if (!quote) {
    out->append(text);
    return Status::OK();
  }
  if (o.quoting == QuotingStyle::kNone) {
    return Status::Invalid("CSV writer: value '{}' needs quoting but quoting is off", text);
  }
  out->push_back(o.quote);
  for (char c : text) {
    if (c == o.quote) out->push_back(c);
    out->push_back(c);
  }
  out->push_back(o.quote);
  return Status::OK();
}

}  // namespace

Status CsvWriter::WriteHeader() {
  header_written_ = true;
  if (!options_.header) return Status::OK();
  std::string line;
  for (int c = 0; c < schema_->num_fields(); ++c) {
    if (c > 0) line.push_back(options_.delimiter);
    QUIVER_RETURN_NOT_OK(AppendField(schema_->field(c)->name, true, options_, &line));
  }
  line += options_.eol;
  return sink_->Write(line);
}

Status CsvWriter::WriteRecordBatch(const RecordBatch& batch) {
  if (closed_) return Status::Invalid("CSV writer: write after Close");
  if (batch.num_columns() != static_cast<int>(formatters_.size())) {
    return Status::Invalid("CSV writer: batch has {} columns, schema has {}", batch.num_columns(),
                           formatters_.size());
  }
  if (!header_written_) QUIVER_RETURN_NOT_OK(WriteHeader());
  const int ncols = batch.num_columns();
  const bool check_values =
      IsUnsafeInValues(options_.delimiter) || IsUnsafeInValues(options_.quote);
  std::string& out = line_buffer_;
  std::string scratch;
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    for (int c = 0; c < ncols; ++c) {
      if (c > 0) out.push_back(options_.delimiter);
      const ArrayData& a = *batch.column(c);
      const ColumnFormatter& f = *formatters_[c];
      if (f.IsNull(a, r)) {
        // A lone empty field would be an empty line, which readers skip.
        if (ncols == 1 && options_.null_string.empty()) {
          out.push_back(options_.quote);
          out.push_back(options_.quote);
        }
        out.append(options_.null_string);
        continue;
      }
      if (!f.is_text() && !check_values && options_.null_string.empty()) {
        f.Append(a, r, &out);
        continue;
      }
      scratch.clear();
      f.Append(a, r, &scratch);
      QUIVER_RETURN_NOT_OK(AppendField(scratch, f.is_text(), options_, &out));
    }
    out += options_.eol;
    if (out.size() >= kFlushBytes) {
      QUIVER_RETURN_NOT_OK(sink_->Write(out));
      out.clear();
    }
  }
  if (!out.empty()) {
    QUIVER_RETURN_NOT_OK(sink_->Write(out));
    out.clear();
  }
  return Status::OK();
}

Status CsvWriter::Close() {
  if (closed_) return Status::OK();
  if (!header_written_) QUIVER_RETURN_NOT_OK(WriteHeader());
  closed_ = true;
  return sink_->Flush();
}

}  // namespace quiver::csv
