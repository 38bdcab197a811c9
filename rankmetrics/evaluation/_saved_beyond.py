"""The beyond-accuracy results of a saved evaluation, read back from its bundle.

A bundle keeps no user's whole list, so coverage, Gini, entropy, personalization and the
popularity deciles cannot be computed from it later: they were computed when the evaluation
was saved, from every user, and are read back as tables (see :mod:`rankmetrics.bundle`), with
the same numbers as :class:`~rankmetrics.evaluation.BeyondAccuracy` gives.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rankmetrics.beyond import EXPOSURE_GROUPS, BeyondOptions
from rankmetrics.bundle import (
    BEYOND_ACTIVITY,
    BEYOND_DECILES,
    BEYOND_EXPOSURE,
    BEYOND_LONG_TAIL,
    BEYOND_MEANS,
)
from rankmetrics.checks import check_choice, check_int
from rankmetrics.evaluation._bands import band_table
from rankmetrics.metrics import LONG_TAIL_METRICS
from rankmetrics.results import Fingerprint

if TYPE_CHECKING:
    from rankmetrics.evaluation._saved import SavedEvaluation


class SavedBeyond:
    """Beyond-accuracy results read back from a bundle: the values at every K, the
    per-user metrics, the options and choices, the popularity deciles at saved cutoffs."""

    def __init__(self, evaluation: SavedEvaluation, info: Mapping[str, Any],
                 tables: Mapping[str, pd.DataFrame], cutoffs: Sequence[int]) -> None:
        self.evaluation = evaluation
        self.metrics: tuple[str, ...] = tuple(info["metrics"])
        self.per_user_metrics: tuple[str, ...] = tuple(info["per_user_metrics"])
        self.options = BeyondOptions(**info["options"])
        self._choices: dict[str, object] = dict(info["choices"])
        #: Rows and users of each beyond-accuracy input, as recorded.
        self.inputs_read = {name: Fingerprint(**value)
                            for name, value in info["inputs"].items()}
        self.cutoffs = list(cutoffs)
        self._means = tables[BEYOND_MEANS].astype({"cutoff": "Int64"})
        self._deciles = tables.get(BEYOND_DECILES)
        self._exposure = tables.get(BEYOND_EXPOSURE)
        activity = tables.get(BEYOND_ACTIVITY)
        #: Each ground-truth user's number of training interactions (None: not saved), what
        #: splits users by activity or cold start.
        self.activity: pd.Series | None = (
            None if activity is None else
            activity.astype({"user": "str"}).set_index("user")["interactions"])
        long_tail = tables.get(BEYOND_LONG_TAIL)
        self._long_tail: dict[str, pd.DataFrame] = {} if long_tail is None else {
            str(model): rows.drop(columns="model").set_index("user").sort_index()
            for model, rows in long_tail.groupby("model", sort=False)}

    def check(self, metric: str) -> str:
        return check_choice("metric", metric, self.metrics)

    def choices(self) -> dict[str, object]:
        """As :meth:`rankmetrics.beyond.BeyondAccuracy.choices`, as saved."""
        return dict(self._choices)

    def curve(self, model: str, metric: str) -> np.ndarray:
        """Values at every cutoff 1..max_cutoff (as ``BeyondAccuracy.curve``)."""
        rows = self._rows(model, metric)
        return rows["value"].to_numpy(dtype=np.float64)

    def users(self, model: str, metric: str) -> int:
        """How many users a value is over (as ``BeyondAccuracy.users``)."""
        rows = self._rows(model, metric)
        return int(rows["users"].iloc[0]) if len(rows) else 0

    def summary(self, metrics: Iterable[str] | None = None,
                cutoffs: Iterable[int] | None = None) -> pd.DataFrame:
        """Long table ``model, metric, cutoff, value, users`` (as ``BeyondAccuracy.summary``)."""
        names = [self.check(name) for name in (metrics or self.metrics)]
        table = self._means[self._means["metric"].isin(names)]
        if cutoffs is not None:
            table = table[table["cutoff"].isin(
                {check_int("cutoff", cutoff) for cutoff in cutoffs})]
        order = {metric: position for position, metric in enumerate(names)}
        models = list(dict.fromkeys(self._means["model"]))
        table = table.assign(_metric=table["metric"].map(order),
                             _model=table["model"].map(models.index))
        return (table.sort_values(["_model", "_metric", "cutoff"], kind="stable")
                .drop(columns=["_metric", "_model"]).reset_index(drop=True))

    def popularity_deciles(self, cutoff: int) -> pd.DataFrame:
        """As ``BeyondAccuracy.popularity_deciles``, at one of the saved cutoffs."""
        if self._deciles is None:
            raise ValueError("popularity_deciles needs training interactions; this evaluation "
                             "was saved without them.")
        if cutoff not in self.cutoffs:
            raise ValueError(f"The bundle holds the popularity deciles at K = "
                             f"{', '.join(map(str, self.cutoffs))}; got cutoff={cutoff!r}.")
        rows = self._deciles[self._deciles["cutoff"] == cutoff]
        return rows.drop(columns="cutoff").reset_index(drop=True)

    @property
    def exposure_groups(self) -> tuple[str, ...]:
        """The groupings of :meth:`exposure` saved (none in a bundle written before it)."""
        if self._exposure is None:
            return ()
        saved = set(self._exposure["groups"])
        return tuple(name for name in EXPOSURE_GROUPS if name in saved)

    def exposure(self, cutoff: int, groups: str = "popularity") -> pd.DataFrame:
        """As ``BeyondAccuracy.exposure``, at one of the saved cutoffs."""
        groups = check_choice("groups", groups, EXPOSURE_GROUPS)
        if groups not in self.exposure_groups or self._exposure is None:
            raise ValueError(f"This evaluation was saved without exposure by {groups}.")
        if cutoff not in self.cutoffs:
            raise ValueError(f"The bundle holds the exposure at K = "
                             f"{', '.join(map(str, self.cutoffs))}; got cutoff={cutoff!r}.")
        table = self._exposure
        rows = table[(table["groups"] == groups) & (table["cutoff"] == cutoff)]
        return rows[["source", "group", "share"]].reset_index(drop=True)

    def long_tail_bands(self, metric: str, cutoff: int, *, n_bootstrap: int = 1_000,
                        confidence: float = 0.95, seed: int | None = 0) -> pd.DataFrame:
        """Bootstrap intervals of recall or NDCG on long-tail items at a saved cutoff, from
        the per-user values saved (as ``BeyondAccuracy.long_tail.confidence_bands`` on the
        same users, in the order of their ids)."""
        check_choice("metric", metric, tuple(LONG_TAIL_METRICS))
        if cutoff not in self.cutoffs:
            raise ValueError(f"The bundle holds per-user values at K = "
                             f"{', '.join(map(str, self.cutoffs))}; got cutoff={cutoff!r}.")
        column = f"{metric}@{cutoff}"
        per_series = {(model, metric): rows[[column]].to_numpy(dtype=np.float64)
                      for model, rows in self._long_tail.items() if len(rows)}
        return band_table(per_series, [cutoff], n_bootstrap=n_bootstrap, confidence=confidence,
                          seed=seed, has_cutoff=lambda name: True)

    def bands(self, metric: str, cutoff: int, *, n_bootstrap: int = 1_000,
              confidence: float = 0.95, seed: int | None = 0) -> pd.DataFrame:
        """Each model's value at a saved cutoff with its bootstrap interval where the bundle
        holds the per-user values it needs: the per-user metrics (from the saved evaluation's
        per-user values, :meth:`SavedEvaluation.confidence_bands`) and the long-tail accuracy
        (:meth:`long_tail_bands`); a system metric has no interval (its resampling needs
        every user's list), NaN.

        Returns ``model, metric, cutoff, mean, ci_low, ci_high``.
        """
        metric = self.check(metric)
        if metric in self.per_user_metrics:
            return self.evaluation.confidence_bands([metric], cutoffs=[cutoff],
                                                    n_bootstrap=n_bootstrap,
                                                    confidence=confidence, seed=seed)
        if metric in LONG_TAIL_METRICS and self.long_tail_saved:
            return self.long_tail_bands(metric, cutoff, n_bootstrap=n_bootstrap,
                                        confidence=confidence, seed=seed)
        models = list(dict.fromkeys(self._means["model"]))
        return pd.DataFrame({"model": models, "metric": metric, "cutoff": cutoff,
                             "mean": [float(self.curve(model, metric)[cutoff - 1])
                                      for model in models],
                             "ci_low": np.nan, "ci_high": np.nan})

    @property
    def long_tail_saved(self) -> bool:
        """Whether per-user values of the long-tail accuracy are saved."""
        return bool(self._long_tail)

    def _rows(self, model: str, metric: str) -> pd.DataFrame:
        self.check(metric)
        means = self._means
        rows = means[(means["model"] == model) & (means["metric"] == metric)]
        if rows.empty:
            raise ValueError(f"Unknown model {model!r}: the models are "
                             f"{', '.join(dict.fromkeys(means['model']))}.")
        return rows.sort_values("cutoff")
