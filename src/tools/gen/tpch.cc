// TPC-H data (specification clause 4.2), written from the specification's
// text rather than from dbgen:
//
//   table     rows (clause 4.2.5)     keys
//   region    5                       r_regionkey 0..4
//   nation    25                      n_nationkey 0..24
//   supplier  10,000 x SF             s_suppkey 1..
//   customer  150,000 x SF            c_custkey 1..
//   part      200,000 x SF            p_partkey 1..
//   partsupp  4 per part              ps_suppkey = (pk + i (S/4 + (pk-1)/S)) mod S + 1
//   orders    1,500,000 x SF          o_orderkey sparse: 8 of every 32 keys
//   lineitem  1..7 per order          l_orderkey, l_linenumber
//
// Value rules of clause 4.2.3 that the queries depend on:
//   o_custkey        never a multiple of 3 (a third of customers has no order)
//   o_orderdate      uniform in STARTDATE .. ENDDATE - 151 (1992-01-01 .. 1998-08-02)
//   l_shipdate       o_orderdate + 1..121, l_commitdate = o_orderdate + 30..90,
//                    l_receiptdate = l_shipdate + 1..30
//   l_returnflag     R or A (at random) if l_receiptdate <= CURRENTDATE (1995-06-17),
//                    else N; l_linestatus O if l_shipdate > CURRENTDATE, else F
//   o_orderstatus    F / O when all lines are F / O, else P
//   o_totalprice     sum of l_extendedprice x (1 + l_tax) x (1 - l_discount)
//   l_extendedprice  l_quantity x p_retailprice of l_partkey
//   l_suppkey        one of the part's 4 partsupp suppliers
//   s_comment        5 x SF rows hold "Customer ... Complaints", 5 x SF others
//                    "Customer ... Recommends" (at least one of each)
//   comments         TEXT[min, max] substrings of the grammar's text pool
//
// Money, quantities, discounts and taxes are decimal128(15,2); dates date32;
// keys int32 except the order keys (int64: sparse keys pass 2^31 by SF 400).
//
// Orders and lineitem are generated together, one chunk of 2048 orders with
// their lines, because each order's status and total derive from its lines.
#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <string>

#include "tools/gen/dists.h"
#include "tools/gen/generators.h"
#include "tools/gen/text_pool.h"

