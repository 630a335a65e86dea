// GetXdbcTypeInfo: the SQL types Quiver's engine computes with
// (vector/sql_type.h), described with their JDBC/ODBC codes.
#include "columnar/builder.h"
#include "server/metadata.h"

namespace quiver::server {
namespace {

namespace S = sqlpb;

struct TypeRow {
  const char* name;
  int32_t data_type;    // XdbcDataType
  int32_t column_size;  // -1: NULL
  const char* prefix;   // nullptr: NULL
  const char* suffix;
  std::vector<std::string> create_params;  // empty: NULL
  bool case_sensitive;
  int unsigned_attribute;  // -1: NULL, else 0/1
  bool fixed_prec_scale;
  int32_t min_scale;  // -1: NULL
  int32_t max_scale;
  int32_t sql_data_type;
  int32_t datetime_subcode;  // -1: NULL
  int32_t radix;             // -1: NULL
};

std::vector<TypeRow> Rows() {
  // Sorted by data_type, then name (as the specification asks).
  std::vector<TypeRow> rows = {
      {"bigint",
       S::XDBC_BIGINT,
       19,
       nullptr,
       nullptr,
       {},
       false,
       0,
       false,
       0,
       0,
       S::XDBC_BIGINT,
       -1,
       10},
      {"bytea",
       S::XDBC_VARBINARY,
       -1,
       "'\\x",
       "'",
       {},
       false,
       -1,
       false,
       -1,
       -1,
       S::XDBC_VARBINARY,
       -1,
       -1},
      {"text", S::XDBC_VARCHAR, -1, "'", "'", {}, true, -1, false, -1, -1, S::XDBC_VARCHAR, -1, -1},
      {"varchar",
       S::XDBC_VARCHAR,
       -1,
       "'",
       "'",
       {"length"},
       true,
       -1,
       false,
       -1,
       -1,
       S::XDBC_VARCHAR,
       -1,
       -1},
      {"boolean",
       S::XDBC_BIT,
       1,
       nullptr,
       nullptr,
       {},
       false,
       -1,
       false,
       -1,
       -1,
       S::XDBC_BIT,
       -1,
       -1},
      {"numeric",
       S::XDBC_NUMERIC,
       38,
       nullptr,
       nullptr,
       {"precision", "scale"},
       false,
       0,
       false,
       0,
       38,
       S::XDBC_NUMERIC,
       -1,
       10},
      {"integer",
       S::XDBC_INTEGER,
       10,
       nullptr,
       nullptr,
       {},
       false,
       0,
       false,
       0,
       0,
       S::XDBC_INTEGER,
       -1,
       10},
      {"smallint",
       S::XDBC_SMALLINT,
       5,
       nullptr,
       nullptr,
       {},
       false,
       0,
       false,
       0,
       0,
       S::XDBC_SMALLINT,
       -1,
       10},
      {"real",
       S::XDBC_REAL,
       24,
       nullptr,
       nullptr,
       {},
       false,
       0,
       false,
       -1,
       -1,
       S::XDBC_REAL,
       -1,
       2},
      {"double precision",
       S::XDBC_DOUBLE,
       53,
       nullptr,
       nullptr,
       {},
       false,
       0,
       false,
       -1,
       -1,
       S::XDBC_DOUBLE,
       -1,
       2},
      {"interval",
       S::XDBC_INTERVAL,
       49,
       "'",
       "'",
       {},
       false,
       -1,
       false,
       0,
       6,
       S::XDBC_INTERVAL,
       S::XDBC_SUBCODE_INTERVAL_DAY_TO_SECOND,
       -1},
      {"date",
       S::XDBC_DATE,
       10,
       "'",
       "'",
       {},
       false,
       -1,
       false,
       -1,
       -1,
       S::XDBC_DATETIME,
       S::XDBC_SUBCODE_DATE,
       -1},
      {"time",
       S::XDBC_TIME,
       15,
       "'",
       "'",
       {},
       false,
       -1,
       false,
       0,
       6,
       S::XDBC_DATETIME,
       S::XDBC_SUBCODE_TIME,
       -1},
      {"timestamp",
       S::XDBC_TIMESTAMP,
       26,
       "'",
       "'",
       {},
       false,
       -1,
       false,
       0,
       6,
       S::XDBC_DATETIME,
       S::XDBC_SUBCODE_TIMESTAMP,
       -1},
      {"timestamp with time zone",
       S::XDBC_TIMESTAMP,
       32,
       "'",
       "'",
       {},
       false,
       -1,
       false,
       0,
       6,
       S::XDBC_DATETIME,
       S::XDBC_SUBCODE_TIMESTAMP_WITH_TIMEZONE,
       -1},
  };
  std::stable_sort(rows.begin(), rows.end(), [](const TypeRow& a, const TypeRow& b) {
    return a.data_type != b.data_type ? a.data_type < b.data_type
                                      : std::string_view(a.name) < std::string_view(b.name);
  });
  return rows;
}

}  // namespace

SchemaRef XdbcTypeInfoSchema() {
  auto nn = [](const char* name, TypeRef t) { return field(name, std::move(t), false); };
  return schema({nn("type_name", utf8()), nn("data_type", int32()), field("column_size", int32()),
                 field("literal_prefix", utf8()), field("literal_suffix", utf8()),
                 field("create_params", list(field("item", utf8(), false))),
                 nn("nullable", int32()), nn("case_sensitive", boolean()),
                 nn("searchable", int32()), field("unsigned_attribute", boolean()),
                 nn("fixed_prec_scale", boolean()), field("auto_increment", boolean()),
                 field("local_type_name", utf8()), field("minimum_scale", int32()),
                 field("maximum_scale", int32()), nn("sql_data_type", int32()),
                 field("datetime_subcode", int32()), field("num_prec_radix", int32()),
                 field("interval_precision", int32())});
}

Result<RecordBatchRef> XdbcTypeInfoBatch(std::optional<int32_t> data_type) {
  const SchemaRef s = XdbcTypeInfoSchema();
  StringBuilder name(utf8()), prefix(utf8()), suffix(utf8()), local_name(utf8());
  Int32Builder code(int32()), size(int32()), nullable(int32()), searchable(int32()),
      min_scale(int32()), max_scale(int32()), sql_code(int32()), subcode(int32()), radix(int32()),
      interval_precision(int32());
  BooleanBuilder case_sensitive, unsigned_attr, fixed, auto_increment;
  ListBuilder params(s->field(5)->type, std::make_unique<StringBuilder>(utf8()));
  auto opt_int = [](Int32Builder& b, int32_t v) { return v < 0 ? b.AppendNull() : b.Append(v); };
  auto opt_str = [](StringBuilder& b, const char* v) { return v ? b.Append(v) : b.AppendNull(); };
  int64_t rows = 0;
  for (const TypeRow& r : Rows()) {
    if (data_type && *data_type != r.data_type) continue;
    ++rows;
    QUIVER_RETURN_NOT_OK(name.Append(r.name));
    QUIVER_RETURN_NOT_OK(code.Append(r.data_type));
    QUIVER_RETURN_NOT_OK(opt_int(size, r.column_size));
    QUIVER_RETURN_NOT_OK(opt_str(prefix, r.prefix));
    QUIVER_RETURN_NOT_OK(opt_str(suffix, r.suffix));
    if (r.create_params.empty()) {
      QUIVER_RETURN_NOT_OK(params.AppendNull());
    } else {
      QUIVER_RETURN_NOT_OK(params.Append());
      for (const auto& p : r.create_params) {
        QUIVER_RETURN_NOT_OK(static_cast<StringBuilder*>(params.value_builder())->Append(p));
      }
    }
    QUIVER_RETURN_NOT_OK(nullable.Append(S::NULLABILITY_NULLABLE));
    QUIVER_RETURN_NOT_OK(case_sensitive.Append(r.case_sensitive));
    QUIVER_RETURN_NOT_OK(searchable.Append(S::SEARCHABLE_FULL));
    QUIVER_RETURN_NOT_OK(r.unsigned_attribute < 0
                             ? unsigned_attr.AppendNull()
                             : unsigned_attr.Append(r.unsigned_attribute == 1));
    QUIVER_RETURN_NOT_OK(fixed.Append(r.fixed_prec_scale));
    QUIVER_RETURN_NOT_OK(auto_increment.Append(false));
    QUIVER_RETURN_NOT_OK(local_name.Append(r.name));
    QUIVER_RETURN_NOT_OK(opt_int(min_scale, r.min_scale));
    QUIVER_RETURN_NOT_OK(opt_int(max_scale, r.max_scale));
    QUIVER_RETURN_NOT_OK(sql_code.Append(r.sql_data_type));
    QUIVER_RETURN_NOT_OK(opt_int(subcode, r.datetime_subcode));
    QUIVER_RETURN_NOT_OK(opt_int(radix, r.radix));
    QUIVER_RETURN_NOT_OK(r.data_type == S::XDBC_INTERVAL ? interval_precision.Append(6)
                                                         : interval_precision.AppendNull());
  }
  std::vector<ArrayBuilder*> builders = {&name,
                                         &code,
                                         &size,
                                         &prefix,
                                         &suffix,
                                         &params,
                                         &nullable,
                                         &case_sensitive,
                                         &searchable,
                                         &unsigned_attr,
                                         &fixed,
                                         &auto_increment,
                                         &local_name,
                                         &min_scale,
                                         &max_scale,
                                         &sql_code,
                                         &subcode,
                                         &radix,
                                         &interval_precision};
  std::vector<ArrayRef> columns;
  for (ArrayBuilder* b : builders) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, b->Finish());
    columns.push_back(std::move(a));
  }
  return RecordBatch::Make(s, rows, std::move(columns));
}

}  // namespace quiver::server
