"""Choosing K: where the order of models changes as the cutoff grows.

An analyst who reports "NDCG@10" wants to know whether "10" decided the verdict. These
functions read the curves (each model's mean at every K) and say where two models swap places
(crossovers), what the leaderboard is at each K, and how far the order at each K agrees with
the order at the K chosen for the report (Kendall's tau). They work on a plain table of curves
(index: cutoff; one column per model), so they are tested on hand-built curves; :func:`curves`
makes that table from an :class:`~rankmetrics.evaluation.Evaluation`.

The means at one cutoff are equal when they are within 1e-12 of the largest mean at that
cutoff (:func:`rankmetrics.stats.restore_ties`): means summed in a different order, or equal
in exact arithmetic but computed apart, differ in the last bits, and such a difference is no
change of order. The precision is relative, so it serves popularity means in the thousands as
it serves metrics in [0, 1].

>>> table = pd.DataFrame({"a": [0.5, 0.4, 0.3], "b": [0.2, 0.4, 0.6]},
...                      index=pd.Index([1, 2, 3], name="cutoff"))
>>> crossovers(table)[["cutoff", "ahead", "behind", "tied_from"]].values.tolist()
[[3, 'b', 'a', 2]]
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from rankmetrics.checks import check_int
from rankmetrics.metrics import METRICS, check_metrics
from rankmetrics.results import EvaluationResults
from rankmetrics.stats import restore_ties

CROSSOVER_COLUMNS = ["cutoff", "ahead", "behind", "value_ahead", "value_behind", "tied_from"]


def curves(ev: EvaluationResults, metric: str) -> pd.DataFrame:
    """Each model's mean of ``metric`` at every cutoff 1..max_cutoff: one row per cutoff,
    one column per model (the evaluation's order); of an evaluation or a saved one."""
    (metric,) = check_metrics([metric])
    if not METRICS[metric].has_cutoff:
        raise ValueError(f"The metric {metric!r} has no cutoff; choose one of "
                         f"{', '.join(m for m, spec in METRICS.items() if spec.has_cutoff)}.")
    means = ev.means((metric,))
    return pd.DataFrame({model: means[model][metric] for model in ev.models},
                        index=pd.Index(range(1, ev.max_cutoff + 1), name="cutoff"))


def _check_curves(table: object) -> pd.DataFrame:
    if not isinstance(table, pd.DataFrame) or table.shape[1] < 1 or table.empty:
        raise ValueError("The curves must be a non-empty DataFrame with one row per cutoff and "
                         f"one column per model. Got {type(table).__name__}.")
    return table


def order_at(values: pd.Series) -> list[Hashable]:
    """The models best first; models with equal means keep their column order."""
    return list(values.index[np.argsort(-_tied(values.to_numpy(dtype=np.float64)),
                                        kind="stable")])


def _tied(means: np.ndarray) -> np.ndarray:
    """The means of each cutoff (the last axis: models) with equal means made equal floats
    (:func:`rankmetrics.stats.restore_ties` on each cutoff's means)."""
    return restore_ties(np.asarray(means, dtype=np.float64).T).T


def leaderboard(table: pd.DataFrame) -> pd.DataFrame:
    """The models at each cutoff, best first.

    Returns a long table ``cutoff, place, model, value``: ``place`` is 1 for the best; models
    with equal means share the better place.

    >>> table = pd.DataFrame({"a": [0.5, 0.4], "b": [0.2, 0.4]}, index=[1, 2])
    >>> leaderboard(table).values.tolist()
    [[1, 1, 'a', 0.5], [1, 2, 'b', 0.2], [2, 1, 'a', 0.4], [2, 1, 'b', 0.4]]
    """
    table = _check_curves(table)
    rows = []
    for cutoff, values in table.iterrows():
        means = values.to_numpy(dtype=np.float64)
        tied = _tied(means)
        order = np.argsort(-tied, kind="stable")  # as order_at
        place = 0
        for position, column in enumerate(order, start=1):
            if position == 1 or tied[column] != tied[order[position - 2]]:
                place = position
            rows.append((cutoff, place, values.index[column], float(means[column])))
    return pd.DataFrame(rows, columns=["cutoff", "place", "model", "value"])


def crossovers(table: pd.DataFrame) -> pd.DataFrame:
    """Where two models swap places as K grows.

    For every pair of models, the sign of their difference is followed over the cutoffs in
    order. A crossover is a cutoff at which one model is ahead while the other was ahead at
    the last cutoff where they differed: two models that meet (equal means) and part again
    in the same order have *touched*, not crossed. ``cutoff`` is the first cutoff of the new
    order; ``tied_from`` the first cutoff of the run of equal means just before it (missing
    when they crossed without being equal at any cutoff).

    Returns one row per crossover, by cutoff: ``cutoff, ahead, behind, value_ahead,
    value_behind, tied_from`` (``ahead`` passes ``behind`` at ``cutoff``).
    """
    table = _check_curves(table)
    cutoffs = table.index.to_numpy()
    signs_by_pair = _pairwise_signs(table)
    rows = []
    for pair, (first, second) in enumerate(combinations(table.columns, 2)):
        signs = signs_by_pair[:, pair]
        last_sign, tied_from = 0, None
        for position, sign in enumerate(signs):
            if sign == 0:
                if tied_from is None:
                    tied_from = cutoffs[position]
                continue
            if last_sign and sign != last_sign:
                ahead, behind = (first, second) if sign > 0 else (second, first)
                rows.append((cutoffs[position], ahead, behind,
                             float(table[ahead].iloc[position]),
                             float(table[behind].iloc[position]), tied_from))
            last_sign, tied_from = sign, None
    found = pd.DataFrame(rows, columns=CROSSOVER_COLUMNS)
    found["tied_from"] = found["tied_from"].astype("Int64")
    return found.sort_values("cutoff", kind="stable").reset_index(drop=True)


def order_agreement(table: pd.DataFrame, chosen: int) -> pd.DataFrame:
    """Kendall's tau (tau-b) between the models' means at each cutoff and at ``chosen``.

    Tau is 1 where the order is the same, -1 where it is reversed; tau-b counts tied means
    (equal means, see above) as neither agreeing nor disagreeing and is undefined (NaN)
    when every model has the same mean at either cutoff, or with a single model.

    Returns ``cutoff, kendall_tau``.

    >>> table = pd.DataFrame({"a": [3., 1.], "b": [2., 2.], "c": [1., 3.]}, index=[1, 2])
    >>> order_agreement(table, 1)["kendall_tau"].tolist()
    [1.0, -1.0]
    """
    from scipy import stats as _sps  # loaded when needed: 0.3 s
    table = _check_curves(table)
    if chosen not in table.index:
        raise ValueError(f"The chosen cutoff {chosen!r} is not among the curves' cutoffs "
                         f"({table.index[0]}..{table.index[-1]}).")
    grid = _tied(table.to_numpy(dtype=np.float64))
    reference = grid[table.index.get_loc(chosen)]
    taus = []
    for row in grid:
        if len(row) < 2 or np.all(row == row[0]) or np.all(reference == reference[0]):
            taus.append(np.nan)
        else:
            taus.append(float(_sps.kendalltau(row, reference).statistic))
    return pd.DataFrame({"cutoff": table.index.to_numpy(), "kendall_tau": taus})


def same_order_span(table: pd.DataFrame, chosen: int) -> tuple[int, int]:
    """The widest run of consecutive cutoffs around ``chosen`` with the order at ``chosen``
    (models with equal means count as in column order): (first, last) cutoff."""
    table = _check_curves(table)
    orders = [order_at(values) for _, values in table.iterrows()]
    cutoffs = list(table.index)
    at = cutoffs.index(chosen)
    low = at
    while low > 0 and orders[low - 1] == orders[at]:
        low -= 1
    high = at
    while high < len(cutoffs) - 1 and orders[high + 1] == orders[at]:
        high += 1
    return int(cutoffs[low]), int(cutoffs[high])


def orders_differ(first: pd.DataFrame, second: pd.DataFrame) -> list[int]:
    """The cutoffs at which two metrics' curves (same models, same cutoffs) order the models
    differently. Equal means are a tie, and a tie in one metric where the other has an order
    is a difference."""
    first, second = _check_curves(first), _check_curves(second)
    if list(first.columns) != list(second.columns) or not first.index.equals(second.index):
        raise ValueError("Both curves tables need the same models and cutoffs.")
    differ = _pairwise_signs(first) != _pairwise_signs(second)
    return [int(k) for k in first.index[differ.any(axis=1)]]


def _pairwise_signs(table: pd.DataFrame) -> np.ndarray:
    """For each cutoff (rows) and pair of models (columns), which one is ahead: 1, -1 or 0
    for a tie (equal means). Two cutoffs order the models the same way when these signs
    agree."""
    values = _tied(table.to_numpy(dtype=np.float64))
    pairs = list(combinations(range(values.shape[1]), 2))
    if not pairs:
        return np.zeros((len(values), 0), dtype=int)
    first = np.array([a for a, _ in pairs])
    second = np.array([b for _, b in pairs])
    return np.sign(values[:, first] - values[:, second]).astype(int)


def spans(cutoffs: Sequence[int]) -> list[tuple[int, int]]:
    """Runs of consecutive cutoffs: [1, 2, 3, 7, 9, 10] -> [(1, 3), (7, 7), (9, 10)].

    >>> spans([1, 2, 3, 7, 9, 10])
    [(1, 3), (7, 7), (9, 10)]
    """
    found: list[tuple[int, int]] = []
    for cutoff in sorted(cutoffs):
        if found and cutoff == found[-1][1] + 1:
            found[-1] = (found[-1][0], cutoff)
        else:
            found.append((cutoff, cutoff))
    return found


def sampled_cutoffs(max_cutoff: int, keep: Sequence[int] = ()) -> list[int]:
    """A spread of cutoffs for slow tests: 1, 2, 3, 5, 10, 15, 20, 30, 50, 75, 100, 150, 200,
    300, 500, ... up to ``max_cutoff``, plus ``max_cutoff`` and the cutoffs in ``keep``.

    >>> sampled_cutoffs(50, keep=[12])
    [1, 2, 3, 5, 10, 12, 15, 20, 30, 50]
    """
    check_int("max_cutoff", max_cutoff)
    steps = [1, 2, 3, 5, 10, 15, 20, 30, 50, 75]
    grid: list[float] = []
    scale = 1
    while scale * steps[0] <= max_cutoff:
        grid.extend(step * scale for step in (steps if scale == 1 else [1, 1.5, 2, 3, 5, 7.5]))
        scale *= 100 if scale == 1 else 10
    kept = [int(k) for k in keep if 1 <= int(k) <= max_cutoff]
    return sorted({int(k) for k in grid if k <= max_cutoff} | {max_cutoff, *kept})
