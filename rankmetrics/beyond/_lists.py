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

from rankmetrics.ground_truth import GroundTruth
from rankmetrics.io import LoadedTable
from rankmetrics.ranked_run import _run_starts, order_rows


@dataclass(frozen=True)
class TopItems:
    """The first ``width`` items of each list: ground-truth user, 0-based rank and item of
    each (a position in ``distinct``, the distinct item ids), sorted by user, then rank."""

    user: np.ndarray
    rank: np.ndarray
    item: np.ndarray
    distinct: pa.Array
    width: int

    def matrix(self, codes: np.ndarray, n_users: int) -> np.ndarray:
        """Users x width item codes (``codes`` gives each entry's), -1 past a list's end."""
        out = np.full((n_users, self.width), -1, dtype=np.int32)
        out[self.user, self.rank] = codes
        return out


def top_items(run: LoadedTable, truth: GroundTruth, *, ties: str, width: int) -> TopItems:
    """The first ``width`` items a run ranks for each ground-truth user (see
    :func:`rankmetrics.ranked_run.order_rows`)."""
    ordered = order_rows(run, truth, ties)
    starts = _run_starts(ordered.user)
    lengths = np.minimum(np.diff(starts), width)
    firsts = starts[:-1]
    within = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(
        np.cumsum(lengths) - lengths, lengths)
    positions = np.repeat(firsts, lengths) + within
    rows = positions if ordered.order is None else ordered.order[positions]
    items = ordered.items
    if items.numbered is not None:  # numbered while reading: no text to read again
        distinct, item = items.numbered.values, items.numbered.codes[rows]
    else:
        encoded = pc.dictionary_encode(items.rows(rows))
        distinct = encoded.dictionary
        item = encoded.indices.to_numpy(zero_copy_only=False)
    return TopItems(user=ordered.user[positions].astype(np.int64), rank=within,
                    item=item.astype(np.int64), distinct=distinct, width=width)
