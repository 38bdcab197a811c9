"""The beyond-accuracy results of an evaluation computed here: the system metrics (coverage,
Gini, entropy, personalization) and their bootstrap intervals, the long-tail accuracy and the
popularity deciles, as tables. The per-user metrics (ARP, APLT, ACLT, novelty, ILD,
categories) are computed by the :class:`~rankmetrics.evaluation.Evaluation` like any other.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterable
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rankmetrics.beyond import EXPOSURE_GROUPS, BeyondInputs
from rankmetrics.checks import check_choice, check_int, check_probability
from rankmetrics.metrics import (
    BEYOND_METRICS,
    COUNT_CELLS,
    LIST_METRICS,
    LONG_TAIL_METRICS,
    SYSTEM_METRICS,
    UNSEEN_METRICS,
    counts_at,
    system_curves,
    system_values,
    unpacked_bits,
)
from rankmetrics.results import Fingerprint

if TYPE_CHECKING:
    from rankmetrics.evaluation._evaluation import Evaluation

DECILES = 10
NO_CATEGORY = "no category"


class BeyondAccuracy:
    """The beyond-accuracy metrics of an evaluation's models (see the module docstring)."""

    def __init__(self, evaluation: Evaluation, inputs: BeyondInputs) -> None:
        missing = [model for model in evaluation.models if model not in inputs.lists]
        if missing:
            raise ValueError(f"The beyond-accuracy inputs have no lists for {missing}; "
                             "prepare them from the same runs.")
        self.evaluation = evaluation
        self.inputs = inputs
        self.facts = inputs.facts
        self.options = inputs.options
        self._curves: dict[str, dict[str, np.ndarray]] = {}
        self._lock = threading.Lock()

    # ----- what is offered ----------------------------------------------------------------

    @property
    def metrics(self) -> tuple[str, ...]:
        """The beyond-accuracy metrics the inputs allow, in registry order."""
        facts = self.facts
        has = {"nothing": True, "interactions": facts.popularity is not None,
               "attributes": facts.attributes is not None}
        has["interactions and attributes"] = has["interactions"] and has["attributes"]
        offered = [name for name, metric in BEYOND_METRICS.items() if has[metric.needs]]
        if facts.attributes is None or facts.attributes.category_bits is None:
            offered = [name for name in offered
                       if name not in ("categories", "category_entropy", "miscalibration")]
        if facts.unexpectedness == "attributes" and facts.attributes is None:
            offered = [name for name in offered if name != "serendipity"]
        return tuple(offered)

    @property
    def per_user_metrics(self) -> tuple[str, ...]:
        """The offered metrics with one value per counted user of the evaluation."""
        return tuple(name for name in self.metrics if name in LIST_METRICS)

    @property
    def activity(self) -> pd.Series | None:
        """Each ground-truth user's number of training interactions (None without them)."""
        return self.inputs.activity

    @property
    def inputs_read(self) -> dict[str, Fingerprint]:
        """Rows and users of each beyond-accuracy input read, by name."""
        return {name: Fingerprint(rows, users)
                for name, (rows, users) in self.inputs.described.items()}

    def check(self, metric: str) -> str:
        return check_choice("metric", metric, self.metrics)

    def choices(self) -> dict[str, object]:
        """The named choices and where the catalogue came from, for reports and JSON."""
        facts = self.facts
        out: dict[str, object] = dict(self.options.as_dict())
        out["catalogue"] = facts.catalogue_source
        out["catalogue_items"] = facts.catalogue_size
        out["unseen_items_rule"] = (
            "ARP and novelty leave out items unseen in training (users with none at K are "
            "left out of that K's mean)" if self.options.unseen_items == "left_out"
            else "ARP counts items unseen in training with popularity 0, novelty as seen once")
        out["personalization_divided_by"] = "K"
        out["short_lists"] = ("ARP, APLT, novelty and ILD are divided by the items a user "
                              "has in the top K; ILD is 0 with fewer than two")
        if facts.attributes is not None:
            out["ild_distance"] = facts.attributes.distance
            out["attribute_columns"] = list(facts.attributes.columns)
        if facts.popularity is not None:
            tail = facts.popularity.long_tail & facts.in_catalogue
            out["long_tail_items"] = int(tail.sum())
        return out

    # ----- values -------------------------------------------------------------------------

    def curve(self, model: str, metric: str) -> np.ndarray:
        """Values at every cutoff 1..max_cutoff: the mean over counted users for a per-user
        metric, the system value otherwise."""
        self.check(metric)
        if metric in LIST_METRICS:
            return self.evaluation.curve(model, metric)
        if metric in LONG_TAIL_METRICS:
            return self.long_tail.curve(model, LONG_TAIL_METRICS[metric])
        return self._extend_system(metric, self._system_curves(model)[metric])

    def summary(self, metrics: Iterable[str] | None = None,
                cutoffs: Iterable[int] | None = None) -> pd.DataFrame:
        """Long table ``model, metric, cutoff, value, users`` (as
        :meth:`Evaluation.summary`), for beyond-accuracy metrics."""
        chosen = self.evaluation.cutoff_list(cutoffs)
        names = [self.check(name) for name in (metrics or self.metrics)]
        rows: list[tuple[str, str, int, float, int]] = []
        for model in self.evaluation.models:
            for metric in names:
                values = self.curve(model, metric)
                users = self._users_at(model, metric, chosen)
                rows.extend((model, metric, cutoff, float(values[cutoff - 1]), count)
                            for cutoff, count in zip(chosen, users, strict=True))
        table = pd.DataFrame(rows, columns=["model", "metric", "cutoff", "value", "users"])
        table["cutoff"] = table["cutoff"].astype("Int64")
        return table

    def _users_at(self, model: str, metric: str, cutoffs: list[int]) -> list[int]:
        """:meth:`users` at each cutoff: fewer at some where users without an item seen in
        training are left out (``unseen_items="left_out"``)."""
        if metric in UNSEEN_METRICS and self.options.unseen_items == "left_out":
            sums = self.evaluation.sums([metric], [model])
            found = sums.users_with_values(model, metric)
            return [int(found[min(cutoff, sums.width) - 1]) for cutoff in cutoffs]
        return [self.users(model, metric)] * len(cutoffs)

    def users(self, model: str, metric: str) -> int:
        """How many users a value is over (users with a list, for a system metric)."""
        if metric in LONG_TAIL_METRICS:
            return int(self.long_tail.included(model).sum())
        mask = self.evaluation.included(model)
        if metric in SYSTEM_METRICS:
            return int(np.count_nonzero(self.inputs.lists[model][mask, 0] >= 0))
        return int(mask.sum())

    def system_bands(
        self, metrics: Iterable[str], *, cutoff: int, n_bootstrap: int = 1_000,
        confidence: float = 0.95, seed: int | None = 0,
    ) -> pd.DataFrame:
        """Bootstrap intervals of system metrics at one cutoff: the counted users are
        resampled with replacement ``n_bootstrap`` times (each resample counts a user as
        often as it is drawn) and the interval is the percentile interval of the values.

        Returns ``model, metric, cutoff, mean, ci_low, ci_high`` (``mean``: the value on
        every user, as :meth:`curve` gives it).
        """
        names = [self.check(name) for name in metrics]
        cutoff = self.evaluation.check_cutoff(cutoff)
        check_int("n_bootstrap", n_bootstrap)
        confidence = check_probability("confidence", confidence)
        rows = []
        for model in self.evaluation.models:
            lists = self.inputs.lists[model][self.evaluation.included(model)]
            if not len(lists):
                continue
            resampled = self._resampled(lists, cutoff, n_bootstrap, seed)
            for metric in names:
                low, high = np.nanquantile(resampled[metric],
                                           [(1 - confidence) / 2, (1 + confidence) / 2])
                rows.append((model, metric, cutoff, float(self.curve(model, metric)[cutoff - 1]),
                             float(low), float(high)))
        return pd.DataFrame(rows, columns=["model", "metric", "cutoff", "mean", "ci_low",
                                           "ci_high"])

    def bands(self, metric: str, cutoff: int, *, n_bootstrap: int = 1_000,
              confidence: float = 0.95, seed: int | None = 0) -> pd.DataFrame:
        """Each model's value of one beyond-accuracy metric at ``cutoff`` with its bootstrap
        interval over the counted users: :meth:`system_bands` for a system metric, the
        evaluation's confidence bands for a per-user one (of the long-tail evaluation for
        the long-tail accuracy).

        Returns ``model, metric, cutoff, mean, ci_low, ci_high``.
        """
        metric = self.check(metric)
        if metric in SYSTEM_METRICS:
            return self.system_bands([metric], cutoff=cutoff, n_bootstrap=n_bootstrap,
                                     confidence=confidence, seed=seed)
        if metric in LONG_TAIL_METRICS:
            bands = self.long_tail.confidence_bands(
                [LONG_TAIL_METRICS[metric]], cutoffs=[cutoff], n_bootstrap=n_bootstrap,
                confidence=confidence, seed=seed)
            return bands.assign(metric=metric)
        return self.evaluation.confidence_bands([metric], cutoffs=[cutoff],
                                                n_bootstrap=n_bootstrap,
                                                confidence=confidence, seed=seed)

    def popularity_deciles(self, cutoff: int) -> pd.DataFrame:
        """How often each popularity decile of the catalogue is recommended in each model's
        top ``cutoff``, and how often it occurs among the relevant ground-truth items.

        Decile 1 holds the most popular tenth of the catalogue's items. Returns ``source``
        (a model, or ``ground truth``), ``decile`` and ``share`` (of that source's catalogue
        items falling in the decile).
        """
        popularity = self.facts.popularity
        if popularity is None:
            raise ValueError("popularity_deciles needs training interactions.")
        cutoff = self.evaluation.check_cutoff(cutoff)
        decile = self._deciles(popularity.counts)
        rows = []
        for model in self.evaluation.models:
            lists = self.inputs.lists[model][self.evaluation.included(model), :cutoff]
            rows.extend(_shares(model, decile[lists[lists >= 0]]))
        relevant = self.evaluation.truth_relevant
        rows.extend(_shares("ground truth", decile[self.facts.truth_item_code[
            self.evaluation.truth.item_index[relevant]]]))
        return pd.DataFrame(rows, columns=["source", "decile", "share"])

    @property
    def exposure_groups(self) -> tuple[str, ...]:
        """The groupings of :meth:`exposure` the inputs allow (of :data:`EXPOSURE_GROUPS`)."""
        facts = self.facts
        has = {"popularity": facts.popularity is not None,
               "categories": facts.attributes is not None
               and facts.attributes.category_bits is not None}
        return tuple(name for name in EXPOSURE_GROUPS if has[name])

    def exposure(self, cutoff: int, groups: str = "popularity") -> pd.DataFrame:
        """Each item group's share of each model's exposure in the top ``cutoff``, next to
        its share of the catalogue's items and of the relevant ground-truth items.

        Rank k of a list gives its item the weight ``options.rank_weights`` gives k (a
        reader's attention: geometric by default); a model's exposure of a group is the sum
        of its catalogue items' weights over the counted users' lists, over the sum for every
        catalogue item. ``groups``: ``"popularity"`` (``short head`` and ``long tail``, as
        APLT splits them) or ``"categories"`` (each category of the item attributes; an item
        of several categories shares its weight equally between them, one of none is in
        ``no category``).

        Returns ``source`` (a model, ``catalogue`` or ``relevant items``), ``group`` and
        ``share`` (each source's shares sum to 1).
        """
        groups = check_choice("groups", groups, EXPOSURE_GROUPS)
        if groups not in self.exposure_groups:
            raise ValueError("Exposure by popularity needs training interactions."
                             if groups == "popularity" else
                             "Exposure by category needs item attributes with categories.")
        cutoff = self.evaluation.check_cutoff(cutoff)
        names, membership = self._membership(groups)
        in_catalogue = self.facts.in_catalogue
        membership = membership * in_catalogue[:, None]
        rows: list[tuple[str, str, float]] = []
        n_items = len(self.facts.ids)
        for model in self.evaluation.models:
            lists = self.inputs.lists[model][self.evaluation.included(model)]
            exposure = counts_at(lists, cutoff, n_items, np.ones(len(lists)),
                                 self.options.rank_weights(lists.shape[1]))
            rows.extend(_group_shares(model, names, exposure @ membership))
        rows.extend(_group_shares("catalogue", names, membership.sum(axis=0)))
        relevant = self.facts.truth_item_code[
            self.evaluation.truth.item_index[self.evaluation.truth_relevant]]
        rows.extend(_group_shares("relevant items", names,
                                  np.bincount(relevant, minlength=n_items) @ membership))
        return pd.DataFrame(rows, columns=["source", "group", "share"])

    def _membership(self, groups: str) -> tuple[list[str], np.ndarray]:
        """The groups' names and each item's share in each group (items x groups; each
        item's row sums to 1)."""
        facts = self.facts
        if groups == "popularity":
            if facts.popularity is None:
                raise ValueError("Exposure by popularity needs training interactions.")
            tail = facts.popularity.long_tail.astype(np.float64)
            return ["short head", "long tail"], np.column_stack([1.0 - tail, tail])
        attributes = facts.attributes
        if attributes is None or attributes.category_bits is None:
            raise ValueError("Exposure by category needs item attributes with categories.")
        names = list(attributes.category_names)
        bits = unpacked_bits(attributes.category_bits)[:, :len(names)].astype(np.float64)
        held = bits.sum(axis=1)
        none = held == 0
        shares = bits / np.maximum(held, 1.0)[:, None]
        if none.any():
            names.append(NO_CATEGORY)
            shares = np.column_stack([shares, none.astype(np.float64)])
        return names, shares

    @cached_property
    def long_tail(self) -> Evaluation:
        """The evaluation of the same runs on the ground truth restricted to long-tail items
        (every other item's rating is treated as unjudged: not relevant, no gain)."""
        popularity = self.facts.popularity
        if popularity is None:
            raise ValueError("The long-tail accuracy needs training interactions.")
        evaluation = self.evaluation
        truth = evaluation.truth
        in_tail = popularity.long_tail[self.facts.truth_item_code[truth.item_index]]
        restricted = dataclasses.replace(truth, ratings=np.where(in_tail, truth.ratings,
                                                                 np.nan))
        return evaluation.on_ground_truth(restricted)

    # ----- internals ----------------------------------------------------------------------

    def _system_curves(self, model: str) -> dict[str, np.ndarray]:
        with self._lock:
            if model not in self._curves:
                lists = self.inputs.lists[model][self.evaluation.included(model)]
                self._curves[model] = system_curves(
                    lists, self.facts, self.options.distribution,
                    self.options.rank_weights(lists.shape[1]))
            return self._curves[model]

    def _extend_system(self, metric: str, values: np.ndarray) -> np.ndarray:
        """Values at cutoffs 1..max_cutoff from those at 1..width: past the longest list
        the counts stop changing, and personalization's overlap is divided by a larger K."""
        max_cutoff = self.evaluation.max_cutoff
        if len(values) >= max_cutoff:
            return values[:max_cutoff].copy()
        cutoffs = np.arange(len(values) + 1, max_cutoff + 1)
        last = values[-1]
        more = (1.0 - (1.0 - last) * len(values) / cutoffs if metric == "personalization"
                else np.full(len(cutoffs), last))
        return np.concatenate([values, more])

    def _resampled(self, lists: np.ndarray, cutoff: int, n_bootstrap: int,
                   seed: int | None) -> dict[str, np.ndarray]:
        """The system metrics on ``n_bootstrap`` resamples of the users (a few resamples'
        item counts held at a time)."""
        rng = np.random.default_rng(seed)
        has_list = lists[:, 0] >= 0
        n_items = len(self.facts.ids)
        step = max(1, COUNT_CELLS // max(2 * n_items, 1))  # counts and exposure
        rank_weights = self.options.rank_weights(lists.shape[1])
        parts: dict[str, list[np.ndarray]] = {metric: [] for metric in SYSTEM_METRICS}
        for first in range(0, n_bootstrap, step):
            size = min(step, n_bootstrap - first)
            counts, users = np.empty((size, n_items)), np.empty(size)
            exposure = np.empty((size, n_items))
            for row in range(size):
                weights = np.bincount(rng.integers(0, len(lists), len(lists)),
                                      minlength=len(lists)).astype(np.float64)
                counts[row] = counts_at(lists, cutoff, n_items, weights)
                exposure[row] = counts_at(lists, cutoff, n_items, weights, rank_weights)
                users[row] = weights[has_list].sum()
            for metric, values in system_values(counts, np.full(size, cutoff), users,
                                                self.facts, self.options.distribution,
                                                exposure).items():
                parts[metric].append(values)
        return {metric: np.concatenate(values) for metric, values in parts.items()}

    def _deciles(self, counts: np.ndarray) -> np.ndarray:
        """Each item's popularity decile (1: most popular) among the catalogue; 0 outside
        it (and -1 for no item)."""
        catalogue = np.flatnonzero(self.facts.in_catalogue)
        ranked = catalogue[np.argsort(-counts[catalogue], kind="stable")]
        decile = np.zeros(len(counts) + 1, dtype=np.int64)
        decile[ranked] = np.arange(len(ranked)) * DECILES // max(len(ranked), 1) + 1
        return decile


def _group_shares(source: str, names: list[str], totals: np.ndarray
                  ) -> list[tuple[str, str, float]]:
    total = float(totals.sum())
    return [(source, name, float(value / total) if total else 0.0)
            for name, value in zip(names, totals, strict=True)]


def _shares(source: str, deciles: np.ndarray) -> list[tuple[str, int, float]]:
    counts = np.bincount(deciles[deciles > 0], minlength=DECILES + 1)[1:]
    total = counts.sum()
    return [(source, decile, float(count / total) if total else 0.0)
            for decile, count in enumerate(counts, start=1)]
