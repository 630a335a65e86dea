// MemoryTable, FileTable, pruning by statistics and the conversion of file
// columns to engine types.
#include "catalog/table_source.h"

#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "columnar/builder.h"
#include "common/calendar.h"
#include "common/half_float.h"
#include "vector/sql_type.h"

namespace quiver {

// --- predicates and statistics -------------------------------------------------

std::string ScanPredicate::ToString(const std::string& col) const {
  auto v = [&](size_t i) { return i < values.size() ? values[i].ToSqlLiteral() : std::string("?"); };
  switch (op) {
    case kEq:
      return col + " = " + v(0);
    case kNe:
      return col + " <> " + v(0);
    case kLt:
      return col + " < " + v(0);
    case kLe:
      return col + " <= " + v(0);
    case kGt:
      return col + " > " + v(0);
    case kGe:
      return col + " >= " + v(0);
    case kBetween:
      return col + " BETWEEN " + v(0) + " AND " + v(1);
    case kIsNull:
      return col + " IS NULL";
    case kIsNotNull:
      return col + " IS NOT NULL";
    case kIn: {
      std::string s = col + " IN (";
      for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + v(i);
      return s + ")";
    }
  }
  return col;
}

bool UnitMayMatch(const UnitStatistics& stats, const ScanPredicate& p) {
  const size_t c = static_cast<size_t>(p.column);
  if (c >= stats.min.size()) return true;
  const Value& lo = stats.min[c];
  const Value& hi = stats.max[c];
  const int64_t nulls = c < stats.nulls.size() ? stats.nulls[c] : -1;
  if (p.op == ScanPredicate::kIsNull) return nulls != 0;
  if (p.op == ScanPredicate::kIsNotNull) return !(nulls >= 0 && stats.rows >= 0 && nulls == stats.rows);
  // A unit of only NULLs matches no comparison.
  if (nulls >= 0 && stats.rows >= 0 && nulls == stats.rows && stats.rows > 0) return false;
  if (lo.is_null() || hi.is_null()) return true;
  auto comparable = [&](const Value& v) { return !v.is_null() && v.type()->Equals(*lo.type()); };
  switch (p.op) {
    case ScanPredicate::kEq:
      if (!comparable(p.values[0])) return true;
      return lo.Compare(p.values[0]) <= 0 && hi.Compare(p.values[0]) >= 0;
    case ScanPredicate::kNe:
      if (!comparable(p.values[0])) return true;
      return !(lo.Compare(p.values[0]) == 0 && hi.Compare(p.values[0]) == 0);
    case ScanPredicate::kLt:
      return !comparable(p.values[0]) || lo.Compare(p.values[0]) < 0;
    case ScanPredicate::kLe:
      return !comparable(p.values[0]) || lo.Compare(p.values[0]) <= 0;
    case ScanPredicate::kGt:
      return !comparable(p.values[0]) || hi.Compare(p.values[0]) > 0;
    case ScanPredicate::kGe:
      return !comparable(p.values[0]) || hi.Compare(p.values[0]) >= 0;
    case ScanPredicate::kBetween:
      if (!comparable(p.values[0]) || !comparable(p.values[1])) return true;
      return hi.Compare(p.values[0]) >= 0 && lo.Compare(p.values[1]) <= 0;
    case ScanPredicate::kIn:
      for (const Value& v : p.values) {
        if (!comparable(v)) return true;
        if (lo.Compare(v) <= 0 && hi.Compare(v) >= 0) return true;
      }
      return false;
    default:
      return true;
  }
}

// --- engine type conversion ----------------------------------------------------

namespace {

template <typename In, typename Out, typename F>
Result<ArrayRef> MapFixed(const ArrayData& in, const TypeRef& to, MemoryPool* pool, F f) {
  const int64_t n = in.length;
  QUIVER_ASSIGN_OR_RAISE(auto values, MutableBuffer::Allocate(std::max<int64_t>(n, 1) * sizeof(Out), pool));
  values->ZeroPadding();
  Out* dst = values->mutable_data_as<Out>();
  const In* src = in.GetValues<In>(1);
  for (int64_t i = 0; i < n; ++i) dst[i] = f(src[i]);
  // Validity is shared (re-based through a slice of the bitmap when offset).
  std::shared_ptr<Buffer> validity;
  if (in.buffers[0] && in.GetNullCount() > 0) {
    if (in.offset % 8 == 0) {
      validity = in.buffers[0]->Slice(in.offset / 8, bit_util::BytesForBits(n));
    } else {
      QUIVER_ASSIGN_OR_RAISE(auto bits, AllocateZeroed(bit_util::BytesForBits(n), pool));
      bit_util::CopyBitmap(in.buffers[0]->data(), in.offset, n, bits->mutable_data(), 0);
      validity = bits;
    }
  }
  return ArrayData::Make(to, n, {validity, std::move(values)}, validity ? in.GetNullCount() : 0);
}

Result<ArrayRef> ToEngineArray(const ArrayRef& in, const TypeRef& to, MemoryPool* pool) {
  const DataType& t = *in->type;
  if (t.Equals(*to)) return in;
  switch (t.id) {
    case TypeId::kInt8:
      return MapFixed<int8_t, int16_t>(*in, to, pool, [](int8_t v) { return int16_t{v}; });
    case TypeId::kUInt8:
      return MapFixed<uint8_t, int16_t>(*in, to, pool, [](uint8_t v) { return int16_t{v}; });
    case TypeId::kUInt16:
      return MapFixed<uint16_t, int32_t>(*in, to, pool, [](uint16_t v) { return int32_t{v}; });
    case TypeId::kUInt32:
      return MapFixed<uint32_t, int64_t>(*in, to, pool, [](uint32_t v) { return int64_t{v}; });
    case TypeId::kUInt64:
      return MapFixed<uint64_t, int128_t>(*in, to, pool, [](uint64_t v) { return int128_t{v}; });
    case TypeId::kHalfFloat:
      return MapFixed<uint16_t, float>(*in, to, pool, [](uint16_t h) { return HalfToFloat(h); });
    case TypeId::kDate64:
      return MapFixed<int64_t, int32_t>(*in, to, pool, [](int64_t ms) {
        return static_cast<int32_t>(FloorDiv(ms, kMillisPerDay));
      });
    case TypeId::kTime32: {
      const int64_t f = t.unit == TimeUnit::kSecond ? 1000000 : 1000;
      return MapFixed<int32_t, int64_t>(*in, to, pool, [f](int32_t v) { return v * f; });
    }
    case TypeId::kTime64:
      return MapFixed<int64_t, int64_t>(*in, to, pool, [](int64_t ns) { return ns / 1000; });
    case TypeId::kTimestamp: {
      switch (t.unit) {
        case TimeUnit::kSecond:
          return MapFixed<int64_t, int64_t>(*in, to, pool, [](int64_t v) { return v * 1000000; });
        case TimeUnit::kMilli:
          return MapFixed<int64_t, int64_t>(*in, to, pool, [](int64_t v) { return v * 1000; });
        case TimeUnit::kMicro:
          return MapFixed<int64_t, int64_t>(*in, to, pool, [](int64_t v) { return v; });
        case TimeUnit::kNano:
          return MapFixed<int64_t, int64_t>(*in, to, pool, [](int64_t v) { return FloorDiv(v, 1000); });
      }
      break;
    }
    case TypeId::kDuration: {
      const int64_t per_us_num = t.unit == TimeUnit::kSecond ? 1000000 : t.unit == TimeUnit::kMilli ? 1000 : 1;
      const int64_t per_us_den = t.unit == TimeUnit::kNano ? 1000 : 1;
      struct Mdn {
        int32_t m, d;
        int64_t ns;
      };
      return MapFixed<int64_t, Mdn>(*in, to, pool, [=](int64_t v) {
        return Mdn{0, 0, v * per_us_num / per_us_den * 1000};
      });
    }
    case TypeId::kIntervalMonths: {
      struct Mdn {
        int32_t m, d;
        int64_t ns;
      };
      return MapFixed<int32_t, Mdn>(*in, to, pool, [](int32_t m) { return Mdn{m, 0, 0}; });
    }
    case TypeId::kIntervalDayTime: {
      struct Dt {
        int32_t d, ms;
      };
      struct Mdn {
        int32_t m, d;
        int64_t ns;
      };
      return MapFixed<Dt, Mdn>(*in, to, pool, [](Dt v) { return Mdn{0, v.d, int64_t{v.ms} * 1000000}; });
    }
    case TypeId::kDecimal32:
      return MapFixed<int32_t, int128_t>(*in, to, pool, [](int32_t v) { return int128_t{v}; });
    case TypeId::kDecimal64:
      return MapFixed<int64_t, int128_t>(*in, to, pool, [](int64_t v) { return int128_t{v}; });
    default:
      break;
  }
  // Variable-width and encoded types: through a builder (copies).
  if (t.id == TypeId::kDecimal256 && to->id == TypeId::kDecimal128) {
    struct D256 {
      uint64_t w[4];
    };
    return MapFixed<D256, int128_t>(*in, to, pool, [](D256 v) {
      return static_cast<int128_t>((static_cast<unsigned __int128>(v.w[1]) << 64) | v.w[0]);
    });
  }
  if (to->id == TypeId::kString || to->id == TypeId::kBinary) {
    StringBuilder b(to, pool);
    QUIVER_RETURN_NOT_OK(b.Reserve(in->length));
    for (int64_t i = 0; i < in->length; ++i) {
      if (in->IsNull(i)) {
        QUIVER_RETURN_NOT_OK(b.AppendNull());
        continue;
      }
      if (t.id == TypeId::kDictionary) {
        const int64_t k = in->GetDictionaryIndex(i);
        QUIVER_RETURN_NOT_OK(b.Append(in->dictionary->GetString(k)));
      } else if (t.id == TypeId::kFixedSizeBinary) {
        const uint8_t* p = in->GetRaw<uint8_t>(1) + (in->offset + i) * t.byte_width;
        QUIVER_RETURN_NOT_OK(b.Append(std::string_view(reinterpret_cast<const char*>(p), t.byte_width)));
      } else {
        QUIVER_RETURN_NOT_OK(b.Append(in->GetString(i)));
      }
    }
    return b.Finish();
  }
  if (t.id == TypeId::kDictionary) {
    // Dictionary of a fixed-width type: decode by gathering.
    QUIVER_ASSIGN_OR_RAISE(auto values, ToEngineArray(in->dictionary, to, pool));
    auto builder_result = MakeBuilder(to, pool);
    QUIVER_RETURN_NOT_OK(builder_result.status());
    auto builder = std::move(builder_result).ValueOrDie();
    for (int64_t i = 0; i < in->length; ++i) {
      if (in->IsNull(i)) {
        QUIVER_RETURN_NOT_OK(builder->AppendNull());
      } else {
        QUIVER_RETURN_NOT_OK(builder->AppendArraySlice(*values, in->GetDictionaryIndex(i), 1));
      }
    }
    return builder->Finish();
  }
  return Status::Unsupported("reading {} columns as {}", t.ToString(), to->ToString());
}

}  // namespace

Result<RecordBatchRef> ToEngineBatch(const RecordBatchRef& batch, const SchemaRef& engine_schema,
                                     MemoryPool* pool) {
  bool same = true;
  for (int i = 0; i < batch->num_columns(); ++i) {
    if (!batch->column(i)->type->Equals(*engine_schema->field(i)->type)) same = false;
  }
  if (same) return RecordBatch::Make(engine_schema, batch->num_rows(), batch->columns());
  std::vector<ArrayRef> cols;
  cols.reserve(batch->num_columns());
  for (int i = 0; i < batch->num_columns(); ++i) {
    auto c = ToEngineArray(batch->column(i), engine_schema->field(i)->type, pool);
    if (!c.ok()) return c.status().WithContext("column '" + engine_schema->field(i)->name + "'");
    cols.push_back(std::move(c).ValueOrDie());
  }
  return RecordBatch::Make(engine_schema, batch->num_rows(), std::move(cols));
}

namespace {

Result<SchemaRef> EngineSchema(const Schema& file_schema, const std::string& where) {
  std::vector<FieldRef> fields;
  for (const auto& f : file_schema.fields) {
    auto t = ToEngineType(f->type);
    // Columns the engine cannot type stay out of the table's schema: a
    // query can use every other column of the file.
    if (!t.ok()) continue;
    fields.push_back(field(f->name, *t, f->nullable));
  }
  if (fields.empty() && file_schema.num_fields() > 0) {
    return Status::Unsupported("{}: none of the columns has a type queries can read", where);
  }
  return schema(std::move(fields));
}

// Columns of `engine` (by name) in the file schema.
std::vector<int> FileColumnIndices(const Schema& file, const Schema& engine,
                                   const std::vector<int>& requested) {
  std::vector<int> out;
  for (int c : requested) out.push_back(file.GetFieldIndex(engine.field(c)->name));
  return out;
}

SchemaRef Project(const SchemaRef& s, const std::vector<int>& columns) {
  std::vector<FieldRef> fields;
  for (int c : columns) fields.push_back(s->field(c));
  return schema(std::move(fields));
}

// --- memory tables ---------------------------------------------------------------

class MemoryScanPlan final : public ScanPlan {
 public:
  MemoryScanPlan(SchemaRef schema, std::vector<RecordBatchRef> batches, std::vector<int> columns)
      : schema_(std::move(schema)), batches_(std::move(batches)), columns_(std::move(columns)) {}
  SchemaRef schema() const override { return schema_; }
  int64_t num_units() const override { return static_cast<int64_t>(batches_.size()); }
  Result<RecordBatchRef> ReadUnit(int64_t unit) override {
    const RecordBatchRef& b = batches_[static_cast<size_t>(unit)];
    std::vector<ArrayRef> cols;
    for (int c : columns_) cols.push_back(b->column(c));
    counters().units_read++;
    counters().rows_read += b->num_rows();
    return RecordBatch::Make(schema_, b->num_rows(), std::move(cols));
  }

