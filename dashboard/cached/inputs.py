"""The files and what is made of them: each file read (or why not), its counts, the ground
truth, each model's ranked run, the checks of a model's file against the ground truth, the
relevance controls' starting values, and one user's rows."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Generic, TypeVar

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.cached import HASH, HOUR, shared
from dashboard.files import FileSpec
from dashboard.prepared import Prepared
from dashboard.settings import EDITABLE_RATINGS, RelevanceDefaults
from rankmetrics import GroundTruth, RankedRun
from rankmetrics.errors import DataError
from rankmetrics.evaluation import loaded_rows
from rankmetrics.io import (
    Attributes,
    LoadedTable,
    check_against_truth,
    rating_values,
    read_attributes,
    read_interactions,
    read_run,
    read_truth,
)
from rankmetrics.relevance import RelevanceMapping, suggest_mapping

log = logging.getLogger(__name__)
#: The reader of each kind of file of rows (the optional ones: see dashboard.extras; item
#: attributes: :func:`read_item_attributes`).
READERS: dict[str, Callable[..., LoadedTable]] = {
    "run": read_run, "truth": read_truth, "interactions": read_interactions,
}
TableT = TypeVar("TableT", LoadedTable, Attributes)


@dataclass(frozen=True)
class Loaded(Generic[TableT]):
    """What reading a file gave: the table, or the message saying why not."""

    table: TableT | None
    error: str | None = None


def read_file(spec: FileSpec) -> Loaded[LoadedTable]:
    """Read and validate a file of rows (a model's output, the ground truth, the training
    interactions); errors become a message instead of an exception."""
    return shared(("read", spec.token), lambda: _read(spec, READERS[spec.kind]))


def read_item_attributes(spec: FileSpec) -> Loaded[Attributes]:
    """Read and validate an item-attributes file; errors become a message instead of an
    exception."""
    return shared(("read", spec.token),
                  lambda: _read(spec, partial(read_attributes, key="item")))


def table_of(spec: FileSpec) -> LoadedTable:
    """The rows read from a file its caller knows to be readable (else its error, raised)."""
    loaded = read_file(spec)
    if loaded.table is None:
        raise ValueError(loaded.error)
    return loaded.table


def _read(spec: FileSpec, reader: Callable[..., TableT]) -> Loaded[TableT]:
    options = {"columns": dict(spec.columns) or None, "format": spec.format}
    try:
        if spec.path is not None:
            table = reader(spec.path, **options)
        else:
            table = reader(spec.data or b"", name=spec.file_name, **options)
    except (DataError, ValueError) as error:
        return Loaded(None, str(error))
    except Exception as error:  # a reader bug must not reach the page as a traceback
        log.exception("reading %s failed", spec.file_name)
        return Loaded(None, f"{spec.file_name}: could not be read ({type(error).__name__}: "
                            f"{error}).")
    return Loaded(table)


@st.cache_data(max_entries=64, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def counts(spec: FileSpec) -> tuple[int, int, int]:
    """Rows, distinct users and distinct items of a file that was read."""
    table = table_of(spec)
    return table.n_rows, table.n_users, table.n_items


def ground_truth(spec: FileSpec) -> GroundTruth:
    return shared(("truth", spec.token),
                  lambda: GroundTruth.from_loaded(table_of(spec)))


def ranked_run(spec: FileSpec, truth: FileSpec, ties: str, identical_ids: str = "keep"
               ) -> RankedRun | str:
    """One model's output ranked and matched against the ground truth (or an error)."""
    return shared(("ranked", spec.token, truth.token, ties, identical_ids),
                  lambda: _rank(spec, truth, ties, identical_ids))


def _rank(spec: FileSpec, truth: FileSpec, ties: str, identical_ids: str) -> RankedRun | str:
    try:
        return RankedRun.from_loaded(table_of(spec), ground_truth(truth), ties=ties,
                                     identical_ids=identical_ids)
    except (DataError, ValueError) as error:
        return f"{spec.file_name}: {error}"


@st.cache_data(max_entries=64, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def cross_check(
    spec: FileSpec, truth: FileSpec, relevance: RelevanceMapping, max_cutoff: int
) -> tuple[list[str], str | None]:
    """Warnings from checking a model's file against the ground truth, and an error message
    when they do not belong together."""
    try:
        warnings = check_against_truth(table_of(spec), table_of(truth), mapping=relevance,
                                       max_cutoff=max_cutoff)
    except (DataError, ValueError) as error:
        return [], str(error)
    return warnings, None


def checks_against_truth(
    truth: FileSpec, runs: Sequence[FileSpec], relevance: RelevanceMapping, max_cutoff: int,
    known: dict[str, str],
) -> tuple[dict[str, tuple[list[str], str | None]], list[str]]:
    """Each readable model file checked against the ground truth (a problem already ``known``
    is kept), and the warnings every model shares (they are about the ground truth)."""
    results = {}
    for spec in runs:
        problem = known.get(spec.name)
        if problem is None and read_file(spec).table is not None:
            results[spec.name] = cross_check(spec, truth, relevance, max_cutoff)
        else:
            results[spec.name] = ([], problem)
    lists = [warnings for warnings, error in results.values() if error is None]
    common = [w for w in lists[0] if all(w in other for other in lists)] if lists else []
    return results, common


@st.cache_data(max_entries=16, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def relevance_defaults(truth: FileSpec) -> RelevanceDefaults:
    """The library's suggestion, as starting values for the sidebar's relevance controls."""
    values = np.unique(rating_values(table_of(truth)))
    suggestion = suggest_mapping(values)
    binary_kind = suggestion.recommended.kind == "binary" or set(values) <= {0.0, 1.0}
    graded = suggestion.graded
    reason = suggestion.reason
    if len(values) <= EDITABLE_RATINGS:
        # a grade table's grades are 0 or more: a rating used as a grade below 0 (TREC's -1)
        # starts at 0 there, judged and not relevant
        table = tuple((float(v), max(float(g), 0.0))
                      for v, g in zip(values, graded.grades(values), strict=True))
        if values[0] < 0:
            reason += (f" In the grade table, a rating below 0 ({_below_zero(values)}) has "
                       "grade 0: judged, not relevant.")
    else:
        table = graded.table
    threshold = suggestion.binary.rating_threshold
    if threshold is None:  # a binary mapping always has one
        raise ValueError("The suggested binary mapping has no rating threshold.")
    if len(values) <= EDITABLE_RATINGS * 5 and threshold not in values:
        above = values[values >= threshold]
        threshold = float(above[0] if len(above) else values[-1])
    return RelevanceDefaults(
        kind="binary" if binary_kind else "graded",
        threshold=float(threshold),
        table=table,
        grade_threshold=float(graded.threshold),
        ratings=tuple(float(v) for v in values),
        reason=reason,
    )


def _below_zero(values: np.ndarray) -> str:
    return ", ".join(f"{value:g}" for value in values[values < 0])


@st.cache_data(max_entries=64, ttl=HOUR, show_spinner=False, hash_funcs=HASH)
def user_rows(prepared: Prepared, model: str, user: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One user's ground-truth rows and the model's rows for them (read from the tables' id
    codes: the whole table is never built as pandas)."""
    wanted = pd.Index([user], dtype="str")
    return (loaded_rows(prepared.truth, wanted),
            loaded_rows(table_of(prepared.specs[model]), wanted))
