"""Benchmark: every beyond-accuracy metric at every cutoff, against the accuracy metrics on the
same files in the same run, and on a million users.

From files: writes seeded files as a user has them (Parquet ground truth, model output and
training interactions; a CSV of item genres) into a temporary folder, then times, from the
files:

- accuracy: reading the ground truth and the model's output, ranking and matching the lists,
  and every accuracy metric at every cutoff 1..K (``Evaluation.summary``);
- beyond accuracy: reading the training interactions and the genres, reading each user's
  whole top K (``prepare_beyond``), then every beyond-accuracy metric at every cutoff 1..K:
  coverage, Gini, entropy, personalization, ARP, APLT, ACLT, novelty, serendipity, ILD
  (Jaccard), categories, category entropy, miscalibration, and recall and NDCG on long-tail
  items (ILD, and serendipity with miscalibration, the two that read each user's training
  history, are also given apart);

as one evaluation with both kinds of metric runs them (the command line's order); the median
of three runs.

In memory (``--in-memory``, the default for 1,000,000 users): each user's top K is made as item
codes in memory (a file of 100 million rows would not fit beside other work on a shared
machine), with the same training interactions and genres; the time is that of every
beyond-accuracy metric at every cutoff 1..K, with no file read and no list ranked (the
long-tail accuracy has no ranked items to match: it costs next to nothing here).

Targets: with 100,000 users and lists of 100 (K to 100), beyond accuracy within 2x the
accuracy time; with 1,000,000 users and lists of 100, beyond accuracy within 30 s.

    python bench/bench_beyond.py                      # both
    python bench/bench_beyond.py --users 10000 --list-length 100
    python bench/bench_beyond.py --users 1000000 --list-length 20   # from files
    python bench/bench_beyond.py --users 1000000 --in-memory
    python bench/bench_beyond.py --users 20000 --histories uniform   # other data shapes
    python bench/bench_beyond.py --users 20000 --catalogue 200003
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from common import peak_rss_bytes, print_table, print_timings, reset_peak_rss

from rankmetrics import Conventions, GroundTruth, RankedRun, RelevanceMapping
from rankmetrics.beyond import DISTANCE, BeyondOptions, prepare_beyond
from rankmetrics.evaluation import Evaluation
from rankmetrics.io import (
    attributes_from_dataframe,
    interactions_from_dataframe,
    read_attributes,
    read_interactions,
    read_run,
    read_truth,
)
from rankmetrics.metrics import BEYOND_METRICS, METRICS
from rankmetrics.runtime import prefer_ordinary_pages

N_ITEMS = 20_011  # a prime: a user's items start + stride * k are distinct
#: The catalogue sizes offered (primes, as N_ITEMS).
CATALOGUES = (2_003, 20_011, 200_003)
#: How training interactions pick their items: Zipf-popular or uniform over the catalogue.
HISTORIES = "zipf"
N_GENRES = 20
RATED, SEEN = 20, 20  # ground-truth rows and training interactions per user
#: The metrics that read each user's training history.
HISTORY = ("serendipity", "miscalibration")


def write_files(folder: Path, n_users: int, list_length: int, seed: int = 0) -> dict[str, Path]:
    """Ground truth (20 rated items per user), one model's top ``list_length``, training
    interactions (20 per user, Zipf-popular items, repeats allowed) and 1-3 genres per item."""
    rng = np.random.default_rng(seed)
    items = pa.array([f"i{i:05d}" for i in range(N_ITEMS)])
    users = pa.array([f"u{i:07d}" for i in range(n_users)])
    listed, rated = lists_and_ratings(rng, n_users, list_length)
    paths = {name: folder / f"{name}.parquet" for name in ("truth", "run", "train")}
    pq.write_table(pa.table({
        "user": users.take(np.repeat(np.arange(n_users), RATED)),
        "item": items.take(rated.ravel()),
        "rating": rng.integers(1, 6, n_users * RATED)}), paths["truth"])
    pq.write_table(pa.table({
        "user": users.take(np.repeat(np.arange(n_users), list_length)),
        "item": items.take(listed.ravel()),
        "score": np.tile(-np.arange(list_length, dtype=np.float64), n_users)}), paths["run"])
    pq.write_table(training(rng, users, items, n_users), paths["train"])
    paths["items"] = folder / "items.csv"
    genres(rng, items).to_csv(paths["items"], index=False)
    return paths


def lists_and_ratings(rng: np.random.Generator, n_users: int, list_length: int
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Each user's top ``list_length`` and 20 rated items, as item numbers (users x items)."""
    start = rng.integers(0, N_ITEMS, n_users)[:, None]
    stride = rng.integers(1, N_ITEMS, n_users)[:, None]
    listed = (start + stride * np.arange(list_length)[None, :]) % N_ITEMS
    rated = (start + stride * rng.integers(0, 2 * list_length, (n_users, 1))
             + stride * np.arange(RATED)[None, :]) % N_ITEMS
    return listed, rated


