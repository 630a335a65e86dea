// The options of COPY, checked against the file format and turned into the
// reader's and writer's options:
//
//   COPY t FROM 'data.csv' (HEADER false, DELIMITER '|')
//   COPY (SELECT ...) TO 'out.parquet' (FORMAT parquet, COMPRESSION zstd,
//                                       COMPRESSION_LEVEL 3, ROW_GROUP_SIZE 100000)
//
//   option             formats          values
//   FORMAT             all              parquet, arrow (feather, ipc), stream, csv, tsv.
//                                       Default: the file's extension (.parquet, .arrow,
//                                       .arrows, .csv, .tsv); TO writes CSV when it says
//                                       nothing, FROM detects the format from the bytes.
//   COMPRESSION        Parquet (TO)     none, snappy, gzip, zstd (default), lz4, brotli
//                      Arrow (TO)       none (default), lz4, zstd
//   COMPRESSION_LEVEL  Parquet, Arrow   the codec's level: zstd -7..22, gzip 0..9,
//                      (TO)             brotli 0..11, lz4 0..12 (not snappy or none)
//   ROW_GROUP_SIZE     Parquet (TO)     rows per row group (default 1048576)
//   BATCH_ROWS         Arrow (TO)       rows per record batch (default 65536): the query's
//                                       batches are merged or cut to that many rows
//   STATS              Arrow (TO)       'a,b' (or alone: every column): PG-Strom's min/max
//                                       statistics of those columns in each record batch's
//                                       metadata (min_max_stats.<col>), as pg2arrow -S
//   HEADER             CSV              true (default) or false
//   DELIMITER          CSV              one character (default ',', tab for .tsv)
//   QUOTE              CSV              one character (default '"')
//   NULL               CSV              TO: the text written for NULL (default empty);
//                                       FROM: the one text read as NULL, in text
//                                       columns too
//   PARTITION_BY       all (TO)         (a, b) or a: the path names a directory written in
//                                       Hive layout, dir/a=1/b=x/part-0.parquet, one file
//                                       per partition, the partition columns in the
//                                       directory names only (copy_output.h)
//   OVERWRITE_OR_IGNORE with PARTITION_BY  write into a directory that is not empty,
//                                       replacing files of the same names
//   APPEND             with PARTITION_BY  write into a directory that is not empty under
//                                       new file names (part-N with the first free N)
//
// An unknown option, an option given twice, a value out of range or an
// option the format does not take is an error naming it (and the valid
// options), before the query runs or the file is touched.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "formats/file_format.h"
#include "sql/ast.h"

namespace quiver {

struct CopyOptions {
  // TO: never kAuto. FROM: kAuto when neither FORMAT nor the name tells.
  formats::FileFormat format = formats::FileFormat::kAuto;
  formats::CsvOptions read;     // COPY FROM
  formats::WriteOptions write;  // COPY TO
  // STATS: the columns named (empty with `stats`: all), resolved against the
  // query's columns into write.stats_columns once it is bound.
  bool stats = false;
  std::vector<std::string> stats_columns;
  // BATCH_ROWS (Arrow output; 0 = kDefaultArrowBatchRows).
  int64_t batch_rows = 0;
  // PARTITION_BY: the output columns named, in order (empty: one file).
  std::vector<std::string> partition_by;
  // What a partitioned COPY does with a directory that is not empty.
  enum class ExistingFiles { kRefuse, kOverwriteOrIgnore, kAppend };
  ExistingFiles existing = ExistingFiles::kRefuse;
};

// Rows per record batch of COPY's Arrow output unless BATCH_ROWS says. The
// engine's batches are 2,048-row vectors, fewer after a filter; written as
// they come they would make files of tiny batches, slow to read and with
// min/max statistics for every few rows. 64Ki rows keep a batch's columns
// in the hundreds of kilobytes and leave statistics fine enough to skip by.
inline constexpr int64_t kDefaultArrowBatchRows = 65536;

// `path` is the file named by COPY (for the default format); `is_from`
// tells COPY FROM from COPY TO.
Result<CopyOptions> ParseCopyOptions(const std::vector<sql::CopyOption>& options,
                                     const std::string& path, bool is_from);

}  // namespace quiver
