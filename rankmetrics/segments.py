"""Which model is better for whom: an evaluation split into segments of users, with tests.

"Better on average" is not "better for new users" or "better for heavy users". This module
splits the ground truth's users into segments (a user attribute such as country or plan, a
number such as age cut into quantile buckets, or the automatic segments: the size of each
user's ground truth, and, given per-user training interaction counts, activity and cold
start), then gives each segment its models' means with confidence intervals, its winner and
whether that winner is significantly best.

Tests are paired within each segment (the users every model counts), and the p-values of all
segment x pair tests form one family for the multiple-comparison correction, so that testing
ten segments does not make ten times as many chance findings look real. Users with no
attribute row form an explicit ``"(no value)"`` segment: nobody is dropped silently.

Simpson's paradox. When every model is averaged over the same users (the default
conventions), the overall difference between two models is the users-weighted mean of the
segment differences, so it cannot point against every segment. It can when each model is
averaged over other users: with ``missing_users="skip"`` a model that leaves out the hard
users looks better overall while it loses in every segment. :func:`compare_segments` warns
when that happens.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from rankmetrics.checks import check_choice, check_int, check_probability
from rankmetrics.io import Attributes
from rankmetrics.metrics import METRICS, check_metrics
from rankmetrics.results import EvaluationResults
from rankmetrics.stats import (
    CORRECTION_NAMES,
    CORRECTIONS,
    TESTS,
    ModelComparison,
    bootstrap_ci,
    compare_models,
    correct_pvalues,
    significance_groups,
)

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

@dataclass(frozen=True)
class SegmentComparison:
    """Every segment's models, winner and tests on one metric at one cutoff.

    Attributes
    ----------
    segments : pandas.DataFrame
        One row per segment: ``segment``, ``users`` (ground-truth users in it), ``share``
        (of all ground-truth users), ``tested_users`` (those every model counts),
        ``too_few`` (fewer than ``min_users`` tested users: shown, not tested), ``winner``
        (highest mean), ``significant`` (the winner is significantly best after the
        correction), ``runner_up``.
    models : pandas.DataFrame
        One row per segment and model: ``segment``, ``model``, ``users`` (the model's
        counted users in the segment), ``mean`` (equal to evaluating the segment's users
        alone), ``ci_low``, ``ci_high``, and against the baseline: ``difference``,
        ``p_value``, ``p_corrected``, ``significant``, ``verdict`` (``"better"``,
        ``"worse"``, ``"no significant difference"``, ``"baseline"`` or
        ``"too few users to tell"``).
    pairs : pandas.DataFrame
        Every tested segment's pairs (:func:`rankmetrics.stats.paired_comparison`'s
        columns after ``segment``), ``p_corrected`` over all of them.
    overall_means : pandas.Series
        Each model's mean over all its counted users (the Compare page's figures); the
        overall winner has the highest.
    warnings : tuple of str
        Segments whose winner is not the overall winner, Simpson's paradox, tiny segments.
    simpson : bool
        Whether every tested segment's winner differs from the overall winner.
    """

    by: str
    metric: str
    cutoff: int | None
    baseline: str
    test: str
    correction: str
    confidence: float
    min_users: int
    warn_share: float
    segments: pd.DataFrame
    models: pd.DataFrame
    pairs: pd.DataFrame
    overall_means: pd.Series
    warnings: tuple[str, ...]
    simpson: bool
    comparisons: Mapping[str, ModelComparison] = field(default_factory=dict, repr=False)

    @property
    def overall_winner(self) -> str:
        return str(self.overall_means.idxmax())

    def with_baseline(self, baseline: str) -> SegmentComparison:
        """The same comparison against another baseline. Nothing is tested again: the
        segments' pairs hold every difference and corrected p-value."""
        baseline = check_choice("baseline", baseline, list(self.overall_means.index))
        against = pd.DataFrame([_against_baseline(self.comparisons.get(segment), model, baseline)
                                for segment, model in zip(self.models["segment"],
                                                          self.models["model"], strict=True)],
                               index=self.models.index)
        return replace(self, baseline=baseline, models=self.models.assign(**against))

    def table(self) -> pd.DataFrame:
        """One row per segment: users, share, each model's mean, the winner and whether it is
        significantly best (the table the command line prints)."""
        means = self.models.pivot(index="segment", columns="model", values="mean")
        means = means.reindex(index=self.segments["segment"],
                              columns=list(self.overall_means.index))
        out = self.segments[["segment", "users", "share"]].set_index("segment")
        out = out.join(means)
        out["winner"] = self.segments.set_index("segment")["winner"]
        out["significant"] = np.where(self.segments["too_few"].to_numpy(), TOO_FEW,
                                      np.where(self.segments["significant"].to_numpy(),
                                               "yes", "no"))
        return out.reset_index()

    def export_table(self) -> pd.DataFrame:
        """:meth:`table` with the metric and K on every row, for a CSV that says what it holds
        once it is away from the page or the command that made it."""
        return self.table().assign(metric=self.metric, cutoff=self.cutoff)


