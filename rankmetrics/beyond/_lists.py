"""The items each model recommended to each ground-truth user, in order, as item ids.

The accuracy metrics read only the ranked items the ground truth judged; coverage,
popularity and diversity need every recommended item, so the top ranks of each list are
read again here, under the same tie rule and for the same users.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankmetrics.io import LoadedTable
from rankmetrics.prepared.ground_truth import GroundTruth
from rankmetrics.prepared.ranked_run import order_rows


@dataclass(frozen=True)
class TopItems:
    """The first ``width`` items of each list: where each sits in a users x ``width`` matrix
    (``cell``: ground-truth user x width + 0-based rank) and its item (a position in
    ``distinct``, the distinct item ids), sorted by user, then rank."""

    cell: np.ndarray
    item: np.ndarray
    distinct: pa.Array
    width: int
    #: The longest list read (at most ``width``).
    longest: int

    def matrix(self, codes: np.ndarray, n_users: int) -> np.ndarray:
        """Users x width item codes (``codes`` gives each entry's), -1 past a list's end."""
        out = np.full(n_users * self.width, -1, dtype=np.int32)
        out[self.cell] = codes
        return out.reshape(n_users, self.width)


def top_items(run: LoadedTable, truth: GroundTruth, *, ties: str, width: int) -> TopItems:
    """The first ``width`` items a run ranks for each ground-truth user (see
    :func:`rankmetrics.prepared.ranked_run.order_rows`)."""
    ordered = order_rows(run, truth, ties)
    starts = ordered.starts
    sizes = np.diff(starts)
    user = ordered.block_user
    # each row's place in the matrix: its user's first cell plus its rank
    cell = np.arange(int(starts[-1]), dtype=np.int64)
    cell += np.repeat(user * width - starts[:-1], sizes)
    positions = None
    if len(sizes) and sizes.max() > width:  # rows past rank width are left out
        positions = np.flatnonzero(cell - np.repeat(user * width, sizes) < width)
        cell = cell[positions]
    rows = positions if ordered.order is None else ordered.order[
        slice(None) if positions is None else positions]
    items = ordered.items
    if items.numbered is not None:  # numbered while reading: no text to read again
        distinct = items.numbered.values
        item = items.numbered.codes if rows is None else items.numbered.codes[rows]
    else:
        encoded = pc.dictionary_encode(items.rows(
            np.arange(len(cell)) if rows is None else rows))
        distinct = encoded.dictionary
        item = encoded.indices.to_numpy(zero_copy_only=False)
    longest = min(width, int(sizes.max(initial=0)))
    return TopItems(cell=cell, item=item, distinct=distinct, width=width, longest=longest)
