"""What the benchmarks share: seeded data sets (written to files as a user uploads them, or held
as long DataFrames), timing, peak memory, checking the app, and printing a table of results.

The scripts run as ``python bench/NAME.py`` from a checkout; importing this module puts the
repository first on ``sys.path``, so they measure the checkout's ``rankmetrics`` whether or not
a package is installed.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

GIB = 2**30
LIST_LENGTH = 100  # items in each user's list, in every data set here
RATED_PER_USER = 20  # ground-truth rows per user, in every data set here

# ----- files as a user uploads them ------------------------------------------------------

CANDIDATES = 300  # each user's pool: the rated items and the models' lists come from it
UPLOAD_ITEMS = 50_021  # a prime, so a user's pool (start + stride * k) holds distinct items
MODELS = {"strong": 4.0, "medium": 1.5, "weak": 0.3}  # weight of rated items when sampling
FILE_FORMATS = ("parquet", "csv")


def write_upload(folder: Path, n_users: int, seed: int = 0,
                 models: dict[str, float] = MODELS, file_format: str = "parquet",
                 first_user: int = 0, score_decimals: int = 6) -> dict[str, Path]:
    """Write ``ground_truth.<format>`` and one file per model into ``folder``; return the
    paths by name ("truth" and each model's). Files already there are reused. Users are
    numbered from ``first_user`` (so several folders can hold one data set's parts).

    Each user has a pool of 300 distinct items; 20 of them are rated 1-5 stars, and each
    model (name -> strength) ranks 100 items drawn from the pool, rated ones weighted up by
    the model's strength (a Gumbel top-k draw), scored by its sampling key. Models added at
    the end of ``models`` leave the files of the ones before unchanged. Parquet files are
    zstd-compressed; CSV files have a header ``user,item,rating`` or ``user,item,score``.
    Scores are rounded to ``score_decimals`` places: with 1, most lists hold groups of tied
    scores, as a model that outputs coarse scores gives.
    """
    if file_format not in FILE_FORMATS:
        raise ValueError(f"file_format must be one of {FILE_FORMATS}, got {file_format!r}")
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"truth": folder / f"ground_truth.{file_format}",
             **{name: folder / f"{name}.{file_format}" for name in models}}
    if all(path.exists() for path in paths.values()):
        return paths
    rng = np.random.default_rng(seed)
    item_ids = pa.array([f"i{i:06d}" for i in range(UPLOAD_ITEMS)])
    user_ids = pa.array([f"u{i:07d}" for i in range(first_user, first_user + n_users)])
    start = rng.integers(0, UPLOAD_ITEMS, n_users)[:, None]
    stride = rng.integers(1, UPLOAD_ITEMS, n_users)[:, None]
    pool = (start + stride * np.arange(CANDIDATES)[None, :]) % UPLOAD_ITEMS
    rated_at = np.argsort(rng.random((n_users, CANDIDATES)), axis=1)[:, :RATED_PER_USER]
    stars = rng.choice(5, size=(n_users, RATED_PER_USER), p=[.05, .12, .25, .3, .28]) + 1
    users = pc.take(user_ids, np.repeat(np.arange(n_users), RATED_PER_USER))
    _write(pa.table({
        "user": users,
        "item": pc.take(item_ids, np.take_along_axis(pool, rated_at, 1).ravel()),
        "rating": stars.ravel().astype(np.int64),
    }), paths["truth"], file_format)
    liked = np.zeros((n_users, CANDIDATES), dtype=bool)
    np.put_along_axis(liked, rated_at, stars >= 4, axis=1)
    users = pc.take(user_ids, np.repeat(np.arange(n_users), LIST_LENGTH))
    for name, strength in models.items():
        keys = rng.gumbel(size=(n_users, CANDIDATES)) + np.where(liked, strength, 0.0)
        chosen = np.argpartition(-keys, LIST_LENGTH, axis=1)[:, :LIST_LENGTH]
        chosen_keys = np.take_along_axis(keys, chosen, 1)
        order = np.argsort(-chosen_keys, axis=1)
        chosen = np.take_along_axis(chosen, order, 1)
        _write(pa.table({
            "user": users,
            "item": pc.take(item_ids, np.take_along_axis(pool, chosen, 1).ravel()),
            "score": np.take_along_axis(chosen_keys, order, 1).ravel().round(score_decimals),
        }), paths[name], file_format)
        del keys, chosen, chosen_keys, order
    return paths


def _write(table: pa.Table, path: Path, file_format: str) -> None:
    if file_format == "parquet":
        pq.write_table(table, path, compression="zstd")
    else:
        pcsv.write_csv(table, path, pcsv.WriteOptions(quoting_style="none"))


# ----- long DataFrames, as a notebook holds them -----------------------------------------

FRAME_ITEMS = 200_000
# Each user's items step through the catalogue by a stride below this: a catalogue of at least
# MAX_STRIDE * (100 + 10) items holds no step twice, so a user's items are distinct.
MAX_STRIDE = 997
# How the ids are written: "prefixed" ("user00000012", "item0000345"), "numeric" ("12",
# "345": a CSV reader takes them for integers) or "uuid" (36 characters, users and items).
ID_SHAPES = ("prefixed", "numeric", "uuid")


def long_frames(n_users: int, seed: int = 0, string_dtype: str = "object",
                n_items: int = FRAME_ITEMS, id_shape: str = "prefixed",
                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A seeded run (user, item, score) and ground truth (user, item, rating) with string ids
    of ``string_dtype``: "object" (NumPy arrays of Python strings) or "str" (pandas 3's
    default, Arrow-backed), written as ``id_shape`` says (see ``ID_SHAPES``), from a catalogue
    of ``n_items`` items.

    Every user has 100 recommended items, distinct within the user and sorted by score, and 20
    judged items with grades 0-3, half of them among the recommended. The columns are made as
    Series of the dtype: pandas 3 would infer str from a bare array of Python strings (or a
    pd.array of object dtype) even when object is meant. The catalogue size and the id shape
    leave the random draws as they are (UUIDs come from a generator of their own).
    """
    steps = LIST_LENGTH + RATED_PER_USER // 2
    if n_items < MAX_STRIDE * steps:
        raise ValueError(f"n_items must be at least {MAX_STRIDE * steps:,}, got {n_items:,}")
    rng = np.random.default_rng(seed)
    item_ids = _ids("item", n_items, id_shape, seed)
    user_ids = _ids("user", n_users, id_shape, seed)
    # Each user's 100 recommended items: a random start and stride through the catalogue.
    start = rng.integers(0, n_items, n_users)[:, None]
    stride = rng.integers(1, MAX_STRIDE, n_users)[:, None]
    recommended = (start + stride * np.arange(LIST_LENGTH)[None, :]) % n_items
    scores = np.sort(rng.random((n_users, LIST_LENGTH)), axis=1)[:, ::-1]
    run = pd.DataFrame({
        "user": pd.Series(np.repeat(user_ids, LIST_LENGTH), dtype=string_dtype),
        "item": pd.Series(item_ids[recommended.ravel()], dtype=string_dtype),
        "score": scores.ravel(),
    })
    # Judged items: half drawn from the recommended list, half from elsewhere.
    half = RATED_PER_USER // 2
    from_list = np.argsort(rng.random((n_users, LIST_LENGTH)), axis=1)[:, :half]
    judged_in = np.take_along_axis(recommended, from_list, axis=1)
    judged_out = (start + stride * (LIST_LENGTH + np.arange(half))[None, :]) % n_items
    judged = np.concatenate([judged_in, judged_out], axis=1)
    truth = pd.DataFrame({
        "user": pd.Series(np.repeat(user_ids, RATED_PER_USER), dtype=string_dtype),
        "item": pd.Series(item_ids[judged.ravel()], dtype=string_dtype),
        "rating": rng.integers(0, 4, n_users * RATED_PER_USER),
    })
    return run, truth


def _ids(role: str, count: int, id_shape: str, seed: int) -> np.ndarray:
    """``count`` distinct user or item ids written as ``id_shape`` says, as Python strings."""
    if id_shape == "prefixed":
        width = 8 if role == "user" else 7
        return np.array([f"{role}{i:0{width}d}" for i in range(count)], dtype=object)
    if id_shape == "numeric":
        return np.array([str(i) for i in range(count)], dtype=object)
    if id_shape == "uuid":
        rng = np.random.default_rng([seed, 0 if role == "user" else 1])
        words = rng.integers(0, 2**63, size=(count, 2), dtype=np.int64).tolist()
        return np.array([str(uuid.UUID(int=(high << 64) | low, version=4))
                         for high, low in words], dtype=object)
    raise ValueError(f"id_shape must be one of {ID_SHAPES}, got {id_shape!r}")


# ----- time and memory -------------------------------------------------------------------


def timed(action: Callable[[], object]) -> float:
    """Seconds taken by ``action()``."""
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def current_rss_bytes() -> int:
    """Resident memory now (Linux /proc), else the peak so far."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * resource.getpagesize()
    except OSError:
        return peak_rss_bytes()


def peak_rss_bytes() -> int:
    """The process's peak resident memory (since :func:`reset_peak_rss`, on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@dataclass
class ChildRun:
    """A program run to its end: seconds by the clock, CPU seconds (user + system, all its
    threads and the programs it waited for), peak resident memory and what it printed."""

    seconds: float
    cpu_seconds: float
    peak_bytes: int
    stdout: str


# Runs the command given after the path of a file to write its measures to (as JSON), from a
# small process of its own: Linux counts the memory of the process that starts a program in
# the program's peak, and the benchmark's own process can hold gigabytes by then.
_MEASURER = """
import json, os, sys, time
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - started
with open(sys.argv[1], "w") as out:
    json.dump([seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024], out)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_measured(command: Sequence[str], cwd: Path | None = None) -> ChildRun:
    """Run ``command`` and measure it (its own rusage, so programs running beside it on the
    machine add nothing but the clock time they take from it); when it fails, print what it
    wrote to stderr and raise CalledProcessError."""
    with tempfile.TemporaryDirectory(prefix="rankmetrics-measure-") as scratch:
        measures = Path(scratch) / "measures.json"
        done = subprocess.run([sys.executable, "-c", _MEASURER, str(measures), *command],
                              cwd=cwd, capture_output=True, text=True)
        if done.returncode:
            sys.stderr.write(done.stderr)
            raise subprocess.CalledProcessError(done.returncode, command, stderr=done.stderr)
        seconds, cpu_seconds, peak_bytes = json.loads(measures.read_text())
    return ChildRun(seconds, cpu_seconds, peak_bytes, done.stdout)


def reset_peak_rss() -> None:
    """Lower the kernel's peak-RSS mark to the current RSS (Linux), so the peak measured next
    is that of what runs next and not that of making the data (which can be higher than the
    loaded data by gigabytes). Elsewhere the peak keeps what came before."""
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
    except OSError:
        return


# ----- results ---------------------------------------------------------------------------


def print_table(header: Sequence[str], rows: Sequence[Sequence[object]], left: int = 1) -> None:
    """Print rows under a header, columns as wide as their longest cell: the first ``left``
    columns aligned left (names), the others right (numbers). Floats are printed with two
    decimals; format them beforehand for anything else."""
    cells = [[f"{cell:.2f}" if isinstance(cell, float) else str(cell) for cell in row]
             for row in [list(header), *rows]]
    widths = [max(len(row[column]) for row in cells) for column in range(len(header))]
    for row in cells:
        print("  ".join(cell.ljust(width) if column < left else cell.rjust(width)
                        for column, (cell, width) in enumerate(zip(row, widths, strict=True)))
              .rstrip())


def check_app(at) -> None:
    """Stop the benchmark if the app (a Streamlit AppTest) raised."""
    if at.exception:
        raise RuntimeError(f"the app raised: {[e.value for e in at.exception]}")


def print_timings(rows: Sequence[tuple[str, str, float, float | None]]) -> None:
    """Print (data, step, seconds, target or None) rows with a verdict for each target."""
    print()
    print_table(["data", "step", "seconds", "target", "ok"], [
        (label, step, seconds, f"< {limit:g}" if limit else "",
         "" if limit is None else ("yes" if seconds < limit else "NO"))
        for label, step, seconds, limit in rows
    ], left=2)


def uploaded_app(paths: dict[str, Path], models: Sequence[str]):
    """The dashboard in AppTest on its Data page with ``models``' files and the ground truth
    chosen in the uploaders (as a user drops them), not yet run: the caller times the run."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.run()
    at.switch_page("app_pages/data.py").run()
    at.file_uploader[0].set_value([(f"{name}.parquet", paths[name].read_bytes(),
                                    "application/octet-stream") for name in models])
    at.file_uploader[1].set_value(("ground_truth.parquet", paths["truth"].read_bytes(),
                                   "application/octet-stream"))
    return at


def evaluation_of_upload(paths: dict[str, Path], models: Sequence[str], max_cutoff: int = 50):
    """What the dashboard evaluates from the same files, built with the library directly:
    the files read and checked, the suggested relevance mapping, cutoffs 1..``max_cutoff``."""
    from rankmetrics import GroundTruth, RankedRun, evaluate, suggest_mapping
    from rankmetrics.io import read_run, read_truth

    truth = read_truth(paths["truth"])
    prepared = GroundTruth.from_loaded(truth)
    runs = {name: RankedRun.from_loaded(read_run(paths[name]), prepared) for name in models}
    mapping = suggest_mapping(truth.table["rating"].to_numpy()).recommended
    return evaluate(prepared, runs, relevance=mapping, max_cutoff=max_cutoff)
