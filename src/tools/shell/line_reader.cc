#include "tools/shell/line_reader.h"

#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <clocale>
#include <cstdio>
#include <cstring>
#include <cwchar>

#ifdef QUIVER_HAVE_LIBEDIT
#include <histedit.h>
#endif

namespace quiver::cli::shell {

volatile std::sig_atomic_t g_interrupt = 0;
std::atomic<bool> g_cancel_statement{false};
// Stored to from the signal handler: only a lock-free atomic may be.
static_assert(std::atomic<bool>::is_always_lock_free);

namespace {
pthread_t g_main_thread;

// The kernel hands a process signal to any thread that does not block it,
// often one of the engine's workers; the prompt's read() is only
// interrupted on the main thread, so the signal is passed on to it
// (pthread_kill is async-signal-safe).
void OnSigint(int) {
  g_interrupt = 1;
  g_cancel_statement.store(true, std::memory_order_relaxed);
  if (!pthread_equal(pthread_self(), g_main_thread)) pthread_kill(g_main_thread, SIGINT);
}
}  // namespace

void InstallInterruptHandler() {
  g_main_thread = pthread_self();
  struct sigaction sa;
  std::memset(&sa, 0, sizeof(sa));
  sa.sa_handler = OnSigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a read at the prompt returns EINTR
  sigaction(SIGINT, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

#ifdef QUIVER_HAVE_LIBEDIT

bool HasLineEditing() { return true; }

struct LineReader::Impl {
  EditLine* el = nullptr;
  History* hist = nullptr;
  std::string history_file;
  Completer completer;
  std::string prompt;
  bool interrupted = false;
  std::mbstate_t mb{};

  ~Impl() {
    if (el != nullptr) el_end(el);
    if (hist != nullptr) history_end(hist);
  }

  static Impl* From(EditLine* el) {
    void* data = nullptr;
    el_get(el, EL_CLIENTDATA, &data);
    return static_cast<Impl*>(data);
  }

  static char* Prompt(EditLine* el) { return From(el)->prompt.data(); }

  // Reads one character for libedit. Ctrl-C (SIGINT interrupting the read,
  // or the byte itself when the terminal does not turn it into a signal)
  // ends the line as Enter would, marked as interrupted: libedit then
  // leaves the terminal tidy, and the shell drops the line.
  static int GetChar(EditLine* el, wchar_t* out) {
    Impl* self = From(el);
    char bytes[MB_LEN_MAX];
    size_t n = 0;
    for (;;) {
      char c;
      // A Ctrl-C handled between two reads did not interrupt one.
      const ssize_t got = g_interrupt ? -1 : ::read(STDIN_FILENO, &c, 1);
      if (got == 0) return 0;
      if (got < 0 && g_interrupt) {
        c = '\x03';
      } else if (got < 0) {
        if (errno != EINTR) return -1;
        continue;  // another signal (SIGWINCH)
      }
      if (c == '\x03') {
        g_interrupt = 0;
        self->interrupted = true;
        self->mb = std::mbstate_t{};
        *out = L'\n';
        return 1;
      }
      bytes[n++] = c;
      wchar_t wc;
      const size_t k = std::mbrtowc(&wc, bytes, n, &self->mb);
      if (k == static_cast<size_t>(-2) && n < sizeof(bytes)) continue;  // more bytes
      if (k == static_cast<size_t>(-1) || k == static_cast<size_t>(-2)) {
        // Not valid in the locale's encoding: pass the byte on as is.
        self->mb = std::mbstate_t{};
        *out = static_cast<wchar_t>(static_cast<unsigned char>(c));
        return 1;
      }
      *out = wc;
      return 1;
    }
  }

  static size_t CodePoints(std::string_view s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
  }

  static unsigned char Complete(EditLine* el, int) {
    Impl* self = From(el);
    const LineInfo* li = el_line(el);
    const std::string before(li->buffer, static_cast<size_t>(li->cursor - li->buffer));
    const Completion c = self->completer(before);
    if (c.candidates.empty()) return CC_REFRESH_BEEP;
    const std::string word = before.substr(std::min(c.start, before.size()));
    std::string insert;
    if (c.candidates.size() == 1) {
      insert = c.candidates[0];
      if (!(c.paths && !insert.empty() && insert.back() == '/')) insert += c.suffix;
    } else {
      insert = CommonPrefix(c.candidates);
      if (insert.size() <= word.size()) {
        // No progress: list the candidates under the line, in columns.
        size_t width = 0;
        for (const auto& s : c.candidates) width = std::max(width, CodePoints(s));
        width += 2;
        const size_t per_line = std::max<size_t>(1, 80 / width);
        std::string text = "\n";
        const size_t shown = std::min<size_t>(c.candidates.size(), 200);
        for (size_t i = 0; i < shown; ++i) {
          const std::string& s = c.candidates[i];
          text += s;
          if ((i + 1) % per_line == 0 || i + 1 == shown) {
            text += "\n";
          } else {
            text += std::string(width - CodePoints(s), ' ');
          }
        }
        if (shown < c.candidates.size()) {
          text += "... and " + std::to_string(c.candidates.size() - shown) + " more\n";
        }
        std::fputs(text.c_str(), stdout);
        std::fflush(stdout);
        return CC_REDISPLAY;
      }
    }
    if (!word.empty()) el_deletestr(el, static_cast<int>(CodePoints(word)));
    if (el_insertstr(el, insert.c_str()) != 0) return CC_ERROR;
    return CC_REFRESH;
  }
};

Result<std::unique_ptr<LineReader>> LineReader::Open(const std::string& history_file,
                                                     Completer completer) {
  // libedit decodes multibyte input by the locale: take the user's.
  std::setlocale(LC_CTYPE, "");
  auto impl = std::make_unique<Impl>();
  impl->completer = std::move(completer);
  impl->history_file = history_file;
  impl->el = el_init("quiver", stdin, stdout, stderr);
  if (impl->el == nullptr) return Status::IOError("cannot start line editing (libedit)");
  impl->hist = history_init();
  if (impl->hist == nullptr) return Status::IOError("cannot start the history (libedit)");
  HistEvent ev;
  history(impl->hist, &ev, H_SETSIZE, 2000);
  history(impl->hist, &ev, H_SETUNIQUE, 1);
  // A missing history file is the first run, not an error.
  if (!history_file.empty()) history(impl->hist, &ev, H_LOAD, history_file.c_str());
  EditLine* el = impl->el;
  el_set(el, EL_CLIENTDATA, impl.get());
  el_set(el, EL_EDITOR, "emacs");
  el_set(el, EL_HIST, history, impl->hist);
  el_set(el, EL_PROMPT, &Impl::Prompt);
  el_set(el, EL_GETCFN, &Impl::GetChar);
  el_set(el, EL_ADDFN, "quiver-complete", "Complete the word under the cursor", &Impl::Complete);
  el_set(el, EL_BIND, "^I", "quiver-complete", nullptr);
  // ~/.editrc, as other libedit programs.
  el_source(el, nullptr);
  return std::unique_ptr<LineReader>(new LineReader(std::move(impl)));
}

LineReader::ReadStatus LineReader::Read(const std::string& prompt, std::string* line) {
  impl_->prompt = prompt;
  impl_->interrupted = false;
  g_interrupt = 0;  // a Ctrl-C for a query (or the pager) that has ended
  // libedit follows window size changes only with its own signal handlers
  // (EL_SIGNAL), which re-raise SIGINT to the whole process group: the
  // size is read again at each prompt instead.
  el_resize(impl_->el);
  int count = 0;
  const char* got = el_gets(impl_->el, &count);
  if (impl_->interrupted) {
    line->clear();
    return ReadStatus::kInterrupted;
  }
  if (got == nullptr || count <= 0) return ReadStatus::kEof;
  line->assign(got, static_cast<size_t>(count));
  while (!line->empty() && (line->back() == '\n' || line->back() == '\r')) line->pop_back();
  return ReadStatus::kLine;
}

void LineReader::AddHistory(const std::string& line) {
  HistEvent ev;
  history(impl_->hist, &ev, H_ENTER, line.c_str());
  // Saved at once, so a shell killed later keeps what was typed.
  // Only the user may read it, as psql's: statements can hold secrets.
  if (!impl_->history_file.empty()) {
    history(impl_->hist, &ev, H_SAVE, impl_->history_file.c_str());
    ::chmod(impl_->history_file.c_str(), 0600);
  }
}

#else  // !QUIVER_HAVE_LIBEDIT

bool HasLineEditing() { return false; }

struct LineReader::Impl {};

Result<std::unique_ptr<LineReader>> LineReader::Open(const std::string&, Completer) {
  return std::unique_ptr<LineReader>(new LineReader(std::make_unique<Impl>()));
}

LineReader::ReadStatus LineReader::Read(const std::string& prompt, std::string* line) {
  std::fputs(prompt.c_str(), stdout);
  std::fflush(stdout);
  line->clear();
  for (;;) {
    char c;
    const ssize_t got = ::read(STDIN_FILENO, &c, 1);
    if (got < 0 && errno == EINTR && g_interrupt) {
      g_interrupt = 0;
      std::fputs("\n", stdout);
      return ReadStatus::kInterrupted;
    }
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return line->empty() ? ReadStatus::kEof : ReadStatus::kLine;
    if (c == '\n') return ReadStatus::kLine;
    *line += c;
  }
}

void LineReader::AddHistory(const std::string&) {}

#endif  // QUIVER_HAVE_LIBEDIT

LineReader::LineReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LineReader::~LineReader() = default;

}  // namespace quiver::cli::shell
