#include "formats/ipc/pgstrom_statistics.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

#include "common/warning.h"

namespace quiver::ipc {
namespace {

using int128 = __int128;

// A parsed token: integers (int128), floats or text.
struct Token {
  int128 i = 0;
  double d = 0;
  std::string s;
};

std::string Trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t')) --b;
  return s.substr(a, b - a);
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = s.find(',', start);
    out.push_back(Trim(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::optional<int128> ParseInt(const std::string& t, int128 lo, int128 hi) {
  size_t i = 0;
  bool neg = false;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) neg = t[i++] == '-';
  if (i == t.size() || t.size() - i > 39) return std::nullopt;
  int128 v = 0;
  for (; i < t.size(); ++i) {
    if (t[i] < '0' || t[i] > '9') return std::nullopt;
    v = v * 10 + (t[i] - '0');
  }
  if (neg) v = -v;
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

bool IsIntegerLike(const DataType& t) {
  switch (t.id) {
    case TypeId::kInt8: case TypeId::kInt16: case TypeId::kInt32: case TypeId::kInt64:
    case TypeId::kUInt8: case TypeId::kUInt16: case TypeId::kUInt32: case TypeId::kUInt64:
    case TypeId::kDate32: case TypeId::kDate64: case TypeId::kTime32: case TypeId::kTime64:
    case TypeId::kTimestamp: case TypeId::kDecimal128:
      return true;
    default:
      return false;
  }
}

// The range of the stored integer of an integer-like type.
void IntRange(const DataType& t, int128* lo, int128* hi) {
  switch (t.id) {
    case TypeId::kInt8: *lo = INT8_MIN; *hi = INT8_MAX; return;
    case TypeId::kInt16: *lo = INT16_MIN; *hi = INT16_MAX; return;
    case TypeId::kInt32: case TypeId::kDate32: case TypeId::kTime32:
      *lo = INT32_MIN; *hi = INT32_MAX; return;
    case TypeId::kUInt8: *lo = 0; *hi = UINT8_MAX; return;
    case TypeId::kUInt16: *lo = 0; *hi = UINT16_MAX; return;
    case TypeId::kUInt32: *lo = 0; *hi = UINT32_MAX; return;
    case TypeId::kUInt64: *lo = 0; *hi = UINT64_MAX; return;
    case TypeId::kDecimal128: {
      int128 p = 1;
      for (int k = 0; k < t.precision; ++k) p *= 10;
      *lo = -(p - 1);
      *hi = p - 1;
      return;
    }
    default: *lo = INT64_MIN; *hi = INT64_MAX; return;
  }
}

std::optional<Token> ParseToken(const DataType& t, const std::string& text) {
  Token out;
  if (IsIntegerLike(t)) {
    int128 lo, hi;
    IntRange(t, &lo, &hi);
    auto v = ParseInt(text, lo, hi);
    if (!v) return std::nullopt;
    out.i = *v;
    return out;
  }
  if (t.id == TypeId::kFloat || t.id == TypeId::kDouble) {
    if (text.empty()) return std::nullopt;
    errno = 0;
    char* end = nullptr;
    out.d = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || std::isnan(out.d)) return std::nullopt;
    return out;
  }
  if (t.id == TypeId::kString) {
    out.s = text;
    return out;
  }
  return std::nullopt;
}

int CompareTokens(const DataType& t, const Token& a, const Token& b) {
  if (IsIntegerLike(t)) return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
  if (t.id == TypeId::kString) return a.s.compare(b.s) < 0 ? -1 : a.s == b.s ? 0 : 1;
  return a.d < b.d ? -1 : a.d > b.d ? 1 : 0;
}

// A length-1 array of `type` holding `v`.
ArrayRef MakeScalar(const TypeRef& type, const Token& v) {
  const DataType& t = *type;
  auto fixed = [&](const void* bytes, int64_t width) -> ArrayRef {
    auto buf = MutableBuffer::Allocate(width);
    if (!buf.ok()) return nullptr;
    std::memcpy((*buf)->mutable_data(), bytes, static_cast<size_t>(width));
    (*buf)->ZeroPadding();
    return ArrayData::Make(type, 1, {nullptr, *buf}, 0);
  };
  switch (t.id) {
    case TypeId::kInt8: case TypeId::kUInt8: {
      const uint8_t x = static_cast<uint8_t>(v.i);
      return fixed(&x, 1);
    }
    case TypeId::kInt16: case TypeId::kUInt16: {
      const uint16_t x = static_cast<uint16_t>(v.i);
      return fixed(&x, 2);
    }
    case TypeId::kInt32: case TypeId::kUInt32: case TypeId::kDate32: case TypeId::kTime32: {
      const uint32_t x = static_cast<uint32_t>(v.i);
      return fixed(&x, 4);
    }
    case TypeId::kInt64: case TypeId::kUInt64: case TypeId::kDate64: case TypeId::kTime64:
    case TypeId::kTimestamp: {
      const uint64_t x = static_cast<uint64_t>(v.i);
      return fixed(&x, 8);
    }
    case TypeId::kDecimal128:
      return fixed(&v.i, 16);
    case TypeId::kFloat: {
      const float x = static_cast<float>(v.d);
      return fixed(&x, 4);
    }
    case TypeId::kDouble:
      return fixed(&v.d, 8);
    case TypeId::kString: {
      auto offsets = MutableBuffer::Allocate(8);
      auto data = MutableBuffer::Allocate(std::max<int64_t>(1, static_cast<int64_t>(v.s.size())));
      if (!offsets.ok() || !data.ok()) return nullptr;
      const int32_t o[2] = {0, static_cast<int32_t>(v.s.size())};
      std::memcpy((*offsets)->mutable_data(), o, 8);
      if (!v.s.empty()) std::memcpy((*data)->mutable_data(), v.s.data(), v.s.size());
      (*offsets)->ZeroPadding();
      (*data)->ZeroPadding();
      return ArrayData::Make(type, 1, {nullptr, *offsets, *data}, 0);
    }
    default:
      return nullptr;
  }
}

}  // namespace

bool PgStromStatisticsSupported(const DataType& t) {
  return IsIntegerLike(t) || t.id == TypeId::kFloat || t.id == TypeId::kDouble ||
         t.id == TypeId::kString;
}

std::string PgStromStatisticsToken(const ArrayData& a, int64_t i) {
  if (!a.IsValid(i)) return {};
  auto int128_text = [](int128 v) {
    if (v == 0) return std::string("0");
    const bool neg = v < 0;
    std::string s;
    while (v != 0) {
      const int d = static_cast<int>(v % 10);
      s.insert(s.begin(), static_cast<char>('0' + (d < 0 ? -d : d)));
      v /= 10;
    }
    return neg ? "-" + s : s;
  };
  switch (a.type->id) {
    case TypeId::kInt8: return std::to_string(a.GetValues<int8_t>(1)[i]);
    case TypeId::kInt16: return std::to_string(a.GetValues<int16_t>(1)[i]);
    case TypeId::kInt32: case TypeId::kDate32: case TypeId::kTime32:
      return std::to_string(a.GetValues<int32_t>(1)[i]);
    case TypeId::kInt64: case TypeId::kDate64: case TypeId::kTime64: case TypeId::kTimestamp:
      return std::to_string(a.GetValues<int64_t>(1)[i]);
    case TypeId::kUInt8: return std::to_string(a.GetValues<uint8_t>(1)[i]);
    case TypeId::kUInt16: return std::to_string(a.GetValues<uint16_t>(1)[i]);
    case TypeId::kUInt32: return std::to_string(a.GetValues<uint32_t>(1)[i]);
    case TypeId::kUInt64: return std::to_string(a.GetValues<uint64_t>(1)[i]);
    case TypeId::kDecimal128: {
      int128 v;
      std::memcpy(&v, a.buffers[1]->data() + (a.offset + i) * 16, 16);
      return int128_text(v);
    }
    case TypeId::kFloat: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(a.GetValues<float>(1)[i]));
      return buf;
    }
    case TypeId::kDouble: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", a.GetValues<double>(1)[i]);
      return buf;
    }
    case TypeId::kString: {
      const int32_t* o = a.GetValues<int32_t>(1);
      const char* d = reinterpret_cast<const char*>(a.buffers[2]->data());
      return std::string(d + o[i], static_cast<size_t>(o[i + 1] - o[i]));
    }
    default:
      return {};
  }
}

