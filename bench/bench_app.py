"""Benchmark: how fast the dashboard answers, on the demo and on a large upload.

Drives the real app in Streamlit's AppTest (in-process, no browser: the times include every
cached computation, the figures and the page scripts, not the network or Plotly's drawing):

- the bundled movies demo: the first page with curves, then changing K, the relevance
  threshold and the preset;
- a generated upload of 100,000 users x 3 models x 100 items as Parquet (30 million rows)
  with a ground truth of 20 rated items per user: the time from the upload on the Data page to
  the first curves on the Compare page, then the same setting changes.

Targets (from the issue): demo setting changes well under a second; on the large upload the
first curves within 15 s and each setting change within 3 s. A second table breaks the first
load down into the library's stages (reading, checking, ranking, metrics), timed directly.

    python bench/bench_app.py                  # both, prints two tables
    python bench/bench_app.py --users 20000    # a smaller upload
    python bench/bench_app.py --keep /tmp/big  # keep (and reuse) the generated files
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LIST_LENGTH = 100
RATED_PER_USER = 20
CANDIDATES = 300  # each user's pool: the rated items and the models' lists come from it
N_ITEMS = 50_021  # a prime, so a user's pool (start + stride * k) holds distinct items
MODELS = {"strong": 4.0, "medium": 1.5, "weak": 0.3}  # weight of rated items when sampling
DEMO_TARGET, CHANGE_TARGET, FIRST_TARGET = 1.0, 3.0, 15.0


def make_files(folder: Path, n_users: int, seed: int = 0,
               models: dict[str, float] = MODELS) -> dict[str, Path]:
    """Write ``ground_truth.parquet`` and one Parquet file per model into ``folder``.

    Each user has a pool of 300 distinct items; 20 of them are rated 1-5 stars, and each
    model (name -> strength) ranks 100 items drawn from the pool, rated ones weighted up by
    the model's strength (a Gumbel top-k draw), scored by its sampling key. Models added at
    the end of ``models`` leave the files of the ones before unchanged.
    """
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"truth": folder / "ground_truth.parquet",
             **{name: folder / f"{name}.parquet" for name in models}}
    if all(path.exists() for path in paths.values()):
        return paths
    rng = np.random.default_rng(seed)
    item_ids = pa.array([f"i{i:06d}" for i in range(N_ITEMS)])
    user_ids = pa.array([f"u{i:07d}" for i in range(n_users)])
    start = rng.integers(0, N_ITEMS, n_users)[:, None]
    stride = rng.integers(1, N_ITEMS, n_users)[:, None]
    pool = (start + stride * np.arange(CANDIDATES)[None, :]) % N_ITEMS
    rated_at = np.argsort(rng.random((n_users, CANDIDATES)), axis=1)[:, :RATED_PER_USER]
    stars = rng.choice(5, size=(n_users, RATED_PER_USER), p=[.05, .12, .25, .3, .28]) + 1
    users = pa.compute.take(user_ids, np.repeat(np.arange(n_users), RATED_PER_USER))
    pq.write_table(pa.table({
        "user": users,
        "item": pa.compute.take(item_ids, np.take_along_axis(pool, rated_at, 1).ravel()),
        "rating": stars.ravel().astype(np.int64),
    }), paths["truth"], compression="zstd")
    liked = np.zeros((n_users, CANDIDATES), dtype=bool)
    np.put_along_axis(liked, rated_at, stars >= 4, axis=1)
    users = pa.compute.take(user_ids, np.repeat(np.arange(n_users), LIST_LENGTH))
    for name, strength in models.items():
        keys = rng.gumbel(size=(n_users, CANDIDATES)) + np.where(liked, strength, 0.0)
        chosen = np.argpartition(-keys, LIST_LENGTH, axis=1)[:, :LIST_LENGTH]
        chosen_keys = np.take_along_axis(keys, chosen, 1)
        order = np.argsort(-chosen_keys, axis=1)
        chosen = np.take_along_axis(chosen, order, 1)
        pq.write_table(pa.table({
            "user": users,
            "item": pa.compute.take(item_ids, np.take_along_axis(pool, chosen, 1).ravel()),
            "score": np.take_along_axis(chosen_keys, order, 1).ravel().round(6),
        }), paths[name], compression="zstd")
        del keys, chosen, chosen_keys, order
    return paths


def timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def check(at) -> None:
    if at.exception:
        raise RuntimeError(f"the app raised: {[e.value for e in at.exception]}")


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
        seconds = timed(step)
        check(at)
        rows.append((label, f"change: {name}", seconds, limit))


def bench_demo(rows: list) -> None:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    rows.append(("demo", "open the app: demo curves drawn", timed(at.run), None))
    check(at)
    settings_changes(at, rows, "demo", DEMO_TARGET, 5.0)
    rows.append(("demo", "Users page (per-user values)",
                 timed(lambda: at.switch_page("pages/users.py").run()), DEMO_TARGET))
    rows.append(("demo", "NDCG explained page",
                 timed(lambda: at.switch_page("pages/ndcg.py").run()), DEMO_TARGET))
    check(at)


def bench_upload(rows: list, paths: dict[str, Path], label: str) -> None:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.run()
    at.switch_page("pages/data.py").run()
    files = {name: path.read_bytes() for name, path in paths.items()}
    at.file_uploader[0].set_value([(f"{name}.parquet", files[name], "application/octet-stream")
                                   for name in MODELS])
    at.file_uploader[1].set_value(("ground_truth.parquet", files["truth"],
                                   "application/octet-stream"))
    started = time.perf_counter()
    at.run()  # the upload: read, check, rank, and the Data page's counts and checks
    data_page = time.perf_counter() - started
    check(at)
    at.switch_page("pages/compare.py").run()
    first = time.perf_counter() - started
    check(at)
    assert at.get("plotly_chart"), "no curves after the upload"
    rows.append((label, "upload -> Data page shows every file", data_page, None))
    rows.append((label, "upload -> first curves (Compare page)", first, FIRST_TARGET))
    settings_changes(at, rows, label, CHANGE_TARGET, 5.0)
    rows.append((label, "Users page (per-user values)",
                 timed(lambda: at.switch_page("pages/users.py").run()), CHANGE_TARGET))
    rows.append((label, "NDCG explained page",
                 timed(lambda: at.switch_page("pages/ndcg.py").run()), CHANGE_TARGET))
    check(at)


def bench_stages(paths: dict[str, Path]) -> list[tuple[str, float]]:
    """The first load's library stages, timed directly (one model for the per-model ones)."""
    from rankmetrics import Conventions, GroundTruth, RankedRun, evaluate, suggest_mapping
    from rankmetrics.io import check_against_truth, read_run, read_truth
    from rankmetrics.metrics import MAIN_METRICS

    out = []
    started = time.perf_counter()
    truth = read_truth(paths["truth"])
    out.append(("read_truth (ground truth)", time.perf_counter() - started))
    name = next(iter(MODELS))
    started = time.perf_counter()
    run = read_run(paths[name])
    out.append((f"read_run ({name}, {run.n_rows:,} rows)", time.perf_counter() - started))
    mapping = suggest_mapping(truth.table["rating"].to_numpy()).recommended
    started = time.perf_counter()
    check_against_truth(run, truth, mapping=mapping, max_cutoff=LIST_LENGTH)
    out.append(("check_against_truth (one model)", time.perf_counter() - started))
    started = time.perf_counter()
    prepared = GroundTruth.from_loaded(truth)
    out.append(("GroundTruth.from_loaded", time.perf_counter() - started))
    started = time.perf_counter()
    ranked = RankedRun.from_loaded(run, prepared)
    out.append(("RankedRun.from_loaded (one model)", time.perf_counter() - started))
    started = time.perf_counter()
    evaluation = evaluate(prepared, {name: ranked}, relevance=mapping,
                          conventions=Conventions(), max_cutoff=LIST_LENGTH)
    evaluation.means(MAIN_METRICS)
    out.append(("evaluate + 6 metrics at K = 1..100 (one model)",
                time.perf_counter() - started))
    return out


