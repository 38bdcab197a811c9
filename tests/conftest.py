"""Shared fixtures: readers of trec_eval's own test files (tests/fixtures/trec_eval), the
demo data sets read (and the movies evaluated) once per session, and what the journeys run
(the Spark session, the browser, the app's server).

The trec_eval readers are deliberately small and independent of ``rankmetrics.io``, so the
metric tests do not depend on the code that loads user files. Plain helpers (paths, random
data) are in ``tests/helpers.py``, the processes the tests start in ``tests/processes.py``.
An interrupted run (Ctrl-C, or SIGTERM, made to interrupt the same way here) stops them.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pandas as pd
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import app_test

from rankmetrics import Evaluation, RelevanceMapping, evaluate
from rankmetrics.io import read_run, read_truth
from tests.helpers import MOVIE_MODELS, MOVIES, TEXTBOOK
from tests.processes import stop
from tests.servers import CHROMIUM, LAUNCH_ARGS, start_app, wait_until_up

TREC_EVAL_FIXTURES = Path(__file__).parent / "fixtures" / "trec_eval"


def _cpu_seconds() -> float:
    used = os.times()
    return used.user + used.system + used.children_user + used.children_system


#: When the run began (this file is read before the tests are collected): wall and CPU time.
_STARTED = (time.perf_counter(), _cpu_seconds())


def _fields(name: str) -> pd.DataFrame:
    """The whitespace-separated fields of a TREC file, one column per field, as strings.

    Lines may carry extra fields (``results.trunc`` has junk after the sixth column); they end
    up in extra columns that the readers ignore.
    """
    lines = (TREC_EVAL_FIXTURES / name).read_text().splitlines()
    return pd.Series([line for line in lines if line.strip()], dtype=object).str.split(
        expand=True
    )


@cache
def _qrels(name: str) -> pd.DataFrame:
    fields = _fields(name)
    return pd.DataFrame({
        "user": fields[0].astype(str),
        "item": fields[2].astype(str),
        "rating": fields[3].astype(int),
    })


@cache
def _run(name: str) -> pd.DataFrame:
    fields = _fields(name)
    return pd.DataFrame({
        "user": fields[0].astype(str),
        "item": fields[2].astype(str),
        "score": fields[4].astype(float),
    })


@pytest.fixture(scope="session")
def trec_qrels() -> Callable[[str], pd.DataFrame]:
    """Read a qrels file (``topic 0 docno grade``) into columns user, item, rating."""
    return lambda name: _qrels(name).copy()


@pytest.fixture(scope="session")
def trec_run() -> Callable[[str], pd.DataFrame]:
    """Read a run file (``topic Q0 docno rank score tag``) into columns user, item, score.

    trec_eval ignores the rank column and orders by score, so it is not kept.
    """
    return lambda name: _run(name).copy()


@pytest.fixture(scope="session")
def textbook() -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """The textbook ground truth and its two rankings (recommended, C moved to position 5)."""
    truth = read_truth(TEXTBOOK / "ground_truth.csv").table
    runs = {name: read_run(TEXTBOOK / f"{name}.csv").table
            for name in ("recommended", "c_at_position_5")}
    return truth, runs


@pytest.fixture(scope="session")
def movies() -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """The movies demo: ground truth and the four models' outputs."""
    truth = read_truth(MOVIES / "ground_truth.csv").table
    runs = {name: read_run(MOVIES / f"{name}.parquet").table for name in MOVIE_MODELS}
    return truth, runs


@pytest.fixture(scope="session")
def movie_evaluation(movies) -> Evaluation:
    """The movies demo evaluated with rating >= 4 relevant, up to K = 10."""
    truth, runs = movies
    return evaluate(truth, runs, relevance=RelevanceMapping.binary(4), max_cutoff=10)


@pytest.fixture(scope="session", autouse=True)
def workspace_folder(tmp_path_factory) -> Path:
    """The app's tests (and the servers they start) keep uploaded files in a temporary
    folder, not in the project's data directory."""
    folder = tmp_path_factory.mktemp("workspaces")
    os.environ["RANKMETRICS_WORKSPACES"] = str(folder)
    return folder


@pytest.fixture(scope="session", autouse=True)
def component_manifests():
    """Streamlit components found once per session: every new AppTest scans all installed
    packages for them on its first run (a fifth of a second, a tenth of a typical dashboard
    test), and the packages do not change while the tests run."""
    from streamlit.components.v2 import manifest_scanner

    found = manifest_scanner.scan_component_manifests()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(manifest_scanner, "scan_component_manifests",
                      lambda max_workers=None: list(found))
        yield found


