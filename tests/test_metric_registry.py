"""The metric registry: every metric declares its words, formula and kernels in one module,
the CLI lists what the registry holds, and each kernel equals a slow, obvious reference.

The references below compute one user at one cutoff with plain Python loops over the ranked
list, straight from the textbook definitions; the kernels compute every user at every cutoff
at once with cumulative sums.
"""

from __future__ import annotations

import itertools
import json
import math
import pkgutil

import numpy as np
import pytest

import rankmetrics.metrics as metrics_package
from rankmetrics.cli import build_parser, main
from rankmetrics.conventions import AP_DENOMINATORS, GAINS, IDEALS, Conventions
from rankmetrics.metrics import (
    ALL_METRICS,
    BEYOND_METRICS,
    CUTOFF_METRICS,
    LIST_METRICS,
    LONG_TAIL_METRICS,
    MAIN_METRICS,
    METRICS,
    NEEDS,
    SYSTEM_METRICS,
    JudgedItems,
    Metric,
    UserBlock,
    check_metrics,
    judge,
)
from rankmetrics.relevance import RelevanceMapping

# --------------------------------------------------------------------------------------------
# The registry


def test_every_module_declares_one_registered_metric():
    modules = {m.name for m in pkgutil.iter_modules(metrics_package.__path__)
               if not m.name.startswith("_")}
    assert modules == set(ALL_METRICS)
    assert len({metric.position for metric in ALL_METRICS.values()}) == len(ALL_METRICS)


def test_the_accuracy_and_beyond_accuracy_metrics_are_two_views_of_one_registry():
    assert set(METRICS).isdisjoint(BEYOND_METRICS)
    assert {**METRICS, **BEYOND_METRICS} == ALL_METRICS
    assert all(metric.needs == "ground truth" for metric in METRICS.values())
    assert all(metric.needs in NEEDS[1:] for metric in BEYOND_METRICS.values())
    # a beyond-accuracy metric an evaluation computes per user has a kernel, like any other
    assert all(callable(BEYOND_METRICS[name].per_user) for name in LIST_METRICS)
    assert all(BEYOND_METRICS[name].per_user is None
               for name in (*SYSTEM_METRICS, *LONG_TAIL_METRICS))


@pytest.mark.parametrize("name", list(METRICS))
def test_every_metric_has_words_a_formula_and_a_kernel(name):
    metric = METRICS[name]
    assert isinstance(metric, Metric) and metric.name == name
    assert metric.label and metric.description.endswith(".")
    assert metric.formula.startswith(r"\mathrm{") and "=" in metric.formula
    assert callable(metric.per_user)
    assert metric.summed is None or callable(metric.summed)
    help_text = metric.help()
    assert metric.label in help_text and metric.description in help_text
    assert f"$${metric.formula}$$" in help_text


def test_derived_tables_follow_the_declarations():
    assert MAIN_METRICS == ("precision", "recall", "hit_rate", "mrr", "map", "ndcg")
    assert CUTOFF_METRICS == ("precision", "recall", "hit_rate", "mrr", "map", "ndcg", "dcg",
                              "err", "rbp", "rbp_residual", "bpref", "judged")


def test_check_metrics_names_the_bad_metric_and_the_choices():
    assert check_metrics(["ndcg", "map", "ndcg"]) == ("ndcg", "map")
    with pytest.raises(ValueError, match=r"The 'metric' argument must be one of 'precision', "
                       r"'recall'.*'r_precision', 'bpref', 'judged'\. Got 'ndgc' instead\."):
        check_metrics(["ndcg", "ndgc"])
    with pytest.raises(ValueError, match="at least one metric"):
        check_metrics([])