namespace {

// Indices of the smallest and largest non-null value of `a` under `less`;
// false when all are null.
template <typename Less>
bool MinMaxIndices(const ArrayData& a, Less less, int64_t* lo, int64_t* hi) {
  *lo = *hi = -1;
  for (int64_t i = 0; i < a.length; ++i) {
    if (!a.IsValid(i)) continue;
    if (*lo < 0) {
      *lo = *hi = i;
      continue;
    }
    if (less(i, *lo)) *lo = i;
    if (less(*hi, i)) *hi = i;
  }
  return *lo >= 0;
}

template <typename T>
bool FixedMinMax(const ArrayData& a, int64_t* lo, int64_t* hi) {
  const T* v = a.GetValues<T>(1);
  return MinMaxIndices(a, [v](int64_t x, int64_t y) { return v[x] < v[y]; }, lo, hi);
}

}  // namespace

KeyValueMetadata PgStromBatchStatistics(const RecordBatch& batch, const std::vector<int>& columns) {
  KeyValueMetadata out;
  for (int c : columns) {
    if (c < 0 || c >= batch.num_columns()) continue;
    const ArrayData& a = *batch.column(c);
    int64_t lo = -1, hi = -1;
    bool ok = false;
    switch (a.type->id) {
      case TypeId::kInt8: ok = FixedMinMax<int8_t>(a, &lo, &hi); break;
      case TypeId::kInt16: ok = FixedMinMax<int16_t>(a, &lo, &hi); break;
      case TypeId::kInt32: case TypeId::kDate32: case TypeId::kTime32:
        ok = FixedMinMax<int32_t>(a, &lo, &hi); break;
      case TypeId::kInt64: case TypeId::kDate64: case TypeId::kTime64: case TypeId::kTimestamp:
        ok = FixedMinMax<int64_t>(a, &lo, &hi); break;
      case TypeId::kUInt8: ok = FixedMinMax<uint8_t>(a, &lo, &hi); break;
      case TypeId::kUInt16: ok = FixedMinMax<uint16_t>(a, &lo, &hi); break;
      case TypeId::kUInt32: ok = FixedMinMax<uint32_t>(a, &lo, &hi); break;
      case TypeId::kUInt64: ok = FixedMinMax<uint64_t>(a, &lo, &hi); break;
      case TypeId::kFloat:
      case TypeId::kDouble: {
        bool nan = false;
        for (int64_t i = 0; i < a.length && !nan; ++i) {
          if (!a.IsValid(i)) continue;
          nan = a.type->id == TypeId::kFloat ? std::isnan(a.GetValues<float>(1)[i])
                                             : std::isnan(a.GetValues<double>(1)[i]);
        }
        if (nan) break;  // NaN sorts above every number: no max to write
        ok = a.type->id == TypeId::kFloat ? FixedMinMax<float>(a, &lo, &hi) : FixedMinMax<double>(a, &lo, &hi);
        break;
      }
      case TypeId::kDecimal128: {
        const uint8_t* base = a.buffers[1]->data() + a.offset * 16;
        auto at = [base](int64_t i) {
          int128 v;
          std::memcpy(&v, base + i * 16, 16);
          return v;
        };
        ok = MinMaxIndices(a, [&](int64_t x, int64_t y) { return at(x) < at(y); }, &lo, &hi);
        break;
      }
      case TypeId::kString: {
        const int32_t* o = a.GetValues<int32_t>(1);
        const char* d = reinterpret_cast<const char*>(a.buffers[2]->data());
        auto at = [&](int64_t i) { return std::string_view(d + o[i], static_cast<size_t>(o[i + 1] - o[i])); };
        ok = MinMaxIndices(a, [&](int64_t x, int64_t y) { return at(x) < at(y); }, &lo, &hi);
        // A comma inside a string would split "min,max" wrongly.
        if (ok && (at(lo).find(',') != std::string_view::npos || at(hi).find(',') != std::string_view::npos))
          ok = false;
        break;
      }
      default:
        break;
    }
    if (!ok) continue;
    out.emplace_back("min_max_stats." + batch.schema()->field(c)->name,
                     PgStromStatisticsToken(a, lo) + "," + PgStromStatisticsToken(a, hi));
  }
  return out;
}

