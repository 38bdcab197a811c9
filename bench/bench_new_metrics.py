"""Benchmark: ERR, RBP, RBP's residual, bpref and Judged against the accuracy metrics, and the
lists in common of two models (top-K overlap and rank-biased overlap), at every K from 1 to
100 on bench_metrics' data (100 recommended items and 20 judged ones per user).

Times, in one process, the median of ``--repeat`` runs of each step, each on a fresh
evaluation made outside the time (the reading and matching every metric shares are timed
apart, so the steps compare what each family adds):

- the means at every K of the seven accuracy metrics (the six main ones and R-Precision);
- the means at every K of err, rbp, rbp_residual, bpref and judged;
- rankmetrics.agreement.list_overlap of two models at K = 1..100, against the accuracy
  metrics' means of the same two models: two models whose lists share few items, and two
  whose lists hold the same items in a slightly different order (every user shares items,
  the slowest case for Jaccard);
- one user's values at one K (what Head-to-head shows per user), at K = 10 and K = 100.

    python bench/bench_new_metrics.py --users 100000
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from common import long_frames, print_table

from rankmetrics import Conventions, RelevanceMapping, evaluate
from rankmetrics.agreement import list_overlap

ACCURACY = ("precision", "recall", "hit_rate", "mrr", "map", "ndcg", "r_precision")
NEW = ("err", "rbp", "rbp_residual", "bpref", "judged")


def measured(make, action, repeat: int) -> tuple[float, float]:
    """The median wall and CPU seconds of ``repeat`` runs of ``action(make())``, ``make()``
    (a fresh evaluation: nothing cached from the run before) left out of the time."""
    walls, cpus = [], []
    for _ in range(repeat):
        made = make()
        wall, cpu = time.perf_counter(), time.process_time()
        action(made)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    run, truth = long_frames(args.users)
    other, _ = long_frames(args.users, seed=1)  # the same users, other lists
    close = run.copy()  # the same items, reordered a little within each user's list
    close["score"] = close["score"] + np.random.default_rng(2).normal(0, 0.02, len(close))
    options = {"relevance": RelevanceMapping.identity(1),
               "conventions": Conventions.preset("trec_eval"), "max_cutoff": 100}
    def one():
        return evaluate(truth, {"model": run}, **options)

    def two():
        return evaluate(truth, {"a": run, "b": other}, **options)

    def two_lists():
        return evaluate(truth, {"a": run, "b": other}, catalogue="all", **options)

    def close_lists():
        return evaluate(truth, {"a": run, "b": close}, catalogue="all", **options)

    def overlap():
        return list_overlap(two_lists(), "a", "b", max_cutoff=100)

    rows = [
        ("the evaluation (reading, ordering, matching)",
         measured(lambda: None, lambda _: one(), args.repeat)),
        ("7 accuracy metrics, means at K = 1..100",
         measured(one, lambda ev: ev.summary(ACCURACY), args.repeat)),
        ("err, rbp, rbp_residual, bpref, judged, means at K = 1..100",
         measured(one, lambda ev: ev.summary(NEW), args.repeat)),
        ("2 models: 7 accuracy metrics, means at K = 1..100",
         measured(two, lambda ev: ev.summary(ACCURACY), args.repeat)),
        ("2 models: lists in common (overlap and RBO) at K = 1..100",
         measured(two_lists, lambda ev: list_overlap(ev, "a", "b", max_cutoff=100).curves(),
                  args.repeat)),
        ("2 close models: lists in common at K = 1..100",
         measured(close_lists,
                  lambda ev: list_overlap(ev, "a", "b", max_cutoff=100).curves(),
                  args.repeat)),
        ("each user's lists in common at K = 10", measured(overlap, lambda o: o.at(10),
                                                          args.repeat)),
        ("each user's lists in common at K = 100", measured(overlap, lambda o: o.at(100),
                                                           args.repeat)),
    ]
    _, (acc, _), (new, _), (acc2, _), (rbo, _), (close_rbo, _), _, _ = (
        result for _, result in rows)
    print(f"{args.users:,} users x 100 items, median of {args.repeat} runs")
    print_table(["step", "seconds", "CPU seconds"],
                [(name, wall, cpu) for name, (wall, cpu) in rows])
    print(f"the new metrics: {new:.2f} s against the accuracy metrics' {acc:.2f} s "
          f"({new / acc:.2f}x; target 2x)")
    print(f"lists in common: {rbo:.2f} s against the accuracy metrics of the same two models, "
          f"{acc2:.2f} s ({rbo / acc2:.2f}x; target 1x)")
    print(f"lists in common, models sharing nearly every item: {close_rbo:.2f} s "
          f"({close_rbo / acc2:.2f}x)")


if __name__ == "__main__":
    main()
