"""Users split into segments: by an attribute (one segment per value, several categories
overlapping, numbers in quantile buckets) or automatically (ground-truth size or relevant
items, activity, cold start)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankmetrics.checks import check_int
from rankmetrics.io import Attributes
from rankmetrics.results import EvaluationResults

NO_VALUE = "(no value)"
#: A column with more values than this keeps the largest segments; the others are merged.
MAX_SEGMENTS = 30
OTHER = "(other values)"
#: The automatic segmentations, always offered (the last two need training counts).
GROUND_TRUTH_SIZE = "ground-truth size"
#: What a saved evaluation offers instead of the ground-truth size (it holds each user's
#: number of relevant items, not their ground truth).
RELEVANT_ITEMS = "relevant items"
ACTIVITY = "activity"
COLD_START = "cold start"
#: Segments with fewer users are shown, but not tested: too few users to tell.
MIN_USERS = 30
#: A segment holding at least this share of the users gets a warning when its winner is not
#: the overall winner.
WARN_SHARE = 0.05
N_BUCKETS = 4
COLD_START_BELOW = 5
TOO_FEW = "too few users to tell"


@dataclass(frozen=True)
class Segmentation:
    """A split of the ground truth's users into named segments.

    ``members[i, u]`` says whether user ``u`` (in the order of ``evaluation.users``) is in
    segment ``labels[i]``. Segments of a column holding
    several categories per user overlap; the others partition the users.
    """

    name: str
    labels: tuple[str, ...]
    members: np.ndarray
    overlapping: bool = False

    def sizes(self) -> pd.Series:
        """Users per segment."""
        return pd.Series(self.members.sum(axis=1), index=list(self.labels), name="users")

    def users_of(self, label: str, users: Sequence[str] | np.ndarray) -> np.ndarray:
        """The ids (from ``users``, the ground truth's users) in segment ``label``."""
        return np.asarray(users)[self.members[self.labels.index(label)]]


def segmentation_names(attributes: Attributes | None = None,
                       training_counts: pd.Series | None = None, *,
                       has_ground_truth: bool = True) -> list[str]:
    """The segmentations on offer: the attribute columns, then the automatic ones (without
    each user's ground truth at hand, ``has_ground_truth=False`` as for a saved evaluation:
    the number of relevant items instead of the ground-truth size)."""
    names = list(attributes.attribute_names) if attributes is not None else []
    automatic = ([GROUND_TRUTH_SIZE] if has_ground_truth else [RELEVANT_ITEMS]) + (
        [ACTIVITY, COLD_START] if training_counts is not None else [])
    return names + [name for name in automatic if name not in names]


def segment_users(
    evaluation: EvaluationResults,
    by: str,
    *,
    attributes: Attributes | None = None,
    training_counts: pd.Series | None = None,
    n_buckets: int = N_BUCKETS,
    cold_start_below: int = COLD_START_BELOW,
) -> Segmentation:
    """Split the evaluation's ground-truth users by an attribute or an automatic segmentation.

    Parameters
    ----------
    evaluation : Evaluation or SavedEvaluation
    by : str
        An attribute column of ``attributes`` (a category: one segment per value; several
        categories: one segment per category, overlapping; beyond 30 values the smallest are
        merged into ``"(other values)"``; a number: ``n_buckets`` quantile buckets), or
        ``"ground-truth size"`` (items in each user's ground truth, in quantile buckets),
        ``"relevant items"`` (each user's relevant items, in quantile buckets; what a saved
        evaluation offers),
        ``"activity"`` (training interactions, in quantile buckets) or
        ``"cold start"`` (no training interaction, fewer than ``cold_start_below``, or more).
    attributes : Attributes, optional
        User attributes (:func:`rankmetrics.io.read_attributes` with ``key="user"``).
    training_counts : pandas.Series, optional
        Training interactions per user id; users absent from it have none. Default: those
        the evaluation's beyond-accuracy inputs had, when it had training interactions.
    n_buckets : int, default 4
        Quantile buckets of a number (fewer when values repeat).
    cold_start_below : int, default 5
        Users with fewer training interactions than this are cold-start users.

    Examples
    --------
    >>> from rankmetrics import evaluate
    >>> truth = pd.DataFrame({"user": ["a", "b", "b"], "item": ["x", "x", "y"], "rating": 1})
    >>> run = pd.DataFrame({"user": ["a"], "item": ["x"], "score": [1.0]})
    >>> ev = evaluate(truth, {"m": run}, max_cutoff=2)
    >>> segment_users(ev, GROUND_TRUTH_SIZE, n_buckets=2).labels
    ('1', '2')
    """
    n_buckets = check_int("n_buckets", n_buckets)
    cold_start_below = check_int("cold_start_below", cold_start_below)
    users = pd.Index(evaluation.users)
    if attributes is not None and by in attributes.kinds:
        if attributes.key != "user":
            raise ValueError("attributes= must be user attributes (read with key='user'); "
                             f"these are {attributes.key} attributes.")
        values = attributes.column(by).reindex(users)
        kind = attributes.kinds[by]
        if kind == "number":
            return _buckets(by, values.to_numpy(dtype=np.float64), n_buckets)
        if kind == "categories":
            return _overlapping(by, values.to_numpy())
        return _categories(by, values.to_numpy(dtype=object))
    if by == RELEVANT_ITEMS:
        return _buckets(by, evaluation.n_relevant.astype(np.float64), n_buckets)
    sizes = evaluation.ground_truth_sizes()
    if by == GROUND_TRUTH_SIZE:
        if sizes is None:
            raise ValueError(f"A saved evaluation does not hold each user's ground truth: "
                             f"split by '{RELEVANT_ITEMS}' (or an attribute) instead of "
                             f"'{by}'.")
        return _buckets(by, sizes.astype(np.float64), n_buckets)
    saved = sizes is None
    if training_counts is None and evaluation.beyond is not None:
        training_counts = evaluation.beyond.activity  # given with the training interactions
    if by in (ACTIVITY, COLD_START) and training_counts is not None:
        counts = training_counts.reindex(users).fillna(0).to_numpy(dtype=np.float64)
        if by == ACTIVITY:
            return _buckets(by, counts, n_buckets)
        return _cold_start(counts, cold_start_below)
    offered = segmentation_names(attributes, training_counts, has_ground_truth=not saved)
    needs = ("the training interactions, which a saved evaluation holds when it was saved "
             "from an evaluation given them" if saved else "training_counts=")
    raise ValueError(f"by= must be one of {', '.join(map(repr, offered))}. Got {by!r}."
                     + ("" if training_counts is not None else
                        f" ('{ACTIVITY}' and '{COLD_START}' need {needs}.)"))


def quantile_buckets(values: np.ndarray, n_buckets: int) -> tuple[np.ndarray, list[str]]:
    """Each value's bucket (-1 for NaN) among at most ``n_buckets`` quantile buckets, and the
    buckets' labels: the smallest and largest value in each (``"18–24"``, or ``"3"`` alone).

    Bucket edges are the quantiles at 1/n, 2/n, ...; a value equal to an edge goes below it
    (as in :func:`pandas.qcut`); repeated edges merge buckets.

    >>> quantile_buckets(np.array([1.0, 2, 3, 4, np.nan]), 2)
    (array([ 0,  0,  1,  1, -1]), ['1–2', '3–4'])
    """
    known = ~np.isnan(values)
    if not known.any():
        return np.full(len(values), -1), []
    inner = np.quantile(values[known], np.linspace(0, 1, n_buckets + 1)[1:-1])
    edges = np.unique(inner)
    raw = np.searchsorted(edges, values, side="left")
    used = np.unique(raw[known])
    codes = np.full(len(values), -1)
    codes[known] = np.searchsorted(used, raw[known])
    labels = []
    for code in range(len(used)):
        inside = values[codes == code]
        low, high = _number(inside.min()), _number(inside.max())
        labels.append(low if low == high else f"{low}–{high}")
    return codes, labels


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.4g}"