def print_table(rows: list) -> None:
    print(f"\n{'data':<28} {'step':<44} {'seconds':>8}  {'target':>7}  ok")
    for label, step, seconds, limit in rows:
        target = f"< {limit:g}" if limit else ""
        verdict = "" if limit is None else ("yes" if seconds < limit else "NO")
        print(f"{label:<28} {step:<44} {seconds:8.2f}  {target:>7}  {verdict}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="folder for the generated files (reused)")
    parser.add_argument("--skip-demo", action="store_true")
    parser.add_argument("--skip-stages", action="store_true")
    args = parser.parse_args(argv)
    logging.getLogger("streamlit").setLevel(logging.ERROR)

    rows: list = []
    if not args.skip_demo:
        bench_demo(rows)
    with tempfile.TemporaryDirectory(prefix="rankmetrics-bench-") as scratch:
        folder = args.keep or Path(scratch)
        started = time.perf_counter()
        paths = make_files(folder, args.users)
        size = sum(path.stat().st_size for path in paths.values()) / 2**20
        print(f"data: {args.users:,} users x {len(MODELS)} models x {LIST_LENGTH} items "
              f"({args.users * LIST_LENGTH * len(MODELS):,} rows, {size:.0f} MB of Parquet) in "
              f"{folder} (ready in {time.perf_counter() - started:.1f} s)")
        label = f"upload {args.users // 1000}k users x3x100"
        bench_upload(rows, paths, label)
        print_table(rows)
        if not args.skip_stages:
            print("\nfirst-load stages, timed directly on the same files:")
            for stage, seconds in bench_stages(paths):
                print(f"  {stage:<52} {seconds:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
