#include "engine/table_definition.h"

#include <set>

#include "catalog/catalog.h"
#include "catalog/table_constraints.h"
#include "functions/function.h"
#include "functions/kernel_util.h"
#include "vector/json_type.h"
#include "vector/sql_type.h"

namespace quiver {

namespace {

// The distinct columns an expression names, in order of appearance.
void CollectColumns(const sql::ParsedExpr& e, std::vector<std::string>* out) {
  if (e.kind == sql::ExprKind::kColumnRef && !e.names.empty()) {
    const std::string& n = e.names.back();
    if (std::find(out->begin(), out->end(), n) == out->end()) out->push_back(n);
  }
  for (const auto& c : e.children) {
    if (c != nullptr) CollectColumns(*c, out);
  }
}

// PostgreSQL's ChooseConstraintName: table_label_suffix, with a number
// appended until the name is unused.
std::string ChooseName(const std::string& table, const std::string& label,
                       const std::string& suffix, std::set<std::string>* used) {
  const std::string stem = table + (label.empty() ? "" : "_" + label) + "_" + suffix;
  std::string name = stem;
  for (int i = 1; used->count(name); ++i) name = stem + std::to_string(i);
  used->insert(name);
  return name;
}

// SQLSTATE sequence_generator_limit_exceeded.
constexpr const char* kSequenceLimitState = "2200H";

// The sequence of a serial / identity column of integer type `type`, as
// CREATE TABLE declares it (START WITH in the sequence's range).
Result<std::shared_ptr<ColumnSequence>> MakeSequence(const std::string& table, const sql::ColumnDefinition& c,
                                                     const TypeRef& type) {
  const int at = c.identity_location >= 0 ? c.identity_location : c.location;
  auto made = MakeColumnSequence(table + "_" + c.name + "_seq", type,
                                 c.identity == sql::ColumnDefinition::Identity::kAlways,
                                 c.identity_increment, c.identity_start);
  if (!made.ok()) return made.status().WithPosition(at);
  std::shared_ptr<ColumnSequence> seq = std::move(made).ValueOrDie();
  if (c.identity_start < seq->min || c.identity_start > seq->max) {
    return Status::Invalid("START value ({}) cannot be {} than {}VALUE ({})", c.identity_start,
                           c.identity_start < seq->min ? "less" : "greater",
                           c.identity_start < seq->min ? "MIN" : "MAX",
                           c.identity_start < seq->min ? seq->min : seq->max)
        .WithSqlState(sqlstate::kInvalidParameterValue)
        .WithPosition(c.identity_location);
  }
  return seq;
}

// The declared length of a column of type `t`: varchar(n), char(n) (the
// parser gives char without a length as bpchar(1), as PostgreSQL's).
CharLength LengthOf(const sql::TypeName& t) {
  if (t.modifiers.empty()) return {};
  const std::string& n = t.name;
  if (n == "varchar" || n == "character varying") return {t.modifiers[0], false};
  if (n == "bpchar" || n == "char" || n == "character") return {t.modifiers[0], true};
  return {};
}

int FindColumn(const Schema& schema, const std::string& name) {
  for (int f = 0; f < schema.num_fields(); ++f) {
    if (schema.field(f)->name == name) return f;
  }
  return -1;
}

}  // namespace

Result<std::shared_ptr<ColumnSequence>> MakeColumnSequence(const std::string& name, const TypeRef& type,
                                                           bool always, int64_t increment, int64_t next) {
  auto seq = std::make_shared<ColumnSequence>();
  switch (type->id) {
    case TypeId::kInt16:
      seq->min = INT16_MIN, seq->max = INT16_MAX;
      break;
    case TypeId::kInt32:
      seq->min = INT32_MIN, seq->max = INT32_MAX;
      break;
    case TypeId::kInt64:
      seq->min = INT64_MIN, seq->max = INT64_MAX;
      break;
    default:
      return Status::Invalid("identity column type must be smallint, integer, or bigint")
          .WithSqlState(sqlstate::kInvalidParameterValue);
  }
  if (increment == 0) {
    return Status::Invalid("INCREMENT must not be zero").WithSqlState(sqlstate::kInvalidParameterValue);
  }
  if (increment > 0) {
    seq->min = 1;  // PostgreSQL's default MINVALUE of an ascending sequence
  } else {
    seq->max = -1;
  }
  seq->name = name;
  seq->always = always;
  seq->increment = increment;
  seq->next = next;
  ScalarFunction f;
  f.name = "nextval";
  f.return_type = type;
  f.strict = false;
  f.is_volatile = true;
  ColumnSequence* s = seq.get();
  f.kernel = [s](KernelContext& ctx, const std::vector<VectorRef>&, int64_t n,
                 const TypeRef& out_type) -> Result<ArrayRef> {
    // One block of n values; the sequence moves past it even when a value
    // overflows (as PostgreSQL's does not, but the statement fails either way).
    __int128 first = s->next.fetch_add(static_cast<int64_t>(n) * s->increment);
    const __int128 last = first + static_cast<__int128>(n - 1) * s->increment;
    if (n > 0 && (last > s->max || last < s->min || first > s->max || first < s->min)) {
      return Status::Invalid("nextval: reached {} value of sequence \"{}\" ({})",
                             s->increment > 0 ? "maximum" : "minimum", s->name,
                             s->increment > 0 ? s->max : s->min)
          .WithSqlState(kSequenceLimitState);
    }
    QUIVER_ASSIGN_OR_RAISE(auto out, kernels::MakeFixedOutput(out_type, {}, n, ctx.pool));
    for (int64_t i = 0; i < n; ++i, first += s->increment) {
      const auto v = static_cast<int64_t>(first);
      switch (out_type->id) {
        case TypeId::kInt16:
          out.data<int16_t>()[i] = static_cast<int16_t>(v);
          break;
        case TypeId::kInt32:
          out.data<int32_t>()[i] = static_cast<int32_t>(v);
          break;
        default:
          out.data<int64_t>()[i] = v;
      }
    }
    return kernels::FinishFixed(out_type, n, std::move(out));
  };
  seq->nextval = std::make_shared<const ScalarFunction>(std::move(f));
  return seq;
}

Result<std::shared_ptr<MemoryTable>> MakeTableFromDefinition(const sql::CreateTableStatement& s) {
  std::vector<FieldRef> fields;
  auto constraints = std::make_shared<TableConstraints>();
  for (const auto& c : s.columns) {
    for (const auto& f : fields) {
      if (f->name == c.name) {
        return Status::Invalid("column \"{}\" specified more than once", c.name)
            .WithSqlState(sqlstate::kDuplicateColumn)
            .WithPosition(c.location);
      }
    }
    auto t = TypeFromSqlName(c.type.name, c.type.modifiers);
    if (!t.ok()) return t.status().WithPosition(c.type.location >= 0 ? c.type.location : c.location);
    TypeRef type = *t;
    if (type->id == TypeId::kDecimal128 && c.type.modifiers.empty())
      type = decimal128(kMaxDecimalPrecision, 6);
    const CharLength length = LengthOf(c.type);
    if (c.type.is_array) {
      // T[] (T[][] is the same type in PostgreSQL): list<item: T>.
      if (length.n > 0) {
        // The elements' length would go unchecked.
        return Status::Unsupported("array columns of {}({})",
                                   length.blank_padded ? "character" : "character varying", length.n)
            .WithSqlState(sqlstate::kFeatureNotSupported)
            .WithHint("Declare the column text[] or varchar[].")
            .WithPosition(c.location);
      }
      if (IsJsonOrJsonb(*type)) {
        return Status::Unsupported("array columns of {}", PgTypeName(*type))
            .WithSqlState(sqlstate::kFeatureNotSupported)
            .WithPosition(c.location);
      }
      type = ArrayOf(type);
    }
    fields.push_back(field(c.name, type, !c.not_null));
    constraints->defaults.push_back(c.default_value);
    constraints->default_sql.push_back(c.default_text);
    constraints->lengths.push_back(length);
    std::shared_ptr<ColumnSequence> seq;
    if (c.identity != sql::ColumnDefinition::Identity::kNone) {
      if (c.type.is_array) {
        return Status::Invalid("identity column type must be smallint, integer, or bigint")
            .WithSqlState(sqlstate::kInvalidParameterValue)
            .WithPosition(c.location);
      }
      QUIVER_ASSIGN_OR_RAISE(seq, MakeSequence(s.name, c, type));
    }
    constraints->sequences.push_back(std::move(seq));
  }
  SchemaRef table_schema = schema(std::move(fields));
  std::set<std::string> used;
  for (const auto& d : s.constraints) {
    if (!d.name.empty()) {
      if (used.count(d.name)) {
        return Status::Invalid("constraint \"{}\" for relation \"{}\" already exists", d.name,
                               s.name)
            .WithSqlState(sqlstate::kDuplicateObject)
            .WithPosition(d.location);
      }
      used.insert(d.name);
    }
  }
  bool has_primary = false;
  // PostgreSQL names the key constraints before the checks.
  for (const auto& d : s.constraints) {
    if (d.kind == sql::ConstraintDefinition::kCheck) continue;
    UniqueConstraint u;
    u.primary = d.kind == sql::ConstraintDefinition::kPrimaryKey;
    if (u.primary) {
      if (has_primary) {
        return Status::Invalid("multiple primary keys for table \"{}\" are not allowed", s.name)
            .WithSqlState(sqlstate::kInvalidTableDefinition)
            .WithPosition(d.location);
      }
      has_primary = true;
    }
    std::string label;
    for (const auto& name : d.columns) {
      const int idx = FindColumn(*table_schema, name);
      if (idx < 0) {
        return Status::KeyError("column \"{}\" named in key does not exist", name)
            .WithSqlState(sqlstate::kUndefinedColumn)
            .WithPosition(d.location);
      }
      if (std::find(u.columns.begin(), u.columns.end(), idx) != u.columns.end()) {
        return Status::Invalid("column \"{}\" appears twice in {} constraint", name,
                               u.primary ? "primary key" : "unique")
            .WithSqlState(sqlstate::kDuplicateColumn)
            .WithPosition(d.location);
      }
      u.columns.push_back(idx);
      label += (label.empty() ? "" : "_") + name;
    }
    u.name = !d.name.empty() ? d.name
                             : u.primary ? ChooseName(s.name, "", "pkey", &used)
                                         : ChooseName(s.name, label, "key", &used);
    // A key equal to an earlier one adds nothing (PostgreSQL merges them).
    bool duplicate = false;
    for (const auto& other : constraints->unique) duplicate |= other.columns == u.columns;
    if (duplicate && !u.primary) continue;
    constraints->unique.push_back(std::move(u));
  }
  for (const auto& d : s.constraints) {
    if (d.kind != sql::ConstraintDefinition::kCheck) continue;
    CheckConstraint c;
    c.expr = d.check;
    c.sql = d.check_text;
    if (!d.name.empty()) {
      c.name = d.name;
    } else {
      std::vector<std::string> cols;
      CollectColumns(*d.check, &cols);
      c.name = ChooseName(s.name, cols.size() == 1 ? cols[0] : "", "check", &used);
    }
    constraints->checks.push_back(std::move(c));
  }
  // Primary keys first, as their index is PostgreSQL's first.
  std::stable_partition(constraints->unique.begin(), constraints->unique.end(),
                        [](const UniqueConstraint& u) { return u.primary; });
  const bool any = !constraints->unique.empty() || !constraints->checks.empty() ||
                   constraints->HasDefaults() || constraints->HasLengths();
  return std::make_shared<MemoryTable>(s.name, std::move(table_schema),
                                       any ? std::move(constraints) : nullptr);
}

Result<std::shared_ptr<MemoryTable>> AlterTableDefinition(const MemoryTable& table,
                                                          const sql::AlterTableStatement& s,
                                                          std::vector<int>* moved) {
  const SchemaRef old = table.schema();
  auto constraints = std::make_shared<TableConstraints>();
  if (table.constraints() != nullptr) *constraints = *table.constraints();
  constraints->defaults.resize(static_cast<size_t>(old->num_fields()));
  constraints->default_sql.resize(static_cast<size_t>(old->num_fields()));
  constraints->sequences.resize(static_cast<size_t>(old->num_fields()));
  constraints->lengths.resize(static_cast<size_t>(old->num_fields()));
  std::vector<FieldRef> fields = old->fields;
  moved->clear();
  for (int c = 0; c < old->num_fields(); ++c) moved->push_back(c);
  std::string name = table.name();
  auto column_missing = [&](const std::string& column) {
    return Status::KeyError("column \"{}\" of relation \"{}\" does not exist", column, table.name())
        .WithSqlState(sqlstate::kUndefinedColumn);
  };
  auto column_exists = [&](const std::string& column) {
    return Status::Invalid("column \"{}\" of relation \"{}\" already exists", column, table.name())
        .WithSqlState(sqlstate::kDuplicateColumn);
  };
  auto reads = [](const CheckConstraint& check, const std::string& column) {
    std::vector<std::string> cols;
    CollectColumns(*check.expr, &cols);
    return std::find(cols.begin(), cols.end(), column) != cols.end();
  };
  switch (s.action) {
    case sql::AlterTableStatement::kRenameTable:
      name = s.new_name;
      break;
    case sql::AlterTableStatement::kRenameColumn: {
      const int idx = FindColumn(*old, s.name);
      if (idx < 0) {
        return Status::KeyError("column \"{}\" does not exist", s.name)
            .WithSqlState(sqlstate::kUndefinedColumn);
      }
      if (FindColumn(*old, s.new_name) >= 0) return column_exists(s.new_name);
      for (const auto& check : constraints->checks) {
        if (reads(check, s.name)) {
          return Status::Unsupported(
                     "RENAME COLUMN of column \"{}\", which check constraint \"{}\" reads",
                     s.name, check.name)
              .WithSqlState(sqlstate::kFeatureNotSupported);
        }
      }
      const Field& f = *fields[static_cast<size_t>(idx)];
      fields[static_cast<size_t>(idx)] = field(s.new_name, f.type, f.nullable);
      break;
    }
    case sql::AlterTableStatement::kDropColumn: {
      const int idx = FindColumn(*old, s.name);
      if (idx < 0) {
        if (s.column_if_exists) return std::shared_ptr<MemoryTable>();
        return column_missing(s.name);
      }
      if (old->num_fields() == 1) {
        return Status::Unsupported("dropping the only column of a table")
            .WithSqlState(sqlstate::kFeatureNotSupported);
      }
      fields.erase(fields.begin() + idx);
      moved->erase(moved->begin() + idx);
      constraints->defaults.erase(constraints->defaults.begin() + idx);
      constraints->default_sql.erase(constraints->default_sql.begin() + idx);
      constraints->sequences.erase(constraints->sequences.begin() + idx);
      constraints->lengths.erase(constraints->lengths.begin() + idx);
      std::vector<UniqueConstraint> unique;
      for (UniqueConstraint u : constraints->unique) {
        if (std::find(u.columns.begin(), u.columns.end(), idx) != u.columns.end()) continue;
        for (int& c : u.columns) c -= c > idx;
        unique.push_back(std::move(u));
      }
      constraints->unique = std::move(unique);
      std::vector<CheckConstraint> checks;
      for (const auto& check : constraints->checks) {
        if (!reads(check, s.name)) checks.push_back(check);
      }
      constraints->checks = std::move(checks);
      break;
    }
    case sql::AlterTableStatement::kAddColumn: {
      if (FindColumn(*old, s.column.name) >= 0) {
        if (s.column_if_exists) return std::shared_ptr<MemoryTable>();
        return column_exists(s.column.name);
      }
      if (s.column.identity != sql::ColumnDefinition::Identity::kNone) {
        return Status::Unsupported("ADD COLUMN of a serial or identity column")
            .WithSqlState(sqlstate::kFeatureNotSupported);
      }
      // The column's type and nullability as CREATE TABLE makes them.
      sql::CreateTableStatement one;
      one.name = table.name();
      one.columns.push_back(s.column);
      QUIVER_ASSIGN_OR_RAISE(auto made, MakeTableFromDefinition(one));
      fields.push_back(made->schema()->field(0));
      moved->push_back(-1);
      constraints->defaults.push_back(s.column.default_value);
      constraints->default_sql.push_back(s.column.default_text);
      constraints->sequences.push_back(nullptr);
      constraints->lengths.push_back(made->constraints() != nullptr ? made->constraints()->LengthOf(0)
                                                                    : CharLength{});
      break;
    }
  }
  const bool any = !constraints->unique.empty() || !constraints->checks.empty() ||
                   constraints->HasDefaults() || constraints->HasLengths();
  return std::make_shared<MemoryTable>(name, schema(std::move(fields)),
                                       any ? std::move(constraints) : nullptr);
}

Result<TablePartitioning> PartitioningOf(const sql::PartitionedCreateTableStatement& s,
                                         const Schema& schema) {
  TablePartitioning out;
  for (const sql::PartitionKey& k : s.keys) {
    const int c = schema.GetFieldIndex(k.column);
    if (c < 0) {
      return Status::Invalid("column \"{}\" named in partition key does not exist", k.column)
          .WithSqlState(sqlstate::kUndefinedColumn)
          .WithPosition(k.location);
    }
    const DataType& t = *schema.field(c)->type;
    const bool timestamp = t.id == TypeId::kTimestamp;
    if (k.transform != "identity" && !timestamp && t.id != TypeId::kDate32) {
      // PostgreSQL's error: there is no date_trunc over that type.
      return Status::Invalid("function date_trunc(unknown, {}) does not exist", PgTypeName(t))
          .WithSqlState(sqlstate::kUndefinedFunction)
          .WithHint("date_trunc partitions date, timestamp and timestamptz columns.")
          .WithPosition(k.location);
    }
    if (k.transform == "hour" && !timestamp) {
      return Status::Unsupported("partitioning a date column by date_trunc('hour', ...)")
          .WithSqlState(sqlstate::kFeatureNotSupported)
          .WithHint("Partition it by day, or partition a timestamp column by hour.")
          .WithPosition(k.location);
    }
    out.push_back({c, k.transform});
  }
  return out;
}

}  // namespace quiver