def _from_codes(name: str, codes: np.ndarray, labels: list[str]) -> Segmentation:
    missing = codes < 0
    if missing.any():
        labels = [*labels, NO_VALUE]
        codes = np.where(missing, len(labels) - 1, codes)
    members = codes[None, :] == np.arange(len(labels))[:, None]
    keep = members.any(axis=1)
    return Segmentation(name, tuple(np.asarray(labels, dtype=object)[keep]), members[keep])


def _buckets(name: str, values: np.ndarray, n_buckets: int) -> Segmentation:
    codes, labels = quantile_buckets(values, n_buckets)
    return _from_codes(name, codes, labels)


def _largest(counts: dict) -> tuple[list[str], dict]:
    """The labels by size (largest first), at most MAX_SEGMENTS, the smallest merged into
    OTHER; and each value's position among them."""
    ordered = sorted(counts, key=lambda value: (-counts[value], str(value)))
    if len(ordered) <= MAX_SEGMENTS:
        return [str(value) for value in ordered], {value: i for i, value in enumerate(ordered)}
    kept = ordered[:MAX_SEGMENTS - 1]
    lookup = {value: i for i, value in enumerate(kept)}
    lookup.update({value: len(kept) for value in ordered[len(kept):]})
    return [*(str(value) for value in kept), OTHER], lookup


def _categories(name: str, values: np.ndarray) -> Segmentation:
    known = pd.notna(values)
    labels, lookup = _largest(pd.Series(values[known]).value_counts(sort=False).to_dict())
    codes = np.array([lookup[value] if ok else -1 for value, ok in zip(values, known,
                                                                       strict=True)])
    return _from_codes(name, codes, labels)


def _overlapping(name: str, values: np.ndarray) -> Segmentation:
    counts: dict[str, int] = {}
    for cell in values:
        for category in cell if isinstance(cell, tuple) else ():
            counts[category] = counts.get(category, 0) + 1
    labels, lookup = _largest(counts)
    members = np.zeros((len(labels) + 1, len(values)), dtype=bool)
    for user, cell in enumerate(values):
        if isinstance(cell, tuple):
            members[[lookup[category] for category in cell], user] = True
        else:
            members[-1, user] = True
    keep = members.any(axis=1)
    return Segmentation(name, tuple(np.asarray([*labels, NO_VALUE], dtype=object)[keep]),
                        members[keep], overlapping=True)


def _cold_start(counts: np.ndarray, below: int) -> Segmentation:
    few = "1 training interaction" if below == 2 else f"1–{below - 1} training interactions"
    labels = ["no training interaction", few, f"{below} or more"]
    codes = np.where(counts == 0, 0, np.where(counts < below, 1, 2))
    return _from_codes(COLD_START, codes, labels)


# Comparing models segment by segment -------------------------------------------------------
