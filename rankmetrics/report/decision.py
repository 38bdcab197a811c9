"""The decision in words: which model wins on which metric at which K, by how much, whether the
data can tell, and whether the answer holds across K.

A director reads sentences, not matrices. Each sentence is built from a
:class:`rankmetrics.stats.ModelComparison` (its ``leaders()``: one significantly best model,
or the group the data cannot tell apart) and from the means at every K (does the model with
the highest mean change with K?). Four kinds of verdict: a clear winner, a tie (equal means),
a leader the data cannot separate from the others (not significant), and a leader that
changes with K.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rankmetrics.metrics import METRICS
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
        tied = _join(found.leaders if len(found.leaders) > 1 else (found.best, found.runner_up))
        return (f"On {name}, {tied} are tied: the same mean, {found.best_mean:.3f} ({users}); "
                "nothing separates them.")
    places = 3 if abs(found.difference) >= 0.01 or found.difference == 0 else 5
    gap = (f"{found.difference:+.{places}f} ({found.confidence:.0%} interval "
           f"{found.ci_low:.{places}f} to {found.ci_high:.{places}f})")
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
    runs: list[list] = []
    for k, models in leaders:
        if runs and runs[-1][0] == models:
            runs[-1][2] = k
        else:
            runs.append([models, k, k])
    name = METRICS[metric].label
    cutoffs = _join([str(k) for k, _ in leaders])
    if len(runs) == 1:
        models = runs[0][0]
        verb = "has" if len(models) == 1 else "share"
        last = leaders[-1][0]
        beyond = ("" if largest is None or largest <= last else
                  f"; past K = {last} nothing in the lists can change the order")
        return (f"{_join(models)} {verb} the highest {name} at every K checked "
                f"({cutoffs}){beyond}.")
    parts = [f"{_join(models)} at K = {low}" + (f" to {high}" if high != low else "")
             for models, low, high in runs]
    return f"The leader on {name} changes with K: {', '.join(parts)}."


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
) -> list[tuple[Verdict, str, str]]:
    """For each metric: the verdict at ``cutoff``, its sentence, and the sentence saying
    whether the leader holds across K."""
    out = []
    for metric in metrics:
        metric_cutoff = cutoff if METRICS[metric].has_cutoff else None
        comparison = compare_models(evaluation.paired(metric, metric_cutoff), test=test,
                                    correction=correction, confidence=confidence,
                                    n_permutations=n_permutations, n_bootstrap=n_bootstrap,
                                    seed=seed)
        found = verdict(comparison, metric, metric_cutoff)
        across = (describe_across_cutoffs(metric, leader_by_cutoff(evaluation, metric),
                                          largest=evaluation.max_cutoff)
                  if metric_cutoff is not None else "")
        out.append((found, describe_verdict(found), across))
    return out




def _join(names: Sequence[str]) -> str:
    names = [str(name) for name in names]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]
