"""The teaching pages in Streamlit's AppTest: the Playground (a sequence of edits, the values
before and after, the sentence, page-local switches, scenarios, presentation mode) and
Metrics explained (every main metric worked out, page-local conventions)."""

from __future__ import annotations

import json
import math

import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest import ok, plain, start

PLAYGROUND = "app_pages/playground.py"
EXPLAINED = "app_pages/explained.py"


def log2(x: float) -> float:
    return math.log2(x)


def tiles(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def sentence(at: AppTest) -> str:
    return plain(at.success[0].value)


def table(at: AppTest, column: str):
    found = [d.value for d in at.main.dataframe if column in d.value.columns]
    assert found, f"no table with {column}"
    return found[0]


def click(at: AppTest, key: str) -> None:
    at.button(key=key).click().run()
    ok(at)


# ----- the playground ------------------------------------------------------------------------


def test_playground_starts_on_the_textbook_list():
    at = start("textbook", PLAYGROUND)
    values = tiles(at)
    # A B C D E with A, C liked and X, Y, Z liked but missing: |R| = 5
    assert values["P@5"] == "0.4000" and values["R@5"] == "0.4000"
    assert values["AP@5"] == f"{(1 + 2 / 3) / 5:.4f}"
    assert values["NDCG@5"] == f"{1.5 / sum(1 / log2(i + 1) for i in range(1, 6)):.4f}"
    assert "The textbook example" in plain(at.info[0].value)
    assert not at.success  # nothing moved yet


def test_a_sequence_of_moves_shows_before_and_after():
    at = start("textbook", PLAYGROUND)
    idcg = sum(1 / log2(i + 1) for i in range(1, 6))
    click(at, "playground_down_A")  # B A C D E: hits at ranks 2 and 3
    ndcg = (1 / log2(3) + 1 / log2(4)) / idcg
    assert sentence(at) == (
        f"Moving A from rank 1 to rank 2 lowers RR@5 by 0.5000, AP@5 by 0.1000, DCG@5 by "
        f"{1 - 1 / log2(3):.4f} and NDCG@5 by {1.5 / idcg - ndcg:.4f}, and leaves P@5, R@5, "
        "HitRate@5 unchanged.")
    at_k = table(at, "before")
    assert at_k.loc["NDCG@5", "now"] == pytest.approx(ndcg)
    assert at_k.loc["P@5", "change"] == 0
    every_k = table(at, "IDCG")
    assert every_k["RR"].tolist() == pytest.approx([0, 0.5, 0.5, 0.5, 0.5])
    curves = json.loads([c for c in at.get("plotly_chart")
                         if c.proto.id.endswith("-playground_curves")][0].proto.spec)
    roles = {(t["meta"]["metric"], t["meta"]["role"]) for t in curves["data"]}
    assert ("ndcg", "before") in roles and ("ndcg", "now") in roles

    click(at, "playground_up_A")  # A B C D E again: the values of the start
    assert sentence(at).startswith("Moving A from rank 2 to rank 1 raises RR@5 by 0.5000")
    assert tiles(at)["NDCG@5"] == f"{1.5 / idcg:.4f}"
    click(at, "playground_down_C")  # A B D C E: two relevant items, swapping changes nothing
    assert sentence(at).startswith("Moving C from rank 3 to rank 4 lowers AP@5")
    at.selectbox(key="playground_swap_a").set_value(1).run()
    at.selectbox(key="playground_swap_b").set_value(5).run()
    click(at, "playground_swap")  # E B D C A
    assert sentence(at).startswith("Swapping A (rank 1) and E (rank 5)")
    at.number_input(key="playground_grade_E").set_value(3).run()  # E has grade 3 now
    ok(at)
    assert sentence(at).startswith("Changing E's grade from 0 to 3 raises")
    assert tiles(at)["DCG@5"] == f"{7 + 1 / log2(5) + 1 / log2(6):.4f}"
    click(at, "playground_remove_D")  # E B C A
    assert sentence(at).startswith("Removing D from rank 3")
    at.number_input(key="playground_beyond").set_value(0).run()
    ok(at)
    assert sentence(at).startswith("Setting the relevant items not in the list from 3 to 0")
    assert tiles(at)["R@4"] == "1.0000"  # E, C, A are every relevant item now
    click(at, "playground_add")
    assert sentence(at).startswith("Adding D (grade 1) at rank 5")  # the first free name


def test_switches_are_the_pages_own():
    at = start("textbook", PLAYGROUND)
    at.radio(key="playground_ap_denominator").set_value("hits").run()
    ok(at)
    assert sentence(at) == ("Switching ap denominator to hits raises AP@5 by 0.5000 and leaves "
                            "P@5, R@5, HitRate@5, RR@5, DCG@5, NDCG@5 unchanged.")
    assert tiles(at)["AP@5"] == f"{(1 + 2 / 3) / 2:.4f}"
    assert at.session_state["conv_ap_denominator"] == "relevant"  # the sidebar's is unchanged
    assert at.session_state["preset"] == "default"
    at.radio(key="playground_ideal").set_value("retrieved").run()
    ok(at)
    assert tiles(at)["NDCG@5"] == f"{1.5 / (1 + 1 / log2(3)):.4f}"  # 0.9197
    switches = [d.value for d in at.main.dataframe if "AP" in d.value.columns
                and "IDCG" in d.value.columns and len(d.value) > 5][0]
    assert switches.loc["AP divides by |R|", "AP"] == f"{(1 + 2 / 3) / 5:.4f}"
    assert switches.loc["AP divides by |R|", "NDCG"] == ""  # the denominator leaves NDCG be


@pytest.mark.parametrize("name", ["textbook", "perfect", "reversed", "one_relevant",
                                  "many_vs_one", "ties"])
def test_every_scenario_loads_in_one_click(name):
    at = start("textbook", PLAYGROUND)
    click(at, f"playground_scenario_{name}")
    assert at.info, "the scenario says what it shows"
    if name == "one_relevant":
        assert sentence(at).startswith("Moving A from rank 1 to rank 10 lowers RR@10 by 0.9000")
    if name == "many_vs_one":
        assert "raises DCG@3" in sentence(at) and "NDCG@3" in sentence(at)
        at.radio(key="playground_gain").set_value("linear").run()
        ok(at)
        switched = table(at, "before")
        assert switched.loc["NDCG@3", "change"] < 0  # linear gain: the list got worse
    if name == "perfect":
        assert tiles(at)["NDCG@5"] == "1.0000"


def test_presentation_mode_shows_the_formula_large():
    at = start("textbook", PLAYGROUND)
    at.toggle(key="playground_present").set_value(True).run()
    ok(at)
    assert any("display: none" in h.proto.body for h in at.get("html"))  # no sidebar
    assert at.latex[0].value.strip("$\n").startswith(r"\mathrm{NDCG@5}")
    assert "NDCG@5" in tiles(at)
    at.selectbox(key="playground_metric").set_value("map").run()
    ok(at)
    assert r"\frac{\frac{1}{1} + \frac{2}{3}}{5}" in at.latex[1].value
    at.toggle(key="playground_present").set_value(False).run()
    ok(at)
    assert at.session_state["playground_beyond"] == 3  # inputs come back as they were


# ----- metrics explained -------------------------------------------------------------------


@pytest.mark.parametrize(("metric", "label", "value", "line"), [
    ("precision", "Precision@5", "0.4000", r"\mathrm{P@5} = \frac{2}{5} = 0.4000"),
    ("recall", "Recall@5", "0.4000", r"\mathrm{R@5} = \frac{2}{5} = 0.4000"),
    ("hit_rate", "HitRate@5", "1.0000", r"\mathrm{HR@5} = 1"),
    ("mrr", "MRR@5", "1.0000", r"\mathrm{RR@5} = \frac{1}{1} = 1.0000"),
    ("map", "MAP@5", "0.3333", r"\frac{\frac{1}{1} + \frac{2}{3}}{5}"),
])
def test_every_metric_explained_for_the_textbook_user(metric, label, value, line):
    at = start("textbook", EXPLAINED)
    at.selectbox(key="explain_model").set_value("recommended").run()
    at.selectbox(key="explain_metric").set_value(metric).run()
    ok(at)
    assert tiles(at)[label] == value
    assert line in at.latex[1].value
    rows = table(at, "hits")
    assert rows["item"].tolist() == list("ABCDE")
    assert rows["relevant"].tolist() == [True, False, True, False, False]
    assert table(at, label) is not None  # the values under each choice


def test_ap_denominator_on_the_page_leaves_the_sidebar_alone():
    at = start("textbook", EXPLAINED)
    at.selectbox(key="explain_model").set_value("recommended").run()
    at.selectbox(key="explain_metric").set_value("map").run()
    at.radio(key="explained_ap_denominator").set_value("hits").run()
    ok(at)
    assert tiles(at)["MAP@5"] == f"{(1 + 2 / 3) / 2:.4f}"
    assert at.session_state["conv_ap_denominator"] == "relevant"
    assert any("What if: this page uses ap divides by the hits in the top K" in plain(i.value)
               for i in at.info)
    at.selectbox(key="conv_ap_denominator").set_value("min_k_relevant").run()
    ok(at)  # a new sidebar choice is where the page starts again
    assert at.radio(key="explained_ap_denominator").value == "min_k_relevant"
    at.radio(key="explained_ap_denominator").set_value("hits").run()
    [b for b in at.button if b.label == "Use these on every page"][0].click().run()
    ok(at)  # applied everywhere on request
    assert at.session_state["conv_ap_denominator"] == "hits"
    assert tiles(at)["MAP@5"] == f"{(1 + 2 / 3) / 2:.4f}"


def test_ndcg_rows_show_both_gains_and_the_multiplier():
    at = start("textbook_graded", EXPLAINED)
    rows = table(at, "running_dcg")
    # d3, d1, d4, d5, d2 with grades 0, 3, 1, 0, 2
    assert rows["gain_linear"].tolist() == [0, 3, 1, 0, 2]
    assert rows["gain_exponential"].tolist() == [0, 7, 1, 0, 3]
    assert "multiplied by its rank's discount 1/log2(rank + 1)" in " ".join(
        plain(m.value) for m in at.markdown)
    assert any("2^g − 1 about doubles" in c.value for c in at.caption)