def training(rng: np.random.Generator, users: pa.Array, items: pa.Array, n_users: int,
             seen: int = SEEN) -> pa.Table:
    """``seen`` training interactions per user, of Zipf-popular items (repeats allowed), or
    of items drawn uniformly (``--histories uniform``)."""
    drawn = (rng.integers(0, N_ITEMS, n_users * seen) if HISTORIES == "uniform"
             else (rng.zipf(1.3, n_users * seen) - 1) % N_ITEMS)
    return pa.table({"user": users.take(np.repeat(np.arange(n_users), seen)),
                     "item": items.take(drawn)})


def genres(rng: np.random.Generator, items: pa.Array) -> pd.DataFrame:
    """1-3 of 20 genres per item, written as 'g3|g17'."""
    return pd.DataFrame({"item": items.to_pylist(), "genres": [
        "|".join(f"g{g}" for g in rng.choice(N_GENRES, rng.integers(1, 4), replace=False))
        for _ in range(N_ITEMS)]})


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


def time_both(paths: dict[str, Path], max_cutoff: int, distance: str = "auto"
              ) -> tuple[Sides, pd.DataFrame]:
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
        item_attributes=read_attributes(paths["items"], key="item"), max_cutoff=max_cutoff,
        options=BeyondOptions(distance=distance)))

    def accuracy_metrics() -> Evaluation:
        ev = Evaluation(ground_truth, {"model": ranked}, RelevanceMapping.identity(1),
                        Conventions(), max_cutoff, beyond=inputs)
        ev.summary(list(METRICS))
        return ev

    ev = sides.timed("accuracy", accuracy_metrics)
    beyond = ev.beyond
    others = [metric for metric in BEYOND_METRICS if metric not in ("ild", *HISTORY)]
    table = sides.timed("beyond", lambda: beyond.summary(others))  # type: ignore[union-attr]
    ild = sides.timed("ild", lambda: beyond.summary(["ild"]))  # type: ignore[union-attr]
    seen = sides.timed("history", lambda: beyond.summary(list(HISTORY)))  # type: ignore[union-attr]
    return sides, pd.concat([table, ild, seen])


def in_memory(n_users: int, list_length: int, seed: int = 0) -> Evaluation:
    """An evaluation of one model whose top ``list_length`` of each user is held as item
    codes (no file, no ranking: the model's accuracy has nothing ranked), with genres as
    :func:`write_files` makes them; to keep the set-up's memory small, the ground truth
    holds one rated item per user (it names the users) and the training interactions two
    per user (the items' popularity)."""
    rng = np.random.default_rng(seed)
    items = pa.array([f"i{i:05d}" for i in range(N_ITEMS)])
    users = pa.array([f"u{i:07d}" for i in range(n_users)])
    listed, rated = lists_and_ratings(rng, n_users, list_length)
    ground_truth = GroundTruth.from_frame(pd.DataFrame({
        "user": users.to_pandas(), "item": items.take(rated[:, 0]).to_pandas(), "rating": 1}))
    seen = training(rng, users, items, n_users, seen=2).to_pandas()
    inputs = prepare_beyond(ground_truth, {},
                            interactions=interactions_from_dataframe(seen, name="train"),
                            item_attributes=attributes_from_dataframe(
                                genres(rng, items), key="item", name="genres"),
                            max_cutoff=list_length)
    code = pc.index_in(pc.cast(items, pa.large_string()), value_set=inputs.facts.ids)
    row = pc.index_in(ground_truth.user_ids, value_set=users)  # each user's generated row
    lists = code.to_numpy(zero_copy_only=False).astype(np.int32)[
        listed[row.to_numpy(zero_copy_only=False)]]
    return Evaluation(ground_truth, {"model": RankedRun.nothing_ranked(ground_truth)},
                      RelevanceMapping.identity(1), Conventions(), list_length,
                      beyond=dataclasses.replace(inputs, lists={"model": lists}))


