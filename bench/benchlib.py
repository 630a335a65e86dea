"""Helpers shared by the benchmark scripts: machine and version lines for the
results header, and rewriting one script's section of bench/RESULTS.md."""

import platform
import re
import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

RESULTS_HEADER = ("# Benchmark results\n\nEach section is rewritten by the script named in it; "
                  "see bench/README.md for how to run them.\n\n")


def machine_line():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    return f"`nproc` = {nproc}, {cpu}, {platform.system()} {platform.release()}"


def quiver_version(quiver):
    v = subprocess.run([str(quiver), "--version"], capture_output=True, text=True).stdout.strip()
    rev = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip()
    return f"{v or 'quiver'} ({rev}, uncommitted changes possible)"


def replace_section(path, start, end, markdown):
    """Puts `markdown` between the markers `start` and `end` in the results
    file `path`, replacing what was there, or appends it (creating the file)."""
    path = Path(path)
    section = f"{start}\n{markdown}\n{end}\n"
    text = path.read_text() if path.exists() else RESULTS_HEADER
    if start in text and end in text:
        text = re.sub(re.escape(start) + r".*?" + re.escape(end) + r"\n?", lambda _: section, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text)
