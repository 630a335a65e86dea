#include "formats/parquet/statistics_builder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "common/half_float.h"

namespace quiver::parquet {
namespace {

constexpr size_t kMaxBoundBytes = 64;

template <typename T>
T LoadAs(std::string_view v) {
  T x;
  std::memcpy(&x, v.data(), sizeof(T));
  return x;
}

}  // namespace

StatisticsBuilder::StatisticsBuilder(const WriterSchema::Leaf& leaf) {
  const bool is_unsigned =
      leaf.logical_type.kind == LogicalType::Kind::kInteger && !leaf.logical_type.is_signed;
  switch (leaf.physical_type) {
    case Type::kBoolean:
      order_ = Order::kBool;
      break;
    case Type::kInt32:
      order_ = is_unsigned ? Order::kUInt32 : Order::kInt32;
      width_ = 4;
      break;
    case Type::kInt64:
      order_ = is_unsigned ? Order::kUInt64 : Order::kInt64;
      width_ = 8;
      break;
    case Type::kFloat:
      order_ = Order::kFloat;
      width_ = 4;
      break;
    case Type::kDouble:
      order_ = Order::kDouble;
      width_ = 8;
      break;
    case Type::kByteArray:
      order_ = Order::kBytes;
      break;
    case Type::kFixedLenByteArray:
      width_ = leaf.type_length;
      if (leaf.logical_type.kind == LogicalType::Kind::kDecimal) {
        order_ = Order::kDecimal;
      } else if (leaf.logical_type.kind == LogicalType::Kind::kFloat16) {
        order_ = Order::kFloat16;
      } else if (leaf.arrow_type->id == TypeId::kIntervalMonths ||
                 leaf.arrow_type->id == TypeId::kIntervalDayTime) {
        order_ = Order::kNone;  // INTERVAL has no defined order
      } else {
        order_ = Order::kBytes;
      }
      break;
    case Type::kInt96:
      order_ = Order::kNone;
      break;
  }
  if (leaf.arrow_type->id == TypeId::kNull) order_ = Order::kNone;
}

bool StatisticsBuilder::Less(std::string_view a, std::string_view b) const {
  switch (order_) {
    case Order::kBool:
      return a[0] < b[0];
    case Order::kInt32:
      return LoadAs<int32_t>(a) < LoadAs<int32_t>(b);
    case Order::kUInt32:
      return LoadAs<uint32_t>(a) < LoadAs<uint32_t>(b);
    case Order::kInt64:
      return LoadAs<int64_t>(a) < LoadAs<int64_t>(b);
    case Order::kUInt64:
      return LoadAs<uint64_t>(a) < LoadAs<uint64_t>(b);
    case Order::kFloat:
      return LoadAs<float>(a) < LoadAs<float>(b);
    case Order::kDouble:
      return LoadAs<double>(a) < LoadAs<double>(b);
    case Order::kFloat16:
      return HalfToFloat(LoadAs<uint16_t>(a)) < HalfToFloat(LoadAs<uint16_t>(b));
    case Order::kDecimal: {
      // Two's complement big-endian: the sign byte compares signed.
      if (a.empty() || b.empty()) return a.size() < b.size();
      const int8_t sa = static_cast<int8_t>(a[0]);
      const int8_t sb = static_cast<int8_t>(b[0]);
      if (sa != sb) return sa < sb;
      return std::memcmp(a.data() + 1, b.data() + 1, a.size() - 1) < 0;
    }
    case Order::kBytes: {
      const int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
      return c < 0 || (c == 0 && a.size() < b.size());
    }
    case Order::kNone:
      return false;
  }
  return false;
}

void StatisticsBuilder::Consider(std::string_view v) {
  if (!has_) {
    min_.assign(v.data(), v.size());
    max_.assign(v.data(), v.size());
    has_ = true;
    return;
  }
  if (Less(v, min_)) min_.assign(v.data(), v.size());
  if (Less(max_, v)) max_.assign(v.data(), v.size());
}

void StatisticsBuilder::Update(const LeafValues& values, int64_t begin, int64_t end) {
  if (order_ == Order::kNone || begin >= end) return;
  if (order_ == Order::kBytes && values.offsets.size() > 0 && width_ == 0) {
    for (int64_t i = begin; i < end; ++i) Consider(values.value(i));
    return;
  }
  if (order_ == Order::kBool) {
    bool seen[2] = {false, false};
    for (int64_t i = begin; i < end; ++i) seen[values.fixed[i] != 0] = true;
    for (int b = 0; b < 2; ++b) {
      if (seen[b]) {
        const char c = static_cast<char>(b);
        Consider(std::string_view(&c, 1));
      }
    }
    return;
  }
  const char* base = reinterpret_cast<const char*>(values.fixed.data());
  // Typed loops for the common numeric cases.
  auto scan = [&](auto tag, auto skip) {
    using T = decltype(tag);
    const T* p = reinterpret_cast<const T*>(base) + begin;
    const int64_t n = end - begin;
    int64_t i = 0;
    while (i < n && skip(p[i])) ++i;  // the first bound that counts
    if (i == n) return;
    T lo = p[i], hi = p[i];
    if constexpr (std::is_integral_v<T>) {
      // No skipping: a plain min/max loop the compiler vectorizes.
      for (; i < n; ++i) {
        lo = std::min(lo, p[i]);
        hi = std::max(hi, p[i]);
      }
    } else {
      for (; i < n; ++i) {
        const T v = p[i];
        if (skip(v)) continue;
        if (v < lo) lo = v;
        if (hi < v) hi = v;
      }
    }
    Consider(std::string_view(reinterpret_cast<const char*>(&lo), sizeof(T)));
    Consider(std::string_view(reinterpret_cast<const char*>(&hi), sizeof(T)));
  };
  auto never = [](auto) { return false; };
  auto is_nan = [](auto v) { return std::isnan(v); };
  switch (order_) {
    case Order::kInt32:
      scan(int32_t{}, never);
      return;
    case Order::kUInt32:
      scan(uint32_t{}, never);
      return;
    case Order::kInt64:
      scan(int64_t{}, never);
      return;
    case Order::kUInt64:
      scan(uint64_t{}, never);
      return;
    case Order::kFloat:
      scan(float{}, is_nan);
      return;
    case Order::kDouble:
      scan(double{}, is_nan);
      return;
    default:
      break;
  }
  for (int64_t i = begin; i < end; ++i) {
    std::string_view v(base + i * width_, static_cast<size_t>(width_));
    if (order_ == Order::kFloat16 && std::isnan(HalfToFloat(LoadAs<uint16_t>(v)))) continue;
    Consider(v);
  }
}

void StatisticsBuilder::Merge(const StatisticsBuilder& other) {
  if (!other.has_) return;
  Consider(other.min_);
  Consider(other.max_);
}

void StatisticsBuilder::Reset() {
  has_ = false;
  min_.clear();
  max_.clear();
}

std::string StatisticsBuilder::min() const {
  std::string v = min_;
  if (order_ == Order::kFloat && LoadAs<float>(v) == 0.0f) {
    const float z = -0.0f;
    std::memcpy(v.data(), &z, 4);
  } else if (order_ == Order::kDouble && LoadAs<double>(v) == 0.0) {
    const double z = -0.0;
    std::memcpy(v.data(), &z, 8);
  } else if (order_ == Order::kBytes && v.size() > kMaxBoundBytes) {
    v.resize(kMaxBoundBytes);  // a prefix is a lower bound
  }
  return v;
}

std::string StatisticsBuilder::max() const {
  std::string v = max_;
  if (order_ == Order::kFloat && LoadAs<float>(v) == 0.0f) {
    const float z = 0.0f;
    std::memcpy(v.data(), &z, 4);
  } else if (order_ == Order::kDouble && LoadAs<double>(v) == 0.0) {
    const double z = 0.0;
    std::memcpy(v.data(), &z, 8);
  } else if (order_ == Order::kBytes && v.size() > kMaxBoundBytes) {
    // Cut, then bump the last byte that can be bumped: still an upper bound.
    std::string cut = v.substr(0, kMaxBoundBytes);
    while (!cut.empty() && static_cast<uint8_t>(cut.back()) == 0xff) cut.pop_back();
    if (!cut.empty()) {
      cut.back() = static_cast<char>(static_cast<uint8_t>(cut.back()) + 1);
      return cut;
    }
  }
  return v;
}

bool StatisticsBuilder::min_exact() const {
  return !(order_ == Order::kBytes && min_.size() > kMaxBoundBytes);
}
bool StatisticsBuilder::max_exact() const {
  return !(order_ == Order::kBytes && max_.size() > kMaxBoundBytes);
}

}  // namespace quiver::parquet
