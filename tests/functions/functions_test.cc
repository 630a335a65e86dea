// Functions (src/functions/): overload resolution in the registry, kernels
// called on arrays (flat, through a selection vector, constant; values
// hidden under NULL slots), and edge values through SQL: NULL, empty
// strings, unicode, overflow, division by zero, leap days. Expected values
// are PostgreSQL 15's answers to the same expressions.
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "functions/cast.h"
#include "functions/function.h"
#include "util/array_mutation.h"
#include "util/sql_util.h"
#include "util/status_util.h"
#include "vector/value.h"

namespace quiver {
namespace {

using testing::Rows;
using testing::Unwrap;

const FunctionRegistry& Registry() { return FunctionRegistry::Get(); }

ArgInfo Arg(TypeRef t) { return ArgInfo{std::move(t), false}; }
ArgInfo Unknown() { return ArgInfo{utf8(), true}; }

// --- resolution ---------------------------------------------------------------------------

TEST(FunctionsResolution, OperatorsFollowPostgresPromotion) {
  auto r = Unwrap(Registry().ResolveScalar("+", {Arg(int32()), Arg(int32())}, true));
  EXPECT_EQ(r.return_type->ToString(), "int32");
  r = Unwrap(Registry().ResolveScalar("+", {Arg(int32()), Arg(int64())}, true));
  EXPECT_EQ(r.return_type->ToString(), "int64");
  EXPECT_EQ(r.arg_types[0]->ToString(), "int64");  // the int4 operand is cast up
  r = Unwrap(Registry().ResolveScalar("*", {Arg(int32()), Arg(decimal128(10, 2))}, true));
  EXPECT_TRUE(r.return_type->is_decimal()) << r.return_type->ToString();
  r = Unwrap(Registry().ResolveScalar("/", {Arg(int16()), Arg(int16())}, true));
  EXPECT_EQ(r.return_type->ToString(), "int16");
  // An untyped literal takes the other operand's type.
  r = Unwrap(Registry().ResolveScalar("=", {Arg(int32()), Unknown()}, true));
  EXPECT_EQ(r.arg_types[1]->ToString(), "int32");
  EXPECT_EQ(r.return_type->ToString(), "bool");
  r = Unwrap(Registry().ResolveScalar("length", {Unknown()}));
  EXPECT_EQ(r.arg_types[0]->ToString(), "string");
  EXPECT_EQ(r.return_type->ToString(), "int32");
}

TEST(FunctionsResolution, ErrorsArePostgres) {
  auto r = Registry().ResolveScalar("+", {Arg(int32()), Arg(boolean())}, true);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("operator does not exist: integer + boolean", 0), 0u)
      << r.status().message();
  auto f = Registry().ResolveScalar("nofunc", {Arg(int32())});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message().rfind("function nofunc(integer) does not exist", 0), 0u)
      << f.status().message();
  auto a = Registry().ResolveAggregate("sum", {Arg(utf8())});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message().rfind("function sum(text) does not exist", 0), 0u)
      << a.status().message();
  EXPECT_EQ(CallSignature("substr", {Arg(utf8()), Arg(int32())}), "substr(text, integer)");
  EXPECT_TRUE(Registry().HasScalar("upper"));
  EXPECT_FALSE(Registry().HasAggregate("upper"));
  EXPECT_TRUE(Registry().HasAggregate("sum"));
}