namespace quiver::gen {
namespace {

constexpr int64_t kOrdersPerChunk = 2048;
constexpr int64_t kPartsPerChunk = 2048;  // 8192 partsupp rows

TypeRef Money() { return decimal128(15, 2); }

struct TpchContext {
  const GenOptions& options;
  const TextPool& text;
  int64_t suppliers, customers, parts, orders, clerks;
  std::vector<int64_t> complaints;  // sorted suppkeys whose comment complains
  std::vector<int64_t> recommends;  // sorted suppkeys whose comment recommends
};

SchemaRef RegionSchema() {
  return schema({field("r_regionkey", int32(), false), field("r_name", utf8(), false),
                 field("r_comment", utf8(), false)});
}

SchemaRef NationSchema() {
  return schema({field("n_nationkey", int32(), false), field("n_name", utf8(), false),
                 field("n_regionkey", int32(), false), field("n_comment", utf8(), false)});
}

SchemaRef SupplierSchema() {
  return schema({field("s_suppkey", int32(), false), field("s_name", utf8(), false),
                 field("s_address", utf8(), false), field("s_nationkey", int32(), false),
                 field("s_phone", utf8(), false), field("s_acctbal", Money(), false),
                 field("s_comment", utf8(), false)});
}

SchemaRef CustomerSchema() {
  return schema({field("c_custkey", int32(), false), field("c_name", utf8(), false),
                 field("c_address", utf8(), false), field("c_nationkey", int32(), false),
                 field("c_phone", utf8(), false), field("c_acctbal", Money(), false),
                 field("c_mktsegment", utf8(), false), field("c_comment", utf8(), false)});
}

SchemaRef PartSchema() {
  return schema({field("p_partkey", int32(), false), field("p_name", utf8(), false),
                 field("p_mfgr", utf8(), false), field("p_brand", utf8(), false),
                 field("p_type", utf8(), false), field("p_size", int32(), false),
                 field("p_container", utf8(), false), field("p_retailprice", Money(), false),
                 field("p_comment", utf8(), false)});
}

SchemaRef PartsuppSchema() {
  return schema({field("ps_partkey", int32(), false), field("ps_suppkey", int32(), false),
                 field("ps_availqty", int32(), false), field("ps_supplycost", Money(), false),
                 field("ps_comment", utf8(), false)});
}

SchemaRef OrdersSchema() {
  return schema({field("o_orderkey", int64(), false), field("o_custkey", int32(), false),
                 field("o_orderstatus", utf8(), false), field("o_totalprice", Money(), false),
                 field("o_orderdate", date32(), false), field("o_orderpriority", utf8(), false),
                 field("o_clerk", utf8(), false), field("o_shippriority", int32(), false),
                 field("o_comment", utf8(), false)});
}

SchemaRef LineitemSchema() {
  return schema({field("l_orderkey", int64(), false), field("l_partkey", int32(), false),
                 field("l_suppkey", int32(), false), field("l_linenumber", int32(), false),
                 field("l_quantity", Money(), false), field("l_extendedprice", Money(), false),
                 field("l_discount", Money(), false), field("l_tax", Money(), false),
                 field("l_returnflag", utf8(), false), field("l_linestatus", utf8(), false),
                 field("l_shipdate", date32(), false), field("l_commitdate", date32(), false),
                 field("l_receiptdate", date32(), false), field("l_shipinstruct", utf8(), false),
                 field("l_shipmode", utf8(), false), field("l_comment", utf8(), false)});
}

Result<RecordBatchRef> RegionTable(const TpchContext& ctx, const SchemaRef& schema) {
  Rng rng = Rng::ForChunk(ctx.options.seed, kStreamTpchRegionNation, 0);
  Int32Column key;
  StringColumn name, comment;
  for (int r = 0; r < 5; ++r) {
    key.Append(r);
    name.Append(Regions()[static_cast<size_t>(r)]);
    comment.Append(ctx.text.Random(rng, 31, 115));
  }
  return MakeBatch(schema, 5, key, name, comment);
}

Result<RecordBatchRef> NationTable(const TpchContext& ctx, const SchemaRef& schema) {
  Rng rng = Rng::ForChunk(ctx.options.seed, kStreamTpchRegionNation, 1);
  Int32Column key, region;
  StringColumn name, comment;
  for (int n = 0; n < 25; ++n) {
    key.Append(n);
    name.Append(Nations()[static_cast<size_t>(n)].name);
    region.Append(Nations()[static_cast<size_t>(n)].region);
    comment.Append(ctx.text.Random(rng, 31, 114));
  }
  return MakeBatch(schema, 25, key, name, region, comment);
}

// The suppliers whose comments carry "Customer ... Complaints" and
// "Customer ... Recommends": round(5 x SF) distinct keys each (at least one),
// drawn from one stream so they never overlap.
void PickCommentSuppliers(TpchContext* ctx) {
  const int64_t want = std::min(ScaledRows(5, ctx->options.scale_factor), ctx->suppliers / 2);
  Rng rng = Rng::ForChunk(ctx->options.seed, kStreamTpchComplaints, 0);
  std::set<int64_t> seen;
  for (auto* list : {&ctx->complaints, &ctx->recommends}) {
    while (static_cast<int64_t>(list->size()) < want) {
      const int64_t key = rng.Uniform(1, ctx->suppliers);
      if (seen.insert(key).second) list->push_back(key);
    }
    std::sort(list->begin(), list->end());
  }
}

// Appends TEXT[25, 100] with "Customer " and then `word` written over it at
// random positions (clause 4.2.3, S_COMMENT).
void AppendTaggedComment(StringColumn* col, const TextPool& text, Rng& rng, std::string_view word) {
  const std::string_view base = text.Random(rng, 25, 100);
  char* out = col->AppendUninitialized(base.size());
  std::copy(base.begin(), base.end(), out);
  constexpr std::string_view kCustomer = "Customer ";
  const auto len = static_cast<int64_t>(base.size());
  const int64_t first = rng.Uniform(0, len - static_cast<int64_t>(kCustomer.size() + word.size()));
  const int64_t second = rng.Uniform(first + static_cast<int64_t>(kCustomer.size()),
                                     len - static_cast<int64_t>(word.size()));
  std::copy(kCustomer.begin(), kCustomer.end(), out + first);
  std::copy(word.begin(), word.end(), out + second);
}

Result<RecordBatchRef> SupplierChunk(const TpchContext& ctx, const SchemaRef& schema, int64_t first,
                                     int64_t n) {
  Rng rng = Rng::ForChunk(ctx.options.seed, kStreamTpchSupplier,
                          static_cast<uint64_t>(first / kRowsPerChunk));
  Int32Column key, nation;
  StringColumn name, address, phone, comment;
  Decimal128Column acctbal;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = first + i + 1;
    key.Append(static_cast<int32_t>(k));
    AppendKeyName(&name, "Supplier#", k);
    AppendVString(&address, rng, 10, 40);
    const auto nationkey = static_cast<int32_t>(rng.Below(25));
    nation.Append(nationkey);
    AppendPhone(&phone, rng, nationkey);
    acctbal.Append(rng.Uniform(-99999, 999999));
    if (std::binary_search(ctx.complaints.begin(), ctx.complaints.end(), k)) {
      AppendTaggedComment(&comment, ctx.text, rng, "Complaints");
    } else if (std::binary_search(ctx.recommends.begin(), ctx.recommends.end(), k)) {
      AppendTaggedComment(&comment, ctx.text, rng, "Recommends");
    } else {
      comment.Append(ctx.text.Random(rng, 25, 100));
    }
  }
  return MakeBatch(schema, n, key, name, address, nation, phone, acctbal, comment);
}

Result<RecordBatchRef> CustomerChunk(const TpchContext& ctx, const SchemaRef& schema, int64_t first,
                                     int64_t n) {
  Rng rng = Rng::ForChunk(ctx.options.seed, kStreamTpchCustomer,
                          static_cast<uint64_t>(first / kRowsPerChunk));
  Int32Column key, nation;
  StringColumn name, address, phone, segment, comment;
  Decimal128Column acctbal;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = first + i + 1;
    key.Append(static_cast<int32_t>(k));
    AppendKeyName(&name, "Customer#", k);
    AppendVString(&address, rng, 10, 40);
    const auto nationkey = static_cast<int32_t>(rng.Below(25));
    nation.Append(nationkey);
    AppendPhone(&phone, rng, nationkey);
    acctbal.Append(rng.Uniform(-99999, 999999));
    segment.Append(PickFrom(rng, Segments()));
    comment.Append(ctx.text.Random(rng, 29, 116));
  }
  return MakeBatch(schema, n, key, name, address, nation, phone, acctbal, segment, comment);
}

