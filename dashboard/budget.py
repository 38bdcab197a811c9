"""The memory the dashboard keeps, bounded by bytes and by time, for a server a team shares.

Read tables, ground truths, ranked runs and evaluations are big and shared between sessions
(keyed on the files' content digests and the settings, so two people uploading the same file
share one table). Streamlit's own caches bound them by entry count only, so a few large
uploads could hold gigabytes long after their browsers closed. They are kept here instead:

- every kept object is sized (its NumPy and Arrow buffers, its bytes); with the files the
  open sessions hold as uploads, the total stays under ``RANKMETRICS_MEMORY_LIMIT_GIB``
  (default 4). Making room drops the least recently used objects no open session uses first,
  then the others (a session needing a dropped object computes it again);
- each session holds a :class:`Lease` in its state; an object remembers the leases that used
  it. A lease lapses when its browser is no longer connected (or when Streamlit forgets the
  session); an object no open session holds is dropped once unused for ``ORPHAN_SECONDS``,
  any object once unused for an hour. While a browser has left, each sweep drops the sessions
  Streamlit keeps past their time to live (:func:`forget_expired_sessions`), collects the
  reference cycles their state waits in, and gives the memory back to the system once the
  session is gone;
- sessions asking at once for the same missing object wait for one computation of it;
- a new upload is refused, with a message saying what the server holds and how to raise the
  limit, when it would not fit next to what the open sessions use.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Protocol, TypeVar, cast

import numpy as np
import pandas as pd
import pyarrow as pa

GIB = 2**30
LIMIT_VARIABLE = "RANKMETRICS_MEMORY_LIMIT_GIB"
DEFAULT_LIMIT_GIB = 4.0
ORPHAN_SECONDS = 60  # an object no open session uses is dropped once unused this long
HOUR = 3600  # any object unused this long is dropped
SWEEP_SECONDS = 15
#: Reading an upload and what is made of it (table, ranked lists, evaluation) takes about this
#: many times the file's size (Parquet files compress ids and scores several times over).
READ_EXPANSION = 8

T = TypeVar("T")


class Holding(Protocol):
    """What a session holds itself (its uploaded files)."""

    @property
    def nbytes(self) -> int: ...


class Lease:
    """One session's hold on the objects it used, and on the files it uploaded; ``is_open``
    says whether its browser is still connected (always, when not given)."""

    def __init__(self, holding: Holding | None = None,
                 is_open: Callable[[], bool] | None = None) -> None:
        self.holding = holding
        self.is_open = is_open or (lambda: True)

    @property
    def nbytes(self) -> int:
        return self.holding.nbytes if self.holding is not None else 0


@dataclass
class _Entry:
    value: object
    nbytes: int
    last_used: float
    holders: weakref.WeakSet = field(default_factory=weakref.WeakSet)

    def in_use(self) -> bool:
        return any(holder.is_open() for holder in list(self.holders))


class MemoryBudget:
    """Objects by key, sized, at most ``limit_bytes`` with the sessions' own files."""

    def __init__(self, limit_bytes: int, *, orphan_seconds: float = ORPHAN_SECONDS,
                 ttl_seconds: float = HOUR, clock: Callable[[], float] = time.monotonic,
                 ) -> None:
        self.limit_bytes = limit_bytes
        self.orphan_seconds, self.ttl_seconds, self.clock = orphan_seconds, ttl_seconds, clock
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._leases: weakref.WeakSet[Lease] = weakref.WeakSet()
        self._computing: dict[Hashable, threading.Lock] = {}
        self._lock = threading.RLock()

    # ----- what is held ----------------------------------------------------------------

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._entries

    def kept_bytes(self) -> int:
        """The bytes of the objects kept."""
        with self._lock:
            return sum(entry.nbytes for entry in self._entries.values())

    def held_bytes(self) -> int:
        """The objects kept and the files the open sessions uploaded."""
        with self._lock:
            return self.kept_bytes() + _leased_bytes(list(self._leases))

    def in_use_bytes(self) -> int:
        """The objects open sessions use and the files they uploaded (a file several
        sessions hold as one object counted once)."""
        return (sum(entry.nbytes for entry in self._entries.values() if entry.in_use())
                + _leased_bytes([lease for lease in list(self._leases) if lease.is_open()]))

    def lease(self, holding: Holding | None = None,
              is_open: Callable[[], bool] | None = None) -> Lease:
        """A new session's lease (its uploads counted through ``holding``)."""
        lease = Lease(holding, is_open)
        with self._lock:
            self._leases.add(lease)
        return lease

    # ----- objects -----------------------------------------------------------------------

    def get_or_compute(self, key: Hashable, compute: Callable[[], T],
                       holder: Lease | None = None) -> T:
        """The object kept under ``key``, or ``compute()``, then kept if it fits. Callers
        asking for the same missing key meanwhile wait for this computation. A key names one
        computation: the object kept under it is what its ``compute`` returns."""
        found = self._touch(key, holder)
        if found is not None:
            return cast(T, found[0])
        with self._lock:
            gate = self._computing.setdefault(key, threading.Lock())
        with gate:
            found = self._touch(key, holder)
            if found is not None:
                return cast(T, found[0])
            try:
                value = compute()
                self._keep(key, value, holder)
            finally:
                with self._lock:
                    self._computing.pop(key, None)
        return value

    def _touch(self, key: Hashable, holder: Lease | None) -> tuple[object] | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            entry.last_used = self.clock()
            if holder is not None:
                entry.holders.add(holder)
            self._entries.move_to_end(key)
            return (entry.value,)

    def _size(self, value: object) -> int:
        """``value``'s bytes, leaving out the objects kept under other keys that it refers to
        (an evaluation holds the ranked runs kept on their own)."""
        return size_of(value, {id(entry.value) for entry in self._entries.values()
                               if entry.value is not value})

    def _keep(self, key: Hashable, value: object, holder: Lease | None) -> None:
        with self._lock:
            nbytes = self._size(value)
            if nbytes > self.limit_bytes:
                return
            entry = _Entry(value, nbytes, self.clock())
            if holder is not None:
                entry.holders.add(holder)
            self._entries[key] = entry
            dropped = self._make_room(0)
        if dropped:
            give_back_memory()

    def _make_room(self, needed: int) -> int:
        """Drop least recently used objects, unused ones first, until ``needed`` more bytes
        fit; the newest object is kept. Returns how many were dropped."""
        dropped = 0
        for unused_only in (True, False):
            for key in list(self._entries)[:-1]:
                if self.held_bytes() + needed <= self.limit_bytes:
                    return dropped
                if unused_only and self._entries[key].in_use():
                    continue
                del self._entries[key]
                dropped += 1
        return dropped

    # ----- uploads and time ----------------------------------------------------------------

    def admit(self, nbytes: int, expansion: int = READ_EXPANSION) -> str | None:
        """Room for a new upload of ``nbytes`` (and ``expansion`` times as much for what
        reading it makes), made by dropping objects no open session uses; the message for
        the user when there is none."""
        needed = nbytes * (1 + expansion)
        with self._lock:
            in_use = self.in_use_bytes()
            if in_use + needed > self.limit_bytes:
                return busy_message(in_use, needed, self.limit_bytes)
            dropped = self._make_room_unused(needed)
        if dropped:
            give_back_memory()
        return None

    def _make_room_unused(self, needed: int) -> int:
        dropped = 0
        for key in list(self._entries):
            if self.held_bytes() + needed <= self.limit_bytes:
                break
            if not self._entries[key].in_use():
                del self._entries[key]
                dropped += 1
        return dropped

    def sweep(self) -> int:
        """Drop the objects no session used for too long, size the others again (an
        evaluation grows as pages ask for per-user values) and keep within the limit; how
        many were dropped."""
        now = self.clock()
        with self._lock:
            leases = len(self._leases)
            # A closed session's state (its uploads, its tables) can wait in a reference
            # cycle after Streamlit forgets the session: collect while a browser has left.
            if any(not lease.is_open() for lease in list(self._leases)) or any(
                    entry.in_use() and now - entry.last_used > self.orphan_seconds
                    for entry in self._entries.values()):
                gc.collect()
            forgotten = leases - len(self._leases)
            stale = [key for key, entry in self._entries.items()
                     if now - entry.last_used > self.ttl_seconds
                     or (not entry.in_use() and now - entry.last_used > self.orphan_seconds)]
            for key in stale:
                del self._entries[key]
            for entry in self._entries.values():
                entry.nbytes = self._size(entry.value)
            dropped = len(stale) + self._make_room(0)
        if dropped or forgotten:
            give_back_memory()  # what they held goes back to the system
        return dropped


