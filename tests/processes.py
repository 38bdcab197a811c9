"""Processes the tests start (Streamlit servers, pip and venv, a child pytest), each in a
process group of its own, and stopped with everything it started.

A process is stopped by its test or fixture (:func:`stop`, or :func:`run`, which waits for
it), also when the run is interrupted: Ctrl-C raises KeyboardInterrupt and so does SIGTERM
(``conftest.py`` makes it), and pytest then runs the fixtures' finalizers. Whatever is still
running when the interpreter exits is stopped then. A test module imports these from here,
never from another test module.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path

#: Seconds a process group has to end after SIGTERM before it gets SIGKILL.
GRACE = 10

_running: set[subprocess.Popen] = set()


def start(command: Sequence[str | Path], **options) -> subprocess.Popen:
    """``subprocess.Popen(command, **options)`` in a new session (its own process group),
    remembered until it is stopped."""
    process = subprocess.Popen([str(part) for part in command], start_new_session=True,
                               **options)
    _running.add(process)
    return process


def stop(process: subprocess.Popen) -> None:
    """End the process's group: SIGTERM, then SIGKILL after :data:`GRACE` seconds. Processes
    left in the group after its first one ended (a build backend pip started) end too."""
    _running.discard(process)
    for sent in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sent)
        except ProcessLookupError:  # nothing left in the group
            break
        try:
            process.wait(timeout=GRACE)
        except subprocess.TimeoutExpired:
            continue
        if not _group_alive(process.pid):
            break
    process.wait()


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def run(command: Sequence[str | Path], *, timeout: float, **options
        ) -> subprocess.CompletedProcess[str]:
    """Like ``subprocess.run(command, capture_output=True, text=True, timeout=timeout)``, in a
    process group of its own that is ended once the command returns, times out or is
    interrupted."""
    process = start(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                    **options)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    finally:
        stop(process)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


@atexit.register
def _stop_all() -> None:
    for process in list(_running):
        stop(process)
