"""The documentation shows the command line as it is: every ``--help`` printed in
docs/command-line.md is the command's own output (80 columns), so a changed option cannot
leave the docs behind."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "command-line.md"
COMMANDS = ["", "evaluate", "report", "k-report", "metrics", "overlap", "plan", "significance",
            "runs", "conventions"]


def shown_help() -> dict[str, str]:
    """Each ``usage: rankmetrics ...`` block of the page, by command ('' for the top one)."""
    blocks = re.findall(r"^( *)```text\n(.*?)^\1```", PAGE.read_text(encoding="utf-8"),
                        flags=re.S | re.M)
    found = {}
    for _, body in blocks:
        text = textwrap.dedent(body)
        match = re.match(r"usage: rankmetrics(?: ([a-z-]+))? ", text)
        if match:
            found[match.group(1) or ""] = text
    return found


def real_help(command: str) -> str:
    environment = {**os.environ, "COLUMNS": "80"}
    words = [command] if command else []
    return subprocess.run([sys.executable, "-m", "rankmetrics", *words, "--help"],
                          capture_output=True, text=True, env=environment, cwd=ROOT,
                          check=True).stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_the_help_shown_in_the_docs_is_the_commands_own(command):
    shown = shown_help()
    assert command in shown, f"docs/command-line.md shows no help of '{command}'"
    assert shown[command] == real_help(command)


def quick_start(page: Path) -> list[str]:
    """The commands of a page that make the virtual environment (dashboard, then tests)."""
    return re.findall(r"^python3 -m venv \.venv .*$", page.read_text(encoding="utf-8"), re.M)


def test_the_quick_start_installs_the_command_and_ci_runs_the_readmes_test_command():
    readme = quick_start(ROOT / "README.md")
    assert len(readme) == 2 and readme[0].endswith(".venv/bin/streamlit run app.py")
    assert readme == quick_start(ROOT / "docs" / "getting-started.md")
    for command in readme:  # the package too, so that .venv/bin/rankmetrics is there
        assert " && .venv/bin/pip install -q --no-deps -e . && " in command
    assert readme[1] in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ".venv/bin/rankmetrics --help" in (ROOT / "README.md").read_text(encoding="utf-8")
