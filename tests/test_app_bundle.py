"""A saved evaluation opened in the dashboard: uploaded as an archive or named on the command
line (``streamlit run app.py -- --bundle DIR``). Every page works on it and shows the
bundle's numbers; pages with raw lists say they show the sampled users; a foreign archive is
refused with a message."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from rankmetrics import RelevanceMapping, evaluate, load_bundle
from rankmetrics.io import read_run, read_truth
from tests.apptest import APP, MOVIE_MODELS, PAGES, figure, frame, go, ok, plain
from tests.helpers import MOVIES
from tests.test_app_segments import table


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """The movies demo (rating >= 4 relevant, K up to 20) saved with 50 sampled users."""
    truth = read_truth(MOVIES / "ground_truth.csv")
    runs = {name: read_run(MOVIES / f"{name}.parquet") for name in MOVIE_MODELS}
    evaluation = evaluate(truth, runs, relevance=RelevanceMapping.binary(4), max_cutoff=20)
    return evaluation.save(tmp_path_factory.mktemp("bundle") / "movies.zip", sample=50)


def open_archive(data: bytes, name: str = "movies.zip") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    go(at, "app_pages/data.py")
    at.file_uploader(key="bundle_upload").set_value((name, data, "application/zip")).run()
    ok(at)
    return at


def compare_table(at: AppTest) -> pd.DataFrame:
    go(at, "app_pages/compare.py")
    return frame(at, "compare_table")


def test_every_page_works_on_an_uploaded_bundle(archive):
    at = open_archive(archive.read_bytes())
    assert at.session_state["dataset"] == "bundle"
    # saved by the library from tables: rows and users, no content hash to show
    inputs = [d.value for d in at.main.dataframe if "input" in d.value.columns]
    assert [list(table.columns) for table in inputs] == [["input", "rows", "users"]]
    saved = load_bundle(archive)
    table = compare_table(at)
    assert list(table.index) == MOVIE_MODELS
    expected = saved.summary(["ndcg"], [10]).set_index("model")["value"]
    np.testing.assert_array_equal(table["NDCG@10"].to_numpy(), expected[MOVIE_MODELS])
    assert list(table["Users averaged"]) == list(saved.user_counts()["users"])
    for page in (*PAGES, "app_pages/beyond.py", "app_pages/playground.py",
                 "app_pages/choosing_k.py"):
        go(at, page)
        if page in ("app_pages/explained.py", "app_pages/head_to_head.py"):
            assert any("the 50 sampled users" in plain(box.value) for box in at.info), page
    go(at, "app_pages/users.py")  # per-user values of every user, not only the sampled ones
    summary = frame(at, "users_summary")
    assert list(summary["Users"]) == list(saved.user_counts()["users"])
    # the baseline the pages' differences are taken from is chosen in the sidebar here too
    at.sidebar.selectbox(key="baseline").set_value(MOVIE_MODELS[2]).run()
    ok(at)
    differences = frame(at, "users_summary")["Difference"]
    assert differences[MOVIE_MODELS[2]] == 0 and (differences.drop(MOVIE_MODELS[2]) != 0).all()


def test_the_inputs_table_names_how_hashes_were_computed_once():
    from dashboard.bundles import inputs_table
    from rankmetrics.bundle import Fingerprint

    files = {"ground_truth": Fingerprint(10, 2, "ab", "sha256 of the file"),
             "model": Fingerprint(20, 2, "cd", "sha256 of the file")}
    table = inputs_table(files)
    assert list(table.columns) == ["input", "rows", "users", "content hash (sha256 of the file)"]
    assert list(table["content hash (sha256 of the file)"]) == ["ab", "cd"]
    mixed = inputs_table({**files, "model": Fingerprint(20, 2, "ef", "xxhash64 of the rows")})
    assert list(mixed["hash"]) == ["sha256 of the file", "xxhash64 of the rows"]
    partly = inputs_table({**files, "model": Fingerprint(20, 2)})
    assert list(partly["content hash"]) == ["ab", "–"] and list(partly["hash"]) == [
        "sha256 of the file", "–"]
    # the beyond-accuracy inputs follow; item attributes have items, not users
    beyond = inputs_table(files, {"interactions": Fingerprint(70062, 2000, "ef",
                                                              "sha256 of the file"),
                                  "item_attributes": Fingerprint(1500, None, "01",
                                                                 "sha256 of the file")})
    assert list(beyond["input"]) == ["ground_truth", "model", "interactions", "item_attributes"]
    assert list(beyond["rows"]) == ["10", "20", "70,062", "1,500"]
    assert list(beyond["users"]) == ["2", "2", "2,000", "–"]


def test_k_is_chosen_among_the_saved_cutoffs(archive):
    at = open_archive(archive.read_bytes())
    slider = at.sidebar.select_slider(key="bundle_cutoff")
    assert list(slider.options) == ["1", "3", "5", "10", "20"]
    slider.set_value(3).run()
    ok(at)
    assert "NDCG@3" in compare_table(at).columns


def test_a_bundle_named_on_the_command_line_opens(archive, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["app.py", "--bundle", str(archive)])
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()
    ok(at)
    assert at.session_state["dataset"] == "bundle"
    # the status counts the users the numbers cover, not only the sampled ones
    assert [s.label for s in at.status if "ready" in s.label] == [
        "Saved evaluation ready: 4 model(s), 2,000 users in the ground truth (lists kept for "
        "50 sampled users)"]
    assert "NDCG@10" in compare_table(at).columns
    # opened straight on the saved evaluation (no demo's settings in the session), every page
    # that writes the link works: the Playground writes it from its own part of the page
    for page in ("app_pages/playground.py", "app_pages/significance.py"):
        go(at, page)
    assert not at.query_params.get("rel")


def test_an_archive_that_is_not_a_bundle_is_refused_with_a_message(tmp_path):
    import zipfile

    path = tmp_path / "other.zip"
    with zipfile.ZipFile(path, "w") as zipped:
        zipped.writestr("notes.txt", "hello")
    at = open_archive(path.read_bytes(), "other.zip")
    assert any("no evaluation.json found" in plain(box.value) for box in at.error)
    assert at.session_state["dataset"] == "movies"


def test_a_bundle_without_every_main_metric_is_refused_with_what_to_do(tmp_path):
    truth = read_truth(MOVIES / "ground_truth.csv")
    runs = {name: read_run(MOVIES / f"{name}.parquet") for name in MOVIE_MODELS[:2]}
    evaluation = evaluate(truth, runs, relevance=RelevanceMapping.binary(4), max_cutoff=20)
    path = evaluation.save(tmp_path / "some.zip", metrics=["ndcg", "map", "recall"], sample=5)
    at = open_archive(path.read_bytes(), "some.zip")
    assert any("this saved evaluation holds ndcg, map, recall only; the dashboard also needs "
               "Precision, HitRate, MRR" in plain(box.value) for box in at.error)
    assert at.session_state["dataset"] == "movies"


def segments_table(at: AppTest) -> pd.DataFrame:
    go(at, "app_pages/segments.py")
    return table(at, "segments_table")


def test_segments_split_every_saved_user_by_relevant_items_or_uploaded_attributes(archive):
    from rankmetrics.segments import (
        NO_VALUE,
        RELEVANT_ITEMS,
        compare_segments,
        segment_users,
    )

    at = open_archive(archive.read_bytes())
    shown = segments_table(at)
    assert at.selectbox(key="segment_by").options == [RELEVANT_ITEMS]
    assert any("K = 1, 3, 5, 10, 20" in plain(box.value) for box in at.info)
    # the same as splitting the evaluated users (all of them, not the sample) on one machine
    truth = read_truth(MOVIES / "ground_truth.csv")
    runs = {name: read_run(MOVIES / f"{name}.parquet") for name in MOVIE_MODELS}
    evaluation = evaluate(truth, runs, relevance=RelevanceMapping.binary(4), max_cutoff=20)
    saved = load_bundle(archive)
    expected = compare_segments(evaluation, segment_users(evaluation, RELEVANT_ITEMS), "ndcg",
                                10).table()
    # a bundle holds the users some model counts: those without a relevant item are not in
    # it (they fall in the first segment on one machine, and no model's mean counts them)
    uncounted = int((evaluation.n_relevant == 0).sum())
    assert uncounted > 0
    assert (expected["users"] - shown["Users in segment"]).tolist() == [uncounted, 0, 0, 0]
    assert shown["Users in segment"].sum() == len(saved.users)
    np.testing.assert_allclose(shown[MOVIE_MODELS].to_numpy(dtype=float),
                               expected[MOVIE_MODELS].to_numpy(dtype=float), rtol=0,
                               atol=1e-12)
    # user attributes uploaded next to the opened bundle split its users too
    go(at, "app_pages/data.py")
    at.file_uploader(key="upload_user_attributes_0").set_value(
        ("users.csv", (MOVIES / "users.csv").read_bytes(), "text/csv")).run()
    ok(at)
    shown = segments_table(at)
    assert at.selectbox(key="segment_by").options[-1] == RELEVANT_ITEMS
    at.selectbox(key="segment_by").set_value("plan").run()
    ok(at)
    shown = table(at, "segments_table")
    plans = pd.read_csv(MOVIES / "users.csv").set_index("user")["plan"]
    counted = plans.reindex(saved.users).fillna(NO_VALUE)
    assert dict(zip(shown["Segment"], shown["Users in segment"], strict=True)) == \
        counted.value_counts().to_dict()


def test_choosing_k_follows_the_saved_means_and_tests_at_the_saved_cutoffs(archive):
    from rankmetrics.choosing_k.order import curves, leaderboard
    from rankmetrics.choosing_k.significance import significance_over_k

    at = open_archive(archive.read_bytes())
    go(at, "app_pages/choosing_k.py")
    assert any("at the saved cutoffs 1, 3, 5, 10, 20 only" in plain(box.value) for box in at.info)
    saved = load_bundle(archive)
    truth = read_truth(MOVIES / "ground_truth.csv")
    runs = {name: read_run(MOVIES / f"{name}.parquet") for name in MOVIE_MODELS}
    evaluation = evaluate(truth, runs, relevance=RelevanceMapping.binary(4), max_cutoff=20)
    # the leaderboard at every K, from the saved means, is the one of every user evaluated
    expected_board = leaderboard(curves(evaluation, "ndcg"))
    board = next(d.value for d in at.main.dataframe
                 if list(d.value.columns) == list(expected_board.columns))
    assert len(board) == 20 * len(MOVIE_MODELS)
    pd.testing.assert_frame_equal(board.reset_index(drop=True), expected_board,
                                  check_exact=False, rtol=0, atol=1e-12)
    tests = next(d.value for d in at.main.dataframe if "p_corrected" in d.value.columns)
    expected = significance_over_k(evaluation, "ndcg", cutoffs=saved.cutoffs, test="t")
    assert tests["cutoff"].unique().tolist() == saved.cutoffs
    pd.testing.assert_frame_equal(tests[["cutoff", "model_a", "model_b", "users"]],
                                  expected[["cutoff", "model_a", "model_b", "users"]])
    np.testing.assert_allclose(tests["p_corrected"], expected["p_corrected"], rtol=0,
                               atol=1e-12)


def test_beyond_accuracy_says_what_a_saved_evaluation_lacks(archive):
    at = open_archive(archive.read_bytes())
    go(at, "app_pages/beyond.py")
    said = " ".join(plain(box.value) for box in at.info)
    assert "holds the accuracy metrics only" in said
    assert "training interactions" in said and "item attributes" in said
    assert not at.main.dataframe


def test_a_worst_user_outside_the_sample_is_said_to_be_so(archive):
    at = open_archive(archive.read_bytes())
    go(at, "app_pages/users.py")
    saved = load_bundle(archive)
    worst = str(at.button(key="explain_worst").label).split(": ", 1)[1].replace("\\\\", "")
    assert worst not in saved.sampled_users  # 50 of 1,940 users: the worst is not sampled
    assert any("is not among the sampled users" in plain(caption.value)
               for caption in at.caption)
    at.button(key="explain_worst").click().run()
    ok(at)
    assert any(f"User **{worst}** is not among the 50 sampled users" in plain(box.value)
               for box in at.info)
    assert at.session_state["explain_user"] in saved.sampled_users


def test_user_attributes_saved_with_the_evaluation_split_its_users(tmp_path):
    from rankmetrics.cli import main

    path = tmp_path / "with_users.zip"
    assert main(["evaluate", "--truth", str(MOVIES / "ground_truth.csv"),
                 *[argument for name in MOVIE_MODELS
                   for argument in ("--run", f"{name}={MOVIES / f'{name}.parquet'}")],
                 "--threshold", "4", "--max-cutoff", "20", "--sample-users", "50",
                 "--segments", str(MOVIES / "users.csv"), "--save", str(path)]) == 0
    saved = load_bundle(path)
    assert saved.user_attributes == ("users.csv", (MOVIES / "users.csv").read_bytes())
    at = open_archive(path.read_bytes(), "with_users.zip")
    go(at, "app_pages/segments.py")
    assert at.selectbox(key="segment_by").options == ["plan", "country", "age",
                                                      "relevant items"]
    at.selectbox(key="segment_by").set_value("country").run()
    ok(at)
    from rankmetrics.segments import NO_VALUE

    countries = pd.read_csv(MOVIES / "users.csv").set_index("user")["country"]
    shown = table(at, "segments_table")
    assert dict(zip(shown["Segment"], shown["Users in segment"], strict=True)) == \
        countries.reindex(saved.users).fillna(NO_VALUE).value_counts().to_dict()


def test_an_attributes_file_that_does_not_read_is_refused_before_saving(tmp_path, capsys):
    from rankmetrics.cli import main

    bad = tmp_path / "bad.csv"
    bad.write_text("user,tier\nu1,a\nu1,b\n")
    assert main(["evaluate", "--truth", str(MOVIES / "ground_truth.csv"), "--run",
                 f"random={MOVIES / 'random.parquet'}", "--segments", str(bad), "--save",
                 str(tmp_path / "b.zip")]) == 1
    assert "user 'u1' is on rows 2 and 3" in capsys.readouterr().err
    assert not (tmp_path / "b.zip").exists()


@pytest.fixture(scope="module")
def beyond_archive(tmp_path_factory):
    """The movies demo with its training interactions and item attributes, saved with the
    settings the dashboard opens the demo with (graded 5 -> 3, 4 -> 2, 3 -> 1, grade >= 2
    relevant; K up to 50)."""
    from rankmetrics.io import read_attributes, read_interactions

    truth = read_truth(MOVIES / "ground_truth.csv")
    runs = {name: read_run(MOVIES / f"{name}.parquet") for name in MOVIE_MODELS}
    evaluation = evaluate(truth, runs, relevance=DEMO_RELEVANCE, max_cutoff=50,
                          interactions=read_interactions(MOVIES / "train.csv"),
                          item_attributes=read_attributes(MOVIES / "items.csv", key="item"))
    return evaluation.save(tmp_path_factory.mktemp("beyond") / "movies.zip", sample=50)


DEMO_RELEVANCE = RelevanceMapping.graded({5: 3, 4: 2, 3: 1}, threshold=2)
BEYOND = "app_pages/beyond.py"


def beyond_views(at: AppTest) -> dict[str, object]:
    """What the Beyond accuracy page shows: its curves, trade-off points, deciles and table."""
    curves = {(trace["name"], trace["meta"]["metric"]): trace["y"]
              for trace in figure(at, "beyond_chart")["data"]
              if trace["meta"]["role"] == "curve"}
    points = {trace["name"]: (trace["x"][0], trace["y"][0])
              for trace in figure(at, "beyond_tradeoff")["data"]}
    deciles = {trace["name"]: trace["y"] for trace in figure(at, "beyond_deciles")["data"]}
    table = next(d.value for d in at.main.dataframe
                 if str(d.value.columns[0]).startswith("Coverage@"))
    return {"curves": curves, "points": points, "deciles": deciles, "table": table}


def assert_same_views(saved: dict, live: dict) -> None:
    assert saved["curves"] == live["curves"] and len(live["curves"]) == 6 * 4
    assert saved["deciles"] == live["deciles"]
    pd.testing.assert_frame_equal(saved["table"], live["table"], check_exact=True)
    assert list(saved["points"]) == list(live["points"]) == MOVIE_MODELS
    for model, (x, y) in live["points"].items():  # bootstrap means: users in another order
        assert saved["points"][model] == (pytest.approx(x, abs=1e-12),
                                          pytest.approx(y, abs=1e-12))


def test_beyond_accuracy_on_a_saved_evaluation_shows_the_numbers_of_the_live_page(
        beyond_archive):
    from tests.apptest import start

    live = start("movies", BEYOND)
    assert DEMO_RELEVANCE.describe() in live.caption[0].value  # the same settings
    at = open_archive(beyond_archive.read_bytes())
    go(at, BEYOND)
    said = " ".join(plain(box.value) for box in at.info).replace("**", "")
    assert "computed from every user's whole lists when the evaluation was saved" in said
    assert ("the training interactions (70,062 rows, 2,000 users) and the item attributes "
            "(1,500 rows), with the options popularity = interactions, long tail = short_head "
            "(share 0.8), distribution = catalogue") in said
    assert not at.error and not at.warning
    assert_same_views(beyond_views(at), beyond_views(live))
    # Compare's table has the beyond-accuracy columns as on the live page
    saved_table, live_table = compare_table(at), compare_table(live)
    assert "ILD@10" in saved_table.columns and list(saved_table.columns) == list(
        live_table.columns)
    pd.testing.assert_frame_equal(saved_table, live_table, check_exact=True)
    go(at, BEYOND)
    go(live, BEYOND)
    # a system metric against accuracy: the saved value, without an interval of its own
    for session in (at, live):
        session.selectbox(key="beyond_tradeoff_metric").set_value("coverage").run()
        ok(session)
    coverage = figure(at, "beyond_tradeoff")["data"]
    assert [trace["x"] for trace in coverage] == [
        trace["x"] for trace in figure(live, "beyond_tradeoff")["data"]]
    assert all(trace["error_x"] == {"visible": False} for trace in coverage)
    assert all(trace["error_y"]["array"][0] > 0 for trace in coverage[1:])
    # the long-tail accuracy: intervals from the per-user values saved
    for session in (at, live):
        session.selectbox(key="beyond_tradeoff_metric").set_value("ndcg_long_tail").run()
        ok(session)
    long_tail = figure(at, "beyond_tradeoff")["data"]
    for saved_point, live_point in zip(long_tail, figure(live, "beyond_tradeoff")["data"],
                                       strict=True):
        assert saved_point["x"][0] == pytest.approx(live_point["x"][0], abs=1e-12)
    assert all(trace["error_x"]["array"][0] >= 0 for trace in long_tail)
    assert long_tail[1]["error_x"]["array"][0] > 0
    # another saved K
    at.sidebar.select_slider(key="bundle_cutoff").set_value(5).run()
    live.slider(key="cutoff").set_value(5).run()
    for session in (at, live):
        session.selectbox(key="beyond_tradeoff_metric").set_value("novelty").run()
        ok(session)
    assert_same_views(beyond_views(at), beyond_views(live))


def test_per_user_beyond_metrics_of_a_saved_evaluation_on_the_users_page(beyond_archive):
    from tests.apptest import start

    live = start("movies", "app_pages/users.py")
    at = open_archive(beyond_archive.read_bytes())
    go(at, "app_pages/users.py")
    for session in (at, live):
        session.selectbox(key="users_metric").set_value("ild").run()
        ok(session)
    saved, shown = frame(at, "users_summary"), frame(live, "users_summary")
    assert "Mean ILD@10" in saved.columns
    pd.testing.assert_frame_equal(saved, shown, check_exact=False, rtol=0, atol=1e-12)
    # Significance and Head-to-head offer the saved per-user metrics too, with the live numbers
    for page, key, metric in (("app_pages/significance.py", "significance_metric", "aplt"),
                              ("app_pages/head_to_head.py", "h2h_metric", "arp")):
        shown = []
        for session in (at, live):
            go(session, page)
            session.selectbox(key=key).set_value(metric).run()
            ok(session)
            # (Head-to-head's lists in common are of the users whose lists it saved)
            shown.append([plain(text.value) for text in [*session.main.markdown,
                                                          *session.main.caption]
                          if " users" in text.value and "is also in" not in text.value])
        assert shown[0] and shown[0] == shown[1], page
    assert any("recommends more popular items to" in text for text in shown[0])
    # the lists in common: over the saved sample's users, and it says so
    sentence = next(plain(m.value) for m in at.main.markdown if "is also in" in m.value)
    assert "Of 50 users," in sentence
    assert any("the 50 sampled users whose rows it holds" in plain(box.value)
               for box in at.main.info)
    for page in (*PAGES, "app_pages/choosing_k.py", "app_pages/playground.py"):
        go(at, page)  # every page works on a saved evaluation with beyond-accuracy results


def test_a_version_1_bundle_opens_and_says_what_beyond_accuracy_needs():
    from pathlib import Path

    old = Path(__file__).resolve().parent / "data" / "bundles" / "format_1.zip"
    at = open_archive(old.read_bytes(), "format_1.zip")
    assert "NDCG@10" in compare_table(at).columns
    go(at, BEYOND)
    assert any("holds the accuracy metrics only" in plain(box.value) for box in at.info)


def test_a_saved_evaluations_report_is_its_numbers_and_its_command_writes_it_again(
        archive, downloaded, tmp_path, monkeypatch):
    import hashlib
    import html
    import re
    import shlex
    import shutil

    from rankmetrics.cli import main

    at = open_archive(archive.read_bytes())
    assert "A link cannot open a saved evaluation" in " ".join(
        c.value for c in at.sidebar.caption)
    shown = downloaded(at, "report_html")
    assert "<h1>Model comparison: saved evaluation movies.zip</h1>" in shown
    assert hashlib.sha256(archive.read_bytes()).hexdigest() in shown
    command = html.unescape(re.search(r"<pre><code>(.*?)</code></pre>", shown, re.S).group(1))
    words = shlex.split(command)
    assert words[:4] == ["rankmetrics", "report", "--bundle", "movies.zip"]
    shutil.copy(archive, tmp_path / "movies.zip")
    monkeypatch.chdir(tmp_path)
    assert main(words[1:]) == 0
    again = (tmp_path / "report.html").read_text()
    for heading in ("Every metric at K = 10", "NDCG@10 by segment: relevant items", "Inputs"):
        start = shown.index(f"<h2>{heading}")
        assert again[again.index(f"<h2>{heading}"):].split("</table>")[0] == shown[
            start:].split("</table>")[0], heading


def test_segments_split_a_bundle_saved_with_training_interactions_by_activity(tmp_path):
    from rankmetrics.io import read_interactions
    from rankmetrics.segments import ACTIVITY, COLD_START, RELEVANT_ITEMS

    truth = read_truth(MOVIES / "ground_truth.csv")
    runs = {name: read_run(MOVIES / f"{name}.parquet") for name in MOVIE_MODELS[:2]}
    evaluation = evaluate(truth, runs, relevance=RelevanceMapping.binary(4), max_cutoff=10,
                          interactions=read_interactions(MOVIES / "train.csv"))
    at = open_archive(evaluation.save(tmp_path / "trained.zip", sample=20).read_bytes(),
                      "trained.zip")
    segments_table(at)
    assert at.selectbox(key="segment_by").options == [RELEVANT_ITEMS, ACTIVITY, COLD_START]
    at.selectbox(key="segment_by").set_value(COLD_START).run()
    ok(at)
    shown = table(at, "segments_table")
    # the movies demo's users all have 10 or more training interactions: none is cold
    held = len(load_bundle(tmp_path / "trained.zip").users)
    assert dict(zip(shown["Segment"], shown["Users in segment"], strict=True)) == {
        "5 or more": held}
