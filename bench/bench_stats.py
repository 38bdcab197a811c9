"""Benchmark: everything the Significance page computes, on 100,000 users and 4 models.

Per-user NDCG@10 values of 4 models (seeded, correlated across models as real models are),
then, timed separately and in total:

- paired randomization tests for all 6 pairs (10,000 permutations) with Holm correction and
  bootstrap confidence intervals of each difference (1,000 samples);
- the same with the paired t-test and with Wilcoxon;
- bootstrap confidence intervals of each model's mean at the chosen cutoff, and the
  significance letters;
- ``compare_models``: all of the above with the randomization test, from one bootstrap: what
  the Significance page computes (bench/bench_significance.py times the page in the app);
- bootstrap confidence bands of each model's mean at every cutoff (the Compare page's bands).

Peak memory is the process's peak resident set size above what it held after generating
the data.

    python bench/bench_stats.py --users 100000 --models 4
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from common import GIB, current_rss_bytes, peak_rss_bytes, print_table, reset_peak_rss

from rankmetrics.stats import (
    compare_models,
    confidence_bands,
    paired_comparison,
    significance_groups,
)


def make_values(n_users: int, n_models: int, n_cutoffs: int, seed: int = 0):
    """Per-user values in [0, 1]: a shared user difficulty plus a model effect and noise."""
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(2, 5, n_users)
    per_model = {}
    for m in range(n_models):
        effect = 0.01 * m
        noise = rng.normal(0, 0.15, (n_users, 1)) + rng.normal(0, 0.02, (n_users, n_cutoffs))
        curve = np.linspace(0.8, 1.0, n_cutoffs)[None, :]
        values = np.clip((difficulty[:, None] + effect + noise) * curve, 0, 1)
        values[rng.random(n_users) < 0.3] = 0.0  # users served with nothing relevant
        per_model[f"model_{chr(ord('A') + m)}"] = values
    return per_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--models", type=int, default=4)
    parser.add_argument("--cutoffs", type=int, default=20)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--bootstrap", type=int, default=1_000)
    args = parser.parse_args()

    per_model = make_values(args.users, args.models, args.cutoffs)
    at_k = pd.DataFrame({name: values[:, 9 if args.cutoffs >= 10 else -1]
                         for name, values in per_model.items()})
    reset_peak_rss()
    base = current_rss_bytes()
    timings = {}

    started = time.perf_counter()
    table = paired_comparison(at_k, test="randomization", correction="holm",
                              n_permutations=args.permutations, n_bootstrap=args.bootstrap)
    timings["randomization, 6 pairs + bootstrap CIs"] = time.perf_counter() - started
    for test in ("t", "wilcoxon"):
        started = time.perf_counter()
        paired_comparison(at_k, test=test, n_bootstrap=args.bootstrap)
        timings[f"{test}, 6 pairs + bootstrap CIs"] = time.perf_counter() - started
    started = time.perf_counter()
    confidence_bands({name: at_k[name].to_numpy() for name in at_k}, n_bootstrap=args.bootstrap)
    timings["each model's mean CI at one cutoff"] = time.perf_counter() - started
    started = time.perf_counter()
    confidence_bands(per_model, n_bootstrap=args.bootstrap)
    timings[f"confidence bands, {args.cutoffs} cutoffs (Compare page)"] = (
        time.perf_counter() - started
    )
    started = time.perf_counter()
    significance_groups(at_k.mean(), table)
    timings["significance letters"] = time.perf_counter() - started

    started = time.perf_counter()
    compare_models(at_k, test="randomization", correction="holm",
                   n_permutations=args.permutations, n_bootstrap=args.bootstrap)
    page = time.perf_counter() - started
    print(f"{args.users:,} users, {args.models} models, {args.permutations:,} permutations, "
          f"{args.bootstrap:,} bootstrap samples")
    timings["compare_models: the Significance page"] = page
    print_table(["computation", "seconds"], list(timings.items()))
    print(f"  peak memory added: {max(peak_rss_bytes() - base, 0) / GIB:.2f} GiB")


if __name__ == "__main__":
    main()
