"""What the real-browser journeys run: the app on a real Streamlit server (started and stopped
through :mod:`tests.processes`, so an interrupted run leaves none running) and Debian's
Chromium. A test module imports these from here, never from another test module."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests import processes
from tests.helpers import REPO

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
LAUNCH_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_app(log: Path, *, port: int | None = None,
              env: Mapping[str, str] | None = None) -> tuple[subprocess.Popen, str]:
    """A Streamlit server for the app (on ``port``, else a free one), its output appended to
    ``log``; not waited for: see :func:`wait_until_up`. Stop it with :func:`stop`."""
    port = port or free_port()
    command = [
        sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
        "--server.port", str(port), "--server.address", "127.0.0.1",
        "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false",
    ]
    with open(log, "a") as output:
        process = processes.start(command, cwd=REPO, stdout=output, stderr=subprocess.STDOUT,
                                  env=None if env is None else {**os.environ, **env})
    return process, f"http://127.0.0.1:{port}"


def wait_until_up(process: subprocess.Popen, url: str, log: Path) -> None:
    """Poll the server's health endpoint until it answers (the app's script has not run yet:
    that happens when the first browser session connects)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.read() == b"ok":
                    return
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"the Streamlit server did not start:\n{log.read_text()}")
        time.sleep(0.3)