 private:
  SchemaRef schema_;
  std::vector<RecordBatchRef> batches_;
  std::vector<int> columns_;
};

}  // namespace

int64_t MemoryTable::EstimatedRows() const {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t n = 0;
  for (const auto& b : batches_) n += b->num_rows();
  return n;
}

Result<std::unique_ptr<ScanPlan>> MemoryTable::Plan(const ScanRequest& request) const {
  auto plan = std::make_unique<MemoryScanPlan>(Project(schema_, request.columns), batches(),
                                               request.columns);
  plan->counters().units_total = plan->num_units();
  return std::unique_ptr<ScanPlan>(std::move(plan));
}

Status MemoryTable::Append(std::vector<RecordBatchRef> batches) {
  for (const auto& b : batches) {
    for (int i = 0; i < b->num_columns(); ++i) {
      if (!schema_->field(i)->nullable && b->column(i)->GetNullCount() > 0) {
        return Status::Invalid(
            "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
            schema_->field(i)->name, name_);
      }
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& b : batches) {
    if (b->num_rows() > 0) batches_.push_back(RecordBatch::Make(schema_, b->num_rows(), b->columns()));
  }
  return Status::OK();
}

void MemoryTable::Replace(std::vector<RecordBatchRef> batches) {
  std::lock_guard<std::mutex> lock(mu_);
  batches_.clear();
  for (auto& b : batches) {
    if (b->num_rows() > 0) batches_.push_back(RecordBatch::Make(schema_, b->num_rows(), b->columns()));
  }
}

std::vector<RecordBatchRef> MemoryTable::batches() const {
  std::lock_guard<std::mutex> lock(mu_);
  return batches_;
}

// --- files -------------------------------------------------------------------------

Result<std::vector<std::string>> ExpandPaths(const std::string& pattern) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  if (pattern.find_first_of("*?[") == std::string::npos) {
    if (fs::is_directory(pattern, ec)) {
      for (const auto& e : fs::directory_iterator(pattern, ec)) {
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') {
          out.push_back(e.path().string());
        }
      }
      std::sort(out.begin(), out.end());
      if (out.empty()) return Status::IOError("directory '{}' holds no files", pattern);
      return out;
    }
    if (!fs::exists(pattern, ec)) {
      return Status::IOError("could not open file \"{}\": No such file or directory", pattern);
    }
    out.push_back(pattern);
    return out;
  }
  glob_t g{};
  const int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
  if (rc == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) {
      if (fs::is_regular_file(g.gl_pathv[i], ec)) out.emplace_back(g.gl_pathv[i]);
    }
  }
  globfree(&g);
  if (out.empty()) return Status::IOError("no files match '{}'", pattern);
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