TEST(FunctionsResolution, AggregateResultTypes) {
  auto type_of = [](const std::string& name, std::vector<ArgInfo> args) {
    auto r = Registry().ResolveAggregate(name, args);
    return r.ok() ? r->return_type->ToString() : "ERROR: " + r.status().message();
  };
  EXPECT_EQ(type_of("sum", {Arg(int32())}), "int64");
  EXPECT_EQ(type_of("sum", {Arg(int64())}), "decimal128(38, 0)");
  EXPECT_EQ(type_of("sum", {Arg(float64())}), "double");
  EXPECT_EQ(type_of("avg", {Arg(int32())}), "decimal128(38, 20)");
  // PostgreSQL: stddev / variance of integers and numeric are numeric.
  EXPECT_EQ(type_of("stddev", {Arg(int32())}), "decimal128(38, 20)");
  EXPECT_EQ(type_of("var_pop", {Arg(decimal128(10, 2))}), "decimal128(38, 20)");
  EXPECT_EQ(type_of("variance", {Arg(decimal128(30, 15))}), "decimal128(38, 30)");
  EXPECT_EQ(type_of("stddev", {Arg(float64())}), "double");
  EXPECT_EQ(type_of("count_star", {}), "int64");  // count(*)
  EXPECT_EQ(type_of("count", {Arg(utf8())}), "int64");
  EXPECT_EQ(type_of("min", {Arg(utf8())}), "string");
  EXPECT_EQ(type_of("bool_and", {Arg(boolean())}), "bool");
}

// --- kernels on arrays ----------------------------------------------------------------------

ArrayRef Int32s(const std::vector<std::optional<int32_t>>& values) {
  std::vector<Value> v;
  for (const auto& x : values) v.push_back(x ? Value::Int32(*x) : Value::Null(int32()));
  return Unwrap(ArrayFromValues(v, int32()));
}

ArrayRef Texts(const std::vector<std::optional<std::string>>& values) {
  std::vector<Value> v;
  for (const auto& x : values) v.push_back(x ? Value::Text(*x) : Value::Null(utf8()));
  return Unwrap(ArrayFromValues(v, utf8()));
}

// `array` with the value bytes under slot `slot` (a NULL) set to `hidden`.
ArrayRef WithHiddenValue(const ArrayRef& array, int64_t slot, int32_t hidden) {
  return testing::MutateBuffer(
      *array, 1, [&](uint8_t* p) { std::memcpy(p + (array->offset + slot) * 4, &hidden, 4); });
}

// Resolves `name` over the arrays' types, casts them, runs the kernel on n rows.
Result<ArrayRef> Call(const std::string& name, std::vector<ArrayRef> args, bool op, int64_t n,
                      const uint32_t* sel = nullptr, std::vector<bool> constant = {}) {
  std::vector<ArgInfo> infos;
  for (const auto& a : args) infos.push_back(Arg(a->type));
  QUIVER_ASSIGN_OR_RAISE(BoundFunction bound, Registry().ResolveScalar(name, infos, op));
  std::vector<VectorRef> refs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i]->type->Equals(*bound.arg_types[i])) {
      QUIVER_ASSIGN_OR_RAISE(args[i], CastArray(args[i], bound.arg_types[i], DefaultMemoryPool()));
    }
    const bool is_constant = i < constant.size() && constant[i];
    refs.push_back(VectorRef{args[i].get(), is_constant ? nullptr : sel, is_constant});
  }
  KernelContext ctx;
  return bound.function->kernel(ctx, refs, n, bound.return_type);
}

std::string Render(const ArrayRef& a) {
  std::string out;
  for (int64_t i = 0; i < a->length; ++i) out += (i ? "," : "") + ValueFromArray(*a, i).ToString();
  return out;
}

TEST(FunctionsKernels, IntegerOverflowAndDivisionByZero) {
  auto a = Int32s({INT_MAX, 1, std::nullopt});
  auto b = Int32s({0, 1, 1});
  EXPECT_EQ(Render(Unwrap(Call("+", {Int32s({1, 2, std::nullopt}), b}, true, 3))), "1,3,NULL");
  auto st = Call("+", {a, Int32s({1, 1, 1})}, true, 3).status();
  EXPECT_EQ(st.message(), "integer out of range");
  st = Call("/", {Int32s({1, 1, 1}), b}, true, 3).status();
  EXPECT_EQ(st.message(), "division by zero");
  st = Call("/", {Int32s({INT_MIN}), Int32s({-1})}, true, 1).status();
  EXPECT_EQ(st.message(), "integer out of range");
  st = Call("%", {Int32s({5}), Int32s({0})}, true, 1).status();
  EXPECT_EQ(st.message(), "division by zero");
}