std::vector<std::vector<formats::ColumnStatistics>> ReadPgStromStatistics(
    const std::string& path, const Schema& schema, int num_batches,
    const std::function<KeyValueMetadata(int)>& batch_metadata) {
  const int ncols = schema.num_fields();
  std::vector<std::vector<formats::ColumnStatistics>> out(static_cast<size_t>(ncols));
  auto find = [](const KeyValueMetadata& md, const std::string& key) -> const std::string* {
    for (const auto& [k, v] : md) {
      if (k == key) return &v;
    }
    return nullptr;
  };
  auto warn = [&](const std::string& column, const std::string& why) {
    EmitWarning(fmt::format(
        "{}: column \"{}\": malformed min/max statistics ({}); they are ignored and its record "
        "batches are read in full",
        path, column, why));
  };
  // The record batches' metadata, read once when some column needs it.
  std::vector<KeyValueMetadata> per_batch;
  bool per_batch_read = false;
  for (int c = 0; c < ncols; ++c) {
    const Field& f = *schema.field(c);
    if (!PgStromStatisticsSupported(*f.type)) continue;
    std::vector<formats::ColumnStatistics> stats(static_cast<size_t>(num_batches));
    const std::string* mins = find(f.metadata, "min_values");
    const std::string* maxs = find(f.metadata, "max_values");
    bool have = false;
    std::string bad;
    auto take = [&](int b, const std::string& lo_text, const std::string& hi_text) {
      auto lo = ParseToken(*f.type, lo_text);
      auto hi = ParseToken(*f.type, hi_text);
      if (!lo || !hi) {
        bad = fmt::format("'{}' / '{}' in record batch {} do not parse as {}", lo_text, hi_text, b,
                          f.type->ToString());
        return;
      }
      if (CompareTokens(*f.type, *lo, *hi) > 0) {
        bad = fmt::format("min '{}' > max '{}' in record batch {}", lo_text, hi_text, b);
        return;
      }
      auto& s = stats[static_cast<size_t>(b)];
      s.min = MakeScalar(f.type, *lo);
      s.max = MakeScalar(f.type, *hi);
      have = true;
    };
    if (mins != nullptr || maxs != nullptr) {
      if (mins == nullptr || maxs == nullptr) {
        bad = mins ? "min_values without max_values" : "max_values without min_values";
      } else {
        const auto lo = Split(*mins);
        const auto hi = Split(*maxs);
        if (static_cast<int>(lo.size()) != num_batches || static_cast<int>(hi.size()) != num_batches) {
          bad = fmt::format("{} min and {} max values for {} record batches", lo.size(), hi.size(),
                            num_batches);
        } else {
          for (int b = 0; b < num_batches && bad.empty(); ++b) take(b, lo[b], hi[b]);
        }
      }
    } else {
      if (!per_batch_read) {
        per_batch_read = true;
        for (int b = 0; b < num_batches; ++b) per_batch.push_back(batch_metadata(b));
      }
      const std::string key = "min_max_stats." + f.name;
      for (int b = 0; b < num_batches && bad.empty(); ++b) {
        const std::string* v = find(per_batch[static_cast<size_t>(b)], key);
        if (v == nullptr) continue;  // this batch has none: read it
        const auto parts = Split(*v);
        if (parts.size() != 2) {
          bad = fmt::format("'{}' in record batch {} is not \"min,max\"", *v, b);
        } else {
          take(b, parts[0], parts[1]);
        }
      }
    }
    if (!bad.empty()) {
      warn(f.name, bad);
      continue;
    }
    if (have) out[static_cast<size_t>(c)] = std::move(stats);
  }
  return out;
}

}  // namespace quiver::ipc
