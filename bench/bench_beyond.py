"""Benchmark: every beyond-accuracy metric at every cutoff, against the accuracy metrics on the
same files in the same run.

Writes seeded files as a user has them (Parquet ground truth, model output and training
interactions; a CSV of item genres) into a temporary folder, then times, from the files:

- accuracy: reading the ground truth and the model's output, ranking and matching the lists,
  and every accuracy metric at every cutoff 1..K (``Evaluation.summary``);
- beyond accuracy: reading the training interactions and the genres, reading each user's
  whole top K (``prepare_beyond``), then every beyond-accuracy metric at every cutoff 1..K:
  coverage, Gini, entropy, personalization, ARP, APLT, ACLT, novelty, ILD (Jaccard),
  categories, and recall and NDCG on long-tail items;

as one evaluation with both kinds of metric runs them (the command line's order); the median
of three runs for 100,000 users (the machine may be busy), one run for 1,000,000.

Targets: with 100,000 users and lists of 100 (K to 100), beyond accuracy within 2x the
accuracy time; with 1,000,000 users (lists of 20, K to 20, so the files fit in a shared
machine's memory), beyond accuracy within 30 s.

    python bench/bench_beyond.py                      # both sizes
    python bench/bench_beyond.py --users 10000 --list-length 100
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from common import peak_rss_bytes, print_table, print_timings, reset_peak_rss

from rankmetrics import Conventions, GroundTruth, RankedRun, RelevanceMapping
from rankmetrics.beyond import BEYOND_METRICS, prepare_beyond
from rankmetrics.evaluate import Evaluation
from rankmetrics.io import read_attributes, read_interactions, read_run, read_truth
from rankmetrics.metrics import METRICS
from rankmetrics.runtime import prefer_ordinary_pages

N_ITEMS = 20_011  # a prime: a user's items start + stride * k are distinct
N_GENRES = 20
RATED, SEEN = 20, 20  # ground-truth rows and training interactions per user


def write_files(folder: Path, n_users: int, list_length: int, seed: int = 0) -> dict[str, Path]:
    """Ground truth (20 rated items per user), one model's top ``list_length``, training
    interactions (20 per user, Zipf-popular items, repeats allowed) and 1-3 genres per item."""
    rng = np.random.default_rng(seed)
    items = pa.array([f"i{i:05d}" for i in range(N_ITEMS)])
    users = pa.array([f"u{i:07d}" for i in range(n_users)])
    start = rng.integers(0, N_ITEMS, n_users)[:, None]
    stride = rng.integers(1, N_ITEMS, n_users)[:, None]
    listed = (start + stride * np.arange(list_length)[None, :]) % N_ITEMS
    rated = (start + stride * rng.integers(0, 2 * list_length, (n_users, 1))
             + stride * np.arange(RATED)[None, :]) % N_ITEMS
    paths = {name: folder / f"{name}.parquet" for name in ("truth", "run", "train")}
    pq.write_table(pa.table({
        "user": users.take(np.repeat(np.arange(n_users), RATED)),
        "item": items.take(rated.ravel()),
        "rating": rng.integers(1, 6, n_users * RATED)}), paths["truth"])
    pq.write_table(pa.table({
        "user": users.take(np.repeat(np.arange(n_users), list_length)),
        "item": items.take(listed.ravel()),
        "score": np.tile(-np.arange(list_length, dtype=np.float64), n_users)}), paths["run"])
    pq.write_table(pa.table({
        "user": users.take(np.repeat(np.arange(n_users), SEEN)),
        "item": items.take((rng.zipf(1.3, n_users * SEEN) - 1) % N_ITEMS)}), paths["train"])
    genres = [
        "|".join(f"g{g}" for g in rng.choice(N_GENRES, rng.integers(1, 4), replace=False))
        for _ in range(N_ITEMS)]
    paths["items"] = folder / "items.csv"
    pd.DataFrame({"item": items.to_pylist(), "genres": genres}).to_csv(paths["items"],
                                                                     index=False)
    return paths


class Sides:
    """Wall-clock and CPU seconds spent on each side of the evaluation (a busy machine
    inflates the wall-clock seconds; the CPU seconds less so)."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    def timed(self, side: str, action):
        wall, cpu = time.perf_counter(), time.process_time()
        result = action()
        self.wall[side] = self.wall.get(side, 0.0) + time.perf_counter() - wall
        self.cpu[side] = self.cpu.get(side, 0.0) + time.process_time() - cpu
        return result


