"""The interactive shell (`quiver` on a terminal), driven through a
pseudo-terminal (Python's pty module): queries and multi-line statements,
tab completion, history across runs, backslash commands, the pager, Ctrl-C
during a long query, and piped input stopping at the first error.

Each shell runs with HOME set to the test's temporary directory (its
~/.quiver_history is the test's own), TERM=xterm and a 40x200 window.
Assertions look at the terminal's output with escape sequences and carriage
returns removed.
"""

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time

import pytest

ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r|\x07")
PROMPT = "quiver=> "


class Shell:
    def __init__(self, quiver_bin, home, cwd=None, args=(), env=None, rows=40, cols=200):
        self.env = dict(os.environ)
        self.env.update(HOME=str(home), TERM="xterm", PAGER="", LC_ALL="C.UTF-8")
        self.env.pop("VISUAL", None)
        self.env.update(env or {})
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the shell on the pseudo-terminal
            if cwd:
                os.chdir(str(cwd))
            os.execve(str(quiver_bin), [str(quiver_bin), *args], self.env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.buffer = b""
        self.expect(PROMPT)

    def drain(self, seconds=0.3):
        """Drops what the shell has printed so far (waiting `seconds`)."""
        try:
            self.expect("(?!)", timeout=seconds)
        except AssertionError:
            pass
        self.buffer = b""

    def send(self, text):
        os.write(self.fd, text.encode() if isinstance(text, str) else text)

    def expect(self, pattern, timeout=15):
        """Waits for `pattern` (a regex) in the cleaned output; returns the
        output up to and including it and drops it from the buffer."""
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern.encode() if isinstance(pattern, str) else pattern)
        while True:
            clean = ANSI.sub(b"", self.buffer)
            m = regex.search(clean)
            if m:
                self.buffer = clean[m.end():]
                return clean[: m.end()].decode("utf-8", "replace")
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"timed out waiting for {pattern!r}; output so far:\n"
                    + clean.decode("utf-8", "replace")
                )
            r, _, _ = select.select([self.fd], [], [], min(left, 0.05))
            if r:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:
                    data = b""
                if not data:
                    raise AssertionError(
                        f"shell exited waiting for {pattern!r}; output:\n"
                        + clean.decode("utf-8", "replace")
                    )
                self.buffer += data

    def send_eof(self, timeout=10):
        """Types Ctrl-D once the line editor has the terminal in raw mode.

        libedit prints the prompt and then leaves canonical mode; a Ctrl-D
        typed in between is taken by the kernel's line discipline (as an
        end-of-file mark, which reaches the editor as a NUL), not by the
        editor. On Linux the pty master reports the slave's termios."""
        deadline = time.monotonic() + timeout
        while termios.tcgetattr(self.fd)[3] & termios.ICANON:
            if time.monotonic() > deadline:
                raise AssertionError("the line editor never left canonical mode")
            time.sleep(0.01)
        self.send("\x04")

    def run(self, statement, timeout=15):
        """Types a line and returns the output up to the next prompt."""
        self.send(statement + "\r")
        return self.expect(re.escape(PROMPT), timeout)

    def close(self):
        self.send("\\q\r")
        return self.wait()

    def wait(self, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                try:
                    os.read(self.fd, 65536)
                except OSError:
                    pass
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            try:  # keep the pty drained
                if select.select([self.fd], [], [], 0.05)[0]:
                    os.read(self.fd, 65536)
            except OSError:
                pass
        os.kill(self.pid, 9)
        raise AssertionError("the shell did not exit")


@pytest.fixture
def shell(quiver_bin, tmp_path):
    shells = []

    def start(**kw):
        kw.setdefault("cwd", tmp_path)
        s = Shell(quiver_bin, tmp_path, **kw)
        shells.append(s)
        return s

    yield start
    for s in shells:
        try:
            os.kill(s.pid, 9)
            os.waitpid(s.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def test_query_multiline_and_exit(shell):
    sh = shell()
    out = sh.run("select 1 + 1 as two, 'x' as b;")
    assert re.search(r"│\s+two\s+│\s+b\s+│", out)
    assert re.search(r"│\s+2 │ x\s+│", out)
    # A statement over three lines: continuation prompts, then the result.
    sh.send("select 40\r")
    sh.expect(re.escape("quiver-> "))
    sh.send("  + 2 as answer, ';' as semi -- a comment; not the end\r")
    sh.expect(re.escape("quiver-> "))
    out = sh.run(";")
    assert re.search(r"│\s+42 │ ;\s+│", out)
    # An open quote shows in the prompt.
    sh.send("select 'a\r")
    sh.expect(re.escape("quiver'> "))
    out = sh.run("b' as ab;")
    assert "a\\nb" in out or "a" in out
    # Errors are reported and the shell goes on.
    out = sh.run("select nope;")
    assert 'column "nope" does not exist' in out
    # Ctrl-D on an empty line ends the shell with status 0.
    sh.send_eof()
    assert sh.wait() == 0


def test_quiver_sql_opens_the_shell_too(shell):
    sh = shell(args=["sql"])
    assert "│        7 │" in sh.run("select 7;")
    assert sh.close() == 0


def test_tab_completion(shell, tmp_path):
    (tmp_path / "events_2024.csv").write_text("id,kind\n1,a\n2,b\n3,a\n")
    sh = shell()
    sh.run("create table lineitem_demo as select generate_series as quantity from generate_series(1, 10);")
    # A table name after FROM.
    sh.send("select count(*) as n from lineit\t")
    sh.expect("lineitem_demo ")
    out = sh.run(";")
    assert re.search(r"│\s+10 │", out)
    # A keyword, in the case typed.
    sh.send("sel\t")
    sh.expect("select ")
    assert re.search(r"│\s+5 │", sh.run("5 as five;"))
    # A column of the table the statement names.
    sh.send("select count(*) as n from lineitem_demo where quant\t")
    sh.expect("quantity ")
    assert re.search(r"│\s+8 │", sh.run("> 2;"))
    # A function name from the registry.
    sh.send("select upp\t")
    sh.expect("upper ")
    assert "ABC" in sh.run("('abc');")
    # A file path inside single quotes; the closing quote is added.
    sh.send("select count(*) as n from read_csv('events_2\t")
    sh.expect("events_2024.csv'")
    assert re.search(r"│\s+3 │", sh.run(", header => true);"))
    # Several candidates: Tab twice lists them.
    sh.send("select * from lineitem_demo wh\t")
    sh.expect("whe")
    sh.send("\t")
    listing = sh.expect(r"when\s+where")
    assert "when" in listing
    sh.drain()  # the prompt redrawn under the listing
    sh.send("\x03")  # drop the line
    sh.expect(re.escape(PROMPT))
    assert sh.close() == 0


def test_history_persists_across_runs(shell, tmp_path):
    sh = shell()
    sh.run("select 4242 as remembered;")
    assert sh.close() == 0
    history = tmp_path / ".quiver_history"
    assert history.exists()
    assert "4242" in history.read_text()
    sh = shell()
    sh.send("\x1b[A\x1b[A")  # up arrow twice: before \q, the query of the earlier run
    sh.expect("4242 as remembered;")
    out = sh.run("")
    assert re.search(r"│\s+4242 │", out)
    assert sh.close() == 0


def test_describe(shell, tmp_path):
    (tmp_path / "people.csv").write_text("name,age\nann,31\nbob,42\n")
    sh = shell()
    assert "Did not find any relations." in sh.run("\\d")
    sh.run("create table t as select 1 as a, 'x' as b, 2.5::double precision as c;")
    sh.run("create view v as select a, b from t;")
    out = sh.run("\\d")
    assert re.search(r" t\s+\| table\s+\|\s+1 \| memory table", out)
    assert re.search(r" v\s+\| view", out)
    assert "(2 rows)" in out
    out = sh.run("\\d t")
    assert 'Table "t"' in out
    assert re.search(r" a\s+\| integer", out)
    assert re.search(r" b\s+\| text", out)
    assert re.search(r" c\s+\| double precision", out)
    out = sh.run("\\d v")
    assert 'View "v"' in out and re.search(r" b\s+\| text", out)
    assert "View definition:" in out
    # A file: its columns and types as the engine reads them.
    out = sh.run("\\d people.csv")
    assert re.search(r" name\s+\| text", out) and re.search(r" age\s+\| (integer|bigint)", out)
    assert 'Did not find any relation named "nope"' in sh.run("\\d nope")
    out = sh.run("\\df upp*")
    assert re.search(r" upper\s+\| text\s+\| text\s+\| func", out)
    out = sh.run("\\df sum")
    assert re.search(r" sum\s+\|.*\| agg", out)
    assert "invalid command \\dt" in sh.run("\\dt")
    assert "\\timing" in sh.run("\\?")
    assert sh.close() == 0


def test_expanded_and_timing(shell):
    sh = shell()
    assert "Expanded display is on." in sh.run("\\x")
    out = sh.run("select 1 as a, 'yes' as bb from generate_series(1, 2);")
    assert "-[ RECORD 1 ]" in out and "-[ RECORD 2 ]" in out
    assert re.search(r"\na\s+\| 1\n", out) and re.search(r"\nbb \| yes\n", out)
    assert "Expanded display is off." in sh.run("\\x off")
    assert "Expanded display is used automatically." in sh.run("\\x auto")
    # auto: a narrow result stays a table, a wide one is expanded.
    assert "RECORD" not in sh.run("select 1 as a;")
    wide = ", ".join(f"'{'w' * 30}' as c{i}" for i in range(10))
    assert "-[ RECORD 1 ]" in sh.run(f"select {wide};")
    sh.run("\\x off")
    assert "Timing is on." in sh.run("\\timing")
    out = sh.run("select 1;")
    assert re.search(r"Time: \d+\.\d{3} ms", out)
    assert "Timing is off." in sh.run("\\timing off")
    assert "Time:" not in sh.run("select 1;")
    assert sh.close() == 0


def test_output_include_and_edit(shell, tmp_path):
    script = tmp_path / "script.sql"
    script.write_text("create table s as select 3 as k;\n\\x on\nselect k * 2 as doubled\nfrom s;\n")
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\necho 'select 31337 as edited;' > \"$1\"\n")
    editor.chmod(0o755)
    sh = shell(env={"EDITOR": str(editor)})
    out = sh.run("\\i script.sql")
    assert "doubled | 6" in out
    sh.run("\\x off")
    out_file = tmp_path / "out.txt"
    sh.run(f"\\o {out_file}")
    shown = sh.run("select 99 as to_file;")
    assert "│" not in shown
    sh.run("\\o")
    assert re.search(r"│\s+99 │", out_file.read_text())
    assert re.search(r"│\s+31337 │", sh.run("\\e"))
    assert sh.close() == 0


def test_include_stops_at_the_first_error(shell, tmp_path):
    (tmp_path / "bad.sql").write_text("select 1;\n\nselect 1/0;\nselect 'not reached';\n")
    sh = shell()
    out = sh.run("\\i bad.sql")
    assert "division by zero" in out
    assert "line 3 of bad.sql" in out
    assert "not reached" not in out
    assert sh.close() == 0


def test_pager_for_long_results(shell):
    sh = shell(env={"PAGER": "sed s/^/PAGED:/"}, rows=20)
    out = sh.run("select * from generate_series(1, 50);")
    assert "PAGED:│" in out
    out = sh.run("select 1 as short;")
    assert "PAGED" not in out
    assert sh.close() == 0


def test_ctrl_c_cancels_the_query_not_the_shell(shell):
    sh = shell()
    # Ctrl-C at the prompt drops the unfinished statement.
    sh.send("select 'never\r")
    sh.expect(re.escape("quiver'> "))
    sh.send("\x03")
    sh.expect(re.escape(PROMPT))
    assert re.search(r"│\s+5 │", sh.run("select 5;"))
    # A query that would run for hours: progress after 2 s, then Ctrl-C.
    sh.send(
        "select count(*) from generate_series(1, 1000000) a, generate_series(1, 1000000) b;\r"
    )
    sh.expect(r"rows so far\s+\(Ctrl-C cancels\)", timeout=10)
    start = time.monotonic()
    sh.send("\x03")
    out = sh.expect(re.escape(PROMPT), timeout=10)
    elapsed = time.monotonic() - start
    assert "canceling statement due to user request" in out
    # The aim is under a second (cancellation is checked at every morsel);
    # the bound leaves room for a loaded 2-core CI machine.
    assert elapsed < 3.0, f"back at the prompt after {elapsed:.2f} s"
    # The shell still works.
    assert re.search(r"│\s+6 │", sh.run("select 6;"))
    # A command runs inside the engine's ExecuteStream; Ctrl-C reaches it too,
    # and the table is not created.
    sh.send(
        "create table big as select count(*) from generate_series(1, 1000000) a,"
        " generate_series(1, 1000000) b;\r"
    )
    sh.expect(r"running \d+s\s+\(Ctrl-C cancels\)", timeout=10)
    start = time.monotonic()
    sh.send("\x03")
    out = sh.expect(re.escape(PROMPT), timeout=10)
    elapsed = time.monotonic() - start
    assert "canceling statement due to user request" in out
    # The aim is under a second (cancellation is checked at every morsel);
    # the bound leaves room for a loaded 2-core CI machine.
    assert elapsed < 3.0, f"back at the prompt after {elapsed:.2f} s"
    assert "Did not find any relations." in sh.run("\\d")
    assert sh.close() == 0


def test_piped_input_stops_at_the_first_error(quiver_bin, tmp_path):
    script = "select 1 as one;\nselect 2 as two;\n\n-- the failing one:\nselect 1/0;\nselect 3 as three;\n"
    proc = subprocess.run(
        [str(quiver_bin), "sql"], input=script, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1
    assert "one" in proc.stdout and "two" in proc.stdout
    assert "three" not in proc.stdout
    assert "ERROR:  division by zero" in proc.stderr
    assert "stopped at the statement on line 5 of standard input" in proc.stderr
    # A syntax error: nothing runs, and its line is named.
    proc = subprocess.run(
        [str(quiver_bin), "sql"], input="select 1;\nselect from from;\n", capture_output=True,
        text=True, timeout=60,
    )
    assert proc.returncode == 1
    assert "syntax error on line 2 of standard input" in proc.stderr
    # -f names the file.
    f = tmp_path / "s.sql"
    f.write_text("select 1;\nselect nope;\n")
    proc = subprocess.run(
        [str(quiver_bin), "sql", "-f", str(f)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1
    assert f"stopped at the statement on line 2 of {f}" in proc.stderr
    # `quiver` alone with piped input is not a shell: the overview, status 2.
    proc = subprocess.run([str(quiver_bin)], input="select 1;", capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Flight SQL" in proc.stderr
