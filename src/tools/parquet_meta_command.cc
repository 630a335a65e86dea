// quiver parquet-meta FILE: a Parquet file's footer for humans, like
// parquet-tools' meta: file facts and key/value metadata, the schema in
// Parquet's message syntax, then per row group every column chunk's type,
// codec, encodings, sizes, value counts and statistics.
//
// --read decodes the data as well (all columns, or --columns a,b,c), through
// the same reader `cat` and the engine use, and reports rows, bytes and
// throughput: a check that a file reads, and what bench/parquet_io.py times.
#include <chrono>
#include <cstdio>
#include <sstream>

#include "formats/parquet/file_reader.h"
#include "formats/parquet/statistics.h"
#include "tools/commands.h"
#include "tools/file_formats.h"

namespace quiver::cli {
namespace {

using namespace quiver::parquet;  // NOLINT: the whole file is about Parquet

struct MetaArgs {
  std::string path;
  int max_row_groups = -1;
  int value_width = 40;
  bool read = false;
  std::string columns;  // comma-separated names for --read
};

std::string Clip(std::string s, int width) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (width > 3 && static_cast<int>(s.size()) > width) s = s.substr(0, width - 3) + "...";
  return s;
}

std::string PhysicalName(const SchemaElement& e) {
  switch (*e.type) {
    case Type::kBoolean:
      return "boolean";
    case Type::kInt32:
      return "int32";
    case Type::kInt64:
      return "int64";
    case Type::kInt96:
      return "int96";
    case Type::kFloat:
      return "float";
    case Type::kDouble:
      return "double";
    case Type::kByteArray:
      return "binary";
    case Type::kFixedLenByteArray:
      return fmt::format("fixed_len_byte_array({})", e.type_length.value_or(0));
  }
  return TypeName(*e.type);
}

std::string Annotation(const SchemaElement& e) {
  if (e.logical_type.kind != LogicalType::Kind::kNone) {
    return " (" + LogicalTypeToString(e.logical_type) + ")";
  }
  if (e.converted_type) {
    std::string s = ConvertedTypeName(*e.converted_type);
    if (*e.converted_type == ConvertedType::kDecimal) {
      s += fmt::format("({},{})", e.precision.value_or(0), e.scale.value_or(0));
    }
    return " (" + s + ")";
  }
  return "";
}

void RenderNode(const SchemaDescriptor& s, int index, int depth, std::string* out) {
  const SchemaNode& n = s.node(index);
  const SchemaElement& e = *n.element;
  const std::string indent(static_cast<size_t>(depth) * 2, ' ');
  std::string rep = depth == 0 ? "message" : RepetitionName(n.repetition());
  for (char& c : rep) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string id = e.field_id ? fmt::format(" = {}", *e.field_id) : "";
  if (n.is_leaf()) {
    *out += fmt::format("{}{} {} {}{}{};\n", indent, rep, PhysicalName(e), PrintableName(e.name),
                        Annotation(e), id);
    return;
  }
  *out += fmt::format("{}{} {}{}{}{} {{\n", indent, rep, depth == 0 ? "" : "group ",
                      PrintableName(e.name), Annotation(e), id);
  for (int c : n.children) RenderNode(s, c, depth + 1, out);
  *out += indent + "}\n";
}

std::string Join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

// Left-aligned text table.
std::string Table(const std::vector<std::vector<std::string>>& rows, const std::string& indent) {
  std::vector<size_t> widths;
  for (const auto& r : rows) {
    if (widths.size() < r.size()) widths.resize(r.size(), 0);
    for (size_t i = 0; i < r.size(); ++i) widths[i] = std::max(widths[i], r[i].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line = indent;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(widths[i] - r[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string Render(const ParquetFileReader& r, const MetaArgs& args) {
  const FileMetaData& md = r.metadata();
  const SchemaDescriptor& schema = r.parquet_schema();
  std::string out;
  out += fmt::format("file:        {}\n", args.path);
  out += fmt::format("size:        {} ({} bytes)\n", HumanBytes(r.file_size()), r.file_size());
  out += fmt::format("created by:  {}\n", PrintableName(md.created_by.value_or("(unknown)")));
  out += fmt::format("version:     {}\n", md.version);
  out += fmt::format("rows:        {}\n", md.num_rows);
  out += fmt::format("row groups:  {}\n", md.row_groups.size());
  out += fmt::format("columns:     {}\n", schema.num_columns());
  if (!md.key_value_metadata.empty()) {
    out += "key/value metadata:\n";
    for (const KeyValue& kv : md.key_value_metadata) {
      out += fmt::format("  {}: {}\n", PrintableName(kv.key),
                         Clip(PrintableName(kv.value.value_or("")), 100));
    }
  }
  out += "\nschema:\n";
  std::string s;
  RenderNode(schema, 0, 0, &s);
  for (size_t start = 0; start < s.size();) {
    const size_t end = s.find('\n', start);
    out += "  " + s.substr(start, end - start) + "\n";
    start = end + 1;
  }
  const int shown = args.max_row_groups < 0 ? r.num_row_groups()
                                            : std::min(args.max_row_groups, r.num_row_groups());
  for (int g = 0; g < shown; ++g) {
    const RowGroup& rg = md.row_groups[g];
    int64_t compressed = 0;
    for (const ColumnChunk& c : rg.columns) {
      if (c.meta_data) compressed += c.meta_data->total_compressed_size;
    }
    out += fmt::format("\nrow group {}: {} rows, {} compressed, {} uncompressed", g, rg.num_rows,
                       HumanBytes(compressed), HumanBytes(rg.total_byte_size));
    if (rg.file_offset) out += fmt::format(", at byte {}", *rg.file_offset);
    out += "\n";
    if (!rg.sorting_columns.empty()) {
      std::vector<std::string> sorted;
      for (const SortingColumn& sc : rg.sorting_columns) {
        const std::string name = sc.column_idx >= 0 && sc.column_idx < schema.num_columns()
                                     ? schema.column(sc.column_idx).path
                                     : fmt::format("#{}", sc.column_idx);
        sorted.push_back(fmt::format("{} {}{}", name, sc.descending ? "DESC" : "ASC",
                                     sc.nulls_first ? " NULLS FIRST" : ""));
      }
      out += "  sorted by: " + Join(sorted, ", ") + "\n";
    }
    std::vector<std::vector<std::string>> rows = {{"column", "type", "codec", "encodings", "values",
                                                   "nulls", "compressed", "uncompressed", "min",
                                                   "max", "extras"}};
    for (int c = 0; c < schema.num_columns(); ++c) {
      const ColumnChunk& chunk = rg.columns[c];
      std::vector<std::string> row = {schema.column(c).path};
      if (!chunk.meta_data) {
        row.push_back(chunk.has_crypto_metadata ? "(encrypted)" : "(no metadata)");
        rows.push_back(std::move(row));
        continue;
      }
      const ColumnMetaData& m = *chunk.meta_data;
      std::vector<std::string> encodings;
      for (Encoding e : m.encodings) encodings.push_back(EncodingName(e));
      row.push_back(TypeName(m.type));
      row.push_back(parquet::CodecName(m.codec));
      row.push_back(Join(encodings, ","));
      row.push_back(std::to_string(m.num_values));
      std::string nulls = "", min = "", max = "";
      std::vector<std::string> extras;
      if (m.statistics) {
        const Statistics& st = *m.statistics;
        if (st.null_count) nulls = std::to_string(*st.null_count);
        const bool legacy = !st.min_value && !st.max_value;
        const auto& lo = legacy ? st.min : st.min_value;
        const auto& hi = legacy ? st.max : st.max_value;
        if (lo) min = Clip(FormatStatisticValue(r, c, *lo), args.value_width);
        if (hi) max = Clip(FormatStatisticValue(r, c, *hi), args.value_width);
        if (legacy && (lo || hi)) extras.push_back("legacy min/max");
        if (st.distinct_count) extras.push_back(fmt::format("distinct {}", *st.distinct_count));
        if (st.nan_count) extras.push_back(fmt::format("NaNs {}", *st.nan_count));
      }
      row.push_back(nulls);
      row.push_back(HumanBytes(m.total_compressed_size));
      row.push_back(HumanBytes(m.total_uncompressed_size));
      row.push_back(min);
      row.push_back(max);
      if (m.dictionary_page_offset) extras.push_back("dictionary");
      if (chunk.column_index_offset) extras.push_back("column index");
      if (chunk.offset_index_offset) extras.push_back("offset index");
      if (m.bloom_filter_offset) extras.push_back("bloom filter");
      for (const KeyValue& kv : m.key_value_metadata) {
        extras.push_back(Clip(PrintableName(kv.key) + "=" + PrintableName(kv.value.value_or("")),
                              args.value_width));
      }
      row.push_back(Join(extras, ", "));
      rows.push_back(std::move(row));
    }
    out += Table(rows, "  ");
  }
  if (shown < r.num_row_groups()) {
    out += fmt::format("\n({} more row groups)\n", r.num_row_groups() - shown);
  }
  return out;
}

// Decodes the file (or some columns) and reports the throughput.
Result<std::string> ReadAll(const MetaArgs& args) {
  const auto start = std::chrono::steady_clock::now();
  QUIVER_ASSIGN_OR_RAISE(auto file, formats::OpenFile(args.path, formats::FileFormat::kParquet));
  std::vector<int> columns;
  std::stringstream names(args.columns);
  for (std::string name; std::getline(names, name, ',');) {
    if (name.empty()) continue;
    const int i = file->schema()->GetFieldIndex(name);
    if (i < 0) return Status::Invalid("{} has no column '{}'", args.path, name);
    columns.push_back(i);
  }
  QUIVER_ASSIGN_OR_RAISE(auto reader, file->ReadSequential(columns));
  int64_t rows = 0;
  for (;;) {
    RecordBatchRef batch;
    QUIVER_RETURN_NOT_OK(reader->ReadNext(&batch));
    if (batch == nullptr) break;
    rows += batch->num_rows();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Parquet's own measure of the data: uncompressed page bytes of the chunks read.
  QUIVER_ASSIGN_OR_RAISE(auto pq, ParquetFileReader::Open(args.path));
  const auto info = pq->arrow_schema_info();
  int64_t bytes = 0;
  for (const RowGroup& rg : pq->metadata().row_groups) {
    for (int f = 0; f < pq->schema()->num_fields(); ++f) {
      if (!columns.empty() && std::find(columns.begin(), columns.end(), f) == columns.end()) {
        continue;
      }
      for (int c : info.leaves[f]) {
        if (rg.columns[c].meta_data) bytes += rg.columns[c].meta_data->total_uncompressed_size;
      }
    }
  }
  return fmt::format(
      "read {} rows, {} columns, {} uncompressed in {:.3f} s ({:.0f} rows/s, {:.2f} GB/s)\n", rows,
      columns.empty() ? file->schema()->num_fields() : static_cast<int>(columns.size()),
      HumanBytes(bytes), seconds, seconds > 0 ? rows / seconds : 0.0,
      seconds > 0 ? bytes / seconds / 1e9 : 0.0);
}

Status RunParquetMeta(const MetaArgs& args) {
  if (args.read) {
    auto text = ReadAll(args);
    if (!text.ok()) return WithPath(text.status(), args.path);
    std::fputs(text->c_str(), stdout);
    return Status::OK();
  }
  ParquetReadOptions options;
  auto reader = ParquetFileReader::Open(args.path, options);
  if (!reader.ok()) return WithPath(reader.status(), args.path);
  const std::string text = Render(**reader, args);
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
    return Status::IOError("cannot write to standard output");
  }
  return Status::OK();
}

}  // namespace

CommandAction AddParquetMetaCommand(CLI::App* app) {
  auto args = std::make_shared<MetaArgs>();
  CLI::App* cmd = app->add_subcommand(
      "parquet-meta", "Show a Parquet file's metadata: schema, row groups, column chunks");
  cmd->footer(
      "Per column chunk: physical type, codec, encodings, values (levels), nulls, sizes,\n"
      "min/max statistics (decoded by the column's type) and what else the chunk has\n"
      "(dictionary page, page index, bloom filter).\n\n"
      "--read decodes the data instead (every column, or those of --columns) and prints\n"
      "rows, uncompressed bytes and throughput.\n\n"
      "Examples:\n"
      "  quiver parquet-meta trips.parquet --row-groups 2\n"
      "  quiver parquet-meta trips.parquet --read --columns fare,tip,distance");
  cmd->add_option("FILE", args->path, "Parquet file")->required();
  cmd->add_option("--row-groups", args->max_row_groups, "Show at most N row groups (default: all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--read", args->read, "Decode the data and report rows and throughput");
  cmd->add_option("--columns", args->columns, "With --read: only these columns (a,b,c)");
  cmd->add_option("--value-width", args->value_width,
                  "Cut statistics values to N characters (default 40)")
      ->check(CLI::PositiveNumber);
  return [args] { return RunParquetMeta(*args); };
}

}  // namespace quiver::cli
