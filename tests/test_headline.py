"""The decision in three layers: the headline over every metric (one case at a time, on
hand-built verdicts, then on small evaluations whose winners are known), the short line of
each metric, the note said once, and numbers that never print as negative zero."""

from __future__ import annotations

import pytest

from rankmetrics.printed import fixed, interval
from rankmetrics.report.decision import (
    MetricDecision,
    Verdict,
    decision_note,
    decision_summary,
    describe_verdict,
    headline,
    short_verdict,
)
from tests.test_decision import USERS, evaluated

METRICS6 = ("precision", "recall", "hit_rate", "mrr", "map", "ndcg")
SAME = ((1, ("A",)), (10, ("A",)), (20, ("A",)))  # A leads at every K checked


def decided(metric: str, kind: str, leaders: tuple[str, ...], *, runner_up: str = "B",
            by_cutoff=SAME, difference: float = 0.05, low: float = 0.02, high: float = 0.08,
            users: int = 500, cutoff: int | None = 10) -> MetricDecision:
    """One metric's decision as :func:`decision_summary` would give it."""
    best = leaders[0]
    mean = 0.30 if kind == "tie" else 0.30 + difference
    found = Verdict(metric, cutoff, kind, leaders, best, runner_up, mean, 0.30, difference,
                    low, high, 0.0004 if kind == "winner" else 0.2, users, "randomization",
                    "holm", 0.95)
    return MetricDecision(found, by_cutoff if cutoff is not None else (), 50)


# ----- the headline, case by case -----------------------------------------------------------


def test_one_model_best_everywhere():
    decisions = [decided(metric, "winner", ("A",)) for metric in METRICS6]
    assert headline(decisions) == "A is best on all 6 metrics at K = 10."
    assert headline(decisions[:2]) == "A is best on both metrics at K = 10."
    assert headline(decisions[-1:]) == "A is best on NDCG at K = 10."


def test_best_on_most_names_the_other_metrics_its_own_first():
    decisions = [decided("precision", "winner", ("B",), runner_up="A"),
                 decided("recall", "not_significant", ("A", "B")),
                 decided("hit_rate", "winner", ("A",)), decided("mrr", "winner", ("A",)),
                 decided("map", "winner", ("A",)), decided("ndcg", "winner", ("A",))]
    assert headline(decisions) == (
        "A is best on 4 of 6 metrics at K = 10; on Recall it cannot be told apart from B; "
        "B is best on Precision.")
    # the leader the data cannot separate need not be the model with the highest mean
    decisions[1] = decided("recall", "not_significant", ("B", "A", "C"), runner_up="A")
    assert "; on Recall it cannot be told apart from B and C;" in headline(decisions)


def test_best_on_one_metric_of_several_names_it():
    decisions = [decided("ndcg", "winner", ("A",)),
                 *(decided(metric, "not_significant", ("A", "B")) for metric in METRICS6[:5])]
    assert headline(decisions) == (
        "A is best on NDCG at K = 10; on Precision, Recall, HitRate, MRR and MAP it cannot be "
        "told apart from B.")


def test_other_metrics_that_end_the_same_way_share_a_clause():
    decisions = [decided("recall", "not_significant", ("B", "C")),
                 decided("map", "not_significant", ("B", "C")),
                 decided("mrr", "tie", ("A", "C")), decided("ndcg", "winner", ("A",)),
                 decided("precision", "winner", ("A",)), decided("dcg", "tie", ("B", "C"))]
    decisions[1] = decided("map", "not_significant", ("C", "B"))  # the same two, C higher
    assert headline(decisions) == (
        "A is best on 2 of 6 metrics at K = 10; on MRR it ties with C; on Recall and MAP, B "
        "and C are tied for first; on DCG, B and C are tied.")


