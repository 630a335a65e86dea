// PARTITION BY of CREATE TABLE (sql/ast_partition.h): each key a column or
// date_trunc('year' | 'month' | 'day' | 'hour', column). Whether the column
// exists and has a type the transform takes is the engine's to check.
#include <algorithm>
#include <cctype>

#include "sql/ast_partition.h"
#include "sql/transform_internal.h"

namespace quiver::sql::internal {

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The column of a ColumnRef naming one (unqualified) column; "" otherwise.
std::string ColumnOf(const pg_query::Node& n) {
  if (!n.has_column_ref() || n.column_ref().fields_size() != 1) return {};
  return StringOf(n.column_ref().fields(0));
}

constexpr const char* kInvalidObjectDefinition = "42P17";

constexpr const char* kKeys =
    "partition keys that are not a column or date_trunc('year' | 'month' | 'day' | 'hour', "
    "column)";

}  // namespace

Status TransformPartitionBy(const pg_query::PartitionSpec& spec,
                            PartitionedCreateTableStatement* out) {
  out->strategy = Lower(spec.strategy());
  out->partition_location = spec.location();
  if (out->strategy == "hash") {
    return UnsupportedAt(spec.location(),
                         "PARTITION BY HASH (tables are partitioned by LIST or RANGE)");
  }
  if (out->strategy != "list" && out->strategy != "range") {
    return UnsupportedAt(spec.location(), "PARTITION BY " + spec.strategy());
  }
  if (out->strategy == "list" && spec.part_params_size() != 1) {
    // PostgreSQL's error for LIST over several columns.
    return Status::Invalid("cannot use \"list\" partition strategy with more than one column")
        .WithSqlState(kInvalidObjectDefinition)
        .WithPosition(spec.location());
  }
  for (const auto& p : spec.part_params()) {
    const auto& e = p.partition_elem();
    const int at = e.location();
    if (e.collation_size() > 0) return UnsupportedAt(at, "COLLATE in a partition key");
    if (e.opclass_size() > 0) return UnsupportedAt(at, "operator classes in a partition key");
    PartitionKey key;
    key.location = at;
    if (!e.name().empty()) {
      key.column = e.name();
      key.transform = "identity";
    } else if (e.expr().has_func_call()) {
      const auto& f = e.expr().func_call();
      std::string name = f.funcname_size() > 0 ? StringOf(f.funcname(f.funcname_size() - 1)) : "";
      if (f.funcname_size() == 2 && StringOf(f.funcname(0)) != "pg_catalog") name.clear();
      if (name != "date_trunc" || f.args_size() != 2 || f.agg_star() || f.agg_distinct() ||
          f.func_variadic() || f.agg_order_size() > 0 || f.has_agg_filter() || f.has_over()) {
        return UnsupportedAt(at, kKeys);
      }
      const auto& unit = f.args(0);
      if (!unit.has_a_const() || !unit.a_const().has_sval()) return UnsupportedAt(at, kKeys);
      key.transform = Lower(unit.a_const().sval().sval());
      if (key.transform != "year" && key.transform != "month" && key.transform != "day" &&
          key.transform != "hour") {
        return UnsupportedAt(at, "partitioning by date_trunc('" + unit.a_const().sval().sval() +
                                     "', ...) (year, month, day and hour are supported)");
      }
      key.column = ColumnOf(f.args(1));
      if (key.column.empty()) return UnsupportedAt(at, kKeys);
    } else {
      key.column = ColumnOf(e.expr());  // PARTITION BY LIST ((c))
      if (key.column.empty()) return UnsupportedAt(at, kKeys);
      key.transform = "identity";
    }
    for (const PartitionKey& k : out->keys) {
      if (k.column == key.column && k.transform == key.transform) {
        // PostgreSQL accepts the repeated key; an Iceberg spec holds each
        // transform of a column once.
        return UnsupportedAt(at, "a partition key repeated (" + key.column + ")");
      }
    }
    out->keys.push_back(std::move(key));
  }
  return Status::OK();
}

}  // namespace quiver::sql::internal
