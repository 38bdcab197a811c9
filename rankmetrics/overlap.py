"""Work run beside other work, its value or its error handed over where the work used to be.

The command line reads, checks and evaluates on one core for most of its time, while Arrow
and NumPy, which do nearly all of that work, let other threads run. So it reads the ground
truth while it reads the first model file, checks each model file against the ground truth
while it reads the next one, and checks the last one while it evaluates. Each outcome is asked
for at the place where the work used to run, one step after another: the messages come in the
same order, and the error raised is the one that would have been raised first.

Two threads at once take more CPU time than one after the other (measured: about a tenth more
for the command line on 100,000 users, on a 2-core machine that other work kept busy, where it
saved no time). The environment variable ``RANKMETRICS_OVERLAP=0`` runs everything one step
after another, in the caller's thread.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Generic, TypeVar, cast

T = TypeVar("T")


def overlapping() -> bool:
    """Whether work asked to run beside other work does (``RANKMETRICS_OVERLAP`` is not 0)."""
    return os.environ.get("RANKMETRICS_OVERLAP", "1").strip() != "0"


class Outcome(Generic[T]):
    """What ``work()`` returned or raised, handed over by :meth:`get`.

    With ``beside=True`` the work runs on a thread of its own and the caller goes on (unless
    :func:`overlapping` says no); otherwise it runs at once, in the caller's thread, and only
    its error waits for :meth:`get`.

    >>> Outcome(lambda: 6 * 7, beside=True).get()
    42
    >>> failed = Outcome(lambda: int("seven"))  # nothing raised yet
    >>> failed.get()
    Traceback (most recent call last):
    ...
    ValueError: invalid literal for int() with base 10: 'seven'
    """

    def __init__(self, work: Callable[[], T], *, beside: bool = False) -> None:
        self._value: T | None = None
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        if beside and overlapping():
            self._thread = threading.Thread(target=self._run, args=(work,), daemon=True)
            self._thread.start()
        else:
            self._run(work)

    def _run(self, work: Callable[[], T]) -> None:
        try:
            self._value = work()
        except BaseException as error:  # raised again by get(), in the caller's thread
            self._error = error

    def get(self) -> T:
        """The work's value (waiting for it to finish); its error, raised again, if it failed."""
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error
        return cast(T, self._value)