def test_ties():
    tied = [decided(metric, "tie", ("A", "B"), difference=0.0, low=0.0, high=0.0)
            for metric in METRICS6]
    assert headline(tied) == "A and B are tied on all 6 metrics at K = 10."
    assert headline(tied[:1]) == "A and B are tied on Precision at K = 10."
    tied[0] = decided("precision", "tie", ("A", "C"), difference=0.0, low=0.0, high=0.0)
    assert headline(tied) == ("No model is clearly best at K = 10: on Recall, HitRate, MRR, "
                              "MAP and NDCG, A and B are tied; on Precision, A and C are tied.")


def test_nothing_separable():
    apart = [decided(metric, "not_significant", ("A", "B"), low=-0.01) for metric in METRICS6]
    assert headline(apart) == ("No model is clearly best at K = 10: on all 6 metrics, A and B "
                               "are tied for first.")
    assert headline(apart[-1:]) == ("No model is clearly best at K = 10: on NDCG, A and B are "
                                    "tied for first.")


def test_several_models_best_on_as_many_metrics():
    decisions = [decided("precision", "winner", ("B",)), decided("recall", "winner", ("B",)),
                 decided("mrr", "winner", ("A",)), decided("ndcg", "winner", ("A",)),
                 decided("map", "not_significant", ("A", "B"))]
    assert headline(decisions) == (
        "No single model is best at K = 10: B is best on Precision and Recall; A is best on "
        "MRR and NDCG; on MAP, A and B are tied for first.")


def test_a_leader_that_changes_with_k():
    turns = ((1, ("A",)), (10, ("A",)), (20, ("B",)))
    decisions = [decided("precision", "winner", ("A",), by_cutoff=turns),
                 decided("recall", "winner", ("A",), by_cutoff=turns),
                 decided("ndcg", "winner", ("A",))]
    assert headline(decisions) == ("A is best on all 3 metrics at K = 10; the leader changes "
                                   "with K on Precision and Recall.")
    assert headline(decisions[:2]) == ("A is best on both metrics at K = 10; the leader "
                                       "changes with K on both metrics.")
    assert headline(decisions[:1]) == ("A is best on Precision at K = 10; the leader changes "
                                       "with K.")


def test_a_headline_is_of_some_metrics_at_one_k():
    with pytest.raises(ValueError, match="at least one metric"):
        headline([])
    with pytest.raises(ValueError, match="K = 5 and 10"):
        headline([decided("ndcg", "winner", ("A",)), decided("mrr", "winner", ("A",),
                                                            cutoff=5)])
    # a metric without a cutoff says no K of its own
    assert headline([decided("r_precision", "winner", ("A",), cutoff=None)]) == (
        "A is best on R-Precision.")


# ----- on evaluations whose winners are known -----------------------------------------------


def decisions_of(evaluation, metrics, cutoff):
    return decision_summary(evaluation, metrics, cutoff, test="t", n_bootstrap=200)


def test_known_winners():
    # strong: the one relevant item at rank 1 for every user; weak: for the first 8 users
    ev = evaluated(weak={u: 1 for u in USERS[:8]}, strong=dict.fromkeys(USERS, 1))
    assert headline(decisions_of(ev, ["hit_rate", "mrr", "ndcg"], 1)) == (
        "strong is best on all 3 metrics at K = 1.")
    # a: rank 1 for users 0-20; b: for users 1-19 and 39: 21 against 20, not separable
    ev = evaluated(a={u: 1 for u in USERS[:21]}, b={u: 1 for u in [*USERS[1:20], USERS[39]]})
    assert headline(decisions_of(ev, ["hit_rate", "mrr"], 1)) == (
        "No model is clearly best at K = 1: on both metrics, a and b are tied for first.")
    same = {u: 2 for u in USERS[::2]}
    ev = evaluated(first=same, second=same)
    assert headline(decisions_of(ev, ["mrr", "ndcg"], 5)) == (
        "first and second are tied on both metrics at K = 5.")