Result<RecordBatchRef> PartChunk(const TpchContext& ctx, const SchemaRef& schema, int64_t first,
                                 int64_t n) {
  Rng rng = Rng::ForChunk(ctx.options.seed, kStreamTpchPart,
                          static_cast<uint64_t>(first / kPartsPerChunk));
  Int32Column key, size;
  StringColumn name, mfgr, brand, type, container, comment;
  Decimal128Column price;
  const auto colors = Colors();
  std::array<uint8_t, 92> order;
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint8_t>(i);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = first + i + 1;
    key.Append(static_cast<int32_t>(k));
    // P_NAME: five distinct colour words (a partial Fisher-Yates shuffle).
    std::string pname;
    for (size_t w = 0; w < 5; ++w) {
      const auto j = w + static_cast<size_t>(rng.Below(static_cast<int64_t>(order.size() - w)));
      std::swap(order[w], order[j]);
      if (w > 0) pname.push_back(' ');
      pname.append(colors[order[w]]);
    }
    name.Append(pname);
    const int64_t m = rng.Uniform(1, 5);
    const int64_t b = rng.Uniform(1, 5);
    char buf[16] = "Manufacturer#";
    buf[13] = static_cast<char>('0' + m);
    mfgr.Append(std::string_view(buf, 14));
    char brand_buf[8] = "Brand#";
    brand_buf[6] = static_cast<char>('0' + m);
    brand_buf[7] = static_cast<char>('0' + b);
    brand.Append(std::string_view(brand_buf, 8));
    type.Append(fmt::format("{} {} {}", PickFrom(rng, TypeSyllable1()),
                            PickFrom(rng, TypeSyllable2()), PickFrom(rng, TypeSyllable3())));
    size.Append(static_cast<int32_t>(rng.Uniform(1, 50)));
    container.Append(fmt::format("{} {}", PickFrom(rng, ContainerSyllable1()),
                                 PickFrom(rng, ContainerSyllable2())));
    price.Append(RetailPriceCents(k));
    comment.Append(ctx.text.Random(rng, 5, 22));
  }
  return MakeBatch(schema, n, key, name, mfgr, brand, type, size, container, price, comment);
}

