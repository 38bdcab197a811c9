"""Each segment's models compared: means with confidence intervals, the winner, paired tests
corrected as one family over every segment and pair, and the warnings (Simpson's paradox, a
large segment won by another model)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from rankmetrics.checks import check_choice, check_int, check_probability
from rankmetrics.metrics import METRICS, check_metrics
from rankmetrics.results import EvaluationResults
from rankmetrics.segments.split import (
    MIN_USERS,
    TOO_FEW,
    WARN_SHARE,
    Segmentation,
)
from rankmetrics.stats import (
    CORRECTION_NAMES,
    CORRECTIONS,
    TESTS,
    ModelComparison,
    bootstrap_ci,
    compare_models,
    correct_pvalues,
    restore_ties,
    significance_groups,
)


@dataclass(frozen=True)
class SegmentComparison:
    """Every segment's models, winner and tests on one metric at one cutoff.

    Attributes
    ----------
    segments : pandas.DataFrame
        One row per segment: ``segment``, ``users`` (ground-truth users in it), ``share``
        (of all ground-truth users), ``tested_users`` (those every model counts),
        ``too_few`` (fewer than ``min_users`` tested users: shown, not tested), ``winner``
        (highest mean; of equal means, the first model's), ``significant`` (the winner is
        significantly best after the correction), ``runner_up``.
    models : pandas.DataFrame
        One row per segment and model: ``segment``, ``model``, ``users`` (the model's
        counted users in the segment), ``mean`` (equal to evaluating the segment's users
        alone), ``ci_low``, ``ci_high``, and against the baseline: ``difference``,
        ``p_value``, ``p_corrected``, ``significant``, ``verdict`` (``"better"``,
        ``"worse"``, ``"no significant difference"``, ``"baseline"`` or
        ``"too few users to tell"``; equal means are never better or worse).
    pairs : pandas.DataFrame
        Every tested segment's pairs (:func:`rankmetrics.stats.paired_comparison`'s
        columns after ``segment``), ``p_corrected`` over all of them.
    overall_means : pandas.Series
        Each model's mean over all its counted users (the Compare page's figures); the
        overall winner has the highest (of equal means, the first model's).
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
        return _highest(self.overall_means)[0]

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
    winner = _highest(overall_means)[0]
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
    difference = float(pair["difference"])  # exactly 0 for equal means
    significant = bool(pair["significant"])
    verdict = ("no significant difference" if not significant or difference == 0
               else "better" if difference > 0 else "worse")
    return {"difference": difference, "p_value": float(pair["p_value"]),
            "p_corrected": float(pair["p_corrected"]), "significant": significant,
            "verdict": verdict}


def _winners(segments: pd.DataFrame, table: pd.DataFrame,
             comparisons: dict[str, ModelComparison]) -> pd.DataFrame:
    winners, runners, significant = [], [], []
    for label in segments["segment"]:
        ordered = _highest(table[table["segment"] == label].set_index("model")["mean"])
        winners.append(ordered[0] if ordered else None)
        runners.append(ordered[1] if len(ordered) > 1 else None)
        result = comparisons.get(label)
        leaders, single = result.leaders() if result is not None else ([], False)
        significant.append(bool(single and ordered and leaders[0] == ordered[0]))
    return segments.assign(winner=pd.Series(winners, index=segments.index, dtype=object),
                           significant=significant,
                           runner_up=pd.Series(runners, index=segments.index, dtype=object))


def _highest(means: pd.Series) -> list[str]:
    """The models with a mean, highest mean first; equal means (within 1e-12 of the largest:
    :func:`rankmetrics.stats.restore_ties`) keep the models' order."""
    means = means.dropna()
    order = np.argsort(-restore_ties(means.to_numpy(dtype=np.float64)), kind="stable")
    return [str(model) for model in means.index[order]]


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
