"""Each model's top items as item codes, as the beyond-accuracy metrics' kernels read them."""

from __future__ import annotations

import hashlib
import threading

import numpy as np

from rankmetrics.beyond import BeyondInputs, ItemFacts
from rankmetrics.metrics import item_value_table, rank_sums

#: Item-value sums by rank kept per model and set of users.
KEPT_SUMS = 8


class TopLists:
    """The top items of every model (:class:`~rankmetrics.beyond.BeyondInputs`), cut to what
    a kernel asks for, and the item values summed by rank for the users a mean is over (the
    last few kept: ARP, APLT, ACLT and novelty are asked for one after another). One may
    serve several threads: what it keeps is guarded by a lock."""

    def __init__(self, inputs: BeyondInputs) -> None:
        self.inputs = inputs
        self.facts: ItemFacts = inputs.facts
        # (model, width, counted users) -> the item values summed by rank
        self._sums: dict[tuple[str, int, str], np.ndarray] = {}
        self._lock = threading.Lock()

    def of_model(self, model: str, width: int) -> np.ndarray:
        """Every user's top items (users x at most ``width``)."""
        return self.inputs.lists[model][:, :width]

    def block(self, model: str, start: int, stop: int, width: int) -> np.ndarray:
        """Users start..stop-1's top items at ranks 1..width (-1: no item)."""
        top = self.inputs.lists[model][start:stop, :width]
        if top.shape[1] < width:
            top = np.pad(top, ((0, 0), (0, width - top.shape[1])), constant_values=-1)
        return top

    def rank_sums(self, model: str, width: int, mask: np.ndarray) -> np.ndarray:
        """:func:`rankmetrics.metrics.rank_sums` of the item values for the users in
        ``mask``."""
        lists = self.of_model(model, width)
        key = (model, lists.shape[1], hashlib.sha1(np.packbits(mask).tobytes()).hexdigest())
        with self._lock:
            if key not in self._sums:
                if len(self._sums) >= KEPT_SUMS:
                    self._sums.pop(next(iter(self._sums)))
                self._sums[key] = rank_sums(lists, mask.astype(np.float64),
                                            item_value_table(self.facts))
            return self._sums[key]
