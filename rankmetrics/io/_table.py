"""The result of reading a run or a ground truth."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from rankmetrics.io._ids import HashedIds, Ids


@dataclass
class LoadedTable:
    """A validated run (one model's output) or ground truth, with what was learnt reading it.

    Attributes
    ----------
    table : pandas.DataFrame
        A run has columns ``user``, ``item`` (pandas ``str``) and ``score`` (float64, higher is
        better); a ground truth ``user``, ``item`` and ``rating`` (float64). Rows keep the input
        order; a run holds each (user, item) pair once, a ground truth too.
    kind : {"run", "truth"}
    name : str
        Display name: the file stem (``model_a`` for ``model_a.csv.gz``) unless one was given.
    source : str
        The file name, as used in messages (``model_a.csv.gz``).
    format : str
        ``csv``, ``tsv``, ``parquet``, ``jsonl``, ``trec_run``, ``trec_qrels``, ``list_csv``,
        ``list_parquet``, ``list_jsonl`` or ``dataframe``.
    columns : dict of str to str
        The column found for each role, e.g. ``{"user": "userId", "item": "movieId",
        "score": "prediction"}``; ``{"rank": "position"}`` when ranked by a rank column,
        ``{"items": "recs"}`` for the list layout, ``"field 5"`` style names for TREC files.
        A ground truth without a rating column has no ``rating`` entry.
    ranking : {"score", "rank", "list_position"} or None
        How a run's order was given: a score (higher is better), a rank (1 is best; then
        ``table.score = -rank``), or the position in a list (``score = -position``). None for
        a ground truth.
    warnings : list of str
        Things worth telling the user that did not stop the loading (skipped empty rows,
        dropped repeated ground-truth rows, a column choice that was not the only candidate).
    duplicates_dropped : int
        Repeated ground-truth rows (same user, item and rating as an earlier row) left out.
    """

    table: pd.DataFrame
    kind: str
    name: str
    source: str
    format: str
    columns: dict[str, str]
    ranking: str | None
    warnings: list[str] = field(default_factory=list)
    duplicates_dropped: int = 0
    # The user and item columns as codes, by role, with the Arrow data they were made for
    # (see index_ids, rankmetrics.io.truth_codes and run_codes).
    _codes: dict[str, tuple[Ids | HashedIds, object]] = field(default_factory=dict, init=False,
                                                  repr=False, compare=False)
    # The user and item columns summarised while reading (see id_index), by role.
    _id_indexes: dict[str, IdIndex] = field(default_factory=dict, init=False, repr=False,
                                            compare=False)

    @property
    def n_rows(self) -> int:
        """Number of rows of ``table``."""
        return len(self.table)

    @cached_property
    def n_users(self) -> int:
        """Number of distinct users."""
        return id_index(self, "user").n_distinct

    @cached_property
    def n_items(self) -> int:
        """Number of distinct items."""
        hashed = kept_codes(self, "item")
        if isinstance(hashed, HashedIds):  # a run's items: hashed, not numbered
            if hashed.distinct is not None:
                return len(hashed.distinct)
            return int(pc.count_distinct(hashed.text).as_py())
        return id_index(self, "item").n_distinct


@dataclass
class IdIndex:
    """One id column of a table summarised: its distinct values in order of first appearance
    (as ``Series.unique()`` gives them, missing values included), the number of rows holding
    each (always for users), and optionally each row's position in ``values``."""

    values: pd.Series
    counts: np.ndarray | None
    codes: np.ndarray | None
    column: object | None  # the column's Arrow data, to notice the table changed since

    @property
    def present(self) -> np.ndarray:
        """Which ``values`` are not missing."""
        return self.values.notna().to_numpy()

    @property
    def n_distinct(self) -> int:
        """Number of distinct values, missing values left out (as ``Series.nunique()``)."""
        return int(self.present.sum())


def id_index(table: LoadedTable, role: str, *, codes: bool = False) -> IdIndex:
    """The user or item column of ``table.table`` summarised, computed once and kept.

    The readers fill it in while checking the file (where the ids are codes already); a table
    changed or built by hand is summarised here from its column.
    """
    column = table.table[role]
    data = _column_data(column)
    known = table._id_indexes.get(role)
    if (known is not None and data is not None and known.column is data
            and not (codes and known.codes is None)):
        return known
    found, uniques = pd.factorize(column, use_na_sentinel=False)
    index = IdIndex(pd.Series(uniques), np.bincount(found, minlength=len(uniques)), found, data)
    table._id_indexes[role] = index
    return index


def index_ids(table: LoadedTable, ids: dict[str, Ids | HashedIds]) -> None:
    """Keep the codes found while reading as ``table``'s id indexes (before anyone sees it).

    ``ids`` holds each column as codes whose values are distinct and in order of first
    appearance (a run's items as hashes, which give no index). Kept: the codes; the distinct
    ids; the rows per user; each row's code for a ground truth's users (checks group by them).
    """
    for role, coded in ids.items():
        table._codes[role] = (coded, _column_data(table.table[role]))
        if isinstance(coded, HashedIds):
            continue
        counts = np.bincount(coded.codes, minlength=len(coded.values)) if role == "user" else None
        keep_codes = table.kind == "truth" and role == "user"
        table._id_indexes[role] = IdIndex(
            coded.values.to_pandas(), counts, coded.codes if keep_codes else None,
            _column_data(table.table[role]),
        )


def kept_codes(table: LoadedTable, role: str) -> Ids | HashedIds | None:
    """The codes kept while reading, while the table still holds the column they were made
    for; None otherwise."""
    kept = table._codes.get(role)
    data = _column_data(table.table[role])
    if kept is None or data is None or kept[1] is not data:
        return None
    return kept[0]


def _column_data(column: pd.Series) -> object | None:
    """The Arrow data holding a column's values: immutable, so while the table holds the
    same object its values are unchanged. None for a column not held by Arrow."""
    if isinstance(column.dtype, pd.StringDtype) and column.dtype.storage == "pyarrow":
        return column.array.__arrow_array__()
    return None


def rating_values(truth: LoadedTable) -> np.ndarray:
    """The ground truth's ratings as a float64 array (for ``suggest_mapping``)."""
    if truth.kind != "truth":
        raise ValueError(f"rating_values needs a ground truth; {truth.name!r} is a {truth.kind}.")
    return truth.table["rating"].to_numpy(dtype=np.float64)
