"""The result of reading a run or a ground truth.

Its pandas table is built when first asked for: the metrics and the checks read the codes,
hashes and numbers made while reading, so a command-line evaluation never builds it (building
it copies the numbers and, for ids that came as Python objects, writes out every row's id).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from rankmetrics.io._ids import HashedIds, Ids, Runs


@dataclass
class LoadedTable:
    """A validated run (one model's output) or ground truth, with what was learnt reading it.

    Attributes
    ----------
    table : pandas.DataFrame
        A run has columns ``user``, ``item`` (pandas ``str``) and ``score`` (float64, higher is
        better); a ground truth ``user``, ``item`` and ``rating`` (float64). Rows keep the input
        order; a run holds each (user, item) pair once, a ground truth too.
    kind : {"run", "truth", "interactions"}
        Training interactions have the columns of a ground truth, with repeated pairs.
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
    column_order : tuple of str or None
        The roles of the columns of a text file without a header line, by position (``("user",
        "item", "rating", "timestamp")``; words that are no role name columns left unread);
        None for a file with a header, and for other formats.

    ``table`` is built when first asked for (see the module docstring); ``n_rows`` and
    :meth:`numbers` do not build it.
    """

    # What ``table`` is built from, on first use.
    _parts: TableParts = field(repr=False, compare=False)
    kind: str
    name: str
    source: str
    format: str
    columns: dict[str, str]
    ranking: str | None
    warnings: list[str] = field(default_factory=list)
    duplicates_dropped: int = 0
    column_order: tuple[str, ...] | None = None
    # The table, once built from ``parts`` (or assigned).
    _table: pd.DataFrame | None = field(default=None, init=False, repr=False, compare=False)
    # The user and item columns as codes, by role, with the Arrow data of the table's column
    # they were made for, None while the table is not built (see index_ids,
    # rankmetrics.io.truth_codes and run_codes).
    _codes: dict[str, tuple[Ids | HashedIds, object]] = field(default_factory=dict, init=False,
                                                  repr=False, compare=False)
    # The user and item columns summarised while reading (see id_index), by role.
    _id_indexes: dict[str, IdIndex] = field(default_factory=dict, init=False, repr=False,
                                            compare=False)

    @property
    def table(self) -> pd.DataFrame:
        """The table (see the class docstring), built on first use."""
        if self._table is None:
            self._table = self._parts.build()
            _remember_columns(self)
        return self._table

    @table.setter
    def table(self, table: pd.DataFrame) -> None:
        self._table = table

    @property
    def n_rows(self) -> int:
        """Number of rows of ``table``."""
        return len(self._table) if self._table is not None else self._parts.n_rows

    def head(self, n: int = 10) -> pd.DataFrame:
        """``table.head(n)``, without building ``table`` when it is not built yet."""
        if self._table is None:
            return self._parts.build(max(n, 0))
        return self._table.head(n)

    def numbers(self) -> np.ndarray:
        """The score (a run) or rating (a ground truth) of each row as float64, without
        building ``table`` when it is not built yet (then read-only)."""
        if self._table is None:
            return self._parts.numbers
        return self._table[self._parts.number_name].to_numpy(dtype=np.float64)

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
class TableParts:
    """What a :class:`LoadedTable`'s table is built from: the id columns as codes or hashes
    (which write out their ids as a pandas ``str`` Series) and the numbers (float64), under
    ``number_name``."""

    ids: dict[str, Ids | HashedIds]
    number_name: str
    numbers: np.ndarray

    @property
    def n_rows(self) -> int:
        return len(self.numbers)

    def build(self, first: int | None = None) -> pd.DataFrame:
        """The table, or only its first ``first`` rows."""
        numbers = self.numbers if first is None else self.numbers[:first]
        if not (numbers.flags.writeable and numbers.flags.owndata):
            numbers = numbers.copy()  # the table owns its values (pandas may write to them)
        columns: dict[str, pd.Series | np.ndarray] = {role: ids.to_series(first) for role, ids
                                                     in self.ids.items()}
        columns[self.number_name] = numbers
        return pd.DataFrame(columns, copy=False)


@dataclass
class IdIndex:
    """One id column of a table summarised: its distinct values in order of first appearance
    (as ``Series.unique()`` gives them, missing values included), each row's position in
    ``values``, and the number of rows holding each value."""

    values: pd.Series
    coded: np.ndarray | Ids  # each row's position, or the column's codes from the reading
    column: object | None  # the column's Arrow data, to notice the table changed since

    @property
    def codes(self) -> np.ndarray:
        """Each row's position in ``values``."""
        return self.coded.codes if isinstance(self.coded, Ids) else self.coded

    @cached_property
    def counts(self) -> np.ndarray:
        """The number of rows holding each of ``values`` (from the runs of rows sharing one
        id, when the reading found them)."""
        if isinstance(self.coded, Ids) and isinstance(self.coded.stored, Runs):
            runs = self.coded.stored
            return np.bincount(runs.codes, weights=np.diff(runs.starts),
                               minlength=len(self.values)).astype(np.int64)
        return np.bincount(self.codes, minlength=len(self.values))

    @property
    def present(self) -> np.ndarray:
        """Which ``values`` are not missing."""
        return self.values.notna().to_numpy()

    @property
    def n_distinct(self) -> int:
        """Number of distinct values, missing values left out (as ``Series.nunique()``)."""
        return int(self.present.sum())


def id_index(table: LoadedTable, role: str) -> IdIndex:
    """The user or item column of ``table.table`` summarised, computed once and kept.

    The readers fill it in while checking the file (where the ids are codes already); a table
    changed or built by hand is summarised here from its column.
    """
    known = table._id_indexes.get(role)
    if known is not None:
        if table._table is None:
            return known
        data = _column_data(table._table[role])
        if data is not None and known.column is data:
            return known
    column = table.table[role]
    data = _column_data(column)
    found, uniques = pd.factorize(column, use_na_sentinel=False)
    index = IdIndex(pd.Series(uniques), found, data)
    table._id_indexes[role] = index
    return index


def index_ids(table: LoadedTable, ids: dict[str, Ids | HashedIds]) -> None:
    """Keep the codes found while reading as ``table``'s id indexes (before anyone sees it).

    ``ids`` holds each column as codes whose values are distinct and in order of first
    appearance (a run's items as hashes, which give no index). Kept: the codes (as read: in
    runs when the rows came in runs) and the distinct ids.
    """
    for role, coded in ids.items():
        table._codes[role] = (coded, None)
        if isinstance(coded, HashedIds):
            continue
        table._id_indexes[role] = IdIndex(coded.values.to_pandas(), coded, None)


def _remember_columns(table: LoadedTable) -> None:
    """Note the Arrow data of each coded column of the table just built (see kept_codes)."""
    built = table.table
    for role, (coded, _) in table._codes.items():
        table._codes[role] = (coded, _column_data(built[role]))
    for role, index in table._id_indexes.items():
        if index.column is None:
            index.column = _column_data(built[role])


def kept_codes(table: LoadedTable, role: str) -> Ids | HashedIds | None:
    """The codes kept while reading, while the table still holds the column they were made
    for (or is not built yet); None otherwise."""
    kept = table._codes.get(role)
    if kept is None:
        return None
    if table._table is None:
        return kept[0]
    data = _column_data(table._table[role])
    if data is None or kept[1] is not data:
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
    return truth.numbers()
