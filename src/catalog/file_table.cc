#include "catalog/file_table.h"

#include <algorithm>

#include "catalog/glob.h"
#include "catalog/page_pruning.h"
#include "catalog/type_conversion.h"

namespace quiver {

namespace {

// Columns of `engine` (by name) in the file schema.
std::vector<int> FileColumnIndices(const Schema& file, const Schema& engine,
                                   const std::vector<int>& requested) {
  std::vector<int> out;
  for (int c : requested) out.push_back(file.GetFieldIndex(engine.field(c)->name));
  return out;
}

class FileScanPlan final : public ScanPlan {
 public:
  struct Unit {
    int file;
    int unit;
    UnitStatistics stats;
    std::vector<formats::RowRange> rows;  // empty: all; else the rows page statistics left
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
    const auto& columns = file_columns_[static_cast<size_t>(u.file)];
    auto batch = u.rows.empty() ? file->ReadUnit(u.unit, columns)
                                : file->ReadUnitRows(u.unit, columns, u.rows);
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

std::vector<std::pair<std::string, std::string>> FileTable::UnreadableColumns() const {
  return quiver::UnreadableColumns(*file_schema_);
}

std::string FileTable::Describe() const {
  const char* fmt_name = files_.empty() ? "?" : formats::FileFormatName(files_[0]->format());
  if (paths_.size() == 1) return fmt::format("{} '{}'", fmt_name, paths_[0]);
  return fmt::format("{} {} files '{}'", paths_.size(), fmt_name, pattern_);
}

Result<std::unique_ptr<ScanPlan>> FileTable::Plan(const ScanRequest& request) const {
  const SchemaRef out_schema = ScanSchema(schema_, request.columns);
  std::vector<std::vector<int>> file_columns;
  std::vector<FileScanPlan::Unit> units;
  std::vector<int> stream_files;
  int64_t total = 0, pruned = 0, rows_pruned = 0;
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
      FileScanPlan::Unit unit{static_cast<int>(f), u, {}, {}};
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
      if (keep && !request.predicates.empty() && unit.stats.rows > 0) {
        // Pages inside the unit (a Parquet page index).
        const UnitRows rows = RowsMayMatch(
            *file, u, unit.stats.rows, request.predicates, cols,
            [&](int c) { return file->schema()->GetFieldIndex(schema_->field(c)->name); },
            [&](const ArrayRef& a, int c) {
              return StatValue(a, schema_->field(c)->type, request.pool);
            });
        if (rows.none) {
          keep = false;
        } else if (!rows.ranges.empty()) {
          rows_pruned += unit.stats.rows - rows.rows();
          unit.rows = rows.ranges;
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
  plan->counters().rows_pruned = rows_pruned;
  plan->counters().files = static_cast<int64_t>(files_.size());
  return std::unique_ptr<ScanPlan>(std::move(plan));
}

}  // namespace quiver