class FileScanPlan final : public ScanPlan {
 public:
  struct Unit {
    int file;
    int unit;
    UnitStatistics stats;
  };

  FileScanPlan(SchemaRef out_schema, std::vector<std::shared_ptr<formats::FileReader>> files,
               std::vector<std::vector<int>> file_columns, std::vector<Unit> units,
               std::vector<int> stream_files, MemoryPool* pool)
      : schema_(std::move(out_schema)),
        files_(std::move(files)),
        file_columns_(std::move(file_columns)),
        units_(std::move(units)),
        stream_files_(std::move(stream_files)),
        pool_(pool),
        stream_(this) {}

  SchemaRef schema() const override { return schema_; }
  int64_t num_units() const override { return static_cast<int64_t>(units_.size()); }
  const UnitStatistics* unit_statistics(int64_t unit) const override {
    return &units_[static_cast<size_t>(unit)].stats;
  }
  Result<RecordBatchRef> ReadUnit(int64_t i) override {
    const Unit& u = units_[static_cast<size_t>(i)];
    auto& file = files_[static_cast<size_t>(u.file)];
    auto batch = file->ReadUnit(u.unit, file_columns_[static_cast<size_t>(u.file)]);
    if (!batch.ok()) return formats::WithPath(batch.status(), file->path());
    counters().units_read++;
    counters().rows_read += (*batch)->num_rows();
    return ToEngineBatch(*batch, schema_, pool_);
  }
  RecordBatchReader* stream() override { return stream_files_.empty() ? nullptr : &stream_; }

