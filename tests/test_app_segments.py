"""The Segments page, the user-attributes upload and the one-segment filter of the Users,
Significance and Head-to-head pages, in Streamlit's AppTest."""

from __future__ import annotations

import json

import pandas as pd
from streamlit.testing.v1 import AppTest

from tests.apptest import MOVIE_MODELS, go, ok, plain, start, texts

SEGMENTS = "app_pages/segments.py"


def figure(at: AppTest, key: str) -> dict:
    charts = [c for c in at.get("plotly_chart") if c.proto.id.endswith(f"-{key}")]
    assert charts, f"no chart {key}"
    return json.loads(charts[0].proto.spec)


# A column only each table has (AppTest does not report a table's key).
TABLE_COLUMNS = {"segments_table": "Significantly best", "significance_models": "Group",
                 "users_summary": "Share at 0"}


def table(at: AppTest, key: str) -> pd.DataFrame:
    return next(d.value for d in at.main.dataframe if TABLE_COLUMNS[key] in d.value.columns)


def choose(at: AppTest, key: str, value) -> None:
    at.selectbox(key=key).set_value(value).run()
    ok(at)


def test_movies_by_plan_names_the_segment_where_the_overall_winner_loses():
    at = start("movies", SEGMENTS)
    assert at.selectbox(key="segment_by").options == ["plan", "country", "age",
                                                      "ground-truth size", "activity",
                                                      "cold start"]
    assert at.selectbox(key="segment_by").value == "plan"
    assert texts(at.warning) == ["top_heavy is best overall, but personalized is best for "
                                 "plan = premium (9% of users), significantly."]
    shown = table(at, "segments_table")
    assert shown["Segment"].tolist() == ["free", "premium", "(no value)"]
    assert shown["Users in segment"].tolist() == [1777, 183, 40]
    assert shown["Winner"].tolist() == ["top_heavy", "personalized", "top_heavy"]
    heatmap = figure(at, "segments_heatmap")["data"][0]
    assert heatmap["x"] == MOVIE_MODELS and heatmap["y"] == ["free", "premium", "(no value)"]
    assert heatmap["z"][0][0] is None  # popularity is the baseline (the first model)
    curves = figure(at, "segments_curves")["data"]
    assert len(curves) == 3 * 4
    colours = {trace["name"]: trace["line"]["color"] for trace in curves}
    assert colours["top_heavy"] == "#009E73"  # the colour it has on every page
    assert any("Holm correction over all 18 segment x pair tests" in text
               for text in texts(at.caption))


def test_baseline_numbers_and_tiny_segments():
    at = start("movies", SEGMENTS)
    at.sidebar.selectbox(key="baseline").set_value("top_heavy").run()
    ok(at)
    heatmap = figure(at, "segments_heatmap")["data"][0]
    assert heatmap["z"][1] == [-1, 1, None, -1]  # premium: personalized better than top_heavy
    at.number_input(key="segment_min_users").set_value(100).run()
    ok(at)
    assert texts(at.info) == ["Too few users to tell (fewer than 100 counted by every model, "
                              "so not tested): (no value) (39 users)."]
    assert figure(at, "segments_heatmap")["data"][0]["z"][2] == [None] * 4
    titles = [a["text"] for a in figure(at, "segments_curves")["layout"]["annotations"]]
    assert "(no value) (40 users)<br>too few users to tell" in titles


def test_simpson_demo_sets_its_convention_and_shows_the_paradox():
    at = start("simpson", SEGMENTS)
    assert at.session_state["conv_missing_users"] == "skip"
    assert at.selectbox(key="segment_by").value == "user_type"
    assert texts(at.error)[0].startswith("Simpson's paradox: cautious has the highest NDCG@10 "
                                         "over all users (0.6355)")
    assert table(at, "segments_table")["Winner"].tolist() == ["thorough", "thorough"]
    at.sidebar.selectbox(key="conv_missing_users").set_value("zero").run()
    ok(at)
    assert not at.error and not at.warning
    at.sidebar.selectbox(key="conv_missing_users").set_value("skip").run()
    at.sidebar.selectbox(key="dataset").set_value("movies").run()
    ok(at)
    assert at.session_state["conv_missing_users"] == "zero"  # the default preset's again
    assert at.session_state["preset"] == "default"


