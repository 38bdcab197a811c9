"""The accuracy metrics besides the main six in the dashboard: ERR, RBP and its residual,
bpref, the share judged and DCG are offered on Compare, Users, Significance, Head-to-head and
Segments; their values are the hand-derived ones; a metric that describes the judgments is
never a model's win; links name them."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from rankmetrics import evaluate
from rankmetrics.io import read_run, read_truth
from rankmetrics.relevance import RelevanceMapping
from tests.apptest import APP, MOVIE_MODELS, ROOT, curves, frame, go, ok, opened, plain, start

MOVIES = ROOT / "data" / "movies"
OTHERS = ["dcg", "err", "rbp", "rbp_residual", "bpref", "judged"]


def pills_options(at, key: str) -> list[str]:
    group = next(group for group in at.get("button_group") if group.key == key)
    return [option.content for option in group.proto.options]


def labels(box) -> set[str]:
    """A picker's metrics by their label at K (the option's text ends with it)."""
    return {option.rsplit("(", 1)[-1].rstrip(")").rsplit(": ", 1)[-1] for option in box.options}


def graded_compare(metrics: list[str]):
    at = start("textbook_graded", "app_pages/compare.py")
    at.selectbox(key="preset").set_value("trec_eval").run()
    at.slider(key="cutoff").set_value(5).run()
    at.button_group(key="compare_metrics").set_value(metrics).run()
    ok(at)
    return at


def test_compare_offers_every_accuracy_metric_with_a_cutoff():
    at = start("movies", "app_pages/compare.py")
    shown = pills_options(at, "compare_metrics")
    assert len(shown) == 12  # the main six, then the six others; R-Precision has no curve
    assert shown[7] == "Where a reader is expected to stop (ERR)"
    assert "Share of the list that was judged (Judged)" in shown
    # by default the main six only, in the table as in the curves
    assert {metric for _, metric in curves(at)} == {"precision", "recall", "hit_rate", "mrr",
                                                   "map", "ndcg"}
    assert "ERR@10" not in frame(at, "compare_table").columns


def test_graded_values_are_the_hand_derived_ones():
    # q1: d1 = 3, d2 = 2, d3 = 0, d4 = 1; the ranking d3, d1, d4, d5 (unjudged), d2.
    at = graded_compare(["ndcg", "err", "rbp", "rbp_residual", "bpref", "judged"])
    row = frame(at, "compare_table").loc["graded_ranking"]
    # ERR: stop probabilities (2^g - 1) / 2^3 = 0, 7/8, 1/8, 0, 3/8 down the list
    err = 7 / 8 / 2 + (1 / 8) * (1 / 8) / 3 + (1 / 8) * (7 / 8) * (3 / 8) / 5
    assert row["ERR@5"] == pytest.approx(err, abs=1e-12)
    # RBP (p = 0.8): the relevant items at ranks 2, 3 and 5
    assert row["RBP@5"] == pytest.approx(0.2 * (0.8 + 0.8**2 + 0.8**4), abs=1e-12)
    # the residual: rank 4 (unjudged) and every rank after 5
    assert row["RBP residual@5"] == pytest.approx(0.2 * 0.8**3 + 0.8**5, abs=1e-12)
    assert row["bpref@5"] == pytest.approx(0.0, abs=1e-12)  # the one non-relevant item is first
    assert row["Judged@5"] == pytest.approx(4 / 5, abs=1e-12)
    assert row["NDCG@5"] == pytest.approx(0.6650, abs=5e-5)  # the main metrics stay
    assert "Precision@5" in row.index
    assert {metric for _, metric in curves(at)} == {"ndcg", "err", "rbp", "rbp_residual",
                                                   "bpref", "judged"}
    captions = [plain(caption.value) for caption in at.caption]
    assert any("RBP@5 (p = 0.8) with what unjudged items could add: graded_ranking 0.3699 to "
               "0.8000." in caption for caption in captions), captions


def test_the_compare_means_are_the_library_means_on_the_movies():
    at = start("movies", "app_pages/compare.py")
    at.radio(key="rel_kind").set_value("binary").run()  # rating >= 4 relevant
    at.button_group(key="compare_metrics").set_value(["ndcg", *OTHERS]).run()
    ok(at)
    table = frame(at, "compare_table")
    truth = read_truth(MOVIES / "ground_truth.csv")
    runs = {model: read_run(MOVIES / f"{model}.parquet") for model in table.index}
    means = evaluate(truth, runs, relevance=RelevanceMapping.binary(4), max_cutoff=10).summary(
        OTHERS, [10]).set_index(["model", "metric"])["value"]
    for model in table.index:
        for metric, column in zip(OTHERS, ["DCG@10", "ERR@10", "RBP@10", "RBP residual@10",
                                           "bpref@10", "Judged@10"], strict=True):
            assert table.loc[model, column] == pytest.approx(means[model, metric], abs=1e-12)


def test_a_metric_of_the_judgments_never_makes_a_model_the_best():
    at = graded_compare(["judged"])
    assert not [block for block in at.main.children.values()
                if "decision" in str(getattr(block.proto, "id", ""))]
    at = start("movies", "app_pages/compare.py")
    at.button_group(key="compare_metrics").set_value(["judged", "err"]).run()
    ok(at)
    bullets = [plain(text.value) for text in at.markdown if text.value.startswith("- **")]
    assert any("ERR" in bullet for bullet in bullets), bullets
    assert not any("Judged" in bullet for bullet in bullets), bullets


def test_users_significance_and_head_to_head_offer_the_other_metrics():
    at = start("movies", "app_pages/users.py")
    at.radio(key="rel_kind").set_value("binary").run()  # rating >= 4 relevant
    box = at.selectbox(key="users_metric")
    assert {"ERR@10", "RBP@10", "bpref@10", "Judged@10", "DCG@10"} <= labels(box)
    box.set_value("err").run()
    ok(at)
    truth = read_truth(MOVIES / "ground_truth.csv")
    run = read_run(MOVIES / "personalized.parquet")
    mean = evaluate(truth, {"personalized": run}, relevance=RelevanceMapping.binary(4),
                    max_cutoff=10).summary(["err"], [10])["value"].iloc[0]
    assert frame(at, "users_summary").loc["personalized", "Mean ERR@10"] == pytest.approx(mean)

    go(at, "app_pages/significance.py")
    at.selectbox(key="significance_metric").set_value("judged").run()
    ok(at)
    assert any("describes the judgments, not the model's quality" in plain(box.value)
               for box in at.info)
    at.selectbox(key="significance_metric").set_value("bpref").run()
    ok(at)
    assert not any("describes the judgments" in plain(box.value) for box in at.info)
    tested = frame(at, "significance_models").set_index("Model")["mean"]
    bpref = evaluate(truth, {"personalized": run}, relevance=RelevanceMapping.binary(4),
                     max_cutoff=10).summary(["bpref"], [10])["value"].iloc[0]
    assert tested["personalized"] == pytest.approx(bpref, abs=1e-12)

    go(at, "app_pages/head_to_head.py")
    assert "RBP@10" in labels(at.selectbox(key="h2h_metric"))


def test_segments_offer_the_metrics_where_higher_is_better():
    at = start("movies", "app_pages/segments.py")
    offered = labels(at.selectbox(key="segment_metric"))
    assert {"ERR@10", "RBP@10", "bpref@10", "DCG@10"} <= offered
    assert "Judged@10" not in offered and "RBP residual@10" not in offered
    at.selectbox(key="segment_metric").set_value("err").run()
    ok(at)


def test_a_link_names_the_other_metrics():
    at = opened({"data": "movies", "metrics": "ndcg,err", "users_metric": "bpref"},
                "app_pages/compare.py")
    assert at.session_state["compare_metrics"] == ["ndcg", "err"]
    assert "ERR@10" in frame(at, "compare_table").columns
    go(at, "app_pages/users.py")
    assert at.selectbox(key="users_metric").value == "bpref"
    refused = opened({"data": "movies", "metrics": "ndcg,r_precision"}, "app_pages/compare.py")
    assert any("The link's metrics = “ndcg,r_precision” was not used" in plain(text.value)
               for text in refused.warning)


def test_a_saved_evaluation_offers_the_metrics_it_holds(tmp_path):
    truth = read_truth(MOVIES / "ground_truth.csv")
    runs = {name: read_run(MOVIES / f"{name}.parquet") for name in MOVIE_MODELS[:2]}
    evaluation = evaluate(truth, runs, relevance=RelevanceMapping.binary(4), max_cutoff=10)
    saved = evaluation.save(tmp_path / "movies.zip", sample=20,
                            metrics=["precision", "recall", "hit_rate", "mrr", "map", "ndcg",
                                     "err"])
    at = AppTest.from_file(APP, default_timeout=90)
    at.session_state["users_metric"] = "judged"  # chosen before: not held, so not shown
    at.run()
    go(at, "app_pages/data.py")
    at.file_uploader(key="bundle_upload").set_value(
        ("movies.zip", saved.read_bytes(), "application/zip")).run()
    ok(at)
    go(at, "app_pages/compare.py")
    shown = pills_options(at, "compare_metrics")
    assert shown[-1] == "Where a reader is expected to stop (ERR)" and len(shown) == 7
    at.button_group(key="compare_metrics").set_value(["err"]).run()
    ok(at)
    expected = evaluation.summary(["err"], [10]).set_index("model")["value"]
    table = frame(at, "compare_table")
    for model in MOVIE_MODELS[:2]:
        assert table.loc[model, "ERR@10"] == pytest.approx(expected[model], abs=1e-12)
    go(at, "app_pages/users.py")
    assert at.selectbox(key="users_metric").value == "ndcg"
    assert "Judged@10" not in labels(at.selectbox(key="users_metric"))


def test_r_precision_is_offered_wherever_values_are_per_user():
    truth = read_truth(MOVIES / "ground_truth.csv")
    runs = {model: read_run(MOVIES / f"{model}.parquet") for model in MOVIE_MODELS}
    expected = evaluate(truth, runs, relevance=RelevanceMapping.binary(4), max_cutoff=10
                        ).per_user_table(["r_precision"])
    means = expected.groupby("model")["value"].mean()
    at = start("movies", "app_pages/users.py")
    at.radio(key="rel_kind").set_value("binary").run()  # rating >= 4 relevant
    assert "R-Precision" in labels(at.selectbox(key="users_metric"))
    at.selectbox(key="users_metric").set_value("r_precision").run()
    ok(at)
    summary = frame(at, "users_summary")
    for model in MOVIE_MODELS:
        assert summary.loc[model, "Mean R-Precision"] == pytest.approx(means[model], abs=1e-12)

    go(at, "app_pages/significance.py")
    at.selectbox(key="significance_metric").set_value("r_precision").run()
    ok(at)
    tested = frame(at, "significance_models").set_index("Model")["mean"]
    for model in MOVIE_MODELS:
        assert tested[model] == pytest.approx(means[model], abs=1e-12)

    go(at, "app_pages/head_to_head.py")
    assert "R-Precision" in labels(at.selectbox(key="h2h_metric"))
    at.selectbox(key="h2h_metric").set_value("r_precision").run()
    ok(at)

    go(at, "app_pages/segments.py")
    assert "R-Precision" in labels(at.selectbox(key="segment_metric"))
    at.selectbox(key="segment_metric").set_value("r_precision").run()
    ok(at)
    assert any("one value, not a curve over K" in plain(caption.value)
               for caption in at.caption)
    table = next(d.value for d in at.main.dataframe if "Significantly best" in d.value.columns)
    assert set(MOVIE_MODELS) <= set(table.columns) and len(table) >= 2
    assert table["Winner"].isin(MOVIE_MODELS).all()
