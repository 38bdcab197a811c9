"""An interrupted run leaves no process behind.

A child pytest, with this suite's fixtures, starts what the journeys start (the app's
Streamlit server, the browser, the local Spark session) or a test's subprocess, and waits. It
is then interrupted as a person does (Ctrl-C, which signals its whole process group) or as a
CI runner does (SIGTERM to pytest). Every process started on its behalf carries a mark in its
environment, so those left running are found whoever their parent has become.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from tests import processes
from tests.helpers import REPO
from tests.servers import CHROMIUM

pytestmark = pytest.mark.journey

MARK = "RANKMETRICS_INTERRUPTED_RUN"

WAITING_TESTS = textwrap.dedent("""
    import subprocess
    import sys
    import time

    def test_server(server):
        print("READY", flush=True)
        time.sleep(600)

    def test_browser(browser, server):
        browser.new_page().goto(server)
        print("READY", flush=True)
        time.sleep(600)

    def test_spark(spark):
        assert spark.range(3).count() == 3
        print("READY", flush=True)
        time.sleep(600)

    def test_subprocess():
        subprocess.run([sys.executable, "-c",
                        "import time; print('READY', flush=True); time.sleep(600)"])
""")


def _marked(mark: str) -> list[int]:
    """The processes whose environment holds ``MARK=mark``."""
    found = []
    wanted = f"{MARK}={mark}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environment = (entry / "environ").read_bytes()
        except OSError:  # ended meanwhile, or not ours to read
            continue
        if wanted in environment.split(b"\0"):
            found.append(int(entry.name))
    return found


def _commands(pids: list[int]) -> dict[int, str]:
    commands = {}
    for pid in pids:
        try:
            commands[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:  # ended meanwhile
            continue
    return {pid: command.decode(errors="replace")[:160] for pid, command in commands.items()}


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _needs(fixture: str) -> None:
    """Skip (or fail, where CI requires them) a case whose fixture's program is missing."""
    missing = {"spark": ("REQUIRE_SPARK", shutil.which("java") is None, "no Java"),
               "browser": ("REQUIRE_BROWSER", not Path(CHROMIUM).exists(), "no Chromium")}
    if fixture in missing:
        variable, absent, what = missing[fixture]
        if absent:
            if os.environ.get(variable):
                pytest.fail(f"{variable} is set but there is {what}", pytrace=False)
            pytest.skip(what)


@pytest.mark.parametrize(("fixture", "interrupt"), [
    ("server", "ctrl-c"), ("server", "sigterm"), ("browser", "sigterm"),
    ("spark", "ctrl-c"), ("spark", "sigterm"), ("subprocess", "ctrl-c"),
    ("subprocess", "sigterm"),
])
def test_an_interrupted_run_leaves_no_process(tmp_path, fixture, interrupt):
    _needs(fixture)
    (tmp_path / "test_waiting.py").write_text(WAITING_TESTS)
    mark = uuid.uuid4().hex
    env = {**os.environ, MARK: mark, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider",
               "-q", "-s", "--rootdir", REPO, "-c", REPO / "pyproject.toml",
               "--basetemp", tmp_path / "run", tmp_path / f"test_waiting.py::test_{fixture}"]
    child = processes.start(command, cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        output = []
        for line in child.stdout:
            output.append(line)
            if line.strip() == "READY":
                break
        else:
            pytest.fail(f"the child pytest ended before its fixture was up:\n{''.join(output)}")
        assert len(_marked(mark)) >= 2, "the fixture started no process"
        if interrupt == "ctrl-c":
            os.killpg(child.pid, signal.SIGINT)
        else:
            os.kill(child.pid, signal.SIGTERM)
        rest, _ = child.communicate(timeout=120)
        assert child.returncode == pytest.ExitCode.INTERRUPTED, "".join(output) + rest
        deadline = time.monotonic() + 30
        while _marked(mark) and time.monotonic() < deadline:
            time.sleep(0.5)
        left = _marked(mark)
        assert not left, f"left running after the run ended: {_commands(left)}"
    finally:
        processes.stop(child)
        _kill(_marked(mark))