Result<RecordBatchRef> PartsuppChunk(const TpchContext& ctx, const SchemaRef& schema,
                                     int64_t chunk) {
  Rng rng = Rng::ForChunk(ctx.options.seed, kStreamTpchPartsupp, static_cast<uint64_t>(chunk));
  const int64_t first = chunk * kPartsPerChunk;
  const int64_t last = std::min(ctx.parts, first + kPartsPerChunk);
  Int32Column partkey, suppkey, availqty;
  Decimal128Column cost;
  StringColumn comment;
  for (int64_t p = first + 1; p <= last; ++p) {
    for (int i = 0; i < 4; ++i) {
      partkey.Append(static_cast<int32_t>(p));
      suppkey.Append(static_cast<int32_t>(PartSupplier(p, i, ctx.suppliers)));
      availqty.Append(static_cast<int32_t>(rng.Uniform(1, 9999)));
      cost.Append(rng.Uniform(100, 100000));
      comment.Append(ctx.text.Random(rng, 49, 198));
    }
  }
  return MakeBatch(schema, partkey.size(), partkey, suppkey, availqty, cost, comment);
}

// The orders and lineitem batches of one chunk of orders.
Result<std::vector<RecordBatchRef>> OrdersChunk(const TpchContext& ctx,
                                                const SchemaRef& orders_schema,
                                                const SchemaRef& lineitem_schema, int64_t chunk) {
  Rng rng = Rng::ForChunk(ctx.options.seed, kStreamTpchOrders, static_cast<uint64_t>(chunk));
  const int64_t first = chunk * kOrdersPerChunk;
  const int64_t last = std::min(ctx.orders, first + kOrdersPerChunk);
  const int64_t n = last - first;

  Int64Column o_orderkey;
  Int32Column o_custkey, o_orderdate, o_shippriority;
  StringColumn o_orderstatus, o_orderpriority, o_clerk, o_comment;
  Decimal128Column o_totalprice;
  o_comment.Reserve(n, n * 50);

  Int64Column l_orderkey;
  Int32Column l_partkey, l_suppkey, l_linenumber, l_shipdate, l_commitdate, l_receiptdate;
  Decimal128Column l_quantity, l_extendedprice, l_discount, l_tax;
  StringColumn l_returnflag, l_linestatus, l_shipinstruct, l_shipmode, l_comment;
  const int64_t expect = n * 4 + 64;
  l_comment.Reserve(expect, expect * 27);
  l_shipinstruct.Reserve(expect, expect * 12);

  // Customers that may order: 1..C without the multiples of 3.
  const int64_t ordering_customers = ctx.customers - ctx.customers / 3;
  for (int64_t i = first; i < last; ++i) {
    const int64_t orderkey = (i / 8) * 32 + i % 8 + 1;
    const int64_t k = rng.Below(ordering_customers);
    const int64_t custkey = (k / 2) * 3 + k % 2 + 1;
    const auto orderdate = static_cast<int32_t>(rng.Uniform(kStartDate, kLastOrderDate));
    const int lines = static_cast<int>(rng.Uniform(1, 7));
    int64_t total = 0;
    int shipped = 0;  // lines with status F
    for (int l = 1; l <= lines; ++l) {
      const int64_t partkey = rng.Uniform(1, ctx.parts);
      const int64_t suppkey =
          PartSupplier(partkey, static_cast<int>(rng.Uniform(0, 3)), ctx.suppliers);
      const int64_t quantity = rng.Uniform(1, 50);
      const int64_t discount = rng.Uniform(0, 10);  // hundredths
      const int64_t tax = rng.Uniform(0, 8);
      const int64_t extended = quantity * RetailPriceCents(partkey);  // cents
      const auto shipdate = static_cast<int32_t>(orderdate + rng.Uniform(1, 121));
      const auto commitdate = static_cast<int32_t>(orderdate + rng.Uniform(30, 90));
      const auto receiptdate = static_cast<int32_t>(shipdate + rng.Uniform(1, 30));
      const bool returned_half = rng.Below(2) == 0;
      const std::string_view instruct = PickFrom(rng, Instructions());
      const std::string_view mode = PickFrom(rng, ShipModes());
      const std::string_view comment = ctx.text.Random(rng, 10, 43);
      // extended x (1 + tax) x (1 - discount), rounded to cents.
      total += (extended * (100 + tax) * (100 - discount) + 5000) / 10000;
      const bool open = shipdate > kCurrentDate;
      shipped += !open;

      l_orderkey.Append(orderkey);
      l_partkey.Append(static_cast<int32_t>(partkey));
      l_suppkey.Append(static_cast<int32_t>(suppkey));
      l_linenumber.Append(l);
      l_quantity.Append(quantity * 100);
      l_extendedprice.Append(extended);
      l_discount.Append(discount);
      l_tax.Append(tax);
      l_returnflag.Append(receiptdate <= kCurrentDate ? (returned_half ? "R" : "A") : "N");
      l_linestatus.Append(open ? "O" : "F");
      l_shipdate.Append(shipdate);
      l_commitdate.Append(commitdate);
      l_receiptdate.Append(receiptdate);
      l_shipinstruct.Append(instruct);
      l_shipmode.Append(mode);
      l_comment.Append(comment);
    }
    o_orderkey.Append(orderkey);
    o_custkey.Append(static_cast<int32_t>(custkey));
    o_orderstatus.Append(shipped == lines ? "F" : shipped == 0 ? "O" : "P");
    o_totalprice.Append(total);
    o_orderdate.Append(orderdate);
    o_orderpriority.Append(PickFrom(rng, Priorities()));
    AppendKeyName(&o_clerk, "Clerk#", rng.Uniform(1, ctx.clerks));
    o_shippriority.Append(0);
    o_comment.Append(ctx.text.Random(rng, 19, 78));
  }
  std::vector<RecordBatchRef> out(2);
  QUIVER_ASSIGN_OR_RAISE(
      out[0], MakeBatch(orders_schema, n, o_orderkey, o_custkey, o_orderstatus, o_totalprice,
                        o_orderdate, o_orderpriority, o_clerk, o_shippriority, o_comment));
  QUIVER_ASSIGN_OR_RAISE(
      out[1],
      MakeBatch(lineitem_schema, l_orderkey.size(), l_orderkey, l_partkey, l_suppkey, l_linenumber,
                l_quantity, l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus,
                l_shipdate, l_commitdate, l_receiptdate, l_shipinstruct, l_shipmode, l_comment));
  return out;
}

}  // namespace