def _leased_bytes(leases: list[Lease]) -> int:
    """The bytes the leases' sessions hold: each file's bytes once, however many sessions
    hold that one object (:func:`dashboard.files.shared_content`)."""
    seen: set[int] = set()
    total = 0
    for lease in leases:
        buffers = getattr(lease.holding, "buffers", None)
        if buffers is None:
            total += lease.nbytes
            continue
        for data in buffers():
            if id(data) not in seen:
                seen.add(id(data))
                total += len(data)
    return total


def busy_message(in_use: int, needed: int, limit: int) -> str:
    return (f"The server is busy: it holds {readable(in_use)} of its {readable(limit)} for "
            f"the people using it, and these files need about {readable(needed)} more. "
            f"Try again in a few minutes (memory is given back "
            f"when sessions close), upload smaller files, or ask the server's admin to raise "
            f"{LIMIT_VARIABLE}.")


def readable(n_bytes: int) -> str:
    """A size as people read it: ``850 MiB``, ``1.4 GiB``.

    >>> readable(5 * 2**20), readable(3 * 2**29)
    ('5 MiB', '1.5 GiB')
    """
    if n_bytes >= GIB:
        return f"{n_bytes / GIB:.1f} GiB"
    return f"{max(1, round(n_bytes / 2**20))} MiB"


