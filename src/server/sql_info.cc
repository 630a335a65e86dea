// GetSqlInfo: what the server and its SQL dialect support, stated as the
// engine actually behaves (PostgreSQL 15 grammar, no catalogs, one schema,
// statement-level atomicity instead of multi-statement transactions).
#include <memory>
#include <variant>

#include "columnar/builder.h"
#include "server/metadata.h"

namespace quiver::server {
namespace {

namespace S = sqlpb;

using StringList = std::vector<std::string>;
struct Bitmask {
  int32_t bits;
};
using InfoValue = std::variant<std::string, bool, int64_t, Bitmask, StringList>;

// Union type codes, in the order of SqlInfoSchema's children.
enum : int8_t { kString = 0, kBool = 1, kBigint = 2, kBitmask = 3, kStringList = 4, kIntMap = 5 };

constexpr int32_t Bit(int n) { return int32_t{1} << n; }

std::vector<std::pair<uint32_t, InfoValue>> AllInfo(const SqlInfoContext& ctx) {
  using V = InfoValue;
  return {
      {S::FLIGHT_SQL_SERVER_NAME, V(std::string("Quiver"))},
      {S::FLIGHT_SQL_SERVER_VERSION, V(ctx.version)},
      {S::FLIGHT_SQL_SERVER_ARROW_VERSION, V(std::string("1.4.0"))},
      {S::FLIGHT_SQL_SERVER_READ_ONLY, V(ctx.read_only)},
      {S::FLIGHT_SQL_SERVER_SQL, V(true)},
      {S::FLIGHT_SQL_SERVER_SUBSTRAIT, V(false)},
      // Begin/EndTransaction are accepted (ADBC's DB-API opens one on
      // connect): every statement commits on its own, commit is a no-op and
      // rollback is refused. SQL_TRANSACTIONS_SUPPORTED says so.
      {S::FLIGHT_SQL_SERVER_TRANSACTION, V(Bitmask{S::SQL_SUPPORTED_TRANSACTION_TRANSACTION})},
      {S::FLIGHT_SQL_SERVER_CANCEL, V(true)},
      {S::FLIGHT_SQL_SERVER_BULK_INGESTION, V(true)},
      {S::FLIGHT_SQL_SERVER_INGEST_TRANSACTIONS_SUPPORTED, V(false)},
      // Prepared statement handles expire after an hour unused.
      {S::FLIGHT_SQL_SERVER_STATEMENT_TIMEOUT, V(Bitmask{3600 * 1000})},
      {S::FLIGHT_SQL_SERVER_TRANSACTION_TIMEOUT, V(Bitmask{0})},
      {S::SQL_DDL_CATALOG, V(false)},
      {S::SQL_DDL_SCHEMA, V(false)},
      {S::SQL_DDL_TABLE, V(true)},
      // Unquoted names fold to lower case, as in PostgreSQL; lookups then
      // fall back to a case-insensitive match.
      {S::SQL_IDENTIFIER_CASE, V(Bitmask{S::SQL_CASE_SENSITIVITY_LOWERCASE})},
      {S::SQL_IDENTIFIER_QUOTE_CHAR, V(std::string("\""))},
      {S::SQL_QUOTED_IDENTIFIER_CASE, V(Bitmask{S::SQL_CASE_SENSITIVITY_CASE_INSENSITIVE})},
      {S::SQL_ALL_TABLES_ARE_SELECTABLE, V(true)},
      {S::SQL_NULL_ORDERING, V(Bitmask{S::SQL_NULLS_SORTED_HIGH})},
      {S::SQL_SEARCH_STRING_ESCAPE, V(std::string("\\"))},
      {S::SQL_EXTRA_NAME_CHARACTERS, V(std::string(""))},
      {S::SQL_SUPPORTS_COLUMN_ALIASING, V(true)},
      {S::SQL_NULL_PLUS_NULL_IS_NULL, V(true)},
      {S::SQL_SUPPORTS_TABLE_CORRELATION_NAMES, V(true)},
      {S::SQL_SUPPORTS_DIFFERENT_TABLE_CORRELATION_NAMES, V(false)},
      {S::SQL_SUPPORTS_EXPRESSIONS_IN_ORDER_BY, V(true)},
      {S::SQL_SUPPORTS_ORDER_BY_UNRELATED, V(true)},
      {S::SQL_SUPPORTED_GROUP_BY,
       V(Bitmask{Bit(S::SQL_GROUP_BY_UNRELATED) | Bit(S::SQL_GROUP_BY_BEYOND_SELECT)})},
      {S::SQL_SUPPORTS_LIKE_ESCAPE_CLAUSE, V(false)},
      {S::SQL_SUPPORTS_NON_NULLABLE_COLUMNS, V(true)},
      {S::SQL_SUPPORTED_GRAMMAR,
       V(Bitmask{Bit(S::SQL_MINIMUM_GRAMMAR) | Bit(S::SQL_CORE_GRAMMAR)})},
      {S::SQL_ANSI92_SUPPORTED_LEVEL, V(Bitmask{Bit(S::ANSI92_ENTRY_SQL)})},
      {S::SQL_SUPPORTS_INTEGRITY_ENHANCEMENT_FACILITY, V(false)},
      {S::SQL_OUTER_JOINS_SUPPORT_LEVEL, V(Bitmask{S::SQL_FULL_OUTER_JOINS})},
      {S::SQL_SCHEMA_TERM, V(std::string("schema"))},
      {S::SQL_PROCEDURE_TERM, V(std::string("procedure"))},
      {S::SQL_CATALOG_TERM, V(std::string("catalog"))},
      {S::SQL_CATALOG_AT_START, V(false)},
      {S::SQL_SCHEMAS_SUPPORTED_ACTIONS, V(Bitmask{0})},
      {S::SQL_CATALOGS_SUPPORTED_ACTIONS, V(Bitmask{0})},
      {S::SQL_SUPPORTED_POSITIONED_COMMANDS, V(Bitmask{0})},
      {S::SQL_SELECT_FOR_UPDATE_SUPPORTED, V(false)},
      {S::SQL_STORED_PROCEDURES_SUPPORTED, V(false)},
      {S::SQL_SUPPORTED_SUBQUERIES,
       V(Bitmask{Bit(S::SQL_SUBQUERIES_IN_COMPARISONS) | Bit(S::SQL_SUBQUERIES_IN_EXISTS) |
                 Bit(S::SQL_SUBQUERIES_IN_INS) | Bit(S::SQL_SUBQUERIES_IN_QUANTIFIEDS)})},
      {S::SQL_CORRELATED_SUBQUERIES_SUPPORTED, V(true)},
      {S::SQL_SUPPORTED_UNIONS, V(Bitmask{Bit(S::SQL_UNION) | Bit(S::SQL_UNION_ALL)})},
      // 0: no limit; identifiers are cut at 63 bytes, as in PostgreSQL.
      {S::SQL_MAX_BINARY_LITERAL_LENGTH, V(int64_t{0})},
      {S::SQL_MAX_CHAR_LITERAL_LENGTH, V(int64_t{0})},
      {S::SQL_MAX_COLUMN_NAME_LENGTH, V(int64_t{63})},
      {S::SQL_MAX_COLUMNS_IN_GROUP_BY, V(int64_t{0})},
      {S::SQL_MAX_COLUMNS_IN_INDEX, V(int64_t{0})},
      {S::SQL_MAX_COLUMNS_IN_ORDER_BY, V(int64_t{0})},
      {S::SQL_MAX_COLUMNS_IN_SELECT, V(int64_t{0})},
      {S::SQL_MAX_COLUMNS_IN_TABLE, V(int64_t{0})},
      {S::SQL_MAX_CONNECTIONS, V(ctx.max_connections)},
      {S::SQL_MAX_CURSOR_NAME_LENGTH, V(int64_t{0})},
      {S::SQL_MAX_INDEX_LENGTH, V(int64_t{0})},
      {S::SQL_DB_SCHEMA_NAME_LENGTH, V(int64_t{63})},
      {S::SQL_MAX_PROCEDURE_NAME_LENGTH, V(int64_t{0})},
      {S::SQL_MAX_CATALOG_NAME_LENGTH, V(int64_t{0})},
      {S::SQL_MAX_ROW_SIZE, V(int64_t{0})},
      {S::SQL_MAX_ROW_SIZE_INCLUDES_BLOBS, V(true)},
      {S::SQL_MAX_STATEMENT_LENGTH, V(int64_t{0})},
      {S::SQL_MAX_STATEMENTS, V(int64_t{0})},
      {S::SQL_MAX_TABLE_NAME_LENGTH, V(int64_t{63})},
      {S::SQL_MAX_TABLES_IN_SELECT, V(int64_t{0})},
      {S::SQL_MAX_USERNAME_LENGTH, V(int64_t{128})},
      {S::SQL_DEFAULT_TRANSACTION_ISOLATION, V(Bitmask{S::SQL_TRANSACTION_NONE})},
      {S::SQL_TRANSACTIONS_SUPPORTED, V(false)},
      {S::SQL_SUPPORTED_TRANSACTIONS_ISOLATION_LEVELS, V(Bitmask{Bit(S::SQL_TRANSACTION_NONE)})},
      {S::SQL_DATA_DEFINITION_CAUSES_TRANSACTION_COMMIT, V(false)},
      {S::SQL_DATA_DEFINITIONS_IN_TRANSACTIONS_IGNORED, V(false)},
      {S::SQL_SUPPORTED_RESULT_SET_TYPES, V(Bitmask{Bit(S::SQL_RESULT_SET_TYPE_FORWARD_ONLY)})},
      {S::SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_UNSPECIFIED, V(Bitmask{0})},
      {S::SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_FORWARD_ONLY,
       V(Bitmask{Bit(S::SQL_RESULT_SET_CONCURRENCY_READ_ONLY)})},
      {S::SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_SCROLL_SENSITIVE, V(Bitmask{0})},
      {S::SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_SCROLL_INSENSITIVE, V(Bitmask{0})},
      {S::SQL_BATCH_UPDATES_SUPPORTED, V(false)},
      {S::SQL_SAVEPOINTS_SUPPORTED, V(false)},
      {S::SQL_NAMED_PARAMETERS_SUPPORTED, V(false)},
      {S::SQL_LOCATORS_UPDATE_COPY, V(false)},
      {S::SQL_STORED_FUNCTIONS_USING_CALL_SYNTAX_SUPPORTED, V(false)},
  };
}

TypeRef ValueType() {
  return dense_union({field("string_value", utf8(), false), field("bool_value", boolean(), false),
                      field("bigint_value", int64(), false), field("int32_bitmask", int32(), false),
                      field("string_list", list(utf8()), false),
                      field("int32_to_int32_list_map", map(int32(), list(int32())), false)},
                     {kString, kBool, kBigint, kBitmask, kStringList, kIntMap});
}

}  // namespace

SchemaRef SqlInfoSchema() {
  return schema({field("info_name", uint32(), false), field("value", ValueType(), false)});
}

Result<RecordBatchRef> SqlInfoBatch(const std::vector<uint32_t>& ids, const SqlInfoContext& ctx) {
  const auto all = AllInfo(ctx);
  std::vector<const std::pair<uint32_t, InfoValue>*> chosen;
  if (ids.empty()) {
    for (const auto& e : all) chosen.push_back(&e);
  } else {
    for (uint32_t id : ids) {
      for (const auto& e : all) {
        if (e.first == id) chosen.push_back(&e);
      }
    }
  }
  const TypeRef value_type = ValueType();
  UInt32Builder names(uint32());
  Int8Builder type_ids(int8());
  Int32Builder offsets(int32());
  StringBuilder strings(utf8());
  BooleanBuilder bools;
  Int64Builder bigints(int64());
  Int32Builder bitmasks(int32());
  ListBuilder lists(value_type->children[kStringList]->type,
                    std::make_unique<StringBuilder>(utf8()));
  int32_t counts[6] = {};
  for (const auto* e : chosen) {
    QUIVER_RETURN_NOT_OK(names.Append(e->first));
    const InfoValue& v = e->second;
    int8_t code;
    if (const auto* s = std::get_if<std::string>(&v)) {
      code = kString;
      QUIVER_RETURN_NOT_OK(strings.Append(*s));
    } else if (const auto* b = std::get_if<bool>(&v)) {
      code = kBool;
      QUIVER_RETURN_NOT_OK(bools.Append(*b));
    } else if (const auto* i = std::get_if<int64_t>(&v)) {
      code = kBigint;
      QUIVER_RETURN_NOT_OK(bigints.Append(*i));
    } else if (const auto* m = std::get_if<Bitmask>(&v)) {
      code = kBitmask;
      QUIVER_RETURN_NOT_OK(bitmasks.Append(m->bits));
    } else {
      code = kStringList;
      QUIVER_RETURN_NOT_OK(lists.Append());
      auto* items = static_cast<StringBuilder*>(lists.value_builder());
      for (const auto& s : std::get<StringList>(v)) QUIVER_RETURN_NOT_OK(items->Append(s));
    }
    QUIVER_RETURN_NOT_OK(type_ids.Append(code));
    QUIVER_RETURN_NOT_OK(offsets.Append(counts[code]++));
  }
  QUIVER_ASSIGN_OR_RAISE(auto map_builder, MakeBuilder(value_type->children[kIntMap]->type));
  std::vector<ArrayRef> children(6);
  QUIVER_ASSIGN_OR_RAISE(children[kString], strings.Finish());
  QUIVER_ASSIGN_OR_RAISE(children[kBool], bools.Finish());
  QUIVER_ASSIGN_OR_RAISE(children[kBigint], bigints.Finish());
  QUIVER_ASSIGN_OR_RAISE(children[kBitmask], bitmasks.Finish());
  QUIVER_ASSIGN_OR_RAISE(children[kStringList], lists.Finish());
  QUIVER_ASSIGN_OR_RAISE(children[kIntMap], map_builder->Finish());
  QUIVER_ASSIGN_OR_RAISE(ArrayRef ids_array, type_ids.Finish());
  QUIVER_ASSIGN_OR_RAISE(ArrayRef offsets_array, offsets.Finish());
  QUIVER_ASSIGN_OR_RAISE(ArrayRef names_array, names.Finish());
  const int64_t n = names_array->length;
  ArrayRef values = ArrayData::Make(
      value_type, n, {ids_array->buffers[1], offsets_array->buffers[1]}, 0, 0, std::move(children));
  QUIVER_RETURN_NOT_OK(values->Validate(true));
  return RecordBatch::Make(SqlInfoSchema(), n, {names_array, values});
}

}  // namespace quiver::server