TEST(FunctionsKernels, ValuesUnderNullsRaiseNothing) {
  // A NULL slot may hold any bytes (here INT_MAX and 0): NULL + 1 and 1 / NULL
  // are NULL, not "integer out of range" or "division by zero".
  auto hidden_max = WithHiddenValue(Int32s({std::nullopt, 5}), 0, INT_MAX);
  auto one = Int32s({1, 1});
  EXPECT_EQ(Render(Unwrap(Call("+", {hidden_max, one}, true, 2))), "NULL,6");
  EXPECT_EQ(Render(Unwrap(Call("*", {hidden_max, Int32s({2, 2})}, true, 2))), "NULL,10");
  auto hidden_zero = WithHiddenValue(Int32s({std::nullopt, 5}), 0, 0);
  EXPECT_EQ(Render(Unwrap(Call("/", {one, hidden_zero}, true, 2))), "NULL,0");
  EXPECT_EQ(Render(Unwrap(Call("%", {one, hidden_zero}, true, 2))), "NULL,1");
}

TEST(FunctionsKernels, SelectionVectorsAndConstants) {
  // 4100 rows (past two 2048-row vectors) read through a selection of every
  // third row, plus a constant.
  std::vector<std::optional<int32_t>> values;
  for (int32_t i = 0; i < 4100; ++i)
    values.push_back(i % 1000 == 999 ? std::nullopt : std::optional(i));
  auto a = Int32s(values);
  auto c = Int32s({1000});
  std::vector<uint32_t> sel;
  for (uint32_t i = 0; i < 4100; i += 3) sel.push_back(i);
  const auto n = static_cast<int64_t>(sel.size());
  auto out = Unwrap(Call("+", {a, c}, true, n, sel.data(), {false, true}));
  ASSERT_EQ(out->length, n);
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t row = sel[static_cast<size_t>(i)];
    const Value v = ValueFromArray(*out, i);
    if (row % 1000 == 999) {
      EXPECT_TRUE(v.is_null()) << row;
    } else {
      EXPECT_EQ(v.ToString(), std::to_string(row + 1000)) << row;
    }
  }
  // Comparisons through a selection.
  auto cmp = Unwrap(Call("<", {a, Int32s({2048})}, true, n, sel.data(), {false, true}));
  EXPECT_EQ(ValueFromArray(*cmp, 682).ToString(), "t");  // row 2046
  EXPECT_EQ(ValueFromArray(*cmp, 683).ToString(), "f");  // row 2049
}

TEST(FunctionsKernels, Strings) {
  auto s = Texts({"", "héllo", std::nullopt, "a b"});
  EXPECT_EQ(Render(Unwrap(Call("length", {s}, false, 4))), "0,5,NULL,3");
  EXPECT_EQ(Render(Unwrap(Call("octet_length", {s}, false, 4))), "0,6,NULL,3");
  EXPECT_EQ(Render(Unwrap(Call("reverse", {s}, false, 4))), ",olléh,NULL,b a");
  EXPECT_EQ(Render(Unwrap(Call("||", {s, Texts({"x", "x", "x", std::nullopt})}, true, 4))),
            "x,héllox,NULL,NULL");
  EXPECT_EQ(
      Render(Unwrap(Call("<", {Texts({"B", "a", "é", ""}), Texts({"a", "b", "z", "a"})}, true, 4))),
      "t,t,f,t");  // byte order: 'B' < 'a' < 'z' < 'é'
}

// --- edge values through SQL ----------------------------------------------------------------

class FunctionsSql : public ::testing::Test {
 protected:
  void Check(const std::vector<std::pair<std::string, std::string>>& cases) {
    for (const auto& [sql, expected] : cases) EXPECT_EQ(Rows(db_, sql), expected) << sql;
  }
  Database db_;
};

