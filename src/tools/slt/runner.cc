#include "tools/slt/runner.h"

#include <chrono>
#include <exception>
#include <map>
#include <new>

#include "tools/slt/render.h"

namespace quiver::slt {
namespace {

// Runs the SQL of one record; exceptions (which the engine should never
// throw) become errors of this record rather than ending the whole run.
Result<std::vector<QueryResult>> Execute(Database* db, const std::string& sql,
                                         FailureKind* exception_kind) {
  try {
    return db->ExecuteScript(sql);
  } catch (const std::bad_alloc&) {
    *exception_kind = FailureKind::kInternalError;
    return Status::OutOfMemory("internal error: out of memory (std::bad_alloc)");
  } catch (const std::exception& e) {
    *exception_kind = FailureKind::kInternalError;
    return Status::UnknownError("internal error: exception: {}", e.what());
  }
}

void Fail(RecordResult* r, FailureKind kind, std::string message) {
  r->outcome = Outcome::kFailed;
  r->failure = kind;
  r->message = std::move(message);
}

class FileRun {
 public:
  explicit FileRun(const RunOptions& options) : db_(options.database) {}

  // Judges one statement or query record that applies to this engine.
  RecordResult RunRecord(const Record& record) {
    RecordResult r;
    r.record = &record;
    if (record.kind == RecordKind::kStatement) {
      RunStatement(record, &r);
    } else {
      RunQuery(record, &r);
    }
    return r;
  }

  // A query skipped on this engine still fixes its label from the script.
  void NoteSkippedLabel(const Record& record) {
    if (record.kind != RecordKind::kQuery || record.label.empty()) return;
    const std::string hash =
        record.expected_is_hash ? record.expected_hash : HashValues(record.expected);
    labels_.emplace(record.label, Label{hash, record.line});
  }

 private:
  struct Label {
    std::string hash;
    int line;
  };

  void RunStatement(const Record& record, RecordResult* r) {
    FailureKind exception_kind = FailureKind::kNone;
    auto result = Execute(&db_, record.sql, &exception_kind);
    if (record.expect_error) {
      if (result.ok()) {
        Fail(r, FailureKind::kUnexpectedSuccess, "statement succeeded, but an error was expected");
      }
      return;
    }
    if (!result.ok()) {
      Fail(r, exception_kind != FailureKind::kNone ? exception_kind : FailureKind::kStatementError,
           result.status().message());
    }
  }

  void RunQuery(const Record& record, RecordResult* r) {
    FailureKind exception_kind = FailureKind::kNone;
    auto result = Execute(&db_, record.sql, &exception_kind);
    if (!result.ok()) {
      Fail(r, exception_kind != FailureKind::kNone ? exception_kind : FailureKind::kQueryError,
           result.status().message());
      return;
    }
    const QueryResult* rows = nullptr;
    for (const QueryResult& q : *result) {
      if (q.has_rows) rows = &q;
    }
    if (rows == nullptr) {
      const std::string tag = result->empty() ? "" : result->back().command_tag;
      Fail(r, FailureKind::kNoRows, "the query returned no rows (command tag: " + tag + ")");
      return;
    }
    const size_t columns = static_cast<size_t>(rows->schema->num_fields());
    if (columns != record.types.size()) {
      Fail(r, FailureKind::kColumnCount,
           fmt::format("expected {} column(s) (type string '{}'), the query returned {}",
                       record.types.size(), record.types, columns));
      return;
    }
    std::vector<std::string> values;
    try {
      values = RenderResult(*rows, record.types);
    } catch (const std::exception& e) {
      Fail(r, FailureKind::kInternalError, std::string("internal error rendering the result: ") + e.what());
      return;
    }
    SortValues(&values, columns, record.sort);
    r->actual_count = static_cast<int64_t>(values.size());
    r->actual_hash = HashValues(values);

    if (record.expected_is_hash) {
      if (record.expected_hash_count != r->actual_count || record.expected_hash != r->actual_hash) {
        Fail(r, FailureKind::kWrongResult,
             fmt::format("wrong result hash: expected {} values hashing to {}, got {} values hashing to {}",
                         record.expected_hash_count, record.expected_hash, r->actual_count,
                         r->actual_hash));
      }
    } else {
      const size_t n = std::min(values.size(), record.expected.size());
      for (size_t i = 0; i < n; ++i) {
        if (values[i] != record.expected[i]) {
          r->first_difference = static_cast<int64_t>(i);
          break;
        }
      }
      if (r->first_difference < 0 && values.size() != record.expected.size()) {
        r->first_difference = static_cast<int64_t>(n);
      }
      if (r->first_difference >= 0) {
        Fail(r, FailureKind::kWrongResult,
             values.size() == record.expected.size()
                 ? "wrong result"
                 : fmt::format("wrong result: expected {} values, got {}", record.expected.size(),
                               values.size()));
      }
    }
    if (r->outcome == Outcome::kPassed && !record.label.empty()) {
      auto [it, inserted] = labels_.emplace(record.label, Label{r->actual_hash, record.line});
      if (!inserted && it->second.hash != r->actual_hash) {
        Fail(r, FailureKind::kLabelMismatch,
             fmt::format("labeled result [{}] does not agree with the result at line {}", record.label,
                         it->second.line));
      }
    }
    if (r->outcome == Outcome::kFailed) {
      if (values.size() > RecordResult::kKeptValues) values.resize(RecordResult::kKeptValues);
      r->actual = std::move(values);
    }
  }

