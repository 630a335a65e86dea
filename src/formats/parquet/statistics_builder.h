// Min/max statistics of values being written, in the order Parquet defines
// for the column's type: signed or unsigned integers, IEEE floats (NaN
// ignored, zero bounds written as -0.0 / +0.0), false < true, byte-wise
// unsigned for strings and binary, signed big-endian for decimal bytes,
// half floats by value. Bounds are kept PLAIN-encoded (no length prefix),
// as Statistics and ColumnIndex store them. String and binary bounds are cut
// to 64 bytes (the max bumped so it stays an upper bound).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "formats/parquet/level_builder.h"
#include "formats/parquet/schema_writer.h"

namespace quiver::parquet {

class StatisticsBuilder {
 public:
  explicit StatisticsBuilder(const WriterSchema::Leaf& leaf);

  // Folds values [begin, end) of `values` in.
  void Update(const LeafValues& values, int64_t begin, int64_t end);
  // Folds another builder's bounds in.
  void Merge(const StatisticsBuilder& other);
  void Reset();

  bool supported() const { return order_ != Order::kNone; }
  bool has_bounds() const { return has_; }
  std::string min() const;  // REQUIRES: has_bounds()
  std::string max() const;
  bool min_exact() const;
  bool max_exact() const;

 private:
  enum class Order : int8_t {
    kNone,
    kBool,
    kInt32,
    kUInt32,
    kInt64,
    kUInt64,
    kFloat,
    kDouble,
    kBytes,
    kDecimal,
    kFloat16
  };
  bool Less(std::string_view a, std::string_view b) const;
  void Consider(std::string_view v);

  Order order_ = Order::kNone;
  int width_ = 0;
  bool has_ = false;
  std::string min_;
  std::string max_;
};

}  // namespace quiver::parquet