def measure(n_users: int, list_length: int, repeats: int, distance: str = "auto"
            ) -> tuple[dict, dict, pd.DataFrame]:
    """Median wall-clock and CPU seconds of each side over ``repeats`` runs."""
    with tempfile.TemporaryDirectory() as folder:
        paths = write_files(Path(folder), n_users, list_length)
        reset_peak_rss()
        runs = [time_both(paths, list_length, distance) for _ in range(repeats)]
    sides = ("accuracy", "beyond", "ild", "history")
    wall = {side: statistics.median(r.wall[side] for r, _ in runs) for side in sides}
    cpu = {side: statistics.median(r.cpu[side] for r, _ in runs) for side in sides}
    return wall, cpu, runs[-1][1]


def measure_in_memory(n_users: int, list_length: int) -> tuple[float, float, int]:
    """Wall-clock and CPU seconds of every beyond-accuracy metric at every cutoff, on lists
    held in memory, and the values computed."""
    evaluation = in_memory(n_users, list_length)
    reset_peak_rss()
    wall, cpu = time.perf_counter(), time.process_time()
    table = evaluation.beyond.summary(list(BEYOND_METRICS))  # type: ignore[union-attr]
    return time.perf_counter() - wall, time.process_time() - cpu, len(table)


def main() -> None:
    global N_ITEMS, HISTORIES
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--users", type=int)
    parser.add_argument("--list-length", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs from files (the median is kept)")
    parser.add_argument("--in-memory", action="store_true",
                        help="the metrics alone, on lists held in memory (no file read)")
    parser.add_argument("--distance", choices=DISTANCE, default="auto",
                        help="ILD's distance on the genres: auto (Jaccard) or hamming")
    parser.add_argument("--catalogue", type=int, choices=CATALOGUES, default=N_ITEMS,
                        help="the number of items")
    parser.add_argument("--histories", choices=("zipf", "uniform"), default="zipf",
                        help="training interactions of Zipf-popular items or uniform ones")
    args = parser.parse_args()
    N_ITEMS, HISTORIES = args.catalogue, args.histories
    prefer_ordinary_pages()  # as the command line and the dashboard's server do
    if args.users:
        sizes = [(args.users, args.list_length, args.in_memory)]
    else:
        sizes = [(100_000, 100, False), (1_000_000, 100, True)]
    rows, cpu_rows = [], []
    for n_users, length, held in sizes:
        label = f"{n_users:,} users x {length}"
        if held:
            wall_s, cpu_s, values = measure_in_memory(n_users, length)
            print(f"{label} (in memory): {values:,} values, peak memory "
                  f"{peak_rss_bytes() / 2**30:.1f} GiB, {cpu_s:.2f} CPU s")
            rows.append((label, "beyond accuracy, lists in memory (every metric at every K)",
                         wall_s, 30.0 if n_users >= 1_000_000 else None))
            continue
        wall, cpu, table = measure(n_users, length, args.repeats, args.distance)
        beyond = wall["beyond"] + wall["ild"] + wall["history"]
        accuracy = wall["accuracy"]
        print(f"{label}: {len(table):,} values, peak memory "
              f"{peak_rss_bytes() / 2**30:.1f} GiB")
        rows.append((label, "accuracy (read + every metric at every K)", accuracy, None))
        rows.append((label, "beyond accuracy (read extras + every metric at every K)", beyond,
                     30.0 if n_users >= 1_000_000 else 2 * accuracy))
        ild = ("Jaccard, every pair of each list" if args.distance == "auto" else
               "Hamming, running sums along the ranks")
        rows.append((label, f"  of which ILD ({ild})", wall["ild"], None))
        rows.append((label, "  of which serendipity and miscalibration", wall["history"],
                     None))
        total = cpu["beyond"] + cpu["ild"] + cpu["history"]
        cpu_rows.append((label, cpu["accuracy"], total, cpu["ild"], cpu["history"],
                         f"{total / cpu['accuracy']:.2f}x",
                         f"{cpu['beyond'] / cpu['accuracy']:.2f}x"))
    print_timings(rows)
    if cpu_rows:
        print()
        print_table(["data", "CPU s accuracy", "CPU s beyond", "of which ILD",
                     "of which serendipity, miscalibration", "ratio",
                     "ratio without those three"], cpu_rows)


if __name__ == "__main__":
    main()
