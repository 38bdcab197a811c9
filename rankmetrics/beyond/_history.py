"""What each user has already seen: the items of their training interactions, for the
metrics that compare a list with a user's history (serendipity, miscalibration).

Each ground-truth user's distinct training items are kept as item codes, user by user (a
compressed row layout), with what the similarity of two items is made from: how many training
users hold both (co-occurrence, each user counted once for an item however many rows name the
pair), or the item attributes (see :class:`~rankmetrics.beyond.BeyondOptions`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import scipy.sparse as sp


@dataclass(frozen=True)
class History:
    """Each ground-truth user's training items, and the training interactions as distinct
    (training user, item) pairs (see the module docstring)."""

    #: Where each ground-truth user's items start in :attr:`items` (n_users + 1 entries).
    indptr: np.ndarray
    #: The item codes of every ground-truth user's history, user after user, each once.
    items: np.ndarray
    #: The distinct (training user, item code) pairs of every training user.
    pairs_user: np.ndarray
    pairs_item: np.ndarray
    n_training_users: int
    n_items: int
    _kept: dict[str, object] = field(default_factory=dict, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def sizes(self) -> np.ndarray:
        """How many distinct items each ground-truth user's history holds."""
        return np.diff(self.indptr)

    def rows(self, start: int, stop: int) -> sp.csr_matrix:
        """Users start..stop-1's histories as a users x items matrix of 1s."""
        lo, hi = self.indptr[start], self.indptr[stop]
        return sp.csr_matrix(
            (np.ones(hi - lo), self.items[lo:hi], self.indptr[start:stop + 1] - lo),
            shape=(stop - start, self.n_items))

    def cooccurrence_lookup(self) -> tuple[np.ndarray, np.ndarray]:
        """The cosine co-occurrence of two items: the number of training users holding both
        over the square root of the product of each item's users (1 for an item with itself,
        0 for items no user holds together), as the sorted keys ``a * n_items + b`` of the
        pairs held together and their values, computed once. The table is symmetric."""
        with self._lock:
            if "cooccurrence" not in self._kept:
                n_items = max(self.n_items, 1)
                held = sp.csr_matrix(
                    (np.ones(len(self.pairs_user)), (self.pairs_user, self.pairs_item)),
                    shape=(max(self.n_training_users, 1), n_items))
                together = (held.T @ held).tocsr()
                together.sum_duplicates()
                together.sort_indices()
                counts = np.asarray(held.sum(axis=0)).ravel()
                scale = np.divide(1.0, np.sqrt(counts), out=np.zeros(n_items),
                                  where=counts > 0)
                rows = np.repeat(np.arange(n_items, dtype=np.int64), np.diff(together.indptr))
                columns = together.indices.astype(np.int64)
                values = together.data * scale[rows] * scale[columns]
                self._kept["cooccurrence"] = (rows * n_items + columns, values)
            return self._kept["cooccurrence"]  # type: ignore[return-value]

def user_history(truth_users: pa.Array, training_users: pa.Array, user_codes: np.ndarray,
                 item_codes: np.ndarray, n_items: int) -> History:
    """The :class:`History` of training interactions whose rows are (``user_codes``: codes
    into ``training_users``, ``item_codes``: item codes), for the users of ``truth_users``."""
    n_training = len(training_users)
    pairs = np.unique(user_codes.astype(np.int64) * max(n_items, 1) + item_codes)
    pairs_user, pairs_item = pairs // max(n_items, 1), pairs % max(n_items, 1)
    found = pc.index_in(pc.cast(training_users, pa.large_string()),
                        value_set=pc.cast(truth_users, pa.large_string()))
    truth_of = pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    owner = truth_of[pairs_user] if len(pairs_user) else np.zeros(0, dtype=np.int64)
    kept = owner >= 0
    order = np.argsort(owner[kept], kind="stable")
    owners, items = owner[kept][order], pairs_item[kept][order]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(owners, minlength=len(truth_users)))])
    return History(indptr.astype(np.int64), items.astype(np.int64), pairs_user, pairs_item,
                   n_training, n_items)
