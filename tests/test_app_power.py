"""The Significance page's rank intervals, effect sizes and users-needed panel."""

from __future__ import annotations

import re

import numpy as np

from rankmetrics.stats import users_needed
from tests.apptest import UPLOADS, frame, go, ok, plain, start, upload


def _needed(at) -> int:
    text = " ".join(plain(m.value) for m in at.markdown)
    found = re.search(r"you would need about ([\d,]+) users", text)
    assert found, text
    return int(found.group(1).replace(",", ""))


def test_ranks_effect_sizes_and_users_needed_on_the_demo():
    at = start("movies", "app_pages/significance.py")
    models = frame(at, "significance_models")
    assert models["Rank"].tolist() == ["1 of 4", "2 of 4", "3 of 4", "4 of 4"]
    assert not any("Tied for first" in m.value for m in at.markdown)
    pairs = frame(at, "significance_pairs")
    assert ((pairs["effect_low"] <= pairs["effect_size"])
            & (pairs["effect_size"] <= pairs["effect_high"])).all()
    sentence = plain(at.info[0].value)
    assert re.search(r"How big: top_heavy's gain over personalized is \d\.\d\d of the spread of "
                     r"the users' differences \(interval \d\.\d\d to \d\.\d\d\), a "
                     r"(negligible|small|medium|large) effect", sentence), sentence
    text = " ".join(plain(m.value) for m in at.markdown)
    assert "With these 1,940 users, the smallest difference in NDCG@10" in text
    assert "level 0.83% (5% shared by 6 pairs)" in text
    one = _needed(at)
    # the page's plan is the library's on the pair's own spread: sd = difference / d_z
    named = pairs[["model_a", "model_b"]].apply(frozenset, axis=1)
    row = pairs.loc[named == frozenset({"top_heavy", "personalized"})].iloc[0]
    sd = abs(row["difference"] / row["effect_size"])
    base = float(models.set_index("Model").loc["personalized", "mean"])
    assert one == users_needed(0.01 * base / sd, 0.8, 0.05 / 6)
    # d = lift * mean / sd: twice the lift needs about a quarter of the users
    at.number_input(key="significance_lift").set_value(2.0).run()
    ok(at)
    two = _needed(at)
    assert abs(one / two - 4) < 0.05 * 4
    at.select_slider(key="significance_power").set_value(0.9).run()
    ok(at)
    assert _needed(at) == users_needed(0.02 * base / sd, 0.9, 0.05 / 6) > two


def test_two_identical_models_are_tied_for_first():
    at = start("movies", "app_pages/data.py")
    als = (UPLOADS / "als_model.csv").read_bytes()
    rng = np.random.default_rng(0)
    lines = als.decode().splitlines()
    shuffled = "\n".join([lines[0], *rng.permutation(lines[1:])]) + "\n"
    upload(at, 0, "als_model.csv", "als_copy.csv", "popular_items.tsv",
           content={"als_copy.csv": shuffled.encode()})
    upload(at, 1, "ratings.csv")
    go(at, "app_pages/significance.py")
    models = frame(at, "significance_models").set_index("Model")
    assert models.loc["als_model", "Rank"].startswith("1")
    assert models.loc["als_copy", "Rank"].startswith("1")
    assert any("Tied for first" in m.value and "als_model" in plain(m.value)
               and "als_copy" in plain(m.value) for m in at.markdown)


def test_tukeys_test_on_the_significance_page():
    at = start("movies", "app_pages/significance.py")
    at.selectbox(key="significance_test").set_value("tukey").run()
    ok(at)
    pairs = frame(at, "significance_pairs")
    assert (pairs["p_corrected"] == pairs["p_value"]).all()
    assert (pairs["p_value"] == 1 / 10_001).all()  # no shuffle spreads the means that far
    assert any("none is needed: Tukey's test covers every pair at once" in c.value
               for c in at.caption)
    assert "significant in Tukey's HSD test of every pair at once" in plain(at.info[0].value)
    assert frame(at, "significance_models")["Group"].tolist() == ["a", "b", "c", "d"]
    at.selectbox(key="significance_test").set_value("tukey_unpaired").run()
    ok(at)
    unpaired = frame(at, "significance_pairs")
    assert (unpaired["p_corrected"] == unpaired["p_value"]).all()
    assert (unpaired["p_value"] != pairs["p_value"]).any()
