// Foreign tables over files, with PG-Strom arrow_fdw's options (its SQL is in
// sql/ast_foreign.h; the engine turns statements into ForeignTableDef).
//
//   table options   file 'a.arrow' | files 'a.arrow,b.parquet' | dir '/d'
//                   [suffix '.arrow'] [pattern 'f_@{ym}_${cat}.arrow']
//                   [hive_partitioning 'true'] [parallel_workers 'n']
//   column options  field 'name' (the file field it reads), virtual 'KEY'
//                   (the value a pattern capture or a Hive directory
//                   `KEY=value` gives each file), virtual_metadata 'KEY'
//                   (the value of the file's schema custom metadata KEY, or
//                   of field f's metadata k for 'f.k'; NULL when the file
//                   has no such key), virtual_metadata_split 'KEY' (that
//                   value split at commas, one token per record batch or
//                   row group: PG-Strom's min_values / max_values lists)
//
// The files may mix formats (Arrow IPC, Parquet, CSV: detected per file).
// Each declared column must find its field in every file, with the same
// engine type (bare `numeric` takes the files' precision and scale); the
// error names the file, field and both types. The set of files is listed
// again at every scan, so files added to a directory are seen; predicates on
// virtual columns rule files out before they are opened.
//
// A definition is plain data (ForeignTableDef::ToSql gives the statement
// that recreates it), so a persistent catalog can store it as text.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "catalog/scan.h"
#include "formats/file_format.h"

namespace quiver {

struct ForeignColumnDef {
  std::string name;
  std::string type_sql;  // as declared: "integer", "numeric(15,2)", "numeric"
  TypeRef type;          // the engine type (bare numeric: set from the files)
  bool not_null = false;
  std::string field;         // column option `field` ("" = the column's name)
  std::string virtual_key;   // column option `virtual` ("" = a file column)
  std::string metadata_key;  // column option `virtual_metadata[_split]`
  bool metadata_split = false;
  // Not read from a field of the file: a pattern capture or metadata.
  bool is_virtual() const { return !virtual_key.empty() || !metadata_key.empty(); }
};

struct ForeignTableDef {
  std::string name;
  std::vector<ForeignColumnDef> columns;
  std::vector<std::pair<std::string, std::string>> options;  // table options, as written
  // CREATE FOREIGN TABLE name (...) SERVER arrow_fdw OPTIONS (...).
  std::string ToSql() const;
};

// Checks the table options (names and combinations) and column options.
// Errors as PostgreSQL's for an unknown option (invalid option "x").
Status ValidateForeignTableDef(const ForeignTableDef& def);

// The definition IMPORT FOREIGN SCHEMA makes of the files `options` name:
// columns from the first file's fields with the PostgreSQL types arrow_fdw
// chooses (int32 -> integer, utf8 -> text, timestamp -> timestamp without
// time zone, decimal -> numeric(p,s) ...), every other file checked against
// it, then the virtual columns of the pattern's captures (@{k} bigint,
// ${k} text) and of Hive directories (bigint, date or text by their values).
Result<ForeignTableDef> ImportForeignTableDef(
    const std::string& name, const std::vector<std::pair<std::string, std::string>>& options);

// The files the options name, in order (for access checks and \d).
Result<std::vector<std::string>> ForeignTableFiles(
    const std::vector<std::pair<std::string, std::string>>& options);

class ForeignTable final : public TableSource {
 public:
  // Lists and opens the files and checks every column against each.
  static Result<std::shared_ptr<ForeignTable>> Open(ForeignTableDef def);

  const std::string& name() const override { return def_.name; }
  SchemaRef schema() const override { return schema_; }
  int64_t EstimatedRows() const override { return rows_; }
  Result<std::unique_ptr<ScanPlan>> Plan(const ScanRequest& request) const override;
  std::string Describe() const override;
  std::vector<std::string> ExplainLines(const ScanRequest& request,
                                        const ScanPlan* plan) const override;

  const ForeignTableDef& definition() const { return def_; }
  // The files as of the last listing (CREATE or the last scan).
  std::vector<std::string> paths() const;

  struct Impl;

 private:
  ForeignTable() = default;
  ForeignTableDef def_;
  SchemaRef schema_;
  int64_t rows_ = -1;
  std::shared_ptr<Impl> impl_;
};

}  // namespace quiver
