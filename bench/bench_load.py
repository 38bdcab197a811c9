"""Time and memory of read_run on a 1,000,000-row run, as CSV and as Parquet.

Usage: ``python bench/bench_load.py [--rows N] [--seed S]``

Writes a seeded run (10,000 users x 100 items drawn from 50,000, random scores) into a
temporary folder as ``run.csv`` and ``run.parquet``, then loads each in a fresh Python process
(so one load's memory does not hide the next) and prints the seconds taken, the resident
memory (RSS) after the imports, its peak during the load (sampled every 5 ms from /proc; RSS
includes Arrow's buffers, which tracemalloc cannot see), the growth, and the size of the
loaded table.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent


def make_run(rows: int, seed: int) -> pd.DataFrame:
    """A run of ``rows`` rows: 100 distinct items per user, ids as text ("u17", "i4031")."""
    rng = np.random.default_rng(seed)
    per_user = 100
    users = np.repeat(np.arange(rows // per_user), per_user)
    items = np.concatenate([rng.choice(50_000, per_user, replace=False)
                            for _ in range(rows // per_user)])
    return pd.DataFrame({
        "user_id": pd.Series(users).map("u{}".format),
        "item_id": pd.Series(items).map("i{}".format),
        "score": rng.random(len(users)).round(6),
    })


def current_rss_mb() -> float:
    """Resident memory now (Linux /proc), else the peak so far (ru_maxrss)."""
    statm = Path("/proc/self/statm")
    if statm.exists():
        return int(statm.read_text().split()[1]) * resource.getpagesize() / 2**20
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(path: str) -> dict:
    """Load one file in this process; report seconds and memory (RSS sampled every 5 ms)."""
    from rankmetrics.io import read_run

    gc.collect()
    before = current_rss_mb()
    peak = [before]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.005):
            peak[0] = max(peak[0], current_rss_mb())

    sampler = threading.Thread(target=sample)
    sampler.start()
    start = time.perf_counter()
    run = read_run(path)
    seconds = time.perf_counter() - start
    done.set()
    sampler.join()
    peak[0] = max(peak[0], current_rss_mb())
    return {
        "seconds": seconds,
        "before_mb": before,
        "peak_mb": peak[0],
        "table_mb": run.table.memory_usage(deep=True).sum() / 2**20,
        "rows": run.n_rows,
        "format": run.format,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return
    with tempfile.TemporaryDirectory() as folder:
        run = make_run(args.rows, args.seed)
        paths = [Path(folder) / "run.csv", Path(folder) / "run.parquet"]
        run.to_csv(paths[0], index=False)
        run.to_parquet(paths[1], index=False)
        del run
        print(f"{'file':<12} {'file MB':>7} {'rows':>9} {'seconds':>8} {'RSS before':>10} "
              f"{'peak RSS':>9} {'growth':>7} {'table MB':>9}")
        for path in paths:
            out = subprocess.run(
                [sys.executable, __file__, "--measure", str(path)],
                check=True, capture_output=True, text=True, cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
            )
            result = json.loads(out.stdout)
            size = path.stat().st_size / 2**20
            print(f"{path.name:<12} {size:>7.1f} {result['rows']:>9} {result['seconds']:>8.2f} "
                  f"{result['before_mb']:>10.0f} {result['peak_mb']:>9.0f} "
                  f"{result['peak_mb'] - result['before_mb']:>7.0f} {result['table_mb']:>9.1f}")


if __name__ == "__main__":
    main()
