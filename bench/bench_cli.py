"""Benchmark: the command line end to end on CSV files, against pyarrow's read and pytrec_eval.

Writes a seeded ground truth and one model's output as CSV files into a temporary folder
(every user has 100 recommended items from a catalogue of 200,000, about 20 judged items with
grades 0-3, half of them among the recommended), then times, on the same files in one run:

- pyarrow: ``pyarrow.csv.read_csv`` of both files (what parsing alone costs), in this
  process, and end to end as a program of its own (Python's start, the import, the read), the
  way the command line is timed;
- rankmetrics: ``python -m rankmetrics evaluate --truth T --run R --max-cutoff 100`` as a
  subprocess, all metrics at every cutoff 1..100, from starting Python to the printed table
  (the package's byte code compiled first, as installing it does);
- pytrec_eval: reading the same files (pandas) into its dicts and evaluating P, recall, map,
  ndcg_cut, recip_rank and success at its 6 default cutoffs in one process.

It prints the seconds and the ratios, the command line's CPU seconds (user + system, all its
threads) and the load average, and checks that the command line's values agree with
pytrec_eval's at the common cutoffs (the trec_eval preset, binary threshold 1).

    python bench/bench_cli.py                 # 100,000 users
    python bench/bench_cli.py --users 10000
    python bench/bench_cli.py --data /tmp/cli-data   # keep the files there, reuse them next time
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from common import LIST_LENGTH, ROOT, long_frames

PYTREC_CUTOFFS = (5, 10, 15, 20, 30, 100)  # trec_eval's P and ndcg_cut cutoffs, in part
MEASURES = {  # pytrec_eval measure -> (rankmetrics metric, cutoff or None for the whole list)
    "P": "precision", "recall": "recall", "ndcg_cut": "ndcg", "success": "hit_rate",
}


def make_files(folder: Path, n_users: int, seed: int = 0) -> tuple[Path, Path]:
    """Write ``truth.csv`` (user,item,rating) and ``run.csv`` (user,item,score) into
    ``folder``: bench_metrics.py's data (:func:`common.long_frames`), scores to 6 decimals."""
    run, truth = long_frames(n_users, seed)
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


def time_cli(truth: Path, run: Path) -> tuple[float, float, pd.DataFrame]:
    """The command line's seconds by the clock, its CPU seconds and its table."""
    command = [sys.executable, "-m", "rankmetrics", "evaluate", "--truth", str(truth),
               "--run", f"model={run}", "--max-cutoff", "100", "--preset", "trec_eval",
               "--threshold", "1", "--metrics",
               "precision,recall,hit_rate,mrr,map,ndcg,r_precision"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu, pd.read_csv(io.StringIO(done.stdout))


def _by_user(path: Path, value: str) -> dict[str, dict[str, float]]:
    """A CSV file as pytrec_eval takes it: user -> item -> ``value``."""
    table = pd.read_csv(path, dtype={"user": str, "item": str})
    nested: dict[str, dict[str, float]] = {}
    for user, item, number in zip(table["user"], table["item"], table[value].tolist(),
                                  strict=True):
        nested.setdefault(user, {})[item] = number
    return nested


def time_pytrec_eval(truth: Path, run: Path) -> tuple[float, dict[str, float]]:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of the pyarrow read and of the command line (the median is "
                        "reported; pytrec_eval runs once)")
    parser.add_argument("--data", type=Path, default=None, metavar="DIR",
                        help="keep the CSV files in DIR (written there once per number of "
                        "users and seed, then reused); default: a temporary folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rankmetrics-bench-") as scratch:
        folder = Path(scratch) if args.data is None else args.data / f"{args.users}-{args.seed}"
        truth, run = folder / "truth.csv", folder / "run.csv"
        if not (truth.exists() and run.exists()):
            folder.mkdir(parents=True, exist_ok=True)
            truth, run = make_files(folder, args.users, args.seed)
            os.sync()  # the files' pages written out, so no run pays for another's writing
        size = (truth.stat().st_size + run.stat().st_size) / 2**20
        print(f"{args.users:,} users x {LIST_LENGTH} items, {size:.0f} MB of CSV", flush=True)
        reads = [time_pyarrow(truth, run) for _ in range(args.repeat)]
        programs = [time_pyarrow_program(truth, run) for _ in range(args.repeat)]
        # Byte code compiled beforehand, as installing the package does (otherwise, with
        # PYTHONDONTWRITEBYTECODE set, every run would compile every module again).
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "rankmetrics")],
                       check=True)
        runs = [time_cli(truth, run) for _ in range(args.repeat)]
        pytrec_seconds, pytrec_means = time_pytrec_eval(truth, run)
    read_seconds = statistics.median(reads)
    program_seconds = statistics.median(programs)
    cli_seconds = statistics.median(seconds for seconds, _, _ in runs)
    table = runs[0][2]
    print(f"pyarrow read runs: {', '.join(f'{s:.2f}' for s in reads)} s; as a program: "
          f"{', '.join(f'{s:.2f}' for s in programs)} s; command line runs: "
          f"{', '.join(f'{s:.2f}' for s, _, _ in runs)} s (medians below), CPU "
          f"{', '.join(f'{cpu:.2f}' for _, cpu, _ in runs)} s (user + system); load average "
          f"{os.getloadavg()[0]:.1f}")
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
          "(pytrec_eval keeps scores as float32, so values may differ by about 1e-7)")


if __name__ == "__main__":
    main()
