"""Benchmark: the command line end to end on CSV files, against pyarrow's read and pytrec_eval.

Writes a seeded ground truth and one model's output as CSV files into a temporary folder
(every user has 100 recommended items from a catalogue of 200,000, about 20 judged items with
grades 0-3, half of them among the recommended; ids written "user00000012" and "item0000345"),
then times, on the same files in one run:

- pyarrow: ``pyarrow.csv.read_csv`` of both files (what parsing alone costs), in this
  process, and end to end as a program of its own (Python's start, the import, the read), the
  way the command line is timed;
- rankmetrics: ``python -m rankmetrics evaluate --truth T --run R --max-cutoff 100`` as a
  subprocess, all metrics at every cutoff 1..100, from starting Python to the printed table
  (the package's byte code compiled first, as installing it does);
- pytrec_eval: reading the same files (pandas) into its dicts and evaluating P, recall, map,
  ndcg_cut, recip_rank and success at its 6 default cutoffs, in a process of its own (the
  seconds of the reading and the evaluation; Python's start and the import are not counted).

It prints the seconds and the ratios, the CPU seconds (user + system, all threads) and peak
memory of the command line and of pytrec_eval's process, and the load average, and checks that
the command line's values agree with pytrec_eval's at the common cutoffs (the trec_eval preset,
binary threshold 1). On a machine shared with other work the CPU seconds say more than the
clock.

The catalogue size (``--items``) and the way ids are written (``--ids``: "prefixed",
"numeric" ids a CSV reader takes for integers, or "uuid") can be given several values: each
combination is written and measured, pytrec_eval included, and a table of all of them ends
the output.

    python bench/bench_cli.py                 # 100,000 users
    python bench/bench_cli.py --users 10000
    python bench/bench_cli.py --data /tmp/cli-data   # keep the files there, reuse them next time
    python bench/bench_cli.py --items 1000000 --ids prefixed numeric uuid
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from common import (
    FRAME_ITEMS,
    ID_SHAPES,
    LIST_LENGTH,
    ROOT,
    ChildRun,
    long_frames,
    print_table,
    run_measured,
)

PYTREC_CUTOFFS = (5, 10, 15, 20, 30, 100)  # trec_eval's P and ndcg_cut cutoffs, in part
MEASURES = {  # pytrec_eval measure -> (rankmetrics metric, cutoff or None for the whole list)
    "P": "precision", "recall": "recall", "ndcg_cut": "ndcg", "success": "hit_rate",
}


def make_files(folder: Path, n_users: int, seed: int = 0, n_items: int = FRAME_ITEMS,
               id_shape: str = "prefixed") -> tuple[Path, Path]:
    """Write ``truth.csv`` (user,item,rating) and ``run.csv`` (user,item,score) into
    ``folder``: bench_metrics.py's data (:func:`common.long_frames`), scores to 6 decimals."""
    run, truth = long_frames(n_users, seed, n_items=n_items, id_shape=id_shape)
    truth_path, run_path = folder / "truth.csv", folder / "run.csv"
    truth.to_csv(truth_path, index=False)
    run.assign(score=run["score"].round(6)).to_csv(run_path, index=False)
    return truth_path, run_path


def time_pyarrow(truth: Path, run: Path) -> float:
    import pyarrow.csv as pcsv

    started = time.perf_counter()
    for path in (truth, run):
        pcsv.read_csv(path)
    return time.perf_counter() - started


def time_pyarrow_program(truth: Path, run: Path) -> float:
    """Seconds of a Python process that imports pyarrow and reads both files, start to end."""
    code = "import sys, pyarrow.csv as c; [c.read_csv(path) for path in sys.argv[1:]]"
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, str(truth), str(run)], check=True)
    return time.perf_counter() - started


def time_cli(truth: Path, run: Path) -> tuple[ChildRun, pd.DataFrame]:
    """The command line's run (seconds by the clock, CPU seconds, peak memory) and table."""
    command = [sys.executable, "-m", "rankmetrics", "evaluate", "--truth", str(truth),
               "--run", f"model={run}", "--max-cutoff", "100", "--preset", "trec_eval",
               "--threshold", "1", "--metrics",
               "precision,recall,hit_rate,mrr,map,ndcg,r_precision"]
    done = run_measured(command, cwd=ROOT)
    return done, pd.read_csv(io.StringIO(done.stdout))