  Database db_;
  std::map<std::string, Label> labels_;
};

}  // namespace

const char* FailureKindName(FailureKind kind) {
  switch (kind) {
    case FailureKind::kNone:
      return "none";
    case FailureKind::kStatementError:
      return "statement failed";
    case FailureKind::kQueryError:
      return "query failed";
    case FailureKind::kUnexpectedSuccess:
      return "statement succeeded, error expected";
    case FailureKind::kNoRows:
      return "query returned no rows";
    case FailureKind::kColumnCount:
      return "wrong column count";
    case FailureKind::kWrongResult:
      return "wrong result";
    case FailureKind::kLabelMismatch:
      return "label mismatch";
    case FailureKind::kInvalidRecord:
      return "invalid record";
    case FailureKind::kInternalError:
      return "internal error";
    case FailureKind::kCrash:
      return "crash";
    case FailureKind::kTimeout:
      return "timeout";
  }
  return "?";
}

double FileReport::PassRate() const {
  const int64_t applicable = passed + failed;
  return applicable == 0 ? 100.0 : 100.0 * static_cast<double>(passed) / static_cast<double>(applicable);
}

FileReport ScriptRunner::Run(const std::string& path, const std::vector<Record>& records,
                             const RecordCallback& on_record, const StartCallback& on_start) {
  const auto start = std::chrono::steady_clock::now();
  FileReport report;
  report.path = path;
  FileRun run(options_);
  for (const Record& record : records) {
    const bool applies = RecordApplies(record, options_.engine);
    RecordResult r;
    r.record = &record;
    switch (record.kind) {
      case RecordKind::kHashThreshold:
        continue;  // only decided how the script's author wrote results down
      case RecordKind::kHalt:
        if (!applies) continue;
        report.halted = true;
        break;
      case RecordKind::kInvalid:
        if (!applies) continue;
        Fail(&r, FailureKind::kInvalidRecord, record.invalid_reason);
        break;
      case RecordKind::kStatement:
      case RecordKind::kQuery:
        if (applies) {
          if (on_start) on_start(record);
          r = run.RunRecord(record);
        } else {
          r.outcome = Outcome::kSkipped;
          run.NoteSkippedLabel(record);
        }
        break;
    }
    if (report.halted) break;
    switch (r.outcome) {
      case Outcome::kPassed:
        ++report.passed;
        break;
      case Outcome::kSkipped:
        ++report.skipped;
        break;
      case Outcome::kFailed:
        ++report.failed;
        break;
    }
    if (on_record) on_record(r);
    if (r.outcome == Outcome::kFailed) {
      report.failures.push_back(std::move(r));
      if (options_.stop_on_fail) {
        report.stopped = true;
        break;
      }
    }
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace quiver::slt