def time_both(paths: dict[str, Path], max_cutoff: int) -> tuple[Sides, pd.DataFrame]:
    """Seconds of the accuracy side and of the beyond-accuracy side of one evaluation, as
    ``evaluate(..., interactions=, item_attributes=)`` runs it (the ground truth and the
    ranked lists are made once; the Evaluation holds both kinds of metric).

    Accuracy: reading the ground truth and the model's output, ranking and matching the
    lists, every accuracy metric at every K. Beyond accuracy: reading the optional files and
    each user's whole top K, every beyond-accuracy metric at every K but ILD; ILD (which
    compares every pair of items of each list) on its own.
    """
    sides = Sides()

    def read_and_rank():
        truth, run = read_truth(paths["truth"]), read_run(paths["run"])
        ground_truth = GroundTruth.from_loaded(truth)
        return run, ground_truth, RankedRun.from_loaded(run, ground_truth)

    run, ground_truth, ranked = sides.timed("accuracy", read_and_rank)
    inputs = sides.timed("beyond", lambda: prepare_beyond(
        ground_truth, {"model": run}, interactions=read_interactions(paths["train"]),
        item_attributes=read_attributes(paths["items"], key="item"), max_cutoff=max_cutoff))

    def accuracy_metrics() -> Evaluation:
        ev = Evaluation(ground_truth, {"model": ranked}, RelevanceMapping.identity(1),
                        Conventions(), max_cutoff, beyond=inputs)
        ev.summary(list(METRICS))
        return ev

    ev = sides.timed("accuracy", accuracy_metrics)
    beyond = ev.beyond
    others = [metric for metric in BEYOND_METRICS if metric != "ild"]
    table = sides.timed("beyond", lambda: beyond.summary(others))  # type: ignore[union-attr]
    ild = sides.timed("ild", lambda: beyond.summary(["ild"]))  # type: ignore[union-attr]
    return sides, pd.concat([table, ild])


def measure(n_users: int, list_length: int, repeats: int) -> tuple[dict, dict, pd.DataFrame]:
    """Median wall-clock and CPU seconds of each side over ``repeats`` runs."""
    with tempfile.TemporaryDirectory() as folder:
        paths = write_files(Path(folder), n_users, list_length)
        reset_peak_rss()
        runs = [time_both(paths, list_length) for _ in range(repeats)]
    sides = ("accuracy", "beyond", "ild")
    wall = {side: statistics.median(r.wall[side] for r, _ in runs) for side in sides}
    cpu = {side: statistics.median(r.cpu[side] for r, _ in runs) for side in sides}
    return wall, cpu, runs[-1][1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--users", type=int)
    parser.add_argument("--list-length", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs of the 100,000-user data (the median is kept)")
    args = parser.parse_args()
    prefer_ordinary_pages()  # as the command line and the dashboard's server do
    sizes = ([(args.users, args.list_length, args.repeats)] if args.users
             else [(100_000, 100, args.repeats), (1_000_000, 20, 1)])
    rows, cpu_rows = [], []
    for n_users, length, repeats in sizes:
        wall, cpu, table = measure(n_users, length, repeats)
        label = f"{n_users:,} users x {length}"
        beyond, accuracy = wall["beyond"] + wall["ild"], wall["accuracy"]
        print(f"{label}: {len(table):,} values, peak memory "
              f"{peak_rss_bytes() / 2**30:.1f} GiB")
        rows.append((label, "accuracy (read + every metric at every K)", accuracy, None))
        rows.append((label, "beyond accuracy (read extras + every metric at every K)", beyond,
                     30.0 if n_users >= 1_000_000 else 2 * accuracy))
        rows.append((label, "  of which ILD (Jaccard, every pair of each list)", wall["ild"],
                     None))
        cpu_rows.append((label, cpu["accuracy"], cpu["beyond"] + cpu["ild"], cpu["ild"],
                         f"{(cpu['beyond'] + cpu['ild']) / cpu['accuracy']:.2f}x",
                         f"{cpu['beyond'] / cpu['accuracy']:.2f}x"))
    print_timings(rows)
    print()
    print_table(["data", "CPU s accuracy", "CPU s beyond", "of which ILD", "ratio",
                 "ratio without ILD"], cpu_rows)


if __name__ == "__main__":
    main()