@pytest.fixture
def downloaded(monkeypatch):
    """The text a download button saves: AppTest keeps each run's files in a store of its
    own, so the stores are kept here to read the button's file from."""
    stores = []

    class KeptStorage(MemoryMediaFileStorage):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            stores.append(self)

    managers = []

    class KeptManager(MediaFileManager):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            managers.append(self)

    monkeypatch.setattr(app_test, "MemoryMediaFileStorage", KeptStorage)
    monkeypatch.setattr(app_test, "MediaFileManager", KeptManager)

    def read(at, key: str, *, name: bool = False) -> str:
        """The file's text (its file name with ``name``); a file written on click is
        written as a click would."""
        button = [b.proto for b in at.get("download_button") if b.proto.id.endswith(f"-{key}")]
        assert button, f"no download button {key}"
        url = (managers[-1].execute_deferred(button[0].deferred_file_id)
               if button[0].deferred_file_id else button[0].url)
        saved = stores[-1].get_file(url.rsplit("/", 1)[-1])
        return saved.filename if name else saved.content.decode()

    return read


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test item (``item.rep_call``), so a fixture can tell
    whether its test failed (the browser tests then save a screenshot of the page)."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


@pytest.fixture(scope="session")
def spark():
    """One local Spark session (2 cores, few shuffle partitions, no UI) for every Spark test.

    Skipped without Java or pyspark, unless REQUIRE_SPARK is set (CI sets it): then their
    absence is a failure.
    """
    import os
    import shutil
    import sys

    try:
        from pyspark.sql import SparkSession
    except ImportError:
        SparkSession = None  # noqa: N806
    missing = ("pyspark is not installed" if SparkSession is None
               else "no Java on the PATH" if shutil.which("java") is None else None)
    if missing:
        if os.environ.get("REQUIRE_SPARK"):
            pytest.fail(f"REQUIRE_SPARK is set but {missing}", pytrace=False)
        pytest.skip(f"{missing}; set REQUIRE_SPARK=1 to make this a failure")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (SparkSession.builder.master("local[2]").appName("rankmetrics-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.default.parallelism", "2")
               .config("spark.python.worker.reuse", "true")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for every browser test of the session (Playwright's sync API
    allows one running instance per thread).

    Skipped without Chromium, unless REQUIRE_BROWSER is set (CI sets it): then its absence is
    a failure.
    """
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail(f"REQUIRE_BROWSER is set but no Chromium was found at {CHROMIUM}",
                        pytrace=False)
        pytest.skip(f"no Chromium at {CHROMIUM}; set REQUIRE_BROWSER=1 to make this a failure")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The app served by a real Streamlit server, shared by the journeys."""
    log = tmp_path_factory.mktemp("server") / "streamlit.log"
    process, url = start_app(log)
    try:
        wait_until_up(process, url, log)
        yield url
    finally:
        stop(process)


_SIGTERM_BEFORE = pytest.StashKey[object]()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_configure(config: pytest.Config) -> None:
    """SIGTERM interrupts the run as Ctrl-C does, so the fixtures' finalizers stop the
    processes the tests started (see tests/processes.py)."""
    if threading.current_thread() is threading.main_thread():
        config.stash[_SIGTERM_BEFORE] = signal.signal(signal.SIGTERM, _interrupt)


def pytest_report_header(config: pytest.Config) -> list[str]:
    if config.option.markexpr != "not journey":  # the default (pyproject.toml's addopts)
        return []
    return ["journeys (real browser, local Spark, the package built and installed, large "
            "files) are left out: `python -m pytest -m journey` runs them"]


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    """How long the run took: wall time, and CPU time (this process and the programs it
    waited for), which says more on a machine that other work keeps busy."""
    wall, cpu = time.perf_counter() - _STARTED[0], _cpu_seconds() - _STARTED[1]
    terminalreporter.write_line(f"this run took {wall:.0f} s of wall time and {cpu:.0f} s of "
                                "CPU time")


def pytest_unconfigure(config: pytest.Config) -> None:
    if _SIGTERM_BEFORE in config.stash:
        signal.signal(signal.SIGTERM, config.stash[_SIGTERM_BEFORE])
