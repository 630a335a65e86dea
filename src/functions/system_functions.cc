// Functions PostgreSQL users and their tools call about the session and the
// values themselves: version(), current_database(), current_schema(),
// current_setting(name), pg_backend_pid(), pg_typeof(x), num_nulls(...) /
// num_nonnulls(...), clock_timestamp(); and small everyday ones: bit_length,
// to_hex, gcd, lcm, overlay(... PLACING ... FROM ... [FOR ...]).
#include <unistd.h>

#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/calendar.h"
#include "functions/families.h"
#include "functions/function.h"
#include "functions/kernel_util.h"
#include "vector/sql_type.h"
#include "vector/value.h"

namespace quiver {
namespace {

using kernels::ReadInt;
using kernels::StringAccess;
using kernels::ValidAccess;

// A function without arguments whose value is one text for every row.
ScalarFunction ConstantText(const char* name, std::string value) {
  return {name, {}, nullptr, utf8(), nullptr,
          [value = std::move(value)](KernelContext& ctx, const std::vector<VectorRef>&, int64_t n,
                                     const TypeRef&) {
            return MakeArrayFromValue(Value::Text(value), n, ctx.pool);
          }};
}

// Row by row text output; NULL where any argument is NULL (strict).
template <typename F>
Result<ArrayRef> TextRows(KernelContext& ctx, const std::vector<VectorRef>& args, int64_t n,
                          const TypeRef& out_type, F f) {
  kernels::StringOutput out(out_type, n, ctx.pool);
  std::vector<ValidAccess> valid(args.begin(), args.end());
  std::string buf;
  for (int64_t i = 0; i < n; ++i) {
    bool ok = true;
    for (const auto& v : valid) ok = ok && v(i);
    if (!ok) {
      QUIVER_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    buf.clear();
    QUIVER_RETURN_NOT_OK(f(i, &buf));
    QUIVER_RETURN_NOT_OK(out.Append(buf));
  }
  return out.Finish();
}


Status IntegerOutOfRange(const TypeRef& t) {
  return Status::Invalid("{} out of range", t->id == TypeId::kInt64 ? "bigint" : "integer")
      .WithSqlState(sqlstate::kNumericValueOutOfRange);
}

// PostgreSQL's int4gcd / int8gcd: Euclid on the absolute values, with the
// one result that does not fit (gcd of MIN and 0 or MIN) an error.
template <typename T>
Result<T> Gcd(T a, T b, const TypeRef& t) {
  if (a == std::numeric_limits<T>::min() || b == std::numeric_limits<T>::min()) {
    if (a == 0 || b == 0 || (a == std::numeric_limits<T>::min() && b == std::numeric_limits<T>::min())) {
      return IntegerOutOfRange(t);
    }
  }
  // Work with negative values (their range is the larger one).
  if (a > 0) a = static_cast<T>(-a);
  if (b > 0) b = static_cast<T>(-b);
  while (b != 0) {
    const T r = static_cast<T>(a % b);
    a = b;
    b = r;
  }
  if (a == std::numeric_limits<T>::min()) return IntegerOutOfRange(t);
  return static_cast<T>(-a);
}

template <typename T>
Result<T> Lcm(T a, T b, const TypeRef& t) {
  if (a == 0 || b == 0) return T{0};
  QUIVER_ASSIGN_OR_RAISE(const T g, Gcd(a, b, t));
  T r;
  if (__builtin_mul_overflow(static_cast<T>(a / g), b, &r) || r == std::numeric_limits<T>::min()) {
    return IntegerOutOfRange(t);
  }
  return r < 0 ? static_cast<T>(-r) : r;
}

int64_t Utf8Chars(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Byte offset of character `chars` (0-based) in s, or s.size().
size_t Utf8Offset(std::string_view s, int64_t chars) {
  size_t i = 0;
  while (i < s.size() && chars > 0) {
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
    --chars;
  }
  return i;
}

// overlay(s PLACING r FROM start [FOR count]) = substr(s, 1, start - 1) || r
// || substr(s, start + count), count defaulting to the length of r.
Result<std::string> Overlay(std::string_view s, std::string_view r, int64_t start, int64_t count) {
  if (start <= 0) {
    return Status::Invalid("negative substring length not allowed")
        .WithSqlState(sqlstate::kSubstringError);
  }
  if (count < 0) {
    return Status::Invalid("negative substring length not allowed")
        .WithSqlState(sqlstate::kSubstringError);
  }
  std::string out(s.substr(0, Utf8Offset(s, start - 1)));
  out.append(r);
  if (start - 1 + count < Utf8Chars(s)) out.append(s.substr(Utf8Offset(s, start - 1 + count)));
  return out;
}

}  // namespace

void RegisterSystemFunctions(FunctionRegistry* r) {
  const TypeRef text = utf8();
  r->Add(ConstantText("version", fmt::format("Quiver (PostgreSQL 15 dialect) on {}-linux",
#if defined(__x86_64__)
                                             "x86_64"
#elif defined(__aarch64__)
                                             "aarch64"
#else
                                             "unknown"
#endif
                                             )));
  // The one catalog and schema Quiver has (what pg_catalog and Flight SQL's
  // GetCatalogs / GetDbSchemas show).
  r->Add(ConstantText("current_database", "quiver"));
  r->Add(ConstantText("current_schema", "public"));
  // current_setting(name [, missing_ok]): the settings a client asks for,
  // fixed in Quiver; any other name is PostgreSQL's 42704.
  auto setting = [](std::string_view name) -> const char* {
    static const std::pair<const char*, const char*> kSettings[] = {
        {"timezone", "UTC"},
        {"datestyle", "ISO, MDY"},
        {"intervalstyle", "postgres"},
        {"server_version", "15.0"},
        {"server_version_num", "150000"},
        {"server_encoding", "UTF8"},
        {"client_encoding", "UTF8"},
        {"lc_collate", "C"},
        {"lc_ctype", "C.UTF-8"},
        {"search_path", "\"$user\", public"},
        {"standard_conforming_strings", "on"},
        {"integer_datetimes", "on"},
        {"max_identifier_length", "63"},
        {"transaction_isolation", "serializable"},
        {"default_transaction_read_only", "off"},
        {"application_name", ""},
        {"extra_float_digits", "1"},
    };
    std::string lower(name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const auto& [k, v] : kSettings) {
      if (lower == k) return v;
    }
    return nullptr;
  };
  r->Add({"current_setting", {text}, nullptr, text, nullptr,
          [setting](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n, const TypeRef& out) {
            StringAccess name(a[0]);
            return TextRows(ctx, a, n, out, [&](int64_t i, std::string* buf) -> Status {
              const char* v = setting(name(i));
              if (v == nullptr) {
                return Status::KeyError("unrecognized configuration parameter \"{}\"", name(i))
                    .WithSqlState(sqlstate::kUndefinedObject);
              }
              buf->assign(v);
              return Status::OK();
            });
          }});
  ScalarFunction setting_missing_ok{
      "current_setting", {text, boolean()}, nullptr, text, nullptr,
      [setting](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n, const TypeRef& out)
          -> Result<ArrayRef> {
        StringAccess name(a[0]);
        ValidAccess vn(a[0]), vm(a[1]);
        kernels::BoolAccess missing_ok(a[1]);
        kernels::StringOutput o(out, n, ctx.pool);
        for (int64_t i = 0; i < n; ++i) {
          if (!vn(i) || !vm(i)) {
            QUIVER_RETURN_NOT_OK(o.AppendNull());
            continue;
          }
          const char* v = setting(name(i));
          if (v != nullptr) {
            QUIVER_RETURN_NOT_OK(o.Append(v));
          } else if (missing_ok(i)) {
            QUIVER_RETURN_NOT_OK(o.AppendNull());
          } else {
            return Status::KeyError("unrecognized configuration parameter \"{}\"", name(i))
                .WithSqlState(sqlstate::kUndefinedObject);
          }
        }
        return o.Finish();
      }};
  setting_missing_ok.strict = false;
  r->Add(setting_missing_ok);
  r->Add({"pg_backend_pid", {}, nullptr, int32(), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>&, int64_t n, const TypeRef&) {
            return MakeArrayFromValue(Value::Int32(static_cast<int32_t>(getpid())), n, ctx.pool);
          }});
  ScalarFunction clock{"clock_timestamp", {}, nullptr, timestamp(TimeUnit::kMicro, "UTC"), nullptr,
                       [](KernelContext& ctx, const std::vector<VectorRef>&, int64_t n,
                          const TypeRef& out) -> Result<ArrayRef> {
                         QUIVER_ASSIGN_OR_RAISE(auto o, kernels::MakeFixedOutput(out, {}, n, ctx.pool));
                         for (int64_t i = 0; i < n; ++i) o.data<int64_t>()[i] = NowMicros();
                         return kernels::FinishFixed(out, n, std::move(o));
                       }};
  clock.is_volatile = true;
  r->Add(clock);

  // pg_typeof(x): the name of x's type (PostgreSQL's regtype output), for
  // every row including NULL ones.
  ScalarFunction type_of{"pg_typeof", {AnyType()}, nullptr, text, nullptr,
                         [](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n,
                            const TypeRef&) {
                           return MakeArrayFromValue(Value::Text(PgTypeName(*a[0].array->type)), n,
                                                     ctx.pool);
                         }};
  type_of.strict = false;
  r->Add(type_of);
  // num_nulls(...) / num_nonnulls(...): how many arguments are (not) NULL.
  for (const bool nulls : {true, false}) {
    ScalarFunction f{nulls ? "num_nulls" : "num_nonnulls", {}, AnyType(), int32(), nullptr,
                     [nulls](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n,
                             const TypeRef& out) -> Result<ArrayRef> {
                       QUIVER_ASSIGN_OR_RAISE(auto o, kernels::MakeFixedOutput(out, {}, n, ctx.pool));
                       std::vector<ValidAccess> valid(a.begin(), a.end());
                       for (int64_t i = 0; i < n; ++i) {
                         int32_t count = 0;
                         for (const auto& v : valid) count += v(i) ? 0 : 1;
                         o.data<int32_t>()[i] = nulls ? count : static_cast<int32_t>(a.size()) - count;
                       }
                       return kernels::FinishFixed(out, n, std::move(o));
                     }};
    f.strict = false;
    r->Add(f);
  }

  for (const TypeRef& t : {text, binary()}) {
    r->Add({"bit_length", {t}, nullptr, int32(), nullptr,
            [](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n, const TypeRef& out) {
              StringAccess s(a[0]);
              return kernels::StrictFixedRows<int32_t>(ctx.pool, a, n, out, [&](int64_t i) -> Result<int32_t> {
                return static_cast<int32_t>(s(i).size() * 8);
              });
            }});
  }
  for (const TypeRef& t : {int32(), int64()}) {
    r->Add({"to_hex", {t}, nullptr, text, nullptr,
            [t](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n, const TypeRef& out) {
              return TextRows(ctx, a, n, out, [&](int64_t i, std::string* buf) {
                const int64_t v = ReadInt(a[0], i);
                // Two's complement of the argument's own width, as PostgreSQL.
                *buf = t->id == TypeId::kInt32
                           ? fmt::format("{:x}", static_cast<uint32_t>(static_cast<int32_t>(v)))
                           : fmt::format("{:x}", static_cast<uint64_t>(v));
                return Status::OK();
              });
            }});
  }
  r->Add({"gcd", {int32(), int32()}, nullptr, int32(), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n, const TypeRef& out) {
            return kernels::StrictFixedRows<int32_t>(ctx.pool, a, n, out, [&](int64_t i) {
              return Gcd<int32_t>(static_cast<int32_t>(ReadInt(a[0], i)),
                                  static_cast<int32_t>(ReadInt(a[1], i)), out);
            });
          }});
  r->Add({"gcd", {int64(), int64()}, nullptr, int64(), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n, const TypeRef& out) {
            return kernels::StrictFixedRows<int64_t>(ctx.pool, a, n, out,
                                      [&](int64_t i) { return Gcd<int64_t>(ReadInt(a[0], i), ReadInt(a[1], i), out); });
          }});
  r->Add({"lcm", {int32(), int32()}, nullptr, int32(), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n, const TypeRef& out) {
            return kernels::StrictFixedRows<int32_t>(ctx.pool, a, n, out, [&](int64_t i) {
              return Lcm<int32_t>(static_cast<int32_t>(ReadInt(a[0], i)),
                                  static_cast<int32_t>(ReadInt(a[1], i)), out);
            });
          }});
  r->Add({"lcm", {int64(), int64()}, nullptr, int64(), nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n, const TypeRef& out) {
            return kernels::StrictFixedRows<int64_t>(ctx.pool, a, n, out,
                                      [&](int64_t i) { return Lcm<int64_t>(ReadInt(a[0], i), ReadInt(a[1], i), out); });
          }});
  r->Add({"overlay", {text, text, int32(), int32()}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n, const TypeRef& out) {
            StringAccess s(a[0]), p(a[1]);
            return TextRows(ctx, a, n, out, [&](int64_t i, std::string* buf) -> Status {
              QUIVER_ASSIGN_OR_RAISE(*buf, Overlay(s(i), p(i), ReadInt(a[2], i), ReadInt(a[3], i)));
              return Status::OK();
            });
          }});
  r->Add({"overlay", {text, text, int32()}, nullptr, text, nullptr,
          [](KernelContext& ctx, const std::vector<VectorRef>& a, int64_t n, const TypeRef& out) {
            StringAccess s(a[0]), p(a[1]);
            return TextRows(ctx, a, n, out, [&](int64_t i, std::string* buf) -> Status {
              QUIVER_ASSIGN_OR_RAISE(*buf, Overlay(s(i), p(i), ReadInt(a[2], i), Utf8Chars(p(i))));
              return Status::OK();
            });
          }});
}

}  // namespace quiver
