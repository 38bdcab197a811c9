"""Benchmark: how fast the dashboard answers, on the demo and on a large upload.

Drives the real app in Streamlit's AppTest (in-process, no browser: the times include every
cached computation, the figures and the page scripts, not the network or Plotly's drawing):

- the bundled movies demo: the first page with curves, then changing K, the relevance
  threshold and the preset;
- a generated upload of 100,000 users x 3 models x 100 items as Parquet (30 million rows)
  with a ground truth of 20 rated items per user: the time from the upload on the Data page to
  the first curves on the Compare page, then the same setting changes, then the Users,
  Metrics explained and Why do they differ? pages (the last evaluates every preset).

Targets: demo setting changes well under a second; on the large upload the first curves
within 5 s and each setting change or page within 3 s. A second table gives the CPU seconds the
process spent on each step (on a busy machine the clock's seconds grow with the others' load,
CPU seconds much less). A third table breaks the first load down into
the stages the app goes through (fingerprinting the uploads, reading, suggesting a relevance
mapping, ranking and matching, checking, the means, the figure), each timed directly on the
same bytes, one after another as the app runs them.

    python bench/bench_app.py                  # both, prints two tables
    python bench/bench_app.py --users 20000    # a smaller upload
    python bench/bench_app.py --keep /tmp/big  # keep (and reuse) the generated files
    python bench/bench_app.py --score-decimals 1 --keep /tmp/tied  # scores with ties
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from common import (
    LIST_LENGTH,
    MODELS,
    ROOT,
    check_app,
    print_table,
    print_timings,
    write_upload,
)

DEMO_TARGET, CHANGE_TARGET, FIRST_TARGET = 1.0, 3.0, 5.0
#: (data, step) -> CPU seconds this process spent on the step (every thread): on a busy
#: machine the seconds of the clock grow with the others' load, these much less.
CPU: dict[tuple[str, str], float] = {}


#: The pages opened after the setting changes: (step, page script).
PAGE_STEPS = (("Users page (per-user values)", "users"),
              ("Metrics explained page (NDCG)", "explained"),
              ("Why do they differ? page (every preset, NDCG@K)", "conventions"))


def timed(label: str, step: str, action) -> float:
    """Seconds taken by ``action()``; its CPU seconds go to ``CPU``."""
    started, cpu = time.perf_counter(), time.process_time()
    action()
    CPU[(label, step)] = time.process_time() - cpu
    return time.perf_counter() - started


def settings_changes(at, rows: list, label: str, limit: float, first_threshold: float) -> None:
    """K, threshold and preset changes on the Compare page, each timed as one app run."""
    steps = [
        ("K 10 -> 5", lambda: at.slider(key="cutoff").set_value(5).run()),
        ("relevance graded -> binary", lambda: at.radio(key="rel_kind").set_value("binary").run()),
        ("threshold -> next rating",
         lambda: at.select_slider(key="rel_threshold").set_value(first_threshold).run()),
        ("preset default -> trec_eval",
         lambda: at.selectbox(key="preset").set_value("trec_eval").run()),
        ("preset trec_eval -> retrieved_ideal",
         lambda: at.selectbox(key="preset").set_value("retrieved_ideal").run()),
        ("K 5 -> 20", lambda: at.slider(key="cutoff").set_value(20).run()),
        ("largest K for curves -> 100",
         lambda: at.number_input(key="max_cutoff").set_value(100).run()),
        ("threshold back (largest K 100)",
         lambda: at.select_slider(key="rel_threshold").set_value(first_threshold - 1).run()),
    ]
    for name, step in steps:
        seconds = timed(label, f"change: {name}", step)
        check_app(at)
        rows.append((label, f"change: {name}", seconds, limit))


def bench_demo(rows: list) -> None:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    rows.append(("demo", "open the app: demo curves drawn",
                 timed("demo", "open the app: demo curves drawn", at.run), None))
    check_app(at)
    settings_changes(at, rows, "demo", DEMO_TARGET, 5.0)
    for step, page in PAGE_STEPS:
        rows.append(("demo", step, timed("demo", step, lambda page=page: at.switch_page(
            f"app_pages/{page}.py").run()), DEMO_TARGET))
    check_app(at)


def bench_upload(rows: list, paths: dict[str, Path], label: str) -> None:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.run()
    at.switch_page("app_pages/data.py").run()
    files = {name: path.read_bytes() for name, path in paths.items()}
    at.file_uploader[0].set_value([(f"{name}.parquet", files[name], "application/octet-stream")
                                   for name in MODELS])
    at.file_uploader[1].set_value(("ground_truth.parquet", files["truth"],
                                   "application/octet-stream"))
    started, cpu = time.perf_counter(), time.process_time()
    at.run()  # the upload: read, check, rank, and the Data page's counts and checks
    data_page = time.perf_counter() - started
    CPU[(label, "upload -> Data page shows every file")] = time.process_time() - cpu
    check_app(at)
    at.switch_page("app_pages/compare.py").run()
    first = time.perf_counter() - started
    CPU[(label, "upload -> first curves (Compare page)")] = time.process_time() - cpu
    check_app(at)
    assert at.get("plotly_chart"), "no curves after the upload"
    rows.append((label, "upload -> Data page shows every file", data_page, None))
    rows.append((label, "upload -> first curves (Compare page)", first, FIRST_TARGET))
    settings_changes(at, rows, label, CHANGE_TARGET, 5.0)
    for step, page in PAGE_STEPS:
        rows.append((label, step, timed(label, step, lambda page=page: at.switch_page(
            f"app_pages/{page}.py").run()), CHANGE_TARGET))
    check_app(at)


def bench_stages(paths: dict[str, Path]) -> list[tuple[str, float]]:
    """The first load's stages as the app runs them, each timed directly on the uploaded
    bytes (the per-file stages one file after another)."""
    from dashboard.files import digest
    from dashboard.settings import default_max_cutoff
    from rankmetrics import Conventions, GroundTruth, RankedRun, evaluate, suggest_mapping
    from rankmetrics.figures import metric_curves, model_colors
    from rankmetrics.io import check_against_truth, rating_values, read_run, read_truth
    from rankmetrics.metrics import MAIN_METRICS

    data = {name: path.read_bytes() for name, path in paths.items()}
    out = []

    def stage(label: str, action):
        started = time.perf_counter()
        result = action()
        out.append((label, time.perf_counter() - started))
        return result

    stage(f"fingerprint the {len(data)} uploaded files", lambda: [digest(b) for b in data.values()])
    truth = stage("read_truth (ground truth)",
                  lambda: read_truth(data["truth"], name="ground_truth.parquet"))
    runs = {name: stage(f"read_run ({name}, {LIST_LENGTH * truth.n_users:,} rows)",
                        lambda name=name: read_run(data[name], name=f"{name}.parquet"))
            for name in MODELS}
    mapping = stage("relevance suggestion",
                    lambda: suggest_mapping(np.unique(rating_values(truth))).recommended)
    prepared = stage("GroundTruth.from_loaded", lambda: GroundTruth.from_loaded(truth))
    ranked = {name: stage(f"RankedRun.from_loaded ({name})",
                          lambda name=name: RankedRun.from_loaded(runs[name], prepared))
              for name in MODELS}
    max_cutoff = default_max_cutoff(LIST_LENGTH)
    for name in MODELS:
        stage(f"check_against_truth ({name})",
              lambda name=name: check_against_truth(runs[name], truth, mapping=mapping,
                                                    max_cutoff=max_cutoff))
    means = stage(f"evaluate + 6 metrics' means at K = 1..{max_cutoff} ({len(MODELS)} models)",
                  lambda: evaluate(prepared, ranked, relevance=mapping, conventions=Conventions(),
                                   max_cutoff=max_cutoff).means(MAIN_METRICS))
    curves = {model: {metric: values.tolist() for metric, values in by_metric.items()}
              for model, by_metric in means.items()}
    stage("curves figure", lambda: metric_curves(curves, list(MAIN_METRICS), 10,
                                                 model_colors(list(MODELS))))
    out.append(("sum of the stages", sum(seconds for _, seconds in out)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="folder for the generated files (reused)")
    parser.add_argument("--skip-demo", action="store_true")
    parser.add_argument("--skip-stages", action="store_true")
    parser.add_argument("--score-decimals", type=int, default=6,
                        help="round the models' scores (1: most lists hold tied scores)")
    args = parser.parse_args(argv)
    logging.getLogger("streamlit").setLevel(logging.ERROR)

    rows: list = []
    if not args.skip_demo:
        bench_demo(rows)
    with tempfile.TemporaryDirectory(prefix="rankmetrics-bench-") as scratch:
        folder = args.keep or Path(scratch)
        started = time.perf_counter()
        paths = write_upload(folder, args.users, score_decimals=args.score_decimals)
        size = sum(path.stat().st_size for path in paths.values()) / 2**20
        print(f"data: {args.users:,} users x {len(MODELS)} models x {LIST_LENGTH} items "
              f"({args.users * LIST_LENGTH * len(MODELS):,} rows, {size:.0f} MB of Parquet) in "
              f"{folder} (ready in {time.perf_counter() - started:.1f} s)")
        label = f"upload {args.users // 1000}k users x3x100"
        if args.score_decimals < 6:
            label += f", scores to {args.score_decimals} decimal(s)"
        bench_upload(rows, paths, label)
        print_timings(rows)
        print("\nCPU seconds of the same steps (this process, every thread; on a busy machine "
              "the seconds above grow with the others' load, these much less):")
        print_table(["data", "step", "CPU seconds"],
                    [(data, step, seconds) for (data, step), seconds in CPU.items()], left=2)
        if not args.skip_stages:
            print("\nfirst-load stages, timed directly on the same bytes, one after another:")
            print_table(["stage", "seconds"], bench_stages(paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
