#include "engine/copy_options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>

namespace quiver {
namespace {

using compression::Codec;
using formats::FileFormat;

constexpr int64_t kMaxRows = int64_t{1} << 40;
constexpr const char* kValidOptions =
    "FORMAT, COMPRESSION, COMPRESSION_LEVEL, ROW_GROUP_SIZE, BATCH_ROWS, STATS, HEADER, DELIMITER, QUOTE, NULL, "
    "PARTITION_BY, OVERWRITE_OR_IGNORE, APPEND";

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// The canonical name of an option, or "" when COPY does not know it.
std::string CanonicalName(const std::string& name) {
  if (name == "codec") return "compression";
  if (name == "delim" || name == "sep") return "delimiter";
  for (const char* known : {"format", "compression", "compression_level", "row_group_size",
                            "batch_rows", "stats", "header", "delimiter", "quote", "null",
                            "partition_by", "overwrite_or_ignore", "append"}) {
    if (name == known) return name;
  }
  return "";
}

bool IsCsvOption(const std::string& name) {
  return name == "header" || name == "delimiter" || name == "quote" || name == "null";
}

bool IsWriteOption(const std::string& name) {
  return name == "compression" || name == "compression_level" || name == "row_group_size" ||
         name == "batch_rows" || name == "stats" || name == "partition_by" ||
         name == "overwrite_or_ignore" || name == "append";
}

// Every upper / lower case spelling of each word ("on": on, oN, On, ON).
std::vector<std::string> CaseVariants(std::initializer_list<std::string_view> words) {
  std::vector<std::string> out;
  for (std::string_view w : words) {
    const size_t n = w.size();
    for (uint32_t mask = 0; mask < (1u << n); ++mask) {
      std::string v(w);
      bool distinct = true;
      for (size_t i = 0; i < n; ++i) {
        if ((mask >> i) & 1) {
          const char up = static_cast<char>(std::toupper(static_cast<unsigned char>(v[i])));
          if (up == v[i]) distinct = false;  // a digit: one spelling only
          v[i] = up;
        }
      }
      if (distinct) out.push_back(std::move(v));
    }
  }
  return out;
}

Status NeedsValue(const sql::CopyOption& o) {
  if (!o.list.empty())
    return Status::Invalid("COPY option \"{}\" takes one value, not a list", o.name)
        .WithSqlState(sqlstate::kInvalidParameterValue);
  if (o.value.empty())
    return Status::Invalid("COPY option \"{}\" needs a value", o.name)
        .WithSqlState(sqlstate::kInvalidParameterValue);
  return Status::OK();
}

Result<bool> ParseBool(const sql::CopyOption& o) {
  if (!o.list.empty())
    return Status::Invalid("COPY option \"{}\" takes one value, not a list", o.name)
        .WithSqlState(sqlstate::kInvalidParameterValue);
  const std::string v = Lower(o.value);
  if (v.empty() || v == "true" || v == "on" || v == "1") return true;
  if (v == "false" || v == "off" || v == "0") return false;
  return Status::Invalid("COPY option \"{}\" takes true or false, not '{}'", o.name, o.value)
      .WithSqlState(sqlstate::kInvalidParameterValue);
}

Result<char> ParseChar(const sql::CopyOption& o) {
  QUIVER_RETURN_NOT_OK(NeedsValue(o));
  if (o.value.size() != 1) {
    return Status::Invalid("COPY option \"{}\" must be a single one-byte character, not '{}'",
                           o.name, o.value)
        .WithSqlState(sqlstate::kInvalidParameterValue);
  }
  return o.value[0];
}

Result<int64_t> ParseInteger(const sql::CopyOption& o, int64_t min, int64_t max) {
  QUIVER_RETURN_NOT_OK(NeedsValue(o));
  int64_t v = 0;
  const char* end = o.value.data() + o.value.size();
  auto [ptr, ec] = std::from_chars(o.value.data(), end, v);
  if (ec != std::errc() || ptr != end || v < min || v > max) {
    if (min == 1 && max == kMaxRows) {
      return Status::Invalid("COPY option \"{}\" must be a positive integer, not '{}'", o.name,
                             o.value)
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    return Status::Invalid("COPY option \"{}\" must be an integer in [{}, {}], not '{}'", o.name,
                           min, max, o.value)
        .WithSqlState(sqlstate::kInvalidParameterValue);
  }
  return v;
}

// Codecs each output format takes, by the names COPY accepts.
Result<Codec> ParseCodec(const sql::CopyOption& o, FileFormat format) {
  QUIVER_RETURN_NOT_OK(NeedsValue(o));
  const std::string v = Lower(o.value);
  if (format == FileFormat::kParquet) {
    if (v == "none" || v == "uncompressed") return Codec::kNone;
    if (v == "snappy") return Codec::kSnappy;
    if (v == "gzip") return Codec::kGzip;
    if (v == "zstd") return Codec::kZstd;
    if (v == "lz4" || v == "lz4_raw") return Codec::kLz4Raw;
    if (v == "brotli") return Codec::kBrotli;
    return Status::Invalid(
               "COPY option \"{}\": Parquet compression is none, snappy, gzip, zstd, lz4 or "
               "brotli, not "
               "'{}'",
               o.name, o.value)
        .WithSqlState(sqlstate::kInvalidParameterValue);
  }
  if (format == FileFormat::kIpcFile || format == FileFormat::kIpcStream) {
    if (v == "none" || v == "uncompressed") return Codec::kNone;
    if (v == "lz4" || v == "lz4_frame") return Codec::kLz4Frame;
    if (v == "zstd") return Codec::kZstd;
    return Status::Invalid(
               "COPY option \"{}\": Arrow IPC compression is none, lz4 or zstd, not '{}'", o.name,
               o.value)
        .WithSqlState(sqlstate::kInvalidParameterValue);
  }
  if (format == FileFormat::kAvro) {
    // Avro block codecs; deflate is carried as kGzip (raw deflate on write).
    if (v == "null" || v == "none" || v == "uncompressed") return Codec::kNone;
    if (v == "deflate") return Codec::kGzip;
    if (v == "snappy") return Codec::kSnappy;
    if (v == "zstd" || v == "zstandard") return Codec::kZstd;
    return Status::Invalid(
               "COPY option \"{}\": Avro compression is null, deflate, snappy or zstd, not '{}'",
               o.name, o.value)
        .WithSqlState(sqlstate::kInvalidParameterValue);
  }
  if (v == "none" || v == "uncompressed") return Codec::kNone;
  return Status::Invalid(
             "COPY option \"{}\" applies to Parquet and Arrow output; CSV is written uncompressed",
             o.name)
      .WithSqlState(sqlstate::kInvalidParameterValue);
}

// The levels a codec takes; false when it has none.
bool LevelRange(Codec codec, int64_t* min, int64_t* max) {
  switch (codec) {
    case Codec::kZstd:
      *min = -7;
      *max = 22;
      return true;
    case Codec::kGzip:
      *min = 0;
      *max = 9;
      return true;
    case Codec::kBrotli:
      *min = 0;
      *max = 11;
      return true;
    case Codec::kLz4Frame:
      *min = 0;
      *max = 12;
      return true;
    default:
      return false;
  }
}

}  // namespace

Result<CopyOptions> ParseCopyOptions(const std::vector<sql::CopyOption>& options,
                                     const std::string& path, bool is_from) {
  std::map<std::string, const sql::CopyOption*> given;
  for (const auto& o : options) {
    const std::string name = CanonicalName(o.name);
    if (name.empty()) {
      return Status::Invalid("COPY option \"{}\" is not recognized (valid options: {})", o.name,
                             kValidOptions)
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    if (!given.emplace(name, &o).second) {
      return Status::Invalid("COPY option \"{}\" is given more than once", name)
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
  }
  auto find = [&](const char* name) -> const sql::CopyOption* {
    auto it = given.find(name);
    return it == given.end() ? nullptr : it->second;
  };

  CopyOptions out;
  bool tsv = formats::IsTsvPath(path);
  if (const sql::CopyOption* o = find("format")) {
    QUIVER_RETURN_NOT_OK(NeedsValue(*o));
    const std::string v = Lower(o->value);
    auto parsed = formats::ParseFileFormat(v);
    if (!parsed.ok() || *parsed == FileFormat::kAuto) {
      return Status::Invalid(
                 "COPY format '{}' is not supported (valid: parquet, arrow, stream, csv, tsv, avro)",
                 o->value)
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    out.format = *parsed;
    tsv = v == "tsv" || (tsv && out.format == FileFormat::kCsv);
  } else {
    out.format = formats::FormatFromExtension(path);
    if (out.format == FileFormat::kAuto && !is_from) out.format = FileFormat::kCsv;
  }

  // What the format takes: errors before anything is read or written.
  for (const auto& [name, o] : given) {
    if (is_from && IsWriteOption(name)) {
      return Status::Invalid("COPY option \"{}\" applies to COPY ... TO, not COPY ... FROM",
                             o->name)
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    if (IsCsvOption(name) && out.format != FileFormat::kCsv && out.format != FileFormat::kAuto) {
      return Status::Invalid("COPY option \"{}\" applies to CSV, not {}", o->name,
                             formats::FileFormatName(out.format))
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    if ((name == "stats" || name == "batch_rows") && out.format != FileFormat::kIpcFile && out.format != FileFormat::kIpcStream) {
      return Status::Invalid("COPY option \"{}\" applies to Arrow, not {}", o->name,
                             formats::FileFormatName(out.format))
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    if (name == "row_group_size" && out.format != FileFormat::kParquet) {
      return Status::Invalid("COPY option \"{}\" applies to Parquet, not {}", o->name,
                             formats::FileFormatName(out.format))
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
  }

  // CSV, both directions.
  char delimiter = tsv ? '\t' : ',';
  if (const sql::CopyOption* o = find("delimiter")) {
    QUIVER_ASSIGN_OR_RAISE(delimiter, ParseChar(*o));
  }
  char quote = '"';
  if (const sql::CopyOption* o = find("quote")) {
    QUIVER_ASSIGN_OR_RAISE(quote, ParseChar(*o));
  }
  if (delimiter == quote || delimiter == '\n' || delimiter == '\r' || quote == '\n' ||
      quote == '\r') {
    return Status::Invalid("COPY delimiter and quote must differ and not be a line break")
        .WithSqlState(sqlstate::kInvalidParameterValue);
  }
  bool header = true;
  if (const sql::CopyOption* o = find("header")) {
    QUIVER_ASSIGN_OR_RAISE(header, ParseBool(*o));
  }
  out.read.read.header = header;
  out.read.parse.delimiter = delimiter;
  out.read.parse.quote = quote;
  out.write.csv.header = header;
  out.write.csv.delimiter = delimiter;
  out.write.csv.quote = quote;
  // Nulls as PostgreSQL's COPY FROM ... (FORMAT csv) reads them: an unquoted
  // field equal to the NULL string (default: empty) is null in every column
  // type; a quoted one (`""`) never is. (pyarrow's list of null spellings,
  // "NA", "NaN", "null", ..., which FROM 'file.csv' uses, does not apply.)
  out.read.convert.null_values = {""};
  out.read.convert.strings_can_be_null = true;
  out.read.convert.quoted_strings_can_be_null = false;
  // Booleans as PostgreSQL's boolin spells them: t/true/y/yes/on/1 and
  // f/false/n/no/off/0, any case, and prefixes of true/false/yes (o alone is
  // ambiguous, so no). Surrounding blanks are not trimmed here.
  out.read.convert.true_values = CaseVariants({"t", "tr", "tru", "true", "y", "ye", "yes", "on", "1"});
  out.read.convert.false_values =
      CaseVariants({"f", "fa", "fal", "fals", "false", "n", "no", "of", "off", "0"});
  if (const sql::CopyOption* o = find("null")) {
    if (!o->list.empty()) {
      return Status::Invalid("COPY option \"{}\" takes one value, not a list", o->name)
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    out.read.convert.null_values = {o->value};
    out.read.convert.strings_can_be_null = true;
    out.write.csv.null_string = o->value;
  }
  if (is_from) return out;

  // Parquet and Arrow output.
  if (const sql::CopyOption* o = find("compression")) {
    QUIVER_ASSIGN_OR_RAISE(out.write.codec, ParseCodec(*o, out.format));
    out.write.codec_chosen = true;
  }
  if (const sql::CopyOption* o = find("compression_level")) {
    if (out.format == FileFormat::kCsv) {
      return Status::Invalid("COPY option \"{}\" applies to Parquet and Arrow output, not CSV",
                             o->name)
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    // The level of the codec in effect: Parquet's default is zstd.
    const Codec codec = out.write.codec_chosen || out.format != FileFormat::kParquet
                            ? out.write.codec
                            : Codec::kZstd;
    int64_t min = 0;
    int64_t max = 0;
    if (!LevelRange(codec, &min, &max)) {
      return Status::Invalid("COPY option \"{}\" does not apply to compression {}{}", o->name,
                             compression::CodecName(codec),
                             codec == Codec::kNone ? " (name a codec with COMPRESSION)" : "")
          .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    QUIVER_ASSIGN_OR_RAISE(int64_t level, ParseInteger(*o, min, max));
    out.write.level = static_cast<int>(level);
    if (!out.write.codec_chosen && out.format == FileFormat::kParquet) {
      out.write.codec = Codec::kZstd;
      out.write.codec_chosen = true;
    }
  }
  if (const sql::CopyOption* o = find("row_group_size")) {
    QUIVER_ASSIGN_OR_RAISE(out.write.row_group_rows, ParseInteger(*o, 1, kMaxRows));
  }
  if (const sql::CopyOption* o = find("batch_rows")) {
    QUIVER_ASSIGN_OR_RAISE(out.batch_rows, ParseInteger(*o, 1, kMaxRows));
  }
  if (const sql::CopyOption* o = find("stats")) {
    // STATS alone (or true): every column; else the columns named.
    std::vector<std::string> names = o->list;
    const std::string v = Lower(o->value);
    if (names.empty() && !o->value.empty() && v != "true" && v != "on") {
      size_t start = 0;
      while (true) {
        const size_t comma = o->value.find(',', start);
        std::string n = o->value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        n.erase(0, n.find_first_not_of(" \t"));
        n.erase(n.find_last_not_of(" \t") + 1);
        if (n.empty())
          return Status::Invalid("COPY option \"{}\": empty column name in '{}'", o->name, o->value)
              .WithSqlState(sqlstate::kInvalidParameterValue);
        names.push_back(n);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    }
    out.stats = true;
    out.stats_columns = std::move(names);
  }
  if (const sql::CopyOption* o = find("partition_by")) {
    // PARTITION_BY (a, b), or PARTITION_BY a.
    std::vector<std::string> names = o->list;
    if (names.empty() && !o->value.empty()) names.push_back(o->value);
    if (names.empty())
      return Status::Invalid("COPY option \"{}\" needs the columns to partition by", o->name)
          .WithSqlState(sqlstate::kInvalidParameterValue);
    for (size_t i = 0; i < names.size(); ++i) {
      if (std::find(names.begin(), names.begin() + i, names[i]) != names.begin() + i)
        return Status::Invalid("COPY option \"{}\" names column \"{}\" twice", o->name, names[i])
            .WithSqlState(sqlstate::kInvalidParameterValue);
    }
    out.partition_by = std::move(names);
  }
  bool overwrite = false;
  bool append = false;
  if (const sql::CopyOption* o = find("overwrite_or_ignore")) {
    QUIVER_ASSIGN_OR_RAISE(overwrite, ParseBool(*o));
  }
  if (const sql::CopyOption* o = find("append")) {
    QUIVER_ASSIGN_OR_RAISE(append, ParseBool(*o));
  }
  if (overwrite && append)
    return Status::Invalid("COPY options OVERWRITE_OR_IGNORE and APPEND cannot be used together")
        .WithSqlState(sqlstate::kInvalidParameterValue);
  if ((find("overwrite_or_ignore") != nullptr || find("append") != nullptr) && out.partition_by.empty())
    return Status::Invalid(
               "COPY options OVERWRITE_OR_IGNORE and APPEND apply to COPY ... TO with PARTITION_BY "
               "(a file COPY writes is always replaced)")
        .WithSqlState(sqlstate::kInvalidParameterValue);
  if (overwrite) out.existing = CopyOptions::ExistingFiles::kOverwriteOrIgnore;
  if (append) out.existing = CopyOptions::ExistingFiles::kAppend;
  return out;
}

}  // namespace quiver