def size_of(value: object, seen: set[int] | None = None) -> int:
    """The bytes of the arrays, tables and byte strings ``value`` holds (each counted once),
    following dataclasses, objects' attributes, and containers."""
    seen = set() if seen is None else seen
    if id(value) in seen or value is None or isinstance(value, (int, float, str, bool)):
        return 0
    seen.add(id(value))
    if isinstance(value, (bytes, bytearray)):
        return len(value)
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (pa.Table, pa.Array, pa.ChunkedArray, pa.RecordBatch)):
        return value.get_total_buffer_size()
    if isinstance(value, pd.Index):
        return int(value.memory_usage(deep=False))
    if isinstance(value, (pd.DataFrame, pd.Series)):
        return int(np.sum(value.memory_usage(index=True, deep=False)))
    if isinstance(value, dict):
        return sum(size_of(item, seen) for item in value.values())
    if isinstance(value, (list, tuple, set, frozenset)):
        return sum(size_of(item, seen) for item in value)
    if hasattr(value, "nbytes") and isinstance(value.nbytes, int):
        return value.nbytes
    if is_dataclass(value):
        return sum(size_of(getattr(value, f.name), seen) for f in fields(value))
    return size_of(getattr(value, "__dict__", None), seen)


def give_back_memory() -> None:
    """Free what dropped objects held, back to the system: Python's cycles, Arrow's pool,
    and the C library's free lists."""
    gc.collect()
    pa.default_memory_pool().release_unused()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        return


def limit_from_environment() -> int:
    """The memory limit in bytes: ``RANKMETRICS_MEMORY_LIMIT_GIB`` or the default."""
    text = os.environ.get(LIMIT_VARIABLE, "").strip()
    if not text:
        return int(DEFAULT_LIMIT_GIB * GIB)
    try:
        gib = float(text)
    except ValueError:
        gib = -1.0
    if not gib > 0:
        raise ValueError(f"{LIMIT_VARIABLE} must be a positive number of GiB, got {text!r}")
    return int(gib * GIB)


def forget_expired_sessions() -> int:
    """Drop the closed sessions Streamlit no longer serves but still stores: its session
    store only removes a disconnected session past its time to live when the store is next
    written to, so on a quiet server their state (uploads, tables) would stay. How many were
    dropped (0 where there is no server, or its store is not the in-memory one)."""
    from streamlit import runtime

    if not runtime.exists():
        return 0
    manager = getattr(runtime.get_instance(), "_session_mgr", None)
    storage = getattr(manager, "_session_storage", None)
    expire = getattr(getattr(storage, "_cache", None), "expire", None)
    return len(expire()) if callable(expire) else 0


def _sweep_forever(budget: MemoryBudget) -> None:
    while True:
        time.sleep(SWEEP_SECONDS)
        with contextlib.suppress(Exception):  # a change in Streamlit must not stop the sweeps
            forget_expired_sessions()
        budget.sweep()


#: The server's budget, shared by every session.
BUDGET = MemoryBudget(limit_from_environment())
threading.Thread(target=_sweep_forever, args=(BUDGET,), name="rankmetrics-memory-sweep",
                 daemon=True).start()