def test_known_leader_that_changes_with_k():
    # early: rank 1 for half the users, nothing for the others; late: rank 3 for everyone
    ev = evaluated(early={u: 1 for u in USERS[:20]}, late=dict.fromkeys(USERS, 3))
    decisions = decisions_of(ev, ["hit_rate", "mrr"], 1)
    # MRR: early 0.5 at every K, late 1/3 from K = 3 on
    assert headline(decisions) == ("early is best on both metrics at K = 1; the leader changes "
                                   "with K on HitRate.")
    found = decisions[0].verdict  # HitRate@1: early 20 of 40 users, late none
    assert short_verdict(decisions[0]) == (
        f"early is best, +0.500 over late ({found.ci_low:.3f} to {found.ci_high:.3f}); early "
        "leads at K = 1, late from K = 3.")
    assert found.ci_low < 0.5 < found.ci_high


# ----- the short lines and the note ---------------------------------------------------------


def test_each_kind_of_short_line():
    assert short_verdict(decided("ndcg", "winner", ("A",), difference=0.168, low=0.157,
                                 high=0.179)) == (
        "A is best, +0.168 over B (0.157 to 0.179); the same leader at every K checked.")
    assert short_verdict(decided("recall", "not_significant", ("A", "B"), difference=0.00533,
                                 low=-0.00294, high=0.01405,
                                 by_cutoff=((5, ("A",)), (10, ("A",)), (20, ("B",))))) == (
        "A and B cannot be told apart: A +0.00533 (-0.00294 to 0.01405); A leads up to "
        "K = 10, B from K = 20.")
    # a run between the first and the last
    assert short_verdict(decided("ndcg", "winner", ("A",), by_cutoff=(
        (1, ("B",)), (5, ("A",)), (10, ("A",)), (20, ("B", "A"))))).endswith(
        "; B leads at K = 1, A at K = 5 to 10, B and A from K = 20.")
    assert short_verdict(decided("mrr", "tie", ("A", "B"), difference=0.0, low=0.0, high=0.0,
                                 by_cutoff=((1, ("A", "B")), (5, ("A", "B"))))) == (
        "A and B are tied at 0.300; the same leaders at every K checked.")
    assert short_verdict(decided("r_precision", "winner", ("A",), cutoff=None)) == (
        "A is best, +0.050 over B (0.020 to 0.080).")


def test_the_note_says_the_test_once_with_the_users():
    decisions = [decided(metric, "winner", ("A",)) for metric in METRICS6]
    note = decision_note(decisions)
    assert note.count("randomization test, Holm correction, 5% significance level") == 1
    assert "on the 500 users every model counts" in note
    assert "The leader at each K checked (1, 10 and 20)" in note
    decisions[0] = decided("precision", "winner", ("A",), users=480)
    assert "every model counts (480 to 500, by metric)" in decision_note(decisions)
    assert "K checked" not in decision_note([decided("r_precision", "winner", ("A",),
                                                     cutoff=None)])


# ----- negative zero ------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "places", "sign", "text"), [
    (-0.000001, 5, False, "0.00000"), (-0.0000049, 5, True, "+0.00000"),
    (-0.0, 3, False, "0.000"), (-0.0, 3, True, "+0.000"), (0.0, 3, True, "+0.000"),
    (-0.00001, 5, False, "-0.00001"), (-0.0042, 3, True, "-0.004"), (0.0214, 3, True, "+0.021"),
    (-12.0, 0, False, "-12"), (-0.4, 0, False, "0"),
])
def test_no_number_prints_as_negative_zero(value, places, sign, text):
    assert fixed(value, places, sign=sign) == text


def test_no_interval_prints_a_negative_zero_bound():
    assert interval(-0.0000004, 0.0141, 5) == "0.00000 to 0.01410"
    # a bound just below zero, printed with the difference's five decimals
    found = decided("recall", "not_significant", ("A", "B"), difference=0.0053,
                    low=-0.000001, high=0.0105).verdict
    sentence = describe_verdict(found)
    assert "(95% interval 0.00000 to 0.01050)" in sentence and "-0.0" not in sentence
    line = short_verdict(decided("recall", "not_significant", ("A", "B"), difference=0.0053,
                                 low=-0.000001, high=0.0105))
    assert "(0.00000 to 0.01050)" in line and "-0.0" not in line
