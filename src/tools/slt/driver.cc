#include "tools/slt/driver.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

namespace quiver::slt {
namespace {

void PrintOutcome(const std::string& path, const RecordResult& r) {
  const char* what = r.outcome == Outcome::kPassed ? "ok" : r.outcome == Outcome::kSkipped ? "skip" : "FAIL";
  const std::string line = fmt::format("{}:{}: {} {}\n", path, r.record->line, what, Clip(r.record->sql, 100));
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}

bool KeepText(const FileSummary& s, const DriveOptions& options) {
  return options.verbose || s.failures.size() < static_cast<size_t>(std::max(options.show_failures, 0));
}

void Count(FileSummary* s, const RecordResult& r, const DriveOptions& options) {
  switch (r.outcome) {
    case Outcome::kPassed:
      ++s->passed;
      break;
    case Outcome::kSkipped:
      ++s->skipped;
      break;
    case Outcome::kFailed:
      ++s->failed;
      s->failures.push_back(MakeNote(s->path, r, KeepText(*s, options)));
      break;
  }
}

FileSummary RunInProcess(const std::string& path, const std::vector<Record>& records,
                         const DriveOptions& options) {
  FileSummary s;
  s.path = path;
  ScriptRunner runner(options.run);
  const FileReport report = runner.Run(path, records, [&](const RecordResult& r) {
    if (options.verbose) PrintOutcome(path, r);
    Count(&s, r, options);
  });
  s.halted = report.halted;
  s.stopped = report.stopped;
  s.seconds = report.seconds;
  return s;
}

// --- the pipe between child and parent ----------------------------------------
//
// Messages are "<type><payload length>:<payload>":
//   R  the record at this index of `records` is about to run
//   P  it passed;  S  a record was skipped
//   F  it failed: group_key \x1f where \x1f sql \x1f text
//   E  the script ended: "<halted 0|1><stopped 0|1>"

constexpr char kSep = '\x1f';

void Send(int fd, char type, const std::string& payload) {
  std::string msg = fmt::format("{}{}:", type, payload.size()) + payload;
  const char* p = msg.data();
  size_t left = msg.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(3);  // the parent is gone
    p += n;
    left -= static_cast<size_t>(n);
  }
}

[[noreturn]] void RunChild(int fd, const std::string& path, const std::vector<Record>& records,
                           const DriveOptions& options) {
  FileSummary s;  // only for KeepText's count of failures
  s.path = path;
  ScriptRunner runner(options.run);
  const FileReport report = runner.Run(
      path, records,
      [&](const RecordResult& r) {
        if (options.verbose) PrintOutcome(path, r);
        if (r.outcome == Outcome::kFailed) {
          const FailureNote note = MakeNote(path, r, KeepText(s, options));
          s.failures.emplace_back();
          Send(fd, 'F', note.group_key + kSep + note.where + kSep + note.sql + kSep + note.text);
        } else {
          Send(fd, r.outcome == Outcome::kPassed ? 'P' : 'S', "");
        }
      },
      [&](const Record& record) { Send(fd, 'R', std::to_string(&record - records.data())); });
  Send(fd, 'E', std::string(report.halted ? "1" : "0") + (report.stopped ? "1" : "0"));
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(0);
}

std::vector<std::string> Split(const std::string& s, char sep, size_t parts) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (out.size() + 1 < parts) {
    const size_t next = s.find(sep, pos);
    if (next == std::string::npos) break;
    out.push_back(s.substr(pos, next - pos));
    pos = next + 1;
  }
  out.push_back(s.substr(pos));
  out.resize(parts);
  return out;
}

FileSummary RunIsolated(const std::string& path, const std::vector<Record>& records,
                        const DriveOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  int fds[2];
  if (::pipe(fds) != 0) return RunInProcess(path, records, options);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return RunInProcess(path, records, options);
  }
  if (pid == 0) {
    ::close(fds[0]);
    RunChild(fds[1], path, records, options);
  }
  ::close(fds[1]);

  FileSummary s;
  s.path = path;
  std::string buf;
  size_t pos = 0;
  int64_t running = -1;  // index of the record the child is running
  bool ended = false;
  bool timed_out = false;
  char chunk[65536];
  while (true) {
    const int timeout_ms =
        running >= 0 && options.timeout_seconds > 0 ? static_cast<int>(options.timeout_seconds * 1000) : -1;
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      ::kill(pid, SIGKILL);
      timed_out = true;
      break;
    }
    const ssize_t n = ::read(fds[0], chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buf.append(chunk, static_cast<size_t>(n));
    // Decode every complete message.
    while (true) {
      const size_t colon = buf.find(':', pos);
      if (colon == std::string::npos) break;
      const size_t length = std::stoul(buf.substr(pos + 1, colon - pos - 1));
      if (buf.size() < colon + 1 + length) break;
      const char type = buf[pos];
      const std::string payload = buf.substr(colon + 1, length);
      pos = colon + 1 + length;
      switch (type) {
        case 'R':
          running = std::stoll(payload);
          break;
        case 'P':
          ++s.passed;
          running = -1;
          break;
        case 'S':
          ++s.skipped;
          break;
        case 'F': {
          const std::vector<std::string> f = Split(payload, kSep, 4);
          s.failures.push_back(FailureNote{f[0], f[1], f[2], f[3]});
          ++s.failed;
          running = -1;
          break;
        }
        case 'E':
          ended = true;
          s.halted = payload.size() > 0 && payload[0] == '1';
          s.stopped = payload.size() > 1 && payload[1] == '1';
          break;
        default:
          break;
      }
    }
    if (pos > (1 << 20)) {
      buf.erase(0, pos);
      pos = 0;
    }
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (ended && !timed_out) return s;

  RecordResult r;
  r.outcome = Outcome::kFailed;
  if (timed_out) {
    r.failure = FailureKind::kTimeout;
    r.message = fmt::format("timed out after {} s", options.timeout_seconds);
  } else if (WIFSIGNALED(status)) {
    r.failure = FailureKind::kCrash;
    r.message = fmt::format("engine crashed (signal {}: {})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  } else {
    r.failure = FailureKind::kCrash;
    r.message = fmt::format("the runner process exited with status {}", WEXITSTATUS(status));
  }
  s.aborted = r.message;
  if (running >= 0 && running < static_cast<int64_t>(records.size())) {
    r.record = &records[static_cast<size_t>(running)];
    s.aborted += fmt::format(" at line {}", r.record->line);
    ++s.failed;
    s.failures.push_back(MakeNote(path, r, /*with_text=*/true));  // shown past --show-failures too
  }
  return s;
}

}  // namespace

FileSummary RunFile(const std::string& path, const std::vector<Record>& records, const DriveOptions& options) {
  return options.isolate ? RunIsolated(path, records, options) : RunInProcess(path, records, options);
}

}  // namespace quiver::slt
