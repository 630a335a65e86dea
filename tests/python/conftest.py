"""Shared fixtures for Quiver's interop tests (pytest).

Every test here runs the real `quiver` binary as a subprocess and checks its
output against an independent peer (pyarrow, DuckDB), never against strings
Quiver itself produced earlier.

  quiver_bin      path of the binary: $QUIVER_BIN, else build/release/quiver.
                  A missing binary FAILS the session (it is a broken build,
                  not a reason to skip).
  run_quiver      run_quiver(*args, check=True, timeout=120) -> CompletedProcess
                  with text stdout/stderr; check=True fails the test with the
                  command line and stderr when the exit status is not 0.
  shared_testdata the shared test data directory: $QUIVER_SHARED/testdata,
                  else <repo>/../shared/testdata.
  tmp_path        (pytest's) a fresh directory per test for inputs and outputs.
"""

import os
import shlex
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


def _resolve_quiver_bin() -> Path:
    env = os.environ.get("QUIVER_BIN")
    path = Path(env) if env else REPO_ROOT / "build" / "release" / "quiver"
    if not path.is_absolute():
        path = (REPO_ROOT / path).resolve()
    return path


@pytest.fixture(scope="session")
def quiver_bin() -> Path:
    path = _resolve_quiver_bin()
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(
            f"quiver binary not found or not executable: {path} "
            "(build it with scripts/quickstart or set QUIVER_BIN)",
            pytrace=False,
        )
    return path


@pytest.fixture(scope="session")
def run_quiver(quiver_bin):
    def run(*args, check=True, timeout=120, input=None):
        cmd = [str(quiver_bin), *[str(a) for a in args]]
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, input=input
        )
        if check and proc.returncode != 0:
            pytest.fail(
                f"`{shlex.join(cmd)}` exited with {proc.returncode}\n"
                f"stderr:\n{proc.stderr}\nstdout:\n{proc.stdout[-2000:]}",
                pytrace=False,
            )
        return proc

    return run


def shared_testdata_dir() -> Path:
    """$QUIVER_SHARED/testdata, else <repo>/../shared/testdata (may not exist)."""
    env = os.environ.get("QUIVER_SHARED")
    base = Path(env) if env else REPO_ROOT.parent / "shared"
    return base / "testdata"


@pytest.fixture(scope="session")
def shared_testdata() -> Path:
    path = shared_testdata_dir()
    if not path.is_dir():
        pytest.fail(
            f"shared test data not found at {path} (set QUIVER_SHARED)", pytrace=False
        )
    return path