TEST_F(FunctionsSql, ArithmeticLimits) {
  Check({
      {"SELECT 2147483647::int4 + 1", "ERROR: integer out of range"},
      {"SELECT (-2147483648)::int4 / -1", "ERROR: integer out of range"},
      {"SELECT (-9223372036854775808)::int8 / -1", "ERROR: bigint out of range"},
      {"SELECT 9223372036854775807::int8 + 1", "ERROR: bigint out of range"},
      {"SELECT (-32768)::int2 * -1::int2", "ERROR: smallint out of range"},
      {"SELECT abs(-2147483648::int4)", "ERROR: integer out of range"},
      {"SELECT 5 % 0", "ERROR: division by zero"},
      {"SELECT 5.0 / 0", "ERROR: division by zero"},
      {"SELECT 0::float8 / 0", "ERROR: division by zero"},
      {"SELECT 1e308::float8 * 10", "ERROR: value out of range: overflow"},
      {"SELECT sqrt(-1::float8)", "ERROR: cannot take square root of a negative number"},
      {"SELECT -7 % 3, mod(-7, 3), sign(-2.5), ceil(-1.5), floor(-1.5), trunc(-1.5), power(2, 10)",
       "-1|-1|-1|-1|-2|-1|1024"},
      {"SELECT 'NaN'::float8 = 'NaN'::float8, 'NaN'::float8 > 1e308::float8, -0.0::float8 = "
       "0.0::float8",
       "t|t|t"},
      {"SELECT 0.1::float8 + 0.2::float8, 1 / 3::float8", "0.30000000000000004|0.3333333333333333"},
  });
  // PostgreSQL: "cannot take logarithm of zero"; Quiver adds "or a negative number".
  EXPECT_EQ(Rows(db_, "SELECT ln(0::float8)").rfind("ERROR: cannot take logarithm of zero", 0), 0u);
}

TEST_F(FunctionsSql, CastsAndRounding) {
  Check({
      {"SELECT 2.5::int4, (-2.5)::int4, 2.5::float8::int4, 3.5::float8::int4", "3|-3|2|4"},
      {"SELECT round(2.5), round(-2.5), round(2.5::float8), round(1.255, 2)", "3|-3|2|1.26"},
      {"SELECT '  42 '::int4", "42"},
      {"SELECT '4.5'::int4", "ERROR: invalid input syntax for type integer: \"4.5\""},
      {"SELECT ''::int4", "ERROR: invalid input syntax for type integer: \"\""},
      {"SELECT '9223372036854775808'::int8",
       "ERROR: value \"9223372036854775808\" is out of range for type bigint"},
      {"SELECT 'maybe'::bool", "ERROR: invalid input syntax for type boolean: \"maybe\""},
      {"SELECT 'yes'::bool, 'on'::bool, '0'::bool", "t|t|f"},
      // PostgreSQL: 2.5000000000000000 (scale 16 for this quotient); Quiver's
      // column scale is 20, the value the same.
      {"SELECT 10::numeric / 4", "2.50000000000000000000"},
      {"SELECT 1::numeric / 3, 10000::numeric / 3",
       "0.33333333333333333333|3333.33333333333333330000"},
  });
  // PostgreSQL puts the precision and scale into DETAIL; Quiver into the message.
  EXPECT_EQ(Rows(db_, "SELECT 1000::numeric(3,0)").rfind("ERROR: numeric field overflow", 0), 0u);
  EXPECT_EQ(Rows(db_, "SELECT 99.995::numeric(4,2)").rfind("ERROR: numeric field overflow", 0), 0u);
}

