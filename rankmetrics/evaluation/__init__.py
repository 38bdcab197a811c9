"""Evaluate several models against one ground truth, at every cutoff at once.

>>> import pandas as pd
>>> truth = pd.DataFrame({"user": ["u"] * 5, "item": list("ACXYZ"), "rating": [1] * 5})
>>> run = pd.DataFrame({"user": ["u"] * 5, "item": list("ABCDE"), "score": [5, 4, 3, 2, 1]})
>>> ev = evaluate(truth, {"model": run}, max_cutoff=5)
>>> float(round(ev.curve("model", "ndcg")[4], 4)), float(round(ev.curve("model", "map")[4], 4))
(0.5087, 0.3333)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa

from rankmetrics.beyond import (
    BEYOND_METRICS,
    BeyondAccuracy,
    BeyondInputs,
    BeyondMetric,
    BeyondOptions,
    prepare_beyond,
)
from rankmetrics.cache import BoundedCache
from rankmetrics.checks import check_instance, check_int
from rankmetrics.conventions import Conventions
from rankmetrics.ground_truth import GroundTruth, named_columns
from rankmetrics.io import (
    Attributes,
    HashedIds,
    LoadedTable,
    interactions_from_dataframe,
    run_codes,
    run_from_dataframe,
    truth_codes,
    truth_from_dataframe,
)
from rankmetrics.metrics import METRICS, JudgedItems, Metric, UserBlock, check_metrics, judge
from rankmetrics.ranked_run import RankedRun
from rankmetrics.relevance import RelevanceMapping
from rankmetrics.runtime import one_blas_thread
from rankmetrics.sums import COUNTS, UserSums, extend_values

if TYPE_CHECKING:
    from rankmetrics.bundle import Fingerprint

USERS_PER_BLOCK = 16_384
#: Most per-user values :meth:`Evaluation.confidence_bands` resamples at once by default
#: (users x models x metrics x cutoffs; 2**24 float64 values are 128 MiB).
BAND_VALUES = 2**24
#: Most bytes of per-user values an :class:`Evaluation` keeps (the least recently used go
#: first); 256 MiB hold three models x six metrics at one cutoff for a million users.
PER_USER_CACHE_BYTES = 2**28
#: The largest cutoff. Values are computed only as far as the data can change them (see
#: :attr:`Evaluation.width`), so a large K costs no more than the longest list; the bound
#: keeps K an exact count in every integer and float type the kernels use.
MAX_CUTOFF = 10**9

# what a caller who passed suggest_mapping's result (or a dict of grades) wants to read
_MAPPING_HINT = ("Build one with RelevanceMapping.binary(4) or RelevanceMapping.graded({5: 3, "
                 "4: 2, 3: 1}); from suggest_mapping(...), pass its .recommended mapping.")

#: The most ranks of each list the beyond-accuracy metrics read (their values at larger
#: cutoffs are those at this one, personalization's overlap divided by the larger K).
BEYOND_WIDTH = 1_000


def evaluate(
    truth: pd.DataFrame | LoadedTable | GroundTruth,
    runs: Mapping[str, pd.DataFrame | LoadedTable | RankedRun],
    *,
    relevance: RelevanceMapping | None = None,
    conventions: Conventions | None = None,
    max_cutoff: int = 100,
    interactions: pd.DataFrame | LoadedTable | None = None,
    item_attributes: Attributes | pd.DataFrame | None = None,
    catalogue: str | Iterable[str] | None = None,
    beyond_options: BeyondOptions | None = None,
) -> Evaluation:
    """Evaluate each model's ranked output against the ground truth.

    Parameters
    ----------
    truth : DataFrame (user, item, rating), a ground truth read by rankmetrics.io, or GroundTruth
    runs : mapping of model name -> DataFrame (user, item, score), a run read by
        rankmetrics.io, or RankedRun
        DataFrames are checked as :func:`rankmetrics.io.truth_from_dataframe` and
        :func:`rankmetrics.io.run_from_dataframe` check them. A RankedRun must have been made
        against the same GroundTruth with the same tie rule.
    relevance : RelevanceMapping, default identity with threshold 1
    conventions : Conventions, default ``Conventions()``
    max_cutoff : int
        The largest K, at most :data:`MAX_CUTOFF`; every cutoff 1..max_cutoff has a value.
    interactions, item_attributes, catalogue, beyond_options : optional
        The inputs of the beyond-accuracy metrics (see
        :func:`rankmetrics.beyond.prepare_beyond`): when any is given, the runs' whole
        lists are read and :attr:`Evaluation.beyond` holds them (runs must then be tables,
        not RankedRun). ``catalogue="all"`` alone gives coverage, Gini, entropy and
        personalization.
    """
    relevance = RelevanceMapping.identity(1) if relevance is None else relevance
    conventions = Conventions() if conventions is None else conventions
    check_instance("relevance", relevance, RelevanceMapping, hint=_MAPPING_HINT)
    check_instance("conventions", conventions, Conventions,
                   hint="Use Conventions(...) or a preset: Conventions.preset('trec_eval').")
    check_int("max_cutoff", max_cutoff, high=MAX_CUTOFF)
    if not runs:
        raise ValueError("Give at least one model output to evaluate.")
    prepared_truth = truth if isinstance(truth, GroundTruth) else GroundTruth.from_frame(truth)
    prepared_runs = {}
    for name, run in runs.items():
        if isinstance(run, RankedRun):
            if run.ties != conventions.ties or len(run.lengths) != prepared_truth.n_users:
                raise ValueError(
                    f"The prepared output of {name!r} was made with ties={run.ties!r} or "
                    "another ground truth; prepare it again."
                )
            prepared_runs[name] = run
        else:
            prepared_runs[name] = RankedRun.from_frame(run, prepared_truth, ties=conventions.ties)
    beyond = None
    if any(value is not None for value in (interactions, item_attributes, catalogue,
                                           beyond_options)):
        beyond = _beyond_inputs(prepared_truth, runs, interactions, item_attributes,
                                catalogue, beyond_options, conventions.ties, int(max_cutoff))
    evaluation = Evaluation(prepared_truth, prepared_runs, relevance, conventions,
                            int(max_cutoff), beyond=beyond)
    evaluation.sources = RawSources(truth, dict(runs))
    return evaluation


@dataclass(frozen=True)
class RawSources:
    """What :func:`evaluate` was given, kept (not copied) so a saved evaluation can hold the
    raw rows of a sample of users."""

    truth: pd.DataFrame | LoadedTable | GroundTruth
    runs: dict[str, pd.DataFrame | LoadedTable | RankedRun]


def _beyond_inputs(
    truth: GroundTruth, runs: Mapping[str, pd.DataFrame | LoadedTable | RankedRun],
    interactions: pd.DataFrame | LoadedTable | None,
    item_attributes: Attributes | pd.DataFrame | None,
    catalogue: str | Iterable[str] | None, options: BeyondOptions | None, ties: str,
    max_cutoff: int,
) -> BeyondInputs:
    """Read the runs' whole lists and the optional inputs (see :func:`prepare_beyond`)."""
    tables = {}
    for name, run in runs.items():
        if isinstance(run, RankedRun):
            raise ValueError(f"The beyond-accuracy metrics read whole lists: give the output "
                             f"of {name!r} as a table, not as a RankedRun.")
        tables[name] = run if isinstance(run, LoadedTable) else run_from_dataframe(
            run, name=name, columns=named_columns(run, "score"))
    if isinstance(interactions, pd.DataFrame):
        interactions = interactions_from_dataframe(interactions, name="interactions")
    return prepare_beyond(truth, tables, interactions=interactions,
                          item_attributes=item_attributes, catalogue=catalogue or "auto",
                          options=options, ties=ties, max_cutoff=min(max_cutoff, BEYOND_WIDTH))


