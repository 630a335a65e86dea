// The value lists of TPC-H clause 4.2.2.13 / 4.2.3 that both generators draw
// from (SSB reuses TPC-H's nations, regions, colours, types, containers,
// segments, priorities and ship modes).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace quiver::gen {

struct Nation {
  std::string_view name;
  int32_t region;  // index into Regions()
};

// The 25 nations, indexed by N_NATIONKEY, and the 5 regions by R_REGIONKEY.
std::span<const Nation> Nations();
std::span<const std::string_view> Regions();

// P_NAME's 92 colour words.
std::span<const std::string_view> Colors();
// P_TYPE = one word of each syllable list (6 x 5 x 5 = 150 types).
std::span<const std::string_view> TypeSyllable1();
std::span<const std::string_view> TypeSyllable2();
std::span<const std::string_view> TypeSyllable3();
// P_CONTAINER = one word of each (5 x 8 = 40 containers).
std::span<const std::string_view> ContainerSyllable1();
std::span<const std::string_view> ContainerSyllable2();
std::span<const std::string_view> Segments();      // C_MKTSEGMENT
std::span<const std::string_view> Priorities();    // O_ORDERPRIORITY
std::span<const std::string_view> Instructions();  // L_SHIPINSTRUCT
std::span<const std::string_view> ShipModes();     // L_SHIPMODE

// P_RETAILPRICE in cents for a part key (clause 4.2.3):
// (90000 + ((key / 10) mod 20001) + 100 * (key mod 1000)) / 100 dollars.
constexpr int64_t RetailPriceCents(int64_t partkey) {
  return 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000);
}

// PS_SUPPKEY of the i-th (0..3) supplier of a part (clause 4.2.3), for
// `suppliers` = S suppliers: (key + i * (S/4 + (key-1)/S)) mod S + 1.
// The formula repeats a supplier for a few parts when S is tiny (SF below
// ~0.01); such a repeat moves on to the next unused key, so the four stay
// distinct whenever S >= 4. lineitem picks l_suppkey through this function
// too, so (l_partkey, l_suppkey) always names a partsupp row.
constexpr int64_t PartSupplier(int64_t partkey, int i, int64_t suppliers) {
  int64_t chosen[4] = {};
  for (int j = 0; j <= i; ++j) {
    int64_t s = (partkey + j * (suppliers / 4 + (partkey - 1) / suppliers)) % suppliers + 1;
    for (int probe = 0; probe < 4 && suppliers >= 4; ++probe) {
      bool taken = false;
      for (int k = 0; k < j; ++k) taken |= chosen[k] == s;
      if (!taken) break;
      s = s % suppliers + 1;
    }
    chosen[j] = s;
  }
  return chosen[i];
}

}  // namespace quiver::gen