TEST_F(FunctionsSql, StringsWithEmptyAndUnicode) {
  Check({
      {"SELECT length('héllo'), octet_length('héllo'), length('')", "5|6|0"},
      {"SELECT substr('héllo', 2, 3), substr('hello', -1, 3), substr('hello', 0), substr('hello', "
       "10)",
       "éll|h|hello|"},
      {"SELECT substr('hello', 2, -1)", "ERROR: negative substring length not allowed"},
      {"SELECT position('' IN 'abc'), position('l' IN 'héllo'), strpos('héllo', 'llo')", "1|3|3"},
      {"SELECT 'a' || NULL, concat('a', NULL, 'b')", "NULL|ab"},
      {"SELECT lpad('hello', 3), lpad('hi', 5, 'xy'), rpad('hi', 5, 'xy'), lpad('hi', 5, '')",
       "hel|xyxhi|hixyx|hi"},
      {"SELECT replace('aaa', 'a', 'bb'), replace('abc', '', 'x'), trim('  a  '), ltrim('xxaxx', "
       "'x'), "
       "btrim('xyaxy', 'xy')",
       "bbbbbb|abc|a|axx|a"},
      {"SELECT left('héllo', 2), right('héllo', 2), left('abc', -1), reverse('héllo')",
       "hé|lo|ab|olléh"},
      {"SELECT 'abc' LIKE 'a_c', 'a_c' LIKE 'a\\_c', 'ABC' ILIKE '%b%', 'é' LIKE '_'", "t|t|t|t"},
      {"SELECT split_part('a,b,c', ',', 2), split_part('a,b,c', ',', 5), repeat('ab', 3), "
       "repeat('ab', -1)",
       "b||ababab|"},
      {"SELECT starts_with('hello', 'he'), 'abc' < 'abd', 'Z' < 'a', 'é' > 'z'", "t|t|t|t"},
      {"SELECT upper('abc'), lower('ABC')", "ABC|abc"},
  });
}

TEST_F(FunctionsSql, UnicodeCaseMapping) {
  // PostgreSQL (UTF-8 database, C.UTF-8 locale): upper('héllo ß') = 'HÉLLO ß',
  // lower('ÉCOLE') = 'école'.
  EXPECT_EQ(Rows(db_, "SELECT upper('héllo ß'), lower('ÉCOLE'), initcap('éCOLE ünd')"),
            "HÉLLO ß|école|École Ünd");
}

// Expected texts are PostgreSQL 15's (C.UTF-8 database); to_number's scale is
// its template's where PostgreSQL shows the digits read (1.20 for its 1.2...).
TEST_F(FunctionsSql, NumericToCharAndToNumber) {
  Check({
      {"SELECT to_char(12345, '99,999.99'), to_char(-12.5::float8, 'FM999.999'), to_char(9.99, '9.9EEEE'), "
       "to_char(1994, 'FMRN'), to_char(-0.5, '9.99PR')",
       " 12,345.00|-12.5| 10.0e+00|MCMXCIV| <.50>"},
      {"SELECT to_char(485, '999th'), to_char(-0.0004, 'S9.99'), to_char(123, '99'), to_char('NaN'::float8, '99999'), "
       "to_char(1.23456789012345678::float8, '9.99999999999999999')",
       " 485th| +.00| ##|   NaN| 1.23456789012346"},
      {"SELECT to_char(2147483647, '9V9'), to_char(12, 'L99'), to_char(0.1, 'FM9.9'), to_char(-485, 'FM999MI')",
       "-10|  12|.1|485-"},
      {"SELECT to_number('-12,345.678', '99G999D999'), to_number('<12>', '99PR'), to_number('12', '99V9'), "
       "to_number('1 -', '9S'), to_number('  12.3-', '999.9MI')",
       "-12345.678|-12|1.2|1|-12.3"},
      {"SELECT to_char(1, '9.9.9')", "ERROR: multiple decimal points"},
      {"SELECT to_char(1, 'FM9EEEE')", "ERROR: \"EEEE\" is incompatible with other formats"},
      {"SELECT to_number('1', 'RN')", "ERROR: \"RN\" not supported for input"},
      {"SELECT to_number('abc', '999')", "ERROR: invalid input syntax for type numeric: \" \""},
      {"SELECT to_number('12', '9.9')", "ERROR: numeric field overflow"},
  });
  EXPECT_EQ(Rows(db_, "SELECT to_number('1', t) FROM (VALUES ('9')) v(t)")
                .rfind("ERROR: unsupported: to_number with a template that is not a constant", 0),
            0u);
}

