"""The playground: a hand-edited one-user list whose every number comes from ``evaluate``.

Hand-computed values for the textbook list, each scenario's lesson, the sentences that
describe a change, and random edit sequences (hypothesis) checked against ``evaluate`` on
data built here from the edited order, and against ``explain_ndcg`` for IDCG.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmetrics import Conventions, RelevanceMapping, evaluate
from rankmetrics.conventions import AP_DENOMINATORS, GAINS, IDEALS
from rankmetrics.explain import explain_ndcg
from rankmetrics.io import read_run, read_truth
from rankmetrics.playground import (
    COLUMNS,
    MAX_GRADE,
    ListItem,
    Playground,
    add_item,
    convention_values,
    describe_change,
    move,
    playground_values,
    remove_item,
    scenarios,
    set_beyond,
    set_grade,
    set_option,
    swap,
    textbook,
)
from tests.helpers import TEXTBOOK


def log2(x: float) -> float:
    return math.log2(x)


@pytest.fixture(scope="module")
def textbook_list() -> Playground:
    truth = read_truth(TEXTBOOK / "ground_truth.csv").table
    run = read_run(TEXTBOOK / "recommended.csv").table
    return textbook(truth, run, "user").playground


# ----- hand-computed ----------------------------------------------------------------------


def test_textbook_list_from_the_demo_files(textbook_list):
    # rel = 1, 0, 1, 0, 0 (A, C liked); X, Y, Z liked but not in the list: |R| = 5
    assert [(e.item, e.grade) for e in textbook_list.ranked()] == [
        ("A", 1), ("B", 0), ("C", 1), ("D", 0), ("E", 0)]
    assert textbook_list.beyond == (1, 1, 1)
    at5 = playground_values(textbook_list).loc[5]
    idcg = sum(1 / log2(i + 1) for i in range(1, 6))  # five relevant items: 2.9485
    assert at5["precision"] == pytest.approx(2 / 5)
    assert at5["recall"] == pytest.approx(2 / 5)
    assert at5["hit_rate"] == 1 and at5["mrr"] == 1
    assert at5["map"] == pytest.approx((1 / 1 + 2 / 3) / 5)  # 0.3333
    assert at5["dcg"] == pytest.approx(1 + 1 / log2(4))  # 1.5
    assert at5["idcg"] == pytest.approx(idcg)
    assert at5["ndcg"] == pytest.approx(1.5 / idcg)  # 0.5087


def test_retrieved_ideal_and_ap_denominators_side_by_side(textbook_list):
    table = convention_values(textbook_list, 5).set_index(["option", "choice", "metric"])
    value = table["value"]
    assert value[("ideal", "retrieved", "ndcg")] == pytest.approx(1.5 / (1 + 1 / log2(3)))
    assert value[("ideal", "retrieved", "idcg")] == pytest.approx(1 + 1 / log2(3))  # 1.6309
    assert value[("ap_denominator", "hits", "map")] == pytest.approx((1 + 2 / 3) / 2)
    assert value[("ap_denominator", "min_k_relevant", "map")] == pytest.approx((1 + 2 / 3) / 5)
    assert table["active"][("ideal", "ground_truth", "ndcg")]
    assert not table["active"][("ideal", "retrieved", "ndcg")]
    # 0/1 relevance: both gains give 0 and 1, so DCG and NDCG are equal under both
    assert value[("gain", "linear", "ndcg")] == value[("gain", "exponential", "ndcg")]


def test_graded_list_linear_and_exponential_gain():
    # grades 3, 0, 1 at ranks 1..3, nothing missed; ideal 3, 1, 0
    pg = Playground.from_grades([3, 0, 1])
    exponential = playground_values(pg).loc[3]
    linear = playground_values(set_option(pg, "gain", "linear").playground).loc[3]
    assert exponential["dcg"] == pytest.approx(7 + 1 / log2(4))
    assert exponential["idcg"] == pytest.approx(7 + 1 / log2(3))
    assert linear["dcg"] == pytest.approx(3 + 1 / log2(4))
    assert linear["idcg"] == pytest.approx(3 + 1 / log2(3))
    two = set_option(pg, "threshold", 2).playground  # only the grade-3 item is relevant
    assert playground_values(two).loc[3, "precision"] == pytest.approx(1 / 3)
    assert playground_values(two).loc[3, "ndcg"] == exponential["ndcg"]  # NDCG keeps grades


def test_change_sentences():
    pg = Playground.from_grades([0, 0, 0, 1, 0])
    edit = move(pg, 4, 2)
    assert edit.words == "moving D from rank 4 to rank 2"
    before, after = playground_values(pg), playground_values(edit.playground)
    rr = 1 / 2 - 1 / 4
    ndcg = 1 / log2(3) - 1 / log2(5)  # IDCG@5 = 1
    assert describe_change(before, after, 5, edit.words) == (
        f"Moving D from rank 4 to rank 2 raises RR@5 by {rr:.4f}, AP@5 by {rr:.4f}, "
        f"DCG@5 by {ndcg:.4f} and NDCG@5 by {ndcg:.4f}, and leaves P@5, R@5, HitRate@5 "
        "unchanged.")
    assert describe_change(before, before, 3, "doing nothing") == (
        "Doing nothing changes no metric at K = 3.")
    back = move(edit.playground, 2, 5)
    assert describe_change(after, playground_values(back.playground), 5, back.words).startswith(
        "Moving D from rank 2 to rank 5 lowers RR@5 by")


def test_edit_words_and_results():
    pg = Playground.from_grades([2, 0, 1])
    assert swap(pg, 1, 3).words == "swapping A (rank 1) and C (rank 3)"
    assert [e.item for e in swap(pg, 1, 3).playground.ranked()] == ["C", "B", "A"]
    assert set_grade(pg, "B", 3).words == "changing B's grade from 0 to 3"
    added = add_item(pg, 1)
    assert added.words == "adding D (grade 1) at rank 4"
    assert [e.item for e in added.playground.ranked()] == ["A", "B", "C", "D"]
    removed = remove_item(pg, 2)
    assert removed.words == "removing B from rank 2"
    assert [e.item for e in removed.playground.ranked()] == ["A", "C"]
    assert set_beyond(pg, 2, 1).words == "setting the relevant items not in the list from 0 to 2"
    assert set_option(pg, "ap_denominator", "hits").words == "switching ap denominator to hits"


def test_bad_edits_name_the_argument():
    pg = Playground.from_grades([1])
    with pytest.raises(ValueError, match="at least one item"):
        remove_item(pg, 1)
    with pytest.raises(ValueError, match="'grade'"):
        set_grade(pg, "A", MAX_GRADE + 1)
    with pytest.raises(ValueError, match="'to_rank'"):
        move(pg, 1, 2)
    with pytest.raises(ValueError, match="'item'"):
        set_grade(pg, "Z", 1)
    with pytest.raises(ValueError, match="once"):
        Playground((ListItem("A", 1, 2.0), ListItem("A", 0, 1.0)))


# ----- the scenarios teach what they say ---------------------------------------------------


def test_one_relevant_item_at_rank_1_then_rank_10():
    lesson = scenarios()["one_relevant"]
    before = playground_values(lesson.before.playground).loc[10]
    after = playground_values(lesson.playground).loc[10]
    assert (before["mrr"], after["mrr"]) == (1.0, pytest.approx(1 / 10))
    assert before["precision"] == after["precision"] == pytest.approx(1 / 10)
    assert before["recall"] == after["recall"] == 1.0


def test_many_partially_relevant_vs_one_highly_relevant_split_the_gains():
    lesson = scenarios()["many_vs_one"]
    k = lesson.cutoff
    assert k == 3

    def ndcg(pg: Playground, gain: str) -> float:
        return playground_values(set_option(pg, "gain", gain).playground).loc[k, "ndcg"]

    many, one = lesson.before.playground, lesson.playground
    # top 3: grades 1, 1, 1 against 2, 0, 0; the same items, so the same IDCG
    assert ndcg(one, "linear") < ndcg(many, "linear")  # 2 < 1 + 0.63 + 0.5
    assert ndcg(one, "exponential") > ndcg(many, "exponential")  # 3 > 2.13


def test_ties_follow_the_tie_rule():
    pg = scenarios()["ties"].playground
    assert pg.has_ties()
    order = {ties: [e.item for e in set_option(pg, "ties", ties).playground.ranked()]
             for ties in ("item_desc", "item_asc", "input")}
    assert order == {"item_desc": list("ADCBE"), "item_asc": list("ABCDE"),
                     "input": list("ABCDE")}
    table = convention_values(pg, 2).set_index(["option", "choice", "metric"])["value"]
    assert table[("ties", "item_desc", "precision")] == pytest.approx(1 / 2)  # A, D
    assert table[("ties", "item_asc", "precision")] == 1.0  # A, B
    assert not move(pg, 4, 2).playground.has_ties()  # a moved list has an explicit order


def test_perfect_and_reversed():
    every = scenarios()
    assert (playground_values(every["perfect"].playground)["ndcg"] == 1).all()
    reversed_values = playground_values(every["reversed"].playground)
    assert (reversed_values.loc[1:5].drop(columns="idcg") == 0).all().all()


# ----- random edit sequences against evaluate ------------------------------------------------

EDITS = st.lists(st.tuples(st.sampled_from(["move", "swap", "grade", "add", "remove",
                                            "beyond", "option"]),
                           st.integers(0, 1000), st.integers(0, 1000)), max_size=8)


def _apply(pg: Playground, reference: list[tuple[str, int]], edit) -> Playground:
    """One edit on the playground, and the same edit on a plain list of (item, grade)."""
    kind, a, b = edit
    n = len(reference)
    if kind == "move":
        i, j = a % n, b % n
        reference.insert(j, reference.pop(i))
        return move(pg, i + 1, j + 1).playground
    if kind == "swap":
        i, j = a % n, b % n
        reference[i], reference[j] = reference[j], reference[i]
        return swap(pg, i + 1, j + 1).playground
    if kind == "grade":
        i, grade = a % n, b % 4
        reference[i] = (reference[i][0], grade)
        return set_grade(pg, reference[i][0], grade).playground
    if kind == "add" and n < 12:
        new = add_item(pg, b % 4).playground
        reference.append((new.ranked()[-1].item, b % 4))
        return new
    if kind == "remove" and n > 1:
        reference.pop(a % n)
        return remove_item(pg, a % n + 1).playground
    if kind == "beyond":
        return set_beyond(pg, a % 4, 1 + b % 3).playground
    if kind == "option":
        option, choices = [("gain", GAINS), ("ideal", IDEALS),
                           ("ap_denominator", AP_DENOMINATORS),
                           ("threshold", (1, 2))][a % 4]
        return set_option(pg, option, choices[b % len(choices)]).playground
    return pg


@settings(max_examples=40, deadline=None)
@given(grades=st.lists(st.integers(0, 3), min_size=1, max_size=8), edits=EDITS)
def test_random_edits_equal_evaluate_on_the_edited_list(grades, edits):
    pg = Playground.from_grades(grades)
    reference = [(e.item, e.grade) for e in pg.ranked()]
    for edit in edits:
        pg = _apply(pg, reference, edit)
        assert [(e.item, e.grade) for e in pg.ranked()] == reference
    n = len(reference)
    missed = [(f"missed{i}", g) for i, g in enumerate(pg.beyond)]
    truth = pd.DataFrame({"user": "u", "item": [i for i, _ in reference + missed],
                          "rating": [float(g) for _, g in reference + missed]})
    run = pd.DataFrame({"user": "u", "item": [i for i, _ in reference],
                        "score": np.arange(n, 0, -1, dtype=float)})
    conventions = replace(pg.conventions, empty_users="zero")
    relevance = RelevanceMapping.identity(pg.threshold)
    ev = evaluate(truth, {"m": run}, relevance=relevance, conventions=conventions,
                  max_cutoff=n)
    values = playground_values(pg)
    for metric in COLUMNS:
        if metric == "idcg":
            expected = [explain_ndcg(truth, run, "u", cutoff=k, relevance=relevance,
                                     conventions=conventions).idcg for k in range(1, n + 1)]
        else:
            expected = ev.per_user("m", metric).iloc[0].tolist()
        assert values[metric].tolist() == pytest.approx(expected, abs=1e-12), metric


def test_values_beyond_the_list_length_follow_the_library():
    pg = Playground.from_grades([1, 0])
    values = playground_values(pg, max_cutoff=4)
    assert values["precision"].tolist() == pytest.approx([1, 1 / 2, 1 / 3, 1 / 4])
    assert values["ndcg"].tolist() == [1.0] * 4


def test_conventions_left_at_their_default_keep_every_user():
    pg = Playground.from_grades([0, 0], conventions=Conventions(empty_users="skip"))
    assert (playground_values(pg).drop(columns="idcg") == 0).all().all()


def test_curves_draw_now_and_before_with_the_librarys_values():
    from rankmetrics.figures.playground import playground_curves

    pg = Playground.from_grades([1, 0, 1])
    now, before = playground_values(move(pg, 3, 1).playground), playground_values(pg)
    fig = playground_curves(now, before, 2)
    drawn = {(t.meta["metric"], t.meta["role"]): t for t in fig.data}
    assert set(drawn) == {(m, r) for m in COLUMNS for r in ("now", "before")}
    assert list(drawn[("ndcg", "now")].y) == now["ndcg"].tolist()
    assert list(drawn[("mrr", "before")].y) == before["mrr"].tolist()
    assert drawn[("dcg", "now")].xaxis == "x2"  # the sums have a panel of their own
    assert [shape.x0 for shape in fig.layout.shapes] == [2, 2]