def compare_segments(
    evaluation: EvaluationResults,
    segmentation: Segmentation,
    metric: str,
    cutoff: int | None,
    *,
    baseline: str | None = None,
    test: str = "randomization",
    correction: str = "holm",
    confidence: float = 0.95,
    min_users: int = MIN_USERS,
    warn_share: float = WARN_SHARE,
    n_permutations: int = 10_000,
    n_bootstrap: int = 1_000,
    seed: int | None = 0,
) -> SegmentComparison:
    """Each segment's model means with confidence intervals, winner and paired tests.

    Parameters
    ----------
    evaluation : Evaluation or SavedEvaluation
    segmentation : Segmentation
        From :func:`segment_users`.
    metric : str
    cutoff : int or None
        K (None for a metric without a cutoff).
    baseline : str, optional
        The model the others are compared with (default: the first model).
    test, correction, confidence, n_permutations, n_bootstrap, seed
        As for :func:`rankmetrics.stats.compare_models`. Every segment x pair p-value is one
        family for ``correction``.
    min_users : int, default 30
        Segments with fewer users counted by every model are shown (greyed in the
        dashboard) but not tested: too few users to tell.
    warn_share : float, default 0.05
        A segment holding at least this share of the users whose winner is not the overall
        winner is named in a warning.

    Returns
    -------
    SegmentComparison
    """
    metric = check_metrics([metric])[0]
    cutoff = cutoff if METRICS[metric].has_cutoff else None
    test = check_choice("test", test, TESTS)
    correction = check_choice("correction", correction, CORRECTIONS)
    min_users = check_int("min_users", min_users, low=2)
    warn_share = check_probability("warn_share", warn_share)
    models = list(evaluation.models)
    baseline = models[0] if baseline is None else check_choice("baseline", baseline, models)
    if len(models) < 2:
        raise ValueError("Comparing segments needs at least 2 models; the evaluation has "
                         f"{len(models)}.")
    values, counted = _per_user_values(evaluation, metric, cutoff)
    everyone: np.ndarray = np.logical_and.reduce(counted, axis=0)

    def compare(mask: np.ndarray) -> ModelComparison:
        return compare_models(_paired(values, mask, models, evaluation), test=test,
                              correction=correction, n_permutations=n_permutations,
                              n_bootstrap=n_bootstrap, confidence=confidence, seed=seed)

    overall_means = pd.Series({model: _mean(values[i], counted[i])
                               for i, model in enumerate(models)})
    comparisons: dict[str, ModelComparison] = {}
    rows = []
    for label, member in zip(segmentation.labels, segmentation.members, strict=True):
        tested = member & everyone
        rows.append({"segment": label, "users": int(member.sum()),
                     "share": float(member.mean()), "tested_users": int(tested.sum()),
                     "too_few": int(tested.sum()) < min_users})
        if not rows[-1]["too_few"]:
            comparisons[label] = compare(tested)
    comparisons, pairs = _correct_together(comparisons, correction, confidence)
    table = _model_rows(segmentation, values, counted, models, comparisons, baseline,
                        confidence)
    segments = _winners(pd.DataFrame(rows), table, comparisons)
    winner = str(overall_means.idxmax())
    simpson = _simpson(segments, winner, segmentation.overlapping)
    warnings = _warnings(segments, overall_means, winner, simpson, metric, cutoff,
                         segmentation.name, warn_share, min_users, correction)
    return SegmentComparison(segmentation.name, metric, cutoff, baseline, test, correction,
                             float(confidence), min_users, float(warn_share), segments, table,
                             pairs, overall_means, tuple(warnings), simpson, comparisons)


