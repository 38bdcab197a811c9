"""A bounded, thread-safe store of computed arrays, for objects many sessions share.

The dashboard keeps one :class:`~rankmetrics.evaluation.Evaluation` per data set and settings
and hands it to every session that asks; each fills the evaluation's per-user values on
demand. So the store is guarded by a lock, holds at most ``max_bytes`` (the least recently
used arrays go first), and keeps its arrays read-only: no caller can change what the next one
reads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

import numpy as np


class BoundedCache:
    """Arrays by key, at most ``max_bytes`` of them, least recently used dropped first.

    An array larger than ``max_bytes`` is returned but not kept. Two threads asking for the
    same missing key may both compute it; the first result stored is the one kept and
    returned to both.

    >>> cache = BoundedCache(max_bytes=16)
    >>> cache.get_or_compute("a", lambda: np.zeros(2)).flags.writeable
    False
    >>> _ = cache.get_or_compute("b", lambda: np.ones(2))  # 32 bytes in all: "a" is dropped
    >>> "a" in cache, "b" in cache, cache.nbytes
    (False, True, 16)
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._arrays: OrderedDict[Hashable, np.ndarray] = OrderedDict()
        self._nbytes = 0
        self._lock = threading.Lock()

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._arrays

    def __len__(self) -> int:
        with self._lock:
            return len(self._arrays)

    @property
    def nbytes(self) -> int:
        """The bytes of the arrays kept."""
        with self._lock:
            return self._nbytes

    def get_or_compute(self, key: Hashable, compute: Callable[[], np.ndarray]) -> np.ndarray:
        """The array kept under ``key``, or ``compute()`` (then kept, read-only)."""
        with self._lock:
            if key in self._arrays:
                self._arrays.move_to_end(key)
                return self._arrays[key]
        array = compute()  # outside the lock: other keys stay available meanwhile
        array.flags.writeable = False
        return self._keep(key, array)

    def _keep(self, key: Hashable, array: np.ndarray) -> np.ndarray:
        with self._lock:
            if key in self._arrays:  # another thread computed it meanwhile
                self._arrays.move_to_end(key)
                return self._arrays[key]
            if array.nbytes > self.max_bytes:
                return array
            self._arrays[key] = array
            self._nbytes += array.nbytes
            while self._nbytes > self.max_bytes:
                _, dropped = self._arrays.popitem(last=False)
                self._nbytes -= dropped.nbytes
            return array