def test_automatic_segments_without_attributes_and_no_paradox():
    at = start("movies", SEGMENTS)
    choose(at, "segment_by", "ground-truth size")
    assert not at.error
    assert len(table(at, "segments_table")) == 4
    choose(at, "segment_by", "activity")  # from the demo's training interactions
    assert not at.error
    assert len(table(at, "segments_table")) == 4
    assert table(at, "segments_table")["Users in segment"].sum() == 2000
    choose(at, "segment_by", "cold start")
    assert table(at, "segments_table")["Users in segment"].sum() == 2000


def test_uploaded_attributes_are_read_checked_and_offered():
    at = start("movies", "app_pages/data.py")
    data = b"user,tier\n" + b"".join(f"u{i:04d},{'gold' if i % 3 else 'basic'}\n".encode()
                                     for i in range(1, 2001))
    at.file_uploader(key="upload_user_attributes_0").set_value(
        ("tiers.csv", data, "text/csv")).run()
    ok(at)
    assert any("2,000 users" in text and "tier" in text for text in texts(at.markdown))
    go(at, SEGMENTS)
    assert at.selectbox(key="segment_by").options == ["tier", "ground-truth size", "activity",
                                                      "cold start"]
    assert table(at, "segments_table")["Users in segment"].tolist() == [1334, 666]
    go(at, "app_pages/data.py")
    at.file_uploader(key="upload_user_attributes_1").set_value(
        ("bad.csv", b"user,tier\nu1,a\nu1,b\n", "text/csv")).run()
    ok(at)
    assert ("bad.csv, row 3, column 'user': user 'u1' is on rows 2 and 3. Attributes give one "
            "row per user: keep one of those rows (or put several categories in one cell, "
            "separated by '|').") in texts(at.error)
    go(at, SEGMENTS)
    assert any("could not be read" in text for text in texts(at.warning))
    assert at.selectbox(key="segment_by").options == ["ground-truth size", "activity",
                                                      "cold start"]


def test_users_significance_and_head_to_head_narrow_to_one_segment():
    at = start("movies", "app_pages/significance.py")
    # the browser shows "Choose an option" for a selectbox whose value is None
    assert at.selectbox(key="segment_filter_choice").value is not None
    assert at.selectbox(key="segment_filter_choice").options[0] == "All users"
    assert at.selectbox(key="segment_filter_choice").index == 0
    choose(at, "segment_filter_choice", ("plan", "premium"))
    models = table(at, "significance_models")
    assert set(models["Users"]) == {183}  # every premium user (all have a liked film)
    assert models["Model"].iloc[0] == "personalized"
    go(at, SEGMENTS)  # the same users' means, from the evaluation of all users
    premium = table(at, "segments_table").set_index("Segment").loc["premium"]
    for model, mean in zip(models["Model"], models["mean"], strict=True):
        assert abs(premium[model] - mean) < 1e-12
    go(at, "app_pages/users.py")
    assert at.selectbox(key="segment_filter_choice").value == ("plan", "premium")
    summary = table(at, "users_summary")
    assert summary["Users"].max() == 183
    go(at, "app_pages/head_to_head.py")
    assert sum(figure(at, "h2h_outcomes")["data"][0]["x"]) <= 183
    choose(at, "segment_filter_choice", ("", ""))
    go(at, "app_pages/users.py")
    summary = table(at, "users_summary")
    assert summary["Users"].max() == 2000 - 60  # users with a relevant item


def test_compare_says_why_the_star_can_sit_on_a_lower_mean():
    """Simpson demo: cautious has the higher mean over its own 310 users, thorough is marked
    best on the users both count; the captions say which users each figure is over."""
    at = start("simpson", "app_pages/compare.py")
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "users a model returned nothing for are left out of that model's averages " \
           "(cautious 290)" in captions
    assert "so the marked model need not have the highest mean" in captions


def test_compare_on_movies_lists_missing_users_counted_with_zero():
    at = start("movies", "app_pages/compare.py")
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "users a model returned nothing for are counted with 0 (top_heavy 20, random 10)" \
        in captions
    assert "need not have the highest mean" not in captions
    assert "2,000 users in the ground truth; 60 of them have no relevant item" in captions
