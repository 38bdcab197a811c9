"""The package as a user gets it: the wheel built from a copy of the repository, installed
with plain ``pip install`` into a fresh virtual environment, and the ``rankmetrics`` command
run there on the demo files.

Building and installing takes 20 to 60 seconds (depending on pip's cache), once per session;
it is a journey, left out of the default run (``-m journey`` or ``-m package`` runs it). pip
fetches the build backend and the dependencies from the package index; without it the tests
fail, they do not skip. pip, venv and the command run in process groups of their own
(:mod:`tests.processes`), ended when they return or the run is interrupted.
"""

from __future__ import annotations

import csv
import io
import math
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import processes
from tests.helpers import MOVIES, REPO, TEXTBOOK

pytestmark = [pytest.mark.package, pytest.mark.journey]

NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "__pycache__", "*.egg-info", "build", "dist", ".*_cache", ".hypothesis",
    "artifacts",
)


@dataclass(frozen=True)
class Installed:
    """A wheel and the fresh virtual environment it is installed in."""

    wheel: Path
    venv: Path
    workdir: Path

    def run(self, program: str, *args: str) -> subprocess.CompletedProcess[str]:
        """Run a program of the virtual environment outside the repository, so that only the
        installed package can be imported."""
        env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        return processes.run([self.venv / "bin" / program, *args], cwd=self.workdir, env=env,
                             timeout=300)


def _must_run(*command: str | Path) -> None:
    done = processes.run(command, timeout=600)
    if done.returncode != 0:
        pytest.fail(f"{' '.join(map(str, command))} exited with {done.returncode}:\n"
                    f"{done.stdout}\n{done.stderr}")


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """Build the wheel from a copy of the repository (the build writes into its source tree)
    and install it, with its dependencies, into a new virtual environment."""
    work = tmp_path_factory.mktemp("package")
    source = work / "source"
    shutil.copytree(REPO, source, ignore=NOT_SOURCE)
    _must_run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", source,
              "-w", work / "dist")
    wheels = list((work / "dist").glob("rankmetrics-*.whl"))
    assert len(wheels) == 1, wheels
    _must_run(sys.executable, "-m", "venv", work / "venv")
    _must_run(work / "venv" / "bin" / "pip", "install", "-q", wheels[0])
    return Installed(wheel=wheels[0], venv=work / "venv", workdir=work)


def test_wheel_holds_the_library_and_nothing_else(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = wheel.namelist()
    name_and_version = "-".join(installed.wheel.name.split("-")[:2])
    assert {name.split("/")[0] for name in names} == {
        "rankmetrics", f"{name_and_version}.dist-info"
    }
    sources = {path.relative_to(REPO).as_posix()
               for path in (REPO / "rankmetrics").rglob("*.py")}
    assert {name for name in names if name.endswith(".py")} == sources


def test_rankmetrics_command_evaluates_the_textbook_example(installed: Installed) -> None:
    done = installed.run(
        "rankmetrics", "evaluate", "--truth", str(TEXTBOOK / "ground_truth.csv"),
        "--run", str(TEXTBOOK / "recommended.csv"),
        "--run", f"moved={TEXTBOOK / 'c_at_position_5.csv'}",
        "--cutoffs", "5", "--metrics", "precision,recall,dcg,ndcg",
    )
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    values = {(row["model"], row["metric"]): float(row["value"]) for row in rows}
    assert {row["cutoff"] for row in rows} == {"5"}
    assert {row["users"] for row in rows} == {"1"}
    # liked A, C, X, Y, Z; recommended A, B, C, D, E (hits at 1 and 3), moved: C at 5
    ideal = sum(1 / math.log2(rank + 1) for rank in range(1, 6))
    assert values == pytest.approx({
        ("recommended", "precision"): 2 / 5,
        ("recommended", "recall"): 2 / 5,
        ("recommended", "dcg"): 1 + 1 / math.log2(4),
        ("recommended", "ndcg"): (1 + 1 / math.log2(4)) / ideal,
        ("moved", "precision"): 2 / 5,
        ("moved", "recall"): 2 / 5,
        ("moved", "dcg"): 1 + 1 / math.log2(6),
        ("moved", "ndcg"): (1 + 1 / math.log2(6)) / ideal,
    }, abs=1e-9)


def test_rankmetrics_command_reads_the_parquet_demo(installed: Installed) -> None:
    done = installed.run(
        "rankmetrics", "evaluate", "--truth", str(MOVIES / "ground_truth.csv"),
        "--run", str(MOVIES / "personalized.parquet"), "--cutoffs", "1,10",
        "--metrics", "ndcg,mrr", "--binary", "4",
    )
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert [(row["metric"], row["cutoff"]) for row in rows] == [
        ("ndcg", "1"), ("ndcg", "10"), ("mrr", "1"), ("mrr", "10"),
    ]
    assert {row["users"] for row in rows} == {"1940"}


def test_rankmetrics_command_is_python_dash_m(installed: Installed) -> None:
    command = installed.run("rankmetrics", "--help")
    module = installed.run("python", "-m", "rankmetrics", "--help")
    assert command.returncode == module.returncode == 0
    assert command.stdout == module.stdout
    assert "evaluate" in command.stdout


def test_core_install_has_the_statistics_but_not_the_figures(installed: Installed) -> None:
    imported = installed.run(
        "python", "-c", "import rankmetrics, rankmetrics.stats; print(rankmetrics.__file__)"
    )
    assert imported.returncode == 0, imported.stderr
    assert Path(imported.stdout.strip()).is_relative_to(installed.venv)
    figures = installed.run("python", "-c", "import rankmetrics.figures")
    assert figures.returncode != 0
    assert "pip install 'rankmetrics[figures]'" in figures.stderr
