"""The compact letter display: letters shared by models that are not significantly different."""

from __future__ import annotations

import string
from collections.abc import Callable
from itertools import combinations

import numpy as np
import pandas as pd

from rankmetrics.checks import plain
from rankmetrics.stats.values import restore_ties


def _significance_lookup(
    significant: object, models: list[object]
) -> Callable[[object, object], bool]:
    if callable(significant) and not isinstance(significant, pd.DataFrame):
        return lambda a, b: bool(significant(a, b))
    if not isinstance(significant, pd.DataFrame):
        raise ValueError(
            "The 'significant' argument must be a function (model_a, model_b) -> bool, the "
            "table of paired_comparison, or a square table of booleans. Got "
            f"{type(significant).__name__} instead."
        )
    if {"model_a", "model_b", "significant"} <= set(significant.columns):
        found = {
            frozenset((a, b)): bool(s)
            for a, b, s in zip(
                significant["model_a"],
                significant["model_b"],
                significant["significant"],
                strict=True,
            )
        }

        def from_table(a: object, b: object) -> bool:
            try:
                return found[frozenset((a, b))]
            except KeyError:
                raise ValueError(
                    f"The 'significant' table has no row comparing {a!r} and {b!r}."
                ) from None

        return from_table
    missing = [m for m in models if m not in significant.index or m not in significant.columns]
    if missing:
        raise ValueError(
            f"The 'significant' table lacks a row or column for model {missing[0]!r}; it must "
            "have the models as both index and columns."
        )
    # The models are labels of `significant` (checked above) and pandas looks up any hashable
    # label; pandas-stubs accepts only its scalar types as labels.
    return lambda a, b: (
        bool(significant.loc[a, b])  # type: ignore[index]
        or bool(significant.loc[b, a])  # type: ignore[index]
    )


def _letter(i: int) -> str:
    alphabet = string.ascii_lowercase + string.ascii_uppercase
    return alphabet[i] if i < len(alphabet) else f"[{i + 1}]"


def significance_groups(means: pd.Series, significant: object) -> pd.Series:
    """Compact letter display: models sharing a letter are not significantly different.

    Models are sorted by mean, highest first, equal means in the input order. Means are
    equal to a relative precision of 1e-12 of the largest
    (:func:`~rankmetrics.stats.values.restore_ties`), so ``1/3`` and ``1 - 2/3``, two
    different floats, are the same mean. Letters come from the *insert-and-absorb*
    algorithm (Piepho 2004, Comput. Stat. Data Anal. 46):

    1. start with one group holding every model;
    2. for each significantly different pair (i, j), split every group holding both into a
       copy without i and a copy without j; then *absorb*: drop every group that is a subset
       of (or equal to) another group;
    3. drop a group whose every member pair, and every member, is also covered by another
       group (redundant letter), trying the lowest-ranked groups first;
    4. order the groups by their highest-ranked member and name them "a", "b", ...

    Two models then share a letter if and only if they are not significantly different, and
    the best model gets "a". Unlike a simple sweep over sorted means, this stays correct when
    significance is not monotone in the mean difference (as happens with paired tests).

    Parameters
    ----------
    means : pandas.Series
        Mean metric value of each model (index: model names).
    significant : callable, or pandas.DataFrame
        ``significant(model_a, model_b) -> bool``; or the table of :func:`paired_comparison`
        (columns ``model_a``, ``model_b``, ``significant``); or a square boolean table with the
        models as index and columns (a pair is significant if either entry is true).

    Returns
    -------
    pandas.Series
        The letters of each model (e.g. "a", "ab", "b"), indexed by model, highest mean first.

    Examples
    --------
    >>> means = pd.Series({"A": 0.30, "B": 0.25, "C": 0.20})
    >>> significance_groups(means, lambda a, b: {a, b} == {"A", "C"}).to_dict()
    {'A': 'a', 'B': 'ab', 'C': 'b'}
    """
    if not isinstance(means, pd.Series) or means.empty:
        raise ValueError(
            "The 'means' argument must be a non-empty pandas Series of model -> mean. Got "
            f"{means!r} instead."
        )
    if not means.index.is_unique:
        twice = plain(means.index[means.index.duplicated()][0])
        raise ValueError(f"The 'means' argument names model {twice!r} twice.")
    numeric = pd.to_numeric(means, errors="coerce").astype(float)
    if numeric.isna().any():
        raise ValueError(
            f"The 'means' argument must hold numbers; model "
            f"{plain(numeric.index[numeric.isna()][0])!r} has "
            f"{plain(means[numeric.isna()].iloc[0])!r}."
        )
    position = np.argsort(-restore_ties(numeric.to_numpy()), kind="stable")
    order = numeric.iloc[position]
    models = list(order.index)
    is_significant = _significance_lookup(significant, models)
    m = len(models)
    different = [
        (i, j) for i, j in combinations(range(m), 2) if is_significant(models[i], models[j])
    ]

    groups: list[frozenset[int]] = [frozenset(range(m))]
    for i, j in different:
        split: set[frozenset[int]] = set()
        for group in groups:
            if i in group and j in group:
                split.add(group - {i})
                split.add(group - {j})
            else:
                split.add(group)
        groups = [g for g in split if not any(g < other for other in split)]

    def key(group: frozenset[int]) -> tuple[int, ...]:
        return tuple(sorted(group))

    groups.sort(key=key)
    for group in sorted(groups, key=key, reverse=True):
        others = [g for g in groups if g is not group]
        members_covered = all(any(u in g for g in others) for u in group)
        pairs_covered = all(
            any(u in g and v in g for g in others) for u, v in combinations(sorted(group), 2)
        )
        if members_covered and pairs_covered:
            groups = others
    groups.sort(key=key)

    letters = ["".join(_letter(k) for k, g in enumerate(groups) if u in g) for u in range(m)]
    return pd.Series(letters, index=order.index, name="group")
