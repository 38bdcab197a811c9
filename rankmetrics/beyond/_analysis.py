"""Beyond-accuracy metrics of an :class:`~rankmetrics.evaluation.Evaluation`'s models.

:func:`prepare_beyond` reads each model's whole top K and what the optional inputs say
about the items; an Evaluation made with it (``evaluate(..., interactions=...)``) computes
the per-user metrics (ARP, APLT, ACLT, novelty, ILD, categories) like any other, and its
:attr:`~rankmetrics.evaluation.Evaluation.beyond` (a :class:`BeyondAccuracy`) gives the
system metrics, their bootstrap intervals, the long-tail accuracy and the popularity
deciles, as tables.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rankmetrics.beyond._declared import (
    BEYOND_METRICS,
    LIST_METRICS,
    LONG_TAIL_METRICS,
    SYSTEM_METRICS,
    BeyondOptions,
)
from rankmetrics.beyond._items import ItemFacts, item_facts
from rankmetrics.beyond._kernels import (
    COUNT_CELLS,
    ITEM_MEANS,
    counts_at,
    item_value_table,
    per_user,
    rank_sums,
    summed_categories,
    summed_item_means,
    system_curves,
    system_values,
)
from rankmetrics.beyond._lists import top_items
from rankmetrics.checks import check_choice, check_int, check_probability
from rankmetrics.ground_truth import GroundTruth
from rankmetrics.io import Attributes, LoadedTable, interaction_counts

if TYPE_CHECKING:
    from rankmetrics.evaluation import Evaluation

DECILES = 10
#: Item-value sums by rank kept per model and set of users.
KEPT_SUMS = 8


@dataclass(frozen=True)
class BeyondInputs:
    """Each model's top items as codes (users x width, -1 past a list's end) and the facts
    about the items (see :func:`prepare_beyond`)."""

    facts: ItemFacts
    lists: dict[str, np.ndarray]
    options: BeyondOptions
    #: The inputs read, by name ("interactions", "item_attributes", "catalogue"): their rows
    #: and users (None where rows are not users' rows), what a saved evaluation records.
    described: Mapping[str, tuple[int, int | None]] = dataclasses.field(default_factory=dict)
    #: Each ground-truth user's number of training interactions (their activity), when the
    #: training interactions were given: what a saved evaluation keeps to split users by.
    activity: pd.Series | None = None

    @property
    def width(self) -> int:
        """The longest list read (the ranks at which a value can still change)."""
        return max((lists.shape[1] for lists in self.lists.values()), default=1)


def prepare_beyond(
    truth: GroundTruth,
    runs: Mapping[str, LoadedTable],
    *,
    interactions: LoadedTable | None = None,
    item_attributes: Attributes | pd.DataFrame | None = None,
    catalogue: str | Iterable[str] = "auto",
    options: BeyondOptions | None = None,
    ties: str = "item_desc",
    max_cutoff: int = 100,
) -> BeyondInputs:
    """Read the first ``max_cutoff`` items of each run for each ground-truth user, and
    number every item with what the inputs say about it.

    Parameters
    ----------
    truth : GroundTruth
    runs : mapping of model name -> run read by :mod:`rankmetrics.io`
    interactions : training interactions read by :func:`rankmetrics.io.read_interactions`
        The source of popularity (ARP, APLT, ACLT, novelty, the long tail).
    item_attributes : attributes read by ``rankmetrics.io.read_attributes(..., key="item")``
        or a DataFrame with an item column, optional
        Columns of categories (one or several per item) give Jaccard distances and category
        counts; without any, the numeric columns give cosine distances.
    catalogue : "auto", "interactions", "all" or a collection of item ids
        The items that could be recommended. ``auto``: the items of the training
        interactions when given, else every item in any input.
    options : BeyondOptions, default ``BeyondOptions()``
    """
    options = options or BeyondOptions()
    check_int("max_cutoff", max_cutoff)
    if not isinstance(catalogue, str):
        catalogue = list(catalogue)  # read twice: for the facts and for the record
    tops = {name: top_items(run, truth, ties=ties, width=max_cutoff)
            for name, run in runs.items()}
    facts = item_facts(truth, tops, interactions=interactions, attributes=item_attributes,
                       catalogue=catalogue, options=options)
    lists = {}
    for name, top in tops.items():
        lists[name] = top.matrix(facts.codes(top), truth.n_users)[:, :max(top.longest, 1)]
    activity = None
    if interactions is not None:
        users = pd.Index(truth.user_ids.to_pandas(), name="user")
        activity = interaction_counts(interactions).reindex(users, fill_value=0)
    return BeyondInputs(facts, lists, options,
                        _described(interactions, item_attributes, catalogue), activity)


def _described(interactions: LoadedTable | None,
               item_attributes: Attributes | pd.DataFrame | None,
               catalogue: str | list[str]) -> dict[str, tuple[int, int | None]]:
    """Rows and users of each beyond-accuracy input given (see :class:`BeyondInputs`)."""
    described: dict[str, tuple[int, int | None]] = {}
    if interactions is not None:
        described["interactions"] = (interactions.n_rows, interactions.n_users)
    if item_attributes is not None:
        table = (item_attributes if isinstance(item_attributes, pd.DataFrame)
                 else item_attributes.table)
        described["item_attributes"] = (len(table), None)
    if not isinstance(catalogue, str):
        described["catalogue"] = (len(catalogue), None)
    return described


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
        self._item_sums: dict[tuple[str, int, str], np.ndarray] = {}
        self._lock = threading.Lock()

    # ----- what is offered ----------------------------------------------------------------

    @property
    def metrics(self) -> tuple[str, ...]:
        """The beyond-accuracy metrics the inputs allow, in registry order."""
        facts = self.facts
        has = {"nothing": True, "interactions": facts.popularity is not None,
               "attributes": facts.attributes is not None}
        offered = [name for name, metric in BEYOND_METRICS.items() if has[metric.needs]]
        if facts.attributes is None or facts.attributes.category_bits is None:
            offered = [name for name in offered if name != "categories"]
        return tuple(offered)

    @property
    def per_user_metrics(self) -> tuple[str, ...]:
        """The offered metrics with one value per counted user of the evaluation."""
        return tuple(name for name in self.metrics if name in LIST_METRICS)

    def check(self, metric: str) -> str:
        return check_choice("metric", metric, self.metrics)

    def choices(self) -> dict[str, object]:
        """The named choices and where the catalogue came from, for reports and JSON."""
        facts = self.facts
        out: dict[str, object] = dict(self.options.as_dict())
        out["catalogue"] = facts.catalogue_source
        out["catalogue_items"] = facts.catalogue_size
        out["novelty_unseen_items"] = "counted as seen once"
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

    def per_user(self, model: str, metric: str, start: int, stop: int, width: int
                 ) -> np.ndarray:
        """Values of users start..stop-1 (ground-truth order) at cutoffs 1..width."""
        lists = self.inputs.lists[model][start:stop, :width]
        if lists.shape[1] < width:
            lists = np.pad(lists, ((0, 0), (0, width - lists.shape[1])), constant_values=-1)
        return per_user(metric, lists, self.facts)

    def summed(self, model: str, metric: str, mask: np.ndarray, width: int
               ) -> np.ndarray | None:
        """Sums over the users in ``mask`` at cutoffs 1..width, for the metrics that have a
        summed form (ARP, APLT, ACLT, novelty: see :func:`summed_item_means`; categories,
        added up in integers); else None."""
        lists = self.inputs.lists[model][:, :width]
        if metric in ITEM_MEANS:
            by_rank = self._rank_sums(model, lists, mask)[:, ITEM_MEANS[metric]]
            sums = summed_item_means(metric, lists, mask.astype(np.float64), self.facts,
                                     by_rank)
        elif metric == "categories" and self.facts.attributes is not None:
            sums = summed_categories(lists, mask, self.facts.attributes)
        else:
            return None
        if len(sums) < width:  # past the longest list: ARP and the others stay as they were
            sums = np.concatenate([sums, np.full(width - len(sums), sums[-1])])
        return sums

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
        chosen = self.evaluation._cutoff_list(cutoffs)
        names = [self.check(name) for name in (metrics or self.metrics)]
        rows: list[tuple[str, str, int, float, int]] = []
        for model in self.evaluation.models:
            for metric in names:
                values = self.curve(model, metric)
                users = self.users(model, metric)
                rows.extend((model, metric, cutoff, float(values[cutoff - 1]), users)
                            for cutoff in chosen)
        table = pd.DataFrame(rows, columns=["model", "metric", "cutoff", "value", "users"])
        table["cutoff"] = table["cutoff"].astype("Int64")
        return table

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
        cutoff = self.evaluation._check_cutoff(cutoff)
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
        cutoff = self.evaluation._check_cutoff(cutoff)
        decile = self._deciles(popularity.counts)
        rows = []
        for model in self.evaluation.models:
            lists = self.inputs.lists[model][self.evaluation.included(model), :cutoff]
            rows.extend(_shares(model, decile[lists[lists >= 0]]))
        relevant = self.evaluation.truth_relevant
        rows.extend(_shares("ground truth", decile[self.facts.truth_item_code[
            self.evaluation.truth.item_index[relevant]]]))
        return pd.DataFrame(rows, columns=["source", "decile", "share"])

    @cached_property
    def long_tail(self) -> Evaluation:
        """The evaluation of the same runs on the ground truth restricted to long-tail items
        (every other item's rating is treated as unjudged: not relevant, no gain)."""
        from rankmetrics.evaluation import Evaluation

        popularity = self.facts.popularity
        if popularity is None:
            raise ValueError("The long-tail accuracy needs training interactions.")
        evaluation = self.evaluation
        truth = evaluation.truth
        in_tail = popularity.long_tail[self.facts.truth_item_code[truth.item_index]]
        restricted = dataclasses.replace(truth, ratings=np.where(in_tail, truth.ratings,
                                                                 np.nan))
        return Evaluation(restricted, evaluation.runs, evaluation.relevance,
                          evaluation.conventions, evaluation.max_cutoff)

    # ----- internals ----------------------------------------------------------------------

    def _system_curves(self, model: str) -> dict[str, np.ndarray]:
        with self._lock:
            if model not in self._curves:
                lists = self.inputs.lists[model][self.evaluation.included(model)]
                self._curves[model] = system_curves(lists, self.facts,
                                                    self.options.distribution)
            return self._curves[model]

    def _rank_sums(self, model: str, lists: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """:func:`rank_sums` of the item values for the users in ``mask`` (kept for the
        last few masks: ARP, APLT, ACLT and novelty are asked for one after another)."""
        key = (model, lists.shape[1], hashlib.sha1(np.packbits(mask).tobytes()).hexdigest())
        with self._lock:
            if key not in self._item_sums:
                if len(self._item_sums) >= KEPT_SUMS:
                    self._item_sums.pop(next(iter(self._item_sums)))
                self._item_sums[key] = rank_sums(lists, mask.astype(np.float64),
                                                 item_value_table(self.facts))
            return self._item_sums[key]

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
        step = max(1, COUNT_CELLS // max(n_items, 1))
        parts: dict[str, list[np.ndarray]] = {metric: [] for metric in SYSTEM_METRICS}
        for first in range(0, n_bootstrap, step):
            size = min(step, n_bootstrap - first)
            counts, users = np.empty((size, n_items)), np.empty(size)
            for row in range(size):
                weights = np.bincount(rng.integers(0, len(lists), len(lists)),
                                      minlength=len(lists)).astype(np.float64)
                counts[row] = counts_at(lists, cutoff, n_items, weights)
                users[row] = weights[has_list].sum()
            for metric, values in system_values(counts, np.full(size, cutoff), users,
                                                self.facts, self.options.distribution).items():
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


def _shares(source: str, deciles: np.ndarray) -> list[tuple[str, int, float]]:
    counts = np.bincount(deciles[deciles > 0], minlength=DECILES + 1)[1:]
    total = counts.sum()
    return [(source, decile, float(count / total) if total else 0.0)
            for decile, count in enumerate(counts, start=1)]