def segment_curves(evaluation: EvaluationResults, segmentation: Segmentation,
                   metric: str) -> pd.DataFrame:
    """Each segment's mean of ``metric`` for each model at every cutoff with per-user values
    (every K, or a saved evaluation's saved cutoffs).

    Returns a long table ``segment, model, cutoff, value`` (cutoff None for a metric without
    one); each value equals evaluating the segment's users alone.
    """
    metric = check_metrics([metric])[0]
    has_cutoff = METRICS[metric].has_cutoff
    saved = list(evaluation.per_user_cutoffs)
    cutoffs: list[int | None] = list(saved) if has_cutoff else [None]
    at = np.array(saved) - 1 if has_cutoff else np.array([0])
    parts = []
    for label, member in zip(segmentation.labels, segmentation.members, strict=True):
        means = evaluation.means([metric], within=member)
        for model in evaluation.models:
            parts.append(pd.DataFrame({"segment": label, "model": model, "cutoff": cutoffs,
                                       "value": means[model][metric][at]}))
    table = pd.concat(parts, ignore_index=True)
    table["cutoff"] = table["cutoff"].astype("Int64")
    return table


def _per_user_values(evaluation: EvaluationResults, metric: str,
                     cutoff: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Models x ground-truth users values (NaN where not counted) and the counted mask."""
    n_users = len(evaluation.users)
    values = np.full((len(evaluation.models), n_users), np.nan)
    counted = np.zeros((len(evaluation.models), n_users), dtype=bool)
    for i, model in enumerate(evaluation.models):
        counted[i] = evaluation.included(model)
        values[i, counted[i]] = evaluation.per_user_at(model, metric, cutoff).to_numpy()
    return values, counted


def _mean(values: np.ndarray, mask: np.ndarray) -> float:
    return float(values[mask].mean()) if mask.any() else float("nan")


def _paired(values: np.ndarray, mask: np.ndarray, models: list[str],
            evaluation: EvaluationResults) -> pd.DataFrame:
    return pd.DataFrame(values[:, mask].T, columns=models,
                        index=pd.Index(evaluation.users[mask], name="user"))


def _correct_together(comparisons: dict[str, ModelComparison], correction: str,
                      confidence: float) -> tuple[dict[str, ModelComparison], pd.DataFrame]:
    """Every segment's pairs corrected as one family; letters and leaders follow."""
    if not comparisons:
        return comparisons, pd.DataFrame(columns=["segment"])
    flat = pd.concat([result.pairs.assign(segment=label)
                      for label, result in comparisons.items()], ignore_index=True)
    flat["p_corrected"] = correct_pvalues(flat["p_value"].to_numpy(dtype=np.float64),
                                          correction)
    flat["significant"] = flat["p_corrected"] < 1.0 - confidence
    flat = flat[["segment", *[c for c in flat.columns if c != "segment"]]]
    out = {}
    for label, result in comparisons.items():
        pairs = flat[flat["segment"] == label].drop(columns="segment").reset_index(drop=True)
        groups = significance_groups(
            pd.Series(result.models["mean"].to_numpy(), index=result.models["model"]), pairs)
        models = result.models.assign(group=groups.reindex(result.models["model"]).tolist())
        out[label] = replace(result, pairs=pairs, models=models)
    return out, flat


def _model_rows(segmentation: Segmentation, values: np.ndarray, counted: np.ndarray,
                models: list[str], comparisons: dict[str, ModelComparison], baseline: str,
                confidence: float) -> pd.DataFrame:
    rows = []
    for label, member in zip(segmentation.labels, segmentation.members, strict=True):
        result = comparisons.get(label)
        for i, model in enumerate(models):
            mask = member & counted[i]
            row: dict[str, object] = {"segment": label, "model": model,
                                      "users": int(mask.sum()), "mean": _mean(values[i], mask)}
            row.update(_interval(values[i, mask], model, result, confidence))
            row.update(_against_baseline(result, model, baseline))
            rows.append(row)
    return pd.DataFrame(rows)


def _interval(values: np.ndarray, model: str, result: ModelComparison | None,
              confidence: float) -> dict[str, float]:
    """The mean's interval: the comparison's when it covers the same users, else its own."""
    if result is not None:
        table = result.models.set_index("model")
        if table.at[model, "users"] == len(values):
            low, high = table.loc[model, ["ci_low", "ci_high"]].to_numpy(dtype=np.float64)
            return {"ci_low": float(low), "ci_high": float(high)}
    if len(values) < 2:
        return {"ci_low": float("nan"), "ci_high": float("nan")}
    _, low, high = bootstrap_ci(values, confidence=confidence)
    return {"ci_low": float(low), "ci_high": float(high)}


def _against_baseline(result: ModelComparison | None, model: str,
                      baseline: str) -> dict[str, object]:
    if model == baseline:
        return {"difference": 0.0, "p_value": np.nan, "p_corrected": np.nan,
                "significant": False, "verdict": "baseline"}
    if result is None:
        return {"difference": np.nan, "p_value": np.nan, "p_corrected": np.nan,
                "significant": False, "verdict": TOO_FEW}
    pair = result.pair(baseline, model)
    difference = float(pair["difference"])
    significant = bool(pair["significant"])
    verdict = ("no significant difference" if not significant
               else "better" if difference > 0 else "worse")
    return {"difference": difference, "p_value": float(pair["p_value"]),
            "p_corrected": float(pair["p_corrected"]), "significant": significant,
            "verdict": verdict}


def _winners(segments: pd.DataFrame, table: pd.DataFrame,
             comparisons: dict[str, ModelComparison]) -> pd.DataFrame:
    winners, runners, significant = [], [], []
    for label in segments["segment"]:
        means = table[table["segment"] == label].set_index("model")["mean"].dropna()
        ordered = means.sort_values(ascending=False, kind="stable").index.tolist()
        winners.append(ordered[0] if ordered else None)
        runners.append(ordered[1] if len(ordered) > 1 else None)
        result = comparisons.get(label)
        leaders, single = result.leaders() if result is not None else ([], False)
        significant.append(bool(single and ordered and leaders[0] == ordered[0]))
    return segments.assign(winner=pd.Series(winners, index=segments.index, dtype=object),
                           significant=significant,
                           runner_up=pd.Series(runners, index=segments.index, dtype=object))


def _simpson(segments: pd.DataFrame, winner: str, overlapping: bool) -> bool:
    tested = segments[~segments["too_few"]]
    return (not overlapping and len(tested) >= 2
            and bool((tested["winner"] != winner).all()))


def _warnings(segments: pd.DataFrame, overall_means: pd.Series, winner: str, simpson: bool,
              metric: str, cutoff: int | None, by: str, warn_share: float, min_users: int,
              correction: str) -> list[str]:
    label = METRICS[metric].label + (f"@{cutoff}" if cutoff is not None else "")
    out = []
    columns = ("segment", "share", "winner", "significant", "too_few")
    against = []  # segments whose best model is not the overall winner
    for segment, share, best, significant, too_few in zip(
            *(segments[column].tolist() for column in columns), strict=True):
        if too_few or best == winner or share < warn_share:
            continue
        how = ("significantly" if significant else
               f"though not significantly with the {CORRECTION_NAMES[correction]} correction")
        against.append((best, segment, share, how))
    if simpson:
        # one message: each segment's own winner is part of the paradox, not news of its own
        each = ", ".join(f"{best} for {segment} ({share:.0%} of users, {how})"
                         for best, segment, share, how in against)
        out.append(
            f"Simpson's paradox: {winner} has the highest {label} over all users "
            f"({overall_means[winner]:.4f}), yet it is not the best in any segment of {by}"
            + (f": best is {each}" if each else "") + ". "
            "Each model is averaged over different users (see the users each model counts): "
            "the overall figure mixes the segments in different proportions for each model. "
            "Trust the segments, or count every user for every model (missing users as zero)."
        )
    else:
        out.extend(f"{winner} is best overall, but {best} is best for {by} = {segment} "
                   f"({share:.0%} of users), {how}." for best, segment, share, how in against)
    tiny = segments[segments["too_few"]]
    if len(tiny):
        names = ", ".join(f"{segment} ({users:,} user{'' if users == 1 else 's'})"
                          for segment, users
                          in zip(tiny["segment"], tiny["tested_users"], strict=True))
        out.append(f"Too few users to tell (fewer than {min_users} counted by every model, so "
                   f"not tested): {names}.")
    return out
