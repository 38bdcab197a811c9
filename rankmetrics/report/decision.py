"""The decision in words: which model wins on which metric at which K, by how much, whether the
data can tell, and whether the answer holds across K.

A director reads sentences, not matrices. Each sentence is built from a
:class:`rankmetrics.stats.ModelComparison` (its ``leaders()``: one significantly best model,
or the group the data cannot tell apart) and from the means at every K (does the model with
the highest mean change with K?). Four kinds of verdict: a clear winner, a tie (equal means),
a leader the data cannot separate from the others (not significant), and a leader that
changes with K.

Read in three layers: :func:`headline`, one sentence over every metric; one short line per
metric (:func:`short_verdict`) with the test said once below them (:func:`decision_note`);
and the details, each metric's verdict with its p-value and users (:func:`describe_verdict`,
:func:`describe_across`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rankmetrics.metrics import METRICS
from rankmetrics.printed import difference_places, fixed, interval
from rankmetrics.results import EvaluationResults
from rankmetrics.segments import SegmentComparison
from rankmetrics.stats import (
    CORRECTION_NAMES,
    TEST_NAMES,
    ModelComparison,
    compare_models,
    p_text,
    restore_ties,
)

#: The cutoffs at which "does the leader change with K" is checked (those up to the largest K).
CHECKED_CUTOFFS = (1, 3, 5, 10, 20, 50, 100)


@dataclass(frozen=True)
class Verdict:
    """The outcome on one metric at one cutoff.

    ``kind`` is ``winner`` (one model significantly better than every other), ``tie`` (the
    highest means are equal, to a relative precision of 1e-12 of the largest, as in
    :func:`rankmetrics.stats.compare_models`) or ``not_significant`` (a leader the data
    cannot separate from ``leaders[1:]``). ``runner_up`` is the model with the second highest
    mean; ``difference`` and its interval are best minus runner-up, on the ``users`` every
    model counts."""

    metric: str
    cutoff: int | None
    kind: str
    leaders: tuple[str, ...]
    best: str
    runner_up: str
    best_mean: float
    runner_up_mean: float
    difference: float
    ci_low: float
    ci_high: float
    p_corrected: float
    users: int
    test: str
    correction: str
    confidence: float


def verdict(comparison: ModelComparison, metric: str, cutoff: int | None) -> Verdict:
    """The verdict of a comparison of at least two models."""
    ranked = comparison.models
    if len(ranked) < 2:
        raise ValueError("A verdict compares at least two models; the comparison has "
                         f"{len(ranked)}.")
    leaders, single = comparison.leaders()
    best, runner_up = str(ranked["model"].iloc[0]), str(ranked["model"].iloc[1])
    row = comparison.pair(runner_up, best)
    best_mean, runner_up_mean = float(ranked["mean"].iloc[0]), float(ranked["mean"].iloc[1])
    if single:
        kind = "winner"
    elif float(row["difference"]) == 0:  # equal means: the comparison's difference is 0
        kind = "tie"
    else:
        kind = "not_significant"
    return Verdict(metric, cutoff, kind, tuple(map(str, leaders)), best, runner_up, best_mean,
                   runner_up_mean, float(row["difference"]), float(row["ci_low"]),
                   float(row["ci_high"]), float(row["p_corrected"]), int(ranked["users"].iloc[0]),
                   comparison.test, comparison.correction, comparison.confidence)


def label(metric: str, cutoff: int | None) -> str:
    return METRICS[metric].label + (f"@{cutoff}" if cutoff is not None else "")


#: The models with the highest mean at each K checked, K increasing (:func:`leaders_by_cutoff`).
LeadersByCutoff = tuple[tuple[int, tuple[str, ...]], ...]


@dataclass(frozen=True)
class MetricDecision:
    """The decision on one metric: its :class:`Verdict` at the cutoff, and the models with
    the highest mean at each K checked (``by_cutoff``, from :func:`leaders_by_cutoff`; empty
    for a metric without a cutoff) in curves up to K = ``largest``."""

    verdict: Verdict
    by_cutoff: LeadersByCutoff = ()
    largest: int | None = None

    @property
    def label(self) -> str:
        """The metric at its cutoff, as tables name it ("NDCG@10")."""
        return label(self.verdict.metric, self.verdict.cutoff)

    @property
    def changes_with_k(self) -> bool:
        """Whether another model has the highest mean at some K checked."""
        return _changes(self.by_cutoff)


def headline(decisions: Sequence[MetricDecision]) -> str:
    """The decision over every metric in one sentence, to read first.

    "Best" is a :class:`Verdict` of kind ``winner``: significantly better than every other
    model. The rules, in order:

    1. One model is best on more metrics than any other model. On every metric: "A is best
       on all 6 metrics at K = 10." (on one metric: "A is best on NDCG at K = 10."). On
       some: "A is best on 4 of 6 metrics at K = 10" (on one of them: "A is best on NDCG at
       K = 10"), then the other metrics, A's first:
       "on Recall it cannot be told apart from B" (not significant), "on MRR it ties with B"
       (equal means), then "B is best on Precision", "on MAP, B and C are tied for first"
       (the data cannot tell them apart: not significantly different, or each comes first in
       enough resamples of the users), "on DCG, B and C are tied" (equal means).
    2. Several models are best on the same, largest number of metrics: "No single model is
       best at K = 10: A is best on MRR and NDCG; B is best on Precision and Recall", then
       the other metrics as in 1.
    3. No model is best anywhere and the same models tie on every metric: "A and B are tied
       on all 6 metrics at K = 10."
    4. No model is best anywhere otherwise: "No model is clearly best at K = 10: on all 6
       metrics, A and B are tied for first" (metrics with the same leaders together).
    5. Then, when the model with the highest mean changes with K on some metric (at the K
       checked, means only): "; the leader changes with K on Precision and HitRate" ("on all
       6 metrics"; with one metric, "; the leader changes with K").

    Metrics are named without their cutoff, said once ("at K = 10"); several metrics that
    end the same way share one clause.

    Parameters
    ----------
    decisions : sequence of MetricDecision
        One per metric, all at the same cutoff (as :func:`decision_summary` gives them).

    Examples
    --------
    >>> def decided(metric, kind, leaders, by_cutoff=()):
    ...     found = Verdict(metric, 10, kind, leaders, leaders[0], "B", 0.4, 0.3, 0.1, 0.05,
    ...                     0.15, 0.001, 500, "randomization", "holm", 0.95)
    ...     return MetricDecision(found, by_cutoff, 20)
    >>> headline([decided("ndcg", "winner", ("A",)), decided("mrr", "winner", ("A",))])
    'A is best on both metrics at K = 10.'
    >>> headline([decided("ndcg", "winner", ("A",)), decided("mrr", "winner", ("A",)),
    ...           decided("recall", "not_significant", ("B", "A"),
    ...                   ((5, ("B",)), (10, ("B",)), (20, ("A",))))])
    'A is best on 2 of 3 metrics at K = 10; on Recall it cannot be told apart from B; the \
leader changes with K on Recall.'
    >>> headline([decided("ndcg", "winner", ("A",)), decided("mrr", "tie", ("B", "A"))])
    'A is best on NDCG at K = 10; on MRR it ties with B.'
    """
    verdicts = [decision.verdict for decision in decisions]
    if not verdicts:
        raise ValueError("A headline needs the decision on at least one metric; got none.")
    cutoffs = {found.cutoff for found in verdicts if found.cutoff is not None}
    if len(cutoffs) > 1:
        raise ValueError("A headline is at one K: the decisions are at K = "
                         f"{_join([str(k) for k in sorted(cutoffs)])}.")
    at = f" at K = {cutoffs.pop()}" if cutoffs else ""
    count = len(verdicts)
    wins: dict[str, list[str]] = {}
    for found in verdicts:
        if found.kind == "winner":
            wins.setdefault(found.best, []).append(found.metric)
    most = max(map(len, wins.values()), default=0)
    top = [model for model, won in wins.items() if len(won) == most]
    lead = top[0] if len(top) == 1 else None
    rest, joiner = verdicts, ": "  # the other metrics' clauses, after a colon or a semicolon
    if lead is not None:
        rest, joiner = [found for found in verdicts if found.metric not in wins[lead]], "; "
        reach = (_metric_names(wins[lead], count) if most in (1, count)
                 else f"{most} of {count} metrics")
        opening = f"{lead} is best on {reach}{at}"
    elif top:
        opening = f"No single model is best{at}"
    elif all(found.kind == "tie" for found in verdicts) and len(
            {found.leaders for found in verdicts}) == 1:
        rest, joiner = [], "; "
        opening = (f"{_join(verdicts[0].leaders)} are tied on "
                   f"{_metric_names([found.metric for found in verdicts], count)}{at}")
    else:
        opening = f"No model is clearly best{at}"
    clauses = _other_metrics(rest, lead, count)
    changing = [decision.verdict.metric for decision in decisions if decision.changes_with_k]
    if changing:
        clauses.append("the leader changes with K" + (
            "" if count == 1 else f" on {_metric_names(changing, count)}"))
    return opening + (joiner + "; ".join(clauses) if clauses else "") + "."


def _other_metrics(verdicts: Sequence[Verdict], lead: str | None, count: int) -> list[str]:
    """The headline's clauses on the metrics ``lead`` is not best on: those about ``lead``
    first ("it"), then each other winner, then the leaders the data cannot tell apart; in
    each, the clauses of more metrics first."""
    groups: dict[tuple[str, frozenset[str]], tuple[tuple[str, ...], list[str]]] = {}
    for found in verdicts:  # the same models in another order end the same way
        models = (found.best,) if found.kind == "winner" else found.leaders
        groups.setdefault((found.kind, frozenset(models)), (models, []))[1].append(found.metric)

    def order(group: tuple[str, frozenset[str]]) -> tuple[int, int]:
        kind, models = group
        return (0 if lead in models else 1 if kind == "winner" else 2), -len(groups[group][1])

    clauses = []
    for kind, members in sorted(groups, key=order):
        models, metrics = groups[kind, members]
        names = _metric_names(metrics, count)
        others = _join([model for model in models if model != lead])
        if kind == "winner":
            clauses.append(f"{models[0]} is best on {names}")
        elif lead in models:
            verb = "ties with" if kind == "tie" else "cannot be told apart from"
            clauses.append(f"on {names} it {verb} {others}")
        elif kind == "tie":
            clauses.append(f"on {names}, {others} are tied")
        else:
            clauses.append(f"on {names}, {others} are tied for first")
    return clauses


def _metric_names(metrics: Sequence[str], count: int) -> str:
    """Metrics by their labels, or "all 6 metrics" ("both metrics") when they are all
    ``count`` of them."""
    if len(metrics) == count > 2:
        return f"all {count} metrics"
    if len(metrics) == count == 2:
        return "both metrics"
    return _join([METRICS[metric].label for metric in metrics])


def short_verdict(decision: MetricDecision) -> str:
    """One metric's decision in one line, to show after its label ("NDCG@10: "): the leader,
    its difference from the next best with the interval, and whether the leader holds
    across K (or who leads where). The test is said once for every metric
    (:func:`decision_note`).

    >>> found = Verdict("ndcg", 10, "winner", ("B",), "B", "A", 0.42, 0.40, 0.02, 0.012,
    ...                 0.031, 0.003, 1100, "randomization", "holm", 0.95)
    >>> short_verdict(MetricDecision(found, ((1, ("A",)), (5, ("A",)), (10, ("B",))), 10))
    'B is best, +0.020 over A (0.012 to 0.031); A leads up to K = 5, B from K = 10.'
    """
    found = decision.verdict
    places = difference_places(found.difference)
    over = "" if found.kind == "not_significant" and found.runner_up in found.leaders else \
        f" over {found.runner_up}"  # named just before
    gap = (f"{fixed(found.difference, places, sign=True)}{over} "
           f"({interval(found.ci_low, found.ci_high, places)})")
    if found.kind == "winner":
        text = f"{found.best} is best, {gap}"
    elif found.kind == "tie":
        text = f"{_join(_tied(found))} are tied at {found.best_mean:.3f}"
    else:
        text = f"{_join(found.leaders)} cannot be told apart: {found.best} {gap}"
    leaders = decision.by_cutoff
    if not leaders:
        return text + "."
    if decision.changes_with_k:
        return f"{text}; {_leaders_up_to_from(leaders)}."
    return f"{text}; the same {'leader' if len(leaders[0][1]) == 1 else 'leaders'} at every " \
        "K checked."


def _leaders_up_to_from(leaders: Sequence[tuple[int, tuple[str, ...]]]) -> str:
    """Who leads where, briefly: "A leads up to K = 5, B from K = 10" (a run between the
    first and the last: "A at K = 5 to 10")."""
    runs = _runs(leaders)
    parts = []
    for position, (models, low, high) in enumerate(runs):
        if position == len(runs) - 1:
            where = f"from K = {low}"
        elif position == 0 and low != high:
            where = f"up to K = {high}"
        else:
            where = f"at K = {low}" + (f" to {high}" if high != low else "")
        verb = ("" if position else " leads" if len(models) == 1 else " lead")
        parts.append(f"{_join(models)}{verb} {where}")
    return ", ".join(parts)


def decision_note(decisions: Sequence[MetricDecision]) -> str:
    """What every line of :func:`short_verdict` rests on, said once: the test, the correction,
    the significance level and the users; what the brackets hold; how the leader at each K
    is read.

    >>> found = Verdict("ndcg", 10, "winner", ("B",), "B", "A", 0.42, 0.40, 0.02, 0.012,
    ...                 0.031, 0.003, 1100, "t", "holm", 0.95)
    >>> print(decision_note([MetricDecision(found, ((5, ("A",)), (10, ("B",))), 10)]))
    ... # doctest: +NORMALIZE_WHITESPACE
    Best: significantly better than every other model; cannot be told apart: the gap may be
    chance (paired t-test, Holm correction, 5% significance level, on the 1,100 users every
    model counts). In brackets: the 95% interval of the difference from the next best.
    The leader at each K checked (5 and 10): the highest mean there, without a test.
    """
    if not decisions:
        raise ValueError("A note on the decision needs at least one metric's; got none.")
    first = decisions[0].verdict
    users = sorted({decision.verdict.users for decision in decisions})
    counted = (f"the {users[0]:,} users every model counts" if len(users) == 1 else
               f"the users every model counts ({users[0]:,} to {users[-1]:,}, by metric)")
    text = (f"Best: significantly better than every other model; cannot be told apart: the "
            f"gap may be chance ({TEST_NAMES[first.test]}, "
            f"{CORRECTION_NAMES[first.correction]} correction, {1 - first.confidence:.0%} "
            f"significance level, on {counted}). In brackets: the {first.confidence:.0%} "
            "interval of the difference from the next best.")
    checked = next((decision.by_cutoff for decision in decisions if decision.by_cutoff), ())
    if checked:
        text += (f" The leader at each K checked ({_join([str(k) for k, _ in checked])}): "
                 "the highest mean there, without a test.")
    return text


def describe_across(decision: MetricDecision) -> str:
    """:func:`describe_across_cutoffs` of one metric's decision ("" for a metric without a
    cutoff)."""
    if not decision.by_cutoff:
        return ""
    return describe_across_cutoffs(decision.verdict.metric, decision.by_cutoff,
                                   largest=decision.largest)


def describe_verdict(found: Verdict) -> str:
    """One sentence: the winner and by how much, a tie, or a lead that is not significant.

    >>> found = Verdict("ndcg", 10, "winner", ("B",), "B", "A", 0.42, 0.40, 0.02, 0.012,
    ...                 0.031, 0.003, 1100, "randomization", "holm", 0.95)
    >>> describe_verdict(found)  # doctest: +NORMALIZE_WHITESPACE
    'On NDCG@10, B is the best model: 0.420 against 0.400 for A (the next best), +0.020 (95%
    interval 0.012 to 0.031), significantly better than every other model (randomization
    test, Holm correction, p = 0.003 against A; 1,100 users).'
    """
    name = label(found.metric, found.cutoff)
    tests = f"{TEST_NAMES[found.test]}, {CORRECTION_NAMES[found.correction]} correction"
    users = f"{found.users:,} users"
    if found.kind == "tie":
        return (f"On {name}, {_join(_tied(found))} are tied: the same mean, "
                f"{found.best_mean:.3f} ({users}); nothing separates them.")
    places = difference_places(found.difference)
    gap = (f"{fixed(found.difference, places, sign=True)} ({found.confidence:.0%} interval "
           f"{interval(found.ci_low, found.ci_high, places)})")
    means = (f"{found.best_mean:.3f} against {found.runner_up_mean:.3f} for {found.runner_up} "
             "(the next best)")
    if found.kind == "winner":
        return (f"On {name}, {found.best} is the best model: {means}, {gap}, significantly "
                f"better than every other model ({tests}, {p_text(found.p_corrected)} against "
                f"{found.runner_up}; {users}).")
    return (f"On {name}, {found.best} has the highest mean, {means}, {gap}, but the lead is "
            f"not significant ({tests}, {p_text(found.p_corrected)}; {users}): the data cannot "
            f"tell {_join(found.leaders)} apart.")


def leader_by_cutoff(evaluation: EvaluationResults, metric: str,
                     cutoffs: Sequence[int] | None = None) -> list[tuple[int, tuple[str, ...]]]:
    """The models with the highest mean of ``metric`` at each cutoff (one, unless several
    share it: means within 1e-12 of the largest are equal, see
    :func:`rankmetrics.stats.restore_ties`), by default at ``CHECKED_CUTOFFS`` up to the
    evaluation's width (the last K at which a value can change other than by 1/K, where the
    lists end at the latest), and that K."""
    means = evaluation.means([metric])
    return leaders_by_cutoff({model: means[model][metric] for model in evaluation.models},
                             cutoffs, width=evaluation.width)


def leaders_by_cutoff(curves: Mapping[str, Sequence[float] | np.ndarray],
                      cutoffs: Sequence[int] | None = None, *,
                      width: int | None = None) -> list[tuple[int, tuple[str, ...]]]:
    """:func:`leader_by_cutoff` from the curves already computed: model -> mean at
    K = 1..max_cutoff (the curves' length); ``width``, the evaluation's, stops the default
    cutoffs where the values stop changing but by 1/K (past it the order cannot change).

    >>> leaders_by_cutoff({"A": [0.5, 0.4, 0.3], "B": [0.2, 0.4, 0.6]})
    [(1, ('A',)), (3, ('B',))]
    >>> leaders_by_cutoff({"A": [0.5, 0.4, 0.4], "B": [0.2, 0.3, 0.3]}, width=2)
    [(1, ('A',)), (2, ('A',))]
    """
    largest = len(next(iter(curves.values())))
    if cutoffs is None:
        last = largest if width is None else max(1, min(int(width), largest))
        cutoffs = sorted({k for k in CHECKED_CUTOFFS if k <= last} | {last})
    out = []
    for k in cutoffs:
        tied = restore_ties([curve[k - 1] for curve in curves.values()])
        top = max(tied.tolist())
        out.append((k, tuple(model for model, value in zip(curves, tied, strict=True)
                             if value == top)))
    return out


def describe_across_cutoffs(metric: str, leaders: Sequence[tuple[int, tuple[str, ...]]],
                            *, largest: int | None = None) -> str:
    """Whether the model with the highest mean stays the same at every K checked; with the
    ``largest`` K of the curves past the last K checked, why the K beyond were not checked.

    >>> describe_across_cutoffs("ndcg", [(1, ("A",)), (5, ("A",)), (10, ("B",))])
    'The leader on NDCG changes with K: A at K = 1 to 5, B at K = 10.'
    >>> describe_across_cutoffs("ndcg", [(1, ("A", "B")), (5, ("A", "B"))])
    'A and B share the highest NDCG at every K checked (1 and 5).'
    >>> describe_across_cutoffs("ndcg", [(1, ("A",)), (50, ("A",))], largest=100).split("; ")
    ['A has the highest NDCG at every K checked (1 and 50)', \
'past K = 50 nothing in the lists can change the order.']
    """
    name = METRICS[metric].label
    cutoffs = _join([str(k) for k, _ in leaders])
    if not _changes(leaders):
        models = leaders[0][1]
        verb = "has" if len(models) == 1 else "share"
        last = leaders[-1][0]
        beyond = ("" if largest is None or largest <= last else
                  f"; past K = {last} nothing in the lists can change the order")
        return (f"{_join(models)} {verb} the highest {name} at every K checked "
                f"({cutoffs}){beyond}.")
    return f"The leader on {name} changes with K: {_leaders_by_k(leaders)}."


def _changes(leaders: Sequence[tuple[int, tuple[str, ...]]]) -> bool:
    return len({models for _, models in leaders}) > 1


def _leaders_by_k(leaders: Sequence[tuple[int, tuple[str, ...]]]) -> str:
    """Who leads where, each run of K with the same leaders once: "A at K = 1 to 5, B at
    K = 10"."""
    return ", ".join(f"{_join(models)} at K = {low}" + (f" to {high}" if high != low else "")
                     for models, low, high in _runs(leaders))


def _runs(leaders: Sequence[tuple[int, tuple[str, ...]]]
          ) -> list[tuple[tuple[str, ...], int, int]]:
    """The K checked in runs of the same leaders: (leaders, first K, last K)."""
    runs: list[tuple[tuple[str, ...], int, int]] = []
    for k, models in leaders:
        if runs and runs[-1][0] == models:
            runs[-1] = (models, runs[-1][1], k)
        else:
            runs.append((models, k, k))
    return runs


def describe_across_segments(result: SegmentComparison) -> str:
    """Whether the model with the highest mean overall also leads in every segment tested.

    Segments too small to test are left out; a segment whose leader is another model is
    named with its share of the users.
    """
    name = label(result.metric, result.cutoff)
    tested = result.segments.loc[~result.segments["too_few"]]
    overall = result.overall_winner
    if tested.empty:
        return (f"By {result.by}: no segment has enough users to test "
                f"(at least {result.min_users}).")
    others = tested.loc[tested["winner"] != overall]
    if others.empty:
        return (f"By {result.by}: {overall} has the highest {name} in each of the "
                f"{len(tested)} segments tested, as over all users.")
    named = "; ".join(f"{row.winner} in {row.segment} ({row.share:.0%} of the users"
                      f"{', significantly' if row.significant else ', not significantly'})"
                      for row in others.itertuples())
    return (f"By {result.by}: {overall} leads on {name} over all users, but not in every "
            f"segment: {named}.")


def decision_summary(
    evaluation: EvaluationResults,
    metrics: Sequence[str],
    cutoff: int,
    *,
    test: str = "randomization",
    correction: str = "holm",
    confidence: float = 0.95,
    n_permutations: int = 10_000,
    n_bootstrap: int = 1_000,
    seed: int | None = 0,
) -> list[MetricDecision]:
    """For each metric: the verdict at ``cutoff`` and the models with the highest mean at
    each K checked (:func:`leader_by_cutoff`; none for a metric without a cutoff). A metric
    whose higher value is not better (Judged@K, RBP's residual) decides nothing: it is left
    out."""
    out = []
    for metric in metrics:
        if METRICS[metric].higher is not None:
            continue
        metric_cutoff = cutoff if METRICS[metric].has_cutoff else None
        comparison = compare_models(evaluation.paired(metric, metric_cutoff), test=test,
                                    correction=correction, confidence=confidence,
                                    n_permutations=n_permutations, n_bootstrap=n_bootstrap,
                                    seed=seed)
        by_cutoff = (tuple(leader_by_cutoff(evaluation, metric))
                     if metric_cutoff is not None else ())
        out.append(MetricDecision(verdict(comparison, metric, metric_cutoff), by_cutoff,
                                  evaluation.max_cutoff))
    return out


def _tied(found: Verdict) -> tuple[str, ...]:
    return found.leaders if len(found.leaders) > 1 else (found.best, found.runner_up)


def _join(names: Sequence[str]) -> str:
    names = [str(name) for name in names]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]
