"""The evaluation of several models against one ground truth, at every cutoff at once.

:class:`Evaluation` holds the prepared ground truth and each model's ranked run, and computes
means and per-user values on demand: means are summed from the judged ranked items where a
metric has a summed form, per-user values a block of users at a time, so millions of users fit
in memory. :func:`rankmetrics.evaluate` builds one from tables or files.

The module is longer than the library's others because it is one class: its means, per-user
values, blocks of users and bands share one cache, one width and one set of kernels.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cached_property, partial
from pathlib import Path

import numpy as np
import pandas as pd

from rankmetrics.beyond import BeyondInputs
from rankmetrics.bundle import per_user_column
from rankmetrics.cache import BoundedCache
from rankmetrics.checks import check_int
from rankmetrics.conventions import Conventions
from rankmetrics.evaluation._bands import band_table
from rankmetrics.evaluation._beyond import BeyondAccuracy
from rankmetrics.evaluation._ideal import (
    MAX_IDEAL_CELLS,
    LevelCounts,
    TopGains,
    top_gains_by_user,
)
from rankmetrics.evaluation._raw_rows import RawSources, rows_of
from rankmetrics.evaluation._save import save_evaluation
from rankmetrics.evaluation._shared import SharedMethods
from rankmetrics.evaluation._sums import COUNTS, UserSums, extend_values
from rankmetrics.evaluation._top_lists import TopLists
from rankmetrics.io import LoadedTable, run_from_dataframe
from rankmetrics.metrics import (
    ALL_METRICS,
    METRICS,
    JudgedItems,
    Metric,
    UserBlock,
    check_metrics,
    judge,
)
from rankmetrics.prepared.ground_truth import GroundTruth, named_columns
from rankmetrics.prepared.ranked_run import RankedRun, has_own_items
from rankmetrics.relevance import RelevanceMapping
from rankmetrics.results import Fingerprint, ListsAtHand, PairedBlock
from rankmetrics.runtime import one_blas_thread

#: Each ground-truth row's grade, relevance and gain, each user's relevant items, whether
#: each row is a judgment, and each user's judged items.
JudgedTruth = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]

USERS_PER_BLOCK = 16_384
#: Users per block of :meth:`Evaluation.paired_blocks` (every model and metric at every
#: cutoff of a block are held at once: 4,096 users x 100 cutoffs x 6 metrics x 4 models are
#: 79 MiB).
USERS_PER_PASS = 4_096
#: Most bytes of per-user values an :class:`Evaluation` keeps (the least recently used go
#: first); 256 MiB hold three models x six metrics at one cutoff for a million users.
PER_USER_CACHE_BYTES = 2**28


class Evaluation(SharedMethods):
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
        _gains_of: Evaluation | None = None,
    ) -> None:
        self.truth = truth
        self.runs = runs
        self.relevance = relevance
        self.conventions = conventions
        self.max_cutoff = max_cutoff
        self.models = list(runs)
        #: The inputs as given to :func:`evaluate` (None when built directly).
        self.sources: RawSources | None = None
        # The evaluation of the same ground truth and relevance this one was derived from
        # (with_conventions), which keeps the judgments and ideal lists of each gain rule for
        # all of them: they are computed once, not again for each set of conventions.
        self._root = (_gains_of if _gains_of is not None and _gains_of.truth is truth
                      and _gains_of.relevance == relevance else None)
        self._judgments: dict[tuple[str, bool], JudgedTruth] = {}
        self._ideals: dict[tuple[str, bool, int], LevelCounts | TopGains] = {}
        self._gain_rule = (conventions.gain, conventions.threshold_gains)
        owner = self._root or self
        judged_truth = owner._judgments.get(self._gain_rule)
        if judged_truth is None:
            judged_truth = owner._judgments.setdefault(
                self._gain_rule, _judged_truth(truth, relevance, conventions))
        self._judged_truth: JudgedTruth = judged_truth
        #: truth_judged: whether each ground-truth row is a judgment (a rating, and a grade
        #: of 0 or more; trec_eval's -1 is none); n_judged: each user's judged items, relevant
        #: or not (bpref's R and N together).
        self.truth_grades: np.ndarray
        self.truth_relevant: np.ndarray
        self.truth_gains: np.ndarray
        self.n_relevant: np.ndarray
        self.truth_judged: np.ndarray
        self.n_judged: np.ndarray
        (self.truth_grades, self.truth_relevant, self.truth_gains, self.n_relevant,
         self.truth_judged, self.n_judged) = self._judged_truth
        #: The grade ERR divides by: the conventions' g_max, or the mapping's highest grade.
        self.max_grade = (float(conventions.max_grade) if conventions.max_grade
                          is not None else relevance.highest_grade(self.truth_grades))
        #: The last cutoff at which a value can change other than by 1/K. Precision over
        #: min(K, the list's length) does not fall as 1/K past the longest list, so it is
        #: computed at every cutoff.
        self.width = max_cutoff if conventions.precision_denominator == "list_length" else min(
            max_cutoff, max(last_change(truth.user_index, self.truth_gains, self.n_relevant,
                                        runs), beyond.width if beyond else 1))
        # (gain rule, width, a model's ranked run) -> its users' relevant items, ideal lists
        # and judged items counted in its list only (kept by the root, shared)
        self._in_list: dict[tuple[str, bool, int, int],
                            tuple[np.ndarray, LevelCounts | TopGains, np.ndarray, RankedRun]] = {}
        #: What the beyond-accuracy metrics read, when their inputs were given (else None).
        self.beyond_inputs = beyond
        #: The beyond-accuracy metrics, when their inputs were given (else None).
        self.beyond: BeyondAccuracy | None = BeyondAccuracy(self, beyond) if beyond else None
        # (model, metric) -> users x cutoffs; (model, metric, cutoff) -> users
        self._per_user_cache = BoundedCache(
            PER_USER_CACHE_BYTES if cache_bytes is None else cache_bytes
        )
        self._top_lists = TopLists(beyond) if beyond else None

    # ----- what it is --------------------------------------------------------------------

    @property
    def users(self) -> pd.Index:
        """The ground-truth users, in the order of every mask over users."""
        return self.truth.users

    @property
    def per_user_cutoffs(self) -> range:
        """Every cutoff 1..max_cutoff: per-user values are computed at any of them."""
        return range(1, self.max_cutoff + 1)

    @property
    def saved_from(self) -> None:
        """None: computed here, not read back from a bundle."""
        return None

    def ground_truth_sizes(self) -> np.ndarray:
        """The items in each user's ground truth."""
        return np.bincount(self.truth.user_index, minlength=self.truth.n_users)

    def lists_at_hand(self) -> ListsAtHand:
        """Every user's lists are at hand (the runs' scores are not kept: give them to what
        reads ties)."""
        return ListsAtHand(self, None, None)

    def on_ground_truth(self, truth: GroundTruth) -> Evaluation:
        """The same ranked runs, relevance and conventions evaluated on another ground truth
        of the same users and items (the ratings changed: the long tail's accuracy)."""
        return Evaluation(truth, self.runs, self.relevance, self.conventions, self.max_cutoff)

    def with_relevance(self, relevance: RelevanceMapping) -> Evaluation:
        """The same models and conventions under another relevance mapping (nothing is
        ranked again)."""
        if relevance == self.relevance:
            return self
        return Evaluation(self.truth, self.runs, relevance, self.conventions, self.max_cutoff)

    def with_conventions(self, conventions: Conventions,
                         tables: Mapping[str, pd.DataFrame | LoadedTable] | None = None
                         ) -> Evaluation:
        """The same ranked lists and relevance under other conventions (nothing is read or
        ranked again). The lists were ranked with this evaluation's tie rule: other
        conventions must keep it (evaluate the files again for another). Conventions that
        keep or drop other items (``identical_ids``) rank the lists again, from ``tables``
        (each model's output as given to :func:`evaluate`) or from what this evaluation was
        given; only the models that hold such an item are ranked again."""
        if conventions == self.conventions:
            return self
        if conventions.ties != self.conventions.ties:
            raise ValueError(f"The lists were ranked with ties={self.conventions.ties!r}; "
                             f"conventions with ties={conventions.ties!r} need the models' "
                             "files evaluated again.")
        runs = (self._ranked_again(conventions, tables)
                if conventions.identical_ids != self.conventions.identical_ids else self.runs)
        other = Evaluation(self.truth, runs, self.relevance, conventions, self.max_cutoff,
                           _gains_of=self._root or self)
        other.sources = self.sources
        return other

    def with_lists(self, runs: dict[str, RankedRun]) -> Evaluation:
        """Other ranked lists of the same users under the same relevance and conventions
        (lists reordered, say): the ground truth's grades, gains and ideal lists are this
        evaluation's, shared, not made again."""
        return Evaluation(self.truth, runs, self.relevance, self.conventions, self.max_cutoff,
                          _gains_of=self._root or self)

    def can_rank_again(self, tables: Mapping[str, object] | None = None) -> bool:
        """Whether :meth:`with_conventions` can keep or drop other items: every model's
        output is at hand as a table (in ``tables`` or among what :func:`evaluate` was
        given)."""
        given = tables if tables is not None else (
            self.sources.runs if self.sources is not None else {})
        return all(isinstance(given.get(model), (pd.DataFrame, LoadedTable))
                   for model in self.models)

    def _ranked_again(self, conventions: Conventions,
                      tables: Mapping[str, pd.DataFrame | LoadedTable] | None
                      ) -> dict[str, RankedRun]:
        if not self.can_rank_again(tables):
            raise ValueError(
                f"The lists were ranked with identical_ids={self.conventions.identical_ids!r} "
                "from prepared lists; conventions with "
                f"identical_ids={conventions.identical_ids!r} need the models' files "
                "evaluated again.")
        given = tables if tables is not None else self.sources.runs  # type: ignore[union-attr]
        runs = {}
        for model in self.models:
            table = given[model]
            if isinstance(table, LoadedTable):
                loaded = table
            elif isinstance(table, pd.DataFrame):
                loaded = run_from_dataframe(table, name=model,
                                            columns=named_columns(table, "score"))
            else:  # (can_rank_again has checked every model; this names a bad table anyway)
                raise ValueError(f"The output of {model!r} to rank again must be a DataFrame "
                                 f"or a read run; got {type(table).__name__}.")
            runs[model] = (RankedRun.from_loaded(loaded, self.truth, ties=conventions.ties,
                                                 identical_ids=conventions.identical_ids)
                           if has_own_items(loaded)
                           else dataclasses.replace(self.runs[model],
                                                    identical_ids=conventions.identical_ids))
        return runs

    # ----- which users count -------------------------------------------------------------

    def included(self, model: str) -> np.ndarray:
        """Boolean mask over the ground-truth users whose values enter ``model``'s means."""
        run = self._run(model)
        mask = np.ones(self.truth.n_users, dtype=bool)
        if self.conventions.empty_users == "skip":
            mask &= self.relevant_of(model) > 0
        if self.conventions.missing_users == "skip":
            mask &= run.present
        return mask

    def user_counts(self) -> pd.DataFrame:
        """Per model: users averaged, users without relevant items, missing and unknown users."""
        rows = []
        for model in self.models:
            run = self.runs[model]
            no_relevant = int(np.count_nonzero(self.relevant_of(model) == 0))
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
                      else self.check_cutoff(cutoff))
            series = self._per_user_frame(model, metric, None if column is None else [column]
                                          )[column]
            series.name = model
            return series
        cutoff = self.check_cutoff(cutoff)
        computed = min(cutoff, self.width)
        mask = self.included(model)
        values = self._per_user_cache.get_or_compute(
            (model, metric, computed), lambda: self._values_at(model, (metric,), computed)[metric])
        values = self._extend(metric, values, [cutoff], computed_to=computed)[:, 0]
        return pd.Series(values[mask],
                         index=pd.Index(self.truth.users[mask], name="user"), name=model)

    def paired_tables(self, metrics: Iterable[str], cutoff: int) -> dict[str, pd.DataFrame]:
        """:meth:`paired` of several metrics at one cutoff. Values not computed yet are
        computed for all of them together (see :meth:`_values_at`)."""
        metrics = self._check_metrics(list(metrics))
        cutoff = self.check_cutoff(cutoff)
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
        chosen = self.cutoff_list(cutoffs)
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
        sums, counted, valued = {}, {}, {}
        for model in chosen:
            mask = self.included(model) if within is None else self.included(model) & within
            sums[model], with_values = self._sums(model, metrics, mask)
            if with_values:
                valued[model] = with_values
            counted[model] = {name: int(counts[model][name]) for name in COUNTS}
            counted[model]["users"] = int(mask.sum())
        return UserSums(
            self.width,
            {model: {metric: sums[model][metric] for metric in metrics} for model in chosen},
            counted, {metric: self._declared(metric) for metric in metrics}, valued,
        )

    def summary(
        self, metrics: Iterable[str] | None = None, cutoffs: Iterable[int] | None = None
    ) -> pd.DataFrame:
        """Long table ``model, metric, cutoff, value, users``: the mean of each metric at
        each cutoff (every cutoff when ``cutoffs`` is None; R-Precision has no cutoff)."""
        metrics = self._check_metrics(list(metrics) if metrics is not None else list(METRICS))
        return self.sums(metrics).summary(self.cutoff_list(cutoffs))

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
        names = self._check_metrics(list(metrics))
        check_int("start", start, low=0, high=self.truth.n_users)
        check_int("stop", stop, low=start, high=self.truth.n_users)
        chosen = [self.check_cutoff(cutoff) for cutoff in cutoffs]
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
        chosen = self.cutoff_list(cutoffs)
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
        table = pd.concat(parts, ignore_index=True)
        valued = table["value"].notna()  # none where a user has no value (no item seen)
        return table if valued.all() else table[valued].reset_index(drop=True)

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
        return save_evaluation(self, path, cutoffs=cutoffs, chosen_cutoff=chosen_cutoff,
                               sample=sample, metrics=metrics, inputs=inputs,
                               user_attributes=user_attributes, beyond_inputs=beyond_inputs)

    def paired_blocks(self, metrics: Sequence[str], cutoffs: Sequence[int],
                      models: Sequence[str] | None = None) -> Iterator[PairedBlock]:
        """(metric -> model -> users x cutoffs values) for each block of the users every model
        counts, in ground-truth order (of ``models``, default every model).

        Each model's metrics come from one call of the block kernel
        (:meth:`user_block_values`), so they share what they have in common (hits, DCG); the
        kernel runs only as far as the largest cutoff asked for."""
        mask = self.paired_mask()
        for start in range(0, self.truth.n_users, USERS_PER_PASS):
            stop = min(start + USERS_PER_PASS, self.truth.n_users)
            rows = mask[start:stop]
            if not rows.any():
                continue
            block: PairedBlock = {metric: {} for metric in metrics}
            for model in models or self.models:
                values = self.user_block_values(model, metrics, start, stop, cutoffs)
                for metric in metrics:
                    block[metric][model] = values[metric][rows]
            yield block

    def saved_per_user(self, metrics: Sequence[str], cutoffs: Sequence[int]) -> pd.DataFrame:
        """The per-user values a bundle holds: one row per model and counted user, the user's
        relevant items (``relevant``), then one column per metric (accuracy or per-user beyond
        accuracy) and cutoff (``ndcg@10``; ``r_precision``: see
        :func:`rankmetrics.bundle.per_user_column`)."""
        parts = []
        for model in self.models:
            columns: dict[str, np.ndarray] = {}
            users = None
            for metric in metrics:
                has_cutoff = self._declared(metric).has_cutoff
                labels: Sequence[int | None] = cutoffs if has_cutoff else [None]
                frame = self._per_user_frame(model, metric, cutoffs if has_cutoff else None)
                users = frame.index
                for cutoff, values in zip(labels, frame.to_numpy().T, strict=True):
                    columns[per_user_column(metric, cutoff)] = values
            user_ids = np.asarray(users if users is not None else [], dtype=object)
            relevant = self.relevant_of(model)[self.included(model)].astype(np.int64)
            parts.append(pd.DataFrame({"model": model, "user": pd.array(user_ids, dtype="str"),
                                       "relevant": relevant, **columns}))
        return pd.concat(parts, ignore_index=True)

    def raw_rows(self, users: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The ground-truth rows (user, item, rating) and every model's rows (model, user,
        item, score) of ``users``, from the inputs :func:`evaluate` was given."""
        wanted = pd.Index(list(users), dtype="str")
        truth = rows_of(self.sources.truth if self.sources else self.truth, wanted, "truth")
        runs = []
        for model in self.models:
            source = self.sources.runs[model] if self.sources else self.runs[model]
            runs.append(rows_of(source, wanted, model).assign(model=model))
        run_rows = pd.concat(runs, ignore_index=True)
        return truth, run_rows[["model", "user", "item", "score"]]

    # ----- internals -------------------------------------------------------------------

    def _declared(self, metric: str) -> Metric:
        return ALL_METRICS[metric]

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

    def _sums(
        self, model: str, metrics: tuple[str, ...], mask: np.ndarray
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Sums over the users in ``mask`` of each metric at every cutoff, and, for a metric
        some of whose users have no value (NaN) at some cutoff, the users with a value at
        each cutoff.

        A metric with a summed form (see :class:`~rankmetrics.metrics.Metric`) is summed
        from the judged ranked items alone; the others (and a summed form
        that does not apply under the conventions) from per-user values, a block of users at
        a time.
        """
        run = self._run(model)
        lists = self._top_lists
        items = JudgedItems(
            run.judged_user, run.judged_rank, run.judged_row, mask, self.truth_relevant,
            self.truth_gains, self.relevant_of(model), self.width,
            partial(self._ideal_lists_of, model),
            top_items=None if lists is None else partial(lists.of_model, model, self.width),
            item_facts=None if lists is None else lists.facts,
            item_rank_sums=None if lists is None else partial(lists.rank_sums, model,
                                                              self.width, mask),
            n_judged=self.judged_of(model), truth_grade=self.truth_grades,
            max_grade=self.max_grade, truth_judged=self.truth_judged, lengths=run.lengths,
        )
        sums: dict[str, np.ndarray] = {}
        for metric in metrics:
            summed = self._declared(metric).summed
            total = None if summed is None else summed(items, self.conventions)
            if total is not None:
                sums[metric] = total
        rest = tuple(metric for metric in metrics if metric not in sums)
        valued: dict[str, np.ndarray] = {}
        if rest:
            block_sums, valued = self._block_sums(model, rest, mask)
            sums.update(block_sums)
        return sums, valued

    def relevant_of(self, model: str) -> np.ndarray:
        """Each ground-truth user's relevant items |R| as ``model``'s metrics count them: the
        ground truth's (:attr:`n_relevant`), or with ``relevant_items="in_list"`` those in
        the model's list only."""
        if self.conventions.relevant_items == "ground_truth":
            return self.n_relevant
        return self._counted_in_list(model)[0]

    def judged_of(self, model: str) -> np.ndarray:
        """Each ground-truth user's judged items (bpref's R and N) as ``model``'s metrics
        count them (see :meth:`relevant_of`)."""
        if self.conventions.relevant_items == "ground_truth":
            return self.n_judged
        return self._counted_in_list(model)[2]

    def _ideal_of(self, model: str) -> LevelCounts | TopGains:
        """The ideal lists ``model``'s NDCG divides by (see :meth:`relevant_of`)."""
        if self.conventions.relevant_items == "ground_truth":
            return self._ideal
        return self._counted_in_list(model)[1]

    def _ideal_lists_of(self, model: str) -> tuple[np.ndarray, np.ndarray] | None:
        """:attr:`_ideal_lists` for ``model`` (see :meth:`relevant_of`)."""
        if self.conventions.relevant_items == "ground_truth":
            return self._ideal_lists
        ideal = self._ideal_of(model)
        if not isinstance(ideal, LevelCounts):
            return None
        return ideal.distinct_lists(max(1, MAX_IDEAL_CELLS // self.width))

    def _counted_in_list(self, model: str
                         ) -> tuple[np.ndarray, LevelCounts | TopGains, np.ndarray]:
        """(|R|, the ideal lists, the judged items) of each user from the judged items of
        ``model``'s list alone, all of its ranks: what a library that sees only the rows it
        is given counts."""
        run = self._run(model)
        owner = self._root or self
        key = (*self._gain_rule, self.width, id(run))
        found = owner._in_list.get(key)
        if found is None or found[3] is not run:
            user = run.judged_user.astype(np.int64)
            relevant = self.truth_relevant[run.judged_row]
            counts = read_only(np.bincount(user[relevant], minlength=self.truth.n_users))
            ideal = top_gains_by_user(user, self.truth_gains[run.judged_row], self.width,
                                      self.truth.n_users)
            judged = read_only(np.bincount(user[self.truth_judged[run.judged_row]],
                                           minlength=self.truth.n_users))
            found = (counts, ideal, judged, run)  # the run is kept: its id stays its own
            owner._in_list[key] = found
        return found[:3]

    @cached_property
    def _ideal(self) -> LevelCounts | TopGains:
        """Each user's ground-truth gains, highest first, at ranks 1..width: read by NDCG with
        the ground-truth ideal only, so made when first asked for (a relevance or convention
        change under the retrieved ideal never makes them)."""
        owner = self._root or self
        key = (*self._gain_rule, self.width)
        found = owner._ideals.get(key)
        if found is None:
            found = owner._ideals.setdefault(key, top_gains_by_user(
                self.truth.user_index, self.truth_gains, self.width, self.truth.n_users))
        return found

    @cached_property
    def _ideal_lists(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(each user's ideal list number, ideal gains of each list (lists x width)),
        the top width of each user's ground-truth gains, highest first; None when the
        gains take too many distinct values or the lists are too many to be worth it."""
        if not isinstance(self._ideal, LevelCounts):
            return None
        return self._ideal.distinct_lists(max(1, MAX_IDEAL_CELLS // self.width))

    def _block_sums(
        self, model: str, metrics: tuple[str, ...], mask: np.ndarray
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Sums over the users in ``mask`` of each metric at every cutoff, computed a block
        of users at a time, and the users with a value at each cutoff of the metrics where
        some user has none (NaN: left out of the sum and of the count)."""
        sums: dict[str, np.ndarray] = {}
        valued: dict[str, np.ndarray] = {}
        users_so_far = 0.0
        with one_blas_thread():  # small products: threads would only wait for each other
            for start in range(0, self.truth.n_users, USERS_PER_BLOCK):
                stop = min(start + USERS_PER_BLOCK, self.truth.n_users)
                weights = mask[start:stop].astype(np.float64)
                block = self._block_values(model, metrics, start, stop)
                for metric in metrics:
                    values = block[metric]
                    missing = np.isnan(values)
                    if missing.any():
                        values = np.where(missing, 0.0, values)
                        found = weights @ ~missing
                        valued[metric] = (valued[metric] + found if metric in valued
                                          else users_so_far + found)
                    elif metric in valued:
                        valued[metric] = valued[metric] + weights.sum()
                    part = weights @ values
                    sums[metric] = sums[metric] + part if metric in sums else part
                users_so_far += float(weights.sum())
        return sums, {metric: np.rint(found).astype(np.int64)
                      for metric, found in valued.items()}

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
            self.relevant_of(model), cutoff, partial(self._ideal_lists_of, model),
            n_judged=self.judged_of(model),
            truth_grade=self.truth_grades, max_grade=self.max_grade,
            truth_judged=self.truth_judged, lengths=run.lengths,
        )
        found: dict[str, np.ndarray] = {}
        for metric in metrics:
            at_cutoff = ALL_METRICS[metric].at_cutoff
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
        width = width or self.width
        lo, hi = np.searchsorted(run.judged_user, [start, stop])
        rows = run.judged_row[lo:hi]
        block = UserBlock(
            run.judged_user[lo:hi] - start, run.judged_rank[lo:hi], self.truth_relevant[rows],
            self.truth_gains[rows], self.relevant_of(model)[start:stop], width,
            lambda: self._ideal_of(model).block(start, stop, width),
            top_items=None if self._top_lists is None else partial(
                self._top_lists.block, model, start, stop, width),
            item_facts=None if self._top_lists is None else self._top_lists.facts,
            n_judged=self.judged_of(model)[start:stop], grade=self.truth_grades[rows],
            max_grade=self.max_grade, judged=self.truth_judged[rows],
            lengths=run.lengths[start:stop], first_user=start,
        )
        values = {}
        for metric in metrics:
            kernel = self._declared(metric).per_user
            if kernel is None:
                raise ValueError(f"{metric!r} has no value per user.")
            values[metric] = kernel(block, self.conventions)
        return values




def last_change(
    user_index: np.ndarray, gains: np.ndarray, n_relevant: np.ndarray,
    runs: Mapping[str, RankedRun],
) -> int:
    """The last cutoff at which a value can change other than by 1/K: the longest ranked
    list (items past its judged part change no sum, but Judged@K divides by the items shown
    up to its end), the most relevant items (AP's min(K, |R|)) and the most items with a gain
    (the ideal list) of any user."""
    longest = max((int(run.lengths.max(initial=0)) for run in runs.values()), default=0)
    most_gains = int(np.bincount(user_index[gains > 0]).max(initial=0))
    return max(1, longest, int(n_relevant.max(initial=0)), most_gains)



def _judged_truth(truth: GroundTruth, relevance: RelevanceMapping, conventions: Conventions
                  ) -> JudgedTruth:
    """The grade, relevance and gain of each ground-truth row, each user's relevant items,
    whether each row is a judgment and each user's judged items (all read-only)."""
    judged = judge(truth.ratings, relevance, conventions)
    n_relevant = np.bincount(truth.user_index[judged.relevant], minlength=truth.n_users)
    is_judgment = (np.isfinite(np.asarray(truth.ratings, dtype=np.float64))
                   & (judged.grades >= 0))
    n_judged = np.bincount(truth.user_index[is_judgment], minlength=truth.n_users)
    return (read_only(judged.grades), read_only(judged.relevant), read_only(judged.gains),
            read_only(n_relevant), read_only(is_judgment), read_only(n_judged))


def read_only(array: np.ndarray) -> np.ndarray:
    """The array, made read-only (an evaluation is shared between threads and callers)."""
    array.flags.writeable = False
    return array