class Evaluation:
    """Metric values of several models at every cutoff 1..max_cutoff.

    Per-user values are computed on demand and kept, up to ``cache_bytes`` (default
    :data:`PER_USER_CACHE_BYTES`); means over users are summed without them or in blocks of
    users, so millions of users fit in memory. One evaluation may serve several threads at
    once: what it keeps is read-only and guarded by a lock, and every table it returns is
    the caller's own copy.

    Values are computed at cutoffs 1..:attr:`width` only: beyond the longest ranked list,
    the most relevant items and the most items with a gain of any user, no ranked item and
    no ideal item is left to change a value, so every metric keeps its value there except
    those divided by K (Precision), which fall as 1/K. Memory follows the data, not
    ``max_cutoff``.
    """

    def __init__(
        self,
        truth: GroundTruth,
        runs: dict[str, RankedRun],
        relevance: RelevanceMapping,
        conventions: Conventions,
        max_cutoff: int,
        *,
        cache_bytes: int | None = None,
        beyond: BeyondInputs | None = None,
    ) -> None:
        self.truth = truth
        self.runs = runs
        self.relevance = relevance
        self.conventions = conventions
        self.max_cutoff = max_cutoff
        self.models = list(runs)
        #: The inputs as given to :func:`evaluate` (None when built directly).
        self.sources: RawSources | None = None
        judged = judge(truth.ratings, relevance, conventions)
        self.truth_grades = _read_only(judged.grades)
        self.truth_relevant = _read_only(judged.relevant)
        self.truth_gains = _read_only(judged.gains)
        self.n_relevant = _read_only(np.bincount(
            truth.user_index[self.truth_relevant], minlength=truth.n_users
        ))
        #: The last cutoff at which a value can change other than by 1/K.
        self.width = min(max_cutoff, max(_last_change(truth.user_index, self.truth_gains,
                                                      self.n_relevant, runs),
                                         beyond.width if beyond else 1))
        #: The beyond-accuracy metrics, when their inputs were given (else None).
        self.beyond = BeyondAccuracy(self, beyond) if beyond else None
        # (model, metric) -> users x cutoffs; (model, metric, cutoff) -> users
        self._per_user_cache = BoundedCache(
            PER_USER_CACHE_BYTES if cache_bytes is None else cache_bytes
        )

    # ----- which users count -------------------------------------------------------------

    def included(self, model: str) -> np.ndarray:
        """Boolean mask over the ground-truth users whose values enter ``model``'s means."""
        run = self._run(model)
        mask = np.ones(self.truth.n_users, dtype=bool)
        if self.conventions.empty_users == "skip":
            mask &= self.n_relevant > 0
        if self.conventions.missing_users == "skip":
            mask &= run.present
        return mask

    def user_counts(self) -> pd.DataFrame:
        """Per model: users averaged, users without relevant items, missing and unknown users."""
        rows = []
        no_relevant = int(np.count_nonzero(self.n_relevant == 0))
        for model in self.models:
            run = self.runs[model]
            rows.append({
                "model": model,
                "users": int(self.included(model).sum()),
                "ground_truth_users": self.truth.n_users,
                "no_relevant_items": no_relevant,
                "no_relevant_items_policy": self.conventions.empty_users,
                "missing_from_model": int(np.count_nonzero(~run.present)),
                "missing_policy": self.conventions.missing_users,
                "unknown_to_ground_truth": run.unknown_users,
            })
        return pd.DataFrame(rows)

    # ----- values ----------------------------------------------------------------------

    def per_user(self, model: str, metric: str) -> pd.DataFrame:
        """Per-user values: one row per counted user, one column per cutoff 1..max_cutoff
        (a single column ``None`` for R-Precision, which has no cutoff)."""
        self._check_metrics([metric])
        if not self._declared(metric).has_cutoff:
            return self._per_user_frame(model, metric, None)
        return self._per_user_frame(model, metric, range(1, self.max_cutoff + 1))

    def per_user_at(self, model: str, metric: str, cutoff: int | None) -> pd.Series:
        """Per-user values of one metric at one cutoff (None for R-Precision).

        Unless :meth:`per_user` has made every cutoff already, only the first ``cutoff``
        ranks are computed (the values at K depend on nothing beyond rank K)."""
        self._check_metrics([metric])
        if not self._declared(metric).has_cutoff or (model, metric) in self._per_user_cache:
            column = (None if not self._declared(metric).has_cutoff
                      else self._check_cutoff(cutoff))
            series = self._per_user_frame(model, metric, None if column is None else [column]
                                          )[column]
            series.name = model
            return series
        cutoff = self._check_cutoff(cutoff)
        computed = min(cutoff, self.width)
        mask = self.included(model)
        values = self._per_user_cache.get_or_compute(
            (model, metric, computed), lambda: self._values_at(model, (metric,), computed)[metric])
        values = self._extend(metric, values, [cutoff], computed_to=computed)[:, 0]
        return pd.Series(values[mask],
                         index=pd.Index(self.truth.users[mask], name="user"), name=model)

    def paired(self, metric: str, cutoff: int | None) -> pd.DataFrame:
        """Users x models values at one cutoff, on the users every model counts (for tests
        of differences, which need the same users for every model)."""
        columns = [self.per_user_at(model, metric, cutoff) for model in self.models]
        users = columns[0].index
        if all(column.index.equals(users) for column in columns[1:]):
            # Every model counts the same users (the usual case): nothing to align.
            return pd.DataFrame({column.name: column.to_numpy() for column in columns},
                                index=users)
        return pd.concat(columns, axis=1, join="inner")

    def paired_tables(self, metrics: Iterable[str], cutoff: int) -> dict[str, pd.DataFrame]:
        """:meth:`paired` of several metrics at one cutoff. Values not computed yet are
        computed for all of them together (see :meth:`_values_at`)."""
        metrics = self._check_metrics(list(metrics))
        cutoff = self._check_cutoff(cutoff)
        computed = min(cutoff, self.width)
        for model in self.models:
            wanted = tuple(metric for metric in metrics
                           if self._declared(metric).has_cutoff
                           and (model, metric) not in self._per_user_cache
                           and (model, metric, computed) not in self._per_user_cache)
            if not wanted:
                continue
            for metric, values in self._values_at(model, wanted, computed).items():
                self._per_user_cache.get_or_compute((model, metric, computed),
                                                    partial(np.asarray, values))
        return {metric: self.paired(metric, cutoff) for metric in metrics}

    def confidence_bands(
        self,
        metrics: Iterable[str],
        *,
        cutoffs: Iterable[int] | None = None,
        n_bootstrap: int = 1_000,
        confidence: float = 0.95,
        seed: int | None = 0,
    ) -> pd.DataFrame:
        """Bootstrap confidence bands of each model's mean over its counted users.

        Each model's per-user values at the given cutoffs (every cutoff when None) go to
        :func:`rankmetrics.stats.confidence_bands`: users are resampled with replacement
        ``n_bootstrap`` times, the same resamples for every cutoff and metric, and the band
        is the percentile interval of the resampled means. ``mean`` equals :meth:`curve`.
        Values are computed in blocks of users and not kept, so memory holds only the
        values resampled (see :func:`band_cutoffs` to bound them). A model that counts no
        user has no band.

        Returns a long table ``model, metric, cutoff, mean, ci_low, ci_high`` (cutoff None
        for R-Precision).
        """
        metrics = self._check_metrics(list(metrics))
        chosen = self._cutoff_list(cutoffs)
        per_series: dict[tuple[str, str], np.ndarray] = {}
        for model in self.models:
            mask = self.included(model)
            if not mask.any():
                continue
            parts: dict[str, list[np.ndarray]] = {metric: [] for metric in metrics}
            for start in range(0, self.truth.n_users, USERS_PER_BLOCK):
                stop = min(start + USERS_PER_BLOCK, self.truth.n_users)
                block = self._block_values(model, metrics, start, stop)
                rows = mask[start:stop]
                for metric in metrics:
                    values = block[metric][rows]
                    if self._declared(metric).has_cutoff:
                        values = self._extend(metric, values, chosen)
                    parts[metric].append(values)
            for metric in metrics:
                per_series[(model, metric)] = np.concatenate(parts[metric])
        return band_table(per_series, chosen, n_bootstrap=n_bootstrap, confidence=confidence,
                          seed=seed, has_cutoff=lambda metric: self._declared(metric).has_cutoff)

    def curve(self, model: str, metric: str) -> np.ndarray:
        """The mean over counted users at every cutoff 1..max_cutoff (length 1 for
        R-Precision)."""
        return self.means((metric,), models=[model])[model][metric]

    def means(
        self, metrics: Iterable[str], models: Iterable[str] | None = None,
        within: np.ndarray | None = None,
    ) -> dict[str, dict[str, np.ndarray]]:
        """Means over counted users: model -> metric -> array over cutoffs 1..max_cutoff.

        The sums over users come from the judged ranked items alone where a metric allows
        it (see :meth:`_sums`), so no users x cutoffs matrix is made for them. ``within``, a
        boolean mask over the ground-truth users, keeps the means to those users (a segment:
        the same means as evaluating those users alone).
        """
        every = range(1, self.max_cutoff + 1)
        return {
            model: {metric: self._extend(metric, values, every)
                    if self._declared(metric).has_cutoff else values
                    for metric, values in by_metric.items()}
            for model, by_metric in self._means(metrics, models, within).items()
        }

    def _means(
        self, metrics: Iterable[str], models: Iterable[str] | None = None,
        within: np.ndarray | None = None,
    ) -> dict[str, dict[str, np.ndarray]]:
        """Means over counted users: model -> metric -> array over cutoffs 1..width."""
        return self.sums(metrics, models, within).means()

    def sums(
        self, metrics: Iterable[str] | None = None, models: Iterable[str] | None = None,
        within: np.ndarray | None = None,
    ) -> UserSums:
        """Sums over counted users (those in ``within`` too, when given) of each metric at
        cutoffs 1..:attr:`width`, with the user counts: what means are divided from, and
        what parts of the users evaluated apart add up to (see :mod:`rankmetrics.partition`)."""
        metrics = self._check_metrics(list(metrics) if metrics is not None else list(METRICS))
        chosen = list(models or self.models)
        counts = {row["model"]: row for row in self.user_counts().to_dict("records")}
        sums, counted = {}, {}
        for model in chosen:
            mask = self.included(model) if within is None else self.included(model) & within
            sums[model] = self._sums(model, metrics, mask)
            counted[model] = {name: int(counts[model][name]) for name in COUNTS}
            counted[model]["users"] = int(mask.sum())
        return UserSums(
            self.width,
            {model: {metric: sums[model][metric] for metric in metrics} for model in chosen},
            counted, {metric: self._declared(metric) for metric in metrics},
        )

    def summary(
        self, metrics: Iterable[str] | None = None, cutoffs: Iterable[int] | None = None
    ) -> pd.DataFrame:
        """Long table ``model, metric, cutoff, value, users``: the mean of each metric at
        each cutoff (every cutoff when ``cutoffs`` is None; R-Precision has no cutoff)."""
        metrics = self._check_metrics(list(metrics) if metrics is not None else list(METRICS))
        return self.sums(metrics).summary(self._cutoff_list(cutoffs))

    def user_block_values(
        self, model: str, metrics: Sequence[str], start: int, stop: int,
        cutoffs: Sequence[int],
    ) -> dict[str, np.ndarray]:
        """Each metric's values of ground-truth users ``start``..``stop - 1`` (ground-truth
        order, every user whether counted or not) at ``cutoffs``: metric -> users x cutoffs.

        For analyses that walk all users a block at a time (tests at every K), so that
        users x cutoffs x metrics is never held for every user at once. One pass of the
        kernel gives every metric, up to the largest cutoff asked for only.
        """
        names = check_metrics(list(metrics))
        check_int("start", start, low=0, high=self.truth.n_users)
        check_int("stop", stop, low=start, high=self.truth.n_users)
        chosen = [self._check_cutoff(cutoff) for cutoff in cutoffs]
        if not chosen or chosen != sorted(set(chosen)):
            raise ValueError(f"The 'cutoffs' argument must be increasing cutoffs, at least one. "
                             f"Got {list(cutoffs)!r} instead.")
        width = min(chosen[-1], self.width)
        values = self._block_values(model, names, start, stop, width=width)
        if chosen == list(range(1, width + 1)):
            return values
        return {metric: self._extend(metric, block, chosen, computed_to=width)
                for metric, block in values.items()}

    def per_user_table(
        self, metrics: Iterable[str] | None = None, cutoffs: Iterable[int] | None = None
    ) -> pd.DataFrame:
        """Long table ``model, user, metric, cutoff, value``."""
        metrics = self._check_metrics(list(metrics) if metrics is not None else list(METRICS))
        chosen = self._cutoff_list(cutoffs)
        parts = []
        for model in self.models:
            for metric in metrics:
                has_cutoff = self._declared(metric).has_cutoff
                if has_cutoff and len(chosen) == 1 and (model, metric) not in self._per_user_cache:
                    # One cutoff: its values alone (the first K ranks), not every cutoff's.
                    frame = self.per_user_at(model, metric, chosen[0]).to_frame()
                else:
                    frame = self._per_user_frame(model, metric, chosen if has_cutoff else None)
                labels: Sequence[int | None] = chosen if has_cutoff else [None]
                parts.append(pd.DataFrame({
                    "model": model,
                    "user": np.repeat(frame.index.to_numpy(), len(labels)),
                    "metric": metric,
                    "cutoff": pd.array(np.tile(np.array(labels, dtype=object), len(frame)),
                                       dtype="Int64"),
                    "value": frame.to_numpy().ravel(),
                }))
        return pd.concat(parts, ignore_index=True)

    def save(
        self,
        path: str | Path,
        *,
        cutoffs: Iterable[int] | None = None,
        chosen_cutoff: int | None = None,
        sample: int = 1_000,
        metrics: Iterable[str] | None = None,
        inputs: Mapping[str, Fingerprint] | None = None,
        user_attributes: str | Path | None = None,
        beyond_inputs: Mapping[str, Fingerprint] | None = None,
    ) -> Path:
        """Write the evaluation as a bundle (a folder, or a zip archive when ``path`` ends in
        ``.zip``) that :func:`rankmetrics.load_bundle` and the dashboard open.

        The bundle holds the means of every metric at every cutoff, per-user values at
        ``cutoffs`` (default 1, 3, 5, 10, 20, 50, 100) and ``chosen_cutoff``, and the raw rows
        of ``sample`` users chosen by a hash of their id (see :mod:`rankmetrics.bundle`).
        ``inputs`` fingerprints the inputs (default: rows and users evaluated of each).
        ``user_attributes`` (a file :func:`rankmetrics.io.read_attributes` reads) is kept in
        the bundle, so the dashboard's segments split its users by them.

        With beyond-accuracy inputs (:attr:`beyond`), the bundle also holds every
        beyond-accuracy metric at every cutoff, the per-user ones at ``cutoffs``, the
        popularity deciles, and the options used (:mod:`rankmetrics.bundle.beyond`);
        ``beyond_inputs`` fingerprints those inputs (default: their rows and users).
        """
        from rankmetrics.bundle import save_evaluation

        return save_evaluation(self, path, cutoffs=cutoffs, chosen_cutoff=chosen_cutoff,
                               sample=sample, metrics=metrics, inputs=inputs,
                               user_attributes=user_attributes, beyond_inputs=beyond_inputs)

    def raw_rows(self, users: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The ground-truth rows (user, item, rating) and every model's rows (model, user,
        item, score) of ``users``, from the inputs :func:`evaluate` was given."""
        wanted = pd.Index(list(users), dtype="str")
        truth = _rows_of(self.sources.truth if self.sources else self.truth, wanted, "truth")
        runs = []
        for model in self.models:
            source = self.sources.runs[model] if self.sources else self.runs[model]
            runs.append(_rows_of(source, wanted, model).assign(model=model))
        run_rows = pd.concat(runs, ignore_index=True)
        return truth, run_rows[["model", "user", "item", "score"]]

    # ----- internals -------------------------------------------------------------------

    def _declared(self, metric: str) -> Metric | BeyondMetric:
        """The declaration of an accuracy metric or of an offered per-user beyond-accuracy
        metric."""
        return METRICS[metric] if metric in METRICS else BEYOND_METRICS[metric]

    def _check_metrics(self, names: list[str] | tuple[str, ...]) -> tuple[str, ...]:
        """Metric names, checked: the accuracy metrics and the per-user beyond-accuracy
        metrics the inputs allow."""
        offered = self.beyond.per_user_metrics if self.beyond else ()
        accuracy = [name for name in names if name not in offered]
        if accuracy or not names:
            check_metrics(accuracy)  # an unknown name is a ValueError listing the metrics
        return tuple(dict.fromkeys(names))

    def _run(self, model: str) -> RankedRun:
        if model not in self.runs:
            raise ValueError(f"Unknown model {model!r}: the models are {', '.join(self.models)}.")
        return self.runs[model]

    def _per_user_frame(
        self, model: str, metric: str, cutoffs: Sequence[int] | None
    ) -> pd.DataFrame:
        """Per-user values of the counted users at the given cutoffs (None: the one column
        of a metric without a cutoff), from the values kept at cutoffs 1..width."""
        mask = self.included(model)
        values = self._per_user_cache.get_or_compute(
            (model, metric),
            lambda: self._block_values(model, (metric,), 0, self.truth.n_users)[metric],
        )[mask]
        if cutoffs is None:
            columns = pd.Index([None], name="cutoff")
        else:
            values = self._extend(metric, values, cutoffs)
            columns = pd.Index(np.asarray(cutoffs, dtype=np.int64), name="cutoff")
        users = pd.Index(self.truth.users[mask], name="user")
        return pd.DataFrame(values, index=users, columns=columns)

    def _extend(
        self, metric: str, values: np.ndarray, cutoffs: Iterable[int],
        computed_to: int | None = None,
    ) -> np.ndarray:
        """Values at the given cutoffs from values at cutoffs 1..``computed_to`` (default
        width) on the last axis (see :func:`rankmetrics.sums.extend_values`)."""
        return extend_values(values, cutoffs, self.width if computed_to is None else computed_to,
                             divided_by_cutoff=self._declared(metric).divided_by_cutoff)

    def _check_cutoff(self, cutoff: object) -> int:
        return check_int("cutoff", cutoff, high=self.max_cutoff)

    def _cutoff_list(self, cutoffs: Iterable[int] | None) -> list[int]:
        if cutoffs is None:
            return list(range(1, self.max_cutoff + 1))
        return sorted({self._check_cutoff(cutoff) for cutoff in cutoffs})

    def _sums(
        self, model: str, metrics: tuple[str, ...], mask: np.ndarray
    ) -> dict[str, np.ndarray]:
        """Sums over the users in ``mask`` of each metric at every cutoff.

        A metric with a summed form (see :class:`~rankmetrics.metrics.Metric`) is summed
        from the judged ranked items alone; the others (and a summed form
        that does not apply under the conventions) from per-user values, a block of users at
        a time.
        """
        run = self._run(model)
        items = JudgedItems(
            run.judged_user, run.judged_rank, run.judged_row, mask, self.truth_relevant,
            self.truth_gains, self.n_relevant, self.width, lambda: self._ideal_lists,
        )
        sums: dict[str, np.ndarray] = {}
        for metric in metrics:
            summed = self._declared(metric).summed
            total = None if summed is None else summed(items, self.conventions)
            if total is None and self.beyond is not None and metric not in METRICS:
                total = self.beyond.summed(model, metric, mask, self.width)
            if total is not None:
                sums[metric] = total
        rest = tuple(metric for metric in metrics if metric not in sums)
        if rest:
            sums.update(self._block_sums(model, rest, mask))
        return sums

    @cached_property
    def _ideal(self) -> _LevelCounts | _TopGains:
        """Each user's ground-truth gains, highest first, at ranks 1..width: read by NDCG with
        the ground-truth ideal only, so made when first asked for (a relevance or convention
        change under the retrieved ideal never makes them)."""
        return _top_gains_by_user(self.truth.user_index, self.truth_gains, self.width,
                                  self.truth.n_users)

    @cached_property
    def _ideal_lists(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(each user's ideal list number, ideal gains of each list (lists x width)),
        the top width of each user's ground-truth gains, highest first; None when the
        gains take too many distinct values or the lists are too many to be worth it."""
        if not isinstance(self._ideal, _LevelCounts):
            return None
        return self._ideal.distinct_lists(max(1, MAX_IDEAL_CELLS // self.width))

    def _block_sums(
        self, model: str, metrics: tuple[str, ...], mask: np.ndarray
    ) -> dict[str, np.ndarray]:
        """Sums over the users in ``mask`` of each metric at every cutoff, computed a block
        of users at a time."""
        sums: dict[str, np.ndarray] = {}
        with one_blas_thread():  # small products: threads would only wait for each other
            for start in range(0, self.truth.n_users, USERS_PER_BLOCK):
                stop = min(start + USERS_PER_BLOCK, self.truth.n_users)
                weights = mask[start:stop].astype(np.float64)
                block = self._block_values(model, metrics, start, stop)
                for metric in metrics:
                    part = weights @ block[metric]
                    sums[metric] = sums[metric] + part if metric in sums else part
        return sums

    def _values_at(self, model: str, metrics: tuple[str, ...],
                   cutoff: int) -> dict[str, np.ndarray]:
        """Every ground-truth user's values of ``metrics`` at ``cutoff`` (at most
        :attr:`width`): metric -> users x 1.

        A metric that declares ``at_cutoff`` reads the judged items within the cutoff (no
        users x K matrix; the same values as the per-user kernels); the others come from the
        kernels in one pass over each block of users, all of them together."""
        run = self._run(model)
        items = JudgedItems(
            run.judged_user, run.judged_rank, run.judged_row,
            np.ones(self.truth.n_users, dtype=bool), self.truth_relevant, self.truth_gains,
            self.n_relevant, cutoff, lambda: self._ideal_lists,
        )
        found: dict[str, np.ndarray] = {}
        for metric in metrics:
            at_cutoff = METRICS[metric].at_cutoff if metric in METRICS else None
            values = None if at_cutoff is None else at_cutoff(items, self.conventions)
            if values is not None:
                found[metric] = values[:, None]
        rest = tuple(metric for metric in metrics if metric not in found)
        if rest:
            found.update({metric: np.empty((self.truth.n_users, 1)) for metric in rest})
            for start in range(0, self.truth.n_users, USERS_PER_BLOCK):  # bounded memory
                stop = min(start + USERS_PER_BLOCK, self.truth.n_users)
                block = self._block_values(model, rest, start, stop, width=cutoff)
                for metric in rest:
                    found[metric][start:stop] = block[metric][:, -1:]
        return {metric: found[metric] for metric in metrics}

    def _block_values(
        self, model: str, metrics: tuple[str, ...], start: int, stop: int,
        width: int | None = None,
    ) -> dict[str, np.ndarray]:
        """Metric values of users start..stop-1 (ground-truth order) at cutoffs
        1..``width`` (default :attr:`width`)."""
        run = self._run(model)
        lo, hi = np.searchsorted(run.judged_user, [start, stop])
        rows = run.judged_row[lo:hi]
        block = UserBlock(
            run.judged_user[lo:hi] - start, run.judged_rank[lo:hi], self.truth_relevant[rows],
            self.truth_gains[rows], self.n_relevant[start:stop], width or self.width,
            lambda: self._ideal.block(start, stop, width or self.width),
        )
        return {metric: METRICS[metric].per_user(block, self.conventions) if metric in METRICS
                else self.beyond.per_user(model, metric, start, stop,  # type: ignore[union-attr]
                                          width or self.width) for metric in metrics}


def _loaded_rows(source: LoadedTable, users: pd.Index) -> pd.DataFrame:
    """The rows of ``users`` in a read table, from its id codes (the whole table is not
    built: a model's output of 100 million rows would take gigabytes as pandas)."""
    user_ids, item_ids, source = (truth_codes(source) if source.kind == "truth"
                                  else run_codes(source))
    wanted = np.flatnonzero(pd.Index(user_ids.values.to_pandas()).isin(users))
    rows = np.flatnonzero(np.isin(user_ids.codes, wanted))
    items = (item_ids.rows(rows) if isinstance(item_ids, HashedIds)
             else item_ids.values.take(pa.array(item_ids.codes[rows])))
    return pd.DataFrame({
        "user": user_ids.values.take(pa.array(user_ids.codes[rows])).to_pandas(),
        "item": items.to_pandas(),
        "rating" if source.kind == "truth" else "score": source.numbers()[rows],
    })


def band_table(per_series: Mapping[tuple[str, str], np.ndarray], cutoffs: Sequence[int], *,
               n_bootstrap: int, confidence: float, seed: int | None,
               has_cutoff: Callable[[str], bool] = lambda metric: METRICS[metric].has_cutoff,
               ) -> pd.DataFrame:
    """:func:`rankmetrics.stats.confidence_bands` of each (model, metric)'s per-user values
    (users x cutoffs, one column for a metric without a cutoff) as the long table
    ``model, metric, cutoff, mean, ci_low, ci_high``."""
    from rankmetrics.stats import confidence_bands

    if not per_series:
        return pd.DataFrame(columns=["model", "metric", "cutoff", "mean", "ci_low", "ci_high"])
    bands = confidence_bands(per_series, n_bootstrap=n_bootstrap, confidence=confidence,
                             seed=seed)
    series = bands.pop("model")
    labels = {metric: list(cutoffs) if has_cutoff(metric) else [None]
              for _, metric in per_series}
    bands.insert(0, "model", [model for model, _ in series])
    bands.insert(1, "metric", [metric for _, metric in series])
    bands["cutoff"] = pd.array(
        [labels[metric][position] for (_, metric), position
         in zip(series, bands["cutoff"], strict=True)], dtype="Int64")
    return bands


def _rows_of(source: pd.DataFrame | LoadedTable | GroundTruth | RankedRun, users: pd.Index,
             name: str) -> pd.DataFrame:
    """The rows of ``users`` in one input, as the canonical columns io reads (user, item and
    rating or score)."""
    if isinstance(source, GroundTruth):
        table = pd.DataFrame({"user": source.users[source.user_index],
                              "item": source.items[source.item_index],
                              "rating": source.ratings})
    elif isinstance(source, RankedRun):
        raise ValueError(f"The raw rows of {name!r} are not kept in a prepared RankedRun: "
                         "evaluate the DataFrame or the read file to save a sample of it.")
    elif isinstance(source, LoadedTable):
        return _loaded_rows(source, users)
    elif name == "truth":
        table = truth_from_dataframe(source, name="ground truth",
                                     columns=named_columns(source, "rating")).table
    else:
        table = run_from_dataframe(source, name=name, columns=named_columns(source, "score")
                                   ).table
    return table.loc[table["user"].isin(users)].reset_index(drop=True)


def band_cutoffs(
    max_cutoff: int,
    *,
    n_values_per_cutoff: int,
    keep: Iterable[int] = (),
    max_values: int = BAND_VALUES,
) -> list[int]:
    """The cutoffs to compute confidence bands at: every K = 1..max_cutoff when their
    per-user values fit in ``max_values``, otherwise evenly spaced cutoffs, at most as many
    as fit (a step above 5 is rounded up to a multiple of 5), plus 1, ``max_cutoff`` and the
    cutoffs in ``keep``.

    ``n_values_per_cutoff`` is the values one cutoff brings: users x models x metrics.

    >>> band_cutoffs(10, n_values_per_cutoff=100)
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    >>> band_cutoffs(50, n_values_per_cutoff=100, keep=[12], max_values=500)
    [1, 12, 15, 30, 45, 50]
    """
    check_int("max_cutoff", max_cutoff)
    fits = max(2, max_values // max(1, n_values_per_cutoff))
    if fits >= max_cutoff:
        return list(range(1, max_cutoff + 1))
    step = -(-max_cutoff // (fits - 1))
    if step > 5:
        step = -(-step // 5) * 5  # multiples of 5 read better on an axis
    kept = [int(k) for k in keep if 1 <= k <= max_cutoff]
    return sorted({1, *range(step, max_cutoff, step), max_cutoff, *kept})


#: Most distinct gain levels for which :class:`_LevelCounts` holds the ideal lists.
MAX_LEVELS = 16


#: Most (distinct ideal lists x max_cutoff) values for which NDCG means are summed per
#: ideal list rather than per user.
MAX_IDEAL_CELLS = 2**22


class _LevelCounts:
    """Each user's ground-truth gains sorted descending, held as the number of items at each
    gain level (few distinct gains, the usual case): user u's ideal list is ``counts[u, 0]``
    items of the highest level, then ``counts[u, 1]`` of the next, and so on."""

    def __init__(self, counts: np.ndarray, levels: np.ndarray, max_cutoff: int):
        self.ends = np.cumsum(counts, axis=1)  # where each level's run ends, per user
        self.levels = np.concatenate([levels, [0.0]])  # highest first, then "no more gains"
        self.max_cutoff = max_cutoff

    def block(self, start: int, stop: int, width: int) -> np.ndarray:
        """The ideal gains of users start..stop-1 at ranks 1..width."""
        return self._gains(self.ends[start:stop], width)

    def _gains(self, ends: np.ndarray, width: int) -> np.ndarray:
        positions = np.arange(width)
        level = np.zeros((len(ends), width), dtype=np.intp)
        for end in ends.T:
            level += positions >= end[:, None]
        return self.levels[level]

    def distinct_lists(self, most: int) -> tuple[np.ndarray, np.ndarray] | None:
        """(each user's list number, the ideal gains of each distinct list) for the top
        max_cutoff ranks; None when there are more than ``most`` distinct lists.

        Two users have the same top list when their level ends, capped at max_cutoff, are
        equal; the capped ends are packed into one integer per user to find the lists."""
        capped = np.minimum(self.ends, self.max_cutoff)
        bits = _bits_for(self.max_cutoff + 1)
        if capped.shape[1] * bits > 63:
            return None
        key = np.zeros(len(capped), dtype=np.int64)
        for column in capped.T:
            key <<= bits
            key |= column
        list_of_user, keys = pd.factorize(key)
        if len(keys) > most:
            return None
        list_ends = np.empty((len(keys), capped.shape[1]), dtype=np.int64)
        for level in range(capped.shape[1] - 1, -1, -1):
            list_ends[:, level] = keys & ((1 << bits) - 1)
            keys >>= bits
        return list_of_user.astype(np.int64), self._gains(list_ends, self.max_cutoff)


class _TopGains:
    """Each user's ground-truth gains sorted descending, the first ``max_cutoff`` of them,
    stored sparsely (user, rank, gain) sorted by user (for many distinct gains)."""

    def __init__(self, user: np.ndarray, rank: np.ndarray, gain: np.ndarray, max_cutoff: int):
        self.user, self.rank, self.gain = user, rank, gain
        self.max_cutoff = max_cutoff

    def block(self, start: int, stop: int, width: int) -> np.ndarray:
        """The ideal gains of users start..stop-1 at ranks 1..width."""
        lo, hi = np.searchsorted(self.user, [start, stop])
        user, rank, gain = self.user[lo:hi], self.rank[lo:hi], self.gain[lo:hi]
        within = rank < width
        dense = np.zeros((stop - start, width), dtype=np.float64)
        dense[user[within] - start, rank[within]] = gain[within]
        return dense


def _top_gains_by_user(
    user_index: np.ndarray, gains: np.ndarray, max_cutoff: int, n_users: int
) -> _LevelCounts | _TopGains:
    """Each user's positive ground-truth gains, highest first, cut at ``max_cutoff``.

    With at most :data:`MAX_LEVELS` distinct gains, they are counted per user and level
    (one pass, a block of rows at a time); otherwise (user, gain level) is packed into one
    integer, highest level first within a user, and sorted with a plain sort (much faster
    than a lexsort).
    """
    positive = gains > 0
    levels = np.sort(pd.unique(gains[positive]))[::-1]  # hashing, not sorting every gain
    n_levels = len(levels)
    if n_levels <= MAX_LEVELS:
        counts = np.zeros(n_users * n_levels, dtype=np.int64)
        for start in range(0, len(gains), ROWS_PER_BLOCK):
            rows = slice(start, start + ROWS_PER_BLOCK)
            counts += np.bincount(_packed_levels(user_index[rows], gains[rows],
                                                 positive[rows], levels),
                                  minlength=n_users * n_levels)
        return _LevelCounts(counts.reshape(n_users, n_levels), levels, max_cutoff)
    packed = _packed_levels(user_index, gains, positive, levels)
    packed.sort()
    users = packed // n_levels
    values = levels[packed % n_levels]
    new_user = np.flatnonzero(np.diff(users, prepend=-1) != 0)
    starts = np.zeros(len(users), dtype=np.int64)
    starts[new_user] = new_user
    rank = np.arange(len(users)) - np.maximum.accumulate(starts)
    keep = rank < max_cutoff
    return _TopGains(users[keep], rank[keep], values[keep], max_cutoff)


#: Ground-truth rows whose gains are counted at a time (bounds the temporaries).
ROWS_PER_BLOCK = 1 << 18


def _packed_levels(user_index: np.ndarray, gains: np.ndarray, positive: np.ndarray,
                   levels: np.ndarray) -> np.ndarray:
    """user * len(levels) + level of each positive gain (level 0 the highest of ``levels``,
    which are distinct and descending), as int64."""
    n_levels = len(levels)
    # Each gain's level, 0 for the highest.
    level_of_row = n_levels - 1 - np.searchsorted(levels[::-1], gains[positive])
    packed = user_index[positive].astype(np.int64)
    packed *= n_levels
    packed += level_of_row
    return packed


def _last_change(
    user_index: np.ndarray, gains: np.ndarray, n_relevant: np.ndarray,
    runs: Mapping[str, RankedRun],
) -> int:
    """The last cutoff at which a value can change other than by 1/K: the longest judged
    part of a ranked list (items past it have no judgment, so change nothing), the most
    relevant items (AP's min(K, |R|)) and the most items with a gain (the ideal list) of
    any user."""
    longest = max((int(run.judged_rank.max(initial=-1)) + 1 for run in runs.values()),
                  default=0)
    most_gains = int(np.bincount(user_index[gains > 0]).max(initial=0))
    return max(1, longest, int(n_relevant.max(initial=0)), most_gains)


def _bits_for(count: int) -> int:
    """Bits needed to hold the numbers 0 .. count - 1 (at least 1)."""
    return max(int(count - 1).bit_length(), 1)


def _read_only(array: np.ndarray) -> np.ndarray:
    """The array, made read-only (an evaluation is shared between threads and callers)."""
    array.flags.writeable = False
    return array