TEST_F(FunctionsSql, DatesAndLeapDays) {
  Check({
      {"SELECT date '2024-02-29' + interval '1 year', date '2024-01-31' + interval '1 month'",
       "2025-02-28 00:00:00|2024-02-29 00:00:00"},
      {"SELECT date '2024-03-01' - date '2024-02-01', date '2024-03-01' - 1, date '2024-02-28' + 1",
       "29|2024-02-29|2024-02-29"},
      {"SELECT date '2023-03-01' - 1, date '2000-02-28' + 1, date '1900-02-28' + 1",
       "2023-02-28|2000-02-29|1900-03-01"},
      {"SELECT extract(doy FROM date '2024-12-31'), extract(dow FROM date '2024-02-29'), "
       "extract(isodow FROM date '2024-03-03')",
       "366|4|7"},
      {"SELECT extract(week FROM date '2024-12-30'), extract(quarter FROM date '2024-02-29'), "
       "extract(day FROM date '2024-02-29')",
       "1|1|29"},
      {"SELECT date_trunc('month', timestamp '2024-02-29 13:45:00')", "2024-02-01 00:00:00"},
      {"SELECT timestamp '2024-02-29 23:59:59' + interval '1 second', "
       "timestamp '2024-03-31 10:00' - interval '1 month'",
       "2024-03-01 00:00:00|2024-02-29 10:00:00"},
      {"SELECT date '0001-01-01', date '9999-12-31'", "0001-01-01|9999-12-31"},
  });
  // PostgreSQL: date/time field value out of range: "2023-02-29".
  EXPECT_EQ(Rows(db_, "SELECT date '2023-02-29'").rfind("ERROR: ", 0), 0u);
  EXPECT_NE(Rows(db_, "SELECT date '2023-02-29'").find("\"2023-02-29\""), std::string::npos);
}

TEST_F(FunctionsSql, NullsAndConditionals) {
  Check({
      {"SELECT greatest(1, NULL, 3), least('b', 'a'), coalesce(NULL, NULL), nullif(NULL, 1)",
       "3|a|NULL|NULL"},
      {"SELECT 1 = NULL, NULL::int IS NULL, NULL::bool IS UNKNOWN, true IS NOT FALSE",
       "NULL|t|t|t"},
      {"SELECT length(NULL), upper(NULL), NULL::int + 1, abs(NULL::int)", "NULL|NULL|NULL|NULL"},
      {"SELECT CASE WHEN NULL THEN 1 ELSE 2 END, CASE NULL WHEN NULL THEN 1 ELSE 2 END", "2|2"},
  });
}

TEST_F(FunctionsSql, NumericPowerRounding) {
  // PostgreSQL: 2 ^ 0.5 is numeric 1.4142135623730950 (sqrt(2) = 1.41421356237309504880...,
  // rounded at the 16th place). Quiver computes it in double precision: 1.4142135623730951.
  EXPECT_KNOWN_BUG(Rows(db_, "SELECT 2 ^ 0.5") == "1.4142135623730951",
                   "numeric ^ numeric goes through double and is wrong in the last digit");
}

TEST_F(FunctionsSql, Aggregates) {
  ASSERT_EQ(
      Rows(db_,
           "CREATE TABLE t (a int, b text, c numeric(10,2));"
           "INSERT INTO t VALUES (1, 'x', 1.5), (2, 'y', 2.25), (3, NULL, NULL), (2, 'z', 3)"),
      "INSERT 0 4");
  Check({
      {"SELECT avg(a), sum(c), avg(c), max(b), min(c), count(DISTINCT b), bool_and(a > 1), "
       "string_agg(b, ',')"
       " FROM t",
       "2.00000000000000000000|6.75|2.25000000000000000000|z|1.50|3|f|x,y,z"},
      {"SELECT sum(a), avg(a), min(b), bool_or(a > 5), string_agg(b, ',') FROM t WHERE a > 10",
       "NULL|NULL|NULL|NULL|NULL"},
      {"SELECT stddev_samp(a), var_pop(a::float8) FROM t WHERE a = 1", "NULL|0"},
      {"SELECT sum(v) FROM (VALUES (9223372036854775807::int8), (9223372036854775807::int8)) t(v)",
       "18446744073709551614"},
      {"SELECT sum(v) FROM (VALUES (2147483647), (2147483647)) t(v)", "4294967294"},
  });
}


// --- aggregate states charged to the query's pool -----------------------------------------

