"""The beyond-accuracy results of a saved evaluation (bundle).

A bundle keeps no user's whole list, so coverage, Gini, entropy, personalization and the
popularity deciles cannot be computed from it later: they are computed when the evaluation
is saved, from every user, and kept as tables:

- ``beyond_means.parquet``: every beyond-accuracy metric the inputs allowed, at every K
  1..max_cutoff, per model (:meth:`rankmetrics.beyond.BeyondAccuracy.summary`);
- ``beyond_deciles.parquet``: the popularity deciles of each model's top K and of the
  relevant items, at each saved cutoff (when training interactions were given);
- ``beyond_long_tail.parquet``: per-user recall and NDCG on long-tail items at the saved
  cutoffs, one row per model and user with a relevant long-tail item (when training
  interactions were given), as ``per_user/`` holds the others;
- per-user values of the per-user metrics (ARP, APLT, ACLT, novelty, ILD, categories) at the
  saved cutoffs, as columns of the bundle's ``per_user/`` files beside the accuracy metrics;
- in ``evaluation.json`` under ``beyond``: the metrics, the named options, the choices they
  led to (the catalogue, the long tail, the ILD distance) and a fingerprint of each input
  (training interactions, item attributes, a listed catalogue).

:class:`SavedBeyond` reads them back and answers what the Beyond accuracy page asks of a
:class:`~rankmetrics.beyond.BeyondAccuracy`, with the same numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rankmetrics.beyond import LONG_TAIL_METRICS, BeyondAccuracy, BeyondOptions
from rankmetrics.checks import check_choice, check_int

if TYPE_CHECKING:
    from rankmetrics.bundle import Fingerprint

BEYOND_MEANS = "beyond_means.parquet"
BEYOND_DECILES = "beyond_deciles.parquet"
BEYOND_LONG_TAIL = "beyond_long_tail.parquet"
#: Each ground-truth user's number of training interactions (``user, interactions``).
BEYOND_ACTIVITY = "beyond_activity.parquet"


def beyond_tables(beyond: BeyondAccuracy, cutoffs: Sequence[int]) -> dict[str, pd.DataFrame]:
    """The files of the beyond-accuracy results, by name: the means at every K and (with
    training interactions) the popularity deciles and the long-tail accuracy's per-user
    values at ``cutoffs``."""
    from rankmetrics.bundle import per_user_values

    tables = {BEYOND_MEANS: beyond.summary(beyond.metrics)}
    if beyond.facts.popularity is None:
        return tables
    activity = beyond.inputs.activity
    if activity is not None:
        tables[BEYOND_ACTIVITY] = activity.rename("interactions").reset_index()
    tables[BEYOND_DECILES] = pd.concat([beyond.popularity_deciles(cutoff).assign(cutoff=cutoff)
                                        for cutoff in cutoffs], ignore_index=True)
    long_tail = per_user_values(beyond.long_tail, list(LONG_TAIL_METRICS.values()), cutoffs)
    named = {f"{metric}@": f"{name}@" for name, metric in LONG_TAIL_METRICS.items()}
    tables[BEYOND_LONG_TAIL] = long_tail.rename(columns=lambda column: next(
        (column.replace(old, new, 1) for old, new in named.items()
         if column.startswith(old)), column))
    return tables


def beyond_metadata(beyond: BeyondAccuracy, inputs: Mapping[str, Fingerprint]
                    ) -> dict[str, object]:
    """What ``evaluation.json`` says of the beyond-accuracy results."""
    return {
        "metrics": list(beyond.metrics),
        "per_user_metrics": list(beyond.per_user_metrics),
        "options": beyond.options.as_dict(),
        "choices": beyond.choices(),
        "inputs": {name: asdict(fingerprint) for name, fingerprint in inputs.items()},
    }


def beyond_fingerprints(beyond: BeyondAccuracy) -> dict[str, Fingerprint]:
    """Rows and users of the beyond-accuracy inputs as read (no content hash: the files'
    own are taken where the files are known, as by the command line)."""
    from rankmetrics.bundle import Fingerprint

    return {name: Fingerprint(rows, users)
            for name, (rows, users) in beyond.inputs.described.items()}


class SavedBeyond:
    """Beyond-accuracy results read back from a bundle: the values at every K, the
    per-user metrics, the options and choices, the popularity deciles at saved cutoffs."""

    def __init__(self, info: Mapping[str, Any], tables: Mapping[str, pd.DataFrame],
                 cutoffs: Sequence[int]) -> None:
        from rankmetrics.bundle import Fingerprint

        self.metrics: tuple[str, ...] = tuple(info["metrics"])
        self.per_user_metrics: tuple[str, ...] = tuple(info["per_user_metrics"])
        self.options = BeyondOptions(**info["options"])
        self._choices: dict[str, object] = dict(info["choices"])
        self.inputs = {name: Fingerprint(**value) for name, value in info["inputs"].items()}
        self.cutoffs = list(cutoffs)
        self._means = tables[BEYOND_MEANS].astype({"cutoff": "Int64"})
        self._deciles = tables.get(BEYOND_DECILES)
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

    def long_tail_bands(self, metric: str, cutoff: int, *, n_bootstrap: int = 1_000,
                        confidence: float = 0.95, seed: int | None = 0) -> pd.DataFrame:
        """Bootstrap intervals of recall or NDCG on long-tail items at a saved cutoff, from
        the per-user values saved (as ``BeyondAccuracy.long_tail.confidence_bands`` on the
        same users, in the order of their ids)."""
        from rankmetrics.evaluation import band_table

        check_choice("metric", metric, tuple(LONG_TAIL_METRICS))
        if cutoff not in self.cutoffs:
            raise ValueError(f"The bundle holds per-user values at K = "
                             f"{', '.join(map(str, self.cutoffs))}; got cutoff={cutoff!r}.")
        column = f"{metric}@{cutoff}"
        per_series = {(model, metric): rows[[column]].to_numpy(dtype=np.float64)
                      for model, rows in self._long_tail.items() if len(rows)}
        return band_table(per_series, [cutoff], n_bootstrap=n_bootstrap, confidence=confidence,
                          seed=seed, has_cutoff=lambda name: True)

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
