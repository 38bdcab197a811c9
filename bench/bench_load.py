"""Time and memory of read_run on a 1,000,000-row run, as CSV and as Parquet.

Usage: ``python bench/bench_load.py [--users N] [--seed S]``

Writes a seeded model output (10,000 users x 100 items, the upload generator of
bench/common.py) into a temporary folder as ``run.csv`` and ``run.parquet``, then loads each in
a fresh Python process (so one load's memory does not hide the next) and prints the seconds
taken, the resident memory (RSS) after the imports, its peak during the load (the kernel's
peak mark, lowered just before; RSS includes Arrow's buffers, which tracemalloc cannot see),
the growth, and the size of the loaded table.
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import (
    LIST_LENGTH,
    ROOT,
    current_rss_bytes,
    peak_rss_bytes,
    print_table,
    reset_peak_rss,
    write_upload,
)

MIB = 2**20


def measure(path: str) -> dict:
    """Load one file in this process; report seconds and memory."""
    from rankmetrics.io import read_run

    gc.collect()
    reset_peak_rss()
    before = current_rss_bytes()
    started = time.perf_counter()
    run = read_run(path)
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "before_mb": before / MIB,
        "peak_mb": peak_rss_bytes() / MIB,
        "table_mb": run.table.memory_usage(deep=True).sum() / MIB,
        "rows": run.n_rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for file_format in ("csv", "parquet"):
            path = write_upload(Path(folder), args.users, args.seed, models={"run": 1.0},
                                file_format=file_format)["run"]
            out = subprocess.run(
                [sys.executable, __file__, "--measure", str(path)],
                check=True, capture_output=True, text=True, cwd=ROOT,
            )
            result = json.loads(out.stdout)
            rows.append((path.name, f"{path.stat().st_size / MIB:.1f}", result["rows"],
                         result["seconds"], f"{result['before_mb']:.0f}",
                         f"{result['peak_mb']:.0f}",
                         f"{result['peak_mb'] - result['before_mb']:.0f}",
                         f"{result['table_mb']:.1f}"))
    print(f"{args.users:,} users x {LIST_LENGTH} items")
    print_table(["file", "file MB", "rows", "seconds", "RSS before MB", "peak RSS MB",
                 "growth MB", "table MB"], rows)


if __name__ == "__main__":
    main()