 private:
  // Reads the sequential files one after the other.
  class Stream final : public RecordBatchReader {
   public:
    explicit Stream(FileScanPlan* plan) : plan_(plan) {}
    SchemaRef schema() const override { return plan_->schema_; }
    Status ReadNext(RecordBatchRef* out) override {
      *out = nullptr;
      while (next_file_ <= plan_->stream_files_.size()) {
        if (current_ == nullptr) {
          if (next_file_ == plan_->stream_files_.size()) return Status::OK();
          const int f = plan_->stream_files_[next_file_++];
          current_file_ = f;
          auto& file = plan_->files_[static_cast<size_t>(f)];
          auto r = file->ReadSequential(plan_->file_columns_[static_cast<size_t>(f)]);
          if (!r.ok()) return formats::WithPath(r.status(), file->path());
          current_ = std::move(r).ValueOrDie();
        }
        RecordBatchRef batch;
        Status st = current_->ReadNext(&batch);
        if (!st.ok()) return formats::WithPath(st, plan_->files_[static_cast<size_t>(current_file_)]->path());
        if (batch == nullptr) {
          current_.reset();
          continue;
        }
        plan_->counters().rows_read += batch->num_rows();
        QUIVER_ASSIGN_OR_RAISE(*out, ToEngineBatch(batch, plan_->schema_, plan_->pool_));
        return Status::OK();
      }
      return Status::OK();
    }

