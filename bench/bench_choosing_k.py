"""Benchmark: the Choosing-K page on a large upload, as a person uses it.

Drives the real app in Streamlit's AppTest (in-process, no browser): uploads 100,000 users x
4 models x 100 items (Parquet) and a ground truth of 20 rated items per user on the Data
page, opens the Compare page with the largest K set to 100 (the evaluation is then made and
warm, as it is for anyone arriving from there), and times the Choosing-K page end to end
through the same cached functions it calls:

- the whole page, every panel at every K = 1..100, with the t-test (target 10 s);
- a change of the chosen metric (target 2 s);
- the whole page again with the Wilcoxon test (every K for the chosen metric; the maps at a
  spread of cutoffs) (target 10 s);
- the randomization test at a spread of cutoffs, 1,000 random flips (target 20 s).

    python bench/bench_choosing_k.py                   # 100,000 users
    python bench/bench_choosing_k.py --users 20000
    python bench/bench_choosing_k.py --keep /tmp/big   # keep (and reuse) the generated files
    python bench/bench_choosing_k.py --bundle          # the same steps on a saved evaluation

With ``--bundle``, the same files are also evaluated to K = 100 with the library, saved as a
bundle folder and opened the way ``streamlit run app.py -- --bundle DIR`` opens it; the same
steps are timed there (the tests at the saved cutoffs, every main metric; the relevance map
and the ties on the 1,000 sampled users).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

from common import (
    LIST_LENGTH,
    MODELS,
    ROOT,
    check_app,
    print_table,
    timed,
    uploaded_app,
    write_upload,
)

FOUR_MODELS = {**MODELS, "fourth": 1.0}
PAGE_TARGET, METRIC_TARGET, RANDOMIZATION_TARGET = 10.0, 2.0, 20.0


def bench(rows: list, paths: dict[str, Path], label: str) -> None:
    at = uploaded_app(paths, FOUR_MODELS)
    at.run()
    check_app(at)
    at.switch_page("app_pages/compare.py").run()
    at.number_input(key="max_cutoff").set_value(100).run()
    check_app(at)
    time_steps(rows, at, label)


def bench_bundle(rows: list, paths: dict[str, Path], folder: Path, label: str) -> None:
    """The page on a saved evaluation of the same files, opened from the command line."""
    from streamlit.testing.v1 import AppTest

    from rankmetrics import evaluate, suggest_mapping
    from rankmetrics.io import read_run, read_truth

    bundle = folder / "bundle"
    if not bundle.exists():  # as the dashboard evaluates the upload: the suggested mapping
        truth = read_truth(paths["truth"])
        mapping = suggest_mapping(truth.table["rating"].to_numpy()).recommended
        runs = {name: read_run(paths[name]) for name in FOUR_MODELS}
        evaluate(truth, runs, relevance=mapping, max_cutoff=100).save(bundle)
    arguments = sys.argv
    sys.argv = ["app.py", "--bundle", str(bundle)]
    try:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
        at.run()
        check_app(at)
        at.switch_page("app_pages/compare.py").run()
        check_app(at)
        time_steps(rows, at, label)
    finally:
        sys.argv = arguments


def time_steps(rows: list, at, label: str) -> None:
    """Open the Choosing-K page, change the metric twice and the test twice, timing each."""
    steps = [
        ("Choosing K page, t-test, every K to 100",
         lambda: at.switch_page("app_pages/choosing_k.py").run(), PAGE_TARGET),
        ("change the metric NDCG -> Recall",
         lambda: at.selectbox(key="choosing_k_metric").set_value("recall").run(), METRIC_TARGET),
        ("change the metric Recall -> MAP",
         lambda: at.selectbox(key="choosing_k_metric").set_value("map").run(), METRIC_TARGET),
        ("test -> Wilcoxon (whole page again)",
         lambda: at.selectbox(key="choosing_k_test").set_value("wilcoxon").run(), PAGE_TARGET),
        ("test -> randomization, 1,000 flips, sampled K",
         lambda: at.selectbox(key="choosing_k_test").set_value("randomization").run(),
         RANDOMIZATION_TARGET),
    ]
    for name, step, limit in steps:
        cpu = time.process_time()
        seconds = timed(step)
        check_app(at)
        rows.append((label, name, seconds, time.process_time() - cpu, limit))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="folder for the generated files (reused)")
    parser.add_argument("--bundle", action="store_true",
                        help="also time the page on a saved evaluation of the same files")
    args = parser.parse_args(argv)
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    rows: list = []
    with tempfile.TemporaryDirectory(prefix="rankmetrics-bench-") as scratch:
        folder = args.keep or Path(scratch)
        started = time.perf_counter()
        paths = write_upload(folder, args.users, models=FOUR_MODELS)
        print(f"data: {args.users:,} users x {len(FOUR_MODELS)} models x {LIST_LENGTH} items "
              f"in {folder} (ready in {time.perf_counter() - started:.1f} s)")
        bench(rows, paths, f"upload {args.users // 1000}k users x4x100")
        if args.bundle:
            bench_bundle(rows, paths, folder, f"saved {args.users // 1000}k users x4x100")
    print()
    print_table(["data", "step", "seconds", "cpu seconds", "target", "ok"], [
        (label, step, seconds, cpu, f"< {limit:g}", "yes" if seconds < limit else "NO")
        for label, step, seconds, cpu, limit in rows], left=2)
    print(f"\nload average over the last minute: {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores (cpu seconds: this process's, all its threads)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
