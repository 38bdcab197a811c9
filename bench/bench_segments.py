"""Benchmark: the Segments page on 100,000 users, 4 models and 10 segments, through the real
app in Streamlit's AppTest.

Generates (or reuses, with --keep) an upload of 100,000 users x 4 models x 100 items as
Parquet (the generator of bench/common.py) and a user-attributes CSV whose column ``region``
puts each user in one of 10 segments of unequal sizes (a little over a third to about 1 %),
and ``age``, a number cut into quantile buckets. It uploads the three kinds of file, opens
the Compare page once (the evaluation is then warm: its first curves are timed by
bench_app.py), then times, each as one app run:

- opening the Segments page split by region: per-user NDCG@10 of the 4 models, the
  randomization test on 6 pairs in each of the 10 segments (10,000 sign flips each), 1,000
  bootstrap resamples for every interval, the heatmap and the curves over K of every segment
  (target: within 5 s);
- changing the split (age, 4 buckets), the test (t-test) and the baseline;
- narrowing the Significance page to one segment (its users alone).

and, timed directly, the library calls behind the Segments page.

    python bench/bench_segments.py                     # 100,000 users
    python bench/bench_segments.py --keep /tmp/seg4    # keep (and reuse) the files
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
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
REGIONS = 10
PAGE_TARGET, CHANGE_TARGET = 5.0, 5.0


def write_attributes(folder: Path, n_users: int, seed: int = 1) -> Path:
    """``users.csv``: ``user,region,age`` for every user of :func:`write_upload`'s files
    (ids ``u0000000``...); region r holds a share proportional to 1 / (r + 1)."""
    path = folder / "users.csv"
    if path.exists():
        return path
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, REGIONS + 1)
    region = rng.choice(REGIONS, size=n_users, p=weights / weights.sum())
    pd.DataFrame({
        "user": [f"u{i:07d}" for i in range(n_users)],
        "region": [f"region_{r:02d}" for r in region],
        "age": rng.integers(18, 80, n_users),
    }).to_csv(path, index=False)
    return path


def bench_pages(paths: dict[str, Path], attributes: Path, label: str, rows: list,
                cpu_rows: list) -> None:
    """Time each step as one app run: wall-clock seconds in ``rows`` and, in ``cpu_rows``,
    the CPU seconds of this process (every thread), which a busy machine does not inflate."""
    at = uploaded_app(paths, FOUR_MODELS)
    at.run()
    at.file_uploader(key="upload_user_attributes_0").set_value(
        ("users.csv", attributes.read_bytes(), "text/csv"))
    rows.append((label, "upload, then first curves (Compare)",
                 timed(lambda: (at.run(), at.switch_page("app_pages/compare.py").run())), None))
    check_app(at)
    steps = [
        ("Segments page (region: 10 segments, randomization)",
         lambda: at.switch_page("app_pages/segments.py").run(), PAGE_TARGET),
        ("  split by age (4 buckets)",
         lambda: at.selectbox(key="segment_by").set_value("age").run(), CHANGE_TARGET),
        ("  back to region (cached)",
         lambda: at.selectbox(key="segment_by").set_value("region").run(), CHANGE_TARGET),
        ("  test -> paired t-test",
         lambda: at.selectbox(key="segment_test").set_value("t").run(), CHANGE_TARGET),
        ("  baseline -> weak",
         lambda: at.sidebar.selectbox(key="baseline").set_value("weak").run(), CHANGE_TARGET),
        ("Significance page, all users",
         lambda: at.switch_page("app_pages/significance.py").run(), None),
        ("  narrowed to region_00",
         lambda: at.selectbox(key="segment_filter_choice").set_value(("region", "region_00"))
         .run(), None),
    ]
    for name, step, target in steps:
        cpu = time.process_time()
        seconds = timed(step)
        cpu_rows.append((name, time.process_time() - cpu, seconds))
        check_app(at)
        rows.append((label, name, seconds, target))


def bench_library(paths: dict[str, Path],
                  attributes: Path) -> list[tuple[str, float, float]]:
    """The Segments page's library calls, timed directly from a warm evaluation."""
    from rankmetrics.io import read_attributes
    from rankmetrics.segments import compare_segments, segment_curves, segment_users

    evaluation = evaluation_of_upload(paths, FOUR_MODELS)
    evaluation.means(["ndcg"])  # warm, as the Compare page leaves it
    out = []

    def step(name: str, action):
        started, cpu = time.perf_counter(), time.process_time()
        value = action()
        out.append((name, time.perf_counter() - started, time.process_time() - cpu))
        return value

    users = step("read_attributes (100,000 rows)", lambda: read_attributes(attributes))
    split = step("segment_users (region)",
                 lambda: segment_users(evaluation, "region", attributes=users))
    for test in ("randomization", "t"):
        result = step(f"compare_segments ({test}, 10 segments x 6 pairs)",
                      lambda test=test: compare_segments(evaluation, split, "ndcg", 10,
                                                         test=test))
    step("segment_curves (10 segments x 4 models, K = 1..50)",
         lambda: segment_curves(evaluation, split, "ndcg"))
    print(result.table().to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    for warning in result.warnings:
        print(f"warning: {warning}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="folder for the generated files (reused)")
    parser.add_argument("--skip-library", action="store_true")
    args = parser.parse_args(argv)
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    rows: list = []
    cpu_rows: list = []
    with tempfile.TemporaryDirectory(prefix="rankmetrics-bench-") as scratch:
        folder = args.keep or Path(scratch)
        paths = write_upload(folder, args.users, models=FOUR_MODELS)
        attributes = write_attributes(folder, args.users)
        label = f"upload {args.users // 1000}k users x4x100"
        bench_pages(paths, attributes, label, rows, cpu_rows)
        print_timings(rows)
        print("\nCPU seconds of the same steps (the process, every thread):")
        print_table(["step", "CPU seconds", "wall seconds"], cpu_rows)
        print(f"peak memory of the process: {peak_rss_bytes() / GIB:.2f} GiB")
        if not args.skip_library:
            print("\nthe Segments page's library calls, timed directly:")
            print_table(["stage", "seconds", "CPU seconds"], bench_library(paths, attributes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
