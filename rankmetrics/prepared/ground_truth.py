"""The ground truth as integer arrays, built from what :mod:`rankmetrics.io` read and checked.

Reading a ground truth (a file or a DataFrame) already numbers its users and items in order of
first appearance and drops or refuses repeated rows. :class:`GroundTruth` keeps those numbers,
so relevance mappings and metric conventions are applied later to plain arrays: changing a
threshold does not re-read anything.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from rankmetrics.io import LoadedTable, truth_codes, truth_from_dataframe


@dataclass(frozen=True)
class GroundTruth:
    """A ground-truth table indexed by user and item.

    Attributes
    ----------
    users : pd.Index
        Every ground-truth user, in order of first appearance; metric rows follow it.
    items : pd.Index
        Every judged item, in order of first appearance.
    user_index, item_index : int arrays (n_rows,)
        Each ground-truth row's position in ``users`` and ``items`` (int32 below 2**31 rows,
        as are ``rows_by_user``; int64 beyond).
    ratings : float array (n_rows,)
        Each row's rating.
    duplicates_dropped : int
        Identical repeated rows that were dropped.
    user_starts, rows_by_user : int arrays
        User u's rows are ``rows_by_user[user_starts[u]:user_starts[u + 1]]``, in row order.
    """

    users: pd.Index
    items: pd.Index
    user_index: np.ndarray
    item_index: np.ndarray
    ratings: np.ndarray
    duplicates_dropped: int
    user_starts: np.ndarray
    rows_by_user: np.ndarray
    user_ids: pa.Array  # ``users`` as Arrow text, to look the users of a run up
    item_ids: pa.Array  # ``items`` as Arrow text, to look the items of a run up

    @classmethod
    def from_loaded(cls, truth: LoadedTable) -> GroundTruth:
        """Index a ground truth read by :func:`rankmetrics.io.read_truth` (or checked by
        :func:`rankmetrics.io.truth_from_dataframe`)."""
        if truth.kind != "truth":
            raise ValueError(f"GroundTruth needs a ground truth; {truth.name!r} is a "
                             f"{truth.kind}.")
        users, items, truth = truth_codes(truth)
        # Positions of rows, users and items fit in 32 bits below 2**31 rows.
        dtype = np.int32 if truth.n_rows < 2**31 else np.int64
        user_index = users.codes_as(dtype)
        counts = np.bincount(user_index, minlength=len(users.values))
        grouped = not np.any(user_index[1:] < user_index[:-1])
        return cls(
            users=pd.Index(users.values.to_pandas(), dtype="str"),
            items=pd.Index(items.values.to_pandas(), dtype="str"),
            user_index=user_index,
            item_index=items.codes_as(dtype),
            ratings=truth.numbers(),
            duplicates_dropped=truth.duplicates_dropped,
            user_starts=np.concatenate([[0], np.cumsum(counts)]),
            rows_by_user=(np.arange(len(user_index), dtype=dtype) if grouped
                          else np.argsort(user_index, kind="stable").astype(dtype)),
            user_ids=users.values,
            item_ids=items.values,
        )

    @classmethod
    def from_frame(cls, table: pd.DataFrame | LoadedTable) -> GroundTruth:
        """Index a table with columns ``user``, ``item``, ``rating`` (or a read ground truth).

        The table is checked as :func:`rankmetrics.io.truth_from_dataframe` checks it:
        repeated (user, item) rows with the same rating are dropped (and counted); with
        different ratings they are an error naming the rows.
        """
        if isinstance(table, LoadedTable):
            return cls.from_loaded(table)
        return cls.from_loaded(truth_from_dataframe(table, name="ground truth",
                                                    columns=named_columns(table, "rating")))

    @property
    def n_users(self) -> int:
        return len(self.users)


def named_columns(table: pd.DataFrame, value: str) -> dict[str, str] | None:
    """The columns ``user``, ``item`` and ``value`` when the table has them all (so they are
    used whatever other columns it has); None lets the reader find the columns."""
    wanted = ("user", "item", value)
    if not isinstance(table, pd.DataFrame) or not all(name in table.columns for name in wanted):
        return None
    return {name: name for name in wanted}
