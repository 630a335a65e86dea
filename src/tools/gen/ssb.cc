// Star Schema Benchmark data (P. O'Neil, E. O'Neil, X. Chen: "Star Schema
// Benchmark", revision 3, 2009), written from the paper's schema and value
// rules:
//
//   table      rows                                   chunking
//   lineorder  ~6,000,000 x SF (1,500,000 x SF orders  2048 orders per chunk
//              of 1..7 lines)
//   customer   30,000 x SF                              8192 rows per chunk
//   supplier   2,000 x SF
//   part       200,000 x (1 + floor(log2 SF)); SF < 1: 200,000 x SF, >= 500
//   date       2,556 days, 1992-01-01 .. 1998-12-30     one chunk
//
// Integers are int32 (money in cents, as the reference generator does),
// strings utf8, nothing is NULL. Derived values follow the paper:
//   c_city / s_city  first 9 letters of the nation, space-padded, + digit 0..9
//   p_category       p_mfgr + 1..5 ('MFGR#11'..'MFGR#55'); p_brand1 = p_category
//                    + 01..40 ('MFGR#1101'..'MFGR#5540')
//   lo_extendedprice lo_quantity x price of the part (TPC-H's P_RETAILPRICE)
//   lo_revenue       lo_extendedprice x (100 - lo_discount) / 100
//   lo_supplycost    60% of the part's unit price
//   lo_ordtotalprice sum over the order's lines of extendedprice x (1 + tax)
//                    x (1 - discount)
//   lo_orderdate     uniform in 1992-01-01 .. 1998-08-02 (TPC-H's window),
//                    lo_commitdate = lo_orderdate + 30..90 days; both d_datekeys
#include <array>
#include <cmath>
#include <string>

#include "tools/gen/dists.h"
#include "tools/gen/generators.h"

