"""Benchmark: rankmetrics against pytrec_eval and ranx, end to end from long DataFrames.

Generates a seeded synthetic data set (every user has 100 recommended items with string ids
sorted by score; about 20 judged items per user with grades 0-3, half of them among the
recommended) and times, on the same data in the same run:

- rankmetrics: all 6 main metrics at every cutoff 1..100 (plus R-Precision), from the
  DataFrames to the table of means;
- pytrec_eval: building its dicts from the DataFrames plus evaluating ndcg_cut_10,
  map_cut_100, recip_rank, P_10, recall_100, success_10;
- ranx: Qrels/Run from the DataFrames plus evaluate of the same measures, warm (after numba
  has compiled on a small data set).

Each tool runs in a fresh child process so peak memory is its own: the table gives seconds
and the peak resident memory added on top of the loaded DataFrames.

    python bench/bench_metrics.py --users 100000
    python bench/bench_metrics.py --users 1000000 --tools rankmetrics
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import time

import pandas as pd
from common import (
    GIB,
    LIST_LENGTH,
    current_rss_bytes,
    long_frames,
    peak_rss_bytes,
    print_table,
    reset_peak_rss,
)


def run_rankmetrics(run: pd.DataFrame, truth: pd.DataFrame) -> dict:
    from rankmetrics import Conventions, RelevanceMapping, evaluate

    evaluation = evaluate(truth, {"model": run}, relevance=RelevanceMapping.identity(1),
                          conventions=Conventions.preset("trec_eval"), max_cutoff=100)
    table = evaluation.summary(["precision", "recall", "hit_rate", "mrr", "map", "ndcg",
                                "r_precision"])
    pick = table.set_index(["metric", "cutoff"])["value"]
    return {"ndcg@10": pick[("ndcg", 10)], "map@100": pick[("map", 100)],
            "mrr@100": pick[("mrr", 100)], "P@10": pick[("precision", 10)],
            "recall@100": pick[("recall", 100)], "success@10": pick[("hit_rate", 10)],
            "values": len(table)}


def run_pytrec_eval(run: pd.DataFrame, truth: pd.DataFrame) -> dict:
    import pytrec_eval

    qrels: dict = {}
    ratings = truth["rating"].tolist()
    for user, item, rating in zip(truth["user"], truth["item"], ratings, strict=True):
        qrels.setdefault(user, {})[item] = rating
    scored: dict = {}
    for user, item, score in zip(run["user"], run["item"], run["score"].tolist(), strict=True):
        scored.setdefault(user, {})[item] = score
    measures = {"ndcg_cut_10", "map_cut_100", "recip_rank", "P_10", "recall_100", "success_10"}
    results = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(scored)
    n = len(results)

    def mean(key):
        return sum(r[key] for r in results.values()) / n

    return {"ndcg@10": mean("ndcg_cut_10"), "map@100": mean("map_cut_100"),
            "mrr@100": mean("recip_rank"), "P@10": mean("P_10"),
            "recall@100": mean("recall_100"), "success@10": mean("success_10")}


def _ranx_evaluate(run: pd.DataFrame, truth: pd.DataFrame) -> dict:
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_df(truth.astype({"user": object, "item": object}), q_id_col="user",
                          doc_id_col="item", score_col="rating")
    ranked = Run.from_df(run.astype({"user": object, "item": object}), q_id_col="user",
                         doc_id_col="item", score_col="score")
    scores = evaluate(qrels, ranked, ["ndcg@10", "map@100", "mrr@100", "precision@10",
                                      "recall@100", "hit_rate@10"])
    return {"ndcg@10": scores["ndcg@10"], "map@100": scores["map@100"],
            "mrr@100": scores["mrr@100"], "P@10": scores["precision@10"],
            "recall@100": scores["recall@100"], "success@10": scores["hit_rate@10"]}


MEASURES = ("ndcg@10", "map@100", "mrr@100", "P@10", "recall@100", "success@10")
TOOLS = {"rankmetrics": run_rankmetrics, "pytrec_eval": run_pytrec_eval, "ranx": _ranx_evaluate}


def _child(tool: str, n_users: int, string_dtype: str, queue) -> None:
    run, truth = long_frames(n_users, string_dtype=string_dtype)
    if tool == "ranx":  # warm-up: let numba compile on a small data set first
        small_run, small_truth = long_frames(200, seed=1, string_dtype=string_dtype)
        _ranx_evaluate(small_run, small_truth)
    reset_peak_rss()
    loaded = current_rss_bytes()
    started = time.perf_counter()
    values = TOOLS[tool](run, truth)
    seconds = time.perf_counter() - started
    queue.put({"tool": tool, "seconds": seconds,
               "added_gib": max(peak_rss_bytes() - loaded, 0) / GIB, "values": values})


def _object_conversion_cost(n_users: int) -> tuple[float, float]:
    """What rankmetrics.io spends converting the run's object id columns to Arrow text:
    seconds, and the peak memory added (GiB), the converted text included."""
    from rankmetrics.io._ids import from_objects, objects_as_chunks

    run, _ = long_frames(n_users, string_dtype="object")
    reset_peak_rss()
    loaded = current_rss_bytes()
    started = time.perf_counter()
    users = from_objects(run["user"].to_numpy())  # in runs: the first of each is converted
    items = objects_as_chunks(run["item"].to_numpy())  # hashed, not numbered: in chunks
    seconds = time.perf_counter() - started
    del users, items
    return seconds, max(peak_rss_bytes() - loaded, 0) / GIB


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--tools", default="rankmetrics,pytrec_eval,ranx")
    parser.add_argument("--string-dtype", default="object", choices=("object", "str"),
                        help="dtype of the id columns (pandas 3's default for text is str)")
    args = parser.parse_args()
    context = mp.get_context("spawn")
    rows = []
    for tool in args.tools.split(","):
        queue = context.Queue()
        child = context.Process(target=_child, args=(tool, args.users, args.string_dtype, queue))
        child.start()
        result = queue.get()
        child.join()
        rows.append(result)
        print(f"{tool}: {result['seconds']:.2f} s, +{result['added_gib']:.2f} GiB, "
              f"{json.dumps({k: v for k, v in result['values'].items()}, default=float)}",
              flush=True)
    if args.string_dtype == "object" and "rankmetrics" in args.tools.split(","):
        seconds, added = _object_conversion_cost(args.users)
        print(f"object ids -> Arrow text (part of rankmetrics' time and memory): {seconds:.2f} s, "
              f"+{added:.2f} GiB for the run's user and item columns", flush=True)
    base = next((r for r in rows if r["tool"] == "rankmetrics"), None)
    print(f"\n{args.users:,} users x {LIST_LENGTH} items ({args.string_dtype} ids)")
    table = []
    for r in rows:
        ratio = f"{r['seconds'] / base['seconds']:.1f}x" if base else "-"
        gap = max(abs(r["values"][k] - base["values"][k]) for k in MEASURES) if base else 0.0
        table.append((r["tool"], r["seconds"], r["added_gib"], ratio, f"{gap:.1e}"))
    print_table(["tool", "seconds", "peak +GiB", "vs rankmetrics", "max |value - rankmetrics|"],
                table)
    if any(r["tool"] == "pytrec_eval" for r in rows):
        print("(pytrec_eval keeps scores as float32, so scores equal to float32 precision tie "
              "there: differences of order 1e-7 come from that.)")


if __name__ == "__main__":
    main()
