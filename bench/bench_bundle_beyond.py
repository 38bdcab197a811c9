"""Benchmark: what the beyond-accuracy results add to a saved evaluation, in bytes and seconds.

Writes seeded files as a user has them (bench_beyond's Parquet ground truth, one model's top
100, training interactions and a CSV of item genres), then runs the command line as users run
it, twice: ``rankmetrics evaluate ... --save DIR`` with the accuracy metrics only, and the
same with ``--interactions`` and ``--item-attributes`` (the bundle then also holds every
beyond-accuracy metric at every K, the per-user ones at the saved cutoffs and the popularity
deciles). Prints each run's wall-clock seconds and the bundle's size, and the bytes added per
user and model.

    python bench/bench_bundle_beyond.py                  # 100,000 users, K to 100
    python bench/bench_bundle_beyond.py --users 20000
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_beyond import write_files
from common import ROOT, print_table


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def save(paths: dict[str, Path], target: Path, *more: str) -> float:
    """Seconds of one ``rankmetrics evaluate ... --save`` run, from the files."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "rankmetrics", "evaluate", "--truth",
                    str(paths["truth"]), "--run", f"model={paths['run']}", "--max-cutoff",
                    "100", "--save", str(target), "--output", str(target) + ".csv", *more],
                   check=True, cwd=ROOT, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        paths = write_files(folder, args.users, 100)
        plain = save(paths, folder / "accuracy")
        beyond = save(paths, folder / "beyond", "--interactions", str(paths["train"]),
                      "--item-attributes", str(paths["items"]))
        sizes = {name: folder_bytes(folder / name) for name in ("accuracy", "beyond")}
    added = sizes["beyond"] - sizes["accuracy"]
    print(f"{args.users:,} users x 1 model, lists of 100, K to 100, per-user values at "
          "K = 1, 3, 5, 10, 20, 50, 100:")
    print_table(["bundle", "seconds (evaluate and save)", "MB", "bytes per user"], [
        ["accuracy only", f"{plain:.2f}", f"{sizes['accuracy'] / 1e6:.1f}",
         f"{sizes['accuracy'] / args.users:.0f}"],
        ["with beyond accuracy", f"{beyond:.2f}", f"{sizes['beyond'] / 1e6:.1f}",
         f"{sizes['beyond'] / args.users:.0f}"],
    ])
    print(f"beyond accuracy adds {added / 1e6:.1f} MB: {added / args.users:.0f} bytes per user "
          "and model")


if __name__ == "__main__":
    main()
