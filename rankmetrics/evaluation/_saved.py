"""An evaluation read back from a bundle (:mod:`rankmetrics.bundle`): the same questions as
an evaluation computed here, answered from what was saved."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from rankmetrics.bundle import per_user_column, read_bundle
from rankmetrics.checks import check_int
from rankmetrics.conventions import Conventions
from rankmetrics.errors import DataError
from rankmetrics.evaluation._bands import band_table
from rankmetrics.evaluation._evaluate import evaluate
from rankmetrics.evaluation._evaluation import Evaluation
from rankmetrics.evaluation._saved_beyond import SavedBeyond
from rankmetrics.evaluation._shared import SharedMethods
from rankmetrics.metrics import declared
from rankmetrics.relevance import RelevanceMapping
from rankmetrics.results import Fingerprint, ListsAtHand, PairedBlock, SavedFrom


def load_bundle(path: str | Path | bytes, *,
                max_memory: int | str | None = None) -> SavedEvaluation:
    """Read a bundle: a folder, a zip archive, or the archive's bytes (an upload).

    A bundle of a newer or unknown format raises :class:`rankmetrics.DataError` saying which
    versions this rankmetrics reads and how to get one that reads it; so does one whose
    tables would take more than ``max_memory`` to read (see
    :func:`rankmetrics.bundle.read_bundle`).
    """
    contents = read_bundle(path, max_memory=max_memory)
    try:
        return SavedEvaluation(
            contents.info,
            means=contents.means,
            per_user=contents.per_user,
            sample_truth=contents.sample_truth,
            sample_runs=contents.sample_runs,
            name=contents.name,
            user_attributes=contents.user_attributes,
            beyond_tables=contents.beyond_tables,
        )
    except DataError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        # a value evaluation.json's schema lets through but this version cannot use
        what = f"no {error}" if isinstance(error, KeyError) else str(error)
        raise DataError(f"the saved evaluation could not be read back ({what}): the bundle "
                        "is damaged. Save the evaluation again.", file=contents.name) from None


class SavedEvaluation(SharedMethods):
    """An evaluation read back from a bundle: means at every cutoff, per-user values at the
    saved cutoffs (:attr:`cutoffs`), the user counts, and the raw rows of the sampled users
    (:meth:`sample_evaluation` evaluates them). It answers what an
    :class:`~rankmetrics.evaluation.Evaluation` answers (see :mod:`rankmetrics.results`)."""

    def __init__(self, info: dict, *, means: pd.DataFrame, per_user: pd.DataFrame,
                 sample_truth: pd.DataFrame, sample_runs: pd.DataFrame, name: str,
                 user_attributes: tuple[str, bytes] | None = None,
                 beyond_tables: Mapping[str, pd.DataFrame] | None = None) -> None:
        self.info = info
        #: The beyond-accuracy results computed when the evaluation was saved (None: it had
        #: no beyond-accuracy inputs, or the bundle is of format version 1).
        self.beyond = (SavedBeyond(self, info["beyond"], beyond_tables or {},
                                   info["per_user_cutoffs"]) if "beyond" in info else None)
        beyond = self.beyond
        #: The user-attributes file saved with the evaluation (its name and bytes), if any.
        self.user_attributes = user_attributes
        self.name = name
        self.models: list[str] = list(info["models"])
        self.metrics: list[str] = list(info["metrics"])
        self.max_cutoff: int = int(info["max_cutoff"])
        self.cutoffs: list[int] = [int(cutoff) for cutoff in info["per_user_cutoffs"]]
        self.relevance = RelevanceMapping.from_dict(info["relevance"])
        self.conventions = Conventions(**info["conventions"])
        #: ERR's g_max over the whole ground truth when it was saved (None: a bundle written
        #: without it, whose sampled rows are all that is left to find it).
        self.max_grade: float | None = (float(info["max_grade"]) if "max_grade" in info
                                        else None)
        self.engine: str = info["engine"]
        self.inputs = {key: Fingerprint(**value) for key, value in info["inputs"].items()}
        if beyond is not None and beyond.per_user_metrics:  # averaged like accuracy metrics
            means = pd.concat([means, beyond.summary(beyond.per_user_metrics)],
                              ignore_index=True)
        self._means = means.astype({"cutoff": "Int64"})
        self._per_user = {model: rows.drop(columns="model").set_index("user").sort_index()
                          for model, rows in per_user.groupby("model", sort=False)}
        relevant = (per_user.drop_duplicates("user").set_index("user")["relevant"]
                    .sort_index())
        #: The users some model counts (a bundle keeps no others), sorted by id.
        self.users = pd.Index(relevant.index.astype("str"), name="user")
        #: Each user's relevant items.
        self.n_relevant = relevant.to_numpy(dtype=np.int64)
        self.sample_truth = sample_truth
        self.sample_runs = sample_runs

    @cached_property
    def width(self) -> int:
        """The last cutoff at which a saved mean changes other than by 1/K, read from the
        means (as :attr:`rankmetrics.Evaluation.width`, which it equals unless no mean
        moved over the last cutoffs before that): past it every mean keeps its value or, divided
        by K, falls as 1/K, so the order of the models is the same at every K beyond."""
        last = 1
        for (_, metric), rows in self._means.dropna(subset=["cutoff"]).groupby(
                ["model", "metric"], sort=False):
            values = rows.sort_values("cutoff")["value"].to_numpy(dtype=np.float64)
            if declared(str(metric)).divided_by_cutoff:
                values = values * np.arange(1, len(values) + 1)
            moved = np.flatnonzero(~np.isclose(values[1:], values[:-1], rtol=1e-9, atol=0,
                                               equal_nan=True))
            if len(moved):
                last = max(last, int(moved[-1]) + 2)
        return last

    @property
    def per_user_cutoffs(self) -> list[int]:
        """The saved cutoffs: per-user values exist at these only."""
        return self.cutoffs

    @property
    def saved_from(self) -> SavedFrom:
        """The rankmetrics version and engine that computed it, and every input's
        fingerprint as recorded (the beyond-accuracy inputs last)."""
        beyond = self.beyond.inputs_read.items() if self.beyond is not None else ()
        return SavedFrom(str(self.info.get("rankmetrics_version", "(unknown version)")),
                         self.engine, (*self.inputs.items(), *beyond))

    def ground_truth_sizes(self) -> None:
        """None: a bundle keeps each user's relevant items, not the whole ground truth."""
        return None

    def lists_at_hand(self) -> ListsAtHand:
        """The sampled users, evaluated from their raw rows with the bundle's settings."""
        sample = self.sample_evaluation
        return ListsAtHand(sample, self.sample_run_tables,
                           f"On the {sample.truth.n_users:,} sampled users")

    @property
    def sampled_users(self) -> list[str]:
        """The users whose raw rows the bundle holds."""
        return list(pd.unique(self.sample_truth["user"]))

    def user_counts(self) -> pd.DataFrame:
        return pd.DataFrame(self.info["user_counts"])

    def summary(self, metrics: Iterable[str] | None = None,
                cutoffs: Iterable[int] | None = None) -> pd.DataFrame:
        """As :meth:`rankmetrics.Evaluation.summary`."""
        chosen = self._metrics(metrics)
        table = self._means[self._means["metric"].isin(chosen)]
        if cutoffs is not None:
            wanted = {self.check_cutoff(cutoff) for cutoff in cutoffs}
            table = table[table["cutoff"].isna() | table["cutoff"].isin(wanted)]
        order = {metric: position for position, metric in enumerate(chosen)}
        table = table.assign(_order=table["metric"].map(order),
                             _model=table["model"].map(self.models.index))
        table = table.sort_values(["_model", "_order", "cutoff"], kind="stable")
        return table.drop(columns=["_order", "_model"]).reset_index(drop=True)

    def means(self, metrics: Iterable[str], models: Iterable[str] | None = None,
              within: np.ndarray | None = None) -> dict[str, dict[str, np.ndarray]]:
        """model -> metric -> means at every cutoff 1..max_cutoff (as Evaluation.means).

        ``within``, a boolean mask over :attr:`users`, keeps the means to those users: they are
        then taken from the per-user values, at the saved cutoffs (NaN at the others)."""
        chosen = self._metrics(metrics)
        out: dict[str, dict[str, np.ndarray]] = {}
        for model in models or self.models:
            rows = self._means[self._means["model"] == self._model(model)]
            out[model] = {}
            for metric in chosen:
                if within is None:
                    out[model][metric] = rows.loc[rows["metric"] == metric, "value"].to_numpy(
                        dtype=np.float64)
                else:
                    out[model][metric] = self._means_within(model, metric, within)
        return out

    def _means_within(self, model: str, metric: str, within: np.ndarray) -> np.ndarray:
        """The model's mean of ``metric`` over its counted users in ``within``, at the saved
        cutoffs (a metric without a cutoff: its one value)."""
        kept = np.asarray(within, dtype=bool)[self.included(model)]
        if not declared(metric).has_cutoff:
            values = self.per_user_at(model, metric, None).to_numpy()[kept]
            return np.array([values.mean() if len(values) else np.nan])
        means = np.full(self.max_cutoff, np.nan)
        for cutoff in self.cutoffs:
            values = self.per_user_at(model, metric, cutoff).to_numpy()[kept]
            means[cutoff - 1] = values.mean() if len(values) else np.nan
        return means

    def per_user_at(self, model: str, metric: str, cutoff: int | None) -> pd.Series:
        """Per-user values at one of the saved cutoffs (see :attr:`cutoffs`)."""
        self._metrics([metric])
        if declared(metric).has_cutoff and self.check_cutoff(cutoff) not in self.cutoffs:
            raise ValueError(
                f"The bundle holds per-user values at K = "
                f"{', '.join(map(str, self.cutoffs))}; got cutoff={cutoff!r}.")
        rows = self._per_user.get(self._model(model))
        column = per_user_column(metric, cutoff)
        if rows is None:  # the model counts no user
            return pd.Series([], index=pd.Index([], dtype="str", name="user"), name=model,
                             dtype=np.float64)
        series = rows[column].astype(np.float64)
        series.index = pd.Index(series.index.astype("str"), name="user")
        series.name = model
        return series

    def included(self, model: str) -> np.ndarray:
        """Which users (in the order of ``truth.users``) the model's means count."""
        rows = self._per_user.get(self._model(model))
        if rows is None:
            return np.zeros(len(self.users), dtype=bool)
        return self.users.isin(rows.index.astype("str"))

    def paired_blocks(self, metrics: Sequence[str], cutoffs: Sequence[int],
                      models: Sequence[str] | None = None) -> Iterator[PairedBlock]:
        """One block: (metric -> model -> users x cutoffs values) of the users every model
        counts, sorted by id; every cutoff must be a saved one (:attr:`cutoffs`)."""
        chosen = [check_int("cutoff", cutoff) for cutoff in cutoffs]
        outside = [cutoff for cutoff in chosen if cutoff not in self.cutoffs]
        if outside or not chosen:
            raise ValueError(f"The bundle holds per-user values at K = "
                             f"{', '.join(map(str, self.cutoffs))}; got cutoffs={chosen!r}.")
        block: PairedBlock = {}
        for metric in metrics:
            tables = [self.paired(metric, cutoff) for cutoff in chosen]
            block[metric] = {model: np.column_stack([table[model].to_numpy(dtype=np.float64)
                                                     for table in tables])
                             for model in models or self.models}
        yield block

    def per_user_table(self, metrics: Iterable[str] | None = None,
                       cutoffs: Iterable[int] | None = None) -> pd.DataFrame:
        """Long table ``model, user, metric, cutoff, value`` at saved cutoffs."""
        chosen = self._metrics(metrics)
        wanted = self.cutoffs if cutoffs is None else sorted(set(cutoffs))
        parts = []
        for model in self.models:
            for metric in chosen:
                for cutoff in wanted if declared(metric).has_cutoff else [None]:
                    values = self.per_user_at(model, metric, cutoff)
                    parts.append(pd.DataFrame({
                        "model": model, "user": values.index, "metric": metric,
                        "cutoff": pd.array([cutoff] * len(values), dtype="Int64"),
                        "value": values.to_numpy()}))
        return pd.concat(parts, ignore_index=True)

    def confidence_bands(self, metrics: Iterable[str], *, cutoffs: Iterable[int] | None = None,
                         n_bootstrap: int = 1_000, confidence: float = 0.95,
                         seed: int | None = 0) -> pd.DataFrame:
        """As :meth:`rankmetrics.Evaluation.confidence_bands`, at the saved cutoffs among
        ``cutoffs`` (all saved ones when None)."""
        chosen = self._metrics(metrics)
        wanted = self.cutoffs if cutoffs is None else self.cutoffs_with_values(cutoffs)
        per_series = {}
        for model in self.models:
            for metric in chosen:
                columns = wanted if declared(metric).has_cutoff else [None]
                values = np.column_stack([self.per_user_at(model, metric, cutoff).to_numpy()
                                          for cutoff in columns])
                if len(values):
                    per_series[(model, metric)] = values
        return band_table(per_series, wanted, n_bootstrap=n_bootstrap, confidence=confidence,
                          seed=seed, has_cutoff=lambda metric: declared(metric).has_cutoff)

    @cached_property
    def sample_run_tables(self) -> dict[str, pd.DataFrame]:
        """Each model's rows of the sampled users (``user, item, score``; none for a model
        that listed none of them)."""
        runs = {model: rows.drop(columns="model").reset_index(drop=True)
                for model, rows in self.sample_runs.groupby("model", sort=False)}
        empty = self.sample_runs.iloc[:0].drop(columns="model")
        return {model: runs.get(model, empty) for model in self.models}

    @cached_property
    def sample_evaluation(self) -> Evaluation:
        """The sampled users evaluated from their raw rows, with the bundle's settings."""
        return evaluate(self.sample_truth, self.sample_run_tables,
                        relevance=self.relevance, conventions=self.conventions,
                        max_cutoff=self.max_cutoff)

    def _metrics(self, metrics: Iterable[str] | None) -> list[str]:
        """Metric names, checked: the saved accuracy metrics and the saved per-user
        beyond-accuracy ones."""
        wanted = list(metrics) if metrics is not None else self.metrics
        saved = [*self.metrics, *(self.beyond.per_user_metrics if self.beyond else ())]
        chosen = [declared(metric).name for metric in wanted]
        missing = [metric for metric in chosen if metric not in saved]
        if missing:
            raise ValueError(f"The bundle holds {', '.join(saved)}; not "
                             f"{', '.join(missing)}.")
        return chosen

    def _model(self, model: str) -> str:
        if model not in self.models:
            raise ValueError(f"Unknown model {model!r}: the models are "
                             f"{', '.join(self.models)}.")
        return model