def _by_user(path: Path, value: str) -> dict[str, dict[str, float]]:
    """A CSV file as pytrec_eval takes it: user -> item -> ``value``."""
    table = pd.read_csv(path, dtype={"user": str, "item": str})
    nested: dict[str, dict[str, float]] = {}
    for user, item, number in zip(table["user"], table["item"], table[value].tolist(),
                                  strict=True):
        nested.setdefault(user, {})[item] = number
    return nested


def time_pytrec_eval(truth: Path, run: Path) -> tuple[float, dict[str, float]]:
    """pytrec_eval's seconds (reading both files, evaluating) and its mean of each measure,
    in this process."""
    import pytrec_eval

    started = time.perf_counter()
    qrels = _by_user(truth, "rating")
    scored = _by_user(run, "score")
    measures = {"P", "recall", "map", "ndcg_cut", "recip_rank", "success"}
    results = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(scored)
    keys = next(iter(results.values())).keys()
    means = {key: sum(values[key] for values in results.values()) / len(results)
             for key in keys}
    return time.perf_counter() - started, means


def time_pytrec_eval_program(truth: Path, run: Path) -> tuple[float, ChildRun,
                                                               dict[str, float]]:
    """:func:`time_pytrec_eval` in a process of its own: its seconds, the process's run (CPU
    seconds and peak memory, Python's start and the import included) and the means."""
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); "
            "from bench_cli import time_pytrec_eval; "
            "print(json.dumps(time_pytrec_eval(sys.argv[2], sys.argv[3])))")
    done = run_measured([sys.executable, "-c", code, str(Path(__file__).parent), str(truth),
                         str(run)])
    seconds, means = json.loads(done.stdout)
    return seconds, done, means


def largest_gap(table: pd.DataFrame, pytrec_means: dict[str, float]) -> tuple[float, int]:
    """The largest |rankmetrics - pytrec_eval| over the values both computed, and their
    number."""
    value = table.set_index(["metric", "cutoff"])["value"]
    pairs = [(value[("map", LIST_LENGTH)], pytrec_means["map"]),
             (value[("mrr", LIST_LENGTH)], pytrec_means["recip_rank"])]
    for key, mean in pytrec_means.items():
        name, _, cutoff = key.rpartition("_")
        if name in MEASURES and cutoff.isdigit() and int(cutoff) <= LIST_LENGTH:
            pairs.append((value[(MEASURES[name], float(cutoff))], mean))
    return max(abs(ours - theirs) for ours, theirs in pairs), len(pairs)


@dataclass
class Measured:
    """One configuration's medians: the command line's seconds, CPU seconds and peak memory
    (bytes), pytrec_eval's."""

    id_shape: str
    n_items: int
    cli_seconds: float
    cli_cpu: float
    cli_peak: int
    pytrec_seconds: float
    pytrec_cpu: float
    pytrec_peak: int


