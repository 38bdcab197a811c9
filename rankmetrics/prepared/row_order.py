"""An order of a run's rows that moves only a few of them (:class:`Reordered`).

:mod:`rankmetrics.prepared.ranked_run` makes one when a model's lists are in score order already and
only tied rows move; :mod:`rankmetrics.prepared.matching` reads the rows of each list through it.
"""

from __future__ import annotations

import numpy as np


class Reordered:
    """An order that leaves every row in place but a few (tied rows sorted by item id):
    position ``positions[i]`` holds row ``rows[i]``. Indexed as the whole order would be (a
    slice or an array of positions), it gives the rows there, with no array over every row.
    """

    def __init__(self, n_rows: int, positions: np.ndarray, rows: np.ndarray) -> None:
        self.n_rows, self.positions, self.rows = n_rows, positions, rows

    def __len__(self) -> int:
        return self.n_rows

    def __getitem__(self, where: slice | np.ndarray) -> np.ndarray:
        if isinstance(where, slice):
            start, stop, step = where.indices(self.n_rows)
            if step != 1:
                raise ValueError(f"Reordered takes slices of step 1; got {step}.")
            rows = np.arange(start, max(start, stop))
            lo, hi = np.searchsorted(self.positions, [start, max(start, stop)])
            rows[self.positions[lo:hi] - start] = self.rows[lo:hi]
            return rows
        where = np.asarray(where)
        rows = where.astype(np.int64)
        if len(self.positions) == 0:
            return rows
        at = np.minimum(np.searchsorted(self.positions, where), len(self.positions) - 1)
        moved = self.positions[at] == where
        rows[moved] = self.rows[at[moved]]
        return rows