   private:
    FileScanPlan* plan_;
    size_t next_file_ = 0;
    int current_file_ = -1;
    std::unique_ptr<RecordBatchReader> current_;
  };

  SchemaRef schema_;
  std::vector<std::shared_ptr<formats::FileReader>> files_;
  std::vector<std::vector<int>> file_columns_;
  std::vector<Unit> units_;
  std::vector<int> stream_files_;
  MemoryPool* pool_;
  Stream stream_;
};

Value StatValue(const ArrayRef& a, const TypeRef& engine_type, MemoryPool* pool) {
  if (a == nullptr || a->length < 1 || a->IsNull(0)) return Value::Null(engine_type);
  auto converted = ToEngineArray(a, engine_type, pool);
  if (!converted.ok()) return Value::Null(engine_type);
  return ValueFromArray(**converted, 0);
}

}  // namespace

Result<std::shared_ptr<FileTable>> FileTable::Open(const std::string& name,
                                                   const std::string& path_or_glob,
                                                   const FileTableOptions& options) {
  auto table = std::shared_ptr<FileTable>(new FileTable());
  table->name_ = name;
  table->pattern_ = path_or_glob;
  table->options_ = options;
  QUIVER_ASSIGN_OR_RAISE(table->paths_, ExpandPaths(path_or_glob));
  formats::ReadOptions read;
  read.csv = options.csv;
  read.validate_full = false;  // structure is checked; UTF-8 scans are for `quiver cat`
  int64_t rows = 0;
  for (const std::string& path : table->paths_) {
    QUIVER_ASSIGN_OR_RAISE(auto file, formats::OpenFile(path, options.format, read));
    if (table->file_schema_ == nullptr) {
      table->file_schema_ = file->schema();
    } else if (!file->schema()->Equals(*table->file_schema_)) {
      // Name the first difference.
      const Schema& a = *table->file_schema_;
      const Schema& b = *file->schema();
      std::string what;
      for (int i = 0; i < std::max(a.num_fields(), b.num_fields()); ++i) {
        if (i >= a.num_fields()) {
          what = fmt::format("has an extra column '{}'", b.field(i)->name);
        } else if (i >= b.num_fields()) {
          what = fmt::format("lacks column '{}'", a.field(i)->name);
        } else if (!a.field(i)->Equals(*b.field(i))) {
          what = fmt::format("has column {} as '{}: {}' where {} has '{}: {}'", i + 1,
                             b.field(i)->name, b.field(i)->type->ToString(), table->paths_[0],
                             a.field(i)->name, a.field(i)->type->ToString());
        }
        if (!what.empty()) break;
      }
      return Status::Invalid("{}: schema differs from the other files of '{}': {}", path,
                             path_or_glob, what);
    }
    const int64_t n = file->num_rows();
    rows = (rows < 0 || n < 0) ? -1 : rows + n;
    table->files_.push_back(std::move(file));
  }
  table->rows_ = rows;
  QUIVER_ASSIGN_OR_RAISE(table->schema_, EngineSchema(*table->file_schema_, table->paths_[0]));
  return table;
}