namespace quiver::gen {
namespace {

constexpr int64_t kOrdersPerChunk = 2048;
constexpr int kDateRows = 2556;

constexpr std::string_view kMonthNames[] = {"January",   "February", "March",    "April",
                                            "May",       "June",     "July",     "August",
                                            "September", "October",  "November", "December"};
constexpr std::string_view kDayNames[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                          "Thursday", "Friday", "Saturday"};

SchemaRef LineorderSchema() {
  auto i32 = int32();
  auto s = utf8();
  return schema({field("lo_orderkey", i32, false), field("lo_linenumber", i32, false),
                 field("lo_custkey", i32, false), field("lo_partkey", i32, false),
                 field("lo_suppkey", i32, false), field("lo_orderdate", i32, false),
                 field("lo_orderpriority", s, false), field("lo_shippriority", i32, false),
                 field("lo_quantity", i32, false), field("lo_extendedprice", i32, false),
                 field("lo_ordtotalprice", i32, false), field("lo_discount", i32, false),
                 field("lo_revenue", i32, false), field("lo_supplycost", i32, false),
                 field("lo_tax", i32, false), field("lo_commitdate", i32, false),
                 field("lo_shipmode", s, false)});
}

SchemaRef DateSchema() {
  auto i32 = int32();
  auto s = utf8();
  return schema({field("d_datekey", i32, false), field("d_date", s, false),
                 field("d_dayofweek", s, false), field("d_month", s, false),
                 field("d_year", i32, false), field("d_yearmonthnum", i32, false),
                 field("d_yearmonth", s, false), field("d_daynuminweek", i32, false),
                 field("d_daynuminmonth", i32, false), field("d_daynuminyear", i32, false),
                 field("d_monthnuminyear", i32, false), field("d_weeknuminyear", i32, false),
                 field("d_sellingseason", s, false), field("d_lastdayinweekfl", i32, false),
                 field("d_lastdayinmonthfl", i32, false), field("d_holidayfl", i32, false),
                 field("d_weekdayfl", i32, false)});
}

SchemaRef PartSchema() {
  auto s = utf8();
  return schema({field("p_partkey", int32(), false), field("p_name", s, false),
                 field("p_mfgr", s, false), field("p_category", s, false),
                 field("p_brand1", s, false), field("p_color", s, false), field("p_type", s, false),
                 field("p_size", int32(), false), field("p_container", s, false)});
}

SchemaRef SupplierSchema() {
  auto s = utf8();
  return schema({field("s_suppkey", int32(), false), field("s_name", s, false),
                 field("s_address", s, false), field("s_city", s, false),
                 field("s_nation", s, false), field("s_region", s, false),
                 field("s_phone", s, false)});
}

SchemaRef CustomerSchema() {
  auto s = utf8();
  return schema({field("c_custkey", int32(), false), field("c_name", s, false),
                 field("c_address", s, false), field("c_city", s, false),
                 field("c_nation", s, false), field("c_region", s, false),
                 field("c_phone", s, false), field("c_mktsegment", s, false)});
}

int32_t DateKey(int32_t days) {
  const CivilDate d = CivilFromDays(days);
  return d.year * 10000 + d.month * 100 + d.day;
}

struct SsbSizes {
  int64_t orders, customers, suppliers, parts;
};

SsbSizes Sizes(double sf) {
  SsbSizes s;
  s.orders = ScaledRows(1500000, sf);
  s.customers = ScaledRows(30000, sf);
  s.suppliers = ScaledRows(2000, sf);
  s.parts = sf >= 1 ? 200000 * (1 + static_cast<int64_t>(std::floor(std::log2(sf))))
                    : ScaledRows(200000, sf, 500);
  return s;
}

Result<RecordBatchRef> LineorderChunk(const GenOptions& o, const SsbSizes& sizes,
                                      const SchemaRef& schema, int64_t chunk) {
  Rng rng = Rng::ForChunk(o.seed, kStreamSsbLineorder, chunk);
  const int64_t first = chunk * kOrdersPerChunk;
  const int64_t last = std::min(sizes.orders, first + kOrdersPerChunk);
  Int32Column orderkey, linenumber, custkey, partkey, suppkey, orderdate, shippriority, quantity,
      extendedprice, ordtotalprice, discount, revenue, supplycost, tax, commitdate;
  StringColumn orderpriority, shipmode;
  const int64_t expect = (last - first) * 4 + 64;
  for (Int32Column* c :
       {&orderkey, &linenumber, &custkey, &partkey, &suppkey, &orderdate, &shippriority, &quantity,
        &extendedprice, &ordtotalprice, &discount, &revenue, &supplycost, &tax, &commitdate}) {
    c->Reserve(expect);
  }
  orderpriority.Reserve(expect, expect * 9);
  shipmode.Reserve(expect, expect * 5);

  struct Line {
    int32_t partkey, suppkey, quantity, discount, tax, commitdate;
    int64_t price, extended;
    std::string_view shipmode;
  };
  std::array<Line, 7> lines;
  for (int64_t order = first; order < last; ++order) {
    const int n = static_cast<int>(rng.Uniform(1, 7));
    const auto cust = static_cast<int32_t>(rng.Uniform(1, sizes.customers));
    const auto date = static_cast<int32_t>(rng.Uniform(kStartDate, kLastOrderDate));
    const std::string_view prio = PickFrom(rng, Priorities());
    int64_t total = 0;
    for (int l = 0; l < n; ++l) {
      Line& line = lines[static_cast<size_t>(l)];
      line.partkey = static_cast<int32_t>(rng.Uniform(1, sizes.parts));
      line.suppkey = static_cast<int32_t>(rng.Uniform(1, sizes.suppliers));
      line.quantity = static_cast<int32_t>(rng.Uniform(1, 50));
      line.discount = static_cast<int32_t>(rng.Uniform(0, 10));
      line.tax = static_cast<int32_t>(rng.Uniform(0, 8));
      line.commitdate = DateKey(date + static_cast<int32_t>(rng.Uniform(30, 90)));
      line.shipmode = PickFrom(rng, ShipModes());
      line.price = RetailPriceCents(line.partkey);
      line.extended = line.quantity * line.price;
      total += line.extended * (100 + line.tax) * (100 - line.discount) / 10000;
    }
    const int32_t date_key = DateKey(date);
    for (int l = 0; l < n; ++l) {
      const Line& line = lines[static_cast<size_t>(l)];
      orderkey.Append(static_cast<int32_t>(order + 1));
      linenumber.Append(l + 1);
      custkey.Append(cust);
      partkey.Append(line.partkey);
      suppkey.Append(line.suppkey);
      orderdate.Append(date_key);
      orderpriority.Append(prio);
      shippriority.Append(0);
      quantity.Append(line.quantity);
      extendedprice.Append(static_cast<int32_t>(line.extended));
      ordtotalprice.Append(static_cast<int32_t>(total));
      discount.Append(line.discount);
      revenue.Append(static_cast<int32_t>(line.extended * (100 - line.discount) / 100));
      supplycost.Append(static_cast<int32_t>(6 * line.price / 10));
      tax.Append(line.tax);
      commitdate.Append(line.commitdate);
      shipmode.Append(line.shipmode);
    }
  }
  return MakeBatch(schema, orderkey.size(), orderkey, linenumber, custkey, partkey, suppkey,
                   orderdate, orderpriority, shippriority, quantity, extendedprice, ordtotalprice,
                   discount, revenue, supplycost, tax, commitdate, shipmode);
}

Result<RecordBatchRef> DateTable(const SchemaRef& schema) {
  Int32Column datekey, year, yearmonthnum, daynuminweek, daynuminmonth, daynuminyear,
      monthnuminyear, weeknuminyear, lastdayinweek, lastdayinmonth, holiday, weekday;
  StringColumn date, dayofweek, month, yearmonth, season;
  for (int i = 0; i < kDateRows; ++i) {
    const int32_t days = kStartDate + i;
    const CivilDate d = CivilFromDays(days);
    const int dow = DayOfWeek(days);  // 0 = Sunday
    const int day_of_year = days - DaysFromCivil(d.year, 1, 1) + 1;
    const std::string_view month_name = kMonthNames[d.month - 1];
    datekey.Append(d.year * 10000 + d.month * 100 + d.day);
    date.Append(fmt::format("{} {}, {}", month_name, d.day, d.year));
    dayofweek.Append(kDayNames[dow]);
    month.Append(month_name);
    year.Append(d.year);
    yearmonthnum.Append(d.year * 100 + d.month);
    yearmonth.Append(fmt::format("{}{}", month_name.substr(0, 3), d.year));
    daynuminweek.Append(dow + 1);
    daynuminmonth.Append(d.day);
    daynuminyear.Append(day_of_year);
    monthnuminyear.Append(d.month);
    weeknuminyear.Append((day_of_year - 1) / 7 + 1);
    season.Append(d.month == 12  ? "Christmas"
                  : d.month <= 2 ? "Winter"
                  : d.month <= 5 ? "Spring"
                  : d.month <= 8 ? "Summer"
                                 : "Fall");
    lastdayinweek.Append(dow == 6);
    lastdayinmonth.Append(CivilFromDays(days + 1).month != d.month);
    const int md = d.month * 100 + d.day;
    // Fixed-date US holidays: New Year, Independence Day, Veterans Day,
    // Christmas Eve and Day, New Year's Eve.
    holiday.Append(md == 101 || md == 704 || md == 1111 || md == 1224 || md == 1225 || md == 1231);
    weekday.Append(dow >= 1 && dow <= 5);
  }
  return MakeBatch(schema, kDateRows, datekey, date, dayofweek, month, year, yearmonthnum,
                   yearmonth, daynuminweek, daynuminmonth, daynuminyear, monthnuminyear,
                   weeknuminyear, season, lastdayinweek, lastdayinmonth, holiday, weekday);
}

Result<RecordBatchRef> PartChunk(const GenOptions& o, const SchemaRef& schema, int64_t first,
                                 int64_t n) {
  Rng rng = Rng::ForChunk(o.seed, kStreamSsbPart, static_cast<uint64_t>(first / kRowsPerChunk));
  Int32Column partkey, size;
  StringColumn name, mfgr, category, brand, color, type, container;
  const auto colors = Colors();
  for (int64_t i = 0; i < n; ++i) {
    partkey.Append(static_cast<int32_t>(first + i + 1));
    const auto c1 = static_cast<size_t>(rng.Below(static_cast<int64_t>(colors.size())));
    auto c2 = static_cast<size_t>(rng.Below(static_cast<int64_t>(colors.size()) - 1));
    if (c2 >= c1) ++c2;  // two different colours
    name.Append(fmt::format("{} {}", colors[c1], colors[c2]));
    const int64_t m = rng.Uniform(1, 5);
    const int64_t c = rng.Uniform(1, 5);
    const int64_t b = rng.Uniform(1, 40);
    char buf[16] = "MFGR#";
    buf[5] = static_cast<char>('0' + m);
    buf[6] = static_cast<char>('0' + c);
    WriteDigits(buf + 7, b, 2);
    mfgr.Append(std::string_view(buf, 6));
    category.Append(std::string_view(buf, 7));
    brand.Append(std::string_view(buf, 9));
    color.Append(colors[static_cast<size_t>(rng.Below(static_cast<int64_t>(colors.size())))]);
    type.Append(fmt::format("{} {} {}", PickFrom(rng, TypeSyllable1()),
                            PickFrom(rng, TypeSyllable2()), PickFrom(rng, TypeSyllable3())));
    size.Append(static_cast<int32_t>(rng.Uniform(1, 50)));
    container.Append(fmt::format("{} {}", PickFrom(rng, ContainerSyllable1()),
                                 PickFrom(rng, ContainerSyllable2())));
  }
  return MakeBatch(schema, n, partkey, name, mfgr, category, brand, color, type, size, container);
}

// Supplier and customer share their first seven columns; customer adds
// c_mktsegment.
Result<RecordBatchRef> PersonChunk(const GenOptions& o, const SchemaRef& schema, uint64_t stream,
                                   std::string_view prefix, int64_t first, int64_t n) {
  Rng rng = Rng::ForChunk(o.seed, stream, static_cast<uint64_t>(first / kRowsPerChunk));
  const bool customer = stream == kStreamSsbCustomer;
  Int32Column key;
  StringColumn name, address, city, nation, region, phone, segment;
  for (int64_t i = 0; i < n; ++i) {
    key.Append(static_cast<int32_t>(first + i + 1));
    AppendKeyName(&name, prefix, first + i + 1);
    AppendVString(&address, rng, 10, 25);
    const auto nationkey = static_cast<int>(rng.Below(25));
    const Nation& nat = Nations()[static_cast<size_t>(nationkey)];
    char* c = city.AppendUninitialized(10);
    for (size_t j = 0; j < 9; ++j) c[j] = j < nat.name.size() ? nat.name[j] : ' ';
    c[9] = static_cast<char>('0' + rng.Below(10));
    nation.Append(nat.name);
    region.Append(Regions()[static_cast<size_t>(nat.region)]);
    AppendPhone(&phone, rng, nationkey);
    if (customer) segment.Append(PickFrom(rng, Segments()));
  }
  if (customer) {
    return MakeBatch(schema, n, key, name, address, city, nation, region, phone, segment);
  }
  return MakeBatch(schema, n, key, name, address, city, nation, region, phone);
}

}  // namespace

Status RunSsb(const GenOptions& o, std::vector<TableReport>* reports) {
  const SsbSizes sizes = Sizes(o.scale_factor);
  const TableDef lineorder{"lineorder", LineorderSchema()};
  const int64_t order_chunks = (sizes.orders + kOrdersPerChunk - 1) / kOrdersPerChunk;
  QUIVER_RETURN_NOT_OK(GenerateTables(
      o, {lineorder}, order_chunks,
      [&](int64_t chunk) -> Result<std::vector<RecordBatchRef>> {
        QUIVER_ASSIGN_OR_RAISE(auto batch, LineorderChunk(o, sizes, lineorder.schema, chunk));
        return std::vector<RecordBatchRef>{std::move(batch)};
      },
      reports));

  const TableDef date{"date", DateSchema()};
  QUIVER_RETURN_NOT_OK(GenerateRowChunks(
      o, date, kDateRows, kDateRows, [&](int64_t, int64_t) { return DateTable(date.schema); },
      reports));

  const TableDef part{"part", PartSchema()};
  QUIVER_RETURN_NOT_OK(GenerateRowChunks(
      o, part, sizes.parts, kRowsPerChunk,
      [&](int64_t first, int64_t n) { return PartChunk(o, part.schema, first, n); }, reports));

  const TableDef supplier{"supplier", SupplierSchema()};
  QUIVER_RETURN_NOT_OK(GenerateRowChunks(
      o, supplier, sizes.suppliers, kRowsPerChunk,
      [&](int64_t first, int64_t n) {
        return PersonChunk(o, supplier.schema, kStreamSsbSupplier, "Supplier#", first, n);
      },
      reports));

  const TableDef customer{"customer", CustomerSchema()};
  return GenerateRowChunks(
      o, customer, sizes.customers, kRowsPerChunk,
      [&](int64_t first, int64_t n) {
        return PersonChunk(o, customer.schema, kStreamSsbCustomer, "Customer#", first, n);
      },
      reports);
}

}  // namespace quiver::gen