def measure(args: argparse.Namespace, scratch: Path, n_items: int, id_shape: str) -> Measured:
    """Write (or reuse) one configuration's files, time everything on them and print it."""
    default = (n_items, id_shape) == (FRAME_ITEMS, "prefixed")
    name = f"{args.users}-{args.seed}" + ("" if default else f"-{n_items}-{id_shape}")
    folder = (args.data if args.data is not None else scratch) / name
    truth, run = folder / "truth.csv", folder / "run.csv"
    if not (truth.exists() and run.exists()):
        folder.mkdir(parents=True, exist_ok=True)
        truth, run = make_files(folder, args.users, args.seed, n_items, id_shape)
        os.sync()  # the files' pages written out, so no run pays for another's writing
    size = (truth.stat().st_size + run.stat().st_size) / 2**20
    print(f"{args.users:,} users x {LIST_LENGTH} items, {size:.0f} MB of CSV (catalogue of "
          f"{n_items:,} items, {id_shape} ids)", flush=True)
    reads = [time_pyarrow(truth, run) for _ in range(args.repeat)]
    programs = [time_pyarrow_program(truth, run) for _ in range(args.repeat)]
    runs = [time_cli(truth, run) for _ in range(args.repeat)]
    pytrec_seconds, pytrec_run, pytrec_means = time_pytrec_eval_program(truth, run)
    if args.data is None:
        for path in (truth, run):
            path.unlink()
    read_seconds = statistics.median(reads)
    program_seconds = statistics.median(programs)
    cli_seconds = statistics.median(done.seconds for done, _ in runs)
    cli_cpu = statistics.median(done.cpu_seconds for done, _ in runs)
    cli_peak = int(statistics.median(done.peak_bytes for done, _ in runs))
    table = runs[0][1]
    print(f"pyarrow read runs: {', '.join(f'{s:.2f}' for s in reads)} s; as a program: "
          f"{', '.join(f'{s:.2f}' for s in programs)} s; command line runs: "
          f"{', '.join(f'{done.seconds:.2f}' for done, _ in runs)} s (medians below), CPU "
          f"{', '.join(f'{done.cpu_seconds:.2f}' for done, _ in runs)} s (user + system), "
          f"peak memory {', '.join(f'{done.peak_bytes / 2**20:.0f}' for done, _ in runs)} MB; "
          f"pytrec_eval CPU {pytrec_run.cpu_seconds:.2f} s, peak memory "
          f"{pytrec_run.peak_bytes / 2**20:.0f} MB; load average {os.getloadavg()[0]:.1f}")
    gap, compared = largest_gap(table, pytrec_means)
    rows = [
        ("pyarrow.csv.read_csv of both files", read_seconds),
        ("the same read as a program of its own", program_seconds),
        ("rankmetrics evaluate (CLI, K = 1..100)", cli_seconds),
        ("pytrec_eval (read + 6 cutoffs)", pytrec_seconds),
    ]
    print(f"{'step':<40} {'seconds':>8} {'vs CLI':>7}")
    for step, seconds in rows:
        print(f"{step:<40} {seconds:>8.2f} {seconds / cli_seconds:>6.1f}x")
    print(f"CLI / pyarrow read: {cli_seconds / read_seconds:.2f} (program to program: "
          f"{cli_seconds / program_seconds:.2f}); "
          f"pytrec_eval / CLI: {pytrec_seconds / cli_seconds:.1f}")
    print(f"largest |CLI - pytrec_eval| over {compared} values: {gap:.1e} "
          "(pytrec_eval keeps scores as float32, so values may differ by about 1e-7)",
          flush=True)
    return Measured(id_shape, n_items, cli_seconds, cli_cpu, cli_peak, pytrec_seconds,
                    pytrec_run.cpu_seconds, pytrec_run.peak_bytes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--items", type=int, nargs="+", default=[FRAME_ITEMS], metavar="N",
                        help=f"catalogue sizes (default {FRAME_ITEMS:,})")
    parser.add_argument("--ids", nargs="+", choices=ID_SHAPES, default=["prefixed"],
                        help="how the user and item ids are written (default prefixed: "
                        "'user00000012', 'item0000345')")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of the pyarrow read and of the command line (the median is "
                        "reported; pytrec_eval runs once)")
    parser.add_argument("--data", type=Path, default=None, metavar="DIR",
                        help="keep the CSV files in DIR (written there once per number of "
                        "users, seed, catalogue size and id shape, then reused); default: a "
                        "temporary folder")
    args = parser.parse_args()
    # Byte code compiled beforehand, as installing the package does (otherwise, with
    # PYTHONDONTWRITEBYTECODE set, every run would compile every module again).
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "rankmetrics")],
                   check=True)
    with tempfile.TemporaryDirectory(prefix="rankmetrics-bench-") as scratch:
        measured = [measure(args, Path(scratch), n_items, id_shape)
                    for n_items in args.items for id_shape in args.ids]
    print()
    print_table(["ids", "catalogue", "CLI s", "CLI CPU s", "CLI peak MB", "pytrec_eval s",
                 "pytrec_eval CPU s", "pytrec_eval peak MB", "pytrec_eval / CLI",
                 "(CPU)"], [
        (m.id_shape, f"{m.n_items:,}", m.cli_seconds, m.cli_cpu, f"{m.cli_peak / 2**20:.0f}",
         m.pytrec_seconds, m.pytrec_cpu, f"{m.pytrec_peak / 2**20:.0f}",
         f"{m.pytrec_seconds / m.cli_seconds:.1f}", f"{m.pytrec_cpu / m.cli_cpu:.1f}")
        for m in measured
    ])


if __name__ == "__main__":
    main()