def test_cli_lists_the_registry(capsys):
    assert main(["metrics"]) == 0
    listing = capsys.readouterr().out
    for name, metric in METRICS.items():
        assert f"{name} ({metric.label}" in listing
        assert metric.description in listing and metric.formula in listing
    assert main(["metrics", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    # the accuracy metrics, then the beyond-accuracy ones (their own registry)
    assert [row["name"] for row in rows] == list(METRICS) + list(BEYOND_METRICS)
    assert [row["formula"] for row in rows][:len(METRICS)] == [m.formula for m in
                                                               METRICS.values()]


def test_cli_metric_option_names_every_registered_metric(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert all(f"{name}," in help_text or f"{name} " in help_text for name in METRICS)
    assert build_parser().parse_args(["evaluate", "--truth", "t", "--run", "r"]).metrics == (
        ",".join(MAIN_METRICS))


# --------------------------------------------------------------------------------------------
# Kernels against slow references


def _reference(
    name: str, relevant: list[bool], gains: list[float], truth_gains: list[float],
    n_relevant: int, k: int, conventions: Conventions, *, judged: list[bool], n_judged: int,
    grades: list[float] = (), max_grade: float = 3.0,
) -> float:
    """One user's metric at cutoff k, by the definition (loops, no numpy)."""
    top_relevant, top_gains = relevant[:k], gains[:k]
    hits = sum(top_relevant)
    if name == "judged":  # over the items shown: min(k, the list's length)
        return sum(judged[:k]) / min(k, len(judged)) if judged else 0.0
    p = conventions.rbp_persistence
    if name == "rbp":  # Moffat and Zobel (2008)
        if conventions.rbp_gain == "graded":
            return sum((1 - p) * p ** i * max(grade, 0.0) / max_grade
                       for i, grade in enumerate(grades[:k]))
        return sum((1 - p) * p ** i for i, hit in enumerate(top_relevant) if hit)
    if name == "rbp_residual":  # every rank of the top K without a judged item, and after K
        return (sum((1 - p) * p ** i for i in range(k) if i >= len(judged) or not judged[i])
                + p ** k)
    if name == "err":  # Chapelle et al. (2009), as gdeval sums it
        err, reach = 0.0, 1.0
        for i, grade in enumerate(grades[:k]):
            stop = (2 ** max(grade, 0.0) - 1) / 2 ** max_grade
            err += reach * stop / (i + 1)
            reach *= 1 - stop
        return err
    if name == "bpref":  # Buckley and Voorhees (2004), as trec_eval's m_bpref.c sums it
        n_nonrelevant, nonrelevant_so_far, total = n_judged - n_relevant, 0, 0.0
        for is_judged, is_relevant in zip(judged[:k], top_relevant, strict=True):
            if is_relevant:
                total += (1.0 - min(nonrelevant_so_far, n_relevant)
                          / min(n_relevant, n_nonrelevant)) if nonrelevant_so_far else 1.0
            elif is_judged:
                nonrelevant_so_far += 1
        return total / n_relevant if n_relevant else 0.0
    length = len(relevant)  # the items the list holds
    if name == "precision":
        if conventions.precision_denominator == "list_length":  # over the items shown
            return hits / min(k, length) if length else 0.0
        return hits / k
    if name == "recall":
        if conventions.recall_denominator == "min_k_relevant":
            return hits / min(k, n_relevant) if n_relevant else 0.0
        return hits / n_relevant if n_relevant else 0.0
    if name == "hit_rate":
        return 1.0 if hits else 0.0
    if name == "mrr":
        return next((1 / (i + 1) for i, hit in enumerate(top_relevant) if hit), 0.0)
    if name == "map":
        precisions = [sum(top_relevant[:i + 1]) / (i + 1)
                      for i, hit in enumerate(top_relevant) if hit]
        denominator = {"relevant": n_relevant, "min_k_relevant": min(k, n_relevant),
                       "hits": hits, "min_shown_relevant": min(n_relevant, k, length)
                       }[conventions.ap_denominator]
        return sum(precisions) / denominator if denominator else 0.0

    def dcg(values: list[float]) -> float:  # rank i + 1: log2(i + 2), or log2(max(i + 1, 2))
        if conventions.discount == "clipped":
            return sum(g / math.log2(max(i + 1, 2)) for i, g in enumerate(values[:k]))
        return sum(g / math.log2(i + 2) for i, g in enumerate(values[:k]))

    if name == "dcg":
        return dcg(top_gains)
    if name == "ndcg":
        pool = top_gains if conventions.ideal == "retrieved" else truth_gains
        ideal = dcg(sorted(pool, reverse=True))
        return dcg(top_gains) / ideal if ideal > 0 else 0.0
    if name == "r_precision":  # the whole list counts, not only the top k
        return sum(relevant[:n_relevant]) / n_relevant if n_relevant else 0.0
    raise AssertionError(f"no reference for {name}")


def _users(seed: int, conventions: Conventions, n_users: int = 12):
    """Random users: grades 0-3 for 1-8 judged items, lists of 0-15 items (some unjudged)."""
    rng = np.random.default_rng(seed)
    relevance = RelevanceMapping.identity(int(rng.integers(1, 3)))
    users = []
    for _ in range(n_users):
        ratings = rng.integers(0, 4, int(rng.integers(1, 9))).astype(float)
        truth = judge(ratings, relevance, conventions)
        length = int(rng.integers(0, 16))
        ranked = rng.permutation(np.concatenate([np.arange(len(ratings)), np.full(8, -1)]))
        ranked = ranked[:length]  # -1: an item without ground truth
        users.append({
            "judged": [i >= 0 for i in ranked],
            "relevant": [bool(truth.relevant[i]) if i >= 0 else False for i in ranked],
            "gains": [float(truth.gains[i]) if i >= 0 else 0.0 for i in ranked],
            "grades": [float(truth.grades[i]) if i >= 0 else 0.0 for i in ranked],
            "truth_gains": truth.gains.tolist(),
            "n_relevant": int(truth.relevant.sum()),
            "n_judged": len(ratings),
        })
    return users


def _entries(users):
    """The judged ranked items of the users as (user, rank, relevant, gain) arrays."""
    rows = [(u, r, user["relevant"][r], user["gains"][r])
            for u, user in enumerate(users)
            for r, judged in enumerate(user["judged"])
            if judged]
    user, rank, relevant, gain = (np.array(column) for column in zip(*rows, strict=True))
    return user, rank, relevant.astype(bool), gain.astype(float)


def _entry_grades(users) -> np.ndarray:
    """The grade of each judged ranked item, in the order of :func:`_entries`."""
    return np.array([user["grades"][r] for user in users
                     for r, judged in enumerate(user["judged"]) if judged], dtype=float)


def _lengths(users) -> np.ndarray:
    return np.array([len(user["judged"]) for user in users])


def _max_grade(conventions: Conventions) -> float:
    """ERR's g_max: the conventions', else the highest grade _users gives (3)."""
    return 3.0 if conventions.max_grade is None else conventions.max_grade


def _ideal_matrix(users, k: int) -> np.ndarray:
    ideal = np.zeros((len(users), k))
    for u, user in enumerate(users):
        best = sorted(user["truth_gains"], reverse=True)[:k]
        ideal[u, :len(best)] = best
    return ideal


def _seed(name: str, conventions: Conventions) -> int:
    return sum(map(ord, name + conventions.describe()))


# RBP's p, ERR's g_max and the other denominators and the discount vary with the threshold
# and gain options, so each choice is tested with several others
CONVENTIONS = [Conventions(gain=gain, ideal=ideal, ap_denominator=denominator,
                           threshold_gains=threshold,
                           rbp_persistence=0.5 if threshold else 0.8,
                           max_grade=5.0 if threshold else None,
                           rbp_gain="graded" if gain == "linear" else "binary",
                           precision_denominator="list_length" if threshold else "cutoff",
                           recall_denominator="min_k_relevant" if gain == "linear"
                           else "relevant",
                           discount="clipped" if (gain == "linear") != threshold
                           else "shifted")
               for gain, ideal, denominator, threshold
               in itertools.product(GAINS, IDEALS, AP_DENOMINATORS, (False, True))]


@pytest.mark.parametrize("conventions", CONVENTIONS, ids=lambda c: c.describe())
@pytest.mark.parametrize("name", list(METRICS))
def test_per_user_kernel_equals_the_reference(name, conventions):
    k = 10
    users = _users(_seed(name, conventions), conventions)
    n_relevant = np.array([user["n_relevant"] for user in users])
    n_judged = np.array([user["n_judged"] for user in users])
    block = UserBlock(*_entries(users), n_relevant, k, lambda: _ideal_matrix(users, k),
                      n_judged=n_judged, grade=_entry_grades(users),
                      max_grade=_max_grade(conventions), lengths=_lengths(users))
    values = METRICS[name].per_user(block, conventions)
    cutoffs = range(1, k + 1) if METRICS[name].has_cutoff else [k]
    expected = [[_reference(name, user["relevant"], user["gains"], user["truth_gains"],
                            user["n_relevant"], cutoff, conventions, judged=user["judged"],
                            n_judged=user["n_judged"], grades=user["grades"],
                            max_grade=_max_grade(conventions)) for cutoff in cutoffs]
                for user in users]
    np.testing.assert_allclose(values, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("conventions", CONVENTIONS, ids=lambda c: c.describe())
@pytest.mark.parametrize("name", [name for name in METRICS if METRICS[name].summed])
def test_summed_form_equals_the_sum_of_the_reference(name, conventions):
    k = 10
    users = _users(7 + _seed(name, conventions), conventions)
    n_relevant = np.array([user["n_relevant"] for user in users])
    lists = (np.arange(len(users)), _ideal_matrix(users, k))  # each user their own list
    user, rank, relevant, gain = _entries(users)
    counted = np.arange(len(users)) % 3 != 1  # every third user left out of the sums
    n_judged = np.array([user["n_judged"] for user in users])
    items = JudgedItems(user, rank, np.arange(len(user)), counted, relevant, gain, n_relevant,
                        k, lambda: lists, n_judged=n_judged, truth_grade=_entry_grades(users),
                        max_grade=_max_grade(conventions), lengths=_lengths(users))
    total = METRICS[name].summed(items, conventions)
    if total is None:  # this form does not apply: AP over hits or the items shown, NDCG over
        # the retrieved list, Precision over the items shown
        assert (name == "map" and conventions.ap_denominator in ("hits", "min_shown_relevant")
                or (name, conventions.ideal) == ("ndcg", "retrieved")
                or (name, conventions.precision_denominator) == ("precision", "list_length"))
        return
    cutoffs = range(1, k + 1) if METRICS[name].has_cutoff else [k]
    expected = [sum(_reference(name, user["relevant"], user["gains"], user["truth_gains"],
                               user["n_relevant"], cutoff, conventions, judged=user["judged"],
                               n_judged=user["n_judged"], grades=user["grades"],
                               max_grade=_max_grade(conventions))
                    for user, is_counted in zip(users, counted, strict=True) if is_counted)
                for cutoff in cutoffs]
    np.testing.assert_allclose(total, expected, rtol=0, atol=1e-12)


def test_a_perfect_list_gives_exactly_one():
    """Recall and AP of a user whose relevant items come first are exactly 1 at K >= |R|,
    summed per |R| before dividing (ten times 0.1 is not 1.0 in floating point)."""
    n = 10
    items = JudgedItems(np.zeros(n, dtype=int), np.arange(n), np.arange(n), np.ones(1, bool),
                        np.ones(n, dtype=bool), np.ones(n), np.array([n]), n)
    assert METRICS["recall"].summed(items, Conventions())[-1] == 1.0
    assert METRICS["map"].summed(items, Conventions())[-1] == 1.0