Status RunTpch(const GenOptions& o, std::vector<TableReport>* reports) {
  const double sf = o.scale_factor;
  const TextPool text = TextPool::Make(o.seed);
  TpchContext ctx{o,
                  text,
                  ScaledRows(10000, sf, 4),  // PartSupplier needs 4
                  ScaledRows(150000, sf),
                  ScaledRows(200000, sf),
                  ScaledRows(1500000, sf),
                  ScaledRows(1000, sf),
                  {},
                  {}};
  PickCommentSuppliers(&ctx);

  const TableDef region{"region", RegionSchema()};
  QUIVER_RETURN_NOT_OK(GenerateRowChunks(
      o, region, 5, 5, [&](int64_t, int64_t) { return RegionTable(ctx, region.schema); }, reports));
  const TableDef nation{"nation", NationSchema()};
  QUIVER_RETURN_NOT_OK(GenerateRowChunks(
      o, nation, 25, 25, [&](int64_t, int64_t) { return NationTable(ctx, nation.schema); },
      reports));
  const TableDef supplier{"supplier", SupplierSchema()};
  QUIVER_RETURN_NOT_OK(GenerateRowChunks(
      o, supplier, ctx.suppliers, kRowsPerChunk,
      [&](int64_t first, int64_t n) { return SupplierChunk(ctx, supplier.schema, first, n); },
      reports));
  const TableDef customer{"customer", CustomerSchema()};
  QUIVER_RETURN_NOT_OK(GenerateRowChunks(
      o, customer, ctx.customers, kRowsPerChunk,
      [&](int64_t first, int64_t n) { return CustomerChunk(ctx, customer.schema, first, n); },
      reports));
  const TableDef part{"part", PartSchema()};
  QUIVER_RETURN_NOT_OK(GenerateRowChunks(
      o, part, ctx.parts, kPartsPerChunk,
      [&](int64_t first, int64_t n) { return PartChunk(ctx, part.schema, first, n); }, reports));

  const TableDef partsupp{"partsupp", PartsuppSchema()};
  QUIVER_RETURN_NOT_OK(GenerateTables(
      o, {partsupp}, (ctx.parts + kPartsPerChunk - 1) / kPartsPerChunk,
      [&](int64_t chunk) -> Result<std::vector<RecordBatchRef>> {
        QUIVER_ASSIGN_OR_RAISE(auto batch, PartsuppChunk(ctx, partsupp.schema, chunk));
        return std::vector<RecordBatchRef>{std::move(batch)};
      },
      reports));

  const TableDef orders{"orders", OrdersSchema()};
  const TableDef lineitem{"lineitem", LineitemSchema()};
  return GenerateTables(
      o, {orders, lineitem}, (ctx.orders + kOrdersPerChunk - 1) / kOrdersPerChunk,
      [&](int64_t chunk) { return OrdersChunk(ctx, orders.schema, lineitem.schema, chunk); },
      reports);
}

}  // namespace quiver::gen