// Runs `name` over `values` (one group per state, every row into each
// state), then combines state 0 into state 1; returns update's or combine's
// status. The states are destroyed before returning.
Status RunStringAggregate(const std::string& name, const std::vector<std::string>& values,
                          MemoryPool* pool, int64_t* charged_while_alive) {
  std::vector<ArgInfo> arg_infos = {Arg(utf8())};
  if (name == "string_agg") arg_infos.push_back(Arg(utf8()));
  const BoundAggregate bound = Unwrap(Registry().ResolveAggregate(name, arg_infos));
  const AggregateFunction& f = *bound.function;
  std::vector<Value> text, sep;
  for (const auto& v : values) {
    text.push_back(Value::Text(v));
    sep.push_back(Value::Text(","));
  }
  const ArrayRef a = Unwrap(ArrayFromValues(text, utf8()));
  const ArrayRef b = Unwrap(ArrayFromValues(sep, utf8()));
  std::vector<VectorRef> args = {VectorRef{a.get(), nullptr, false}};
  if (name == "string_agg") args.push_back(VectorRef{b.get(), nullptr, false});
  alignas(16) uint8_t storage[2][64];
  EXPECT_LE(f.state_size, 64);
  for (auto& st : storage) f.init(st);
  Status status;
  for (auto& st : storage) {
    if (!status.ok()) break;
    std::vector<uint8_t*> states(values.size(), st);
    status = f.update(args, static_cast<int64_t>(values.size()), states.data(), pool);
  }
  if (status.ok()) status = f.combine(storage[0], storage[1], pool);
  *charged_while_alive = pool->bytes_allocated();
  for (auto& st : storage) f.destroy(st);
  return status;
}

TEST(FunctionsAggregateMemory, HeapStatesAreChargedAndReleased) {
  const std::vector<std::string> values = {std::string(1000, 'a'), std::string(5000, 'b'),
                                           std::string(3000, 'c')};
  for (const std::string name : {"min", "max", "string_agg"}) {
    MemoryPool pool("test");
    int64_t charged = 0;
    ASSERT_TRUE(RunStringAggregate(name, values, &pool, &charged).ok()) << name;
    // Per state: min holds 1000 bytes, max the 5000 the b's needed, string_agg all 9002
    // (18005 in the state combined into).
    const int64_t least = name == "min" ? 2000 : name == "max" ? 10000 : 2 * 9002 + 9003;
    EXPECT_GE(charged, least) << name;
    EXPECT_LE(charged, 4 * least + 1024) << name;  // capacity grows at most twofold
    EXPECT_EQ(pool.bytes_allocated(), 0) << name << ": destroy gives everything back";
  }
}

TEST(FunctionsAggregateMemory, StringAggPastTheLimitFails) {
  const std::vector<std::string> values(100, std::string(1000, 'x'));
  MemoryPool pool("query", 50000);
  int64_t charged = 0;
  const Status st = RunStringAggregate("string_agg", values, &pool, &charged);
  EXPECT_EQ(st.code(), StatusCode::kOutOfMemory) << st.ToString();
  EXPECT_LE(charged, 50000);
  EXPECT_EQ(pool.bytes_allocated(), 0);
  // Within the limit, the same input works.
  MemoryPool big("query", 1 << 20);
  EXPECT_TRUE(RunStringAggregate("string_agg", values, &big, &charged).ok());
  EXPECT_EQ(big.bytes_allocated(), 0);
}

TEST(FunctionsAggregateMemory, StringAggOverTheMemoryLimitThroughSql) {
  // 101 MB of text in one state: charged as it grows, the state and the
  // result no longer fit into 150 MB (they did before: the state was not counted).
  const std::string sql =
      "SELECT length(string_agg(repeat('x', 100), ',')) FROM generate_series(1, 1000000) s(g)";
  {
    DatabaseOptions o;
    o.memory_limit = 150 << 20;
    Database db(o);
    auto r = db.Execute(sql);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kOutOfMemory) << r.status().ToString();
  }
  DatabaseOptions o;
  o.memory_limit = int64_t{1} << 30;
  Database db(o);
  EXPECT_EQ(Rows(db, sql), "100999999");
}

}  // namespace
}  // namespace quiver
