// Human-readable rendering of single values and of whole tables.
//
// FormatValue renders one slot of any Arrow type the way a SQL shell shows it:
//
//   null slot                 NULL
//   bool                      true / false
//   integers, decimals        -12, 3.1400 (decimals keep their scale)
//   floats, half floats       shortest round-trip form, whole numbers keep a ".0":
//                             0.1, 3.0, 1e+20, nan, -inf
//   utf8 (top level)          the text, control characters escaped (\n, \t, \x01)
//   utf8 (inside nested)      'quoted text'
//   binary                    printable ASCII as is, other bytes as \xNN
//   date32/date64             2024-03-01
//   time32/time64             13:45:07.25 (PostgreSQL's text: a fraction only when
//                             non-zero, trailing zeros trimmed)
//   timestamp                 2024-03-01 13:45:07.25 (as PostgreSQL prints it). Zoned:
//                             UTC zones end in "+00"; other zones show local time and
//                             offset, 2024-03-01 14:45:07.25+01 (tz=Europe/Paris or
//                             tz=+01:00), +05:30 for partial hours; zones missing
//                             from the system's zoneinfo fall back to UTC + "+00"
//                             (common/time_zone.h).
//   duration, intervals       1 year 2 mons 3 days 00:00:01.5, -1 days +02:00:00
//                             (PostgreSQL's interval style, common/datetime_text.h)
//   list / fixed_size_list    [1, 2, NULL]
//   struct                    {a: 1, b: 'x'}
//   map                       {'k': 1, 'j': 2}
//   dictionary                the dictionary value the index points at
//   union                     the value of the selected child
//   (a corrupt index/offset renders as "<... out of range>", never a crash)
//   run_end_encoded           the value of the run covering the slot
//
// FormatTable renders record batches as a box-drawn table (like DuckDB's
// shell): column names and types in the header, numbers right-aligned, long
// cells truncated with "…", and a footer "N rows (showing M)" ("N rows" when
// all are shown). Tables wider than max_total_width lose middle columns to a
// "…" column and the footer adds ", K columns (showing J)".
//
// Thread-safety: stateless functions, safe to call from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "columnar/array.h"
#include "columnar/type.h"

namespace quiver {

struct ValueFormatOptions {
  // Lists/maps longer than this show their first elements and then "…".
  int64_t max_elements = 100;
  // Lists as PostgreSQL's array text, {1,2,NULL}, {"a b",c}, {{1,2},{3}}
  // (elements as at top level, quoted by AppendPgArrayElement), instead of
  // [1, 2, NULL]. quiver sql's printers set it.
  bool pg_arrays = false;
};

// Appends one element of PostgreSQL's array text (array_out): `text` as is,
// or double-quoted with \ before " and \ when it is empty, spells NULL (any
// case), or holds { } " , \ or white space.
void AppendPgArrayElement(std::string_view text, std::string* out);

// Appends one field of PostgreSQL's record text (record_out): `text` as is,
// or double-quoted with " and \ doubled when it is empty or holds
// " \ ( ) , or white space. A NULL field is written as nothing.
void AppendPgRecordField(std::string_view text, std::string* out);

// Renders slot `i` (relative to array.offset) of `array`.
std::string FormatValue(const ArrayData& array, int64_t i, const ValueFormatOptions& options = {});

struct TableFormatOptions {
  // Rows to show; the rest are counted in the footer.
  int64_t max_rows = 20;
  // Cells wider than this (in terminal columns) are cut and end in "…".
  int max_column_width = 40;
  // Total rows for the footer when the batches passed are only a prefix of
  // the data; < 0 means "sum of the batches' rows".
  int64_t total_rows = -1;
  // Show each column's type under its name.
  bool show_types = true;
  // Lists as PostgreSQL's array text (ValueFormatOptions::pg_arrays).
  bool pg_arrays = false;
  // End with the "N rows (showing M)" line.
  bool show_footer = true;
  // Total width in terminal columns (e.g. the terminal's); when the table is
  // wider, middle columns are replaced by one "…" column. 0 = unlimited.
  int64_t max_total_width = 0;
};

std::string FormatTable(const SchemaRef& schema, const std::vector<RecordBatchRef>& batches,
                        const TableFormatOptions& options);
std::string FormatTable(const SchemaRef& schema, const std::vector<RecordBatchRef>& batches,
                        int64_t max_rows);

// Schema as text, one field per line ("name: type[ not null]"), followed by
// field and schema metadata ("  -- key: value") when there is any.
std::string FormatSchema(const Schema& schema);

// Terminal columns taken by UTF-8 text (wide East Asian characters count 2,
// combining marks 0).
int64_t DisplayWidth(std::string_view text);

}  // namespace quiver
