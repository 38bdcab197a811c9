"""Benchmark: the Significance, Head-to-head and confidence-band views on 100,000 users and
4 models, through the real app in Streamlit's AppTest.

Generates (or reuses, with --keep) an upload of 100,000 users x 4 models x 100 items as
Parquet (the generator of bench/common.py, with a fourth model almost as strong as the best, so one
pair is close), uploads it, opens the Compare page once (the first curves: timed by
bench_app.py), then times, each as one app run:

- opening the Significance page: per-user NDCG@10 of the 4 models, the randomization test on
  all 6 pairs (10,000 sign flips each, chunked), 1,000 bootstrap resamples for every interval
  and the letters (target: within 10 s);
- changing the correction (no resampling), the test (t-test) and the metric;
- opening the Head-to-head page and changing its model B;
- turning on the Compare page's confidence bands (6 metrics, 4 models);

and, timed directly, the library calls behind the Significance page. Peak memory is the
process's peak resident set size (it includes the upload and the app).

    python bench/bench_significance.py                    # 100,000 users
    python bench/bench_significance.py --keep /tmp/big4   # keep (and reuse) the files
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

from common import (
    GIB,
    MODELS,
    check_app,
    evaluation_of_upload,
    peak_rss_bytes,
    print_table,
    print_timings,
    timed,
    uploaded_app,
    write_upload,
)

FOUR_MODELS = {**MODELS, "strong_v2": 3.9}
PAGE_TARGET, CHANGE_TARGET = 10.0, 3.0


def bench_pages(paths: dict[str, Path], label: str, rows: list) -> None:
    at = uploaded_app(paths, FOUR_MODELS)
    rows.append((label, "upload, then first curves (Compare)",
                 timed(lambda: (at.run(), at.switch_page("app_pages/compare.py").run())), None))
    check_app(at)
    steps = [
        ("Significance page (randomization, 6 pairs)",
         lambda: at.switch_page("app_pages/significance.py").run(), PAGE_TARGET),
        ("  correction Holm -> Bonferroni",
         lambda: at.selectbox(key="significance_correction").set_value("bonferroni").run(),
         CHANGE_TARGET),
        ("  test -> paired t-test",
         lambda: at.selectbox(key="significance_test").set_value("t").run(), PAGE_TARGET),
        ("  test -> randomization (cached)",
         lambda: at.selectbox(key="significance_test").set_value("randomization").run(),
         CHANGE_TARGET),
        ("  metric -> MAP@10 (randomization)",
         lambda: at.selectbox(key="significance_metric").set_value("map").run(), PAGE_TARGET),
        ("Head-to-head page (NDCG@10)",
         lambda: at.switch_page("app_pages/head_to_head.py").run(), CHANGE_TARGET),
        ("  model B -> weak",
         lambda: at.selectbox(key="h2h_b").set_value("weak").run(), CHANGE_TARGET),
        ("Compare page, bands on (6 metrics)",
         lambda: (at.switch_page("app_pages/compare.py").run(),
                  at.toggle(key="compare_bands").set_value(True).run()), None),
    ]
    for name, step, target in steps:
        seconds = timed(step)
        check_app(at)
        rows.append((label, name, seconds, target))
    captions = [c.value for c in at.caption if "Shaded:" in c.value]
    if captions:
        print(f"bands: {captions[0]}")


def bench_library(paths: dict[str, Path]) -> list[tuple[str, float]]:
    """The Significance page's library calls, timed directly."""
    from rankmetrics.stats import compare_models

    evaluation = evaluation_of_upload(paths, FOUR_MODELS)
    out = []
    started = time.perf_counter()
    values = evaluation.paired("ndcg", 10)
    out.append((f"per-user NDCG@10, 4 models ({len(values):,} users)",
                time.perf_counter() - started))
    for test in ("randomization", "t", "wilcoxon"):
        started = time.perf_counter()
        result = compare_models(values, test=test)
        out.append((f"compare_models({test}): 6 pairs, CIs, letters",
                    time.perf_counter() - started))
        if test == "randomization":
            print(result.models.to_string(index=False))
            print(result.pairs[["model_a", "model_b", "difference", "p_corrected"]]
                  .to_string(index=False))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="folder for the generated files (reused)")
    parser.add_argument("--skip-library", action="store_true")
    args = parser.parse_args(argv)
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    rows: list = []
    with tempfile.TemporaryDirectory(prefix="rankmetrics-bench-") as scratch:
        folder = args.keep or Path(scratch)
        paths = write_upload(folder, args.users, models=FOUR_MODELS)
        label = f"upload {args.users // 1000}k users x4x100"
        bench_pages(paths, label, rows)
        print_timings(rows)
        print(f"peak memory of the process: {peak_rss_bytes() / GIB:.2f} GiB")
        if not args.skip_library:
            print("\nthe Significance page's library calls, timed directly:")
            print_table(["stage", "seconds"], bench_library(paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
