"""The whole comparison on one metric at one cutoff: every model's mean, interval and letters,
and every pair's test, from a single bootstrap (:class:`ModelComparison`)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from rankmetrics.checks import check_choice, check_int
from rankmetrics.stats.bootstrap import seeded_bootstrap_means
from rankmetrics.stats.corrections import CORRECTIONS
from rankmetrics.stats.groups import significance_groups
from rankmetrics.stats.paired import compare_pairs, with_corrected_pvalues
from rankmetrics.stats.values import per_user_array, restore_ties
from rankmetrics.stats.words import comparison_warnings


@dataclass(frozen=True)
class ModelComparison:
    """Every model's mean with its confidence interval and letter group, and every pair's
    paired test, on one metric at one cutoff (made by :func:`compare_models`).

    Attributes
    ----------
    models : pandas.DataFrame
        One row per model, highest mean first (equal means, to a relative precision of
        1e-12 of the largest, in the column order): ``model``, ``mean``, ``ci_low`` and
        ``ci_high`` (percentile bootstrap interval of the mean), ``group`` (letters of
        :func:`significance_groups`: models sharing a letter are not significantly
        different), ``users``, and ``rank``, ``rank_low``, ``rank_high``: the model's rank
        by its mean (1 for the highest; equal means share the better rank) and the
        percentile interval of its rank over the same bootstrap resamples, at the same
        level, widened to hold the observed rank ("ranked 1-2 of 4": see
        :meth:`rank_text`).
    pairs : pandas.DataFrame
        The table of :func:`paired_comparison`, one row per pair in column order.
    test : str
        The paired test, one of ``TESTS``.
    correction : str
        The multiple-comparison correction, one of ``CORRECTIONS``.
    confidence : float
        Level of the intervals; ``1 - confidence`` is the significance level.
    warnings : tuple of str
        :func:`comparison_warnings` of the values.
    """

    models: pd.DataFrame
    pairs: pd.DataFrame
    test: str
    correction: str
    confidence: float
    warnings: tuple[str, ...]

    def with_correction(self, correction: str) -> ModelComparison:
        """The same comparison under another correction. Nothing is resampled: the raw
        p-values do not depend on the correction, only ``p_corrected``, ``significant`` and
        the letters change."""
        correction = check_choice("correction", correction, CORRECTIONS)
        pairs = with_corrected_pvalues(self.pairs, correction, self.confidence, self.test)
        models = self.models.assign(group=_letters(self.models, pairs))
        return replace(self, models=models, pairs=pairs, correction=correction)

    def leaders(self) -> tuple[list[Hashable], bool]:
        """The models that share the top spot, and whether a single model is best.

        The model with the highest mean is *significantly best* when its paired test against
        every other model is significant (after this comparison's correction), it has the
        higher mean in each, and no other model's rank interval reaches first place.
        Otherwise the leaders are the highest-mean model and every model not significantly
        different from it, with the same mean or whose rank interval reaches first place: a
        group the data cannot tell apart ("tied for first"), highest mean first. Means equal
        to a relative precision of 1e-12 of the largest are the same mean (the pair's
        ``difference`` is then exactly 0), as are the per-user values behind the tests (see
        :func:`paired_comparison`).

        Returns
        -------
        (list of model names, bool)
            ``([best], True)`` when one model is significantly best; otherwise
            ``([best, tied, ...], False)`` (a single model with ``False`` can only happen
            when there is nothing to compare it with).

        Examples
        --------
        >>> values = pd.DataFrame({"A": np.linspace(0, 0.5, 40), "B": np.linspace(0.3, 0.8, 40),
        ...                        "C": np.linspace(0.3, 0.8, 40)[::-1]})
        >>> compare_models(values, test="t", n_bootstrap=100).leaders()
        (['B', 'C'], False)
        """
        best = self.models["model"].iloc[0]
        tied = [best]
        for other in self.models["model"].iloc[1:]:
            row = self.pair(best, other)
            if not bool(row["significant"]) or float(row["difference"]) >= 0:
                tied.append(other)
        reach_first = set(self.tied_for_first())
        tied = [model for model in self.models["model"]
                if model in tied or model in reach_first]
        return tied, len(tied) == 1 and len(self.models) > 1

    def rank_text(self, model: object) -> str:
        """The model's rank interval in words: "ranked 1 of 4", "ranked 1-2 of 4".

        >>> values = pd.DataFrame({"A": np.linspace(0, 0.5, 40),
        ...                        "B": np.linspace(0.3, 0.8, 40),
        ...                        "C": np.linspace(0.3, 0.8, 40)[::-1] + 0.01})
        >>> found = compare_models(values, test="t", n_bootstrap=200)
        >>> [found.rank_text(model) for model in "ABC"]
        ['ranked 3 of 3', 'ranked 1-2 of 3', 'ranked 1-2 of 3']
        """
        rows = self.models.loc[self.models["model"] == model]
        if rows.empty:
            raise ValueError(f"No model {model!r} in this comparison; the models are "
                             f"{', '.join(map(repr, self.models['model']))}.")
        row = rows.iloc[0]
        low, high = int(row["rank_low"]), int(row["rank_high"])
        span = f"{low}" if low == high else f"{low}-{high}"
        return f"ranked {span} of {len(self.models)}"

    def tied_for_first(self) -> list[Hashable]:
        """The models whose rank interval reaches first place, best mean first: more than
        one means the data cannot say which is first."""
        return list(self.models.loc[self.models["rank_low"] == 1, "model"])

    def pair(self, model_a: object, model_b: object) -> pd.Series:
        """The row comparing ``model_b`` with ``model_a`` (``difference = mean_b - mean_a``,
        ``wins``: users for whom B is better), whichever order the table holds them in.

        Reversing a pair negates the difference, its interval, the effect size and the t or
        randomization statistic (Wilcoxon's, the smaller rank sum, stays), and swaps wins and
        losses; the p-values stay.
        """
        table = self.pairs
        forward = (table["model_a"] == model_a) & (table["model_b"] == model_b)
        if forward.any():
            return table.loc[forward].iloc[0]
        backward = (table["model_a"] == model_b) & (table["model_b"] == model_a)
        if not backward.any():
            raise ValueError(
                f"No pair compares {model_a!r} with {model_b!r}; the models are "
                f"{', '.join(map(repr, self.models['model']))}."
            )
        row = table.loc[backward].iloc[0].copy()
        flipped = row.copy()
        flipped["model_a"], flipped["model_b"] = row["model_b"], row["model_a"]
        flipped["mean_a"], flipped["mean_b"] = row["mean_b"], row["mean_a"]
        flipped["difference"] = -row["difference"]
        flipped["ci_low"], flipped["ci_high"] = -row["ci_high"], -row["ci_low"]
        flipped["effect_size"] = -row["effect_size"]
        flipped["effect_low"], flipped["effect_high"] = -row["effect_high"], -row["effect_low"]
        if self.test != "wilcoxon":
            flipped["statistic"] = -row["statistic"]
        flipped["wins"], flipped["losses"] = row["losses"], row["wins"]
        return flipped


def compare_models(
    values: pd.DataFrame,
    *,
    test: str = "randomization",
    correction: str = "holm",
    n_permutations: int = 10_000,
    n_bootstrap: int = 1_000,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> ModelComparison:
    """Each model's mean with a confidence interval, letter groups and every paired test.

    The pairs are :func:`paired_comparison`'s (same arguments, same numbers). Each model's
    interval is the percentile interval of the same bootstrap resamples' means, so it equals
    ``bootstrap_ci(values[model], seed=seed)`` and the users are resampled once for the
    whole comparison. Letters come from :func:`significance_groups` on the corrected tests.

    Parameters
    ----------
    values : pandas.DataFrame
        Index: user ids; one float column per model (at least 2), no NaN.
    test, correction, n_permutations, n_bootstrap, confidence, seed
        As for :func:`paired_comparison`; the randomization test by default, as it makes no
        assumption about how per-user values are spread (they are bounded, often 0, and
        rarely normal).

    Returns
    -------
    ModelComparison

    Examples
    --------
    >>> values = pd.DataFrame({"A": np.linspace(0, 0.5, 40), "B": np.linspace(0.3, 0.8, 40)})
    >>> result = compare_models(values, n_permutations=500, n_bootstrap=200)
    >>> result.models[["model", "group", "users"]].values.tolist()
    [['B', 'a', 40], ['A', 'b', 40]]
    >>> float(result.pair("A", "B").difference.round(3)), int(result.pair("B", "A").losses)
    (0.3, 40)
    """
    return _compare_models(values, test, correction, n_permutations, n_bootstrap, confidence,
                           seed)


def compare_models_together(
    tables: Mapping[str, pd.DataFrame],
    *,
    test: str = "randomization",
    correction: str = "holm",
    n_permutations: int = 10_000,
    n_bootstrap: int = 1_000,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> dict[str, ModelComparison]:
    """:func:`compare_models` on each of several tables (one per metric, say), drawing the
    bootstrap resamples once for every table of the same users.

    Tables whose index is the same users in the same order are resampled together: their
    columns side by side go through one bootstrap, which draws the same resamples as
    :func:`compare_models` on each table with the same seed (the draws depend on the number
    of users only). The numbers are :func:`compare_models`' up to rounding (the resampled
    means are summed in another order, a difference of about 1e-16); drawing the resamples,
    most of the bootstrap's time, is paid once instead of once per table.

    Parameters
    ----------
    tables : mapping of name -> pandas.DataFrame
        Each as ``values`` of :func:`compare_models`.
    test, correction, n_permutations, n_bootstrap, confidence, seed
        As for :func:`compare_models`, the same for every table.

    Returns
    -------
    dict of name -> ModelComparison

    Examples
    --------
    >>> users = pd.Index(range(40), name="user")
    >>> tables = {"ndcg": pd.DataFrame({"A": np.linspace(0, 0.5, 40),
    ...                                 "B": np.linspace(0.3, 0.8, 40)}, index=users),
    ...           "recall": pd.DataFrame({"A": np.linspace(0.1, 0.6, 40),
    ...                                   "B": np.linspace(0.1, 0.6, 40)}, index=users)}
    >>> together = compare_models_together(tables, n_permutations=500, n_bootstrap=200)
    >>> alone = compare_models(tables["ndcg"], n_permutations=500, n_bootstrap=200)
    >>> bool(np.allclose(together["ndcg"].models[["mean", "ci_low", "ci_high"]],
    ...                  alone.models[["mean", "ci_low", "ci_high"]], rtol=0, atol=1e-12))
    True
    """
    n_bootstrap = check_int("n_bootstrap", n_bootstrap)
    out: dict[str, ModelComparison] = {}
    for names in _same_users(tables):
        arrays = [per_user_array(tables[name]) for name in names]
        boot = seeded_bootstrap_means(np.hstack(arrays), n_bootstrap, seed)
        edges = np.cumsum([0, *(array.shape[1] for array in arrays)])
        for name, low, high in zip(names, edges[:-1], edges[1:], strict=True):
            out[name] = _compare_models(tables[name], test, correction, n_permutations,
                                        n_bootstrap, confidence, seed, boot[:, low:high])
    return {name: out[name] for name in tables}


def _same_users(tables: Mapping[str, pd.DataFrame]) -> list[list[str]]:
    """The names of ``tables`` in groups whose index is the same users in the same order."""
    groups: list[list[str]] = []
    for name, table in tables.items():
        group = next((group for group in groups
                      if tables[group[0]].index.equals(table.index)), None)
        if group is None:
            groups.append([name])
        else:
            group.append(name)
    return groups


def _compare_models(
    values: pd.DataFrame, test: str, correction: str, n_permutations: int, n_bootstrap: int,
    confidence: float, seed: int | None, boot: np.ndarray | None = None,
) -> ModelComparison:
    """:func:`compare_models`, with the bootstrap means of the columns when they were drawn
    already."""
    pairs, boot = compare_pairs(values, test, correction, n_permutations, n_bootstrap,
                                 confidence, seed, boot)
    alpha = 1.0 - float(confidence)
    low, high = np.quantile(boot, [alpha / 2, 1 - alpha / 2], axis=0)
    means = values.to_numpy(dtype=np.float64).mean(axis=0)
    order = np.argsort(-restore_ties(means), kind="stable")
    rank, rank_low, rank_high = rank_intervals(means, boot, float(confidence))
    models = pd.DataFrame({
        "model": [values.columns[i] for i in order],
        "mean": means[order],
        "ci_low": low[order],
        "ci_high": high[order],
        "group": "",
        "users": len(values),
        "rank": rank[order],
        "rank_low": rank_low[order],
        "rank_high": rank_high[order],
    })
    models["group"] = _letters(models, pairs)
    return ModelComparison(models, pairs, test, correction, float(confidence),
                           tuple(comparison_warnings(values)))


def _letters(models: pd.DataFrame, pairs: pd.DataFrame) -> list[str]:
    """The letter groups of the rows of a :class:`ModelComparison`'s model table."""
    groups = significance_groups(pd.Series(models["mean"].to_numpy(), index=models["model"]),
                                 pairs)
    return groups.reindex(models["model"]).tolist()


def ranks(means: np.ndarray) -> np.ndarray:
    """Each column's rank by its mean along the last axis, 1 for the highest: one plus the
    number of columns with a higher mean, so equal means (to a relative precision of 1e-12
    of the largest, as everywhere) share the better rank."""
    means = np.asarray(means, dtype=np.float64)
    scale = np.abs(means).max(axis=-1, keepdims=True)
    tolerance = 1e-12 * np.where(scale > 0, scale, 1.0)
    higher = means[..., None, :] > means[..., :, None] + tolerance[..., None]
    return 1 + higher.sum(axis=-1)


def rank_intervals(means: np.ndarray, boot: np.ndarray, confidence: float
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each model's rank, and the percentile interval of its rank over the bootstrap
    resamples (``boot``: the resamples' means, one column per model), widened to hold the
    observed rank: ``(rank, rank_low, rank_high)``, integers, 1 for the best."""
    observed = ranks(means)
    resampled = ranks(boot)
    alpha = 1.0 - confidence
    low = np.quantile(resampled, alpha / 2, axis=0, method="inverted_cdf").astype(np.int64)
    high = np.quantile(resampled, 1 - alpha / 2, axis=0,
                       method="inverted_cdf").astype(np.int64)
    return observed, np.minimum(low, observed), np.maximum(high, observed)