std::string FileTable::Describe() const {
  const char* fmt_name = files_.empty() ? "?" : formats::FileFormatName(files_[0]->format());
  if (paths_.size() == 1) return fmt::format("{} '{}'", fmt_name, paths_[0]);
  return fmt::format("{} {} files '{}'", paths_.size(), fmt_name, pattern_);
}

Result<std::unique_ptr<ScanPlan>> FileTable::Plan(const ScanRequest& request) const {
  const SchemaRef out_schema = Project(schema_, request.columns);
  std::vector<std::vector<int>> file_columns;
  std::vector<FileScanPlan::Unit> units;
  std::vector<int> stream_files;
  int64_t total = 0, pruned = 0;
  for (size_t f = 0; f < files_.size(); ++f) {
    const auto& file = files_[f];
    file_columns.push_back(FileColumnIndices(*file->schema(), *schema_, request.columns));
    const int n = file->num_units();
    if (n < 0) {
      stream_files.push_back(static_cast<int>(f));
      continue;
    }
    for (int u = 0; u < n; ++u) {
      ++total;
      FileScanPlan::Unit unit{static_cast<int>(f), u, {}};
      unit.stats.rows = file->unit_rows(u);
      // Statistics of the requested columns, indexed by table column.
      const int cols = schema_->num_fields();
      unit.stats.min.assign(static_cast<size_t>(cols), Value());
      unit.stats.max.assign(static_cast<size_t>(cols), Value());
      unit.stats.nulls.assign(static_cast<size_t>(cols), -1);
      bool have_stats = false;
      std::vector<int> stat_columns = request.statistics_columns;
      for (const ScanPredicate& p : request.predicates) stat_columns.push_back(p.column);
      for (const int column : stat_columns) {
        if (column < 0 || column >= cols) continue;
        const int fc = file->schema()->GetFieldIndex(schema_->field(column)->name);
        if (fc < 0) continue;
        const formats::ColumnStatistics s = file->unit_statistics(u, fc);
        const TypeRef& et = schema_->field(column)->type;
        unit.stats.min[static_cast<size_t>(column)] = StatValue(s.min, et, request.pool);
        unit.stats.max[static_cast<size_t>(column)] = StatValue(s.max, et, request.pool);
        unit.stats.nulls[static_cast<size_t>(column)] = s.null_count;
        have_stats = true;
      }
      bool keep = true;
      if (have_stats) {
        for (const ScanPredicate& p : request.predicates) {
          if (!UnitMayMatch(unit.stats, p)) {
            keep = false;
            break;
          }
        }
      }
      if (!keep) {
        ++pruned;
        continue;
      }
      units.push_back(std::move(unit));
    }
  }
  auto plan = std::make_unique<FileScanPlan>(out_schema, files_, std::move(file_columns),
                                             std::move(units), std::move(stream_files),
                                             request.pool);
  plan->counters().units_total = total;
  plan->counters().units_pruned = pruned;
  plan->counters().files = static_cast<int64_t>(files_.size());
  return std::unique_ptr<ScanPlan>(std::move(plan));
}

}  // namespace quiver
